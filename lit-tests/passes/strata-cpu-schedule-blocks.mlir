// strata-cpu-schedule runs an f32 matmul with 8 to 64 rows (more where its left operand is at
// most 512 KiB) and a compile-time constant weight of at least 1 MiB one block of 32 columns at a time, every row of a block before the next
// block: an scf.for over the whole blocks (with threads, an scf.forall), stepped by 32 so that
// strata-pack-weights can store the weight block by block, and the columns left one matmul
// after it. Inside each block the usual row split applies (16 rows register-blocked, 4 left).
// A product that starts from a fill of a new tensor fills each block's slice of a new result,
// each part of a block (the register-blocked rows, the rows left) its own slice just before
// its product.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 threads=1})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 threads=2})' | FileCheck %s --check-prefix=TWO

// CHECK-LABEL: func.func @head
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<256x1040xf32>
// CHECK: %[[R:.*]] = tensor.empty() : tensor<20x1040xf32>
// CHECK: %[[LOOP:.*]] = scf.for %[[J:.*]] = %c0 to %c1024 step %c32 iter_args(%[[ACC:.*]] = %[[R]])
// CHECK: %[[B:.*]] = tensor.extract_slice %[[W]][0, %[[J]]] [256, 32] [1, 1]
// CHECK: %[[S:.*]] = tensor.extract_slice %[[ACC]][0, %[[J]]] [20, 32] [1, 1]
// CHECK: %[[P:.*]] = tensor.extract_slice %[[S]][0, 0] [16, 32] [1, 1]
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : tensor<16x32xf32>)
// CHECK-NEXT: linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %[[B]] : tensor<16x256xf32>, tensor<256x32xf32>) outs(%[[F]]
// CHECK: %[[G:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %[[B]] : tensor<4x256xf32>, tensor<256x32xf32>) outs(%[[G]]
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][0, %[[J]]] [20, 32] [1, 1]
// CHECK: scf.yield
// CHECK: %[[T:.*]] = tensor.extract_slice %[[W]][0, 1024] [256, 16] [1, 1]
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] : tensor<16x256xf32>, tensor<256x16xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] : tensor<4x256xf32>, tensor<256x16xf32>)
// CHECK: %[[OUT:.*]] = tensor.insert_slice %{{.*}} into %[[LOOP]][0, 1024] [20, 16] [1, 1]
// CHECK: return %[[OUT]]
// TWO-LABEL: func.func @head
// TWO: scf.forall (%[[J:.*]]) = (0) to (1024) step (32) shared_outs(%[[ACC:.*]] = %{{.*}}) -> (tensor<20x1040xf32>)
// TWO: linalg.matmul {strata.batch_item, strata.loop_order = "vectorize"} ins(%{{.*}}, %{{.*}} : tensor<16x256xf32>, tensor<256x32xf32>)
// TWO: linalg.matmul {strata.batch_item} ins(%{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<256x32xf32>)
// TWO: scf.forall.in_parallel
// TWO-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[ACC]][0, %[[J]]] [20, 32] [1, 1]
// TWO: tensor<256x16xf32>
func.func @head(%a: tensor<20x256xf32>) -> tensor<20x1040xf32> {
  %w = arith.constant dense<0.5> : tensor<256x1040xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x1040xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<20x1040xf32>) -> tensor<20x1040xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<20x256xf32>, tensor<256x1040xf32>) outs(%c : tensor<20x1040xf32>) -> tensor<20x1040xf32>
  return %0 : tensor<20x1040xf32>
}

// Blocks are slices of the result passed in when the product accumulates into a value.
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for %[[J:.*]] = %c0 to %c1024 step %c32 iter_args(%[[ACC:.*]] = %arg1)
// CHECK: %[[D:.*]] = tensor.extract_slice %[[ACC]][0, %[[J]]] [16, 32] [1, 1]
// CHECK-NOT: linalg.fill
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%arg0, %{{.*}} : tensor<16x256xf32>, tensor<256x32xf32>) outs(%[[D]] : tensor<16x32xf32>)
// CHECK: scf.yield
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @accumulate(%a: tensor<16x256xf32>, %c: tensor<16x1024xf32>) -> tensor<16x1024xf32> {
  %w = arith.constant dense<0.5> : tensor<256x1024xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<16x256xf32>, tensor<256x1024xf32>) outs(%c : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  return %0 : tensor<16x1024xf32>
}

