// Spectral operators (crates/frontend/src/spectral.rs). An STFT with a constant window is one
// strided convolution of the signal whose filters are the window times the DFT matrix (real
// parts' filters first, 2 x bins of them; no framed copy of the signal), its output read as
// [batch, frames, bins, 2] through a reshape and a transpose. A DFT is matmuls with
// constant twiddle matrices, accumulated in f64 and rounded once: a one-sided DFT is two
// [L, L/2+1] products (real and imaginary parts) and its one-sided inverse two [L/2+1, L]
// products. MelWeightMatrix folds to a constant. A log-mel front-end and a DFT round trip,
// checked against ONNX's reference implementation (lit-tests/frontend/inputs/make_fixtures.py;
// ONNX Runtime agrees).
// RUN: strata import %S/inputs/spectral.onnx | FileCheck %s
// RUN: strata run %S/inputs/spectral.onnx --input signal=%S/../driver/inputs/spectral_signal.npy --expect log_mel=%S/../driver/inputs/spectral_log_mel.npy --expect rfft=%S/../driver/inputs/spectral_rfft.npy --expect round_trip=%S/../driver/inputs/spectral_round_trip.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: %[[SIGNAL:.*]] = "sg.reshape"(%arg0) : (tensor<1x64x1xf32>) -> tensor<1x1x64x1xf32>
// CHECK: "sg.conv2d"(%[[SIGNAL]], %{{.*}}) {{{.*}}strides = array<i64: 16, 1>} : (tensor<1x1x64x1xf32>, tensor<34x1x32x1xf32>) -> tensor<1x34x3x1xf32>
// CHECK: "sg.reshape"({{.*}}) -> tensor<1x2x17x3xf32>
// CHECK: "sg.transpose"({{.*}}) {perm = array<i64: 0, 3, 2, 1>} : (tensor<1x2x17x3xf32>) -> tensor<1x3x17x2xf32>
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<1x3x17xf32>, tensor<17x8xf32>) -> tensor<1x3x8xf32>
// CHECK: "sg.log"
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<1x64xf64>, tensor<64x33xf64>) -> tensor<1x33xf64>
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<1x33xf64>, tensor<33x64xf64>) -> tensor<1x64xf64>

// NUMBERS: expect 'log_mel': 0 of 24 elements outside
// NUMBERS: expect 'rfft': 0 of 66 elements outside
// NUMBERS: expect 'round_trip': 0 of 64 elements outside
