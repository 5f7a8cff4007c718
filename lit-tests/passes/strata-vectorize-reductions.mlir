// strata-vectorize-reductions{vector-lanes} vectorises f32 reductions whose innermost loop is
// the reduction (softmax's max and sum, layer norm's statistics, pooling rows): per output
// element a loop of whole vectors carrying a vector accumulator (the combining op lane by
// lane; max, min and sums up to four independent ones), the last partial vector read masked
// with its dead lanes set to the identity, outer reduction loops carrying the same
// accumulators, and one horizontal `vector.reduction` into the output's value. Kernels whose innermost loop is parallel, integer reductions and bodies
// that read the output other than through the combiner are left as they were.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-reductions{vector-lanes=16})' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-reductions{vector-lanes=16},strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#nc = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// 40 columns: two whole vectors, then 8 lanes masked (the others -inf, max's identity). The
// whole vectors go to independent accumulators (up to four), the masked one to the last,
// combined pairwise after the loop (max and min are exact in any order).
// CHECK-LABEL: func.func @row_max
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[PARTS:.*]]:2 = scf.for %[[K:.*]] = %{{.*}} to %[[C32]] step %[[C32]] iter_args(%[[A0:.*]] = %[[NEG]], %[[A1:.*]] = %[[NEG]]) -> (vector<16xf32>, vector<16xf32>) {
// CHECK: %[[V0:.*]] = vector.load %arg0[%[[I]], %[[K]]] : memref<4x40xf32>, vector<16xf32>
// CHECK: %[[M0:.*]] = arith.maximumf %[[A0]], %[[V0]] : vector<16xf32>
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %[[C16]] : index
// CHECK: %[[V1:.*]] = vector.load %arg0[%[[I]], %[[K1]]] : memref<4x40xf32>, vector<16xf32>
// CHECK: %[[M1:.*]] = arith.maximumf %[[A1]], %[[V1]] : vector<16xf32>
// CHECK: scf.yield %[[M0]], %[[M1]]
// CHECK: %[[MASK:.*]] = vector.create_mask %[[C8]] : vector<16xi1>
// CHECK: %[[T:.*]] = vector.maskedload %arg0[%[[I]], %[[C32]]], %[[MASK]]
// CHECK: %[[KEPT:.*]] = arith.select %[[MASK]], %[[T]], %[[NEG]]
// CHECK: %[[LAST:.*]] = arith.maximumf %[[PARTS]]#1, %[[KEPT]] : vector<16xf32>
// CHECK: %[[ALL:.*]] = arith.maximumf %[[PARTS]]#0, %[[LAST]] : vector<16xf32>
// CHECK: %[[INIT:.*]] = memref.load %arg1[%[[I]]]
// CHECK: %[[R:.*]] = vector.reduction <maximumf>, %[[ALL]], %[[INIT]] fastmath<reassoc> : vector<16xf32> into f32
// CHECK: memref.store %[[R]], %arg1[%[[I]]]
// CHECK: } {loop_annotation = #{{.*}}}
// CHECK-NOT: linalg.generic
// LLVM-LABEL: llvm.func @row_max
// LLVM: llvm.intr.masked.load
// LLVM: llvm.intr.vector.reduce.fmaximum
func.func @row_max(%x: memref<4x40xf32>, %m: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x40xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}

// `maxnumf` (softmax's row maximum, which may skip NaN: the row comes out NaN anyway) combines
// lanes by a compare and a select (one `vmaxps` on x86; the accumulators start at -inf and
// never hold a NaN), and folds the halves of the vector the same way instead of
// `vector.reduction` (LLVM reduces `maxnum` one lane at a time); the output's initial value
// is combined by the op itself. 64 columns: four whole vectors, four accumulators.
// CHECK-LABEL: func.func @row_maxnum
// CHECK: %[[PARTS:.*]]:4 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[V0:.*]] = vector.load %arg0
// CHECK: %[[G0:.*]] = arith.cmpf ogt, %[[V0]], %{{.*}} : vector<16xf32>
// CHECK: arith.select %[[G0]], %[[V0]], %{{.*}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT: arith.maxnumf
// CHECK: scf.yield
// CHECK: %[[G1:.*]] = arith.cmpf ogt, %[[PARTS]]#1, %[[PARTS]]#0
// CHECK: %[[P01:.*]] = arith.select %[[G1]], %[[PARTS]]#1, %[[PARTS]]#0
// CHECK: %[[G2:.*]] = arith.cmpf ogt, %[[PARTS]]#3, %[[PARTS]]#2
// CHECK: %[[P23:.*]] = arith.select %[[G2]], %[[PARTS]]#3, %[[PARTS]]#2
// CHECK: %[[G3:.*]] = arith.cmpf ogt, %[[P23]], %[[P01]]
// CHECK: %[[ALL:.*]] = arith.select %[[G3]], %[[P23]], %[[P01]]
// CHECK: %[[INIT:.*]] = memref.load %arg1
// CHECK: %[[H8:.*]] = vector.shuffle %[[ALL]], %[[ALL]] [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: arith.cmpf ogt, %[[H8]], %[[ALL]]
// CHECK: vector.shuffle {{.*}} [4, 5, 6,
// CHECK: vector.shuffle {{.*}} [2, 3, 4,
// CHECK: vector.shuffle {{.*}} [1, 2, 3,
// CHECK: %[[TOP:.*]] = arith.select
// CHECK: %[[FIRST:.*]] = vector.extract %[[TOP]][0] : f32 from vector<16xf32>
// CHECK: %[[R:.*]] = arith.maxnumf %[[INIT]], %[[FIRST]] : f32
// CHECK: memref.store %[[R]], %arg1
// CHECK-NOT: vector.reduction
// LLVM-LABEL: llvm.func @row_maxnum
// LLVM-NOT: llvm.intr.vector.reduce
// LLVM: llvm.intr.maxnum
// LLVM: llvm.store
func.func @row_maxnum(%x: memref<4x64xf32>, %m: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maxnumf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}

// Layer norm's variance over a strided view: the mean is broadcast along the vector, the
// captured constant becomes a splat, the sum reassociates (four accumulators, added pairwise,
// then `reassoc` on the reduction).
// CHECK-LABEL: func.func @variance
// CHECK: %[[PARTS:.*]]:4 = scf.for {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, {{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[X:.*]] = vector.load %arg0[{{.*}}] : memref<4x64xf32, strided<[128, 1], offset: ?>>, vector<16xf32>
// CHECK: %[[MU:.*]] = memref.load %arg1
// CHECK: %[[B:.*]] = vector.broadcast %[[MU]] : f32 to vector<16xf32>
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[B]] : vector<16xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[D]], %[[D]] : vector<16xf32>
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : vector<16xf32>
// CHECK: %[[H:.*]] = arith.mulf %[[S]], %[[HALF]] : vector<16xf32>
// CHECK: arith.addf %[[ACC]], %[[H]] : vector<16xf32>
// CHECK: scf.yield
// CHECK-NOT: vector.create_mask
// CHECK: %[[P01:.*]] = arith.addf %[[PARTS]]#0, %[[PARTS]]#1 : vector<16xf32>
// CHECK: %[[P23:.*]] = arith.addf %[[PARTS]]#2, %[[PARTS]]#3 : vector<16xf32>
// CHECK: %[[ALL:.*]] = arith.addf %[[P01]], %[[P23]] : vector<16xf32>
// CHECK: vector.reduction <add>, %[[ALL]], {{.*}} fastmath<reassoc>
// CHECK-NOT: linalg.generic
// LLVM-LABEL: llvm.func @variance
// LLVM: "llvm.intr.vector.reduce.fadd"({{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}>
func.func @variance(%x: memref<4x64xf32, strided<[128, 1], offset: ?>>, %mean: memref<4xf32>, %v: memref<4xf32>) {
  %half = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : memref<4x64xf32, strided<[128, 1], offset: ?>>, memref<4xf32>) outs(%v : memref<4xf32>) {
  ^bb0(%a: f32, %mu: f32, %o: f32):
    %d = arith.subf %a, %mu : f32
    %s = arith.mulf %d, %d : f32
    %h = arith.mulf %s, %half : f32
    %r = arith.addf %h, %o : f32
    linalg.yield %r : f32
  }
  return
}

