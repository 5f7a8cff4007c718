// Epilogue fusion: a convolution's elementwise consumers (here the batch norm's scale and
// shift, and ReLU6) run inside the convolution. sg-egraph-optimize (and the fusion phase on its
// own) keeps the convolution and writes the fused program over its result, marked
// strata.epilogue: one launch and one buffer instead of two and two.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-fuse-elementwise))' 2>&1 | FileCheck %s --check-prefix=PHASE
// The host schedule then tiles the epilogue by the convolution's register block and computes
// each convolution tile inside it: the program runs on the accumulators (vectors), and neither
// a convolution nor a separate epilogue kernel is left.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize,sg-to-linalg),strata-cpu-schedule{vector-lanes=16})' | FileCheck %s --check-prefix=TILED
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-egraph-optimize,sg-to-linalg),strata-cpu-schedule{vector-lanes=8})' | FileCheck %s --check-prefix=TILED

// CHECK-LABEL: func.func @conv_bn_relu6
// CHECK: %[[CONV:.*]] = "sg.conv2d"
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[CONV]], %{{.*}}, %{{.*}} : tensor<1x32x8x8xf32>, tensor<32x1x1xf32>, tensor<32x1x1xf32>) outs(%[[CONV]] : tensor<1x32x8x8xf32>) attrs = {strata.epilogue}
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK-NOT: "sg.
// CHECK: (S) 6 launches-before
// CHECK: (S) 1 launches-after
// CHECK: (S) 1 epilogues

// PHASE: "sg.conv2d"
// PHASE-NEXT: linalg.generic {{.*}} attrs = {strata.epilogue}

// TILED-LABEL: func.func @conv_bn_relu6
// TILED-NOT: linalg.conv_2d
// TILED: scf.for
// TILED: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<
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
