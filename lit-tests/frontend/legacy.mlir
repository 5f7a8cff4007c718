// Older operator definitions import natively, without a conversion step: at opset 6 Slice's
// starts/ends/axes and Pad's pads/value are attributes, Add's second operand broadcasts from
// `axis` (broadcast = 1), and Softmax normalises over every dimension from its axis on (the input
// viewed as 2-D). Upsample (opset 7, scales as an attribute) takes the asymmetric, floor
// mapping it specifies: at x2 every index twice, so each axis is a broadcast into two copies
// (reshape, expand, reshape), as Resize's integer upsampling is.
// RUN: strata import %S/inputs/legacy.onnx | FileCheck %s
// RUN: strata import %S/inputs/upsample7.onnx | FileCheck %s --check-prefix=UPSAMPLE

// CHECK: func.func @main(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[S:.*]] = "sg.slice"(%arg0) {ends = array<i64: 2, 3, 3>, starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
// CHECK: %[[P:.*]] = "sg.pad"(%[[S]]) {mode = 0 : i64, pads = array<i64: 0, 0, 1, 0, 0, 1>, value = 2.000000e+00 : f64}
// CHECK: %[[A:.*]] = "sg.add"(%[[P]], %{{.*}}) : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[F:.*]] = "sg.reshape"(%[[A]]) : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK: %[[M:.*]] = "sg.softmax"(%[[F]]) {axis = 1 : i64} : (tensor<2x12xf32>) -> tensor<2x12xf32>
// CHECK: "sg.reshape"(%[[M]]) : (tensor<2x12xf32>) -> tensor<2x3x4xf32>

// UPSAMPLE-NOT: sg.gather
// UPSAMPLE: "sg.expand"(%{{.*}}) : (tensor<1x1x2x1x2xf32>) -> tensor<1x1x2x2x2xf32>
// UPSAMPLE: "sg.reshape"(%{{.*}}) : (tensor<1x1x2x2x2xf32>) -> tensor<1x1x4x2xf32>
// UPSAMPLE: "sg.expand"(%{{.*}}) : (tensor<1x1x4x2x1xf32>) -> tensor<1x1x4x2x2xf32>
// UPSAMPLE: "sg.reshape"(%{{.*}}) : (tensor<1x1x4x2x2xf32>) -> tensor<1x1x4x4xf32>
