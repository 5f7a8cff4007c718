// strata-broadcast-loads (in strata-host-to-llvm, before the vector transfers are lowered): a
// vector of at most 4 elements (8 for a window, see @window) read from a memref only to extract
// its elements one by one becomes one scalar load per element (x86 folds each into a broadcast from memory instead of
// splatting lanes with shuffles). Taken: unmasked, in bounds, the vector in the memref's
// innermost dimensions (`vector.load`, or a minor identity map), every use a one-element
// extract at a constant position. The loads are at the read's indices plus the position.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(strata-broadcast-loads))' | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(strata-broadcast-loads))' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// A register block's 2 x 2 input positions, broadcast against a vector of filters.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[IN:.+]]: memref<{{.+}}>, %[[W:.+]]: memref<16xf32>, %[[I:.+]]: index, %[[J:.+]]: index
// CHECK-NOT: vector.transfer_read
// CHECK-DAG: %[[A:.+]] = memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK-DAG: %[[J1:.+]] = arith.addi %[[J]], %{{.+}} : index
// CHECK-DAG: %[[B:.+]] = memref.load %[[IN]][%[[I]], %[[J1]]]
// CHECK-DAG: %[[I1:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK-DAG: memref.load %[[IN]][%[[I1]], %[[J]]]
// CHECK-DAG: memref.load %[[IN]][%{{.+}}, %{{.+}}]
// CHECK-DAG: vector.broadcast %[[A]] : f32 to vector<16xf32>
// CHECK-DAG: vector.broadcast %[[B]] : f32 to vector<16xf32>
// CHECK: return
func.func @block(%in: memref<14x14xf32, strided<[14, 1], offset: ?>>, %w: memref<16xf32>, %i: index, %j: index,
                 %acc: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %x = vector.transfer_read %in[%i, %j], %pad {in_bounds = [true, true]} : memref<14x14xf32, strided<[14, 1], offset: ?>>, vector<2x2xf32>
  %f = vector.load %w[%c0] : memref<16xf32>, vector<16xf32>
  %x00 = vector.extract %x[0, 0] : f32 from vector<2x2xf32>
  %x01 = vector.extract %x[0, 1] : f32 from vector<2x2xf32>
  %x10 = vector.extract %x[1, 0] : f32 from vector<2x2xf32>
  %x11 = vector.extract %x[1, 1] : f32 from vector<2x2xf32>
  %b00 = vector.broadcast %x00 : f32 to vector<16xf32>
  %b01 = vector.broadcast %x01 : f32 to vector<16xf32>
  %b10 = vector.broadcast %x10 : f32 to vector<16xf32>
  %b11 = vector.broadcast %x11 : f32 to vector<16xf32>
  %r00 = vector.fma %b00, %f, %acc : vector<16xf32>
  %r01 = vector.fma %b01, %f, %acc : vector<16xf32>
  %r10 = vector.fma %b10, %f, %acc : vector<16xf32>
  %r11 = vector.fma %b11, %f, %acc : vector<16xf32>
  return %r00, %r01, %r10, %r11 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// -----

// A vector.load into the innermost dimension of a 2-D memref, and a transfer_read of a 1-D
// vector from a 3-D memref (a minor identity map): the outer indices stay.
// CHECK-LABEL: func.func @inner
// CHECK-SAME: (%[[M:.+]]: memref<8x16xf32>, %[[T:.+]]: memref<4x4x8xf32>, %[[I:.+]]: index
// CHECK-NOT: vector.load
// CHECK-NOT: vector.transfer_read
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[I3:.+]] = arith.addi %[[I]], %[[C3]] : index
// CHECK-DAG: memref.load %[[M]][%[[I]], %[[I3]]] : memref<8x16xf32>
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[I2:.+]] = arith.addi %[[I]], %[[C2]] : index
// CHECK-DAG: memref.load %[[T]][%[[I]], %[[I]], %[[I2]]] : memref<4x4x8xf32>
func.func @inner(%m: memref<8x16xf32>, %t: memref<4x4x8xf32>, %i: index) -> (f32, f32) {
  %pad = arith.constant 0.0 : f32
  %v = vector.load %m[%i, %i] : memref<8x16xf32>, vector<4xf32>
  %a = vector.extract %v[3] : f32 from vector<4xf32>
  %u = vector.transfer_read %t[%i, %i, %i], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2) -> (d2)>} : memref<4x4x8xf32>, vector<3xf32>
  %b = vector.extract %u[2] : f32 from vector<3xf32>
  return %a, %b : f32, f32
}

// -----

