// GroupNormalization (opset 21) imports as its subgraph: the statistics over each group in the
// (N, groups, channels of a group x the rest) shape, then the normalisation, scale and bias in
// one shape (N, groups, channels of a group, the rest), so that they fuse into one elementwise
// program over the input and no buffer of the input's size is planned; the result matches
// NumPy's (statistics in float64).
// RUN: strata import %S/inputs/group_norm.onnx | FileCheck %s
// RUN: strata run %S/inputs/group_norm.onnx --input x=%S/../driver/inputs/group_norm_x.npy --expect y=%S/../driver/inputs/group_norm_y.npy --atol 1e-4 --rtol 1e-4 | FileCheck %s --check-prefix=NUMBERS

// CHECK: %[[GROUPS:.*]] = "sg.reshape"(%arg0) : (tensor<2x8x6x6xf32>) -> tensor<2x4x72xf32>
// CHECK: %[[MEAN:.*]] = "sg.reduce_mean"(%[[GROUPS]]) {axes = array<i64: 2>, keepdims = 1 : i64}
// The variance of the centred values: no cancellation for inputs far from zero (the fixture's
// are around 300, spread 3).
// CHECK: %[[CENTRED:.*]] = "sg.sub"(%[[GROUPS]], %[[MEAN]])
// CHECK: %[[SQ:.*]] = "sg.mul"(%[[CENTRED]], %[[CENTRED]])
// CHECK: "sg.reduce_mean"(%[[SQ]])
// CHECK: %[[DEV:.*]] = "sg.sqrt"
// CHECK: %[[SPLIT:.*]] = "sg.reshape"(%arg0) : (tensor<2x8x6x6xf32>) -> tensor<2x4x2x36xf32>
// CHECK: %[[MEAN4:.*]] = "sg.reshape"(%[[MEAN]]) : (tensor<2x4x1xf32>) -> tensor<2x4x1x1xf32>
// CHECK: %[[DEV4:.*]] = "sg.reshape"(%[[DEV]]) : (tensor<2x4x1xf32>) -> tensor<2x4x1x1xf32>
// CHECK: %[[C:.*]] = "sg.sub"(%[[SPLIT]], %[[MEAN4]]) : (tensor<2x4x2x36xf32>, tensor<2x4x1x1xf32>) -> tensor<2x4x2x36xf32>
// CHECK: %[[N:.*]] = "sg.div"(%[[C]], %[[DEV4]])
// CHECK: %[[S:.*]] = "sg.mul"(%{{.*}}, %[[N]]) : (tensor<1x4x2x1xf32>, tensor<2x4x2x36xf32>) -> tensor<2x4x2x36xf32>
// CHECK: %[[B:.*]] = "sg.add"(%[[S]], %{{.*}}) : (tensor<2x4x2x36xf32>, tensor<1x4x2x1xf32>) -> tensor<2x4x2x36xf32>
// CHECK: "sg.reshape"(%[[B]]) : (tensor<2x4x2x36xf32>) -> tensor<2x8x6x6xf32>

// The arena holds the statistics only (two 2 x 4 tensors), not a normalised copy of the input.
// NUMBERS: arena: {{[0-9][0-9]?[0-9]?}} B,
// NUMBERS: expect 'y': 0 of 576 elements outside
