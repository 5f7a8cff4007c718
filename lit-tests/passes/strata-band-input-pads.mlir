// strata-band-input-pads: a convolution over a pad of a graph input (read-only, so the pad is a
// copy) runs in bands of output rows, each over a padded copy of only the input rows its
// windows read, rounded up to whole strides; each band writes its slice of the result.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-band-input-pads))' --mlir-pass-statistics 2>&1 | FileCheck %s
// What it saves: one band's copy in the arena instead of the whole padded input.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-band-input-pads),strata-bufferize-and-plan)' | FileCheck %s --check-prefix=PLAN
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize-and-plan)' | FileCheck %s --check-prefix=WHOLE

// 3x3 stride 2, pad 1, on 32x8 -> 16x4: two bands of 8 output rows. The first reads input
// rows 0-16 under one row of top padding (8 strides, 18 rows), the second rows 15-31 above
// one row of bottom padding; the columns keep their padding.
// CHECK-LABEL: func.func @stem
// CHECK: %[[TOP:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 1, 17, 8] [1, 1, 1, 1]
// CHECK: %[[P0:.*]] = tensor.pad %[[TOP]] low[0, 0, 1, 1] high[0, 0, 0, 1]
// CHECK: tensor<1x1x17x8xf32> to tensor<1x1x18x10xf32>
// CHECK: %[[OUT0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 2, 8, 4]
// CHECK: %[[C0:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P0]], %{{.*}} : tensor<1x1x18x10xf32>, tensor<2x1x3x3xf32>) outs(%[[OUT0]] : tensor<1x2x8x4xf32>)
// CHECK: %[[ACC:.*]] = tensor.insert_slice %[[C0]] into %{{.*}}[0, 0, 0, 0] [1, 2, 8, 4]
// CHECK: %[[BOTTOM:.*]] = tensor.extract_slice %arg0[0, 0, 15, 0] [1, 1, 17, 8] [1, 1, 1, 1]
// CHECK: tensor.pad %[[BOTTOM]] low[0, 0, 0, 1] high[0, 0, 1, 1]
// CHECK: tensor.extract_slice %[[ACC]][0, 0, 8, 0] [1, 2, 8, 4]
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][0, 0, 8, 0] [1, 2, 8, 4]
// PLAN-LABEL: func.func @stem
// PLAN-SAME: strata.arena_bytes = 720
// WHOLE-LABEL: func.func @stem
// WHOLE-SAME: strata.arena_bytes = 1360
func.func @stem(%x: tensor<1x1x32x8xf32>) -> tensor<1x2x16x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %empty = tensor.empty() : tensor<1x2x16x4xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x16x4xf32>) -> tensor<1x2x16x4xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x32x8xf32> to tensor<1x1x34x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x1x34x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x16x4xf32>) -> tensor<1x2x16x4xf32>
  return %c : tensor<1x2x16x4xf32>
}

// Left whole: a pad of a computed value (produced in place, `strata-pad-in-place`), and an
// output of fewer than two bands of 8 rows.
// CHECK-LABEL: func.func @left_whole
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @left_whole(%x: tensor<1x1x32x8xf32>, %y: tensor<1x1x12x8xf32>) -> (tensor<1x2x32x8xf32>, tensor<1x2x12x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %empty = tensor.empty() : tensor<1x2x32x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x32x8xf32>) -> tensor<1x2x32x8xf32>
  %e2 = tensor.empty() : tensor<1x2x12x8xf32>
  %b2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x12x8xf32>) -> tensor<1x2x12x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x32x8xf32>) outs(%x : tensor<1x1x32x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x1x32x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x32x8xf32> to tensor<1x1x34x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x34x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x32x8xf32>) -> tensor<1x2x32x8xf32>
  %q = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x12x8xf32> to tensor<1x1x14x10xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%q, %w : tensor<1x1x14x10xf32>, tensor<2x1x3x3xf32>) outs(%b2 : tensor<1x2x12x8xf32>) -> tensor<1x2x12x8xf32>
  return %c, %d : tensor<1x2x32x8xf32>, tensor<1x2x12x8xf32>
}

// The stem is the peak (its padded input and its result, 1872 bytes) when what follows is
// counted as bufferization leaves it: the expansion is produced inside its padded buffer
// (864 bytes, not its 512 and a copy), and the three slices the strided convolutions read are
// views of it, not 680 bytes each. Banded, the stem takes 1192 and the arena is the
// expansion's 1376 (PLAN); whole, 1872 (WHOLE).
// CHECK-LABEL: func.func @stem_before_a_padded_expansion
// CHECK-COUNT-2: } : tensor<1x1x17x8xf32> to tensor<1x1x18x10xf32>
// PLAN-LABEL: func.func @stem_before_a_padded_expansion
// PLAN-SAME: strata.arena_bytes = 1376
// WHOLE-LABEL: func.func @stem_before_a_padded_expansion
// WHOLE-SAME: strata.arena_bytes = 1872
func.func @stem_before_a_padded_expansion(%x: tensor<1x1x32x8xf32>) -> tensor<1x1x8x2xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<2x1x3x3xf32>
  %we = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %wd = arith.constant dense<1.0> : tensor<1x2x3x3xf32>
  %empty = tensor.empty() : tensor<1x2x16x4xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x16x4xf32>) -> tensor<1x2x16x4xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x1x32x8xf32> to tensor<1x1x34x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x1x34x10xf32>, tensor<2x1x3x3xf32>) outs(%b : tensor<1x2x16x4xf32>) -> tensor<1x2x16x4xf32>
  %ee = tensor.empty() : tensor<1x2x16x4xf32>
  %be = linalg.fill ins(%zero : f32) outs(%ee : tensor<1x2x16x4xf32>) -> tensor<1x2x16x4xf32>
  %e = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c, %we : tensor<1x2x16x4xf32>, tensor<2x2x1x1xf32>) outs(%be : tensor<1x2x16x4xf32>) -> tensor<1x2x16x4xf32>
  %q = tensor.pad %e low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x16x4xf32> to tensor<1x2x18x6xf32>
  %v1 = tensor.extract_slice %q[0, 0, 0, 0] [1, 2, 17, 5] [1, 1, 1, 1] : tensor<1x2x18x6xf32> to tensor<1x2x17x5xf32>
  %v2 = tensor.extract_slice %q[0, 0, 1, 0] [1, 2, 17, 5] [1, 1, 1, 1] : tensor<1x2x18x6xf32> to tensor<1x2x17x5xf32>
  %v3 = tensor.extract_slice %q[0, 0, 0, 1] [1, 2, 17, 5] [1, 1, 1, 1] : tensor<1x2x18x6xf32> to tensor<1x2x17x5xf32>
  %ed = tensor.empty() : tensor<1x1x8x2xf32>
  %bd = linalg.fill ins(%zero : f32) outs(%ed : tensor<1x1x8x2xf32>) -> tensor<1x1x8x2xf32>
  %d1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%v1, %wd : tensor<1x2x17x5xf32>, tensor<1x2x3x3xf32>) outs(%bd : tensor<1x1x8x2xf32>) -> tensor<1x1x8x2xf32>
  %d2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%v2, %wd : tensor<1x2x17x5xf32>, tensor<1x2x3x3xf32>) outs(%d1 : tensor<1x1x8x2xf32>) -> tensor<1x1x8x2xf32>
  %d3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%v3, %wd : tensor<1x2x17x5xf32>, tensor<1x2x3x3xf32>) outs(%d2 : tensor<1x1x8x2xf32>) -> tensor<1x1x8x2xf32>
  return %d3 : tensor<1x1x8x2xf32>
}

// CHECK: (S) 2 banded
