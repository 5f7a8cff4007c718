// Training-mode BatchNormalization: the batch's per-channel mean and population variance
// (reduced over every axis but 1) normalise it and update the running statistics with
// momentum 0.8; a training-mode Dropout with ratio 0 is the identity and its mask all true.
// RUN: strata import %S/inputs/training.onnx | FileCheck %s
// RUN: strata import %S/inputs/training.onnx | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @main(%arg0: tensor<2x3x4x4xf32>)
// CHECK: %[[MEANK:.*]] = "sg.reduce_mean"(%arg0) {axes = array<i64: 0, 2, 3>, keepdims = 1 : i64} : (tensor<2x3x4x4xf32>) -> tensor<1x3x1x1xf32>
// CHECK: %[[CENTERED:.*]] = "sg.sub"(%arg0, %[[MEANK]])
// CHECK: %[[SQUARED:.*]] = "sg.mul"(%[[CENTERED]], %[[CENTERED]])
// CHECK: %[[VARK:.*]] = "sg.reduce_mean"(%[[SQUARED]]) {axes = array<i64: 0, 2, 3>, keepdims = 1 : i64} : (tensor<2x3x4x4xf32>) -> tensor<1x3x1x1xf32>
// CHECK: %[[MEAN:.*]] = "sg.reshape"(%[[MEANK]]) : (tensor<1x3x1x1xf32>) -> tensor<3xf32>
// CHECK: %[[VAR:.*]] = "sg.reshape"(%[[VARK]]) : (tensor<1x3x1x1xf32>) -> tensor<3xf32>
// CHECK: "sg.add"(%[[VAR]], %{{.*}}) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK: %[[Y:.*]] = "sg.add"(%{{.*}}, %{{.*}}) : (tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32>
// CHECK: %[[KEEP:.*]] = arith.constant dense<8.000000e-01> : tensor<f32>
// CHECK: %[[TAKE:.*]] = arith.constant dense<0.199999988> : tensor<f32>
// CHECK: "sg.mul"(%[[MEAN]], %[[TAKE]])
// CHECK: %[[RM:.*]] = "sg.add"
// CHECK: "sg.mul"(%[[VAR]], %[[TAKE]])
// CHECK: %[[RV:.*]] = "sg.add"
// CHECK: %[[MASK:.*]] = arith.constant dense<true> : tensor<2x3x4x4xi1>
// CHECK: return %[[Y]], %[[MASK]], %[[RM]], %[[RV]]