// Not taken: a row extracted (a vector use), a use that is not an extract, a read that may
// be out of bounds, a transposing map, a tensor, more than 4 elements, a read whose memory a
// store may change before the extract, and one extracted inside a loop.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-8: vector.{{transfer_read|load}}
// CHECK-NOT: memref.load
// CHECK: return
func.func @kept(%m: memref<8x8xf32>, %t: tensor<8x8xf32>, %i: index) -> (vector<2xf32>, vector<2xf32>, f32, f32, f32, f32, f32, f32) {
  %pad = arith.constant 0.0 : f32
  %rows = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true, true]} : memref<8x8xf32>, vector<2x2xf32>
  %row = vector.extract %rows[1] : vector<2xf32> from vector<2x2xf32>
  %v = vector.load %m[%i, %i] : memref<8x8xf32>, vector<2xf32>
  %w = arith.addf %v, %v : vector<2xf32>
  %edge = vector.transfer_read %m[%i, %i], %pad {in_bounds = [false]} : memref<8x8xf32>, vector<2xf32>
  %e = vector.extract %edge[1] : f32 from vector<2xf32>
  %cols = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<8x8xf32>, vector<2xf32>
  %c = vector.extract %cols[1] : f32 from vector<2xf32>
  %tv = vector.transfer_read %t[%i, %i], %pad {in_bounds = [true]} : tensor<8x8xf32>, vector<2xf32>
  %tx = vector.extract %tv[1] : f32 from vector<2xf32>
  %wide = vector.load %m[%i, %i] : memref<8x8xf32>, vector<6xf32>
  %wx = vector.extract %wide[5] : f32 from vector<6xf32>
  %before = vector.load %m[%i, %i] : memref<8x8xf32>, vector<2xf32>
  memref.store %wx, %m[%i, %i] : memref<8x8xf32>
  %bx = vector.extract %before[0] : f32 from vector<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %outside = vector.load %m[%i, %i] : memref<8x8xf32>, vector<2xf32>
  %lx = scf.for %k = %c0 to %c1 step %c1 iter_args(%a = %bx) -> (f32) {
    %ox = vector.extract %outside[1] : f32 from vector<2xf32>
    scf.yield %ox : f32
  }
  return %row, %w, %e, %c, %tx, %wx, %bx, %lx : vector<2xf32>, vector<2xf32>, f32, f32, f32, f32, f32, f32
}

// The statistics add up over the splits: one read in @block, two in @inner, none in @kept,
// one in @window.
// -----

// Up to 8 elements when the read is a window that a short loop carrying a register block slides
// along its row (a 3x3 convolution's 7 positions at kw = 0, 1, 2: LLVM unrolls the loop and
// shares the overlapping scalar loads). The same read at a fixed column is not a window.
// CHECK-LABEL: func.func @window
// CHECK: scf.for %[[KW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK-NOT: vector.transfer_read
// CHECK-COUNT-7: memref.load %{{.+}} : memref<7xf32, strided<[1], offset: ?>>
// CHECK: scf.yield
// CHECK: vector.transfer_read {{.+}} vector<7xf32>
// CHECK: return
func.func @window(%in: memref<9x9xf32>, %w: memref<8xf32>, %r: index, %acc0: vector<7x8xf32>) -> (vector<7x8xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant 0.0 : f32
  %f = vector.load %w[%c0] : memref<8xf32>, vector<8xf32>
  %acc = scf.for %kw = %c0 to %c3 step %c1 iter_args(%a = %acc0) -> (vector<7x8xf32>) {
    %row = memref.subview %in[%r, %kw] [1, 7] [1, 1] : memref<9x9xf32> to memref<7xf32, strided<[1], offset: ?>>
    %x = vector.transfer_read %row[%c0], %pad {in_bounds = [true]} : memref<7xf32, strided<[1], offset: ?>>, vector<7xf32>
    %x0 = vector.extract %x[0] : f32 from vector<7xf32>
    %x1 = vector.extract %x[1] : f32 from vector<7xf32>
    %x2 = vector.extract %x[2] : f32 from vector<7xf32>
    %x3 = vector.extract %x[3] : f32 from vector<7xf32>
    %x4 = vector.extract %x[4] : f32 from vector<7xf32>
    %x5 = vector.extract %x[5] : f32 from vector<7xf32>
    %x6 = vector.extract %x[6] : f32 from vector<7xf32>
    %b = vector.broadcast %x0 : f32 to vector<8xf32>
    %a0 = vector.extract %a[0] : vector<8xf32> from vector<7x8xf32>
    %s = vector.fma %b, %f, %a0 : vector<8xf32>
    %n = vector.insert %s, %a [0] : vector<8xf32> into vector<7x8xf32>
    %t = arith.addf %x1, %x2 : f32
    %u = arith.addf %x3, %x4 : f32
    %v = arith.addf %x5, %x6 : f32
    %tu = arith.addf %t, %u : f32
    %tuv = arith.addf %tu, %v : f32
    %bb = vector.broadcast %tuv : f32 to vector<8xf32>
    %a1 = vector.extract %n[1] : vector<8xf32> from vector<7x8xf32>
    %s1 = vector.fma %bb, %f, %a1 : vector<8xf32>
    %m = vector.insert %s1, %n [1] : vector<8xf32> into vector<7x8xf32>
    scf.yield %m : vector<7x8xf32>
  }
  %fixed = memref.subview %in[%r, 1] [1, 7] [1, 1] : memref<9x9xf32> to memref<7xf32, strided<[1], offset: ?>>
  %y = vector.transfer_read %fixed[%c0], %pad {in_bounds = [true]} : memref<7xf32, strided<[1], offset: ?>>, vector<7xf32>
  %y6 = vector.extract %y[6] : f32 from vector<7xf32>
  return %acc, %y6 : vector<7x8xf32>, f32
}

// STATS: strata-broadcast-loads
// STATS-NEXT: (S) 4 reads
