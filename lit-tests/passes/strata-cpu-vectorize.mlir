// strata-cpu-vectorize applies crates/lower/schedules/cpu-vectorize.mlir to the matmuls that
// strata-cpu-schedule marked: cache tiles, 8 x 32 register blocks over single k steps,
// vectorised into outer products (8 FMAs on vector<32xf32> rows per k step) whose 8 x 32
// accumulator block is read before and written after the k loop. Unmarked matmuls are left
// alone.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-vectorize)' | FileCheck %s

// CHECK-LABEL: func.func @marked
// CHECK: scf.for %[[M:.*]] = %c0 to %c16 step %c8
// CHECK: scf.for %[[N:.*]] = %c0 to %c64 step %c32
// CHECK: %[[ACC:.*]] = vector.transfer_read %arg2[%[[M]], %[[N]]]{{.*}} : memref<16x64xf32>, vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.broadcast {{.*}} : f32 to vector<32xf32>
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write {{.*}}, %arg2[%[[M]], %[[N]]]{{.*}} : vector<8x32xf32>, memref<16x64xf32>
// CHECK-NOT: linalg.matmul
func.func @marked(%a: memref<16x48xf32>, %b: memref<48x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul {strata.loop_order = "vectorize"} ins(%a, %b : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// CHECK-LABEL: func.func @unmarked
// CHECK: linalg.matmul ins
// CHECK-NOT: transform.
func.func @unmarked(%a: memref<16x48xf32>, %b: memref<48x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x48xf32>, memref<48x64xf32>) outs(%c : memref<16x64xf32>)
  return
}
