// float8 E8M0 casts with each round_mode, read back as float32 and compared exactly (atol 0,
// rtol 0) with a numpy reference of ONNX's Cast definition: fractions between powers of two
// round up, down or to the nearer power (guard, round and sticky bits); a float32 subnormal;
// the top exponent saturates; the sign is dropped. Reference:
// lit-tests/frontend/inputs/make_fixtures.py.
// RUN: strata run %S/../frontend/inputs/cast_e8m0.onnx --input x=%S/inputs/e8m0_x.npy --expect y_up=%S/inputs/e8m0_y_up.npy --expect y_down=%S/inputs/e8m0_y_down.npy --expect y_nearest=%S/inputs/e8m0_y_nearest.npy --atol 0 --rtol 0 | FileCheck %s
// RUN: strata import %S/../frontend/inputs/cast_e8m0.onnx | FileCheck --check-prefix=IMPORT %s

// IMPORT: "sg.cast"(%arg0) : (tensor<14xf32>) -> tensor<14xf8E8M0FNU>
// IMPORT: "sg.cast"(%arg0) {round_mode = 1 : i64} : (tensor<14xf32>) -> tensor<14xf8E8M0FNU>
// IMPORT: "sg.cast"(%arg0) {round_mode = 2 : i64} : (tensor<14xf32>) -> tensor<14xf8E8M0FNU>

// CHECK: expect 'y_up': 0 of 14 elements outside
// CHECK: expect 'y_down': 0 of 14 elements outside
// CHECK: expect 'y_nearest': 0 of 14 elements outside
