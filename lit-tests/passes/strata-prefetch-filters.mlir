// strata-prefetch-filters: a register-blocked convolution that reads one block of its packed
// filter per tile of output positions prefetches the next block's channel slices, each tile
// after the first a share of them (channel c in tile 1 + c mod T, T the largest power of two up
// to tiles - 1: an `and`, not a division, each step), one prefetch per
// cache line of the slice in the constant collapsed to one dimension. Small constants,
// activations, a single tile and blocks walked once per tile are left alone.
// RUN: strata-opt %s -p 'builtin.module(strata-prefetch-filters)' --mlir-pass-statistics 2>&1 | FileCheck %s

// 4 blocks x 64 channels x 3 x 3 x 16 filters (144 KiB), 3 rows a block: rows 1 and 2 each
// take every other channel; a channel's slice is 3 x 3 x 16 floats, 9 lines.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for %[[FO:[^ ,]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[ROW:[^ ,]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[NEXT:[^ ,]+]] = arith.addi %[[FO]], %c1
// CHECK: %[[LAST:[^ ,]+]] = arith.minsi %[[NEXT]], %c3
// CHECK: %[[BLOCK:[^ ,]+]] = arith.muli %[[LAST]], %c9216
// CHECK: %[[FLAT:[^ ,]+]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3, 4]] : memref<4x64x3x3x16xf32> into memref<36864xf32>
// CHECK: %[[TARGET:[^ ,]+]] = arith.subi %{{.*}}, %c1
// CHECK: scf.for %[[C:[^ ,]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[TURN:[^ ,]+]] = arith.remui %[[C]], %c2
// CHECK: %[[MINE:[^ ,]+]] = arith.cmpi eq, %[[TURN]], %[[TARGET]]
// CHECK: %[[SLICE:[^ ,]+]] = arith.muli %[[C]], %c144
// CHECK: %[[START:[^ ,]+]] = arith.addi %[[SLICE]], %[[BLOCK]]
// CHECK: scf.if %[[MINE]] {
// CHECK-NEXT: memref.prefetch %[[FLAT]][%[[START]]], read, locality<3>, data : memref<36864xf32>
// CHECK-COUNT-8: memref.prefetch %[[FLAT]]
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK: vector.transfer_read
func.func @rows(%x: memref<1x64x5x9xf32>, %out: memref<1x64x3x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %w = memref.get_global @filter : memref<4x64x3x3x16xf32>
  scf.for %fo = %c0 to %c4 step %c1 {
    %block = memref.subview %w[%fo, 0, 0, 0, 0] [1, 64, 3, 3, 16] [1, 1, 1, 1, 1] : memref<4x64x3x3x16xf32> to memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>>
    scf.for %row = %c0 to %c3 step %c1 {
      %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
        %r = scf.for %kh = %c0 to %c3 step %c1 iter_args(%acc1 = %acc) -> (vector<16xf32>) {
          %tap = memref.subview %block[0, %c, %kh, 0, 0] [1, 1, 1, 1, 16] [1, 1, 1, 1, 1] : memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
          %v = vector.transfer_read %tap[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
          %s = memref.load %x[%c0, %c, %row, %kh] : memref<1x64x5x9xf32>
          %b = vector.broadcast %s : f32 to vector<16xf32>
          %f = vector.fma %b, %v, %acc1 : vector<16xf32>
          scf.yield %f : vector<16xf32>
        }
        scf.yield %r : vector<16xf32>
      }
      %e = vector.extract %sum[0] : f32 from vector<16xf32>
      memref.store %e, %out[%c0, %fo, %row, %c0] : memref<1x64x3x7xf32>
    }
  }
  return
}

