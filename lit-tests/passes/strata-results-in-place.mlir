// strata-results-in-place: a result left in an allocation and copied into its out-param at
// the end (returned through a reshape, or a loop's state) is computed in the out-param
// instead, seen through the reshapes undone; the copy goes. Only where every use of the
// allocation comes before the copy and the out-param (an argument after the inputs named in
// strata.input_names) has no other use. The second run: the whole bufferization, from tensors.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-results-in-place))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize-only)' | FileCheck %s --check-prefix=BUF

// A batch product's [4, 8, 8] expanded to the graph's [1, 4, 8, 8]: written into the
// out-param collapsed.
// CHECK-LABEL: func.func @expanded
// CHECK-SAME: (%[[X:.*]]: memref<4x8x8xf32>, %[[OUT:.*]]: memref<1x4x8x8xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[IN:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1], [2], [3]] : memref<1x4x8x8xf32> into memref<4x8x8xf32>
// CHECK: linalg.fill {{.*}} outs(%[[IN]] : memref<4x8x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[IN]] : memref<4x8x8xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @expanded(%x: memref<4x8x8xf32>, %out: memref<1x4x8x8xf32>) attributes {strata.input_names = ["x"]} {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x8x8xf32>) outs(%a : memref<4x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  %e = memref.expand_shape %a [[0, 1], [2], [3]] output_shape [1, 4, 8, 8] : memref<4x8x8xf32> into memref<1x4x8x8xf32>
  memref.copy %e, %out : memref<1x4x8x8xf32> to memref<1x4x8x8xf32>
  return
}

// A pixel shuffle's [1, 1, 4, 3, 4, 3] collapsed to [1, 1, 12, 12]: written into the
// out-param expanded.
// CHECK-LABEL: func.func @collapsed
// CHECK-SAME: (%[[X:.*]]: memref<1x1x4x3x4x3xf32>, %[[OUT:.*]]: memref<1x1x12x12xf32>)
// CHECK: %[[IN:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 1, 4, 3, 4, 3] : memref<1x1x12x12xf32> into memref<1x1x4x3x4x3xf32>
// CHECK: memref.copy %[[X]], %[[IN]]
// CHECK-NOT: memref.copy
// CHECK: return
func.func @collapsed(%x: memref<1x1x4x3x4x3xf32>, %out: memref<1x1x12x12xf32>) attributes {strata.input_names = ["x"]} {
  %a = memref.alloc() {alignment = 64 : i64} : memref<1x1x4x3x4x3xf32>
  memref.copy %x, %a : memref<1x1x4x3x4x3xf32> to memref<1x1x4x3x4x3xf32>
  %c = memref.collapse_shape %a [[0], [1], [2, 3], [4, 5]] : memref<1x1x4x3x4x3xf32> into memref<1x1x12x12xf32>
  memref.copy %c, %out : memref<1x1x12x12xf32> to memref<1x1x12x12xf32>
  return
}

// A recurrence's state, written in its loop and copied out after: the loop writes the
// out-param.
// CHECK-LABEL: func.func @state
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill {{.*}} outs(%[[OUT]] : memref<16xf32>)
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<16xf32>) outs(%[[OUT]] : memref<16xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @state(%x: memref<16xf32>, %out: memref<16xf32>) attributes {strata.input_names = ["x"]} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%h : memref<16xf32>)
  scf.for %t = %c0 to %c4 step %c1 {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%x : memref<16xf32>) outs(%h : memref<16xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %acc, %v : f32
      linalg.yield %s : f32
    }
  }
  memref.copy %h, %out : memref<16xf32> to memref<16xf32>
  return
}

// Left alone: the allocation written after its copy (the out-param would see the later
// values), a copy into an input (not the function's to write), a copy from an input, and an
// out-param written twice (an allocation copied into it, then another value).
// CHECK-LABEL: func.func @left
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: memref.copy %[[A]], %arg2
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: memref.copy %[[B]], %arg1
// CHECK: memref.copy %arg0, %arg3
// CHECK: %[[C:.*]] = memref.alloc
// CHECK: memref.copy %[[C]], %arg4
// CHECK: return
func.func @left(%x: memref<16xf32>, %y: memref<16xf32>, %out: memref<16xf32>, %out2: memref<16xf32>, %out3: memref<16xf32>) attributes {strata.input_names = ["x", "y"]} {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<16xf32>)
  memref.copy %a, %out : memref<16xf32> to memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<16xf32>)
  %b = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<16xf32>)
  memref.copy %b, %y : memref<16xf32> to memref<16xf32>
  memref.copy %x, %out2 : memref<16xf32> to memref<16xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16xf32>)
  memref.copy %c, %out3 : memref<16xf32> to memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%out3 : memref<16xf32>)
  return
}

// CHECK-LABEL: Pass statistics report
// CHECK: strata-results-in-place
// CHECK: (S) 3 results

// From tensors: a batch product returned expanded is computed in the out-param.
// BUF-LABEL: func.func @from_tensors
// BUF-SAME: (%[[X:.*]]: memref<4x8x8xf32>, %[[OUT:.*]]: memref<1x4x8x8xf32>)
// BUF-NOT: memref.alloc
// BUF: %[[IN:.*]] = memref.collapse_shape %[[OUT]]
// BUF: linalg.generic {{.*}} outs(%[[IN]] : memref<4x8x8xf32>)
// BUF-NOT: memref.copy
// BUF: return
func.func @from_tensors(%x: tensor<4x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {strata.input_names = ["x"]} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x8x8xf32>) outs(%f : tensor<4x8x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8xf32>
  %x4 = tensor.expand_shape %r [[0, 1], [2], [3]] output_shape [1, 4, 8, 8] : tensor<4x8x8xf32> into tensor<1x4x8x8xf32>
  return %x4 : tensor<1x4x8x8xf32>
}
