// strata-split-concat-convs: a convolution reading a concatenation of channels runs as one
// convolution per part, each accumulating into the next one's initial value (the filter
// sliced by the part's channels), the earliest-made part's first and moved up to where the
// function's estimated peak is lowest; only where that takes 32 KiB or more off the peak
// (`all=true`: every candidate, nothing moved).
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-split-concat-convs))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-split-concat-convs{all=true}))' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=ALL

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A neck: a 32-channel branch (128 KiB) made first, a 16-channel one made of three maps after
// it, their concatenation mixed by a 1x1 convolution. Whole, the first branch, the second and
// the concatenation are live at once (384 KiB). Split, the first branch's convolution runs
// early in the second branch (its initial value with it; as low a peak as right after the
// first branch, and moved no further), the first branch dies there and the result (64 KiB)
// lives through the rest of the second instead: 256 KiB.
// CHECK-LABEL: func.func @neck
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x32x32x32xf32>)
// CHECK: %[[B1:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<1x16x32x32xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[WA:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [16, 32, 1, 1] [1, 1, 1, 1]
// CHECK: %[[CA:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[A]], %[[WA]] : tensor<1x32x32x32xf32>, tensor<16x32x1x1xf32>) outs(%[[INIT]] : tensor<1x16x32x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[B1]] : tensor<1x16x32x32xf32>)
// CHECK: %[[WB:.*]] = tensor.extract_slice %{{.*}}[0, 32, 0, 0] [16, 16, 1, 1] [1, 1, 1, 1]
// CHECK: %[[CB:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %[[WB]] : tensor<1x16x32x32xf32>, tensor<16x16x1x1xf32>) outs(%[[CA]] : tensor<1x16x32x32xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic {{.*}} ins(%[[CB]] : tensor<1x16x32x32xf32>)
// CHECK: return
// ALL-LABEL: func.func @neck
// ALL-COUNT-2: linalg.conv_2d_nchw_fchw
// ALL-NOT: tensor.insert_slice
// ALL: return
func.func @neck(%x: tensor<1x32x32x32xf32>, %y: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<16x48x1x1xf32>
  %ea = tensor.empty() : tensor<1x32x32x32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x32x32x32xf32>) outs(%ea : tensor<1x32x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x32x32x32xf32>
  %e1 = tensor.empty() : tensor<1x16x32x32xf32>
  %b1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : tensor<1x16x32x32xf32>) outs(%e1 : tensor<1x16x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.absf %in : f32
    linalg.yield %m : f32
  } -> tensor<1x16x32x32xf32>
  %e2 = tensor.empty() : tensor<1x16x32x32xf32>
  %b2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<1x16x32x32xf32>) outs(%e2 : tensor<1x16x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<1x16x32x32xf32>
  %e3 = tensor.empty() : tensor<1x16x32x32xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1, %b2 : tensor<1x16x32x32xf32>, tensor<1x16x32x32xf32>) outs(%e3 : tensor<1x16x32x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x16x32x32xf32>
  %cat = tensor.empty() : tensor<1x48x32x32xf32>
  %i1 = tensor.insert_slice %a into %cat[0, 0, 0, 0] [1, 32, 32, 32] [1, 1, 1, 1] : tensor<1x32x32x32xf32> into tensor<1x48x32x32xf32>
  %i2 = tensor.insert_slice %b into %i1[0, 32, 0, 0] [1, 16, 32, 32] [1, 1, 1, 1] : tensor<1x16x32x32xf32> into tensor<1x48x32x32xf32>
  %eo = tensor.empty() : tensor<1x16x32x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i2, %w : tensor<1x48x32x32xf32>, tensor<16x48x1x1xf32>) outs(%init : tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
  %er = tensor.empty() : tensor<1x16x32x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x16x32x32xf32>) outs(%er : tensor<1x16x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x32x32xf32>
  return %r : tensor<1x16x32x32xf32>
}

// Small maps: the split would take less than 32 KiB off the peak, so by default the
// concatenation is made; with `all=true` it is not, the parts in the order they are made
// (arguments: by channel).
// CHECK-LABEL: func.func @small
// CHECK: tensor.insert_slice
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>)
// ALL-LABEL: func.func @small
// ALL-NOT: tensor.insert_slice
// ALL: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 2, 1, 1]
// ALL: %[[C1:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%arg0, %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%arg2 : tensor<1x2x4x4xf32>)
// ALL: tensor.extract_slice %{{.*}}[0, 2, 0, 0] [2, 2, 1, 1]
// ALL: linalg.conv_2d_nchw_fchw {{.*}} ins(%arg1, %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%[[C1]] : tensor<1x2x4x4xf32>)
func.func @small(%a: tensor<1x2x4x4xf32>, %b: tensor<1x2x4x4xf32>, %init: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<2x4x1x1xf32>
  %cat = tensor.empty() : tensor<1x4x4x4xf32>
  %i1 = tensor.insert_slice %b into %cat[0, 2, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x4x4x4xf32>
  %i2 = tensor.insert_slice %a into %i1[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i2, %w : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c : tensor<1x2x4x4xf32>
}

// Left whole even with `all=true`: a padded concatenation (each part would need a padded
// copy of its own), and channels written twice.
// ALL-LABEL: func.func @left_whole
// ALL-COUNT-2: tensor.insert_slice
// ALL: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xf32>, tensor<2x4x3x3xf32>)
// ALL: tensor.insert_slice
// ALL: tensor.insert_slice
// ALL: tensor.insert_slice
// ALL: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>)
// ALL: return
func.func @left_whole(%a: tensor<1x2x4x4xf32>, %b: tensor<1x2x4x4xf32>, %init: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<2x4x3x3xf32>
  %w1 = arith.constant dense<0.5> : tensor<2x4x1x1xf32>
  %cat = tensor.empty() : tensor<1x4x4x4xf32>
  %i1 = tensor.insert_slice %a into %cat[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x4x4x4xf32>
  %i2 = tensor.insert_slice %b into %i1[0, 2, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x4x4x4xf32>
  %p = tensor.pad %i2 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %j1: index, %j2: index, %j3: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x4xf32> to tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x4x6x6xf32>, tensor<2x4x3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %cat2 = tensor.empty() : tensor<1x4x4x4xf32>
  %j1 = tensor.insert_slice %a into %cat2[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x4x4x4xf32>
  %j2 = tensor.insert_slice %b into %j1[0, 2, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x4x4x4xf32>
  %j3 = tensor.insert_slice %a into %j2[0, 1, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x4x4x4xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%j3, %w1 : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c, %d : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// CHECK: (S) 1 split
// CHECK: (S) 1 kept
// ALL: (S) 2 split
