// sg-inline-branches: calls of functions marked strata.outlined_branch become copies of their
// bodies (nested calls the copies bring along too); the functions are erased. Other calls and
// functions stay.
// RUN: strata-opt %s -p 'builtin.module(sg-inline-branches)' | FileCheck %s

// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<i1>)
// CHECK: scf.if %[[FLAG:.*]] -> (tensor<4xf32>) {
// CHECK-NEXT: %[[TWO:.*]] = arith.constant dense<2.000000e+00>
// CHECK-NEXT: %[[M:.*]] = "sg.mul"(%arg0, %[[TWO]])
// CHECK-NEXT: %[[N:.*]] = scf.if %[[FLAG]] -> (tensor<4xf32>) {
// CHECK-NEXT: %[[S:.*]] = "sg.sqrt"(%[[M]])
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: scf.yield %[[N]]
// CHECK: call @kept(%{{.*}})
// CHECK-NOT: @main_branch
// CHECK: func.func private @kept
// CHECK-NOT: @main_branch
func.func @main(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  %flag = tensor.extract %c[] : tensor<i1>
  %r = scf.if %flag -> (tensor<4xf32>) {
    %1 = func.call @main_branch0(%x, %flag) : (tensor<4xf32>, i1) -> tensor<4xf32>
    scf.yield %1 : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  %k = func.call @kept(%r) : (tensor<4xf32>) -> tensor<4xf32>
  return %k : tensor<4xf32>
}
func.func private @main_branch0(%arg0: tensor<4xf32>, %arg1: i1) -> tensor<4xf32> attributes {strata.outlined_branch} {
  %cst = arith.constant dense<2.000000e+00> : tensor<4xf32>
  %0 = "sg.mul"(%arg0, %cst) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = scf.if %arg1 -> (tensor<4xf32>) {
    %2 = func.call @main_branch0_branch1(%0) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %2 : tensor<4xf32>
  } else {
    scf.yield %0 : tensor<4xf32>
  }
  return %1 : tensor<4xf32>
}
func.func private @main_branch0_branch1(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {strata.outlined_branch} {
  %0 = "sg.sqrt"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @kept(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
