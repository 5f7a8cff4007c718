// strata-band-chains: a convolution and the pool (or convolution) that reads its result
// (through the convolution's elementwise epilogue and the reader's pad) run in bands of the
// reader's output rows; each band computes only the convolution rows its windows read, on a
// padded copy of only the input rows those need, applies the epilogue, pads them as the whole
// result was padded and pools (or convolves) them into its rows of the result. Only chains
// whose bands take at least `min-saving` bytes off the function's estimated peak (32 KiB by
// default: none of these small functions), and a sixth of it where the reader keeps its rows.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-band-chains{min-saving=0}))' --mlir-pass-statistics 2>&1 | FileCheck %s
// What it saves: one band of the convolution's result in the arena instead of the whole (both
// plans at 16-byte alignment, smaller than at 64 here: `plan-arena`'s `min-alignment`).
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-band-chains{min-saving=0}),strata-bufferize-and-plan)' | FileCheck %s --check-prefix=PLAN
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize-and-plan)' | FileCheck %s --check-prefix=WHOLE
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-band-chains))' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: (S) 0 banded

// 3x3 convolution, pad 1, on 16 x 8, a ReLU, then a 3x3 stride-2 max pool, pad 1, to 8 x 4:
// four bands of two pool rows. The first band's windows read a padding row and convolution
// rows 0-3, which read input rows 0-4 under one row of zeros; the second reads convolution
// rows 3-7 (the windows overlap by a row), input rows 2-8.
// CHECK-LABEL: func.func @stem
// CHECK: %[[ACC:.*]] = linalg.fill
// CHECK: %[[IN0:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 1, 5, 8] [1, 1, 1, 1]
// CHECK: %[[P0:.*]] = tensor.pad %[[IN0]] low[0, 0, 1, 1] high[0, 0, 0, 1]
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<1x2x4x8xf32>
// CHECK: %[[B0:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2xf32>) outs(%[[E0]] : tensor<1x2x4x8xf32>)
// CHECK: %[[C0:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P0]], %{{.*}} : tensor<1x1x6x10xf32>, tensor<2x1x3x3xf32>) outs(%[[B0]] : tensor<1x2x4x8xf32>)
// CHECK: %[[R0:.*]] = linalg.generic {{.*}} ins(%[[C0]] : tensor<1x2x4x8xf32>) outs(%[[C0]] : tensor<1x2x4x8xf32>) attrs = {strata.epilogue}
// CHECK: %[[Q0:.*]] = tensor.pad %[[R0]] low[0, 0, 1, 1] high[0, 0, 0, 1]
// CHECK: tensor<1x2x4x8xf32> to tensor<1x2x5x10xf32>
// CHECK: %[[OUT0:.*]] = tensor.extract_slice %[[ACC]][0, 0, 0, 0] [1, 2, 2, 4]
// CHECK: %[[POOL0:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[Q0]], %{{.*}} : tensor<1x2x5x10xf32>, tensor<3x3xi8>) outs(%[[OUT0]] : tensor<1x2x2x4xf32>)
// CHECK: %[[ACC1:.*]] = tensor.insert_slice %[[POOL0]] into %[[ACC]][0, 0, 0, 0] [1, 2, 2, 4]
// CHECK: tensor.extract_slice %arg0[0, 0, 2, 0] [1, 1, 7, 8] [1, 1, 1, 1]
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 1] high[0, 0, 0, 1]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x2x5x8xf32>
// CHECK: tensor.extract_slice %[[ACC1]][0, 0, 2, 0] [1, 2, 2, 4]
// CHECK: linalg.pooling_nchw_max
// The last band reads input rows 10-15 above one row of zeros.
// CHECK: tensor.extract_slice %arg0[0, 0, 10, 0] [1, 1, 6, 8] [1, 1, 1, 1]
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 1] high[0, 0, 1, 1]
// CHECK: %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 6, 0] [1, 2, 2, 4]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return %[[LAST]]
// PLAN-LABEL: func.func @stem
// PLAN-SAME: strata.arena_bytes = 680
// WHOLE-LABEL: func.func @stem
// WHOLE-SAME: strata.arena_bytes = 2160
#map = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @stem(%x: tensor<1x1x16x8xf32>) -> tensor<1x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %bias = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %window = arith.constant dense<0> : tensor<3x3xi8>
  %empty = tensor.empty() : tensor<1x2x16x8xf32>
  %b = linalg.generic {indexing_maps = [#map, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<2xf32>) outs(%empty : tensor<1x2x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x16x8xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x16x8xf32> to tensor<1x1x18x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x18x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x2x16x8xf32>) outs(%c : tensor<1x2x16x8xf32>) attrs = {strata.epilogue} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x16x8xf32>
  %q = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %lowest : f32
  } : tensor<1x2x16x8xf32> to tensor<1x2x18x10xf32>
  %e2 = tensor.empty() : tensor<1x2x8x4xf32>
  %acc = linalg.fill ins(%lowest : f32) outs(%e2 : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%q, %window : tensor<1x2x18x10xf32>, tensor<3x3xi8>) outs(%acc : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %pool : tensor<1x2x8x4xf32>
}

// Left whole: the convolution's result is also returned (it must exist whole), and a pool
// whose input is not a convolution's.
// CHECK-LABEL: func.func @left_whole
// CHECK-COUNT-1: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK-COUNT-2: linalg.pooling_nchw_max
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK: return
func.func @left_whole(%x: tensor<1x1x16x8xf32>, %y: tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %window = arith.constant dense<0> : tensor<2x2xi8>
  %empty = tensor.empty() : tensor<1x2x16x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x16x8xf32> to tensor<1x1x18x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x18x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %e2 = tensor.empty() : tensor<1x2x8x4xf32>
  %acc = linalg.fill ins(%lowest : f32) outs(%e2 : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%c, %window : tensor<1x2x16x8xf32>, tensor<2x2xi8>) outs(%acc : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %other = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%y, %window : tensor<1x2x16x8xf32>, tensor<2x2xi8>) outs(%acc : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %c, %pool, %other : tensor<1x2x16x8xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>
}

// The same chain before an op with a larger result (its peak, 1792 B, is the rest's; an
// intermediate: a result of the function is the caller's buffer and does not count). Whole,
// the chain's peak is 2160 B (its input padded, and its result produced inside its padded
// buffer); two bands already take it below the rest's, so it takes two, not four.
// CHECK-LABEL: func.func @fewer_bands
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @fewer_bands(%x: tensor<1x1x16x8xf32>) -> tensor<1x2x12x16xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %window = arith.constant dense<0> : tensor<3x3xi8>
  %empty = tensor.empty() : tensor<1x2x16x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x16x8xf32> to tensor<1x1x18x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x18x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %q = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %lowest : f32
  } : tensor<1x2x16x8xf32> to tensor<1x2x18x10xf32>
  %e2 = tensor.empty() : tensor<1x2x8x4xf32>
  %acc = linalg.fill ins(%lowest : f32) outs(%e2 : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%q, %window : tensor<1x2x18x10xf32>, tensor<3x3xi8>) outs(%acc : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %e3 = tensor.empty() : tensor<1x2x12x16xf32>
  %up = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 4)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%pool : tensor<1x2x8x4xf32>) outs(%e3 : tensor<1x2x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x12x16xf32>
  %e4 = tensor.empty() : tensor<1x2x12x16xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up : tensor<1x2x12x16xf32>) outs(%e4 : tensor<1x2x12x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x2x12x16xf32>
  return %neg : tensor<1x2x12x16xf32>
}

