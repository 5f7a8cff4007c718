// `sg.tree_walk` lowered three ways. For a CPU, each row's trees in blocks of up to eight walks
// interleaved in one scf.for of `depth` steps (independent chains the core overlaps), written
// into the row's slice of the result: rows an scf.for on one thread, an scf.forall with
// `sections` (a host compiled for several threads) where the walk has at least 8192 steps
// (rows x trees x depth; a smaller one stays serial). For a GPU, one generic over rows x trees,
// each element one walk. A step reads the node's record (feature and flags, the split's bits,
// the children), clamps node and feature numbers as unsigned, compares and selects a child.
// With leaves of at most four columns, rows in the lanes: blocks of up to sixteen rows walk
// each tree together (one scf.for over the trees carrying each row's sums as scalars, the
// walk's steps one node per row), tree after tree in order, a shorter last block after the
// loop; wider leaves in the row's slice, a loop over its columns, from the row-major walk;
// for a GPU, one generic over rows x columns x trees, the trees a reduction. No [rows, trees]
// buffer of reached nodes is made. After bufferization and planning nothing is allocated at
// run time.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg{sections=true}))' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg{gpu=true}))' | FileCheck %s --check-prefix=GPU
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),strata-bufferize-and-plan{strategy=offsets-greedy-by-size})' | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @forest
// CHECK: %[[OUT:.*]] = scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x3xi64>)
// CHECK:   %[[ROW:.*]] = tensor.extract_slice %[[ACC]][%[[N]], 0] [1, 3] [1, 1]
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ROW]]) -> (tensor<1x3xi64>)
// CHECK-COUNT-3: arith.minui %{{.*}}, %{{.*}} : index
// CHECK:     %[[END:.*]]:3 = scf.for %{{.*}} iter_args({{.*}}) -> (i64, i64, i64)
// CHECK:       arith.minui %{{.*}}, %{{.*}} : i64
// CHECK:       tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<5x4xi64>
// CHECK:       tensor.extract %{{.*}}[%[[N]], %{{.*}}] : tensor<2x3xf32>
// CHECK:       arith.trunci %{{.*}} : i64 to i32
// CHECK:       arith.bitcast %{{.*}} : i32 to f32
// CHECK:       arith.cmpf ole
// CHECK:       arith.cmpf uno
// CHECK:       arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK:     tensor.insert %[[END]]#0
// CHECK:     tensor.insert %[[END]]#2
// CHECK:   tensor.insert_slice %{{.*}} into %[[ACC]][%[[N]], 0] [1, 3] [1, 1]
// CHECK: return %[[OUT]]

// PAR-LABEL: func.func @forest
// PAR-NOT: scf.forall
// PAR: return

// GPU-LABEL: func.func @forest
// GPU: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<3xi64>) outs(%{{.*}} : tensor<2x3xi64>)
// GPU:   linalg.index 0
// GPU:   scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i64)
// GPU:     arith.cmpf ole
// GPU-NOT: scf.forall

// PLAN-LABEL: func.func @forest
// PLAN-NOT: memref.alloc
// PLAN: scf.for
// PLAN-NOT: memref.alloc
// PLAN: return
func.func @forest(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>) -> tensor<2x3xi64> {
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 2 : i64, modes = 0x101 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// f64 features: the split is the record's whole 64 bits; several comparisons pick the node's.
// CHECK-LABEL: func.func @doubles
// CHECK: arith.bitcast %{{.*}} : i64 to f64
// CHECK: arith.shrui
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf une
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i1
func.func @doubles(%x: tensor<4x2xf64>, %nodes: tensor<3x4xi64>, %roots: tensor<1xi64>) -> tensor<4x1xi64> {
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 1 : i64, modes = 0x21 : i64} : (tensor<4x2xf64>, tensor<3x4xi64>, tensor<1xi64>) -> tensor<4x1xi64>
  return %0 : tensor<4x1xi64>
}

// Two columns summed, rows in the lanes: both rows walk each tree together, their sums four
// scalars carried across the trees, then written as the block's rows.
// CHECK-LABEL: func.func @sums
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: scf.for %[[FIRST:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[EMPTY]]) -> (tensor<2x2xf32>)
// CHECK:   %[[R0:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:   %[[R1:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:   %[[SUMS:.*]]:4 = scf.for %[[T:.*]] = %{{.*}} iter_args(%[[S0:.*]] = %{{.*}}, %[[S1:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32, f32, f32)
// CHECK:     %[[ROOT:.*]] = tensor.extract %{{.*}}[%[[T]]] : tensor<3xi64>
// CHECK:     %[[END:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[ROOT]], %{{.*}} = %[[ROOT]]) -> (i64, i64)
// CHECK:       tensor.extract %{{.*}}[%[[R0]], %{{.*}}] : tensor<2x3xf32>
// CHECK:       tensor.extract %{{.*}}[%[[R1]], %{{.*}}] : tensor<2x3xf32>
// CHECK:     %[[LEAF:.*]] = arith.minui %[[END]]#0, %{{.*}} : i64
// CHECK:     %[[I:.*]] = arith.index_cast %[[LEAF]] : i64 to index
// CHECK:     %[[V:.*]] = tensor.extract %{{.*}}[%[[I]], %{{.*}}] : tensor<5x2xf32>
// CHECK:     %[[ADD:.*]] = arith.addf %[[S0]], %[[V]] : f32
// CHECK:     arith.addf %[[S1]], %{{.*}} : f32
// CHECK-COUNT-2: arith.addf
// CHECK:     scf.yield %[[ADD]], %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK:   %[[TILE:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK:   %[[IN0:.*]] = tensor.insert %[[SUMS]]#0 into %[[TILE]]
// CHECK-COUNT-3: tensor.insert %[[SUMS]]
// CHECK:   tensor.insert_slice %{{.*}} into %[[ACC]][%[[FIRST]], 0] [2, 2] [1, 1]

