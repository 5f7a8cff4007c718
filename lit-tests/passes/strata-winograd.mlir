// strata-winograd: a 3x3 stride-1 convolution with at least 32 input channels and filters (a
// multiple of 8), a compile-time filter, enough whole tiles (an output of none, over its largest
// part of whole 4 x 4 tiles, the rest direct) and a transformed filter within the
// second-level cache becomes a linalg.generic carrying strata.winograd (band tile rows, scratch
// slots, threads splitting a band) over the padded input, the filter, the filter transformed at compile time (16 x F/8 x
// C x 8) and a zero-filled scratch: a correct loop nest on its own (strata-vectorize-winograd
// writes it as its kernel after planning). Odd outputs, strides, few channels, run-time
// filters and 256 x 256 filters stay direct convolutions, as does a convolution whose scratch
// would raise the function's memory (estimated before bufferization) more than 1/8 above its
// peak, or take more than an eighth of the peak: here a 4 MiB temporary elsewhere (%big) is the
// peak, leaving the scratch room.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-winograd))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-winograd{threads=2}))' | FileCheck %s --check-prefix=THREADS

// F(4x4, 3x3): 36 positions, a band of 4 tile rows (16 tiles, one vector), two bands.
// CHECK-LABEL: func.func @taken
// CHECK: %[[U:.*]] = arith.constant dense_resource<winograd_filter{{.*}}> : tensor<36x4x32x8xf32>
// CHECK: %[[S:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<50688xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[U]], %[[S]] : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>, tensor<36x4x32x8xf32>, tensor<50688xf32>) outs(%{{.*}} : tensor<1x32x32x32xf32>) attrs = {strata.winograd = array<i64: 4, 4, 1, 1>}
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// Two slots of scratch with two threads, one per band.
// THREADS-LABEL: func.func @taken
// THREADS: strata.winograd = array<i64: 4, 4, 2, 1>
func.func @taken(%x: tensor<1x32x32x32xf32>, %init: tensor<1x32x32x32xf32>) -> (tensor<1x32x32x32xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256x64x64xf32>) -> tensor<1x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x32xf32> to tensor<1x32x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %y, %one : tensor<1x32x32x32xf32>, f32
}

// With a 655 KB temporary as the peak, the budget is an eighth of it per thread: one thread's
// 82 KB hold F(2x2, 3x3)'s scratch for bands of one tile row, not F(4x4, 3x3)'s. Whether the
// convolution is taken and in which tile size is that one thread's choice whatever the thread
// count, so the results do not depend on it: two threads take F(2x2, 3x3) too, a slot each
// (their 164 KB would hold one slot of F(4x4, 3x3), which they took before).
// CHECK-LABEL: func.func @split
// CHECK: strata.winograd = array<i64: 2, 1, 1, 1>
// THREADS-LABEL: func.func @split
// THREADS: strata.winograd = array<i64: 2, 1, 2, 1>
func.func @split(%x: tensor<1x32x32x32xf32>, %init: tensor<1x32x32x32xf32>) -> (tensor<1x32x32x32xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x40x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x64x64xf32>) -> tensor<1x40x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x40x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x32xf32> to tensor<1x32x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %y, %one : tensor<1x32x32x32xf32>, f32
}

// Two convolutions of one filter constant share its transformed copy.
// CHECK-LABEL: func.func @shared
// CHECK: arith.constant dense_resource<winograd_filter{{.*}}> : tensor<36x4x32x8xf32>
// CHECK-NOT: arith.constant dense_resource<winograd_filter
// CHECK-COUNT-2: strata.winograd = array<i64: 4, 4, 1, 1>
func.func @shared(%x: tensor<1x32x34x34xf32>, %z: tensor<1x32x34x34xf32>, %init: tensor<1x32x32x32xf32>) -> (tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256x64x64xf32>) -> tensor<1x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%z, %w : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %a, %b, %one : tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>, f32
}

// The same convolution with nothing else live: the function's peak is the convolution itself,
// and its scratch (198 KiB) would raise it by more than an eighth.
// CHECK-LABEL: func.func @over_budget
// CHECK-NOT: strata.winograd
// CHECK: linalg.conv_2d_nchw_fchw
func.func @over_budget(%x: tensor<1x32x32x32xf32>, %init: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x32xf32> to tensor<1x32x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %y : tensor<1x32x32x32xf32>
}

