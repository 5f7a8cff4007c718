// Epilogue fusion: a convolution's elementwise consumers (here the batch norm's scale and
// shift, and ReLU6) run inside the convolution. sg-egraph-optimize (and the fusion phase on its
// own) keeps the convolution and writes the fused program over its result (`sg.fused` with
// epilogue = 1, lowered to a generic marked strata.epilogue): one launch and one buffer instead
// of two and two. Which convolutions take epilogues depends on the target's registers, which the
// pass is told: without vector lanes (and on the GPU) none does.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16}))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-fuse-elementwise{vector-lanes=8}))' 2>&1 | FileCheck %s --check-prefix=PHASE
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16},sg-to-linalg))' | FileCheck %s --check-prefix=LINALG
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize{target=nvptx vector-lanes=16}))' | FileCheck %s --check-prefix=GPU
// The host schedule then tiles the epilogue by the convolution's register block and computes
// each convolution tile inside it: the program runs on the accumulators (vectors), and neither
// a convolution nor a separate epilogue kernel is left.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16},sg-to-linalg),strata-cpu-schedule{vector-lanes=16})' | FileCheck %s --check-prefix=TILED
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=8},sg-to-linalg),strata-cpu-schedule{vector-lanes=8})' | FileCheck %s --check-prefix=TILED

// CHECK-LABEL: func.func @conv_bn_relu6
// CHECK: %[[CONV:.*]] = "sg.conv2d"
// CHECK: %[[SCALE:.*]] = "sg.view"(%arg3) {offset = 0 : i64, sizes = array<i64: 1, 32, 8, 8>, strides = array<i64: 0, 1, 0, 0>}
// CHECK: %[[SHIFT:.*]] = "sg.view"(%arg4)
// CHECK: "sg.fused"(%[[CONV]], %[[SCALE]], %[[SHIFT]]) {epilogue = 1 : i64, program = "mul(i0,i1) add(s0,i2) clip<0.0,6.0>(s1)"}
// CHECK-NOT: "sg.mul"
// CHECK-NOT: linalg.
// CHECK: (S) 6 launches-before
// CHECK: (S) 1 launches-after
// CHECK: (S) 1 epilogues

// PHASE: "sg.conv2d"
// PHASE: "sg.fused"{{.*}}epilogue = 1

// The epilogue's generic writes over the convolution's result and reads the per-channel
// parameters where they are.
// LINALG: %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// LINALG: linalg.generic {{.*}} ins(%[[CONV]], %{{.*}}, %{{.*}} : tensor<1x32x8x8xf32>, tensor<32x1x1xf32>, tensor<32x1x1xf32>) outs(%[[CONV]] : tensor<1x32x8x8xf32>) attrs = {strata.epilogue}
// LINALG: arith.mulf
// LINALG-NEXT: arith.addf
// LINALG: arith.maximumf
// LINALG: arith.minimumf

// GPU: "sg.conv2d"
// GPU: "sg.fused"
// GPU-NOT: epilogue
// GPU-SAME: program = "mul(i0,i1) add(s0,i2) clip<0.0,6.0>(s1)"

// TILED-LABEL: func.func @conv_bn_relu6
// TILED-NOT: linalg.conv_2d
// TILED: scf.for
// TILED: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>}
// TILED: arith.minimumf %{{.*}}, %{{.*}} : vector<
// TILED-NOT: strata.epilogue
// TILED-NOT: linalg.generic
// TILED: return
func.func @conv_bn_relu6(%x: tensor<1x8x8x8xf32>, %w: tensor<32x8x1x1xf32>, %b: tensor<32xf32>, %scale: tensor<32x1x1xf32>, %shift: tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32> {
  %0 = "sg.conv2d"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x1x1xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %1 = "sg.mul"(%0, %scale) : (tensor<1x32x8x8xf32>, tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32>
  %2 = "sg.add"(%1, %shift) : (tensor<1x32x8x8xf32>, tensor<32x1x1xf32>) -> tensor<1x32x8x8xf32>
  %3 = "sg.clip"(%2) {min = 0.0 : f64, max = 6.0 : f64} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %3 : tensor<1x32x8x8xf32>
}
