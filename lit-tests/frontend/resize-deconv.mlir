// Resize as one gather (nearest) or gather-multiply-sum (linear) per resized axis with
// tables computed at import; ConvTranspose as zero insertion (reshape, pad, reshape), padding
// and a stride-1 convolution with the kernel flipped and transposed at import; a 3-D MaxPool
// as two 2-D pools ((H, W) per depth slice, then depth).
// RUN: strata import %S/inputs/resize_deconv.onnx | FileCheck %s
// RUN: strata import %S/inputs/resize_deconv.onnx | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @main(%arg0: tensor<1x2x4x4xf32>)
// Linear x2 along H: two taps per output row, weighted and summed; then W likewise.
// CHECK: %[[I2:.*]] = arith.constant dense_resource<resize_linear_indices2{{.*}}> : tensor<8x2xi64>
// CHECK: %[[G2:.*]] = "sg.gather"(%arg0, %[[I2]]) {axis = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<8x2xi64>) -> tensor<1x2x8x2x4xf32>
// CHECK: %[[W2:.*]] = arith.constant dense_resource<resize_linear_weights2{{.*}}> : tensor<8x2x1xf32>
// CHECK: %[[M2:.*]] = "sg.mul"(%[[G2]], %[[W2]])
// CHECK: %[[R2:.*]] = "sg.reduce_sum"(%[[M2]]) {axes = array<i64: 3>, keepdims = 0 : i64} : (tensor<1x2x8x2x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK: "sg.gather"(%[[R2]], %{{.*}}) {axis = 3 : i64} : (tensor<1x2x8x4xf32>, tensor<8x2xi64>) -> tensor<1x2x8x8x2xf32>
// CHECK: "sg.reduce_sum"({{.*}}) {axes = array<i64: 4>, keepdims = 0 : i64} : (tensor<1x2x8x8x2xf32>) -> tensor<1x2x8x8xf32>
// Nearest to 6x6: one gather per axis.
// CHECK: %[[N2:.*]] = "sg.gather"(%arg0, %{{.*}}) {axis = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<6xi64>) -> tensor<1x2x6x4xf32>
// CHECK: "sg.gather"(%[[N2]], %{{.*}}) {axis = 3 : i64} : (tensor<1x2x6x4xf32>, tensor<6xi64>) -> tensor<1x2x6x6xf32>
// ConvTranspose: the kernel [C_in=2, C_out=3, 3, 3] becomes [3, 2, 3, 3]; zeros inserted, then
// padded by d*(k-1) - pad = 1 before and 1 - 1 + output_padding = 1 after.
// CHECK: %[[U:.*]] = "sg.reshape"(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1x4x1xf32>
// CHECK: %[[Z:.*]] = "sg.pad"(%[[U]]) {mode = 0 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1>, value = 0.000000e+00 : f64} : (tensor<1x2x4x1x4x1xf32>) -> tensor<1x2x4x2x4x2xf32>
// CHECK: %[[S:.*]] = "sg.reshape"(%[[Z]]) : (tensor<1x2x4x2x4x2xf32>) -> tensor<1x2x8x8xf32>
// CHECK: %[[P:.*]] = "sg.pad"(%[[S]]) {mode = 0 : i64, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.000000e+00 : f64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x10x10xf32>
// CHECK: %[[K:.*]] = arith.constant dense_resource<deconv_kernel{{.*}}> : tensor<3x2x3x3xf32>
// CHECK: "sg.conv2d"(%[[P]], %[[K]], %{{.*}}) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x10x10xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
// 3-D MaxPool, kernel 2x2x2, strides 1x2x2: (H, W) over C*D planes, then depth.
// CHECK: %[[HW:.*]] = "sg.max_pool"({{.*}}) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[D:.*]] = "sg.reshape"(%[[HW]]) : (tensor<1x2x2x2xf32>) -> tensor<1x1x2x4xf32>
// CHECK: "sg.max_pool"(%[[D]]) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x4xf32>) -> tensor<1x1x1x4xf32>
// CHECK: "sg.reshape"({{.*}}) : (tensor<1x1x1x4xf32>) -> tensor<1x1x1x2x2xf32>
