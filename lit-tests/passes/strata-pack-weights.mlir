// strata-pack-weights (after strata-cpu-schedule, on tensors): a constant read only by slices
// of whole blocks along its last axis (a tile's filters) is stored block by block, `ceil(width /
// block) x rows x block`, so that each tile reads one contiguous run; each slice reads the same
// values from its block. A slice's offset must be provably a multiple of the block: a
// constant, a loop variable whose start and step are, an affine sum of such. Anything else
// keeps the constant as it is. The pass changes storage only, never values.
// RUN: strata-opt %s -p 'builtin.module(strata-pack-weights)' --mlir-pass-statistics 2>&1 | FileCheck %s

// A 2 x 1 x 1 x 10 filter whose rows are padded to 10 (8 read), read in tiles of 4 filters by
// a loop stepped by 4: blocks [0..4) and [4..8) of both rows. Row r, filter f holds r * 8 + f.
// CHECK-LABEL: func.func @tiles
// CHECK-NOT: tensor<2x1x1x10xf32>
// CHECK: %[[P:.*]] = arith.constant dense_resource<[[R1:weights_packed[_0-9]*]]> : tensor<2x2x1x1x4xf32>
// CHECK: scf.for %[[F:.*]] = %c0 to %c8 step %c4
// CHECK: %[[B:.*]] = arith.divui %[[F]], %c4
// CHECK: tensor.extract_slice %[[P]][%[[B]], 0, 0, 0, 0] [1, 2, 1, 1, 4] [1, 1, 1, 1, 1] : tensor<2x2x1x1x4xf32> to tensor<2x1x1x4xf32>
func.func @tiles(%acc: tensor<2x1x1x8xf32>) -> tensor<2x1x1x8xf32> {
  %w = arith.constant dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, 0.0]]], [[[8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 0.0, 0.0]]]]> : tensor<2x1x1x10xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %strip = tensor.extract_slice %w[0, 0, 0, 0] [2, 1, 1, 8] [1, 1, 1, 1] : tensor<2x1x1x10xf32> to tensor<2x1x1x8xf32>
  %r = scf.for %f = %c0 to %c8 step %c4 iter_args(%a = %acc) -> (tensor<2x1x1x8xf32>) {
    %tile = tensor.extract_slice %strip[0, 0, 0, %f] [2, 1, 1, 4] [1, 1, 1, 1] : tensor<2x1x1x8xf32> to tensor<2x1x1x4xf32>
    %done = tensor.insert_slice %tile into %a[0, 0, 0, %f] [2, 1, 1, 4] [1, 1, 1, 1] : tensor<2x1x1x4xf32> into tensor<2x1x1x8xf32>
    scf.yield %done : tensor<2x1x1x8xf32>
  }
  return %r : tensor<2x1x1x8xf32>
}

// Parallel tiles (scf.forall stepped by 8), one reading a single row (rank-reduced), and an
// affine offset: 8 * i of a loop stepped by 1 is a multiple of the block. 24 filters in blocks
// of 8, the rest of the last block (none here) zero.
// CHECK-LABEL: func.func @forall_and_affine
// CHECK: %[[Q:.*]] = arith.constant dense_resource<weights_packed{{[_0-9]*}}> : tensor<3x3x8xf32>
// CHECK: scf.forall (%[[G:.*]]) = (0) to (24) step (8)
// CHECK: %[[GB:.*]] = arith.divui %[[G]], %c8
// CHECK: tensor.extract_slice %[[Q]][%[[GB]], 1, 0] [1, 1, 8] [1, 1, 1] : tensor<3x3x8xf32> to tensor<8xf32>
// CHECK: %[[A:.*]] = affine.apply
// CHECK: %[[AB:.*]] = arith.divui %[[A]], %c8
// CHECK: tensor.extract_slice %[[Q]][%[[AB]], 0, 0] [1, 3, 8] [1, 1, 1] : tensor<3x3x8xf32> to tensor<3x8xf32>
func.func @forall_and_affine(%out: tensor<3x24xf32>) -> (tensor<3x24xf32>, tensor<3x8xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0],[24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0],[48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0]]> : tensor<3x24xf32>
  %r = scf.forall (%g) = (0) to (24) step (8) shared_outs(%o = %out) -> (tensor<3x24xf32>) {
    %row = tensor.extract_slice %w[1, %g] [1, 8] [1, 1] : tensor<3x24xf32> to tensor<8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %row into %o[1, %g] [1, 8] [1, 1] : tensor<8xf32> into tensor<3x24xf32>
    }
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = tensor.empty() : tensor<3x8xf32>
  %pick = scf.for %j = %c0 to %c3 step %c1 iter_args(%y = %z) -> (tensor<3x8xf32>) {
    %f = affine.apply affine_map<(d0) -> (d0 * 8)>(%j)
    %cols = tensor.extract_slice %w[0, %f] [3, 8] [1, 1] : tensor<3x24xf32> to tensor<3x8xf32>
    scf.yield %cols : tensor<3x8xf32>
  }
  return %r, %pick : tensor<3x24xf32>, tensor<3x8xf32>
}

// Kept: an offset stepped by 4 for blocks of 8 (a tile could start mid-block); a constant also
// read whole; an integer constant; a splat (every layout of it is the same).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: weights_packed
// CHECK: return
func.func @kept(%out: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x8xi32>, tensor<2x8xf32>) {
  %w = arith.constant dense<2.0> : tensor<2x16xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %f = %c0 to %c8 step %c4 iter_args(%a = %out) -> (tensor<2x16xf32>) {
    %tile = tensor.extract_slice %w[0, %f] [2, 8] [1, 1] : tensor<2x16xf32> to tensor<2x8xf32>
    %d = tensor.insert_slice %tile into %a[0, %f] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<2x16xf32>
    scf.yield %d : tensor<2x16xf32>
  }
  %v = arith.constant dense<3.0> : tensor<2x16xf32>
  %half = tensor.extract_slice %v[0, 8] [2, 8] [1, 1] : tensor<2x16xf32> to tensor<2x8xf32>
  %whole = tensor.insert_slice %half into %v[0, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<2x16xf32>
  %i = arith.constant dense<1> : tensor<2x16xi32>
  %ih = tensor.extract_slice %i[0, 8] [2, 8] [1, 1] : tensor<2x16xi32> to tensor<2x8xi32>
  %one = arith.constant dense<1.0> : tensor<2x16xf32>
  %oh = tensor.extract_slice %one[0, 8] [2, 8] [1, 1] : tensor<2x16xf32> to tensor<2x8xf32>
  return %r, %whole, %ih, %oh : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x8xi32>, tensor<2x8xf32>
}

// Block 0 of @tiles: filters 0-3 of row 0 (0, 1, 2, 3), then of row 1 (8, 9, 10, 11); block 1:
// 4-7 of row 0, then 12-15.
// CHECK: [[R1]]: "0x08000000000000000000803F00000040000040400000004100001041000020410000304100008040
// CHECK-SAME: 0000A0400000C0400000E04000004041000050410000604100007041"
// CHECK: (S) 2 packed
// CHECK: (S) 3 slices
