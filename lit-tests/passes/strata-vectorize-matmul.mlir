// strata-vectorize-matmul{vector-lanes} writes the f32 and f64 matmuls that the register-blocked
// schedule does not take (any shape) as vector loops on buffers: blocks of 4 rows x 2 vectors
// of columns (8 rows where one vector holds every column) whose 8 accumulators the k loop carries in registers (a load of each B vector, a
// broadcast of each A element, contractible multiply-adds), a partial column block masked,
// leftover rows as one block at a constant row (its rows' accumulators interleaved, where one
// row at a time each waited on its last multiply-add). Rows whose accumulators all fit the
// registers (24 of AVX-512's 32) are one block: one pass over B for all of them. f64 uses half the lanes. Matmuls marked for the vectorising
// schedule and other element types are left as they were. A kernel at the top level of its
// function sits in an `scf.execute_region no_inline`, so that however the canonicalizer folds
// its loops it stays one op for strata-outline-kernels.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-matmul{vector-lanes=16})' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-matmul{vector-lanes=16},strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM
// With threads, a big one's whole column blocks are an scf.forall (every row each), the
// masked block after it; small ones stay one loop nest.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-matmul{vector-lanes=16 threads=2})' | FileCheck %s --check-prefix=THREADS

// A classifier head: one row (a block at row 0, no loop over the rows), 1000 columns = 31
// whole blocks of 32 and a masked one of 8.
// CHECK-LABEL: func.func @classifier
// CHECK: scf.execute_region no_inline {
// CHECK-NOT: scf.for
// CHECK: scf.for %[[N:.*]] = %c0 to %c992 step %c32 {
// CHECK: %[[ACC:.*]]:2 = scf.for %[[K:.*]] = {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>) {
// CHECK: vector.load %arg1[%[[K]], {{.*}}] : memref<40x1000xf32>, vector<16xf32>
// CHECK: memref.load %arg0[{{.*}}, %[[K]]] : memref<1x40xf32>
// CHECK: vector.broadcast {{.*}} : f32 to vector<16xf32>
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: arith.addf {{.*}} fastmath<contract> : vector<16xf32>
// CHECK: } {loop_annotation
// CHECK: vector.store %[[ACC]]#0
// CHECK: vector.create_mask {{.*}} : vector<16xi1>
// CHECK: vector.maskedload %arg2
// CHECK: vector.maskedstore %arg2
// CHECK-NOT: linalg.matmul
// LLVM-LABEL: llvm.func @classifier
// LLVM: llvm.intr.masked.load
func.func @classifier(%a: memref<1x40xf32>, %b: memref<40x1000xf32>, %c: memref<1x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1x40xf32>, memref<40x1000xf32>) outs(%c : memref<1x1000xf32>)
  return
}

// f64 (a Fourier basis): 8 lanes; 9 rows x 2 vectors = 18 accumulators, one block (no loop
// over the rows) for the 16 whole columns, one for the masked 5.
// CHECK-LABEL: func.func @fourier
// CHECK-NOT: step %c4
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>)
// CHECK: vector.create_mask
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>)
// CHECK-NOT: linalg.matmul
func.func @fourier(%a: memref<9x40xf64>, %b: memref<40x21xf64>, %c: memref<9x21xf64>) {
  linalg.matmul ins(%a, %b : memref<9x40xf64>, memref<40x21xf64>) outs(%c : memref<9x21xf64>)
  return
}

// Marked for the vectorising schedule, or of another element type: left alone.
// CHECK-LABEL: func.func @others
// CHECK: linalg.matmul {strata.loop_order = "vectorize"}
// CHECK: linalg.matmul ins
func.func @others(%a: memref<8x32xf32>, %b: memref<32x32xf32>, %c: memref<8x32xf32>, %x: memref<4x8xi32>, %y: memref<8x8xi32>, %z: memref<4x8xi32>) {
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<8x32xf32>, memref<32x32xf32>) outs(%c : memref<8x32xf32>)
  linalg.matmul ins(%x, %y : memref<4x8xi32>, memref<8x8xi32>) outs(%z : memref<4x8xi32>)
  return
}

