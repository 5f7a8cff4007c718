// strata-conv-borders: a depthwise convolution or a pool over a pad reads its unpadded input;
// where a window reaches into the padding it runs with the window cut to the taps inside.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-conv-borders))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-conv-borders))' | FileCheck %s --check-prefix=PARTS
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-conv-borders{all=true}))' | FileCheck %s --check-prefix=ALL
// What it saves: the relu's result is planned without its padded copy (or padded buffer).
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-conv-borders),strata-bufferize-and-plan)' | FileCheck %s --check-prefix=PLAN
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize-and-plan)' | FileCheck %s --check-prefix=PADDED

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// 3x3, stride 1, pad 1 on 8x8: three classes of rows and of columns (the first loses its top
// tap row, the interior keeps all, the last loses its bottom one), nine parts. The interior
// comes first and reads the input as it is; each part runs the ReLU6 that followed.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: tensor.pad
// CHECK: %[[INNER:.*]] = tensor.extract_slice %[[FILL:.*]][0, 0, 1, 1] [1, 2, 6, 6] [1, 1, 1, 1]
// CHECK: %[[C0:.*]] = linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%{{.*}}, %arg1 : tensor<1x2x8x8xf32>, tensor<2x3x3xf32>) outs(%[[INNER]] : tensor<1x2x6x6xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[C0]] : tensor<1x2x6x6xf32>) outs(%[[C0]] : tensor<1x2x6x6xf32>)
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: %[[ACC:.*]] = tensor.insert_slice %{{.*}} into %[[FILL]][0, 0, 1, 1] [1, 2, 6, 6]
// The top row of the interior columns: input rows 0-1, filter rows 1-2.
// CHECK: tensor.extract_slice %[[ACC]][0, 0, 0, 1] [1, 2, 1, 6]
// CHECK: tensor.extract_slice %[[RELU:.*]][0, 0, 0, 0] [1, 2, 2, 8]
// CHECK: tensor.extract_slice %arg1[0, 1, 0] [2, 2, 3] [1, 1, 1] : tensor<2x3x3xf32> to tensor<2x2x3xf32>
// The top-left corner: a 2x2 window on a 2x2 input.
// CHECK: tensor.extract_slice %arg1[0, 1, 1] [2, 2, 2]
// PARTS-LABEL: func.func @depthwise
// PARTS-COUNT-9: linalg.depthwise_conv_2d_nchw_chw
// PARTS-NOT: linalg.depthwise_conv_2d_nchw_chw
// PARTS: return
func.func @depthwise(%x: tensor<1x2x8x8xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %empty = tensor.empty() : tensor<1x2x8x8xf32>
  %b = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x8x8xf32>) outs(%x : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x10x10xf32>, tensor<2x3x3xf32>) outs(%b : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x2x8x8xf32>) outs(%c : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}

// The relu's result is the arena (the convolution's is the caller's); without the pass, its
// padded copy is planned beside it.
// PLAN-LABEL: func.func @depthwise
// PLAN-SAME: strata.arena_bytes = 512
// PLAN-NOT: memref.copy
// PADDED-LABEL: func.func @depthwise
// PADDED-SAME: strata.arena_bytes = 1312

