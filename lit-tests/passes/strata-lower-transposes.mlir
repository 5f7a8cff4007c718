// strata-lower-transposes: a 2-D vector.transpose, or a rank-3+ one that moves a trailing group
// of dimensions in front of the leading ones (a 2-D transpose between shape casts), becomes a
// network of two-source vector.shuffles on its rows: log2(rows) interleaving stages, then each
// output row picked from the last stage's rows. Other permutations stay as they are (the host
// pipeline lowers them as one shuffle of the flattened block). The networks' correctness for
// every size up to 39 x 39 is the pass's unit test; lit-tests/driver/conv-blocked.mlir runs
// them in convolutions against NumPy.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-lower-transposes))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-lower-transposes))' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// The whole host lowering: no per-element extract or insert is left.
// RUN: strata-opt %s -p 'builtin.module(strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

// Two rows of four: one interleaving stage, then the four output rows of two.
// CHECK-LABEL: func.func @small
// CHECK-SAME: (%[[A:.*]]: vector<2x4xf32>)
// CHECK: %[[R0:.*]] = vector.extract %[[A]][0] : vector<4xf32> from vector<2x4xf32>
// CHECK: %[[R1:.*]] = vector.extract %[[A]][1] : vector<4xf32> from vector<2x4xf32>
// CHECK: %[[LO:.*]] = vector.shuffle %[[R0]], %[[R1]] [0, 4, 1, 5] : vector<4xf32>, vector<4xf32>
// CHECK: %[[HI:.*]] = vector.shuffle %[[R0]], %[[R1]] [2, 6, 3, 7] : vector<4xf32>, vector<4xf32>
// CHECK: %[[C0:.*]] = vector.shuffle %[[LO]], %[[LO]] [0, 1]
// CHECK: %[[C1:.*]] = vector.shuffle %[[LO]], %[[LO]] [2, 3]
// CHECK: %[[C2:.*]] = vector.shuffle %[[HI]], %[[HI]] [0, 1]
// CHECK: %[[C3:.*]] = vector.shuffle %[[HI]], %[[HI]] [2, 3]
// CHECK: %[[P:.*]] = ub.poison : vector<4x2xf32>
// CHECK: %[[T0:.*]] = vector.insert %[[C0]], %[[P]] [0]
// CHECK: %[[T1:.*]] = vector.insert %[[C1]], %[[T0]] [1]
// CHECK: %[[T2:.*]] = vector.insert %[[C2]], %[[T1]] [2]
// CHECK: %[[T3:.*]] = vector.insert %[[C3]], %[[T2]] [3]
// CHECK-NOT: vector.transpose
// CHECK: return %[[T3]]
// LLVM-LABEL: llvm.func @small
// LLVM-NOT: llvm.extractelement
// LLVM-NOT: llvm.insertelement
// LLVM: llvm.return
func.func @small(%a: vector<2x4xf32>) -> vector<4x2xf32> {
  %t = vector.transpose %a, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
  return %t : vector<4x2xf32>
}

// A convolution's block of 3 x 6 positions by 16 filters, stored to NCHW rows: 18 rows of 16
// lanes, two bands of 16 rows (the second mostly padding), each output row of 18 joined from
// the bands' rows.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[A:.*]]: vector<3x6x16xf32>
// CHECK: %[[F:.*]] = vector.shape_cast %[[A]] : vector<3x6x16xf32> to vector<18x16xf32>
// CHECK: vector.extract %[[F]][17] : vector<16xf32> from vector<18x16xf32>
// CHECK: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] : vector<32xf32>, vector<32xf32>
// CHECK: vector.insert {{.*}} [15] : vector<18xf32> into vector<16x18xf32>
// CHECK: %[[R:.*]] = vector.shape_cast %{{.*}} : vector<16x18xf32> to vector<16x3x6xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.transfer_write %[[R]]
// LLVM-LABEL: llvm.func @block
// LLVM-NOT: llvm.extractelement
// LLVM-NOT: llvm.insertelement
// LLVM: llvm.return
func.func @block(%a: vector<3x6x16xf32>, %out: memref<16x3x6xf32>) {
  %c0 = arith.constant 0 : index
  %t = vector.transpose %a, [2, 0, 1] : vector<3x6x16xf32> to vector<16x3x6xf32>
  vector.transfer_write %t, %out[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<16x3x6xf32>, memref<16x3x6xf32>
  return
}

// Not a swap of two groups: kept.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: vector.shuffle
// CHECK: vector.transpose %{{.*}}, [0, 2, 1]
// CHECK: vector.transpose %{{.*}}, [2, 1, 0]
func.func @kept(%a: vector<2x3x4xf32>) -> (vector<2x4x3xf32>, vector<4x3x2xf32>) {
  %t = vector.transpose %a, [0, 2, 1] : vector<2x3x4xf32> to vector<2x4x3xf32>
  %u = vector.transpose %a, [2, 1, 0] : vector<2x3x4xf32> to vector<4x3x2xf32>
  return %t, %u : vector<2x4x3xf32>, vector<4x3x2xf32>
}

// STATS: (S) 2 transposes - vector.transpose lowered to shuffle networks
