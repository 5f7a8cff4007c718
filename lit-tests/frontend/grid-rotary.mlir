// GridSample and RotaryEmbedding as subgraphs (crates/frontend/src/grid_sample.rs,
// attention.rs). GridSample: linear with reflection padding (a triangle wave through the
// borders, `sg.mod` with fmod) reads 2 x 2 taps, cubic with zeros padding 4 x 4, each tap one
// gather_elements over the flattened image. RotaryEmbedding: interleaved pairs of the first 4
// features, angles gathered at the position ids, the rest passed through. Checked against
// ONNX's reference implementation (lit-tests/frontend/inputs/make_fixtures.py; ONNX Runtime
// agrees).
// RUN: strata import %S/inputs/grid_rotary.onnx | FileCheck %s
// RUN: strata run %S/inputs/grid_rotary.onnx --input x=%S/../driver/inputs/grid_rotary_x.npy --input grid=%S/../driver/inputs/grid_rotary_grid.npy --input q=%S/../driver/inputs/grid_rotary_q.npy --input pos=%S/../driver/inputs/grid_rotary_pos.npy --expect linear=%S/../driver/inputs/grid_rotary_linear.npy --expect cubic=%S/../driver/inputs/grid_rotary_cubic.npy --expect rotated=%S/../driver/inputs/grid_rotary_rotated.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: func.func @main(%arg0: tensor<1x2x3x4xf32>, %arg1: tensor<1x2x3x2xf32>, %arg2: tensor<1x2x3x8xf32>, %arg3: tensor<1x3xi64>)
// CHECK: "sg.mod"({{.*}}) {fmod = 1 : i64}
// CHECK-COUNT-4: "sg.gather_elements"({{.*}}) {axis = 2 : i64} : (tensor<1x2x12xf32>, tensor<1x2x6xi64>) -> tensor<1x2x6xf32>
// CHECK-COUNT-16: "sg.gather_elements"({{.*}}) {axis = 2 : i64} : (tensor<1x2x12xf32>, tensor<1x2x6xi64>) -> tensor<1x2x6xf32>
// CHECK-NOT: "sg.gather_elements"
// CHECK: "sg.transpose"(%arg2) {{.*}} -> tensor<1x3x2x8xf32>
// CHECK: "sg.gather"(%{{.*}}, %arg3) {axis = 0 : i64} : (tensor<4x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 4 : i64} : (tensor<1x3x2x2x1xf32>, tensor<1x3x2x2x1xf32>) -> tensor<1x3x2x2x2xf32>
// CHECK: "sg.concat"({{.*}}) {axis = 3 : i64} : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>) -> tensor<1x3x2x8xf32>
// CHECK: "sg.transpose"({{.*}}) -> tensor<1x2x3x8xf32>
// CHECK: return

// NUMBERS: expect 'linear': 0 of 12 elements outside
// NUMBERS: expect 'cubic': 0 of 12 elements outside
// NUMBERS: expect 'rotated': 0 of 48 elements outside