// Max pool 3x3, stride 2, pad 1 (the -inf of the lowering) on 8x8 -> 4x4: only the first row
// and column reach into the padding, so four parts; no clamp follows.
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT: tensor.pad
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%{{.*}}, %arg1 : tensor<1x2x7x7xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK: linalg.pooling_nchw_max {{.*}} : tensor<1x2x2x7xf32>, tensor<2x3xf32>) outs(%{{.*}} : tensor<1x2x1x3xf32>)
// CHECK: linalg.pooling_nchw_max {{.*}} : tensor<1x2x7x2xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<1x2x3x1xf32>)
// CHECK: linalg.pooling_nchw_max {{.*}} : tensor<1x2x2x2xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x1x1xf32>)
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK: return
func.func @max_pool(%x: tensor<1x2x8x8xf32>, %window: tensor<3x3xf32>, %init: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %lowest : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %window : tensor<1x2x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// A pad of 1.0 (an ONNX Pad feeding the convolution) is not the sum's identity: kept.
// CHECK-LABEL: func.func @padded_with_one
// CHECK: tensor.pad
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%padded
func.func @padded_with_one(%x: tensor<1x2x8x8xf32>, %w: tensor<2x3x3xf32>, %b: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %one : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x10x10xf32>, tensor<2x3x3xf32>) outs(%b : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %c : tensor<1x2x8x8xf32>
}

// Two 5x5 convolutions padded by 2 (25 parts each, over the 48 a function is split into
// everywhere), one small and one large: only the large one's padded input can be at the peak
// (the small one's pressure plus every split's saving stays below it); with `all`, both are
// split.
// CHECK-LABEL: func.func @near_the_peak
// CHECK: tensor.pad %arg0
// CHECK: } : tensor<1x2x14x14xf32> to tensor<1x2x18x18xf32>
// CHECK-NOT: tensor.pad
// CHECK: return
// ALL-LABEL: func.func @near_the_peak
// ALL-NOT: tensor.pad
// ALL: return
func.func @near_the_peak(%x: tensor<1x2x14x14xf32>, %w: tensor<2x5x5xf32>, %b: tensor<1x2x14x14xf32>, %w16: tensor<16x5x5xf32>) -> (tensor<1x2x14x14xf32>, tensor<1x16x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x14x14xf32> to tensor<1x2x18x18xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x18x18xf32>, tensor<2x5x5xf32>) outs(%b : tensor<1x2x14x14xf32>) -> tensor<1x2x14x14xf32>
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %q = tensor.pad %big low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x16xf32> to tensor<1x16x20x20xf32>
  %e2 = tensor.empty() : tensor<1x16x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%q, %w16 : tensor<1x16x20x20xf32>, tensor<16x5x5xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %c, %d : tensor<1x2x14x14xf32>, tensor<1x16x16x16xf32>
}

// Mostly border: a 5x5 pool padded by 2 on a 4x4 map has no output that keeps every tap
// (YOLO's SPPF): sixteen one-output parts would be slower than the padded whole. Kept.
// CHECK-LABEL: func.func @mostly_border
// CHECK: tensor.pad
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%padded
func.func @mostly_border(%x: tensor<1x2x4x4xf32>, %window: tensor<5x5xi8>, %init: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %lowest : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x8x8xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %window : tensor<1x2x8x8xf32>, tensor<5x5xi8>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// A pool over the clamp that a split takes: the pool reads the split's result.
// ALL-LABEL: func.func @chained
// ALL-COUNT-9: linalg.depthwise_conv_2d_nchw_chw
// ALL: %[[LAST:.*]] = tensor.insert_slice
// ALL-NEXT: tensor.extract_slice %arg4
// ALL-NEXT: tensor.extract_slice %[[LAST]][0, 0, 1, 1] [1, 2, 7, 7]
// ALL-NEXT: linalg.pooling_nchw_max
func.func @chained(%x: tensor<1x2x8x8xf32>, %w: tensor<2x3x3xf32>, %b: tensor<1x2x8x8xf32>, %window: tensor<3x3xf32>, %init: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x10x10xf32>, tensor<2x3x3xf32>) outs(%b : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x2x8x8xf32>) outs(%c : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %q = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %lowest : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%q, %window : tensor<1x2x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// A grouped convolution (2 groups of 2 channels, 3x3 stride 2, pad 1 on 8x8 -> 4x4) reads its
// pad through the expand that splits the channels into groups; each part expands its own slice
// of the unpadded input. Only the first row and column reach into the padding: four parts,
// the interior (outputs 1-3, input rows and columns 1-7) first.
// PARTS-LABEL: func.func @grouped
// PARTS-NOT: tensor.pad
// PARTS: tensor.extract_slice %arg0[0, 0, 1, 1] [1, 4, 7, 7] [1, 1, 1, 1] : tensor<1x4x8x8xf32> to tensor<1x4x7x7xf32>
// PARTS-NEXT: tensor.expand_shape {{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 7, 7] : tensor<1x4x7x7xf32> into tensor<1x2x2x7x7xf32>
// PARTS-NEXT: linalg.conv_2d_ngchw_gfchw {{.*}} ins(%{{.*}}, %arg1 : tensor<1x2x2x7x7xf32>, tensor<2x2x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x2x3x3xf32>)
// PARTS-COUNT-3: linalg.conv_2d_ngchw_gfchw
// PARTS-NOT: linalg.conv_2d_ngchw_gfchw
// PARTS: tensor.collapse_shape
func.func @grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<2x2x2x3x3xf32>, %init: tensor<1x2x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e = tensor.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 10, 10] : tensor<1x4x10x10xf32> into tensor<1x2x2x10x10xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%e, %w : tensor<1x2x2x10x10xf32>, tensor<2x2x2x3x3xf32>) outs(%init : tensor<1x2x2x4x4xf32>) -> tensor<1x2x2x4x4xf32>
  %r = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x2x2x4x4xf32> into tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// A 1-D full convolution (the 2-D one over [.., L, 1], kernel [3, 1], pad 1, stride 1): three
