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

// Rows read from memory, each narrower than its power of two (as convert-vector-to-scf unrolls
// a 2-D read): each read instead as a whole row of 4 lanes, masked to the 3 that exist
// (vector.maskedload: the 4th lane is not accessed), the reads and inserts erased. 8 rows of 3 lanes, more rows
// than columns and rows narrower than a register: joined first, two rows in each of 4 values
// of 8 lanes, then two interleaving stages on all 8 lanes at once.
// CHECK-LABEL: func.func @read_rows
// CHECK-SAME: (%[[M:.*]]: memref<8x3xf32, strided<[7, 1], offset: ?>>)
// CHECK: %[[MASK0:.*]] = vector.constant_mask [3] : vector<4xi1>
// CHECK: %[[W0:.*]] = vector.maskedload %[[M]][%c0, %c0], %[[MASK0]], %{{.*}} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK-NOT: vector.transfer_read
// CHECK: %[[W4:.*]] = vector.maskedload %[[M]][%c4, %c0]
// CHECK: %[[J0:.*]] = vector.shuffle %[[W0]], %[[W4]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK-COUNT-4: vector.shuffle {{.*}} [0, 8, 1, 9, 4, 12, 5, 13] : vector<8xf32>, vector<8xf32>
// CHECK-NOT: vector.transfer_read
// CHECK-NOT: vector.transpose
// CHECK: return
func.func @read_rows(%m: memref<8x3xf32, strided<[7, 1], offset: ?>>) -> vector<3x8xf32> {
  %p = ub.poison : f32
  %v = ub.poison : vector<8x3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %r0 = vector.transfer_read %m[%c0, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i0 = vector.insert %r0, %v [0] : vector<3xf32> into vector<8x3xf32>
  %r1 = vector.transfer_read %m[%c1, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i1 = vector.insert %r1, %i0 [1] : vector<3xf32> into vector<8x3xf32>
  %r2 = vector.transfer_read %m[%c2, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i2 = vector.insert %r2, %i1 [2] : vector<3xf32> into vector<8x3xf32>
  %r3 = vector.transfer_read %m[%c3, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i3 = vector.insert %r3, %i2 [3] : vector<3xf32> into vector<8x3xf32>
  %r4 = vector.transfer_read %m[%c4, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i4 = vector.insert %r4, %i3 [4] : vector<3xf32> into vector<8x3xf32>
  %r5 = vector.transfer_read %m[%c5, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i5 = vector.insert %r5, %i4 [5] : vector<3xf32> into vector<8x3xf32>
  %r6 = vector.transfer_read %m[%c6, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i6 = vector.insert %r6, %i5 [6] : vector<3xf32> into vector<8x3xf32>
  %r7 = vector.transfer_read %m[%c7, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i7 = vector.insert %r7, %i6 [7] : vector<3xf32> into vector<8x3xf32>
  %t = vector.transpose %i7, [1, 0] : vector<8x3xf32> to vector<3x8xf32>
  return %t : vector<3x8xf32>
}

// Output rows only stored to memory, each narrower than its power of two (as
// convert-vector-to-scf unrolls a 2-D write): each stored as a whole row of 4 lanes, a quarter
// of a last stage's value, masked to the 3 that exist (vector.maskedstore), and the extracts
// and 1-D writes gone. Written as plain stores of the 3 lanes on hosts without AVX-512
// (strata-split-masked-stores).
// CHECK-LABEL: func.func @store_rows
// CHECK-SAME: (%[[A:.*]]: vector<3x8xf32>, %[[O:.*]]: memref<8x3xf32, strided<[7, 1], offset: ?>>)
// CHECK-COUNT-2: vector.shuffle {{.*}} [0, 8, 1, 9, 2, 10, 3, 11] : vector<8xf32>, vector<8xf32>
// CHECK: %[[C0:.*]] = vector.shuffle %[[L:.*]], %[[L]] [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// CHECK: %[[MASK:.*]] = vector.constant_mask [3] : vector<4xi1>
// CHECK: vector.maskedstore %[[O]][%c0, %c0], %[[MASK]], %[[C0]] : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<4xi1>, vector<4xf32>
// CHECK-COUNT-7: vector.maskedstore
// CHECK-NOT: vector.transfer_write
// CHECK-NOT: vector.transpose
// CHECK: return
func.func @store_rows(%a: vector<3x8xf32>, %o: memref<8x3xf32, strided<[7, 1], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %t = vector.transpose %a, [1, 0] : vector<3x8xf32> to vector<8x3xf32>
  %e0 = vector.extract %t[0] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e0, %o[%c0, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  %e1 = vector.extract %t[1] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e1, %o[%c1, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  %e2 = vector.extract %t[2] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e2, %o[%c2, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  %e3 = vector.extract %t[3] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e3, %o[%c3, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  %e4 = vector.extract %t[4] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e4, %o[%c4, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  %e5 = vector.extract %t[5] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e5, %o[%c5, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  %e6 = vector.extract %t[6] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e6, %o[%c6, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  %e7 = vector.extract %t[7] : vector<3xf32> from vector<8x3xf32>
  vector.transfer_write %e7, %o[%c7, %c0] {in_bounds = [true]} : vector<3xf32>, memref<8x3xf32, strided<[7, 1], offset: ?>>
  return
}

// Both in the host lowering: a convolution's block of 7 positions by 32 filters, its initial
// values read from NCHW rows of 7 and its results written back (a residual accumulated in
// place): every row read and written as 8 lanes under a mask (written as stores of 4, 2 and 1
// lanes by strata-split-masked-stores on hosts without AVX-512), and no element moved alone.
// LLVM-LABEL: llvm.func @accumulate
// LLVM-COUNT-32: llvm.intr.masked.load
// LLVM-NOT: llvm.extractelement
// LLVM-NOT: llvm.insertelement
// LLVM: llvm.return
func.func @accumulate(%m: memref<32x7xf32, strided<[49, 1], offset: ?>>, %a: vector<7x32xf32>) {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %r = vector.transfer_read %m[%c0, %c0], %p {in_bounds = [true, true]} : memref<32x7xf32, strided<[49, 1], offset: ?>>, vector<32x7xf32>
  %t = vector.transpose %r, [1, 0] : vector<32x7xf32> to vector<7x32xf32>
  %s = arith.addf %t, %a : vector<7x32xf32>
  %u = vector.transpose %s, [1, 0] : vector<7x32xf32> to vector<32x7xf32>
  vector.transfer_write %u, %m[%c0, %c0] {in_bounds = [true, true]} : vector<32x7xf32>, memref<32x7xf32, strided<[49, 1], offset: ?>>
  return
}

// An epilogue after the transpose (ReLU6 on a block of 4 positions by 8 filters, stored as 8
// rows of 4): its maximumf and minimumf, whose other operands are splats, are applied to the
// block before the transpose instead (4 rows of 8 lanes rather than 8 of 4), their constants
// remade in that shape, and the transposed rows are only stored. An operand that is not a
// splat stops the hoisting (@epilogue_kept).
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME: (%[[A:.*]]: vector<4x8xf32>, %[[O:.*]]: memref<8x4xf32, strided<[9, 1], offset: ?>>)
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4x8xf32>
// CHECK: %[[LO:.*]] = arith.maximumf %[[A]], %[[Z]] fastmath<nnan> : vector<4x8xf32>
// CHECK: %[[SIX:.*]] = arith.constant dense<6.000000e+00> : vector<4x8xf32>
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]], %[[SIX]] : vector<4x8xf32>
// CHECK: vector.extract %[[HI]][0] : vector<8xf32> from vector<4x8xf32>
// CHECK-COUNT-8: vector.transfer_write {{.*}} : vector<4xf32>
// CHECK-NOT: vector.transpose
// CHECK: return
func.func @epilogue(%a: vector<4x8xf32>, %o: memref<8x4xf32, strided<[9, 1], offset: ?>>) {
  %zero = arith.constant dense<0.0> : vector<8x4xf32>
  %six = arith.constant dense<6.0> : vector<8x4xf32>
  %t = vector.transpose %a, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  %lo = arith.maximumf %t, %zero fastmath<nnan> : vector<8x4xf32>
  %hi = arith.minimumf %lo, %six : vector<8x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %e0 = vector.extract %hi[0] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e0, %o[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  %e1 = vector.extract %hi[1] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e1, %o[%c1, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  %e2 = vector.extract %hi[2] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e2, %o[%c2, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  %e3 = vector.extract %hi[3] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e3, %o[%c3, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  %e4 = vector.extract %hi[4] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e4, %o[%c4, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  %e5 = vector.extract %hi[5] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e5, %o[%c5, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  %e6 = vector.extract %hi[6] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e6, %o[%c6, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  %e7 = vector.extract %hi[7] : vector<4xf32> from vector<8x4xf32>
  vector.transfer_write %e7, %o[%c7, %c0] {in_bounds = [true]} : vector<4xf32>, memref<8x4xf32, strided<[9, 1], offset: ?>>
  return
}

// CHECK-LABEL: func.func @epilogue_kept
// CHECK: vector.shuffle
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<8x4xf32>
func.func @epilogue_kept(%a: vector<4x8xf32>, %b: vector<8x4xf32>) -> vector<8x4xf32> {
  %t = vector.transpose %a, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  %s = arith.addf %t, %b : vector<8x4xf32>
  return %s : vector<8x4xf32>
}

// Rows that are not plain memory reads (a constant row) and output rows read by something
// other than a write (a negation): lowered with whole extracts and picks, no mask, no crash.
// CHECK-LABEL: func.func @rows_not_plain
// CHECK-NOT: vector.maskedload
// CHECK-NOT: vector.maskedstore
// CHECK: vector.extract %{{.*}}[1] : vector<3xf32> from vector<8x3xf32>
// CHECK: arith.negf %{{.*}} : vector<3xf32>
// CHECK-NOT: vector.transpose
// CHECK: return
func.func @rows_not_plain(%m: memref<8x3xf32, strided<[7, 1], offset: ?>>, %a: vector<3x8xf32>) -> (vector<3x8xf32>, vector<3xf32>) {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = ub.poison : vector<8x3xf32>
  %k = arith.constant dense<1.0> : vector<3xf32>
  %r0 = vector.transfer_read %m[%c0, %c0], %p {in_bounds = [true]} : memref<8x3xf32, strided<[7, 1], offset: ?>>, vector<3xf32>
  %i0 = vector.insert %r0, %v [0] : vector<3xf32> into vector<8x3xf32>
  %i1 = vector.insert %k, %i0 [1] : vector<3xf32> into vector<8x3xf32>
  %t = vector.transpose %i1, [1, 0] : vector<8x3xf32> to vector<3x8xf32>
  %u = vector.transpose %a, [1, 0] : vector<3x8xf32> to vector<8x3xf32>
  %e = vector.extract %u[0] : vector<3xf32> from vector<8x3xf32>
  %n = arith.negf %e : vector<3xf32>
  return %t, %n : vector<3x8xf32>, vector<3xf32>
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

// STATS: (S) 10 transposes - vector.transpose lowered to shuffle networks
// STATS: (S) 2 hoisted - elementwise ops moved from after a transpose to before it
