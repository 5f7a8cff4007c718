// sg-fold-split-concats (after the e-graph): a concatenation of a tensor's two parts, in
// order and whole, is the tensor (YOLOv8's C2f: Split into halves, Concat(half, half, b)).
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-fold-split-concats))' | FileCheck %s

// A view of the first half and a slice of the second: the tensor; the outer concatenation
// reads it whole, and the parts nothing else reads go.
// CHECK-LABEL: func.func @c2f
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x8x8xf32>, %[[B:.*]]: tensor<1x16x8x8xf32>)
// CHECK-NOT: "sg.view"
// CHECK-NOT: "sg.slice"
// CHECK: %[[C:.*]] = "sg.concat"(%[[X]], %[[B]]) {axis = 1 : i64}
// CHECK-NEXT: return %[[C]]
func.func @c2f(%x: tensor<1x32x8x8xf32>, %b: tensor<1x16x8x8xf32>) -> tensor<1x48x8x8xf32> {
  %0 = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 1, 16, 8, 8>, strides = array<i64: 2048, 64, 8, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %1 = "sg.slice"(%x) {ends = array<i64: 1, 32, 8, 8>, starts = array<i64: 0, 16, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %2 = "sg.concat"(%0, %1) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  %3 = "sg.concat"(%2, %b) {axis = 1 : i64} : (tensor<1x32x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x48x8x8xf32>
  return %3 : tensor<1x48x8x8xf32>
}

// -----

// Two views at their offsets, the second read elsewhere too (kept for that reader).
// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[X:.*]]: tensor<6x4xf32>)
// CHECK: %[[HI:.*]] = "sg.view"(%[[X]]) {offset = 8 : i64
// CHECK-NOT: "sg.concat"
// CHECK: return %[[X]], %[[HI]]
func.func @views(%x: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4x4xf32>) {
  %lo = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 2, 4>, strides = array<i64: 4, 1>} : (tensor<6x4xf32>) -> tensor<2x4xf32>
  %hi = "sg.view"(%x) {offset = 8 : i64, sizes = array<i64: 4, 4>, strides = array<i64: 4, 1>} : (tensor<6x4xf32>) -> tensor<4x4xf32>
  %0 = "sg.concat"(%lo, %hi) {axis = 0 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  return %0, %hi : tensor<6x4xf32>, tensor<4x4xf32>
}

// -----

// Kept: parts that do not make up the whole, are out of order, or are strided views.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: "sg.concat"
func.func @kept(%x: tensor<8x4xf32>) -> (tensor<6x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %lo = "sg.slice"(%x) {ends = array<i64: 4, 4>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %mid = "sg.slice"(%x) {ends = array<i64: 6, 4>, starts = array<i64: 4, 0>, steps = array<i64: 1, 1>} : (tensor<8x4xf32>) -> tensor<2x4xf32>
  %hi = "sg.slice"(%x) {ends = array<i64: 8, 4>, starts = array<i64: 4, 0>, steps = array<i64: 1, 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %part = "sg.concat"(%lo, %mid) {axis = 0 : i64} : (tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<6x4xf32>
  %swapped = "sg.concat"(%hi, %lo) {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %even = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 4, 4>, strides = array<i64: 8, 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %odd = "sg.view"(%x) {offset = 4 : i64, sizes = array<i64: 4, 4>, strides = array<i64: 8, 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %strided = "sg.concat"(%even, %odd) {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  return %part, %swapped, %strided : tensor<6x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// Kept: an in-place kernel writes into the tensor's second half after the slice copied it
// and before the concatenation, which must still read the copy.
// CHECK-LABEL: func.func @written
// CHECK: "sg.fused"
// CHECK: "sg.concat"
func.func @written(%y: tensor<1x16x8x8xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x16x8x8xf32>) {
  %x = "sg.relu"(%y) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %w = "sg.concat"(%x, %y) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  %lo = "sg.view"(%w) {offset = 0 : i64, sizes = array<i64: 1, 16, 8, 8>, strides = array<i64: 2048, 64, 8, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %hi = "sg.slice"(%w) {ends = array<i64: 1, 32, 8, 8>, starts = array<i64: 0, 16, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %view = "sg.view"(%w) {offset = 1024 : i64, sizes = array<i64: 1, 16, 8, 8>, strides = array<i64: 2048, 64, 8, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %neg = "sg.fused"(%view) {in_place = 1 : i64, program = "neg(i0)"} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %0 = "sg.concat"(%lo, %hi) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %0, %neg : tensor<1x32x8x8xf32>, tensor<1x16x8x8xf32>
}

// -----

// Kept: the tensor is a view, and an in-place kernel writes into its base through another
// view of it after the slice copied the second half.
// CHECK-LABEL: func.func @base_written
// CHECK: "sg.fused"
// CHECK: "sg.concat"
func.func @base_written(%y: tensor<1x32x8x8xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) {
  %base = "sg.relu"(%y) : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %x = "sg.view"(%base) {offset = 0 : i64, sizes = array<i64: 1, 32, 8, 8>, strides = array<i64: 2048, 64, 8, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %lo = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 1, 16, 8, 8>, strides = array<i64: 2048, 64, 8, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %hi = "sg.slice"(%x) {ends = array<i64: 1, 32, 8, 8>, starts = array<i64: 0, 16, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %all = "sg.view"(%base) {offset = 0 : i64, sizes = array<i64: 1, 32, 8, 8>, strides = array<i64: 2048, 64, 8, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %neg = "sg.fused"(%all) {in_place = 1 : i64, program = "neg(i0)"} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %0 = "sg.concat"(%lo, %hi) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %0, %neg : tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>
}

// -----

// Kept: the in-place write sits in a region of an op between the slice and the
// concatenation.
// CHECK-LABEL: func.func @nested_write
// CHECK: scf.execute_region
// CHECK: "sg.concat"
func.func @nested_write(%y: tensor<1x32x8x8xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) {
  %x = "sg.relu"(%y) : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %lo = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 1, 16, 8, 8>, strides = array<i64: 2048, 64, 8, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %hi = "sg.slice"(%x) {ends = array<i64: 1, 32, 8, 8>, starts = array<i64: 0, 16, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x16x8x8xf32>
  %neg = scf.execute_region -> tensor<1x32x8x8xf32> {
    %n = "sg.fused"(%x) {in_place = 1 : i64, program = "neg(i0)"} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
    scf.yield %n : tensor<1x32x8x8xf32>
  }
  %0 = "sg.concat"(%lo, %hi) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %0, %neg : tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>
}
