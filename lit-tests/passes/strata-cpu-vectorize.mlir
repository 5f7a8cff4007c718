// strata-cpu-vectorize applies crates/target-cpu/schedules/cpu-vectorize.mlir to the matmuls that
// strata-cpu-schedule marked: cache tiles, 8 x 32 register blocks over single k steps,
// vectorised into outer products (8 FMAs on vector<32xf32> rows per k step) whose 8 x 32
// accumulator block is read before and written after the k loop, also when the buffers are
// views of the arena (MLIR 22 hoists no transfer of a view-like op's result, so the pass puts
// a cast between the matmul and its accumulator view for the schedule, then a memref.cast).
// Unmarked matmuls are left alone.
// The register block follows the vector registers: 8 x 32 with AVX-512's 16 lanes (16 of its
// 24 accumulator registers), 4 x 16 with AVX2's 8 (8 of 12).
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-vectorize{vector-lanes=16})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-vectorize{vector-lanes=8})' | FileCheck %s --check-prefix=AVX2
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-vectorize{vector-lanes=16 threads=2})' | FileCheck %s --check-prefix=TWO
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-vectorize{vector-lanes=16})' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=STATS

// Column blocks outside, row blocks inside (a block's slice of %b stays in L1 for the rows).
// The single cache tile's row loop around them (the rows' index `tile + block`) stays until the
// pipeline's last `canonicalize`: the lowering rewrites the bodies of the top-level ops only.
// CHECK-LABEL: func.func @marked
// CHECK: scf.for %[[N:.*]] = %c0 to %c64 step %c32
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: %[[ROW:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[M]]]
// CHECK: %[[ACC:.*]] = vector.transfer_read %arg2[%[[ROW]], %[[N]]]{{.*}} : memref<16x64xf32>, vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.broadcast {{.*}} : f32 to vector<32xf32>
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write {{.*}}, %arg2[%[[ROW]], %[[N]]]{{.*}} : vector<8x32xf32>, memref<16x64xf32>
// CHECK-NOT: linalg.matmul
// AVX2-LABEL: func.func @marked
// AVX2: scf.for %[[N:.*]] = %c0 to %c64 step %c16
// AVX2: scf.for %[[M:.*]] = %c0 to %c16 step %c4
// AVX2: %[[ROW:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[M]]]
// AVX2: %[[ACC:.*]] = vector.transfer_read %arg2[%[[ROW]], %[[N]]]{{.*}} : memref<16x64xf32>, vector<4x16xf32>
// AVX2: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
// AVX2-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// AVX2: scf.yield
// AVX2: vector.transfer_write {{.*}}, %arg2[%[[ROW]], %[[N]]]{{.*}} : vector<4x16xf32>, memref<16x64xf32>
func.func @marked(%a: memref<16x48xf32>, %b: memref<48x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// Two matmuls writing the same arena view (CSE made one view of equal views): both keep their
// accumulators in registers.
// CHECK-LABEL: func.func @arena_views
// CHECK: %[[C:.*]] = memref.view %arg2
// CHECK: %[[CAST:.*]] = memref.cast %[[C]] : memref<16x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[CAST]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write {{.*}}, %[[CAST]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK: return
func.func @arena_views(%a: memref<16x48xf32>, %b: memref<48x64xf32>, %arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c = memref.view %arena[%c0][] : memref<8192xi8> to memref<16x64xf32>
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// A batch matmul's slices (strata-cpu-schedule's batch loop): the accumulator has a dynamic
// offset already, so the cast makes its outer stride dynamic instead.
// CHECK-LABEL: func.func @batch_slices
// CHECK: %[[S:.*]] = memref.subview %arg2
// CHECK: %[[CAST:.*]] = memref.cast %[[S]] : memref<16x64xf32, strided<[64, 1], offset: ?>> to memref<16x64xf32, strided<[?, 1], offset: ?>>
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[CAST]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_write {{.*}}, %[[CAST]]
func.func @batch_slices(%a: memref<4x16x48xf32>, %b: memref<4x48x64xf32>, %c: memref<4x16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %as = memref.subview %a[%i, 0, 0] [1, 16, 48] [1, 1, 1] : memref<4x16x48xf32> to memref<16x48xf32, strided<[48, 1], offset: ?>>
    %bs = memref.subview %b[%i, 0, 0] [1, 48, 64] [1, 1, 1] : memref<4x48x64xf32> to memref<48x64xf32, strided<[64, 1], offset: ?>>
    %cs = memref.subview %c[%i, 0, 0] [1, 16, 64] [1, 1, 1] : memref<4x16x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
    linalg.matmul {strata.loop_order = "vectorize"} ins(%as, %bs : memref<16x48xf32, strided<[48, 1], offset: ?>>, memref<48x64xf32, strided<[64, 1], offset: ?>>) outs(%cs : memref<16x64xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// CHECK-LABEL: func.func @unmarked
// CHECK: linalg.matmul ins
// CHECK-NOT: transform.
func.func @unmarked(%a: memref<16x48xf32>, %b: memref<48x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// With threads, a product of at least 2^19 multiply-adds has its cache tiles in an scf.forall,
// halved until every thread has one: 64 x 256 x 64 fits one 64 x 64 tile, split into two of
// 64 x 32 (one thread's work, forked, otherwise); the forall's unit row dimension goes in the
// pipeline's last `canonicalize`.
// TWO-LABEL: func.func @parallel_tiles
// TWO: scf.forall ({{.*}}) in ({{(1, )?}}2)
// TWO: scf.for %{{.*}} = %c0 to %c64 step %c8
// TWO: vector.transfer_read %arg2[{{.*}}], %{{.*}} : memref<64x64xf32>, vector<8x32xf32>
func.func @parallel_tiles(%a: memref<64x256xf32>, %b: memref<256x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<64x256xf32>, memref<256x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// A weight beyond half of L2 with several row tiles (72 rows: tiles of 8, the largest of 64,
// 32, 16 and 8 dividing them) takes its column tiles outermost, then the reduction tiles, the
// row tiles inside: each 256 x 128 tile of the 4 MB weight stays in L2 while every row reads
// it, where rows outermost read the whole weight once per row tile. With threads, the
// column tiles are what the forall splits.
// CHECK-LABEL: func.func @large_weight
// CHECK: scf.for %{{.*}} = %c0 to %c2048 step %c128
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c72 step %c8
// TWO-LABEL: func.func @large_weight
// TWO: scf.forall (%{{.*}}) in (16)
// TWO: scf.for %{{.*}} = %c0 to %c512 step %c256
// TWO-NEXT: scf.for %{{.*}} = %c0 to %c72 step %c8
func.func @large_weight(%a: memref<72x512xf32>, %b: memref<512x2048xf32>, %c: memref<72x2048xf32>) {
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<72x512xf32>, memref<512x2048xf32>) outs(%c : memref<72x2048xf32>)
  return
}

// A fill of +0.0 into the result just before (how the lowering starts a product): the
// register blocks start from zero vectors instead of loading the zeros, and the fill goes
// (one pass over the result where there were three). With two reduction tiles, the blocks of
// the first start from zero (an scf.if on the tiles' loop's first iteration, the load in its
// other branch) and those of the second load the sums the first stored.
// CHECK-LABEL: func.func @from_zero
// CHECK-NOT: linalg.fill
// CHECK: %[[C:.*]] = memref.cast %arg2
// CHECK-NOT: linalg.fill
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_write {{.*}}, %[[C]]
// CHECK-NOT: linalg.fill
// CHECK: %[[D:.*]] = memref.cast %arg3
// CHECK: scf.for %[[K:.*]] = %c0 to %c512 step %c256 {
// CHECK: %[[Z2:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %c0 : index
// CHECK: %[[INIT:.*]] = scf.if %[[FIRST]] -> (vector<8x32xf32>) {
// CHECK-NEXT: scf.yield %[[Z2]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[L:.*]] = vector.transfer_read %[[D]]
// CHECK-NEXT: scf.yield %[[L]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_write {{.*}}, %[[D]]
// CHECK-NOT: linalg.fill
// CHECK: return
// TWO-LABEL: func.func @from_zero
// TWO-NOT: linalg.fill
// TWO: return
func.func @from_zero(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %c: memref<16x64xf32>, %d: memref<16x64xf32>, %e: memref<16x512xf32>, %f: memref<512x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x64xf32>)
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<16x64xf32>, memref<64x64xf32>) outs(%c : memref<16x64xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<16x64xf32>)
  linalg.matmul {strata.loop_order = "vectorize"} ins(%e, %f : memref<16x512xf32>, memref<512x64xf32>) outs(%d : memref<16x64xf32>)
  return
}

// A bias broadcast down the result's rows just before (`strata-matmul-accumulate`'s start):
// each register block starts from the bias vector's 32 columns broadcast down its 8 rows, and
// the broadcast goes.
// CHECK-LABEL: func.func @from_bias
// CHECK-NOT: linalg.generic
// CHECK: %[[C:.*]] = memref.cast %arg2
// CHECK: scf.for %[[N:[a-z0-9_]+]] = %c0 to %c64 step %c32
// CHECK: %[[ROW:.*]] = vector.load %arg3[%[[N]]] : memref<64xf32>, vector<32xf32>
// CHECK: %[[INIT:.*]] = vector.broadcast %[[ROW]] : vector<32xf32> to vector<8x32xf32>
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (vector<8x32xf32>)
// CHECK: vector.transfer_write {{.*}}, %[[C]]
// CHECK: return
func.func @from_bias(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %c: memref<16x64xf32>, %v: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v : memref<64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<16x64xf32>, memref<64x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// The vectors are lowered (cpu-lower-vectors.mlir) only in the top-level ops that hold a
// contraction, an outer product, a shape cast, an n-D broadcast or a transfer whose permutation
// map is not the minor identity, and in a function where one stands at its top level; no mark
// is left. Here: the first and third loops and @top_level, not the second loop (its addition
// has nothing to lower), and the loop nest of each of the nine marked matmuls above.
// STATS: 12 lowered-regions
// CHECK-LABEL: func.func @lowered_regions
// CHECK: scf.for
// CHECK: %[[S:.*]] = vector.broadcast %arg2 : f32 to vector<16xf32>
// CHECK: vector.fma %{{.*}}, %[[S]], %{{.*}} : vector<16xf32>
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: scf.for
// CHECK: vector.transfer_read %arg1
// CHECK-LABEL: func.func @top_level
// CHECK-NOT: vector.outerproduct
// CHECK: vector.fma
// CHECK-NOT: strata.lower_vectors
func.func @lowered_regions(%m: memref<64xf32>, %t: memref<16x16xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %v = vector.load %m[%i] : memref<64xf32>, vector<16xf32>
    %o = vector.outerproduct %v, %s, %v : vector<16xf32>, f32
    vector.store %o, %m[%i] : memref<64xf32>, vector<16xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = vector.load %m[%i] : memref<64xf32>, vector<16xf32>
    %w = arith.addf %v, %v : vector<16xf32>
    vector.store %w, %m[%i] : memref<64xf32>, vector<16xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %r = vector.transfer_read %t[%c0, %i], %cst {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<16x16xf32>, vector<16xf32>
    vector.store %r, %m[%i] : memref<64xf32>, vector<16xf32>
  }
  return
}

func.func @top_level(%m: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %v = vector.load %m[%c0] : memref<64xf32>, vector<16xf32>
  %o = vector.outerproduct %v, %s, %v : vector<16xf32>, f32
  vector.store %o, %m[%c0] : memref<64xf32>, vector<16xf32>
  return
}