// 64 channels into 128 filters: F(4x4, 3x3)'s transformed filter (1.2 MB) is over 1 MiB,
// F(2x2, 3x3)'s (512 KiB) is not; an output of 18 x 18 has no whole 4 x 4 tiles either way.
// Its 9 tile rows of 9 go in bands of 5 (45 and 36 tiles in 48 lanes each: 96 lanes of
// products), not of 7 (63 tiles in 64 lanes, then 18 in 64 more: 128).
// CHECK-LABEL: func.func @small_tiles
// CHECK: arith.constant dense_resource<winograd_filter{{.*}}> : tensor<16x16x64x8xf32>
// CHECK: strata.winograd = array<i64: 2, 5, 1, 1>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @small_tiles(%p: tensor<1x64x20x20xf32>, %init: tensor<1x128x18x18xf32>) -> (tensor<1x128x18x18xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256x64x64xf32>) -> tensor<1x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<128x64x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x64x20x20xf32>, tensor<128x64x3x3xf32>) outs(%init : tensor<1x128x18x18xf32>) -> tensor<1x128x18x18xf32>
  return %y, %one : tensor<1x128x18x18xf32>, f32
}

// Too few tiles: 20 x 20 has 25 tiles of 4 x 4 and takes F(2x2, 3x3)'s 100 instead (fewer
// than two vectors of tiles ran slower than the direct schedule: MIN_TILES); 10 x 10 has only
// 25 tiles of 2 x 2 and stays direct.
// CHECK-LABEL: func.func @few_tiles
// CHECK: strata.winograd = array<i64: 2,
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: strata.winograd
func.func @few_tiles(%x: tensor<1x64x20x20xf32>, %x2: tensor<1x64x10x10xf32>, %init: tensor<1x64x20x20xf32>, %init2: tensor<1x64x10x10xf32>) -> (tensor<1x64x20x20xf32>, tensor<1x64x10x10xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256x64x64xf32>) -> tensor<1x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x64x20x20xf32> to tensor<1x64x22x22xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x64x22x22xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x20x20xf32>) -> tensor<1x64x20x20xf32>
  %p2 = tensor.pad %x2 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x64x10x10xf32> to tensor<1x64x12x12xf32>
  %y2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p2, %w : tensor<1x64x12x12xf32>, tensor<64x64x3x3xf32>) outs(%init2 : tensor<1x64x10x10xf32>) -> tensor<1x64x10x10xf32>
  return %y, %y2, %one : tensor<1x64x20x20xf32>, tensor<1x64x10x10xf32>, f32
}

// An odd output (7 x 7: too few tiles, whole or in its 4 x 4 interior), a stride of 2, 16 input channels, a filter
// known only at run time and 256 x 256 filters (4 MiB transformed) keep the direct convolution.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: strata.winograd
// CHECK-COUNT-5: linalg.conv_2d_nchw_fchw
// CHECK-NOT: strata.winograd
func.func @kept(%a: tensor<1x32x9x9xf32>, %b: tensor<1x32x17x17xf32>, %c: tensor<1x16x10x10xf32>, %d: tensor<1x32x10x10xf32>, %wd: tensor<32x32x3x3xf32>, %e: tensor<1x256x10x10xf32>) -> (tensor<1x32x7x7xf32>, tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>, tensor<1x256x8x8xf32>) {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %w16 = arith.constant dense<0.5> : tensor<32x16x3x3xf32>
  %w256 = arith.constant dense<0.5> : tensor<256x256x3x3xf32>
  %i7 = tensor.empty() : tensor<1x32x7x7xf32>
  %i8 = tensor.empty() : tensor<1x32x8x8xf32>
  %i256 = tensor.empty() : tensor<1x256x8x8xf32>
  %odd = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w : tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>) outs(%i7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %strided = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%b, %w : tensor<1x32x17x17xf32>, tensor<32x32x3x3xf32>) outs(%i8 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %few = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c, %w16 : tensor<1x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%i8 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %dynamic = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%d, %wd : tensor<1x32x10x10xf32>, tensor<32x32x3x3xf32>) outs(%i8 : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %big = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%e, %w256 : tensor<1x256x10x10xf32>, tensor<256x256x3x3xf32>) outs(%i256 : tensor<1x256x8x8xf32>) -> tensor<1x256x8x8xf32>
  return %odd, %strided, %few, %dynamic, %big : tensor<1x32x7x7xf32>, tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>, tensor<1x256x8x8xf32>
}

