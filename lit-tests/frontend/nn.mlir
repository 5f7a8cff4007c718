// Neural-network operators: Conv, BatchNormalization folded into a per-channel multiply-add
// (scale = gamma / sqrt(var + eps) = 1, shift = beta - mean * scale = [0, 0.5, -1, -1]),
// Clip as ReLU6 (bounds from constant inputs), MaxPool, HardSwish, AveragePool with
// count_include_pad, GlobalAveragePool, Flatten, Gemm, Softmax (axis -1 normalised), and
// LeakyRelu, HardSigmoid, Gelu (tanh), LayerNormalization, LogSoftmax.
// RUN: strata import %S/inputs/nn.onnx | FileCheck %s
// RUN: strata import %S/inputs/nn.onnx | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[C:.*]] = "sg.conv2d"
// CHECK: %[[S:.*]] = arith.constant dense_resource<bn0_scale{{.*}}> : tensor<4x1x1xf32>
// CHECK: %[[T:.*]] = arith.constant dense_resource<bn0_shift{{.*}}> : tensor<4x1x1xf32>
// CHECK: %[[M:.*]] = "sg.mul"(%[[C]], %[[S]])
// CHECK: %[[B:.*]] = "sg.add"(%[[M]], %[[T]])
// CHECK: %[[R6:.*]] = "sg.clip"(%[[B]]) {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: %[[MP:.*]] = "sg.max_pool"(%[[R6]]) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[HS:.*]] = "sg.hard_swish"(%[[MP]])
// CHECK: %[[AP:.*]] = "sg.average_pool"(%[[HS]]) {ceil_mode = 0 : i64, count_include_pad = 1 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[G:.*]] = "sg.global_average_pool"(%[[AP]]) : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
// CHECK: "sg.reshape"(%[[G]]) : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
// CHECK: "sg.matmul"
// CHECK: %[[L:.*]] = "sg.add"
// CHECK: "sg.softmax"(%[[L]]) {axis = 1 : i64} : (tensor<1x10xf32>) -> tensor<1x10xf32>
// CHECK: "sg.leaky_relu"(%{{.*}}) {alpha = 0.10000000149011612 : f64}
// CHECK: "sg.hard_sigmoid"(%{{.*}}) {alpha = 0.20000000298023224 : f64, beta = 5.000000e-01 : f64}
// CHECK: "sg.gelu"(%{{.*}}) {approximate = 1 : i64}
// CHECK: "sg.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {axis = 2 : i64, epsilon = 9.9999999747524271E-7 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK: "sg.log_softmax"(%{{.*}}) {axis = 1 : i64}
// CHECK: bn0_scale{{.*}}: "0x080000000000803F0000803F0000803F0000803F"
// CHECK: bn0_shift{{.*}}: "0x08000000000000000000003F000080BF000080BF"
