// Gemm decomposes into matmul (a constant B with transB transposed at import, once), scaling by alpha and beta (rank-0
// constants, inline `dense<>`: one-element constants are not resources) and a broadcasting add; Unsqueeze and Squeeze become reshapes.
// RUN: strata import %S/inputs/gemm.onnx | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>) -> tensor<3x5xf32>
// CHECK: %[[WT:.*]] = arith.constant dense_resource<w__transposed_{{[0-9]+}}> : tensor<8x5xf32>
// CHECK-NOT: sg.transpose
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