// The consumer is a stride-2 convolution: each band makes its own bias and applies the ReLU
// after it (both still for the register-blocked schedule to fuse), inserted into a new tensor.
// CHECK-LABEL: func.func @conv_after_conv
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<1x2x8x4xf32>
// CHECK: %[[A0:.*]] = linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x2x4x8xf32>
// CHECK: %[[R0:.*]] = linalg.generic {{.*}} ins(%[[A0]] : tensor<1x2x4x8xf32>) outs(%[[A0]] : tensor<1x2x4x8xf32>) attrs = {strata.epilogue}
// CHECK: %[[P0:.*]] = tensor.pad %[[R0]] low[0, 0, 1, 1] high[0, 0, 0, 1]
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<1x2x2x4xf32>
// CHECK: %[[B0:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2xf32>) outs(%[[E0]] : tensor<1x2x2x4xf32>)
// CHECK: %[[C0:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P0]], %{{.*}} : tensor<1x2x5x10xf32>, tensor<2x2x3x3xf32>) outs(%[[B0]] : tensor<1x2x2x4xf32>)
// CHECK: %[[Y0:.*]] = linalg.generic {{.*}} ins(%[[C0]] : tensor<1x2x2x4xf32>) outs(%[[C0]] : tensor<1x2x2x4xf32>) attrs = {strata.epilogue}
// CHECK: tensor.insert_slice %[[Y0]] into %[[OUT]][0, 0, 0, 0] [1, 2, 2, 4]
// CHECK-COUNT-3: tensor.insert_slice
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @conv_after_conv(%x: tensor<1x1x16x8xf32>) -> tensor<1x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %w2 = arith.constant dense<0.5> : tensor<2x2x3x3xf32>
  %bias = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %empty = tensor.empty() : tensor<1x2x16x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x16x8xf32> to tensor<1x1x18x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x18x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x2x16x8xf32>) outs(%c : tensor<1x2x16x8xf32>) attrs = {strata.epilogue} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x16x8xf32>
  %q = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x16x8xf32> to tensor<1x2x18x10xf32>
  %e2 = tensor.empty() : tensor<1x2x8x4xf32>
  %b2 = linalg.generic {indexing_maps = [#map, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<2xf32>) outs(%e2 : tensor<1x2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x8x4xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%q, %w2 : tensor<1x2x18x10xf32>, tensor<2x2x3x3xf32>) outs(%b2 : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x8x4xf32>) outs(%d : tensor<1x2x8x4xf32>) attrs = {strata.epilogue} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x4xf32>
  return %y : tensor<1x2x8x4xf32>
}

// The consumer is a stride-2 depthwise convolution (MobileNet's expansion then its strided
// depthwise step, the networks' memory peak): banded like a full one, each band making its own
// bias and clamp, its filter `C x 3 x 3` whole.
// CHECK-LABEL: func.func @depthwise_after_expansion
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<1x4x8x4xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x{{[0-9]+}}x8xf32>, tensor<4x1x1x1xf32>)
// CHECK: tensor.pad
// CHECK: %[[D0:.*]] = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x4x{{[0-9]+}}x10xf32>, tensor<4x3x3xf32>) outs(%{{.*}} : tensor<1x4x{{[0-9]}}x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[D0]] : tensor<1x4x{{[0-9]}}x4xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[OUT]][0, 0, 0, 0]
// CHECK: linalg.depthwise_conv_2d_nchw_chw
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw {{.*}} tensor<1x4x18x10xf32>
// CHECK: return
func.func @depthwise_after_expansion(%x: tensor<1x1x16x8xf32>) -> tensor<1x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x1x1x1xf32>
  %dw = arith.constant dense<0.25> : tensor<4x3x3xf32>
  %bias = arith.constant dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>
  %empty = tensor.empty() : tensor<1x4x16x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x1x16x8xf32>, tensor<4x1x1x1xf32>) outs(%b : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x4x16x8xf32>) outs(%c : tensor<1x4x16x8xf32>) attrs = {strata.epilogue} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x4x16x8xf32>
  %q = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x4x16x8xf32> to tensor<1x4x18x10xf32>
  %e2 = tensor.empty() : tensor<1x4x8x4xf32>
  %b2 = linalg.generic {indexing_maps = [#map, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<4xf32>) outs(%e2 : tensor<1x4x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x8x4xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%q, %dw : tensor<1x4x18x10xf32>, tensor<4x3x3xf32>) outs(%b2 : tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x4x8x4xf32>) outs(%d : tensor<1x4x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x4x8x4xf32>
  return %y : tensor<1x4x8x4xf32>
}

// Left whole: a depthwise step after a 3x3 convolution (an image stem): its bands would each
// compile a stem and a depthwise kernel of their own (MobileNetV3-Small's compile 1.03 -> 1.61 s).
// CHECK-LABEL: func.func @depthwise_after_stem
// CHECK-COUNT-1: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x18x10xf32>, tensor<4x3x3xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: return
func.func @depthwise_after_stem(%x: tensor<1x1x18x10xf32>) -> tensor<1x4x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x1x3x3xf32>
  %dw = arith.constant dense<0.25> : tensor<4x3x3xf32>
  %empty = tensor.empty() : tensor<1x4x16x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x1x18x10xf32>, tensor<4x1x3x3xf32>) outs(%b : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %q = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x4x16x8xf32> to tensor<1x4x18x10xf32>
  %e2 = tensor.empty() : tensor<1x4x8x4xf32>
  %b2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%q, %dw : tensor<1x4x18x10xf32>, tensor<4x3x3xf32>) outs(%b2 : tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  return %d : tensor<1x4x8x4xf32>
}

