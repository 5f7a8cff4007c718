// Resize as one gather (nearest; an integer upsampling a broadcast) or gather-multiply-sum
// (linear) per resized axis with tables computed at import (an axis whose table repeats as
// sums of strided slices, interleaved); ConvTranspose as sub-pixel phase convolutions (the zero-inserted
// form, for run-time kernels, is in driver/conv-nd.mlir); a 3-D MaxPool
// as two 2-D pools ((H, W) per depth slice, then depth).
// RUN: strata import %S/inputs/resize_deconv.onnx | FileCheck %s
// RUN: strata import %S/inputs/resize_deconv.onnx | strata-opt | FileCheck %s
// An integer upsampling in nearest mode (x2, asymmetric, floor: each index twice) is a
// broadcast of each resized axis into two copies, which the optimiser writes as one copy per
// axis: a gather read its table, clamped the index and loaded one element at a time (the
// opset-11 CNN's x2 upsampling 0.021 -> 0.002 ms).
// RUN: strata import %S/inputs/resize_nearest2x.onnx | FileCheck %s --check-prefix=NEAR2
// NEAR2-NOT: sg.gather
// NEAR2: %[[H1:.*]] = "sg.reshape"(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1x4xf32>
// NEAR2: %[[H2:.*]] = "sg.expand"(%[[H1]]) : (tensor<1x2x4x1x4xf32>) -> tensor<1x2x4x2x4xf32>
// NEAR2: %[[H:.*]] = "sg.reshape"(%[[H2]]) : (tensor<1x2x4x2x4xf32>) -> tensor<1x2x8x4xf32>
// NEAR2: %[[W1:.*]] = "sg.reshape"(%[[H]]) : (tensor<1x2x8x4xf32>) -> tensor<1x2x8x4x1xf32>
// NEAR2: %[[W2:.*]] = "sg.expand"(%[[W1]]) : (tensor<1x2x8x4x1xf32>) -> tensor<1x2x8x4x2xf32>
// NEAR2: "sg.reshape"(%[[W2]]) : (tensor<1x2x8x4x2xf32>) -> tensor<1x2x8x8xf32>

// Bilinear from a 1 x 1 map (align_corners, DeepLab's pooled branch): every tap reads the one
// element and the taps' weights sum to one, so each axis is a broadcast (0.028 -> 0.004 ms
// for DeepLab's 32 x 1 x 1 -> 33 x 33), not a gather, a product and a sum.
// RUN: strata import %S/inputs/resize_from_one.onnx | FileCheck %s --check-prefix=ONE
// ONE-NOT: sg.gather
// ONE: %[[W:.*]] = "sg.expand"(%arg0) : (tensor<1x3x1x1xf32>) -> tensor<1x3x1x7xf32>
// ONE: "sg.expand"(%[[W]]) : (tensor<1x3x1x7xf32>) -> tensor<1x3x5x7xf32>
// ONE-NOT: sg.reduce_sum