// An f32 left operand of an f64 product (a widening the lowering looked through) is widened
// as each element is read.
// CHECK-LABEL: func.func @widening
// CHECK: memref.load %arg0[{{.*}}] : memref<4x8xf32>
// CHECK: arith.extf {{.*}} : f32 to f64
// CHECK: vector.broadcast {{.*}} : f64 to vector<8xf64>
// CHECK-NOT: linalg.matmul
func.func @widening(%a: memref<4x8xf32>, %b: memref<8x16xf64>, %c: memref<4x16xf64>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  return
}

// Columns that fit one vector (a [28, 8] x [8, 8] product on 8 lanes): blocks of one vector
// and twice the rows, so that they keep eight accumulators too (with four, each waited on its
// last multiply-add: the 8 columns left of a 3136 x 160 x 40 product ran 18% slower); the 4
// rows left are one block. No mask.
// CHECK-LABEL: func.func @narrow
// CHECK: scf.for %{{.*}} = %c0 to %c24 step %c8 {
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: mask
// CHECK: return
func.func @narrow(%a: memref<28x8xf32>, %b: memref<8x8xf32>, %c: memref<28x8xf32>) {
  linalg.matmul ins(%a, %b : memref<28x8xf32>, memref<8x8xf32>) outs(%c : memref<28x8xf32>)
  return
}

// The 5 rows a 77-row product leaves past the register-blocked schedule's 72: one block of
// 5 x 2 vectors, every row in one pass over B (as blocks of 4 and 1, two passes over a 4 MB
// weight: 0.28 ms where 8 rows took 0.14).
// CHECK-LABEL: func.func @rest_rows
// CHECK-NOT: step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32 {
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: iter_args
// CHECK: return
func.func @rest_rows(%a: memref<5x48xf32>, %b: memref<48x64xf32>, %c: memref<5x64xf32>) {
  linalg.matmul ins(%a, %b : memref<5x48xf32>, memref<48x64xf32>) outs(%c : memref<5x64xf32>)
  return
}

