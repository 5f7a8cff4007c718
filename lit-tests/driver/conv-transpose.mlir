// ConvTranspose with a constant kernel as sub-pixel phase convolutions, executed and compared
// with float64 references (lit-tests/frontend/inputs/make_fixtures.py): k2s2 with bias, k4s2p1,
// grouped k3s2 with output_padding, strides (3, 1), SAME_UPPER, pads that crop the input, 1-D,
// 3-D, and a k1s2 whose odd phases have no taps (it keeps the zero-inserted form).
// RUN: strata run %S/../frontend/inputs/conv_transpose.onnx --input x=%S/inputs/conv_transpose_x.npy --input x1=%S/inputs/conv_transpose_x1.npy --input x3=%S/inputs/conv_transpose_x3.npy --expect y_k2s2=%S/inputs/conv_transpose_y_k2s2.npy --expect y_k4s2p1=%S/inputs/conv_transpose_y_k4s2p1.npy --expect y_grouped=%S/inputs/conv_transpose_y_grouped.npy --expect y_asym=%S/inputs/conv_transpose_y_asym.npy --expect y_same=%S/inputs/conv_transpose_y_same.npy --expect y_cropped=%S/inputs/conv_transpose_y_cropped.npy --expect y_k1s2=%S/inputs/conv_transpose_y_k1s2.npy --expect y_oned=%S/inputs/conv_transpose_y_oned.npy --expect y_threed=%S/inputs/conv_transpose_y_threed.npy | FileCheck %s
// RUN: strata import %S/../frontend/inputs/conv_transpose.onnx | FileCheck --check-prefix=IMPORT %s

// k2s2: every phase reads the same 1x1 window, so one convolution computes the four phases
// (16 = 4 phases x 4 filters, the bias tiled at import) and one transpose interleaves them.
// IMPORT-LABEL: func.func @main
// IMPORT: %[[B:.*]] = arith.constant dense_resource<k2s2_phases_bias{{.*}}> : tensor<16xf32>
// IMPORT: %[[K:.*]] = arith.constant dense_resource<k2s2_phases_kernel{{.*}}> : tensor<16x3x1x1xf32>
// IMPORT: %[[C:.*]] = "sg.conv2d"(%arg0, %[[K]], %[[B]]) {{.*}} : (tensor<1x3x5x6xf32>, tensor<16x3x1x1xf32>, tensor<16xf32>) -> tensor<1x16x5x6xf32>
// IMPORT: %[[S:.*]] = "sg.reshape"(%[[C]]) : (tensor<1x16x5x6xf32>) -> tensor<1x2x2x4x5x6xf32>
// IMPORT: %[[T:.*]] = "sg.transpose"(%[[S]]) {perm = array<i64: 0, 3, 4, 1, 5, 2>} : (tensor<1x2x2x4x5x6xf32>) -> tensor<1x4x5x2x6x2xf32>
// IMPORT: "sg.reshape"(%[[T]]) : (tensor<1x4x5x2x6x2xf32>) -> tensor<1x4x10x12xf32>
// k4s2p1: four 2x2 phase convolutions over the plain input (each padded on the side it reads
// beyond), interleaved by concats: no zero-inserted input.
// IMPORT-NOT: tensor<1x3x5x1x6x1xf32>
// IMPORT: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 1, 1, 0, 0>{{.*}}} : (tensor<1x3x5x6xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x5x6xf32>
// IMPORT: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 1, 0, 0, 1>{{.*}}} : (tensor<1x3x5x6xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x5x6xf32>
// IMPORT: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 0, 1, 1, 0>{{.*}}} : (tensor<1x3x5x6xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x5x6xf32>
// IMPORT: "sg.conv2d"(%arg0, {{.*}}) {{{.*}}pads = array<i64: 0, 0, 1, 1>{{.*}}} : (tensor<1x3x5x6xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x5x6xf32>
// IMPORT: "sg.concat"({{.*}}) {axis = 5 : i64}
// IMPORT: "sg.concat"({{.*}}) {axis = 5 : i64}
// IMPORT: "sg.concat"({{.*}}) {axis = 3 : i64} : (tensor<1x4x5x1x6x2xf32>, tensor<1x4x5x1x6x2xf32>) -> tensor<1x4x5x2x6x2xf32>
// IMPORT: "sg.reshape"({{.*}}) : (tensor<1x4x5x2x6x2xf32>) -> tensor<1x4x10x12xf32>
// k1s2: the odd phases read no tap, so the zeros are inserted as before.
// IMPORT: "sg.pad"({{.*}}) {{.*}} : (tensor<1x3x5x1x6x1xf32>) -> tensor<1x3x5x2x6x2xf32>

// CHECK: expect 'y_k2s2': 0 of 480 elements outside
// CHECK: expect 'y_k4s2p1': 0 of 480 elements outside
// CHECK: expect 'y_grouped': 0 of 720 elements outside
// CHECK: expect 'y_asym': 0 of 156 elements outside
// CHECK: expect 'y_same': 0 of 240 elements outside
// CHECK: expect 'y_cropped': 0 of 70 elements outside
// CHECK: expect 'y_k1s2': 0 of 198 elements outside
// CHECK: expect 'y_oned': 0 of 60 elements outside
// CHECK: expect 'y_threed': 0 of 630 elements outside