// A stride-1 convolution reading a convolution keeps its rows (ESPCN: a 5 x 5 stem, then a
// 64-channel 3 x 3 convolution, both 224 x 224): banded only where that takes at least a sixth
// off the function's estimated peak, here the pair (the stem's padded result beside the
// consumer's: 43264 B, 32600 in two bands). Its result, padded for the next convolution, is made inside the padded
// tensor: the bands (a bias and a ReLU each) are inserted into its interior, rows from 1 and
// columns from 1, and the next convolution reads the last insertion; no pad of the whole
// result is left.
// CHECK-LABEL: func.func @keeps_rows_into_pad
// CHECK: %[[PADDED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x34x18xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x16x17x16xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x18x18xf32>, tensor<2x16x3x3xf32>) outs(%{{.*}} : tensor<1x2x16x16xf32>)
// CHECK: %[[TOP:.*]] = linalg.generic {{.*}} attrs = {strata.epilogue}
// CHECK: %[[P1:.*]] = tensor.insert_slice %[[TOP]] into %[[PADDED]][0, 0, 1, 1] [1, 2, 16, 16]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x16x17x16xf32>
// CHECK: %[[P2:.*]] = tensor.insert_slice %{{.*}} into %[[P1]][0, 0, 17, 1] [1, 2, 16, 16]
// CHECK-NOT: tensor.pad
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P2]], %{{.*}} : tensor<1x2x34x18xf32>, tensor<2x2x3x3xf32>)
// CHECK: return
func.func @keeps_rows_into_pad(%x: tensor<1x1x32x16xf32>) -> tensor<1x2x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<16x1x3x3xf32>
  %w2 = arith.constant dense<0.5> : tensor<2x16x3x3xf32>
  %w3 = arith.constant dense<0.25> : tensor<2x2x3x3xf32>
  %bias = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x32x16xf32> to tensor<1x1x34x18xf32>
  %empty = tensor.empty() : tensor<1x16x32x16xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x16x32x16xf32>) -> tensor<1x16x32x16xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x34x18xf32>, tensor<16x1x3x3xf32>) outs(%b : tensor<1x16x32x16xf32>) -> tensor<1x16x32x16xf32>
  %q = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x32x16xf32> to tensor<1x16x34x18xf32>
  %e2 = tensor.empty() : tensor<1x2x32x16xf32>
  %b2 = linalg.generic {indexing_maps = [#map, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<2xf32>) outs(%e2 : tensor<1x2x32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x32x16xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%q, %w2 : tensor<1x16x34x18xf32>, tensor<2x16x3x3xf32>) outs(%b2 : tensor<1x2x32x16xf32>) -> tensor<1x2x32x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x32x16xf32>) outs(%d : tensor<1x2x32x16xf32>) attrs = {strata.epilogue} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x32x16xf32>
  %s = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x32x16xf32> to tensor<1x2x34x18xf32>
  %e3 = tensor.empty() : tensor<1x2x32x16xf32>
  %b3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x2x32x16xf32>) -> tensor<1x2x32x16xf32>
  %o = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%s, %w3 : tensor<1x2x34x18xf32>, tensor<2x2x3x3xf32>) outs(%b3 : tensor<1x2x32x16xf32>) -> tensor<1x2x32x16xf32>
  return %o : tensor<1x2x32x16xf32>
}