// parts, the interior first, the ends with their filter's taps cut; a strided 1-D one is kept
// (see the pass's comment). The 2-D one (3x3) is split too: its padded input is the
// function's peak (nine parts, the interior first).
// PARTS-LABEL: func.func @full
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %arg1 : tensor<1x2x8x1xf32>, tensor<4x2x3x1xf32>) outs(%{{.*}} : tensor<1x4x6x1xf32>)
// PARTS: tensor.extract_slice %arg1[0, 0, 1, 0] [4, 2, 2, 1] [1, 1, 1, 1] : tensor<4x2x3x1xf32> to tensor<4x2x2x1xf32>
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x4x1x1xf32>)
// PARTS: tensor.extract_slice %arg1[0, 0, 0, 0] [4, 2, 2, 1] [1, 1, 1, 1] : tensor<4x2x3x1xf32> to tensor<4x2x2x1xf32>
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x4x1x1xf32>)
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %arg3 : tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) outs(%{{.*}} : tensor<1x4x6x6xf32>)
// PARTS-COUNT-8: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x{{[0-9]}}x{{[0-9]}}xf32>, tensor<4x2x{{[23]}}x{{[23]}}xf32>)
// PARTS: tensor.pad
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} strides = dense<[2, 1]> {{.*}} ins(%{{.*}}, %arg1 : tensor<1x2x10x1xf32>, tensor<4x2x3x1xf32>)
// PARTS: return
func.func @full(%x: tensor<1x2x8x1xf32>, %w: tensor<4x2x3x1xf32>, %y: tensor<1x2x8x8xf32>, %w2: tensor<4x2x3x3xf32>, %init: tensor<1x4x8x1xf32>, %init2: tensor<1x4x8x8xf32>, %init3: tensor<1x4x4x1xf32>) -> (tensor<1x4x8x1xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x1xf32> to tensor<1x2x10x1xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x10x1xf32>, tensor<4x2x3x1xf32>) outs(%init : tensor<1x4x8x1xf32>) -> tensor<1x4x8x1xf32>
  %q = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%q, %w2 : tensor<1x2x10x10xf32>, tensor<4x2x3x3xf32>) outs(%init2 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = tensor.pad %x low[0, 0, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x1xf32> to tensor<1x2x10x1xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%r, %w : tensor<1x2x10x1xf32>, tensor<4x2x3x1xf32>) outs(%init3 : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return %c, %d, %s : tensor<1x4x8x1xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x1xf32>
}

// A 2-D full convolution whose padded input is the function's peak (the relu's result, which
// the sum after the convolution keeps alive, beside its padded copy and the convolution's
// result): nine parts reading the relu's result as it is (the interior first: 6x6 outputs of
// all 3x3 taps); ONNX Runtime's in-order peak, which pads inside the convolution, is the
// function's too. Only near the peak: the second convolution, on two channels of the sum once
// the rest is dead, keeps its pad (its parts would cost launches for a border far below the
// peak).
// Each part fills its own initial value (the whole one was a fill), so the host schedule
// fuses it into the part's tiles.
// PARTS-LABEL: func.func @planar
// PARTS-NOT: tensor.pad
// PARTS: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x6x6xf32>)
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %arg1 : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%[[INIT]] : tensor<1x8x6x6xf32>)
// PARTS-COUNT-8: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x{{[0-9]}}x{{[0-9]}}xf32>, tensor<8x8x{{[23]}}x{{[23]}}xf32>)
// PARTS: tensor.pad
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %arg2 : tensor<1x2x10x10xf32>, tensor<2x2x3x3xf32>)
// PARTS: return
// PLAN-LABEL: func.func @planar
// PLAN-SAME: strata.arena_bytes = 4096
// Left padded, the relu's result is made in its padded buffer (the sum reads it there): 5248 B
// (7296 when a pad of a value other ops read stayed a tensor.pad, a copy beside its source).
// PADDED-LABEL: func.func @planar
// PADDED-SAME: strata.arena_bytes = 5248
func.func @planar(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>, %w2: tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %e3 = tensor.empty() : tensor<1x8x8x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %r : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) outs(%e3 : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = math.tanh %a : f32
    %u = arith.addf %t, %b : f32
    linalg.yield %u : f32
  } -> tensor<1x8x8x8xf32>
  %slice = tensor.extract_slice %s[0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> to tensor<1x2x8x8xf32>
  %e5 = tensor.empty() : tensor<1x2x8x8xf32>
  %two = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%slice : tensor<1x2x8x8xf32>) outs(%e5 : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %q = tensor.pad %two low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %e4 = tensor.empty() : tensor<1x2x8x8xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%q, %w2 : tensor<1x2x10x10xf32>, tensor<2x2x3x3xf32>) outs(%init2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %d : tensor<1x2x8x8xf32>
}

