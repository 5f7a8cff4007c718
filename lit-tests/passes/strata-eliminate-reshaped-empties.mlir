// strata-eliminate-reshaped-empties: a producer whose result is collapsed and then inserted
// (a ConvTranspose k2 s2's or a DepthToSpace's pixel shuffle into a concatenation) writes into
// the insertion's slice, expanded back, as eliminate-empty-tensors does for values inserted as
// they are; the ops that make the destination move up to the producer's tensor.empty.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-pad-in-place),eliminate-empty-tensors,func.func(strata-eliminate-reshaped-empties))' --mlir-pass-statistics 2>&1 | FileCheck %s
// Planned: the U-Net decoder's last stage in miniature, with and without values in place
// (strata-bufferize-and-plan runs the pass between the elimination and strata-choose-in-place).
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize-and-plan)' | FileCheck %s --check-prefix=PLAN
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize-and-plan{pads-in-place=false})' | FileCheck %s --check-prefix=COPIES

// The skip %k and the shuffled %up are concatenated and padded. The transpose writes into the
// padded buffer's interior through an expansion of its channel slice; the fill and the skip's
// insertion that make the destination move above the transpose's tensor.empty.
// CHECK-LABEL: func.func @shuffle
// CHECK: %[[U:.*]] = linalg.exp ins(%arg2
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2, 3, 4, 5]]
// CHECK: %[[P:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x18x18xf32>)
// CHECK-NEXT: %[[I:.*]] = tensor.extract_slice %[[P]][0, 0, 1, 1] [1, 8, 16, 16]
// CHECK-NEXT: %[[C:.*]] = tensor.insert_slice %{{.*}} into %[[I]][0, 0, 0, 0] [1, 4, 16, 16]
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[C]][0, 4, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x8x16x16xf32> to tensor<1x4x16x16xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[S]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 8, 2, 8, 2]
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%[[SPLIT]] : tensor<2x2x4x8x8x1xf32>) outs(%[[E]] : tensor<1x4x8x2x8x2xf32>)
// CHECK-NEXT: %[[UP:.*]] = tensor.collapse_shape %[[T]]
// CHECK-NEXT: tensor.insert_slice %[[UP]] into %[[C]][0, 4, 0, 0]
// The transpose writes the padded buffer; the skip's copy runs before %u is made, so only the
// padded buffer and %u are live there (14464 bytes against 18560 with copies).
// PLAN-LABEL: func.func @shuffle
// PLAN-SAME: strata.arena_bytes = 14464
// PLAN: linalg.transpose ins(%{{.*}} : memref<2x2x4x8x8x1xf32>) outs(%{{.*}} : memref<1x4x8x2x8x2xf32, strided<[2592, 324, 36, 18, 2, 1], offset: 1315>>)
// COPIES-LABEL: func.func @shuffle
// COPIES-SAME: strata.arena_bytes = 18560
func.func @shuffle(%x: tensor<1x4x16x16xf32>, %z: tensor<1x8x16x16xf32>, %y: tensor<1x16x8x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4x16x16xf32>
  %k = linalg.exp ins(%x : tensor<1x4x16x16xf32>) outs(%e0 : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %e1 = tensor.empty() : tensor<1x8x16x16xf32>
  %big = linalg.exp ins(%z : tensor<1x8x16x16xf32>) outs(%e1 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %e2 = tensor.empty() : tensor<1x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %bs = linalg.reduce ins(%big : tensor<1x8x16x16xf32>) outs(%f2 : tensor<1x8xf32>) dimensions = [2, 3]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %e3 = tensor.empty() : tensor<1x16x8x8xf32>
  %u = linalg.exp ins(%y : tensor<1x16x8x8xf32>) outs(%e3 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %flat = tensor.collapse_shape %u [[0, 1, 2, 3]] : tensor<1x16x8x8xf32> into tensor<1024xf32>
  %split = tensor.expand_shape %flat [[0, 1, 2, 3, 4, 5]] output_shape [2, 2, 4, 8, 8, 1] : tensor<1024xf32> into tensor<2x2x4x8x8x1xf32>
  %e4 = tensor.empty() : tensor<1x4x8x2x8x2xf32>
  %t = linalg.transpose ins(%split : tensor<2x2x4x8x8x1xf32>) outs(%e4 : tensor<1x4x8x2x8x2xf32>) permutation = [5, 2, 3, 0, 4, 1]
  %up = tensor.collapse_shape %t [[0], [1], [2, 3], [4, 5]] : tensor<1x4x8x2x8x2xf32> into tensor<1x4x16x16xf32>
  %e5 = tensor.empty() : tensor<1x8x16x16xf32>
  %c0 = tensor.insert_slice %k into %e5[0, 0, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  %cat = tensor.insert_slice %up into %c0[0, 4, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %e6 = tensor.empty() : tensor<1x8xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %r = linalg.reduce ins(%p : tensor<1x8x18x18xf32>) outs(%f6 : tensor<1x8xf32>) dimensions = [2, 3]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r, %bs : tensor<1x8xf32>, tensor<1x8xf32>
}

// The transposed value is read beside its insertion (here returned): it keeps its buffer.
// CHECK-LABEL: func.func @other_reader
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x8x2x8x2xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x2x4x8x8x1xf32>) outs(%[[E]] :
func.func @other_reader(%y: tensor<2x2x4x8x8x1xf32>, %k: tensor<1x4x16x16xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x4x8x2x8x2xf32>) {
  %e4 = tensor.empty() : tensor<1x4x8x2x8x2xf32>
  %t = linalg.transpose ins(%y : tensor<2x2x4x8x8x1xf32>) outs(%e4 : tensor<1x4x8x2x8x2xf32>) permutation = [5, 2, 3, 0, 4, 1]
  %up = tensor.collapse_shape %t [[0], [1], [2, 3], [4, 5]] : tensor<1x4x8x2x8x2xf32> into tensor<1x4x16x16xf32>
  %e5 = tensor.empty() : tensor<1x8x16x16xf32>
  %c0 = tensor.insert_slice %k into %e5[0, 0, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  %cat = tensor.insert_slice %up into %c0[0, 4, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  return %cat, %t : tensor<1x8x16x16xf32>, tensor<1x4x8x2x8x2xf32>
}

// An interleaving concatenation (a linear Resize's phases along its last axis): each part
// expanded by a unit dimension and inserted into a new tensor, collapsed, and inserted after a
// head computed later. The outer chain first takes its values in the order they are made (the
// concatenation, then the head); then, last insertion first, the concatenation's new tensor
// becomes a slice of the 4 x 17 tensor, and each part, expanded, writes its strided slice of
// that, the expansion undone by a collapse. Planned, the parts write the result's buffer with
// no copy (their insertions' copies onto themselves erased by strata-erase-self-copies): 288
// bytes against 528. The head, placed by eliminate-empty-tensors before the reordering moved
// its insertion, is copied.
// CHECK-LABEL: func.func @interleave
// CHECK: %[[R:.*]] = tensor.empty() : tensor<4x17xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[R]][0, 1] [4, 16] [1, 1] : tensor<4x17xf32> to tensor<4x16xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.expand_shape %[[S]] {{\[}}[0], [1, 2]] output_shape [4, 8, 2] : tensor<4x16xf32> into tensor<4x8x2xf32>
// CHECK-NEXT: %[[P0:.*]] = tensor.extract_slice %[[C]][0, 0, 0] [4, 8, 1] [1, 1, 1] : tensor<4x8x2xf32> to tensor<4x8x1xf32>
// CHECK-NEXT: %[[D0:.*]] = tensor.collapse_shape %[[P0]] {{\[}}[0], [1, 2]] : tensor<4x8x1xf32> into tensor<4x8xf32>
// CHECK-NEXT: linalg.exp ins(%arg0 : tensor<4x8xf32>) outs(%[[D0]] : tensor<4x8xf32>)
// CHECK: %[[P1:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1] [4, 8, 1] [1, 1, 1] : tensor<4x8x2xf32> to tensor<4x8x1xf32>
// CHECK-NEXT: %[[D1:.*]] = tensor.collapse_shape %[[P1]] {{\[}}[0], [1, 2]] : tensor<4x8x1xf32> into tensor<4x8xf32>
// CHECK-NEXT: linalg.exp ins(%arg1 : tensor<4x8xf32>) outs(%[[D1]] : tensor<4x8xf32>)
// CHECK-NOT: tensor.empty() : tensor<4x8x2xf32>
// CHECK: %[[J:.*]] = tensor.insert_slice %{{.*}} into %[[R]][0, 1] [4, 16] [1, 1]
// CHECK-NEXT: tensor.insert_slice %{{.*}} into %[[J]][0, 0] [4, 1] [1, 1]
// PLAN-LABEL: func.func @interleave
// PLAN-SAME: strata.arena_bytes = 288
// PLAN: linalg.exp ins(%arg0 : memref<4x8xf32>) outs(%{{.*}} : memref<4x8xf32, strided<[17, 2], offset: 1>>)
// PLAN-NOT: linalg.copy
// PLAN: linalg.exp ins(%arg1 : memref<4x8xf32>) outs(%{{.*}} : memref<4x8xf32, strided<[17, 2], offset: 2>>)
// PLAN-NOT: linalg.copy
// PLAN: linalg.exp ins(%arg2
// COPIES-LABEL: func.func @interleave
func.func @interleave(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %h: tensor<4x1xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.exp ins(%y : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %ae = tensor.expand_shape %a [[0], [1, 2]] output_shape [4, 8, 1] : tensor<4x8xf32> into tensor<4x8x1xf32>
  %be = tensor.expand_shape %b [[0], [1, 2]] output_shape [4, 8, 1] : tensor<4x8xf32> into tensor<4x8x1xf32>
  %e2 = tensor.empty() : tensor<4x8x2xf32>
  %i0 = tensor.insert_slice %ae into %e2[0, 0, 0] [4, 8, 1] [1, 1, 1] : tensor<4x8x1xf32> into tensor<4x8x2xf32>
  %i1 = tensor.insert_slice %be into %i0[0, 0, 1] [4, 8, 1] [1, 1, 1] : tensor<4x8x1xf32> into tensor<4x8x2xf32>
  %ab = tensor.collapse_shape %i1 [[0], [1, 2]] : tensor<4x8x2xf32> into tensor<4x16xf32>
  %e3 = tensor.empty() : tensor<4x1xf32>
  %hh = linalg.exp ins(%h : tensor<4x1xf32>) outs(%e3 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %e4 = tensor.empty() : tensor<4x17xf32>
  %j0 = tensor.insert_slice %hh into %e4[0, 0] [4, 1] [1, 1] : tensor<4x1xf32> into tensor<4x17xf32>
  %j1 = tensor.insert_slice %ab into %j0[0, 1] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<4x17xf32>
  %e5 = tensor.empty() : tensor<4xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%j1 : tensor<4x17xf32>) outs(%f5 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// The destination needs a value computed after the transpose's tensor.empty (%k): no work is
// moved; the slice is taken of the tensor %k is inserted into (the same positions), and the
// transpose writes there as %k does.
// CHECK-LABEL: func.func @needs_work
// CHECK: %[[R:.*]] = tensor.empty() : tensor<1x8x16x16xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[R]][0, 4, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1]
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[S]]
// CHECK-NEXT: linalg.transpose ins(%{{.*}} : tensor<2x2x4x8x8x1xf32>) outs(%[[E]] :
// CHECK: (S) 5 eliminated
// CHECK: (S) {{[0-9]+}} moved
// CHECK: (S) 2 reordered
func.func @needs_work(%y: tensor<2x2x4x8x8x1xf32>, %x: tensor<1x4x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %e4 = tensor.empty() : tensor<1x4x8x2x8x2xf32>
  %t = linalg.transpose ins(%y : tensor<2x2x4x8x8x1xf32>) outs(%e4 : tensor<1x4x8x2x8x2xf32>) permutation = [5, 2, 3, 0, 4, 1]
  %up = tensor.collapse_shape %t [[0], [1], [2, 3], [4, 5]] : tensor<1x4x8x2x8x2xf32> into tensor<1x4x16x16xf32>
  %e0 = tensor.empty() : tensor<1x4x16x16xf32>
  %k = linalg.exp ins(%x : tensor<1x4x16x16xf32>) outs(%e0 : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %e5 = tensor.empty() : tensor<1x8x16x16xf32>
  %c0 = tensor.insert_slice %k into %e5[0, 0, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  %cat = tensor.insert_slice %up into %c0[0, 4, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  return %cat : tensor<1x8x16x16xf32>
}