// Stay whole: a weight under 1 MiB (it stays in the L2 between row blocks), a weight that is
// no constant, more than 64 rows (one cache tile of rows) whose left operand is over 512 KiB
// (every block reads all of it), fewer than 8 (the one-row kernels stream the weight in memory
// order already).
// CHECK-LABEL: func.func @whole
// CHECK-NOT: scf.for
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%arg0, %{{.*}} : tensor<16x256xf32>, tensor<256x512xf32>)
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%arg0, %arg2 : tensor<16x256xf32>, tensor<256x2048xf32>)
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%arg3, %{{.*}} : tensor<640x256xf32>, tensor<256x1024xf32>)
// CHECK: linalg.matmul ins(%arg4, %{{.*}} : tensor<4x256xf32>, tensor<256x1024xf32>)
// CHECK-NOT: scf.for
// CHECK: return
func.func @whole(%a: tensor<16x256xf32>, %c: tensor<16x512xf32>, %b: tensor<256x2048xf32>, %d: tensor<640x256xf32>, %e: tensor<4x256xf32>)
    -> (tensor<16x512xf32>, tensor<16x2048xf32>, tensor<640x1024xf32>, tensor<4x1024xf32>) {
  %small = arith.constant dense<0.5> : tensor<256x512xf32>
  %big = arith.constant dense<0.25> : tensor<256x1024xf32>
  %z = arith.constant 0.0 : f32
  %0 = linalg.matmul ins(%a, %small : tensor<16x256xf32>, tensor<256x512xf32>) outs(%c : tensor<16x512xf32>) -> tensor<16x512xf32>
  %e1 = tensor.empty() : tensor<16x2048xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x2048xf32>) -> tensor<16x2048xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<16x256xf32>, tensor<256x2048xf32>) outs(%f1 : tensor<16x2048xf32>) -> tensor<16x2048xf32>
  %e2 = tensor.empty() : tensor<640x1024xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<640x1024xf32>) -> tensor<640x1024xf32>
  %2 = linalg.matmul ins(%d, %big : tensor<640x256xf32>, tensor<256x1024xf32>) outs(%f2 : tensor<640x1024xf32>) -> tensor<640x1024xf32>
  %e3 = tensor.empty() : tensor<4x1024xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<4x1024xf32>) -> tensor<4x1024xf32>
  %3 = linalg.matmul ins(%e, %big : tensor<4x256xf32>, tensor<256x1024xf32>) outs(%f3 : tensor<4x1024xf32>) -> tensor<4x1024xf32>
  return %0, %1, %2, %3 : tensor<16x512xf32>, tensor<16x2048xf32>, tensor<640x1024xf32>, tensor<4x1024xf32>
}

// A text encoder's projection: 77 rows, more than a cache tile, but its left operand (154 KiB)
// stays in the L2 while every block reads it; the weight is 4 MiB. Each block: 72 rows
// register-blocked, 5 left.
// CHECK-LABEL: func.func @projection
// CHECK: scf.for %{{.*}} = %c0 to %c2048 step %c32
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %{{.*}} : tensor<72x512xf32>, tensor<512x32xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<5x512xf32>, tensor<512x32xf32>)
func.func @projection(%a: tensor<77x512xf32>) -> tensor<77x2048xf32> {
  %w = arith.constant dense<0.125> : tensor<512x2048xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<77x2048xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<77x2048xf32>) -> tensor<77x2048xf32>
  %r = linalg.matmul ins(%a, %w : tensor<77x512xf32>, tensor<512x2048xf32>) outs(%f : tensor<77x2048xf32>) -> tensor<77x2048xf32>
  return %r : tensor<77x2048xf32>
}
