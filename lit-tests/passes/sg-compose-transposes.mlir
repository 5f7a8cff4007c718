// sg-compose-transposes folds transpose chains and drops identities.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-compose-transposes))' | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-compose-transposes))' --mlir-pass-statistics 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=STATS

// A pair that composes to the identity disappears.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: sg.transpose
// CHECK: %[[R:.*]] = "sg.relu"(%[[X]])
// CHECK-NEXT: return %[[R]]
func.func @round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "sg.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = "sg.relu"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// Three rotations of a 3-d tensor compose into one permutation: q[i] = p1[p2[i]].
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = "sg.transpose"(%[[X]]) {perm = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @chain(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = "sg.transpose"(%0) {perm = array<i64: 0, 2, 1>} : (tensor<3x4x2xf32>) -> tensor<3x2x4xf32>
  %2 = "sg.transpose"(%1) {perm = array<i64: 2, 0, 1>} : (tensor<3x2x4xf32>) -> tensor<4x3x2xf32>
  return %2 : tensor<4x3x2xf32>
}

// -----

// An inner transpose with another user stays; the outer one reads the source directly.
// CHECK-LABEL: func.func @shared_inner
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[T:.*]] = "sg.transpose"(%[[X]]) {perm = array<i64: 1, 0>}
// CHECK: %[[E:.*]] = "sg.exp"(%[[T]])
// CHECK: return %[[X]], %[[E]]
func.func @shared_inner(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "sg.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = "sg.exp"(%0) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<3x2xf32>
}

// -----

// A lone identity transpose is dropped; a lone real one is kept.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[T:.*]] = "sg.transpose"(%[[X]]) {perm = array<i64: 1, 0>}
// CHECK-NEXT: return %[[X]], %[[T]]
func.func @identity(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %0 = "sg.transpose"(%x) {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "sg.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<3x2xf32>
}

// -----

// A transpose of an f32 constant (a Gemm's transB weight) folds into a constant holding the
// transposed values ([[0, 1, 2], [3, 4, 5]] read column by column); the original goes.
// CHECK-LABEL: func.func @constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense_resource<transposed> : tensor<3x2xf32>
// CHECK-NEXT: return %[[C]]
// CHECK: transposed: "0x0800000000000000000040400000803F00008040000000400000A040"
func.func @constant() -> tensor<3x2xf32> {
  %c = arith.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %0 = "sg.transpose"(%c) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// STATS: sg-compose-transposes (on builtin.module > func.func)
// STATS-NEXT: (S) 4 composed
// STATS-NEXT: (S) 8 erased
// STATS-NEXT: (S) 1 constants-folded
// STATS-NOT: sg-compose-transposes
