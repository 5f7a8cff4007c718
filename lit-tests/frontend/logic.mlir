// Comparisons produce i1; Not and Where select; Expand, Tile and Pad (reflect) take constant
// operands; InstanceNormalization keeps the input type.
// RUN: strata import %S/inputs/logic.onnx | FileCheck %s
// RUN: strata import %S/inputs/logic.onnx | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4xf32>) -> tensor<2x3x10xf32>
// CHECK: %[[Z:.*]] = arith.constant dense<{{.*}}> : tensor<f32>
// CHECK: %[[G:.*]] = "sg.greater"(%[[X]], %[[Z]]) : (tensor<1x3x4xf32>, tensor<f32>) -> tensor<1x3x4xi1>
// CHECK: %[[L:.*]] = "sg.less"(%[[X]], %[[Z]]) : (tensor<1x3x4xf32>, tensor<f32>) -> tensor<1x3x4xi1>
// CHECK: %[[E:.*]] = "sg.equal"(%[[G]], %[[L]]) : (tensor<1x3x4xi1>, tensor<1x3x4xi1>) -> tensor<1x3x4xi1>
// CHECK: %[[N:.*]] = "sg.not"(%[[E]])
// CHECK: %[[W:.*]] = "sg.where"(%[[N]], %[[X]], %[[Z]]) : (tensor<1x3x4xi1>, tensor<1x3x4xf32>, tensor<f32>) -> tensor<1x3x4xf32>
// CHECK: %[[EX:.*]] = "sg.expand"(%[[W]]) : (tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[T:.*]] = "sg.tile"(%[[EX]]) {repeats = array<i64: 1, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
// CHECK: %[[P:.*]] = "sg.pad"(%[[T]]) {mode = 1 : i64, pads = array<i64: 0, 0, 1, 0, 0, 1>, value = 0.000000e+00 : f64} : (tensor<2x3x8xf32>) -> tensor<2x3x10xf32>
// CHECK: "sg.instance_norm"(%[[P]], %{{.*}}, %{{.*}}) {epsilon = 0.0010000000474974513 : f64} : (tensor<2x3x10xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x10xf32>
