// sg-fuse-reductions: a reduction whose operand is a fused program read by nothing else
// computes the program as it reduces (one sg.fused with `reduce` and `axes`); sg-to-linalg then
// makes one reducing generic, its body the program and the combining op, and the program's
// elements are never stored. A view operand is read through its base: as a whole axis of the
// base sliced and reshaped when the view's axes nest in one of the base's (a reduced loop has no
// output axis to take its extent from), else the elements are computed first, then reduced.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-fuse-reductions))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-fuse-reductions,sg-to-linalg))' | FileCheck %s --check-prefix=LOWER

// ReduceSumSquare over the last axis, keepdims = 0.
// CHECK-LABEL: func.func @sum_square
// CHECK: %[[R:.*]] = "sg.fused"(%arg0, %arg0) {axes = array<i64: 1>, program = "mul(i0,i1)", reduce = "reduce_sum"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NOT: "sg.reduce_sum"
// CHECK: return %[[R]]
// LOWER-LABEL: func.func @sum_square
// LOWER: %[[INIT:.*]] = linalg.fill
// LOWER: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[INIT]] : tensor<4xf32>)
// LOWER-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// LOWER-NEXT: %[[SQ:.*]] = arith.mulf %[[A]], %[[B]] : f32
// LOWER-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
// LOWER-NEXT: linalg.yield %[[SUM]]
// LOWER-NOT: linalg.generic
func.func @sum_square(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %sq = "sg.fused"(%x, %x) {program = "mul(i0,i1)"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = "sg.reduce_sum"(%sq) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A mean with keepdims: the result keeps the axes as size 1 (the operands' rank); the mean
// divides the sum afterwards.
// CHECK-LABEL: func.func @mean_keepdims
// CHECK: "sg.fused"(%arg0, %arg1) {axes = array<i64: 2, 3>, program = "add(i0,i1) relu(s0)", reduce = "reduce_mean"} : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x1x1xf32>
// LOWER-LABEL: func.func @mean_keepdims
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// LOWER: arith.addf
// LOWER: arith.maximumf
// LOWER: arith.addf
// LOWER: arith.divf
// LOWER: tensor.expand_shape
func.func @mean_keepdims(%x: tensor<1x4x3x3xf32>, %y: tensor<1x4x3x3xf32>) -> tensor<1x4x1x1xf32> {
  %a = "sg.fused"(%x, %y) {program = "add(i0,i1) relu(s0)"} : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %m = "sg.reduce_mean"(%a) {axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x4x1x1xf32>
  return %m : tensor<1x4x1x1xf32>
}

// -----

// The STFT's power: the program reads a transposed view whose last two axes both walk the
// base's axis 1 (real parts in rows 0..3, imaginary in rows 4..7 of 10). The base is read as
// its first 8 rows reshaped to [2, 4] rows: each view axis a whole axis (the map
// (d0, d1, d2, d3) -> (d3, d2, d1); the unit tests of `MixedRadix` check the addresses).
// CHECK-LABEL: func.func @power_of_view
// CHECK: "sg.fused"(%0, %0) {axes = array<i64: 3>, program = "mul(i0,i1)", reduce = "reduce_sum"} : (tensor<1x5x4x2xf32>, tensor<1x5x4x2xf32>) -> tensor<1x5x4xf32>
// LOWER-LABEL: func.func @power_of_view
// LOWER: %[[FLAT:.*]] = tensor.collapse_shape %arg0
// LOWER: %[[LINE:.*]] = tensor.extract_slice %[[FLAT]][0] [40] [1] : tensor<50xf32> to tensor<40xf32>
// LOWER: %[[ROWS:.*]] = tensor.expand_shape %[[LINE]] {{\[}}[0, 1, 2]] output_shape [2, 4, 5] : tensor<40xf32> into tensor<2x4x5xf32>
// LOWER: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x4x5xf32>, tensor<2x4x5xf32>)
// LOWER-NOT: linalg.generic
func.func @power_of_view(%spectrum: tensor<1x10x5x1xf32>) -> tensor<1x5x4xf32> {
  %v = "sg.view"(%spectrum) {offset = 0 : i64, sizes = array<i64: 1, 5, 4, 2>, strides = array<i64: 50, 1, 5, 20>} : (tensor<1x10x5x1xf32>) -> tensor<1x5x4x2xf32>
  %sq = "sg.fused"(%v, %v) {program = "mul(i0,i1)"} : (tensor<1x5x4x2xf32>, tensor<1x5x4x2xf32>) -> tensor<1x5x4x2xf32>
  %p = "sg.reduce_sum"(%sq) {axes = array<i64: 3>, keepdims = 0 : i64} : (tensor<1x5x4x2xf32>) -> tensor<1x5x4xf32>
  return %p : tensor<1x5x4xf32>
}

// -----

// A transpose that only the program reads (the e-graph materialised it for the program to
// write in place) is read as a view once the program is reduced: no copy.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[V:.*]] = "sg.view"(%arg0) {offset = 0 : i64, sizes = array<i64: 3, 2>, strides = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: "sg.fused"(%[[V]], %[[V]]) {axes = array<i64: 1>, program = "mul(i0,i1)", reduce = "reduce_sum"}
// CHECK-NOT: sg.transpose
// LOWER-LABEL: func.func @transposed
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32>)
// LOWER-NOT: linalg.transpose
func.func @transposed(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %t = "sg.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %sq = "sg.fused"(%t, %t) {in_place = 1 : i64, program = "mul(i0,i1)"} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %s = "sg.reduce_sum"(%sq) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<3x2xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

// A reduced axis of size 1 is no operand's bare loop (a view reads it as index 0): the
// program's elements are computed first, then reduced, as the two ops were.
// LOWER-LABEL: func.func @unit_axis
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
func.func @unit_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  %v = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 4, 1>, strides = array<i64: 1, 0>} : (tensor<4xf32>) -> tensor<4x1xf32>
  %e = "sg.fused"(%v) {program = "exp(i0)"} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %s = "sg.reduce_sum"(%e) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<4x1xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Left alone: a program read twice (its elements are needed anyway), an epilogue, and a
// reduction of a plain op.
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[E:.*]] = "sg.fused"(%arg0) {program = "exp(i0)"}
// CHECK: "sg.reduce_max"(%[[E]])
// CHECK: %[[C:.*]] = "sg.conv2d"
// CHECK: %[[P:.*]] = "sg.fused"(%[[C]]) {epilogue = 1 : i64, program = "relu(i0)"}
// CHECK: "sg.reduce_sum"(%[[P]])
// CHECK: %[[N:.*]] = "sg.neg"
// CHECK: "sg.reduce_min"(%[[N]])
// The statistics count the whole file: the five fused above (one transpose read as a view),
// none here.
// CHECK: Pass statistics report
// CHECK: sg-fuse-reductions
// CHECK-NEXT: (S) 5 fused
// CHECK-NEXT: (S) 1 views
func.func @left_alone(%x: tensor<2x3xf32>, %img: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x1xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<1x2x1x1xf32>, tensor<2xf32>) {
  %e = "sg.fused"(%x) {program = "exp(i0)"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = "sg.reduce_max"(%e) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  %c = "sg.conv2d"(%img, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %r = "sg.fused"(%c) {epilogue = 1 : i64, program = "relu(i0)"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = "sg.reduce_sum"(%r) {axes = array<i64: 2, 3>, keepdims = 1 : i64} : (tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32>
  %n = "sg.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %o = "sg.reduce_min"(%n) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %e, %m, %s, %o : tensor<2x3xf32>, tensor<2xf32>, tensor<1x2x1x1xf32>, tensor<2xf32>
}
