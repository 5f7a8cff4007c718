// strata-broadcast-loads (in strata-host-to-llvm, before the vector transfers are lowered): a
// vector of at most 4 elements read from a memref only to extract its elements one by one
// becomes one scalar load per element (x86 folds each into a broadcast from memory instead of
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
// be out of bounds, a transposing map, a tensor, more than 4 elements.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: vector.{{transfer_read|load}}
// CHECK-NOT: memref.load
// CHECK: return
func.func @kept(%m: memref<8x8xf32>, %t: tensor<8x8xf32>, %i: index) -> (vector<2xf32>, vector<2xf32>, f32, f32, f32, f32) {
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
  return %row, %w, %e, %c, %tx, %wx : vector<2xf32>, vector<2xf32>, f32, f32, f32, f32
}

// The statistics add up over the splits: one read in @block, two in @inner, none in @kept.
// STATS: strata-broadcast-loads
// STATS-NEXT: (S) 3 reads
