// Gemm decomposes into transpose (transB), matmul, scaling by alpha and beta (rank-0
// constants) and a broadcasting add; Unsqueeze and Squeeze become reshapes.
// RUN: strata import %S/inputs/gemm.onnx | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<3x8xf32>) -> tensor<3x5xf32>
// CHECK: %[[W:.*]] = arith.constant dense_resource<w_{{[0-9]+}}> : tensor<5x8xf32>
// CHECK: %[[WT:.*]] = "sg.transpose"(%[[W]]) {perm = array<i64: 1, 0>} : (tensor<5x8xf32>) -> tensor<8x5xf32>
// CHECK: %[[P:.*]] = "sg.matmul"(%[[X]], %[[WT]]) : (tensor<3x8xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
// CHECK: %[[ALPHA:.*]] = arith.constant dense_resource<gemm0_alpha_{{[0-9_]+}}> : tensor<f32>
// CHECK: %[[PA:.*]] = "sg.mul"(%[[P]], %[[ALPHA]]) : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
// CHECK: %[[C:.*]] = arith.constant dense_resource<c_{{[0-9]+}}> : tensor<5xf32>
// CHECK: %[[BETA:.*]] = arith.constant dense_resource<gemm0_beta_{{[0-9_]+}}> : tensor<f32>
// CHECK: %[[CB:.*]] = "sg.mul"(%[[C]], %[[BETA]])
// CHECK: %[[G:.*]] = "sg.add"(%[[PA]], %[[CB]]) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK: %[[U:.*]] = "sg.reshape"(%[[G]]) : (tensor<3x5xf32>) -> tensor<1x3x5xf32>
// CHECK: %[[S:.*]] = "sg.reshape"(%[[U]]) : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
// CHECK: return %[[S]]
// alpha = 0.5 and beta = 2.0 as little-endian f32 blobs (after the 4-byte alignment header).
// CHECK: gemm0_alpha_{{[0-9_]+}}: "0x080000000000003F"
// CHECK: gemm0_beta_{{[0-9_]+}}: "0x0800000000000040"
