// Sequences resolved at import (crates/frontend/src/sequence.rs): SplitToSequence is slices,
// SequenceErase drops a name from the list, a Loop carrying a sequence is unrolled (a
// sequence is no block argument) with SequenceAt naming an element and SequenceInsert
// appending, ConcatFromSequence with new_axis stacks, and SequenceLength is a constant.
// Checked against ONNX's reference implementation (lit-tests/frontend/inputs/make_fixtures.py).
// RUN: strata import %S/inputs/sequence.onnx | FileCheck %s
// RUN: strata run %S/inputs/sequence.onnx --input x=%S/../driver/inputs/sequence_x.npy --expect stacked=%S/../driver/inputs/sequence_stacked.npy --expect count=%S/../driver/inputs/sequence_count.npy --atol 0 --rtol 0 | FileCheck %s --check-prefix=NUMBERS

// CHECK: func.func @main(%arg0: tensor<3x4xf32>) -> (tensor<5x3xf32>, tensor<i64>)
// CHECK: %[[C0:.*]] = "sg.slice"(%arg0) {ends = array<i64: 3, 1>, starts = array<i64: 0, 0>
// CHECK: %[[COL0:.*]] = "sg.reshape"(%[[C0]]) : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK-NOT: scf.for
// CHECK: %[[I0:.*]] = "sg.mul"(%[[COL0]], %{{.*}})
// CHECK: %[[I1:.*]] = "sg.mul"(%[[COL0]], %{{.*}})
// CHECK: %[[STACK:.*]] = "sg.concat"({{.*}}) {axis = 0 : i64} : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<5x3xf32>
// CHECK: %[[COUNT:.*]] = arith.constant dense<5> : tensor<i64>
// CHECK: return %[[STACK]], %[[COUNT]]

// NUMBERS: expect 'stacked': 0 of 15 elements outside
// NUMBERS: expect 'count': 0 of 1 elements outside