// CHECK-LABEL: func.func @main(%arg0: tensor<1x2x4x4xf32>)
// Linear x2 (half_pixel), upsampling: the columns first (over the 4 input rows), then the
// rows. Along each axis, away from the edges, output position 1 + 2i + r reads input
// positions i and i + 1 with weights (0.75, 0.25) or (0.25, 0.75), so each phase r is an
// elementwise sum of two slices (contiguous along the last axis, of whole rows along the
// other), the phases interleaved by a concat; the first and last positions, whose clamped
// taps break the period, gathered. No gather of every column's taps (a [.., 8, 2] tensor).
// CHECK-NOT: tensor<8x2xi64>
// CHECK: "sg.slice"(%arg0) {ends = array<i64: 1, 2, 4, 3>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x3xf32>
// CHECK: arith.constant dense<7.500000e-01> : tensor<1x1x1x1xf32>
// CHECK: "sg.slice"(%arg0) {ends = array<i64: 1, 2, 4, 4>, starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x3xf32>
// CHECK: arith.constant dense<2.500000e-01> : tensor<1x1x1x1xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 4 : i64} : (tensor<1x2x4x3x1xf32>, tensor<1x2x4x3x1xf32>) -> tensor<1x2x4x3x2xf32>
// CHECK: "sg.reshape"({{.*}}) : (tensor<1x2x4x3x2xf32>) -> tensor<1x2x4x6xf32>
// CHECK: "sg.gather"(%arg0, %{{.*}}) {axis = 3 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2xi64>) -> tensor<1x2x4x1x2xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 3 : i64} : (tensor<1x2x4x1xf32>, tensor<1x2x4x6xf32>) -> tensor<1x2x4x7xf32>
// CHECK: "sg.gather"(%arg0, %{{.*}}) {axis = 3 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2xi64>) -> tensor<1x2x4x1x2xf32>
// CHECK: %[[W:.*]] = "sg.concat"({{.*}}) {axis = 3 : i64} : (tensor<1x2x4x7xf32>, tensor<1x2x4x1xf32>) -> tensor<1x2x4x8xf32>
// CHECK: "sg.slice"(%[[W]]) {ends = array<i64: 1, 2, 3, 8>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x3x8xf32>
// CHECK: arith.constant dense<7.500000e-01> : tensor<1x1x1x1xf32>
// CHECK: "sg.slice"(%[[W]]) {ends = array<i64: 1, 2, 4, 8>, starts = array<i64: 0, 0, 1, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x3x8xf32>
// CHECK: arith.constant dense<2.500000e-01> : tensor<1x1x1x1xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 3 : i64} : (tensor<1x2x3x1x8xf32>, tensor<1x2x3x1x8xf32>) -> tensor<1x2x3x2x8xf32>
// CHECK: "sg.reshape"({{.*}}) : (tensor<1x2x3x2x8xf32>) -> tensor<1x2x6x8xf32>
// CHECK: "sg.gather"(%[[W]], %{{.*}}) {axis = 2 : i64} : (tensor<1x2x4x8xf32>, tensor<1x2xi64>) -> tensor<1x2x1x2x8xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 2 : i64} : (tensor<1x2x1x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x7x8xf32>
// CHECK: "sg.gather"(%[[W]], %{{.*}}) {axis = 2 : i64} : (tensor<1x2x4x8xf32>, tensor<1x2xi64>) -> tensor<1x2x1x2x8xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 2 : i64} : (tensor<1x2x7x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x8x8xf32>
// Nearest to 6x6: one gather per axis.
// CHECK: %[[N2:.*]] = "sg.gather"(%arg0, %{{.*}}) {axis = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<6xi64>) -> tensor<1x2x6x4xf32>
// CHECK: "sg.gather"(%[[N2]], %{{.*}}) {axis = 3 : i64} : (tensor<1x2x6x4xf32>, tensor<6xi64>) -> tensor<1x2x6x6xf32>
// ConvTranspose (k3, stride 2, pads 1, output_padding 1) with a constant kernel: one
// stride-1 convolution per output phase over the plain input (taps k = (r + 1) mod 2 + 2j,
// reversed: 1x1, 1x2, 2x1 and 2x2 kernels, padded at the end where a phase reads past the
// input), interleaved into [1, 3, 4, 2, 4, 2] by concats; no zero-inserted input.
// CHECK-NOT: tensor<1x2x4x1x4x1xf32>
// CHECK: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 0, 0, 0, 0>{{.*}}} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 0, 0, 0, 1>{{.*}}} : (tensor<1x2x4x4xf32>, tensor<3x2x1x2xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 0, 0, 1, 0>{{.*}}} : (tensor<1x2x4x4xf32>, tensor<3x2x2x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 0, 0, 1, 1>{{.*}}} : (tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 3 : i64} : (tensor<1x3x4x1x4x2xf32>, tensor<1x3x4x1x4x2xf32>) -> tensor<1x3x4x2x4x2xf32>
// CHECK: "sg.reshape"({{.*}}) : (tensor<1x3x4x2x4x2xf32>) -> tensor<1x3x8x8xf32>
// 3-D MaxPool, kernel 2x2x2, strides 1x2x2: (H, W) over C*D planes, then depth.
// CHECK: %[[HW:.*]] = "sg.max_pool"({{.*}}) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[D:.*]] = "sg.reshape"(%[[HW]]) : (tensor<1x2x2x2xf32>) -> tensor<1x1x2x4xf32>
// CHECK: "sg.max_pool"(%[[D]]) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x4xf32>) -> tensor<1x1x1x4xf32>
// CHECK: "sg.reshape"({{.*}}) : (tensor<1x1x1x4xf32>) -> tensor<1x1x1x2x2xf32>