// CHECK: (S) 2 far-from-peak
// CHECK: (S) 10 split
// CHECK: (S) 1 padding-bound
// CHECK: (S) 2 clamps
// CHECK: (S) 4 kept
// CHECK: (S) 1 filter-bound

// A 2-D full convolution over a pad of a slice (as `strata-band-chains` makes each band's) is
// kept, at the peak or not: the band's pad is small already, and its parts would lose the
// chain's band buffers (the CRNN's arena grew by a quarter).
// PARTS-LABEL: func.func @band_slice
// PARTS: tensor.pad
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %arg1 : tensor<1x8x6x10xf32>, tensor<8x8x3x3xf32>)
// PARTS-NOT: linalg.conv_2d_nchw_fchw
// PARTS: return
func.func @band_slice(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %band = tensor.extract_slice %r[0, 0, 0, 0] [1, 8, 5, 8] [1, 1, 1, 1] : tensor<1x8x8x8xf32> to tensor<1x8x5x8xf32>
  %p = tensor.pad %band low[0, 0, 1, 1] high[0, 0, 0, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x5x8xf32> to tensor<1x8x6x10xf32>
  %e2 = tensor.empty() : tensor<1x8x4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x8x6x10xf32>, tensor<8x8x3x3xf32>) outs(%init : tensor<1x8x4x8xf32>) -> tensor<1x8x4x8xf32>
  return %c : tensor<1x8x4x8xf32>
}

// A dilated 3x3 convolution over a map hardly wider than its dilation (DeepLab's atrous
// pyramid): dilation 6, padded by 6, on 9 x 9. No output keeps all nine taps and 69% of them
// read padding, so it is split wherever it is, for speed (the parts skip those multiply-adds;
// counted `padding-bound`): three classes of rows and of columns, the filter cut to one or
// two tap rows and columns (their inputs strided by the dilation).
// PARTS-LABEL: func.func @atrous
// PARTS-NOT: tensor.pad
// PARTS-COUNT-9: linalg.conv_2d_nchw_fchw {dilations = dense<6> : tensor<2xi64>{{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x{{[0-9]}}x{{[0-9]}}xf32>, tensor<4x2x{{[12]}}x{{[12]}}xf32>)
// PARTS-NOT: linalg.conv_2d_nchw_fchw
// PARTS: return
func.func @atrous(%x: tensor<1x2x9x9xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x9x9xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 6, 6] high[0, 0, 6, 6] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x9x9xf32> to tensor<1x2x21x21xf32>
  %e = tensor.empty() : tensor<1x4x9x9xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x9x9xf32>) -> tensor<1x4x9x9xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<6> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x21x21xf32>, tensor<4x2x3x3xf32>) outs(%init : tensor<1x4x9x9xf32>) -> tensor<1x4x9x9xf32>
  return %c : tensor<1x4x9x9xf32>
}

// At the peak but filter-bound: a 64-channel 3 x 3 convolution on 8 x 8 (its 147 KB filter
// in L2, not L1) would read its filter again in each of nine parts, the left and right ones
// one output wide (one multiply-add per weight loaded): it stays padded (even with `all`).
// The 8-channel `@planar` above (2.3 KB of filter, in L1) is split.
// PARTS-LABEL: func.func @filter_bound
// PARTS: tensor.pad
// PARTS: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %arg1 : tensor<1x64x10x10xf32>, tensor<64x64x3x3xf32>)
// PARTS-NOT: linalg.conv_2d_nchw_fchw
// PARTS: return
// ALL-LABEL: func.func @filter_bound
// ALL: tensor.pad
// ALL-COUNT-1: linalg.conv_2d_nchw_fchw
// ALL-NOT: linalg.conv_2d_nchw_fchw
// ALL: return
func.func @filter_bound(%x: tensor<1x64x8x8xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x8x8xf32>) outs(%e : tensor<1x64x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x64x8x8xf32> to tensor<1x64x10x10xf32>
  %e2 = tensor.empty() : tensor<1x64x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x64x10x10xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32>
  return %c : tensor<1x64x8x8xf32>
}
