// strata-cpu-schedule splits an f32 matmul whose shape the register-blocked schedule does not
// take whole (rows a multiple of 8, columns of 32) into the largest part it takes, marked
// `vectorize`, and the rows or columns left, which stay named matmuls for
// strata-vectorize-matmul: rows, or columns (rows a multiple of 8), or both at once in three
// parts. Every part writes a slice of the one result, each destination the previous insertion.
// Fewer than 4 columns past a multiple of 32, or at most 8 rows, stay whole. With threads, a
// product big enough to run in parallel is first one slice per thread (an scf.forall, each
// slice a batch item, split as above inside it): of rows where each thread's share is whole
// blocks of 8 rows and the rows are at least as many as the columns, else of columns; one
// thread has no scf.forall.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 threads=2})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 threads=1})' | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @rows
// CHECK: %[[A0:.*]] = tensor.extract_slice %arg0[0, 0] [64, 16] [1, 1]
// CHECK: %[[C0:.*]] = tensor.extract_slice %arg2[0, 0] [64, 64] [1, 1]
// CHECK: %[[P0:.*]] = linalg.matmul {strata.loop_order = "vectorize"} ins(%[[A0]], %arg1 : tensor<64x16xf32>, tensor<16x64xf32>) outs(%[[C0]] : tensor<64x64xf32>)
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[P0]] into %arg2[0, 0] [64, 64] [1, 1]
// CHECK: %[[A1:.*]] = tensor.extract_slice %arg0[64, 0] [1, 16] [1, 1]
// CHECK: %[[C1:.*]] = tensor.extract_slice %[[I0]][64, 0] [1, 64] [1, 1]
// CHECK: %[[P1:.*]] = linalg.matmul ins(%[[A1]], %arg1 : tensor<1x16xf32>, tensor<16x64xf32>) outs(%[[C1]] : tensor<1x64xf32>)
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[P1]] into %[[I0]][64, 0] [1, 64] [1, 1]
// CHECK: return %[[I1]]
func.func @rows(%a: tensor<65x16xf32>, %b: tensor<16x64xf32>, %c: tensor<65x64xf32>) -> tensor<65x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<65x16xf32>, tensor<16x64xf32>) outs(%c : tensor<65x64xf32>) -> tensor<65x64xf32>
  return %0 : tensor<65x64xf32>
}

// 20 x 40: rows 16 + 4 and the 16 rows' columns 32 + 8, three parts at once.
// CHECK-LABEL: func.func @both
// CHECK: tensor.extract_slice %arg1[0, 0] [16, 32] [1, 1] : tensor<16x40xf32> to tensor<16x32xf32>
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x32xf32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: tensor.extract_slice %arg1[0, 32] [16, 8] [1, 1] : tensor<16x40xf32> to tensor<16x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<4x16xf32>, tensor<16x40xf32>) outs(%{{.*}} : tensor<4x40xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @both(%a: tensor<20x16xf32>, %b: tensor<16x40xf32>, %c: tensor<20x40xf32>) -> tensor<20x40xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<20x16xf32>, tensor<16x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  return %0 : tensor<20x40xf32>
}

// A product from a fill of a new tensor (as every lowered product starts): each part fills a
// new tensor of its own, inserted into one new result (no result of the first rows' own to
// nest in it: eliminate-empty-tensors left a stale slice of such a one, and the register-
// blocked part got a buffer of its own and a copy).
// CHECK-LABEL: func.func @both_filled
// CHECK-COUNT-1: tensor.empty() : tensor<20x40xf32>
// CHECK-NOT: tensor.empty() : tensor<16x40xf32>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<16x32xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<16x8xf32>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x40xf32>
// CHECK: return
func.func @both_filled(%a: tensor<20x16xf32>, %b: tensor<16x40xf32>) -> tensor<20x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<20x40xf32>) -> tensor<20x40xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<20x16xf32>, tensor<16x40xf32>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  return %0 : tensor<20x40xf32>
}

