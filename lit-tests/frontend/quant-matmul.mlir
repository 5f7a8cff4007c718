// With --integer-products (what `strata compile` does on hosts with AVX-512 VNNI), a QDQ
// model's MatMul of an 8-bit activation and a constant int8 weight imports as
// sg.quantized_matmul: the activation quantized once in floats and cast to ui8 (one fused
// program; an int8 one 128 higher), the weight packed [N / 16, K / 4, 16, 4], the zero
// points' share as i32 offsets, the two scales' product per column. 24 columns (not a
// multiple of 16) are packed as 32, the padding's columns zero, and the product sliced back.
// A Gemm (quant_gemm.onnx: a classifier head, its int8 weight [N, K] per output under transB,
// 10 columns) takes the same product, its bias added after.
// The run matches NumPy's exact integer products (bit for bit on VNNI hosts; the float
// product elsewhere, within rounding).
// RUN: strata import %S/inputs/quant_matmul.onnx --integer-products | FileCheck %s
// RUN: strata import %S/inputs/quant_matmul.onnx | FileCheck %s --check-prefix=OFF
// RUN: strata import %S/inputs/quant_gemm.onnx --integer-products | FileCheck %s --check-prefix=GEMM
// RUN: strata run %S/inputs/quant_gemm.onnx --no-cache --input x=%S/../driver/inputs/quant_gemm_x.npy --expect y=%S/../driver/inputs/quant_gemm_y.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=GEMMOUT
// RUN: strata run %S/inputs/quant_matmul.onnx --no-cache --input x=%S/../driver/inputs/quant_matmul_x.npy --expect y=%S/../driver/inputs/quant_matmul_y.npy --expect z=%S/../driver/inputs/quant_matmul_z.npy --expect f=%S/../driver/inputs/quant_matmul_f.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=RUNOUT

// CHECK: %[[D:.*]] = "sg.div"(%arg0, %{{.*}}) : (tensor<2x5x12xf32>, tensor<f32>) -> tensor<2x5x12xf32>
// CHECK: "sg.cast"(%{{.*}}) : (tensor<2x5x12xf32>) -> tensor<2x5x12xui8>
// CHECK: %[[W:.*]] = arith.constant dense_resource<{{.*}}> : tensor<2x3x16x4xi8>
// CHECK: %[[O:.*]] = arith.constant dense_resource<{{.*}}> : tensor<32xi32>
// CHECK: %[[S:.*]] = arith.constant dense_resource<{{.*}}> : tensor<32xf32>
// CHECK: %[[Y:.*]] = "sg.quantized_matmul"(%{{.*}}, %[[W]], %[[O]], %[[S]]) : (tensor<2x5x12xui8>, tensor<2x3x16x4xi8>, tensor<32xi32>, tensor<32xf32>) -> tensor<2x5x32xf32>
// The int8 activation: its zero point -3 is 125 as uint8.
// CHECK: %[[Z8:.*]] = arith.constant dense<1.250000e+02> : tensor<f32>
// CHECK: "sg.add"(%{{.*}}, %[[Z8]])
// CHECK: %[[Z:.*]] = "sg.quantized_matmul"(%{{.*}}) : (tensor<2x5x12xui8>, tensor<2x3x16x4xi8>, tensor<32xi32>, tensor<32xf32>) -> tensor<2x5x32xf32>
// CHECK: %[[P:.*]] = "sg.quantized_matmul"(%{{.*}}) : (tensor<2x5x12xui8>, tensor<2x3x16x4xi8>, tensor<32xi32>, tensor<32xf32>) -> tensor<2x5x32xf32>
// CHECK: %[[F:.*]] = "sg.slice"(%[[P]]) {ends = array<i64: 2, 5, 24>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : (tensor<2x5x32xf32>) -> tensor<2x5x24xf32>
// CHECK: return %[[Y]], %[[Z]], %[[F]]

// GEMM: %[[G:.*]] = "sg.quantized_matmul"(%{{.*}}) : (tensor<2x12xui8>, tensor<1x3x16x4xi8>, tensor<16xi32>, tensor<16xf32>) -> tensor<2x16xf32>
// GEMM: %[[S:.*]] = "sg.slice"(%[[G]]) {ends = array<i64: 2, 10>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<2x16xf32>) -> tensor<2x10xf32>
// GEMM: %[[B:.*]] = "sg.add"(%[[S]], %{{.*}}) : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
// GEMM: return %[[B]]
// GEMMOUT: expect 'y': 0 of 20 elements outside

// OFF-NOT: sg.quantized_matmul
// OFF-COUNT-3: "sg.matmul"

// RUNOUT: expect 'y': 0 of 320 elements outside
// RUNOUT: expect 'z': 0 of 320 elements outside
// RUNOUT: expect 'f': 0 of 240 elements outside
