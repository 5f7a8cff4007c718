// `ai.onnx.preview::FlexAttention` as its function body defines it: the two key/value heads
// repeated for the four query heads, Q and K each scaled by the root of 1/sqrt(8) before
// their product, the `score_mod` graph (a relative-position bias, its initializer a constant)
// and the `prob_mod` graph (a scale) imported inline around the softmax over the keys, then
// the product with V. The run matches numpy's f64 reference; a modifier that changes its
// input's shape is refused, naming the node and the graph attribute, and so are inputs that
// are not 4-D, query heads that are no multiple of the key/value heads, and the operator at
// an `ai.onnx.preview` opset onnx 1.23 does not define (it could mean something else there).
// RUN: strata compile %S/inputs/flex_attention.onnx --emit=sg | FileCheck %s
// RUN: strata run %S/inputs/flex_attention.onnx --no-cache --input Q=%S/../driver/inputs/flex_attention_q.npy --input K=%S/../driver/inputs/flex_attention_k.npy --input V=%S/../driver/inputs/flex_attention_v.npy --expect Y=%S/../driver/inputs/flex_attention_y.npy | FileCheck %s --check-prefix=RUNOUT
// RUN: not strata import %S/inputs/invalid_flex_mod.onnx 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not strata import %S/inputs/invalid_flex_rank.onnx 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not strata import %S/inputs/invalid_flex_heads.onnx 2>&1 | FileCheck %s --check-prefix=HEADS
// RUN: not strata import %S/inputs/invalid_preview_opset.onnx 2>&1 | FileCheck %s --check-prefix=OPSET

// CHECK: %[[K1:.*]] = "sg.reshape"(%arg1) : (tensor<1x2x5x8xf32>) -> tensor<1x2x1x5x8xf32>
// CHECK: %[[K2:.*]] = "sg.expand"(%[[K1]]) : (tensor<1x2x1x5x8xf32>) -> tensor<1x2x2x5x8xf32>
// CHECK: %[[K:.*]] = "sg.reshape"(%[[K2]]) : (tensor<1x2x2x5x8xf32>) -> tensor<1x4x5x8xf32>
// CHECK: %[[V:.*]] = "sg.reshape"(%{{.*}}) : (tensor<1x2x2x5x4xf32>) -> tensor<1x4x5x4xf32>
// CHECK: %[[ROOT:.*]] = arith.constant dense<0.594603539> : tensor<f32>
// CHECK: %[[QS:.*]] = "sg.mul"(%arg0, %[[ROOT]])
// CHECK: %[[KS:.*]] = "sg.mul"(%[[K]], %[[ROOT]])
// CHECK: %[[KT:.*]] = "sg.transpose"(%[[KS]]) {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[S:.*]] = "sg.matmul"(%[[QS]], %[[KT]]) : (tensor<1x4x3x8xf32>, tensor<1x4x8x5xf32>) -> tensor<1x4x3x5xf32>
// CHECK: %[[REL:.*]] = arith.constant dense_resource<flex_score_mod_rel_{{[0-9]+}}> : tensor<3x5xf32>
// CHECK: %[[B:.*]] = "sg.add"(%[[S]], %[[REL]])
// CHECK: %[[P:.*]] = "sg.softmax"(%[[B]]) {axis = 3 : i64}
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[P2:.*]] = "sg.mul"(%[[P]], %[[TWO]])
// CHECK: %[[Y:.*]] = "sg.matmul"(%[[P2]], %[[V]]) : (tensor<1x4x3x5xf32>, tensor<1x4x5x4xf32>) -> tensor<1x4x3x4xf32>
// CHECK: return %[[Y]]

// RUNOUT: expect 'Y': 0 of 48 elements outside

// BAD: error: {{.*}}invalid_flex_mod.onnx: node #0 'flex_bad' (FlexAttention): 'score_mod' must keep its input's shape and type ([1, 4, 3, 5] Float), it gives [] Float
// RANK: error: {{.*}}invalid_flex_rank.onnx: node #0 'flex' (FlexAttention): Q, K and V must be 4-D (batch, heads, sequence, head size), got [4, 3, 8], [1, 2, 5, 8], [1, 2, 5, 4]
// HEADS: error: {{.*}}invalid_flex_heads.onnx: node #0 'flex' (FlexAttention): Q's heads (3) must be a multiple of K's (2), V's heads (2) equal K's, and K's head size (8) equal Q's (8)
// OPSET: error: {{.*}}invalid_preview_opset.onnx: ai.onnx.preview opset 2 is not one Strata knows (opset 1, those of onnx 1.23), and 1 node(s) use that domain: 'flex' (FlexAttention)
