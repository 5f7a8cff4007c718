// strata-distinct-results: a tensor returned at several positions is copied for every
// position after the first, so bufferization gives each result its own out-param. Without
// it, buffer-results-to-out-params (hoisting the returned allocation) crashes on the second.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-distinct-results))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize)' | FileCheck %s --check-prefix=BUF

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @twice
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[R]]) : tensor<4xf32>
// CHECK-NEXT: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[R]]) : tensor<4xf32>
// CHECK-NEXT: return %[[R]], %[[C1]], %arg0, %[[C2]] :
// Bufferized: three out-params, the result written into the first and copied into the others.
// BUF-LABEL: func.func @twice
// BUF-SAME: (%[[X:.*]]: memref<4xf32>, %[[O1:.*]]: memref<4xf32>, %[[O2:.*]]: memref<4xf32>, %[[O3:.*]]: memref<4xf32>, %[[O4:.*]]: memref<4xf32>)
// BUF: linalg.generic {{.*}} outs(%[[O1]] : memref<4xf32>)
// BUF-DAG: memref.copy %[[O1]], %[[O2]]
// BUF-DAG: memref.copy %[[X]], %[[O3]]
// BUF-DAG: memref.copy %[[O1]], %[[O4]]
// BUF: return
func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r, %r, %x, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Distinct results are left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: alloc_tensor
// CHECK: return %arg0, %arg1
func.func @distinct(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}

// CHECK: strata-distinct-results
// CHECK-NEXT: (S) 2 copies - return operands replaced by a copy
