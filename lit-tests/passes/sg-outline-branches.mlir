// sg-outline-branches: each branch of a top-level scf.if becomes a private function it calls
// (constants read from outside copied in, other outside values passed), nested ifs outlined
// from the function they land in; sg-inline-branches puts them back.
// RUN: strata-opt %s -p 'builtin.module(sg-outline-branches)' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(sg-outline-branches,sg-inline-branches)' | FileCheck %s --check-prefix=BACK

// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<i1>)
// CHECK: %[[FLAG:.*]] = tensor.extract %arg1[]
// CHECK: scf.if %[[FLAG]] -> (tensor<4xf32>) {
// CHECK-NEXT: %[[R:.*]] = func.call @main_branch0(%arg0, %[[FLAG]]) : (tensor<4xf32>, i1) -> tensor<4xf32>
// CHECK-NEXT: scf.yield %[[R]] : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg0 : tensor<4xf32>
// The nested if, outlined from the first branch's function.
// CHECK: func.func private @main_branch0(%arg0: tensor<4xf32>, %arg1: i1) -> tensor<4xf32> attributes {strata.outlined_branch}
// CHECK-NEXT: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = "sg.mul"(%arg0, %[[TWO]])
// CHECK-NEXT: %[[N:.*]] = scf.if %arg1 -> (tensor<4xf32>) {
// CHECK-NEXT: func.call @main_branch0_branch1(%[[M]])
// CHECK: return %[[N]] : tensor<4xf32>
// CHECK: func.func private @main_branch0_branch1(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {strata.outlined_branch}
// CHECK-NEXT: "sg.sqrt"(%arg0)

// BACK-LABEL: func.func @main
// BACK-NOT: func.call
// BACK: scf.if
// BACK: arith.constant dense<2.000000e+00>
// BACK-NEXT: %[[M:.*]] = "sg.mul"(%arg0,
// BACK-NEXT: scf.if
// BACK-NEXT: "sg.sqrt"(%[[M]])
// BACK: } else {
// BACK-NEXT: scf.yield %[[M]]
// BACK: } else {
// BACK-NEXT: scf.yield %arg0
// BACK-NOT: func.func
func.func @main(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %flag = tensor.extract %c[] : tensor<i1>
  %r = scf.if %flag -> (tensor<4xf32>) {
    %m = "sg.mul"(%x, %two) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %n = scf.if %flag -> (tensor<4xf32>) {
      %s = "sg.sqrt"(%m) : (tensor<4xf32>) -> tensor<4xf32>
      scf.yield %s : tensor<4xf32>
    } else {
      scf.yield %m : tensor<4xf32>
    }
    scf.yield %n : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
