// Operators that are compositions of others import as their subgraphs (the names below come
// from the expanded node), and constant-valued ones (window functions) fold; each result
// matches NumPy's.
// RUN: strata import %S/inputs/composite.onnx | FileCheck %s
// RUN: strata run %S/inputs/composite.onnx --input x=%S/../driver/inputs/composite_x.npy --input idx=%S/../driver/inputs/composite_idx.npy --expect lse=%S/../driver/inputs/composite_lse.npy --expect rms=%S/../driver/inputs/composite_rms.npy --expect d2s=%S/../driver/inputs/composite_d2s.npy --expect tri=%S/../driver/inputs/composite_tri.npy --expect hot=%S/../driver/inputs/composite_hot.npy --expect hann=%S/../driver/inputs/composite_hann.npy | FileCheck %s --check-prefix=NUMBERS

// ReduceLogSumExp: shifted by the maximum, so e^x cannot overflow.
// CHECK: "sg.reduce_max"(%arg0)
// CHECK: "sg.sub"(%arg0,
// CHECK: "sg.exp"
// CHECK: "sg.reduce_sum"
// CHECK: "sg.log"
// RMSNormalization: x / sqrt(mean(x^2) + epsilon) * scale.
// CHECK: "sg.reduce_mean"
// CHECK: "sg.sqrt"
// CHECK: "sg.reciprocal"
// DepthToSpace (DCR): reshape, transpose, reshape.
// CHECK: "sg.transpose"({{.*}}) {perm = array<i64: 0, 3, 4, 1, 5, 2>}
// Trilu: a constant mask.
// CHECK: "sg.where"
// OneHot: the indices compared with a constant range.
// CHECK: "sg.equal"
// The Hann window is a constant: no op computes it.
// CHECK: return

// NUMBERS-COUNT-6: expect '{{[a-z0-9]+}}': 0 of

// Col2Im (torch's Fold): a grouped ConvTranspose of the columns, reshaped to their block
// positions, with a constant one-hot kernel; equal to NumPy's sums.
// RUN: strata import %S/inputs/col2im.onnx | FileCheck %s --check-prefix=FOLD
// RUN: strata run %S/inputs/col2im.onnx --input x=%S/../driver/inputs/col2im_x.npy --expect y=%S/../driver/inputs/col2im_y.npy | FileCheck %s --check-prefix=FOLDED
// FOLD: "sg.reshape"(%arg0) : (tensor<1x12x9xf32>) -> tensor<1x12x3x3xf32>
// FOLD: "sg.conv2d"
// FOLD-SAME: group = 2
// FOLD-SAME: -> tensor<1x2x6x6xf32>
// FOLDED: expect 'y': 0 of 72 elements outside
