// Convolutions beyond 2-D, executed and compared with direct float64 references
// (lit-tests/frontend/inputs/make_fixtures.py): a 1-D Conv (2-D over a unit width), a grouped
// 3-D Conv with bias (one 2-D convolution per depth tap over strided depth slices folded into
// the batch, summed) and a 3-D ConvTranspose with a run-time kernel (zeros inserted along
// every axis, then the same 3-D path with the kernel flipped).
// RUN: strata run %S/../frontend/inputs/conv_nd.onnx --input x1=%S/inputs/conv_nd_x1.npy --input x3=%S/inputs/conv_nd_x3.npy --input xt=%S/inputs/conv_nd_xt.npy --input wt=%S/inputs/conv_nd_wt.npy --expect y1=%S/inputs/conv_nd_y1.npy --expect y3=%S/inputs/conv_nd_y3.npy --expect yt=%S/inputs/conv_nd_yt.npy | FileCheck %s
// RUN: strata import %S/../frontend/inputs/conv_nd.onnx | FileCheck --check-prefix=IMPORT %s

// IMPORT: %[[X1:.*]] = "sg.reshape"(%arg0) : (tensor<2x3x9xf32>) -> tensor<2x3x9x1xf32>
// IMPORT: "sg.conv2d"(%[[X1]], %{{.*}}) {dilations = array<i64: 2, 1>, group = 1 : i64, pads = array<i64: 2, 0, 2, 0>, strides = array<i64: 2, 1>}
// Depth next to the batch and padded; tap 1 reads depth slices 1, 3, 5 of the padded depth.
// IMPORT: %[[D:.*]] = "sg.transpose"(%arg1) {perm = array<i64: 0, 2, 1, 3, 4>}
// IMPORT: %[[P:.*]] = "sg.pad"(%[[D]])
// IMPORT: "sg.slice"(%[[P]]) {ends = array<i64: 1, 6, 4, 6, 5>, starts = array<i64: 0, 1, 0, 0, 0>, steps = array<i64: 1, 2, 1, 1, 1>}
// IMPORT: "sg.conv2d"({{.*}}) {dilations = array<i64: 1, 1>, group = 2 : i64
// IMPORT: "sg.add"
// IMPORT: "sg.transpose"({{.*}}) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x3x6x6x2xf32>) -> tensor<1x6x3x6x2xf32>
// The transposed convolution's zero insertion: [N, C, D, 1, H, 1, W, 1] padded to the strides.
// IMPORT: "sg.pad"({{.*}} : (tensor<1x2x3x1x4x1x3x1xf32>) -> tensor<1x2x3x2x4x1x3x2xf32>

// CHECK: expect 'y1': 0 of 40 elements outside
// CHECK: expect 'y3': 0 of 216 elements outside
// CHECK: expect 'yt': 0 of 630 elements outside