// CHECK-LABEL: func.func @whole
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x33xf32>)
// CHECK: linalg.matmul ins(%arg3, %arg4 : tensor<6x16xf32>, tensor<16x64xf32>)
func.func @whole(%a: tensor<8x16xf32>, %b: tensor<16x33xf32>, %c: tensor<8x33xf32>, %d: tensor<6x16xf32>, %e: tensor<16x64xf32>, %f: tensor<6x64xf32>) -> (tensor<8x33xf32>, tensor<6x64xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x33xf32>) outs(%c : tensor<8x33xf32>) -> tensor<8x33xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<6x16xf32>, tensor<16x64xf32>) outs(%f : tensor<6x64xf32>) -> tensor<6x64xf32>
  return %0, %1 : tensor<8x33xf32>, tensor<6x64xf32>
}

// A vision transformer's 65 tokens by 192 channels (2.4M multiply-adds): two column slices of
// 96, each 64 rows register-blocked and one row left, on the thread that read its slice of %b.
// CHECK-LABEL: func.func @threads
// CHECK: %[[R:.*]] = scf.forall (%[[T:.*]]) in (2) shared_outs(%[[ACC:.*]] = %arg2) -> (tensor<65x192xf32>)
// CHECK: %[[O:.*]] = arith.muli %[[T]], %c96
// CHECK: %[[B:.*]] = tensor.extract_slice %arg1[0, %[[O]]] [192, 96] [1, 1]
// CHECK: %[[C:.*]] = tensor.extract_slice %[[ACC]][0, %[[O]]] [65, 96] [1, 1]
// CHECK: linalg.matmul {strata.batch_item, strata.loop_order = "vectorize"} ins(%{{.*}}, %[[B]] : tensor<64x192xf32>, tensor<192x96xf32>)
// CHECK: linalg.matmul {strata.batch_item} ins(%{{.*}}, %[[B]] : tensor<1x192xf32>, tensor<192x96xf32>)
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[ACC]][0, %[[O]]] [65, 96] [1, 1]
// ONE-LABEL: func.func @threads
// ONE-NOT: scf.forall
// ONE: linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %arg1 : tensor<64x192xf32>, tensor<192x192xf32>)
// ONE: linalg.matmul ins(%{{.*}}, %arg1 : tensor<1x192xf32>, tensor<192x192xf32>)
// ONE-NOT: scf.forall
func.func @threads(%a: tensor<65x192xf32>, %b: tensor<192x192xf32>, %c: tensor<65x192xf32>) -> tensor<65x192xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<65x192xf32>, tensor<192x192xf32>) outs(%c : tensor<65x192xf32>) -> tensor<65x192xf32>
  return %0 : tensor<65x192xf32>
}

// The same from a fill of a new tensor: each thread fills its own column slice before its
// product (filled whole first, half of each thread's slice was the other core's lines), and
// within it each part (64 register-blocked rows, the row left) its own slice, just before
// the part's product.
// CHECK-LABEL: func.func @threads_filled
// CHECK: %[[E:.*]] = tensor.empty() : tensor<65x192xf32>
// CHECK: scf.forall (%[[T:.*]]) in (2) shared_outs(%[[ACC:.*]] = %[[E]]) -> (tensor<65x192xf32>)
// CHECK: %[[O:.*]] = arith.muli %[[T]], %c96
// CHECK: %[[S:.*]] = tensor.extract_slice %[[ACC]][0, %[[O]]] [65, 96] [1, 1]
// CHECK: %[[P:.*]] = tensor.extract_slice %[[S]][0, 0] [64, 96] [1, 1]
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : tensor<64x96xf32>)
// CHECK-NEXT: linalg.matmul {strata.batch_item, strata.loop_order = "vectorize"} ins({{.*}}) outs(%[[F]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x96xf32>)
// CHECK-NEXT: linalg.matmul {strata.batch_item} ins
// CHECK: scf.forall.in_parallel
func.func @threads_filled(%a: tensor<65x192xf32>, %b: tensor<192x192xf32>) -> tensor<65x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<65x192xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<65x192xf32>) -> tensor<65x192xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<65x192xf32>, tensor<192x192xf32>) outs(%c : tensor<65x192xf32>) -> tensor<65x192xf32>
  return %0 : tensor<65x192xf32>
}

