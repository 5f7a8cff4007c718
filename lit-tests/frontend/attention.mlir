// Attention (opset 23) imports as its subgraph: grouped-query heads repeated (unsqueeze,
// expand, reshape), Q and K each scaled by sqrt(scale), the causal mask a constant bias, the
// softmax, the product with V. A constant bias without a fully masked row needs no guard.
// The result matches NumPy's reference.
// RUN: strata import %S/inputs/attention.onnx | FileCheck %s
// RUN: strata run %S/inputs/attention.onnx --input q=%S/../driver/inputs/attention_q.npy --input k=%S/../driver/inputs/attention_k.npy --input v=%S/../driver/inputs/attention_v.npy --expect y=%S/../driver/inputs/attention_y.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: "sg.expand"(%{{.*}}) : (tensor<1x1x1x3x4xf32>) -> tensor<1x1x2x3x4xf32>
// CHECK: arith.constant dense<0.707106769> : tensor<f32>
// CHECK: "sg.mul"(%arg0,
// CHECK: %[[KT:.*]] = "sg.transpose"
// CHECK: %[[S:.*]] = "sg.matmul"(%{{.*}}, %[[KT]]) : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
// CHECK: %[[B:.*]] = "sg.add"(%[[S]], %{{.*}}) : (tensor<1x2x3x3xf32>, tensor<3x3xf32>)
// CHECK: %[[P:.*]] = "sg.softmax"(%[[B]]) {axis = 3 : i64}
// CHECK-NOT: sg.is_inf
// CHECK: "sg.matmul"(%[[P]],

// NUMBERS: expect 'y': 0 of 24 elements outside