// Left whole: the same kind of pair (a 1x1 convolution, then an unpadded 3 x 3 one) while a
// larger value (4 KiB) is live across it: banding would take less than a sixth off the peak.
// CHECK-LABEL: func.func @keeps_rows
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @keeps_rows(%x: tensor<1x2x16x8xf32>, %y: tensor<1x8x16x8xf32>) -> (tensor<1x2x14x6xf32>, tensor<1x8x16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %w2 = arith.constant dense<0.5> : tensor<2x2x3x3xf32>
  %ey = tensor.empty() : tensor<1x8x16x8xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : tensor<1x8x16x8xf32>) outs(%ey : tensor<1x8x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8x16x8xf32>
  %empty = tensor.empty() : tensor<1x2x16x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x16x8xf32>, tensor<2x2x1x1xf32>) outs(%b : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %e2 = tensor.empty() : tensor<1x2x14x6xf32>
  %b2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x14x6xf32>) -> tensor<1x2x14x6xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c, %w2 : tensor<1x2x16x8xf32>, tensor<2x2x3x3xf32>) outs(%b2 : tensor<1x2x14x6xf32>) -> tensor<1x2x14x6xf32>
  %e3 = tensor.empty() : tensor<1x8x16x8xf32>
  %abs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%neg : tensor<1x8x16x8xf32>) outs(%e3 : tensor<1x8x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.absf %in : f32
    linalg.yield %a : f32
  } -> tensor<1x8x16x8xf32>
  return %d, %abs : tensor<1x2x14x6xf32>, tensor<1x8x16x8xf32>
}

// Left whole: an epilogue that reads its position (`linalg.index`) would see a band's rows
// numbered from the band's first.
// CHECK-LABEL: func.func @positional_epilogue
// CHECK-COUNT-1: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @positional_epilogue(%x: tensor<1x1x16x8xf32>) -> tensor<1x2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %window = arith.constant dense<0> : tensor<2x2xi8>
  %empty = tensor.empty() : tensor<1x2x16x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x16x8xf32> to tensor<1x1x18x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x18x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x2x16x8xf32>) outs(%c : tensor<1x2x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %row = linalg.index 2 : index
    %i = arith.index_cast %row : index to i32
    %f = arith.sitofp %i : i32 to f32
    %m = arith.addf %in, %f : f32
    linalg.yield %m : f32
  } -> tensor<1x2x16x8xf32>
  %e2 = tensor.empty() : tensor<1x2x8x4xf32>
  %acc = linalg.fill ins(%lowest : f32) outs(%e2 : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%r, %window : tensor<1x2x16x8xf32>, tensor<2x2xi8>) outs(%acc : tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %pool : tensor<1x2x8x4xf32>
}

// CHECK: (S) 5 banded
// CHECK: (S) 16 bands
