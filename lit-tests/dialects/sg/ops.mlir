// Every sg op parses, verifies (IRDL + Rust verifier) and prints back to the same text.
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s
// SNAPSHOT: strata-opt %s

// CHECK-LABEL: func.func @conv
// CHECK: %[[C:.*]] = "sg.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: "sg.conv2d"(%[[C]], %{{.*}}) {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %dw: tensor<4x1x3x3xf32>) -> tensor<1x4x2x2xf32> {
  %0 = "sg.conv2d"(%x, %w, %b) {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %1 = "sg.conv2d"(%0, %dw) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x2x2xf32>
  return %1 : tensor<1x4x2x2xf32>
}

// CHECK-LABEL: func.func @matmul_add
// CHECK: %[[M:.*]] = "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK: "sg.add"(%[[M]], %{{.*}}) : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
func.func @matmul_add(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>, %bias: tensor<5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = "sg.matmul"(%a, %b) : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  %1 = "sg.add"(%0, %bias) : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  return %1 : tensor<2x3x4x5xf32>
}

// CHECK-LABEL: func.func @unary
// CHECK: %[[R:.*]] = "sg.relu"(%{{.*}}) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: "sg.exp"(%[[R]]) : (tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @unary(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = "sg.relu"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "sg.exp"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// The seed example of DESIGN.md: slice, transpose, then views.
// CHECK-LABEL: func.func @layout
// CHECK: %[[S:.*]] = "sg.slice"(%{{.*}}) {ends = array<i64: 10, 20>, starts = array<i64: 1, 2>, steps = array<i64: 1, 1>} : (tensor<16x32xf32>) -> tensor<9x18xf32>
// CHECK: %[[T:.*]] = "sg.transpose"(%[[S]]) {perm = array<i64: 1, 0>} : (tensor<9x18xf32>) -> tensor<18x9xf32>
// CHECK: "sg.reshape"(%[[T]]) : (tensor<18x9xf32>) -> tensor<2x81xf32>
// CHECK: "sg.view"(%{{.*}}) {offset = 34 : i64, sizes = array<i64: 18, 9>, strides = array<i64: 1, 32>} : (tensor<16x32xf32>) -> tensor<18x9xf32>
func.func @layout(%x: tensor<16x32xf32>) -> (tensor<2x81xf32>, tensor<18x9xf32>) {
  %0 = "sg.slice"(%x) {starts = array<i64: 1, 2>, ends = array<i64: 10, 20>, steps = array<i64: 1, 1>} : (tensor<16x32xf32>) -> tensor<9x18xf32>
  %1 = "sg.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<9x18xf32>) -> tensor<18x9xf32>
  %2 = "sg.reshape"(%1) : (tensor<18x9xf32>) -> tensor<2x81xf32>
  %3 = "sg.view"(%x) {offset = 34 : i64, sizes = array<i64: 18, 9>, strides = array<i64: 1, 32>} : (tensor<16x32xf32>) -> tensor<18x9xf32>
  return %2, %3 : tensor<2x81xf32>, tensor<18x9xf32>
}

// CHECK-LABEL: func.func @tree_walk
// CHECK: "sg.tree_walk"(%{{.*}}, %{{.*}}, %{{.*}}) {depth = 3 : i64, modes = 257 : i64} : (tensor<4x6xf32>, tensor<9x4xi64>, tensor<2xi64>) -> tensor<4x2xi64>
func.func @tree_walk(%x: tensor<4x6xf32>, %nodes: tensor<9x4xi64>, %roots: tensor<2xi64>) -> tensor<4x2xi64> {
  %0 = "sg.tree_walk"(%x, %nodes, %roots) {depth = 3 : i64, modes = 0x101 : i64} : (tensor<4x6xf32>, tensor<9x4xi64>, tensor<2xi64>) -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// CHECK-LABEL: func.func @tree_walk_sums
// CHECK: "sg.tree_walk"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {aggregate = 0 : i64, depth = 3 : i64, modes = 1 : i64} : (tensor<4x6xf32>, tensor<9x4xi64>, tensor<2xi64>, tensor<9x3xf32>) -> tensor<4x3xf32>
func.func @tree_walk_sums(%x: tensor<4x6xf32>, %nodes: tensor<9x4xi64>, %roots: tensor<2xi64>, %leaves: tensor<9x3xf32>) -> tensor<4x3xf32> {
  %0 = "sg.tree_walk"(%x, %nodes, %roots, %leaves) {depth = 3 : i64, modes = 1 : i64, aggregate = 0 : i64} : (tensor<4x6xf32>, tensor<9x4xi64>, tensor<2xi64>, tensor<9x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
