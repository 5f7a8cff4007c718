// sg-sink-reshapes: elementwise ops on a reshape that drops trailing unit axes (a 1-D
// convolution's result, imported as a 2-D one over [.., L, 1]) run before the reshape, their
// other operands given the same unit axes; then sg-fold-conv-affine folds the
// BatchNormalization that now reads the convolution into its weights.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-sink-reshapes))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-sink-reshapes,sg-fold-conv-affine))' | FileCheck %s --check-prefix=FOLD

// A Conv1d + BatchNorm1d + ReLU: the scale and shift ([2, 1] against [1, 2, 4]) become [2, 1, 1]
// against [1, 2, 4, 1]; one reshape is left, after the ReLU.
// CHECK-LABEL: func.func @conv1d_bn_relu
// CHECK: %[[C:.*]] = "sg.conv2d"
// CHECK: %[[S:.*]] = "sg.reshape"(%{{.*}}) : (tensor<2x1xf32>) -> tensor<2x1x1xf32>
// CHECK: %[[M:.*]] = "sg.mul"(%[[C]], %[[S]]) : (tensor<1x2x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x1xf32>
// CHECK: %[[T:.*]] = "sg.reshape"(%{{.*}}) : (tensor<2x1xf32>) -> tensor<2x1x1xf32>
// CHECK: %[[A:.*]] = "sg.add"(%[[M]], %[[T]])
// The scalar stays a scalar.
// CHECK: %[[R:.*]] = "sg.max"(%[[A]], %{{.*}}) : (tensor<1x2x4x1xf32>, tensor<f32>) -> tensor<1x2x4x1xf32>
// CHECK: %[[Y:.*]] = "sg.reshape"(%[[R]]) : (tensor<1x2x4x1xf32>) -> tensor<1x2x4xf32>
// CHECK-NEXT: return %[[Y]]
// FOLD-LABEL: func.func @conv1d_bn_relu
// FOLD: "sg.conv2d"
// FOLD-NOT: "sg.mul"
// FOLD-NOT: "sg.add"
// FOLD: "sg.max"
func.func @conv1d_bn_relu(%x: tensor<1x1x4x1xf32>) -> tensor<1x2x4xf32> {
  %w = arith.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %scale = arith.constant dense<[[2.0], [3.0]]> : tensor<2x1xf32>
  %shift = arith.constant dense<[[0.5], [-1.0]]> : tensor<2x1xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %c = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x1xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x1xf32>
  %r = "sg.reshape"(%c) : (tensor<1x2x4x1xf32>) -> tensor<1x2x4xf32>
  %m = "sg.mul"(%r, %scale) : (tensor<1x2x4xf32>, tensor<2x1xf32>) -> tensor<1x2x4xf32>
  %a = "sg.add"(%m, %shift) : (tensor<1x2x4xf32>, tensor<2x1xf32>) -> tensor<1x2x4xf32>
  %y = "sg.max"(%a, %zero) : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

// Left alone: a reshape that does more than drop trailing unit axes, and an op whose result is
// larger than the reshape (the reshape is the broadcast operand).
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[R:.*]] = "sg.reshape"(%arg0) : (tensor<1x2x4x1xf32>) -> tensor<2x4xf32>
// CHECK: "sg.relu"(%[[R]])
// CHECK: %[[Q:.*]] = "sg.reshape"(%arg0) : (tensor<1x2x4x1xf32>) -> tensor<1x2x4xf32>
// CHECK: "sg.add"(%[[Q]], %arg1) : (tensor<1x2x4xf32>, tensor<3x1x2x4xf32>) -> tensor<3x1x2x4xf32>
func.func @left_alone(%x: tensor<1x2x4x1xf32>, %big: tensor<3x1x2x4xf32>) -> (tensor<2x4xf32>, tensor<3x1x2x4xf32>) {
  %r = "sg.reshape"(%x) : (tensor<1x2x4x1xf32>) -> tensor<2x4xf32>
  %y = "sg.relu"(%r) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %q = "sg.reshape"(%x) : (tensor<1x2x4x1xf32>) -> tensor<1x2x4xf32>
  %z = "sg.add"(%q, %big) : (tensor<1x2x4xf32>, tensor<3x1x2x4xf32>) -> tensor<3x1x2x4xf32>
  return %y, %z : tensor<2x4xf32>, tensor<3x1x2x4xf32>
}

// CHECK: (S) 3 sunk
