// Gemm decomposes into transpose (transB), matmul, scaling by alpha and beta (rank-0
// constants, inline `dense<>`: one-element constants are not resources) and a broadcasting add; Unsqueeze and Squeeze become reshapes.
// RUN: strata import %S/inputs/gemm.onnx | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>) -> tensor<3x5xf32>
// CHECK: %[[W:.*]] = arith.constant dense_resource<w_{{[0-9]+}}> : tensor<5x8xf32>
// CHECK: %[[WT:.*]] = "sg.transpose"(%[[W]]) {perm = array<i64: 1, 0>} : (tensor<5x8xf32>) -> tensor<8x5xf32>
// CHECK: %[[P:.*]] = "sg.matmul"(%[[X]], %[[WT]]) : (tensor<3x8xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
// CHECK: %[[ALPHA:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[PA:.*]] = "sg.mul"(%[[P]], %[[ALPHA]]) : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
// CHECK: %[[C:.*]] = arith.constant dense_resource<c_{{[0-9]+}}> : tensor<5xf32>
// CHECK: %[[BETA:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[CB:.*]] = "sg.mul"(%[[C]], %[[BETA]])
// CHECK: %[[G:.*]] = "sg.add"(%[[PA]], %[[CB]]) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK: %[[U:.*]] = "sg.reshape"(%[[G]]) : (tensor<3x5xf32>) -> tensor<1x3x5xf32>
// CHECK: %[[S:.*]] = "sg.reshape"(%[[U]]) : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
// CHECK: return %[[S]]