// A wide map: one tile row of 224 / 4 = 56 tiles, 64 channels, is 590 KB of transformed tiles
// in F(4x4, 3x3), past the band's 320 KB: bands of runs of 32 tile columns (two vectors) of one
// tile row, the run length the mark's fifth field (none where bands are whole rows).
// CHECK-LABEL: func.func @runs
// CHECK: strata.winograd = array<i64: 4, 1, 1, 1, 32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// THREADS-LABEL: func.func @runs
// THREADS: strata.winograd = array<i64: 4, 1, 2, 1, 32>
func.func @runs(%x: tensor<1x64x8x224xf32>, %init: tensor<1x64x8x224xf32>) -> (tensor<1x64x8x224xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  // An 8 MiB temporary, the function's memory peak: the scratch fits under it.
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<2x256x64x64xf32>) -> tensor<2x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<2x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x64x8x224xf32> to tensor<1x64x10x226xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x64x10x226xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x8x224xf32>) -> tensor<1x64x8x224xf32>
  return %y, %one : tensor<1x64x8x224xf32>, f32
}

// An output of no whole tiles (33 x 33): Winograd over its whole 4 x 4 tiles (32 x 32, of the
// input's top-left 34 x 34), inserted into the initial value, then direct convolutions for
// the row below them (all 33 columns) and the column right of them, each into its part.
// CHECK-LABEL: func.func @interior
// CHECK: %[[XW:.*]] = tensor.extract_slice %[[P:.*]][0, 0, 0, 0] [1, 32, 34, 34] [1, 1, 1, 1] : tensor<1x32x35x35xf32> to tensor<1x32x34x34xf32>
// CHECK: %[[IW:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 32, 32, 32] [1, 1, 1, 1] : tensor<1x32x33x33xf32> to tensor<1x32x32x32xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[XW]], {{.*}}) outs(%[[IW]] : tensor<1x32x32x32xf32>) attrs = {strata.winograd = array<i64: 4, 4, 1, 1>}
// CHECK: %[[RW:.*]] = tensor.insert_slice %[[R]] into %{{.*}}[0, 0, 0, 0] [1, 32, 32, 32]
// CHECK: %[[XB:.*]] = tensor.extract_slice %[[P]][0, 0, 32, 0] [1, 32, 3, 35] [1, 1, 1, 1]
// CHECK: %[[IB:.*]] = tensor.extract_slice %[[RW]][0, 0, 32, 0] [1, 32, 1, 33] [1, 1, 1, 1]
// CHECK: %[[DB:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[XB]], %{{.*}} : tensor<1x32x3x35xf32>, tensor<32x32x3x3xf32>) outs(%[[IB]] : tensor<1x32x1x33xf32>)
// CHECK: %[[RB:.*]] = tensor.insert_slice %[[DB]] into %[[RW]][0, 0, 32, 0] [1, 32, 1, 33]
// CHECK: %[[XR:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 32] [1, 32, 34, 3] [1, 1, 1, 1]
// CHECK: %[[IR:.*]] = tensor.extract_slice %[[RB]][0, 0, 0, 32] [1, 32, 32, 1] [1, 1, 1, 1]
// CHECK: %[[DR:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[XR]], %{{.*}} : tensor<1x32x34x3xf32>, tensor<32x32x3x3xf32>) outs(%[[IR]] : tensor<1x32x32x1xf32>)
// CHECK: %[[RR:.*]] = tensor.insert_slice %[[DR]] into %[[RB]][0, 0, 0, 32] [1, 32, 32, 1]
// CHECK: return %[[RR]]
// THREADS-LABEL: func.func @interior
// THREADS: strata.winograd = array<i64: 4, 4, 2, 1>
func.func @interior(%x: tensor<1x32x33x33xf32>, %init: tensor<1x32x33x33xf32>) -> (tensor<1x32x33x33xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256x64x64xf32>) -> tensor<1x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x33x33xf32> to tensor<1x32x35x35xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x35x35xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x33x33xf32>) -> tensor<1x32x33x33xf32>
  return %y, %one : tensor<1x32x33x33xf32>, f32
}

// CHECK: Pass statistics report
// CHECK: strata-winograd
// CHECK-NEXT: (S) 8 convolutions - Convolutions run as Winograd F(4x4, 3x3) or F(2x2, 3x3)