// The blocks and rows of an scf.forall (a kernel split across threads), the block's offset
// its variable divided by its step (a 1x1 convolution's filters in blocks of 32): 4 position
// tiles, 2 turns (tiles 1 and 2; tile 3 prefetches nothing); a slice of 32 floats, 2 lines.
// CHECK-LABEL: func.func @forall
// CHECK: scf.forall (%[[F:[^ ,]+]], %[[T:[^ ,]+]]) = (0, 0) to (128, 48) step (32, 12) {
// CHECK: %[[NEXT:[^ ,]+]] = arith.addi %[[F]], %c32
// CHECK: %[[LAST:[^ ,]+]] = arith.minsi %[[NEXT]], %c96
// CHECK: %[[N:[^ ,]+]] = arith.divui %[[LAST]], %c32
// CHECK: arith.muli %[[N]], %c4096
// CHECK: memref.collapse_shape %{{.*}} : memref<4x128x1x1x32xf32> into memref<16384xf32>
// CHECK: arith.divui %[[T]], %c12
// CHECK: scf.for %[[C:[^ ,]+]] =
// CHECK: arith.remui %[[C]], %c2
// CHECK: scf.if
// CHECK-COUNT-2: memref.prefetch
// CHECK-NEXT: }
func.func @forall(%x: memref<1x128x1x48xf32>, %out: memref<1x128x1x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %w = memref.get_global @pointwise : memref<4x128x1x1x32xf32>
  scf.forall (%f, %t) = (0, 0) to (128, 48) step (32, 12) {
    %fo = arith.divui %f, %c32 : index
    %block = memref.subview %w[%fo, 0, 0, 0, 0] [1, 128, 1, 1, 32] [1, 1, 1, 1, 1] : memref<4x128x1x1x32xf32> to memref<128x1x1x32xf32, strided<[32, 32, 32, 1], offset: ?>>
    %sum = scf.for %c = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %tap = memref.subview %block[%c, 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<128x1x1x32xf32, strided<[32, 32, 32, 1], offset: ?>> to memref<32xf32, strided<[1], offset: ?>>
      %v = vector.transfer_read %tap[%c0], %pad {in_bounds = [true]} : memref<32xf32, strided<[1], offset: ?>>, vector<32xf32>
      %s = memref.load %x[%c0, %c, %c0, %t] : memref<1x128x1x48xf32>
      %b = vector.broadcast %s : f32 to vector<32xf32>
      %r = vector.fma %b, %v, %acc : vector<32xf32>
      scf.yield %r : vector<32xf32>
    }
    %e = vector.extract %sum[0] : f32 from vector<32xf32>
    memref.store %e, %out[%c0, %f, %c0, %t] : memref<1x128x1x48xf32>
  }
  return
}

