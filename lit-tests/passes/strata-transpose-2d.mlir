// strata-transpose-2d: a vector.transpose of rank 3 or more that moves a trailing group of
// dimensions in front of the leading ones is the 2-D transpose of the two groups, between shape
// casts (which convert-vector-to-llvm{vector-transpose-lowering=shuffle1d} lowers to one
// shuffle of the flattened block instead of one extract and insert per element). Other
// permutations, and rank 2, stay as they are.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-transpose-2d))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-transpose-2d))' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// The whole host lowering: the rank-3 block's store is shuffles of the flattened block.
// RUN: strata-opt %s -p 'builtin.module(strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

// A convolution's block of 3 x 6 positions by 16 filters, stored to NCHW rows.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[A:.*]]: vector<3x6x16xf32>
// CHECK: %[[F:.*]] = vector.shape_cast %[[A]] : vector<3x6x16xf32> to vector<18x16xf32>
// CHECK: %[[T:.*]] = vector.transpose %[[F]], [1, 0] : vector<18x16xf32> to vector<16x18xf32>
// CHECK: %[[R:.*]] = vector.shape_cast %[[T]] : vector<16x18xf32> to vector<16x3x6xf32>
// CHECK: vector.transfer_write %[[R]]
// LLVM-LABEL: llvm.func @block
// LLVM: llvm.shufflevector {{.*}} : vector<288xf32>
// LLVM-NOT: llvm.extractelement
// LLVM: llvm.return
func.func @block(%a: vector<3x6x16xf32>, %out: memref<16x3x6xf32>) {
  %c0 = arith.constant 0 : index
  %t = vector.transpose %a, [2, 0, 1] : vector<3x6x16xf32> to vector<16x3x6xf32>
  vector.transfer_write %t, %out[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<16x3x6xf32>, memref<16x3x6xf32>
  return
}

// Two leading dimensions behind two trailing ones.
// CHECK-LABEL: func.func @rank4
// CHECK: vector.shape_cast %{{.*}} : vector<2x3x4x5xf32> to vector<6x20xf32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<6x20xf32> to vector<20x6xf32>
// CHECK: vector.shape_cast %{{.*}} : vector<20x6xf32> to vector<4x5x2x3xf32>
func.func @rank4(%a: vector<2x3x4x5xf32>) -> vector<4x5x2x3xf32> {
  %t = vector.transpose %a, [2, 3, 0, 1] : vector<2x3x4x5xf32> to vector<4x5x2x3xf32>
  return %t : vector<4x5x2x3xf32>
}

// Not a swap of two groups, and rank 2: kept.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: vector.shape_cast
// CHECK: vector.transpose %{{.*}}, [0, 2, 1]
// CHECK: vector.transpose %{{.*}}, [2, 1, 0]
// CHECK: vector.transpose %{{.*}}, [1, 0]
func.func @kept(%a: vector<2x3x4xf32>, %b: vector<3x4xf32>) -> (vector<2x4x3xf32>, vector<4x3x2xf32>, vector<4x3xf32>) {
  %t = vector.transpose %a, [0, 2, 1] : vector<2x3x4xf32> to vector<2x4x3xf32>
  %u = vector.transpose %a, [2, 1, 0] : vector<2x3x4xf32> to vector<4x3x2xf32>
  %v = vector.transpose %b, [1, 0] : vector<3x4xf32> to vector<4x3xf32>
  return %t, %u, %v : vector<2x4x3xf32>, vector<4x3x2xf32>, vector<4x3xf32>
}

// STATS: (S) 2 transposes - vector.transpose rewritten as 2-D transposes