// A fill of +0.0 into the result just before (how the lowering starts a product) is folded:
// the accumulators start at zero, the result is not loaded before the sums, the fill goes.
// A fill of another value, or of another buffer, stays.
// CHECK-LABEL: func.func @zeroed
// CHECK-NOT: linalg.fill
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NOT: vector.load %arg2
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]])
// CHECK: vector.store {{.*}}, %arg2
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg2
// CHECK: vector.load %arg2
// CHECK: return
func.func @zeroed(%a: memref<4x8xf32>, %b: memref<8x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.fill ins(%one : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// A batch matmul's matmul inside the batch's scf.forall (strata.batch_item, from
// strata-cpu-schedule with threads) is a kernel of its own, and with threads it is not split
// again: the threads are the batch's (no nested scf.forall).
// CHECK-LABEL: func.func @batch_item
// CHECK: scf.forall (%{{.*}}) in (4) {
// CHECK: vector.load
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @batch_item(%a: memref<4x100x100xf32>, %b: memref<4x100x100xf32>, %c: memref<4x100x100xf32>) {
  scf.forall (%i) in (4) {
    %as = memref.subview %a[%i, 0, 0] [1, 100, 100] [1, 1, 1] : memref<4x100x100xf32> to memref<100x100xf32, strided<[100, 1], offset: ?>>
    %bs = memref.subview %b[%i, 0, 0] [1, 100, 100] [1, 1, 1] : memref<4x100x100xf32> to memref<100x100xf32, strided<[100, 1], offset: ?>>
    %cs = memref.subview %c[%i, 0, 0] [1, 100, 100] [1, 1, 1] : memref<4x100x100xf32> to memref<100x100xf32, strided<[100, 1], offset: ?>>
    linalg.matmul {strata.batch_item} ins(%as, %bs : memref<100x100xf32, strided<[100, 1], offset: ?>>, memref<100x100xf32, strided<[100, 1], offset: ?>>) outs(%cs : memref<100x100xf32, strided<[100, 1], offset: ?>>)
  }
  return
}

// On one thread a one-row product whose right operand is past the caches (a 1280 x 1000
// classifier, 5 MB) streams it row by row: passes over the result row, each loading and
// storing its vectors once for four rows of B (added in k order; a partial last vector
// masked, in the same pass, while those rows stream: not a second walk through B), instead
// of register blocks of columns.
// CHECK-LABEL: func.func @head
// CHECK: %[[MASK:.*]] = vector.create_mask
// CHECK: scf.for %[[K:.*]] = %c0 to %{{.*}} step %{{.*}} {
// CHECK: %[[K0:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: %[[X:.*]] = memref.load %arg0[%c0, %[[K0]]] : memref<1x1280xf32>
// CHECK: %[[XV:.*]] = vector.broadcast %[[X]] : f32 to vector<16xf32>
// CHECK-COUNT-3: vector.broadcast
// CHECK: scf.for %[[J:.*]] = %c0 to %c992 step %c16 {
// CHECK: %[[C:.*]] = vector.load %arg2[%c0, %[[J]]] : memref<1x1000xf32>, vector<16xf32>
// CHECK: %[[B:.*]] = vector.load %arg1[%[[K0]], %[[J]]] : memref<1280x1000xf32>, vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[XV]], %[[B]] fastmath<contract>
// CHECK: %[[S:.*]] = arith.addf %[[C]], %[[P]] fastmath<contract>
// CHECK-COUNT-3: arith.addf
// CHECK: vector.store %{{.*}}, %arg2[%c0, %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: vector.maskedload %arg2[%c0, %c992], %[[MASK]]
// CHECK-NEXT: vector.maskedload %arg1[%[[K0]], %c992], %[[MASK]]
// CHECK-COUNT-3: vector.maskedload %arg1
// CHECK: vector.maskedstore %arg2[%c0, %c992], %[[MASK]]
// CHECK-NEXT: } {loop_annotation
// CHECK-NOT: scf.for
// CHECK-NOT: iter_args
// CHECK: return
// CHECK: (S) 10 matmuls
// CHECK: (S) 1 fills-folded

// THREADS-LABEL: func.func @classifier
// THREADS-NOT: scf.forall
// THREADS-LABEL: func.func @batch_item
// THREADS: scf.forall (%{{.*}}) in (4) {
// THREADS-NOT: scf.forall
// THREADS: vector.load
// THREADS-NOT: scf.forall
// THREADS: return
// THREADS-LABEL: func.func @head
// THREADS: scf.forall (%{{.*}}) in (31) {
// THREADS: arith.muli %{{.*}}, %c32
// THREADS: vector.load %arg1
// THREADS: vector.store
// THREADS: }
// THREADS-NOT: scf.for %{{.*}} = %c0 to %c1 step %c1
// THREADS: vector.create_mask
// THREADS: vector.maskedstore %arg2
func.func @head(%a: memref<1x1280xf32>, %b: memref<1280x1000xf32>, %c: memref<1x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1x1280xf32>, memref<1280x1000xf32>) outs(%c : memref<1x1000xf32>)
  return
}

// ResNet-18's classifier (512 x 1000, 2 MB): fewer multiply-adds than a split usually needs,
// but memory-bound, so on two threads each streams its share of the column blocks (2x faster
// than one core walking them all).
// THREADS-LABEL: func.func @small_head
// THREADS: scf.forall (%{{.*}}) in (31) {
// THREADS: vector.load %arg1
func.func @small_head(%a: memref<1x512xf32>, %b: memref<512x1000xf32>, %c: memref<1x1000xf32>) {
  linalg.matmul ins(%a, %b : memref<1x512xf32>, memref<512x1000xf32>) outs(%c : memref<1x1000xf32>)
  return
}
