// Spectral operators (crates/frontend/src/spectral.rs) as matmuls with constant twiddle
// matrices, accumulated in f64 and rounded once: STFT gathers its frames with one constant
// index table and multiplies by the window; a one-sided DFT is two [L, L/2+1] products (real
// and imaginary parts) and its one-sided inverse two [L/2+1, L] products; MelWeightMatrix
// folds to a constant. A log-mel front-end and a DFT round trip, checked against ONNX's
// reference implementation (lit-tests/frontend/inputs/make_fixtures.py; ONNX Runtime agrees).
// RUN: strata import %S/inputs/spectral.onnx | FileCheck %s
// RUN: strata run %S/inputs/spectral.onnx --input signal=%S/../driver/inputs/spectral_signal.npy --expect log_mel=%S/../driver/inputs/spectral_log_mel.npy --expect rfft=%S/../driver/inputs/spectral_rfft.npy --expect round_trip=%S/../driver/inputs/spectral_round_trip.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: "sg.gather"(%arg0, %{{.*}}) {axis = 1 : i64} : (tensor<1x64x1xf32>, tensor<3x32xi64>) -> tensor<1x3x32x1xf32>
// CHECK: "sg.mul"({{.*}}) : (tensor<1x3x32x1xf32>, tensor<1x1x32x1xf32>) -> tensor<1x3x32x1xf32>
// CHECK: %[[WIDE:.*]] = "sg.cast"(%{{.*}}) : (tensor<1x3x32xf32>) -> tensor<1x3x32xf64>
// CHECK: "sg.matmul"(%[[WIDE]], %{{.*}}) : (tensor<1x3x32xf64>, tensor<32x17xf64>) -> tensor<1x3x17xf64>
// CHECK: "sg.matmul"(%[[WIDE]], %{{.*}}) : (tensor<1x3x32xf64>, tensor<32x17xf64>) -> tensor<1x3x17xf64>
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<1x3x17xf32>, tensor<17x8xf32>) -> tensor<1x3x8xf32>
// CHECK: "sg.log"
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<1x64xf64>, tensor<64x33xf64>) -> tensor<1x33xf64>
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<1x33xf64>, tensor<33x64xf64>) -> tensor<1x64xf64>

// NUMBERS: expect 'log_mel': 0 of 24 elements outside
// NUMBERS: expect 'rfft': 0 of 66 elements outside
// NUMBERS: expect 'round_trip': 0 of 64 elements outside
