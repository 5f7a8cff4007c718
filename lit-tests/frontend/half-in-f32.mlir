// A half-precision model computes in f32 (`crate::half`, the driver's `half-in-f32`): its f16 input is cast to f32 where it enters, its f16 weights and Constant
// are f32 constants, a Cast to f16 keeps its rounding as `sg.round_f16` (the cast and the cast
// back as one elementwise op, so it fuses and no f16 value is made), and each f16 output is
// cast from f32 at the end; the interface keeps the model's element types. The run matches
// the f64 computation rounded once to f16. Without it, the f16 BatchNormalization is refused.
// RUN: strata compile %S/inputs/half.onnx --emit=sg | FileCheck %s
// RUN: strata run %S/inputs/half.onnx --no-cache --input x=%S/../driver/inputs/half_x.npy --input s=%S/../driver/inputs/half_s.npy --expect y=%S/../driver/inputs/half_y.npy --expect z=%S/../driver/inputs/half_z.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=RUNOUT
// RUN: not strata compile %S/inputs/half.onnx --emit=sg --disable half-in-f32 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not strata import %S/inputs/half.onnx --keep-half 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: strata import %S/inputs/half.onnx | FileCheck %s --check-prefix=IMPORT
// A graph the rewrite does not model (an output that is the input itself) compiles in f16 as
// it is, with a warning.
// RUN: strata compile %S/inputs/half_passthrough.onnx --emit=sg 2>&1 | FileCheck %s --check-prefix=KEPT

// CHECK: func.func @main(%arg0: tensor<1x2x4x4xf16>, %arg1: tensor<4xf32>) -> (tensor<1x3x4x4xf16>, tensor<4xf16>)
// CHECK: %[[X:.*]] = "sg.cast"(%arg0) : (tensor<1x2x4x4xf16>) -> tensor<1x2x4x4xf32>
// CHECK: %[[C:.*]] = "sg.conv2d"(%[[X]], %{{.*}}, %{{.*}}) {{.*}} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %[[K:.*]] = arith.constant dense<1.500000e+00> : tensor<f32>
// CHECK: %[[Y:.*]] = "sg.mul"(%{{.*}}, %[[K]]) : (tensor<1x3x4x4xf32>, tensor<f32>) -> tensor<1x3x4x4xf32>
// CHECK: %[[HW:.*]] = "sg.round_f16"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[Z:.*]] = "sg.add"(%[[HW]], %[[K]]) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[YH:.*]] = "sg.cast"(%[[Y]]) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
// CHECK: %[[ZH:.*]] = "sg.cast"(%[[Z]]) : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: return %[[YH]], %[[ZH]] : tensor<1x3x4x4xf16>, tensor<4xf16>

// RUNOUT: expect 'y': 0 of 48 elements outside
// RUNOUT: expect 'z': 0 of 4 elements outside

// OFF: BatchNormalization of FLOAT16 input

// IMPORT: "sg.cast"(%arg0) : (tensor<1x2x4x4xf16>) -> tensor<1x2x4x4xf32>

// KEPT: half_passthrough.onnx: warning: computed in half precision, not in f32: the graph output 'x' is an input or initializer itself
// KEPT: "sg.relu"(%arg0) : (tensor<4xf16>) -> tensor<4xf16>
