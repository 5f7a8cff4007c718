// sg-to-linalg on a host: a softmax over more than 1 MiB (64 KiB along an axis other than the
// last) runs block of rows by block of rows
// (strata_lower::softmax_blocks), each block at most 32 KiB of input with the axis whole, so
// its exponentials, written straight into the result's slice, stay in L1 for the sum and the
// products instead of five passes over the whole tensor from memory.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg{sections=true}))' | FileCheck %s --check-prefix=SECTIONS
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg{gpu=true}))' | FileCheck %s --check-prefix=GPU

// [4, 128, 1024] (2 MiB), rows of 4 KiB: the heads one by one, 8 rows a block. The loops
// carry the result and a maximum and a sum per row of the block, filled again per block.
// CHECK-LABEL: func.func @wide
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<4x128x1024xf32>
// CHECK: %[[MAX:.*]] = tensor.empty() : tensor<1x8xf32>
// CHECK: %[[SUM:.*]] = tensor.empty() : tensor<1x8xf32>
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %[[OUT]], %{{.*}} = %[[MAX]], %{{.*}} = %[[SUM]])
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A1:.*]] = %[[A0]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[%[[H]], %[[R]], 0] [1, 8, 1024] [1, 1, 1]
// CHECK: %[[Y:.*]] = tensor.extract_slice %[[A1]][%[[H]], %[[R]], 0] [1, 8, 1024] [1, 1, 1]
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x1024xf32>)
// CHECK: arith.mulf
// CHECK: tensor.insert_slice %[[P]] into %[[A1]][%[[H]], %[[R]], 0] [1, 8, 1024] [1, 1, 1]
// With threads the heads are the chunks of an scf.forall marked strata.sections, each with
// its own statistics.
// SECTIONS-LABEL: func.func @wide
// SECTIONS: scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<4x128x1024xf32>)
// SECTIONS: tensor.empty() : tensor<1x8xf32>
// SECTIONS: scf.for
// SECTIONS: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0, 0] [1, 128, 1024] [1, 1, 1]
// SECTIONS: } {strata.sections}
// On a GPU the softmax stays whole (blocks would be serial code).
// GPU-LABEL: func.func @wide
// GPU-NOT: scf.for
// GPU: math.exp
func.func @wide(%x: tensor<4x128x1024xf32>) -> tensor<4x128x1024xf32> {
  %0 = "sg.softmax"(%x) {axis = 2 : i64} : (tensor<4x128x1024xf32>) -> tensor<4x128x1024xf32>
  return %0 : tensor<4x128x1024xf32>
}

// Over scores nothing else reads (a product's own tensor), the result is written over them:
// the loops carry the scores, and each block is read from the carried tensor (the blocks not
// yet done still hold the scores), so bufferization needs no second 2 MiB buffer.
// CHECK-LABEL: func.func @over_scores
// CHECK: %[[S:.*]] = linalg.batch_matmul
// CHECK-NOT: tensor.empty() : tensor<4x128x1024xf32>
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %[[S]],
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A1:.*]] = %[[A0]],
// CHECK: %[[X:.*]] = tensor.extract_slice %[[A1]][%[[H]], %[[R]], 0] [1, 8, 1024] [1, 1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %[[A1]][%[[H]], %[[R]], 0] [1, 8, 1024] [1, 1, 1]
// SECTIONS-LABEL: func.func @over_scores
// SECTIONS: %[[S:.*]] = linalg.batch_matmul
// SECTIONS: scf.forall (%{{.*}}) in (4) shared_outs(%[[O:.*]] = %[[S]]) -> (tensor<4x128x1024xf32>)
// SECTIONS: %[[REGION:.*]] = tensor.extract_slice %[[O]]
// SECTIONS: scf.for {{.*}} iter_args(%{{.*}} = %[[REGION]],
func.func @over_scores(%q: tensor<4x128x64xf32>, %k: tensor<4x64x1024xf32>) -> tensor<4x128x1024xf32> {
  %s = "sg.matmul"(%q, %k) : (tensor<4x128x64xf32>, tensor<4x64x1024xf32>) -> tensor<4x128x1024xf32>
  %0 = "sg.softmax"(%s) {axis = 2 : i64} : (tensor<4x128x1024xf32>) -> tensor<4x128x1024xf32>
  return %0 : tensor<4x128x1024xf32>
}

// Scores read again after the softmax keep their buffer: the result gets its own.
// CHECK-LABEL: func.func @scores_kept
// CHECK: tensor.empty() : tensor<4x128x1024xf32>
// CHECK: scf.for
func.func @scores_kept(%q: tensor<4x128x64xf32>, %k: tensor<4x64x1024xf32>) -> (tensor<4x128x1024xf32>, tensor<4x128x1024xf32>) {
  %s = "sg.matmul"(%q, %k) : (tensor<4x128x64xf32>, tensor<4x64x1024xf32>) -> tensor<4x128x1024xf32>
  %0 = "sg.softmax"(%s) {axis = 2 : i64} : (tensor<4x128x1024xf32>) -> tensor<4x128x1024xf32>
  return %0, %s : tensor<4x128x1024xf32>, tensor<4x128x1024xf32>
}

// At most 1 MiB, whole: five generics, no loops.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.for
// CHECK: return
func.func @small(%x: tensor<4x64x1024xf32>) -> tensor<4x64x1024xf32> {
  %0 = "sg.softmax"(%x) {axis = 2 : i64} : (tensor<4x64x1024xf32>) -> tensor<4x64x1024xf32>
  return %0 : tensor<4x64x1024xf32>
}

// Over an axis other than the last (YOLOv8's box decoding: 16 bins of [1, 16, 4, 2100],
// 538 KB) from 64 KiB: the rows are strided and each pass walks the whole tensor. Blocks of
// the 16 bins by 420 positions (27 KB); with threads the 4 rows of positions are the chunks.
// CHECK-LABEL: func.func @bins
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract_slice %arg0[0, 0, %{{.*}}, %{{.*}}] [1, 16, 1, 420] [1, 1, 1, 1]
// CHECK: math.exp
// CHECK: tensor.insert_slice %{{.*}} [1, 16, 1, 420] [1, 1, 1, 1]
// SECTIONS-LABEL: func.func @bins
// SECTIONS: scf.forall (%{{.*}}) in (4) shared_outs
// SECTIONS: } {strata.sections}
func.func @bins(%x: tensor<1x16x4x2100xf32>) -> tensor<1x16x4x2100xf32> {
  %0 = "sg.softmax"(%x) {axis = 1 : i64} : (tensor<1x16x4x2100xf32>) -> tensor<1x16x4x2100xf32>
  return %0 : tensor<1x16x4x2100xf32>
}

// The same bins at 64 KiB or less stay whole.
// CHECK-LABEL: func.func @few_bins
// CHECK-NOT: scf.for
// CHECK: return
func.func @few_bins(%x: tensor<1x16x1x1024xf32>) -> tensor<1x16x1x1024xf32> {
  %0 = "sg.softmax"(%x) {axis = 1 : i64} : (tensor<1x16x1x1024xf32>) -> tensor<1x16x1x1024xf32>
  return %0 : tensor<1x16x1x1024xf32>
}
