// sg-outline-branches on a loop: the body of a top-level scf.for becomes a private function
// it calls, its induction variable and carried values passed like the values it reads from
// outside (constants copied in), so the function passes optimise a Scan's or a Loop's body
// as they do @main; sg-inline-branches puts it back. A body that writes a carried state
// back into its block argument (bufferization.materialize_in_destination) stays inline.
// RUN: strata-opt %s -p 'builtin.module(sg-outline-branches)' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(sg-outline-branches,sg-inline-branches)' | FileCheck %s --check-prefix=BACK

// CHECK-LABEL: func.func @main(%arg0: tensor<4x3xf32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x3xf32>) {
// CHECK-NEXT: %[[R:.*]] = func.call @main_branch0(%arg0, %[[I]], %[[ACC]]) : (tensor<4x3xf32>, index, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: scf.yield %[[R]] : tensor<4x3xf32>
// CHECK: func.func private @main_branch0(%arg0: tensor<4x3xf32>, %arg1: index, %arg2: tensor<4x3xf32>) -> tensor<4x3xf32> attributes {strata.outlined_branch}
// CHECK-NEXT: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-NEXT: %[[ROW:.*]] = tensor.extract_slice %arg0[%arg1, 0] [1, 3] [1, 1]
// CHECK-NEXT: %[[M:.*]] = "sg.mul"(%[[ROW]], %[[TWO]])
// CHECK-NEXT: %[[S:.*]] = "sg.sqrt"(%[[M]])
// CHECK-NEXT: %[[N:.*]] = tensor.insert_slice %[[S]] into %arg2[%arg1, 0] [1, 3] [1, 1]
// CHECK-NEXT: return %[[N]] : tensor<4x3xf32>

// BACK-LABEL: func.func @main
// BACK-NOT: func.call
// BACK: scf.for %[[I:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// BACK: %[[ROW:.*]] = tensor.extract_slice %arg0[%[[I]], 0]
// BACK-NEXT: %[[M:.*]] = "sg.mul"(%[[ROW]],
// BACK-NEXT: %[[S:.*]] = "sg.sqrt"(%[[M]])
// BACK-NEXT: %[[N:.*]] = tensor.insert_slice %[[S]] into %[[ACC]][%[[I]], 0]
// BACK-NEXT: scf.yield %[[N]]
// BACK-NOT: func.func private
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant dense<2.0> : tensor<3xf32>
  %init = tensor.empty() : tensor<4x3xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<4x3xf32>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
    %m = "sg.mul"(%row, %two) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %s = "sg.sqrt"(%m) : (tensor<3xf32>) -> tensor<3xf32>
    %next = tensor.insert_slice %s into %acc[%i, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<4x3xf32>
    scf.yield %next : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// A body writing its carried state back into the block argument stays inline.
// CHECK-LABEL: func.func @stateful
// CHECK: scf.for
// CHECK-NOT: func.call
// CHECK: bufferization.materialize_in_destination
// CHECK-NOT: func.func private @stateful
func.func @stateful(%x: tensor<4x3xf32>, %s0: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %s0) -> (tensor<3xf32>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
    %a = "sg.add"(%s, %row) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %w = bufferization.materialize_in_destination %a in %s : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    scf.yield %w : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
