// Slice (constant starts/ends/axes, negative end), Transpose, Reshape with a Constant node
// shape (0 and -1), MatMul with a weight, Identity and Dropout (forwarded), Flatten.
// RUN: strata import %S/inputs/layout.onnx | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x32xf32>) -> tensor<2x5xf32>
// CHECK: %[[S:.*]] = "sg.slice"(%[[X]]) {ends = array<i64: 2, 10, 30>, starts = array<i64: 0, 1, 2>, steps = array<i64: 1, 1, 1>} : (tensor<2x16x32xf32>) -> tensor<2x9x28xf32>
// CHECK: %[[T:.*]] = "sg.transpose"(%[[S]]) {perm = array<i64: 0, 2, 1>} : (tensor<2x9x28xf32>) -> tensor<2x28x9xf32>
// CHECK: %[[R:.*]] = "sg.reshape"(%[[T]]) : (tensor<2x28x9xf32>) -> tensor<2x252xf32>
// CHECK: %[[W:.*]] = arith.constant dense_resource<w_{{[0-9]+}}> : tensor<252x5xf32>
// CHECK: %[[M:.*]] = "sg.matmul"(%[[R]], %[[W]]) : (tensor<2x252xf32>, tensor<252x5xf32>) -> tensor<2x5xf32>
// CHECK: %[[F:.*]] = "sg.reshape"(%[[M]]) : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: return %[[F]]
// The shape and slice parameters are folded at import: no integer constants remain.
// CHECK-NOT: tensor<{{[0-9]+}}xi64>