// A walk of 40 rows x 64 trees x depth 4: blocks of sixteen rows split across threads, the
// last eight rows one block after the loop.
// PAR-LABEL: func.func @rows
// PAR: %[[ALL:.*]] = scf.forall (%[[B:.*]]) in (2) shared_outs(%[[ACC:.*]] = %{{.*}}) -> (tensor<40x1xf32>)
// PAR:   %[[FIRST:.*]] = arith.muli %[[B]], %{{.*}} : index
// PAR:   scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// PAR:   scf.forall.in_parallel
// PAR:     tensor.parallel_insert_slice %{{.*}} into %[[ACC]][%[[FIRST]], 0] [16, 1] [1, 1] : tensor<16x1xf32> into tensor<40x1xf32>
// PAR: scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// PAR: tensor.insert_slice %{{.*}} into %[[ALL]][32, 0] [8, 1] [1, 1] : tensor<8x1xf32> into tensor<40x1xf32>
// PLAN-LABEL: func.func @rows
// PLAN-NOT: memref.alloc
// PLAN: return
func.func @rows(%x: tensor<40x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<64xi64>, %leaves: tensor<5x1xf32>) -> tensor<40x1xf32> {
  %0 = "sg.tree_walk"(%x, %nodes, %roots, %leaves) {depth = 4 : i64, modes = 1 : i64, aggregate = 0 : i64} : (tensor<40x3xf32>, tensor<5x4xi64>, tensor<64xi64>, tensor<5x1xf32>) -> tensor<40x1xf32>
  return %0 : tensor<40x1xf32>
}

// PAR-LABEL: func.func @sums
// PAR-NOT: scf.forall
// PAR: return

// GPU-LABEL: func.func @sums
// GPU: %[[START:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x2xf32>)
// GPU: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<3xi64>) outs(%[[START]] : tensor<2x2xf32>)
// GPU: ^bb0(%{{.*}}: i64, %[[OUT:.*]]: f32):
// GPU:   %[[END:.*]] = scf.for
// GPU:   tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<5x2xf32>
// GPU:   arith.addf %[[OUT]], %{{.*}} : f32

// PLAN-LABEL: func.func @sums
// PLAN-NOT: memref.alloc
// PLAN: return
func.func @sums(%x: tensor<2x3xf32>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>, %leaves: tensor<5x2xf32>) -> tensor<2x2xf32> {
  %0 = "sg.tree_walk"(%x, %nodes, %roots, %leaves) {depth = 2 : i64, modes = 1 : i64, aggregate = 0 : i64} : (tensor<2x3xf32>, tensor<5x4xi64>, tensor<3xi64>, tensor<5x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Six columns: the maxima in the row's slice, a loop over its columns per lane, from -inf.
// CHECK-LABEL: func.func @maxima
// CHECK: %[[LOW:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: linalg.fill ins(%[[LOW]] : f64)
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<1x6xf64>)
// CHECK:   scf.for
// CHECK:   scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[R:.*]] = %{{.*}}) -> (tensor<1x6xf64>)
// CHECK:     %[[V:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[C]]] : tensor<5x6xf64>
// CHECK:     %[[OLD:.*]] = tensor.extract %[[R]][%{{.*}}, %[[C]]] : tensor<1x6xf64>
// CHECK:     %[[MAX:.*]] = arith.maximumf %[[OLD]], %[[V]] : f64
// CHECK:     %[[KEPT:.*]] = arith.select %{{.*}}, %[[MAX]], %[[OLD]] : f64
// CHECK:     tensor.insert %[[KEPT]] into %[[R]][%{{.*}}, %[[C]]] : tensor<1x6xf64>

// PLAN-LABEL: func.func @maxima
// PLAN-NOT: memref.alloc
// PLAN: return
func.func @maxima(%x: tensor<2x3xf64>, %nodes: tensor<5x4xi64>, %roots: tensor<3xi64>, %leaves: tensor<5x6xf64>) -> tensor<2x6xf64> {
  %0 = "sg.tree_walk"(%x, %nodes, %roots, %leaves) {depth = 2 : i64, modes = 1 : i64, aggregate = 2 : i64} : (tensor<2x3xf64>, tensor<5x4xi64>, tensor<3xi64>, tensor<5x6xf64>) -> tensor<2x6xf64>
  return %0 : tensor<2x6xf64>
}
