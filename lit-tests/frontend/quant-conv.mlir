// With --integer-products (what `strata compile` does on hosts with AVX-512 VNNI), a QDQ
// model's 1x1 Conv (stride 1, no padding, one group, batch 1) of an 8-bit activation and a
// constant 8-bit filter imports as sg.quantized_conv: the activation quantized once in floats
// and cast to ui8 (an int8 one 128 higher), the filter's zero-point-centred values as i8 [O, C],
// the zero points' share as i32 offsets and the two scales' product per output channel, the
// bias added after. A stride-2 one keeps the float convolution.
// The run matches NumPy's exact integer sums bit for bit (5 x 7 pixels: two whole 16-pixel
// registers and a partial one; 4 x 8: two whole ones).
// RUN: strata import %S/inputs/quant_conv.onnx --integer-products | FileCheck %s
// RUN: strata import %S/inputs/quant_conv.onnx | FileCheck %s --check-prefix=OFF
// RUN: strata run %S/inputs/quant_conv.onnx --no-cache --input x=%S/../driver/inputs/quant_conv_x.npy --input v=%S/../driver/inputs/quant_conv_v.npy --expect y=%S/../driver/inputs/quant_conv_y.npy --expect z=%S/../driver/inputs/quant_conv_z.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=RUNOUT

// CHECK: "sg.cast"(%{{.*}}) : (tensor<1x8x5x7xf32>) -> tensor<1x8x5x7xui8>
// CHECK: %[[W:.*]] = arith.constant dense_resource<{{.*}}> : tensor<12x8xi8>
// CHECK: %[[O:.*]] = arith.constant dense_resource<{{.*}}> : tensor<12xi32>
// CHECK: %[[S:.*]] = arith.constant dense_resource<{{.*}}> : tensor<12xf32>
// CHECK: %[[Q:.*]] = "sg.quantized_conv"(%{{.*}}, %[[W]], %[[O]], %[[S]]) : (tensor<1x8x5x7xui8>, tensor<12x8xi8>, tensor<12xi32>, tensor<12xf32>) -> tensor<1x12x5x7xf32>
// CHECK: %[[B:.*]] = arith.constant dense_resource<{{.*}}> : tensor<12x1x1xf32>
// CHECK: %[[Y:.*]] = "sg.add"(%[[Q]], %[[B]]) : (tensor<1x12x5x7xf32>, tensor<12x1x1xf32>) -> tensor<1x12x5x7xf32>
// The int8 activation: its zero point -3 is 125 as uint8.
// CHECK: %[[Z8:.*]] = arith.constant dense<1.250000e+02> : tensor<f32>
// CHECK: "sg.add"(%{{.*}}, %[[Z8]])
// CHECK: %[[Z:.*]] = "sg.quantized_conv"(%{{.*}}) : (tensor<1x8x4x8xui8>, tensor<16x8xi8>, tensor<16xi32>, tensor<16xf32>) -> tensor<1x16x4x8xf32>
// CHECK: %[[F:.*]] = "sg.conv2d"({{.*}}strides = array<i64: 2, 2>{{.*}} -> tensor<1x12x3x4xf32>
// CHECK: return %[[Y]], %[[Z]], %[[F]]

// OFF-NOT: sg.quantized_conv
// OFF-COUNT-3: "sg.conv2d"

// RUNOUT: expect 'y': 0 of 420 elements outside
// RUNOUT: expect 'z': 0 of 512 elements outside
