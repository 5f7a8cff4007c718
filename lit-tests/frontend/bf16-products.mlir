// A bf16 product whose weight is a bf16 initializer (here a Conv of a bf16 model fed from f32)
// and a one-step elementwise op of bf16 operands (the Relu) run in f32 between casts
// (`crate::half::bf16_products`): operands cast to f32 (the weights folded into f32
// constants), each result cast back to bf16, the rounding the op has anyway. The run matches
// the f64 convolution rounded to bf16 exactly. `--disable half-in-f32` keeps them in bf16.
// RUN: strata compile %S/inputs/bf16_conv.onnx --emit=sg | FileCheck %s
// RUN: strata run %S/inputs/bf16_conv.onnx --no-cache --input x=%S/../driver/inputs/bf16_conv_x.npy --expect y=%S/../driver/inputs/bf16_conv_y.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=RUNOUT
// RUN: strata compile %S/inputs/bf16_conv.onnx --emit=sg --disable half-in-f32 | FileCheck %s --check-prefix=OFF

// CHECK: %[[B:.*]] = "sg.cast"(%arg0) : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xbf16>
// CHECK: %[[X:.*]] = "sg.cast"(%[[B]]) : (tensor<1x4x5x5xbf16>) -> tensor<1x4x5x5xf32>
// CHECK: %[[C:.*]] = "sg.conv2d"(%[[X]], %{{.*}}, %{{.*}}) {{.*}} : (tensor<1x4x5x5xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x5x5xf32>
// CHECK: %[[CB:.*]] = "sg.cast"(%[[C]]) : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xbf16>
// CHECK: %[[CW:.*]] = "sg.cast"(%[[CB]]) : (tensor<1x8x5x5xbf16>) -> tensor<1x8x5x5xf32>
// CHECK: %[[R:.*]] = "sg.relu"(%[[CW]]) : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
// CHECK: "sg.cast"(%[[R]]) : (tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xbf16>

// RUNOUT: expect 'y': 0 of 200 elements outside

// OFF: "sg.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} : (tensor<1x4x5x5xbf16>, tensor<8x4x3x3xbf16>, tensor<8xbf16>) -> tensor<1x8x5x5xbf16>
// OFF: "sg.relu"(%{{.*}}) : (tensor<1x8x5x5xbf16>) -> tensor<1x8x5x5xbf16>