// ConvNeXt's 1024 x 160 x 40 projection (a quarter of it here): one slice of rows per
// thread, all 40 columns (32 register-blocked and 8 left, inside the slice); by columns, each
// thread's 20 were a full vector and a quarter-full one a row.
// CHECK-LABEL: func.func @thread_rows
// CHECK: scf.forall (%[[T:.*]]) in (2) shared_outs(%[[ACC:.*]] = %arg2) -> (tensor<256x40xf32>)
// CHECK: %[[O:.*]] = arith.muli %[[T]], %c128
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[%[[O]], 0] [128, 160] [1, 1]
// CHECK: %[[C:.*]] = tensor.extract_slice %[[ACC]][%[[O]], 0] [128, 40] [1, 1]
// CHECK: linalg.matmul {strata.batch_item, strata.loop_order = "vectorize"} ins(%[[A]], %{{.*}} : tensor<128x160xf32>, tensor<160x32xf32>)
// CHECK: linalg.matmul {strata.batch_item} ins(%[[A]], %{{.*}} : tensor<128x160xf32>, tensor<160x8xf32>)
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[ACC]][%[[O]], 0] [128, 40] [1, 1]
func.func @thread_rows(%a: tensor<256x160xf32>, %b: tensor<160x40xf32>, %c: tensor<256x40xf32>) -> tensor<256x40xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x160xf32>, tensor<160x40xf32>) outs(%c : tensor<256x40xf32>) -> tensor<256x40xf32>
  return %0 : tensor<256x40xf32>
}

// A product inside a loop (a batch's heads, one after the other) is not split by threads: the
// later passes take a batch item as a kernel only in an scf.forall of the function itself.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %arg1 : tensor<64x192xf32>, tensor<192x192xf32>)
// CHECK-NOT: scf.forall
// CHECK: return
func.func @nested(%a: tensor<65x192xf32>, %b: tensor<192x192xf32>, %c: tensor<65x192xf32>) -> tensor<65x192xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %c) -> (tensor<65x192xf32>) {
    %0 = linalg.matmul ins(%a, %b : tensor<65x192xf32>, tensor<192x192xf32>) outs(%acc : tensor<65x192xf32>) -> tensor<65x192xf32>
    scf.yield %0 : tensor<65x192xf32>
  }
  return %r : tensor<65x192xf32>
}

// A product that starts from a fill of a new tensor (as the lowering starts every one): each
// part fills a new tensor of its own, inserted into a new result (bufferization then writes
// the parts in place), not slices of the one fill, which CSE shares between products of a
// shape (a slice of it is a read, and bufferization copied the fill for each product).
// CHECK-LABEL: func.func @filled
// CHECK: %[[R:.*]] = tensor.empty() : tensor<65x64xf32>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<64x64xf32>
// CHECK: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<64x64xf32>)
// CHECK: %[[P0:.*]] = linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %arg1 : tensor<64x16xf32>, tensor<16x64xf32>) outs(%[[F0]] : tensor<64x64xf32>)
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[P0]] into %[[R]][0, 0] [64, 64] [1, 1]
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<1x64xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<1x64xf32>)
// CHECK: %[[P1:.*]] = linalg.matmul ins(%{{.*}}, %arg1 : tensor<1x16xf32>, tensor<16x64xf32>) outs(%[[F1]] : tensor<1x64xf32>)
// CHECK: tensor.insert_slice %[[P1]] into %[[I0]][64, 0] [1, 64] [1, 1]
// CHECK-NOT: tensor<65x64xf32>) -> tensor<65x64xf32>
// CHECK: return
func.func @filled(%a: tensor<65x16xf32>, %b: tensor<16x64xf32>) -> tensor<65x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<65x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<65x64xf32>) -> tensor<65x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<65x16xf32>, tensor<16x64xf32>) outs(%c : tensor<65x64xf32>) -> tensor<65x64xf32>
  return %0 : tensor<65x64xf32>
}

// A product started from a scalar broadcast down its rows and columns (a rank-0 bias; the
// start a part refills is a vector's broadcast down the rows) is split like any other.
// CHECK-LABEL: func.func @scalar_start
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %arg1 : tensor<64x16xf32>, tensor<16x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<1x16xf32>, tensor<16x64xf32>)
func.func @scalar_start(%a: tensor<65x16xf32>, %b: tensor<16x64xf32>, %s: tensor<f32>) -> tensor<65x64xf32> {
  %e = tensor.empty() : tensor<65x64xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<f32>) outs(%e : tensor<65x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<65x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<65x16xf32>, tensor<16x64xf32>) outs(%init : tensor<65x64xf32>) -> tensor<65x64xf32>
  return %0 : tensor<65x64xf32>
}
