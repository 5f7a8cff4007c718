// With `sections` (a host compiled for several threads), a bidirectional recurrence runs its
// two directions side by side: an scf.forall over the directions marked strata.sections, the
// reverse direction a case of an scf.index_switch on it and the forward one its default, each
// the sequential form's loop with its own (static) weight slices, writing its part of the
// outputs. Directions with different activations stay one after the other. After
// bufferization and planning nothing is allocated at run time: each case's scratch is planned
// into the arena (plan-arena: live over the whole loop, so the two directions' never overlap;
// planned greedily here, the exact solver's plan depends on its time budget).
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg{sections=true}))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg))' | FileCheck %s --check-prefix=SEQ
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg{sections=true}),strata-bufferize-and-plan{strategy=offsets-greedy-by-size})' | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @bilstm
// CHECK: %[[OUT:.*]]:3 = scf.forall (%[[D:.*]]) in (2) shared_outs(%[[Y:.*]] = %{{.*}}, %[[YH:.*]] = %{{.*}}, %[[YC:.*]] = %{{.*}}) -> (tensor<3x2x2x5xf32>, tensor<2x2x5xf32>, tensor<2x2x5xf32>)
// CHECK: %[[S:.*]]:3 = scf.index_switch %[[D]] -> tensor<3x2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
// CHECK: case 1 {
// CHECK:   tensor.extract_slice %{{.*}}[1, 0, 0] [1, 20, 4]
// CHECK:   scf.for %[[T:.*]] = %{{.*}} to
// CHECK:     arith.subi %{{.*}}, %[[T]] : index
// CHECK: default {
// CHECK:   tensor.extract_slice %{{.*}}[0, 0, 0] [1, 20, 4]
// CHECK:   scf.for
// CHECK-NOT: arith.subi
// CHECK: scf.forall.in_parallel {
// CHECK:   tensor.parallel_insert_slice %[[S]]#0 into %[[Y]][0, %[[D]], 0, 0] [3, 1, 2, 5]
// CHECK:   tensor.parallel_insert_slice %[[S]]#1 into %[[YH]][%[[D]], 0, 0] [1, 2, 5]
// CHECK:   tensor.parallel_insert_slice %[[S]]#2 into %[[YC]][%[[D]], 0, 0] [1, 2, 5]
// CHECK: } {strata.sections}
// CHECK: return %[[OUT]]#0, %[[OUT]]#1, %[[OUT]]#2

// CHECK-LABEL: func.func @birnn_mixed
// CHECK-NOT: scf.forall
// CHECK: scf.for
// CHECK: scf.for

// SEQ-LABEL: func.func @bilstm
// SEQ-NOT: scf.forall
// SEQ: scf.for
// SEQ: scf.for

// PLAN-LABEL: func.func @bilstm
// PLAN-SAME: %[[ARENA:[^:]*]]: memref<3176xi8>
// PLAN-NOT: memref.alloc
// PLAN: scf.index_switch
// PLAN: case 1 {
// PLAN:   memref.view %[[ARENA]][%c2240][] : memref<3176xi8> to memref<4x20xf32>
// PLAN: default {
// PLAN:   memref.view %[[ARENA]][%c1920][] : memref<3176xi8> to memref<4x20xf32>
// PLAN-NOT: memref.alloc
// PLAN: } {strata.sections}
func.func @bilstm(%x: tensor<3x2x4xf32>, %w: tensor<2x20x4xf32>, %r: tensor<2x20x5xf32>, %b: tensor<2x40xf32>, %lens: tensor<2xi32>, %h0: tensor<2x2x5xf32>, %c0: tensor<2x2x5xf32>, %p: tensor<2x15xf32>) -> (tensor<3x2x2x5xf32>, tensor<2x2x5xf32>, tensor<2x2x5xf32>) {
  %y, %yh, %yc = "sg.lstm"(%x, %w, %r, %b, %lens, %h0, %c0, %p) {hidden_size = 5 : i64, direction = 2 : i64, activations = "sigmoid,tanh,tanh,sigmoid,tanh,tanh", input_forget = 0 : i64} : (tensor<3x2x4xf32>, tensor<2x20x4xf32>, tensor<2x20x5xf32>, tensor<2x40xf32>, tensor<2xi32>, tensor<2x2x5xf32>, tensor<2x2x5xf32>, tensor<2x15xf32>) -> (tensor<3x2x2x5xf32>, tensor<2x2x5xf32>, tensor<2x2x5xf32>)
  return %y, %yh, %yc : tensor<3x2x2x5xf32>, tensor<2x2x5xf32>, tensor<2x2x5xf32>
}

func.func @birnn_mixed(%x: tensor<3x2x4xf32>, %w: tensor<2x5x4xf32>, %r: tensor<2x5x5xf32>, %b: tensor<2x10xf32>, %lens: tensor<2xi32>, %h0: tensor<2x2x5xf32>) -> tensor<3x2x2x5xf32> {
  %y, %yh = "sg.rnn"(%x, %w, %r, %b, %lens, %h0) {hidden_size = 5 : i64, direction = 2 : i64, activations = "tanh,relu"} : (tensor<3x2x4xf32>, tensor<2x5x4xf32>, tensor<2x5x5xf32>, tensor<2x10xf32>, tensor<2xi32>, tensor<2x2x5xf32>) -> (tensor<3x2x2x5xf32>, tensor<2x2x5xf32>)
  return %y : tensor<3x2x2x5xf32>
}
