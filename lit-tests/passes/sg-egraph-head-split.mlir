// An attention head split: a reshape and a transpose that a matmul reads. The e-graph sees one
// strided view of the whole input (a copy, as the matmul needs a contiguous operand); the
// rebuilt function makes that copy a reshape and a transpose, which lower to vectorised
// copies, instead of an `sg.view` gather.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize))' --mlir-pass-statistics 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @heads
// CHECK-NOT: sg.view
// CHECK: %[[R:.*]] = "sg.reshape"(%arg0) : (tensor<2x3x20xf32>) -> tensor<2x3x4x5xf32>
// CHECK: %[[T:.*]] = "sg.transpose"(%[[R]]) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32>
// CHECK: "sg.matmul"(%[[T]], %arg1)
// CHECK: (S) 1 views-as-transposes
func.func @heads(%x: tensor<2x3x20xf32>, %w: tensor<5x6xf32>) -> tensor<2x4x3x6xf32> {
  %0 = "sg.reshape"(%x) : (tensor<2x3x20xf32>) -> tensor<2x3x4x5xf32>
  %1 = "sg.transpose"(%0) {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32>
  %2 = "sg.matmul"(%1, %w) : (tensor<2x4x3x5xf32>, tensor<5x6xf32>) -> tensor<2x4x3x6xf32>
  return %2 : tensor<2x4x3x6xf32>
}
