// Concat of run-time values is a left-to-right chain of sg.concat; Split becomes one
// sg.slice per output (uneven sizes from a constant input); Reduce ops take their axes from
// a constant input, normalised (negative, sorted), with or without keepdims.
// RUN: strata import %S/inputs/layout2.onnx | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[PAD:.*]] = arith.constant dense_resource<pad_{{[0-9]+}}> : tensor<2x1x4xf32>
// CHECK: %[[C1:.*]] = "sg.concat"(%[[X]], %[[PAD]]) {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
// CHECK: %[[C2:.*]] = "sg.concat"(%[[C1]], %[[X]]) {axis = 1 : i64} : (tensor<2x4x4xf32>, tensor<2x3x4xf32>) -> tensor<2x7x4xf32>
// CHECK: %[[P0:.*]] = "sg.slice"(%[[C2]]) {ends = array<i64: 2, 2, 4>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>}
// CHECK: %[[P1:.*]] = "sg.slice"(%[[C2]]) {ends = array<i64: 2, 4, 4>, starts = array<i64: 0, 2, 0>
// CHECK: %[[P2:.*]] = "sg.slice"(%[[C2]]) {ends = array<i64: 2, 7, 4>, starts = array<i64: 0, 4, 0>
// CHECK: %[[M:.*]] = "sg.reduce_mean"(%[[P1]]) {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<2x2x4xf32>) -> tensor<2xf32>
// CHECK: %[[Y:.*]] = "sg.reduce_max"(%[[P2]]) {axes = array<i64: 0, 1>, keepdims = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<1x1x4xf32>
// CHECK: return %[[P0]], %[[M]], %[[Y]]
