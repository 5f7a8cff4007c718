// strata-order-insertions: a chain of insertions into disjoint static slices that the function
// returns (a model's output concatenation) inserts its parts in the order they are made, so
// that eliminate-empty-tensors can give each producer a slice of the output.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-order-insertions))' --mlir-pass-statistics 2>&1 | FileCheck %s
// Planned: the part made first is written straight into the caller's output buffer.
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize-and-plan)' | FileCheck %s --check-prefix=PLAN

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A detector's output, Concat(boxes, scores), the scores computed first and the boxes by a
// loop (a schedule's, on tensors), which eliminate-empty-tensors does not move the scores'
// kernel past: the first insertion now takes the scores (rows 2-9), the second the boxes (rows
// 0-1); the insertions stay where they were.
// CHECK-LABEL: func.func @output
// CHECK: %[[S:.*]] = linalg.generic
// CHECK: %[[B:.*]] = scf.for
// CHECK: %[[D:.*]] = tensor.empty() : tensor<1x10x64xf32>
// CHECK-NEXT: %[[I:.*]] = tensor.insert_slice %[[S]] into %[[D]][0, 2, 0] [1, 8, 64] [1, 1, 1]
// CHECK-NEXT: %[[O:.*]] = tensor.insert_slice %[[B]] into %[[I]][0, 0, 0] [1, 2, 64] [1, 1, 1]
// CHECK-NEXT: return %[[O]]
// PLAN-LABEL: func.func @output
// PLAN: %[[V:.*]] = memref.subview %arg2[0, 2, 0] [1, 8, 64] [1, 1, 1]
// PLAN: linalg.generic {{.*}} ins(%arg0 : memref<1x8x64xf32>) outs(%[[V]] :
// PLAN-NOT: memref.copy
// PLAN-NOT: linalg.copy
// PLAN: return
func.func @output(%x: tensor<1x8x64xf32>, %y: tensor<1x2x64xf32>) -> tensor<1x10x64xf32> attributes {strata.input_names = ["x", "y"], strata.output_names = ["o"]} {
  %e1 = tensor.empty() : tensor<1x8x64xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x64xf32>) outs(%e1 : tensor<1x8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e2 = tensor.empty() : tensor<1x2x64xf32>
  %b = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %e2) -> (tensor<1x2x64xf32>) {
    %row = tensor.extract_slice %y[0, %i, 0] [1, 1, 64] [1, 1, 1] : tensor<1x2x64xf32> to tensor<1x1x64xf32>
    %dst = tensor.extract_slice %acc[0, %i, 0] [1, 1, 64] [1, 1, 1] : tensor<1x2x64xf32> to tensor<1x1x64xf32>
    %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%row : tensor<1x1x64xf32>) outs(%dst : tensor<1x1x64xf32>) {
    ^bb0(%v: f32, %o: f32):
      %r = arith.addf %v, %v : f32
      linalg.yield %r : f32
    } -> tensor<1x1x64xf32>
    %next = tensor.insert_slice %twice into %acc[0, %i, 0] [1, 1, 64] [1, 1, 1] : tensor<1x1x64xf32> into tensor<1x2x64xf32>
    scf.yield %next : tensor<1x2x64xf32>
  }
  %d = tensor.empty() : tensor<1x10x64xf32>
  %i1 = tensor.insert_slice %b into %d[0, 0, 0] [1, 2, 64] [1, 1, 1] : tensor<1x2x64xf32> into tensor<1x10x64xf32>
  %i2 = tensor.insert_slice %s into %i1[0, 2, 0] [1, 8, 64] [1, 1, 1] : tensor<1x8x64xf32> into tensor<1x10x64xf32>
  return %i2 : tensor<1x10x64xf32>
}

// Left alone: a chain the function does not return (its destination is the arena's; the
// elimination and strata-choose-in-place decide it as made, strata-eliminate-reshaped-empties
// orders it afterwards), and a returned chain whose slices overlap (the order is its value).
// CHECK-LABEL: func.func @left_alone
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [1, 2, 64]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 2, 0] [1, 8, 64]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [1, 2, 64]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0] [1, 8, 64]
// CHECK: return
func.func @left_alone(%x: tensor<1x8x64xf32>, %y: tensor<1x2x64xf32>) -> (tensor<1x10x64xf32>, tensor<1x10x64xf32>) attributes {strata.input_names = ["x", "y"], strata.output_names = ["o", "p"]} {
  %e1 = tensor.empty() : tensor<1x8x64xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x64xf32>) outs(%e1 : tensor<1x8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<1x8x64xf32>
  %e2 = tensor.empty() : tensor<1x2x64xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<1x2x64xf32>) outs(%e2 : tensor<1x2x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<1x2x64xf32>
  %d = tensor.empty() : tensor<1x10x64xf32>
  %i1 = tensor.insert_slice %b into %d[0, 0, 0] [1, 2, 64] [1, 1, 1] : tensor<1x2x64xf32> into tensor<1x10x64xf32>
  %i2 = tensor.insert_slice %s into %i1[0, 2, 0] [1, 8, 64] [1, 1, 1] : tensor<1x8x64xf32> into tensor<1x10x64xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%i2 : tensor<1x10x64xf32>) outs(%d : tensor<1x10x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<1x10x64xf32>
  %f = tensor.empty() : tensor<1x10x64xf32>
  %j1 = tensor.insert_slice %b into %f[0, 0, 0] [1, 2, 64] [1, 1, 1] : tensor<1x2x64xf32> into tensor<1x10x64xf32>
  %j2 = tensor.insert_slice %s into %j1[0, 1, 0] [1, 8, 64] [1, 1, 1] : tensor<1x8x64xf32> into tensor<1x10x64xf32>
  return %n, %j2 : tensor<1x10x64xf32>, tensor<1x10x64xf32>
}

// CHECK-LABEL: Pass statistics report
// CHECK: (S) 1 reordered