// Left alone: a 16 KiB filter; one row a block; an activation (not a constant); the rows
// outside the block loop (each row walks every block once).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @kept(%x: memref<1x64x5x9xf32>, %act: memref<4x64x3x3x16xf32>, %out: memref<1x64x3x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %small = memref.get_global @small : memref<4x64x1x1x16xf32>
  scf.for %fo = %c0 to %c4 step %c1 {
    %block = memref.subview %small[%fo, 0, 0, 0, 0] [1, 64, 1, 1, 16] [1, 1, 1, 1, 1] : memref<4x64x1x1x16xf32> to memref<1x64x1x1x16xf32, strided<[1024, 16, 16, 16, 1], offset: ?>>
    scf.for %row = %c0 to %c3 step %c1 {
      %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
        %tap = memref.subview %block[0, %c, 0, 0, 0] [1, 1, 1, 1, 16] [1, 1, 1, 1, 1] : memref<1x64x1x1x16xf32, strided<[1024, 16, 16, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %tap[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
        %f = vector.fma %v, %v, %acc : vector<16xf32>
        scf.yield %f : vector<16xf32>
      }
      %e = vector.extract %sum[0] : f32 from vector<16xf32>
      memref.store %e, %out[%c0, %fo, %row, %c0] : memref<1x64x3x7xf32>
    }
  }
  %w = memref.get_global @filter : memref<4x64x3x3x16xf32>
  scf.for %fo = %c0 to %c4 step %c1 {
    %block = memref.subview %w[%fo, 0, 0, 0, 0] [1, 64, 3, 3, 16] [1, 1, 1, 1, 1] : memref<4x64x3x3x16xf32> to memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>>
    %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
      %tap = memref.subview %block[0, %c, 0, 0, 0] [1, 1, 1, 1, 16] [1, 1, 1, 1, 1] : memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      %v = vector.transfer_read %tap[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
      %f = vector.fma %v, %v, %acc : vector<16xf32>
      scf.yield %f : vector<16xf32>
    }
    %e = vector.extract %sum[0] : f32 from vector<16xf32>
    memref.store %e, %out[%c0, %fo, %c0, %c0] : memref<1x64x3x7xf32>
  }
  scf.for %fo = %c0 to %c4 step %c1 {
    %block = memref.subview %act[%fo, 0, 0, 0, 0] [1, 64, 3, 3, 16] [1, 1, 1, 1, 1] : memref<4x64x3x3x16xf32> to memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>>
    scf.for %row = %c0 to %c3 step %c1 {
      %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
        %tap = memref.subview %block[0, %c, 0, 0, 0] [1, 1, 1, 1, 16] [1, 1, 1, 1, 1] : memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %tap[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
        %f = vector.fma %v, %v, %acc : vector<16xf32>
        scf.yield %f : vector<16xf32>
      }
      %e = vector.extract %sum[0] : f32 from vector<16xf32>
      memref.store %e, %out[%c0, %fo, %row, %c0] : memref<1x64x3x7xf32>
    }
  }
  scf.for %row = %c0 to %c3 step %c1 {
    scf.for %fo = %c0 to %c4 step %c1 {
      %block = memref.subview %w[%fo, 0, 0, 0, 0] [1, 64, 3, 3, 16] [1, 1, 1, 1, 1] : memref<4x64x3x3x16xf32> to memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>>
      %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
        %tap = memref.subview %block[0, %c, 0, 0, 0] [1, 1, 1, 1, 16] [1, 1, 1, 1, 1] : memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %tap[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
        %f = vector.fma %v, %v, %acc : vector<16xf32>
        scf.yield %f : vector<16xf32>
      }
      %e = vector.extract %sum[0] : f32 from vector<16xf32>
      memref.store %e, %out[%c0, %fo, %row, %c0] : memref<1x64x3x7xf32>
    }
  }
  return
}

// A block offset computed by an op of one operand (here an `affine.apply`, not the block
// variable itself nor its quotient by a constant): not a block this pass knows how to step,
// left alone (reading that op's second operand had panicked).
// CHECK-LABEL: func.func @other_offset
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @other_offset(%x: memref<1x64x5x9xf32>, %out: memref<1x64x3x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %w = memref.get_global @filter : memref<4x64x3x3x16xf32>
  scf.for %fo = %c0 to %c2 step %c1 {
    %at = affine.apply affine_map<(d0) -> (d0 * 2)>(%fo)
    %block = memref.subview %w[%at, 0, 0, 0, 0] [1, 64, 3, 3, 16] [1, 1, 1, 1, 1] : memref<4x64x3x3x16xf32> to memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>>
    scf.for %row = %c0 to %c3 step %c1 {
      %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
        %tap = memref.subview %block[0, %c, 0, 0, 0] [1, 1, 1, 1, 16] [1, 1, 1, 1, 1] : memref<1x64x3x3x16xf32, strided<[9216, 144, 48, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %tap[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
        %f = vector.fma %v, %v, %acc : vector<16xf32>
        scf.yield %f : vector<16xf32>
      }
      %e = vector.extract %sum[0] : f32 from vector<16xf32>
      memref.store %e, %out[%c0, %fo, %row, %c0] : memref<1x64x3x7xf32>
    }
  }
  return
}

memref.global "private" constant @filter : memref<4x64x3x3x16xf32> = dense<1.0>
memref.global "private" constant @pointwise : memref<4x128x1x1x32xf32> = dense<1.0>
memref.global "private" constant @small : memref<4x64x1x1x16xf32> = dense<1.0>

// CHECK: Pass statistics report
// CHECK: strata-prefetch-filters
// CHECK-NEXT: (S) 2 prefetched
