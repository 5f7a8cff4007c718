// With --integer-products (what `strata compile` does on hosts with AVX-512 VNNI), a
// MatMulInteger of a uint8 left operand and a constant 8-bit right one (how quantize_dynamic
// and Optimum write a transformer's products, after DynamicQuantizeLinear) imports as
// sg.quantized_matmul with an i32 result: the weight centred by its zero points and packed
// [N / 16, K / 4, 16, 4], each column's sum starting from -z_a * sum_k w, computed at run time
// when DynamicQuantizeLinear gives z_a, a constant otherwise. uint8 weights beyond int8 (no
// zero point to centre them) keep the generic i32 product. The runs match ONNX Runtime
// exactly (integer sums, either path). 10 columns (matmul_integer_cols.onnx, a classifier's)
// are packed as 16, the padding's columns zero, and the product sliced back.
// RUN: strata import %S/inputs/matmul_integer_cols.onnx --integer-products | FileCheck %s --check-prefix=COLS
// RUN: strata run %S/inputs/matmul_integer_cols.onnx --no-cache --input x=%S/../driver/inputs/matmul_integer_cols_x.npy --expect y=%S/../driver/inputs/matmul_integer_cols_y.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=COLSOUT
// RUN: strata import %S/inputs/matmul_integer.onnx --integer-products | FileCheck %s
// RUN: strata run %S/inputs/matmul_integer.onnx --no-cache --input x=%S/../driver/inputs/matmul_integer_x.npy --expect y=%S/../driver/inputs/matmul_integer_y.npy --expect z=%S/../driver/inputs/matmul_integer_z.npy --expect u=%S/../driver/inputs/matmul_integer_u.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=RUNOUT
// RUN: strata run %S/inputs/matmul_integer.onnx --no-cache --threads 2 --disable small-models --input x=%S/../driver/inputs/matmul_integer_x.npy --expect y=%S/../driver/inputs/matmul_integer_y.npy --expect z=%S/../driver/inputs/matmul_integer_z.npy --expect u=%S/../driver/inputs/matmul_integer_u.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=RUNOUT

// The run-time zero point's share: the negated column sums times the zero point.
// CHECK: %[[NEG:.*]] = arith.constant dense_resource<{{.*}}> : tensor<32xi32>
// CHECK: %[[OFF:.*]] = "sg.mul"(%[[NEG]], %{{.*}}) : (tensor<32xi32>, tensor<i32>) -> tensor<32xi32>
// CHECK: %[[Y:.*]] = "sg.quantized_matmul"(%[[Q:.*]], %{{.*}}, %[[OFF]]) : (tensor<2x5x12xui8>, tensor<2x3x16x4xi8>, tensor<32xi32>) -> tensor<2x5x32xi32>
// A constant zero point: constant offsets.
// CHECK: %[[COFF:.*]] = arith.constant dense_resource<{{.*}}> : tensor<32xi32>
// CHECK: %[[Z:.*]] = "sg.quantized_matmul"(%[[Q]], %{{.*}}, %[[COFF]]) : (tensor<2x5x12xui8>, tensor<2x3x16x4xi8>, tensor<32xi32>) -> tensor<2x5x32xi32>
// CHECK: %[[U:.*]] = "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x5x12xi32>, tensor<12x32xi32>) -> tensor<2x5x32xi32>
// CHECK: return %[[Y]], %[[Z]], %[[U]]

// RUNOUT: expect 'y': 0 of 320 elements outside
// RUNOUT: expect 'z': 0 of 320 elements outside
// RUNOUT: expect 'u': 0 of 320 elements outside

// COLS: %[[P:.*]] = "sg.quantized_matmul"(%arg0, %{{.*}}, %{{.*}}) : (tensor<2x12xui8>, tensor<1x3x16x4xi8>, tensor<16xi32>) -> tensor<2x16xi32>
// COLS: %[[Y:.*]] = "sg.slice"(%[[P]]) {ends = array<i64: 2, 10>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<2x16xi32>) -> tensor<2x10xi32>
// COLS: return %[[Y]]
// COLSOUT: expect 'y': 0 of 20 elements outside
