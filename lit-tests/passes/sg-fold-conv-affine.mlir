// sg-fold-conv-affine: a per-channel scale and shift of a convolution's result (a
// BatchNormalization as the importer writes it) fold into the convolution's constant weights
// and bias, computed at compile time; then sg-accumulate-residuals finds the residual add
// right after the convolution.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-fold-conv-affine))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-fold-conv-affine,sg-accumulate-residuals))' | FileCheck %s --check-prefix=RESIDUAL

// w = [[1], [2]] (two 1x1 filters over one channel), b = [10, 20], scale [2, 3], shift
// [0.5, -1]: w' = [[2], [6]], b' = [10 * 2 + 0.5, 20 * 3 - 1] = [20.5, 59].
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>)
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<folded{{.*}}> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<folded{{.*}}> : tensor<2xf32>
// CHECK: %[[C:.*]] = "sg.conv2d"(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT: %[[S:.*]] = "sg.add"(%[[C]], %[[R]])
// CHECK-NEXT: "sg.relu"(%[[S]])
// CHECK-NOT: "sg.mul"
// The folded values, little-endian f32 (2.0, 6.0; 20.5, 59.0) after the blob's alignment word:
// CHECK-DAG: 000000400000C040"
// CHECK-DAG: 0000A44100006C42"
// RESIDUAL-LABEL: func.func @batch_norm
// RESIDUAL: "sg.conv2d"(%{{.*}}, %{{.*}}, %arg1) {{.*}} -> tensor<1x2x2x2xf32>
// RESIDUAL-NEXT: "sg.reshape"
// RESIDUAL-NEXT: "sg.add"
// RESIDUAL-NEXT: "sg.relu"
func.func @batch_norm(%x: tensor<1x1x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = arith.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %b = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %scale = arith.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %shift = arith.constant dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %c = "sg.conv2d"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %m = "sg.mul"(%c, %scale) : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %a = "sg.add"(%m, %shift) : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %s = "sg.add"(%a, %r) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = "sg.relu"(%s) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Left alone: a scale by a value that is not a constant, a shift that varies along H, a
// convolution read twice, and weights that are not constants.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: folded
// CHECK: return
// CHECK: (S) 1 scales-folded
// CHECK: (S) 1 shifts-folded
func.func @left_alone(%x: tensor<1x1x2x2xf32>, %v: tensor<2x1x1xf32>, %wv: tensor<2x1x1x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x1x1x1xf32>
  %rows = arith.constant dense<[[[1.0], [2.0]]]> : tensor<1x2x1xf32>
  %two = arith.constant dense<2.0> : tensor<1xf32>
  %c0 = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %m0 = "sg.mul"(%c0, %v) : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c1 = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %a1 = "sg.add"(%c1, %rows) : (tensor<1x2x2x2xf32>, tensor<1x2x1xf32>) -> tensor<1x2x2x2xf32>
  %c2 = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %m2 = "sg.mul"(%c2, %c2) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c3 = "sg.conv2d"(%x, %wv) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %m3 = "sg.mul"(%c3, %two) : (tensor<1x2x2x2xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %s3 = "sg.add"(%m3, %two) : (tensor<1x2x2x2xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  return %m0, %a1, %m2, %s3 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
