// sg-accumulate-residuals: add(conv(x, w, b), r) becomes conv(x, w, r) + b, the convolution
// starting its sums from the residual. (MobileNetV2's residual blocks, in the zoo, check the
// compiled values against ONNX Runtime's.)
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-accumulate-residuals))' --mlir-pass-statistics 2>&1 | FileCheck %s

// A residual block's end: the new convolution takes the add's place, the bias is added after
// it (the e-graph fuses that add with the Relu into one kernel).
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[R:.*]]: tensor<1x8x6x6xf32>, %[[W:.*]]: tensor<8x4x1x1xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[C:.*]] = "sg.conv2d"(%[[X]], %[[W]], %[[R]]) {{.*}} : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT: %[[COLUMN:.*]] = "sg.reshape"(%[[B]]) : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK-NEXT: %[[S:.*]] = "sg.add"(%[[C]], %[[COLUMN]]) : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT: %[[Y:.*]] = "sg.relu"(%[[S]])
// CHECK-NEXT: return %[[Y]]
func.func @block(%x: tensor<1x4x6x6xf32>, %r: tensor<1x8x6x6xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %c = "sg.conv2d"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %s = "sg.add"(%r, %c) : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = "sg.relu"(%s) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}

// -----

// Without a bias the residual is the initial value itself. Of two convolutions, the later one
// takes the earlier one's result (ready when it starts, and already live).
// CHECK-LABEL: func.func @projection
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[W:.*]]: tensor<8x4x1x1xf32>, %[[V:.*]]: tensor<8x4x1x1xf32>)
// CHECK-NEXT: %[[MAIN:.*]] = "sg.conv2d"(%[[X]], %[[W]])
// CHECK-NEXT: %[[SHORTCUT:.*]] = "sg.conv2d"(%[[X]], %[[V]], %[[MAIN]])
// CHECK-NEXT: return %[[SHORTCUT]]
func.func @projection(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x1x1xf32>, %v: tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %main = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %shortcut = "sg.conv2d"(%x, %v) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %s = "sg.add"(%main, %shortcut) : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %s : tensor<1x8x6x6xf32>
}

// -----

// Left alone: a convolution read elsewhere too, a residual that broadcasts, and an f16
// convolution (it accumulates in f32: its initial value would be a converted copy).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: "sg.add"
// CHECK-NOT: "sg.conv2d"({{.*}}tensor<1x8x6x6x{{.*}}) -> tensor<1x8x6x6x
// CHECK: (S) 2 folded
func.func @left_alone(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x1x1xf32>, %r: tensor<1x8x1x1xf32>, %h: tensor<1x4x6x6xf16>, %wh: tensor<8x4x1x1xf16>, %rh: tensor<1x8x6x6xf16>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf16>) {
  %c = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %twice = "sg.add"(%c, %c) : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %d = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %broadcast = "sg.add"(%d, %r) : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %e = "sg.conv2d"(%h, %wh) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf16>, tensor<8x4x1x1xf16>) -> tensor<1x8x6x6xf16>
  %half = "sg.add"(%e, %rh) : (tensor<1x8x6x6xf16>, tensor<1x8x6x6xf16>) -> tensor<1x8x6x6xf16>
  return %twice, %broadcast, %c, %half : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf16>
}
