// `sg.tree_walk` lowered three ways. For a CPU, each row's trees in blocks of up to eight walks
// interleaved in one scf.for of `depth` steps (independent chains the core overlaps), written
// into the row's slice of the result: rows an scf.for on one thread, an scf.forall with
// `sections` (a host compiled for several threads). For a GPU, one generic over rows x trees,
// each element one walk. A step reads the node's record (feature and flags, the split's bits,
// the children), clamps node and feature numbers as unsigned, compares and selects a child.
// After bufferization and planning nothing is allocated at run time.
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
// PAR: scf.forall (%[[N:.*]]) in (2) shared_outs(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x3xi64>)
// PAR:   tensor.extract_slice %[[ACC]][%[[N]], 0] [1, 3] [1, 1]
// PAR:   scf.forall.in_parallel
// PAR:     tensor.parallel_insert_slice %{{.*}} into %[[ACC]][%[[N]], 0] [1, 3] [1, 1]

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
