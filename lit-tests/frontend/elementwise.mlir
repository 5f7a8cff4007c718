// Elementwise ops: broadcasting binaries (Sub, Mul, Div, Max), unaries (Sqrt, Tanh, Sigmoid),
// and N-ary Sum decomposed into a left-to-right chain of sg.add.
// RUN: strata import %S/inputs/elementwise.onnx | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[BIAS:.*]] = arith.constant dense_resource<bias_{{[0-9]+}}> : tensor<4xf32>
// CHECK: %[[A:.*]] = "sg.sub"(%[[X]], %[[BIAS]]) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[B:.*]] = "sg.mul"(%[[A]], %[[A]])
// CHECK: %[[SCALE:.*]] = arith.constant dense_resource<scale_{{[0-9]+}}> : tensor<3x1xf32>
// CHECK: %[[C:.*]] = "sg.div"(%[[B]], %[[SCALE]]) : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[D:.*]] = "sg.sqrt"(%[[C]])
// CHECK: %[[E:.*]] = "sg.tanh"(%[[D]])
// CHECK: %[[F1:.*]] = "sg.add"(%[[E]], %[[X]])
// CHECK: %[[F2:.*]] = "sg.add"(%[[F1]], %[[BIAS]])
// CHECK: %[[G:.*]] = "sg.max"(%[[F2]], %[[E]])
// CHECK: %[[Y:.*]] = "sg.sigmoid"(%[[G]])
// CHECK: return %[[Y]]