// Global average pooling's sum over 7 x 7: the rows loop carries the accumulator; each
// 7-wide row is one masked vector of 8 (the lanes shrink to the row's power of two).
// CHECK-LABEL: func.func @global_pool
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[SUM:.*]] = scf.for %[[H:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8xf32>) {
// CHECK: vector.maskedload %arg0[%{{.*}}, %[[C]], %[[H]], %{{.*}}], {{.*}} : memref<1x8x7x7xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: scf.yield
// CHECK: vector.reduction <add>, %[[SUM]], {{.*}} : vector<8xf32> into f32
// CHECK-NOT: linalg.generic
func.func @global_pool(%x: memref<1x8x7x7xf32>, %y: memref<1x8xf32>) {
  linalg.generic {indexing_maps = [#id4, #nc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<1x8x7x7xf32>) outs(%y : memref<1x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}

// Every loop a reduction (ReduceMax over a whole 3 x 64 tensor, LayerNorm over axis 0): the
// outer loop carries the inner loop's four accumulators (names apart from the inner loop's: a
// clash made the kernel text unparsable), combined pairwise after it.
// CHECK-LABEL: func.func @whole_max
// CHECK: %[[ROWS:.*]]:4 = scf.for %[[R:.*]] = {{.*}} iter_args(%[[O0:[^ ]*]] = %{{[^,]*}}, %[[O1:[^ ]*]] = %{{[^,]*}}, %[[O2:[^ ]*]] = %{{[^,]*}}, %[[O3:[^ ]*]] = %{{[^,]*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[PARTS:.*]]:4 = scf.for %[[K:.*]] = {{.*}} iter_args(%[[P0:[^ ]*]] = %[[O0]], %{{.*}} = %[[O1]], %{{.*}} = %[[O2]], %{{.*}} = %[[O3]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: vector.load %arg0[%[[R]], %[[K]]] : memref<3x64xf32>, vector<16xf32>
// CHECK: arith.maximumf %[[P0]], %{{.*}} : vector<16xf32>
// CHECK: scf.yield
// CHECK: scf.yield %[[PARTS]]#0, %[[PARTS]]#1, %[[PARTS]]#2, %[[PARTS]]#3
// CHECK: %[[M01:.*]] = arith.maximumf %[[ROWS]]#0, %[[ROWS]]#1
// CHECK: %[[M23:.*]] = arith.maximumf %[[ROWS]]#2, %[[ROWS]]#3
// CHECK: %[[ALL:.*]] = arith.maximumf %[[M01]], %[[M23]]
// CHECK: vector.reduction <maximumf>, %[[ALL]], {{.*}} : vector<16xf32> into f32
// CHECK-NOT: linalg.generic
func.func @whole_max(%x: memref<3x64xf32>, %m: memref<1xf32>) {
  linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (0)>], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<3x64xf32>) outs(%m : memref<1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}

// The innermost loop is parallel (a column sum): left alone.
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic
func.func @column_sum(%x: memref<64x32xf32>, %y: memref<32xf32>) {
  linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x32xf32>) outs(%y : memref<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}

// Integers: left alone.
// CHECK-LABEL: func.func @int_sum
// CHECK: linalg.generic
func.func @int_sum(%x: memref<4x64xi32>, %y: memref<4xi32>) {
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xi32>) outs(%y : memref<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %r = arith.addi %o, %a : i32
    linalg.yield %r : i32
  }
  return
}

// The body reads the running value besides combining it (a recurrence, not a reduction):
// left alone.
// CHECK-LABEL: func.func @reads_output
// CHECK: linalg.generic
// CHECK: (S) 5 kernels
func.func @reads_output(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %o, %a : f32
    %r = arith.addf %o, %s : f32
    linalg.yield %r : f32
  }
  return
}
