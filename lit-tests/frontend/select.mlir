// Positions computed at import (crates/frontend/src/select.rs): Compress with a constant
// condition is a gather of the kept positions, ReverseSequence a gather_elements of a
// constant position table, MaxUnpool a scatter of MaxPool's flat indices into zeros padded
// to output_shape, AffineGrid a matmul of a constant base grid with the transposed
// matrices; SwiGLU (composite.rs) is A * sigmoid(alpha * A) * B. Checked against ONNX's
// reference implementation (lit-tests/frontend/inputs/make_fixtures.py).
// RUN: strata import %S/inputs/select.onnx | FileCheck %s
// RUN: strata run %S/inputs/select.onnx --input x=%S/../driver/inputs/select_x.npy --input pool=%S/../driver/inputs/select_pool.npy --input theta=%S/../driver/inputs/select_theta.npy --expect kept=%S/../driver/inputs/select_kept.npy --expect reversed=%S/../driver/inputs/select_reversed.npy --expect unpooled=%S/../driver/inputs/select_unpooled.npy --expect grid=%S/../driver/inputs/select_grid.npy --expect gated=%S/../driver/inputs/select_gated.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: "sg.gather"(%arg0, %{{.*}}) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x2xf32>
// CHECK: "sg.gather_elements"(%arg0, %{{.*}}) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x4xi64>)
// CHECK: %[[ZEROS:.*]] = "sg.expand"(%{{.*}}) : (tensor<1xf32>) -> tensor<16xf32>
// CHECK: "sg.scatter_elements"(%[[ZEROS]], %{{.*}}, %{{.*}}) {axis = 0 : i64, reduction = 0 : i64}
// CHECK: "sg.pad"({{.*}}) {mode = 0 : i64, pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>{{.*}} -> tensor<1x1x5x5xf32>
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<6x3xf32>, tensor<1x3x2xf32>) -> tensor<1x6x2xf32>
// CHECK: "sg.sigmoid"

// NUMBERS: expect 'kept': 0 of 6 elements outside
// NUMBERS: expect 'reversed': 0 of 12 elements outside
// NUMBERS: expect 'unpooled': 0 of 25 elements outside
// NUMBERS: expect 'grid': 0 of 12 elements outside
// NUMBERS: expect 'gated': 0 of 12 elements outside
