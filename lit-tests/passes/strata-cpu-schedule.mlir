// strata-cpu-schedule interchanges the loops of the ops whose shapes favour reductions
// outside (marked strata.loop_order = "reduction_outer", which generalize drops) with the transform script in
// crates/lower/schedules; the others keep MLIR's order, and the script leaves no trace.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=8})' | FileCheck %s --check-prefix=AVX2
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16})' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// STATS: 24 convolutions
// STATS: 1 matmul-convolutions

// CHECK-LABEL: func.func @convs
// Depthwise: left a named op for strata-vectorize-depthwise (after bufferization).
// CHECK: linalg.depthwise_conv_2d_nchw_chw {dilations
// Convolutions with filter counts that no vector register divides and no column block:
// a 1x1 one (6 filters over 10 x 10 positions) is the matmul it is, on views of its
// operands, its product's sums over the channels in order (strata-vectorize-matmul's masked
// blocks take it after bufferization); others keep the loop order.
// CHECK: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : tensor<1x16x10x10xf32> into tensor<16x100xf32>
// CHECK: %[[W:.+]] = tensor.collapse_shape %arg2 {{\[\[}}0], [1, 2, 3]] : tensor<6x16x1x1xf32> into tensor<6x16xf32>
// CHECK: %[[I:.+]] = tensor.collapse_shape %arg5 {{\[\[}}0, 1], [2, 3]] : tensor<1x6x10x10xf32> into tensor<6x100xf32>
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[W]], %[[X]] : tensor<6x16xf32>, tensor<16x100xf32>) outs(%[[I]] : tensor<6x100xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 6, 10, 10]
// CHECK-NOT: strata.loop_order
// A 3x3 convolution over 16 channels (144 per output): (n, f, c, kh, kw, oh, ow).
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]
func.func @convs(%x: tensor<1x16x10x10xf32>, %dw: tensor<16x3x3xf32>, %pw: tensor<6x16x1x1xf32>, %w: tensor<6x16x3x3xf32>,
                 %a: tensor<1x16x8x8xf32>, %b: tensor<1x6x10x10xf32>, %c: tensor<1x6x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x6x10x10xf32>, tensor<1x6x8x8xf32>) {
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dw : tensor<1x16x10x10xf32>, tensor<16x3x3xf32>) outs(%a : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %pw : tensor<1x16x10x10xf32>, tensor<6x16x1x1xf32>) outs(%b : tensor<1x6x10x10xf32>) -> tensor<1x6x10x10xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x10x10xf32>, tensor<6x16x3x3xf32>) outs(%c : tensor<1x6x8x8xf32>) -> tensor<1x6x8x8xf32>
  return %0, %1, %2 : tensor<1x16x8x8xf32>, tensor<1x6x10x10xf32>, tensor<1x6x8x8xf32>
}

// CHECK-LABEL: func.func @matmuls
// f32 matmuls of other shapes stay named ops for strata-vectorize-matmul (after
// bufferization); an integer one with 64 columns takes the loop order (m, k, n).
// CHECK: linalg.matmul ins
// CHECK: linalg.matmul ins
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-NOT: transform.
func.func @matmuls(%a: tensor<4x32xf32>, %b: tensor<32x64xf32>, %c: tensor<4x64xf32>, %d: tensor<32x8xf32>, %e: tensor<4x8xf32>,
                   %x: tensor<4x32xi32>, %y: tensor<32x64xi32>, %z: tensor<4x64xi32>) -> (tensor<4x64xf32>, tensor<4x8xf32>, tensor<4x64xi32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x32xf32>, tensor<32x64xf32>) outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = linalg.matmul ins(%a, %d : tensor<4x32xf32>, tensor<32x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.matmul ins(%x, %y : tensor<4x32xi32>, tensor<32x64xi32>) outs(%z : tensor<4x64xi32>) -> tensor<4x64xi32>
  return %0, %1, %2 : tensor<4x64xf32>, tensor<4x8xf32>, tensor<4x64xi32>
}

// A matmul whose rows are a multiple of 8 and columns a multiple of 32 stays a named op,
// marked for strata-cpu-vectorize (register-tiled and vectorised after bufferization).
// CHECK-LABEL: func.func @vectorizable
// CHECK: linalg.matmul {strata.loop_order = "vectorize"}
func.func @vectorizable(%a: tensor<8x32xf32>, %b: tensor<32x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// A batch matmul (attention's scores and context) becomes a loop over the batch of matmuls on
// slices: marked for the register-blocked schedule when they fill its blocks; 40 columns are
// 32 for it and 8 left named for strata-vectorize-matmul (masked partial blocks; see
// strata-cpu-schedule-peel.mlir).
// CHECK-LABEL: func.func @batch_matmuls
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %arg2) -> (tensor<4x16x64xf32>)
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[%[[I]], 0, 0] [1, 16, 8] [1, 1, 1] : tensor<4x16x8xf32> to tensor<16x8xf32>
// CHECK: %[[B:.*]] = tensor.extract_slice %arg1[%[[I]], 0, 0] [1, 8, 64] [1, 1, 1] : tensor<4x8x64xf32> to tensor<8x64xf32>
// CHECK: %[[C:.*]] = tensor.extract_slice %[[ACC]][%[[I]], 0, 0] [1, 16, 64] [1, 1, 1]
// CHECK: %[[P:.*]] = linalg.matmul {strata.loop_order = "vectorize"} ins(%[[A]], %[[B]] : tensor<16x8xf32>, tensor<8x64xf32>) outs(%[[C]] : tensor<16x64xf32>)
// CHECK: tensor.insert_slice %[[P]] into %[[ACC]][%[[I]], 0, 0] [1, 16, 64] [1, 1, 1]
// CHECK: scf.for {{.*}} -> (tensor<4x16x40xf32>)
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x32xf32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK-NOT: linalg.batch_matmul
func.func @batch_matmuls(%a: tensor<4x16x8xf32>, %b: tensor<4x8x64xf32>, %c: tensor<4x16x64xf32>, %d: tensor<4x8x40xf32>, %e: tensor<4x16x40xf32>) -> (tensor<4x16x64xf32>, tensor<4x16x40xf32>) {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x16x8xf32>, tensor<4x8x64xf32>) outs(%c : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
  %1 = linalg.batch_matmul ins(%a, %d : tensor<4x16x8xf32>, tensor<4x8x40xf32>) outs(%e : tensor<4x16x40xf32>) -> tensor<4x16x40xf32>
  return %0, %1 : tensor<4x16x64xf32>, tensor<4x16x40xf32>
}

// A convolution whose filter count divides into vector registers, with more than 256 taps per
// output, is register-blocked with its filters in the lanes
// (crates/target-cpu/src/conv_lanes.rs): its constant filter is transposed at compile time to
// C x KH x KW x F (a new weight), the padding becomes a fill and an insert (so tiling does not
// pull it into the loops), and the tiles hold 8 output positions x 32 filters (AVX-512: 16
// registers of accumulators) seeded by the bias, which is fused into the tile. The reduction
// steps one (c, kh, kw) at a time with the accumulator in registers: 8 input values and one
// filter vector, as an outer product (8 broadcasts and fused multiply-adds once lowered). The
// bias is read in the accumulators' layout (no transpose), and written to the output only by
// the accumulators' final write.
// CHECK-LABEL: func.func @blocked
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<conv_filter_chwf{{.*}}> : tensor<32x3x3x32xf32>
// CHECK-DAG: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x32x10x10xf32>)
// CHECK-DAG: %[[PADDED:.*]] = tensor.insert_slice %arg0 into %[[FILL]][0, 0, 1, 1] [1, 32, 8, 8] [1, 1, 1, 1]
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: %[[OUT:.*]] = tensor.extract_slice %{{.*}} : tensor<1x32x1x8xf32> to tensor<32x8xf32>
// CHECK-NOT: vector.transfer_write
// CHECK-NOT: vector.transpose
// CHECK: %[[BIAS:.*]] = vector.transfer_read %arg1[%c0], %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<32xf32>, vector<8x32xf32>
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %[[BIAS]]) -> (vector<8x32xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%[[STEP:.*]] = %{{.*}})
// CHECK: %[[X:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<8xf32>, vector<8xf32>
// CHECK: %[[F:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<32xf32>, vector<32xf32>
// CHECK: vector.outerproduct %[[X]], %[[F]], %[[STEP]] {kind = #vector.kind<add>} : vector<8xf32>, vector<32xf32>
// CHECK: vector.transfer_write %[[ACC]], %[[OUT]]
// CHECK-NOT: linalg.conv_2d
// CHECK-NOT: linalg.generic
func.func @blocked(%x: tensor<1x32x8x8xf32>, %bias: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x8x8xf32> to tensor<1x32x10x10xf32>
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x32x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x10x10xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// With at most 24 taps per output (here 2 channels x 3 x 3) the output columns are in the
// lanes instead (strata_machine::conv_block): the loops are (n, oh, f, ow), and each step is an
// outer product of 16 filter values and the 8 contiguous input columns (half a register),
// stored straight into the NCHW output (no transposed store).
// CHECK-LABEL: func.func @few_taps
// CHECK: scf.for
// CHECK: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<16xf32>, vector<8xf32>
// CHECK: vector.transfer_write %{{.*}} {in_bounds = [true, true]} : vector<16x8xf32>
// CHECK-NOT: linalg.conv_2d
func.func @few_taps(%x: tensor<1x2x8x8xf32>, %bias: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<32x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x32x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x10x10xf32>, tensor<32x2x3x3xf32>) outs(%init : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// An RGB stem (3 channels x 3 x 3 = 27 taps) is above 24 taps: the block holding more outputs
// wins, here 8 positions x 32 filters in the lanes over half-vector columns (8 columns x 16
// filters), ending in a transposed store of the accumulators.
// CHECK-LABEL: func.func @rgb_stem
// CHECK: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<8xf32>, vector<32xf32>
// CHECK: vector.transfer_write %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : vector<8x32xf32>
// CHECK-NOT: linalg.conv_2d
func.func @rgb_stem(%x: tensor<1x3x8x8xf32>, %bias: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<32x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x32x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x3x10x10xf32>, tensor<32x3x3x3xf32>) outs(%init : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// Strides: the input is viewed as (position, phase) per spatial axis (an expand_shape, no
// copy; 7 rows rounded up to 8 by a zero-filled copy), so that every tap reads its positions at
// unit step. A run-time filter is transposed in the kernel, outside the tile loops.
// CHECK-LABEL: func.func @strided
// CHECK-DAG: linalg.transpose ins(%arg1 : tensor<16x8x3x3xf32>) outs(%{{.*}} : tensor<8x3x3x16xf32>) permutation = [1, 2, 3, 0]
// CHECK-DAG: tensor.insert_slice %arg0 into %{{.*}}[0, 0, 0, 0] [1, 8, 7, 7] [1, 1, 1, 1] : tensor<1x8x7x7xf32> into tensor<1x8x8x8xf32>
// CHECK-DAG: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 8, 4, 2, 4, 2] : tensor<1x8x8x8xf32> into tensor<1x8x4x2x4x2xf32>
// The 3 x 3 x 16 block steps as one outer product per row of 3 positions.
// CHECK: scf.for
// CHECK-COUNT-3: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<3xf32>, vector<16xf32>
// CHECK-NOT: linalg.conv_2d
func.func @strided(%x: tensor<1x8x7x7xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x7x7xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}

// A 1-D strided convolution (9 rows at stride 2, 4 outputs) whose last output alone reads past
// the input's whole strides: split on its rows, the first 3 outputs read the first 8 rows as
// they are (a view split into (position, phase), no copy into a 10-row buffer) and the last
// one reads its own window of 3 rows.
// CHECK-LABEL: func.func @strided_1d
// CHECK-NOT: tensor<1x8x10x1xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 0] [1, 8, 8, 1] [1, 1, 1, 1] : tensor<1x8x9x1xf32> to tensor<1x8x8x1xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4]] output_shape [1, 8, 4, 2, 1] : tensor<1x8x8x1xf32> into tensor<1x8x4x2x1xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 6, 0] [1, 8, 3, 1] [1, 1, 1, 1] : tensor<1x8x9x1xf32> to tensor<1x8x3x1xf32>
// CHECK-NOT: tensor<1x8x10x1xf32>
// CHECK: return
func.func @strided_1d(%x: tensor<1x8x9x1xf32>, %w: tensor<16x8x3x1xf32>) -> tensor<1x16x4x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x1xf32>) -> tensor<1x16x4x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x1xf32>, tensor<16x8x3x1xf32>) outs(%init : tensor<1x16x4x1xf32>) -> tensor<1x16x4x1xf32>
  return %0 : tensor<1x16x4x1xf32>
}

// The same split where the first outputs' count has a worse register block than the whole
// (63 outputs take 21 positions a block, the 62 before the last only 2: twice a prime): those
// are cut again at 42, a multiple of 21. Three parts, each on whole strides of the input (86
// and 42 rows, views) but the last output's own window; blocks of 21 and 20 positions.
// CHECK-LABEL: func.func @strided_1d_cut
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 0] [1, 4, 86, 1] [1, 1, 1, 1] : tensor<1x4x127x1xf32> to tensor<1x4x86x1xf32>
// CHECK: vector<21x16xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [1, 16, 42, 1] [1, 1, 1, 1] : tensor<1x16x42x1xf32> into tensor<1x16x63x1xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 84, 0] [1, 4, 42, 1] [1, 1, 1, 1] : tensor<1x4x127x1xf32> to tensor<1x4x42x1xf32>
// CHECK: vector<20x16xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 42, 0] [1, 16, 20, 1] [1, 1, 1, 1] : tensor<1x16x20x1xf32> into tensor<1x16x63x1xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 124, 0] [1, 4, 3, 1] [1, 1, 1, 1] : tensor<1x4x127x1xf32> to tensor<1x4x3x1xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 62, 0] [1, 16, 1, 1] [1, 1, 1, 1] : tensor<1x16x1x1xf32> into tensor<1x16x63x1xf32>
// CHECK-NOT: tensor<1x4x128x1xf32>
// CHECK: return
func.func @strided_1d_cut(%x: tensor<1x4x127x1xf32>, %w: tensor<16x4x3x1xf32>) -> tensor<1x16x63x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x63x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x63x1xf32>) -> tensor<1x16x63x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : tensor<1x4x127x1xf32>, tensor<16x4x3x1xf32>) outs(%init : tensor<1x16x63x1xf32>) -> tensor<1x16x63x1xf32>
  return %0 : tensor<1x16x63x1xf32>
}

// AVX2 (8 lanes, 12 accumulators): a 13 x 13 output (prime, above the register count) takes
// tiles of one position by 16 filters. Folding unit dimensions turns the tile's bias
// broadcast into a plain copy of the bias slice, which canonicalization removes: the
// accumulator starts from the bias vector, and the schedule still applies.
// AVX2-LABEL: func.func @one_position
// AVX2: vector.transfer_read %{{.*}} : tensor<16xf32>, vector<16xf32>
// AVX2: scf.for
// AVX2: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// AVX2-NOT: linalg.generic
func.func @one_position(%x: tensor<1x8x13x13xf32>, %w: tensor<64x8x1x1xf32>, %bias: tensor<64xf32>) -> tensor<1x64x13x13xf32> {
  %e = tensor.empty() : tensor<1x64x13x13xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<64xf32>) outs(%e : tensor<1x64x13x13xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x64x13x13xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x13x13xf32>, tensor<64x8x1x1xf32>) outs(%init : tensor<1x64x13x13xf32>) -> tensor<1x64x13x13xf32>
  return %0 : tensor<1x64x13x13xf32>
}

// A convolution whose output rows have no divisor that makes a register block of several
// positions (37 rows, a prime, by 32 filters: one position a block) runs as two: rows 0-31 in
// blocks of 8 and rows 32-36 in a block of their own, each on its slice of the input (34 and 7
// rows for a 3-tap window) and of the result.
// CHECK-LABEL: func.func @prime_rows
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 0] [1, 16, 34, 1] [1, 1, 1, 1]
// CHECK: tensor<32x8xf32> into tensor<1x32x8x1xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [1, 32, 32, 1] [1, 1, 1, 1] : tensor<1x32x32x1xf32> into tensor<1x32x37x1xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 32, 0] [1, 16, 7, 1] [1, 1, 1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 32, 0] [1, 32, 5, 1] [1, 1, 1, 1] : tensor<1x32x5x1xf32> into tensor<1x32x37x1xf32>
func.func @prime_rows(%x: tensor<1x16x39x1xf32>, %w: tensor<32x16x3x1xf32>) -> tensor<1x32x37x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x37x1xf32>
  %b = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x37x1xf32>) -> tensor<1x32x37x1xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x39x1xf32>, tensor<32x16x3x1xf32>) outs(%b : tensor<1x32x37x1xf32>) -> tensor<1x32x37x1xf32>
  return %c : tensor<1x32x37x1xf32>
}

// A constant filter of 128 filters (eight 64-byte lines a tap) that stays in rows (the
// convolution is computed inside its epilogue's tiles, which a packed filter's loops do not
// allow) is stored with one line more per tap (144 floats: an odd number of lines), so that a
// tile's taps spread over every cache set; the convolution reads the first 128 of each row.
// CHECK-LABEL: func.func @padded_rows
// CHECK: %[[W:.*]] = arith.constant dense_resource<conv_filter_chwf{{.*}}> : tensor<8x3x3x144xf32>
// CHECK: tensor.extract_slice %[[W]][0, 0, 0, 0] [8, 3, 3, 128] [1, 1, 1, 1] : tensor<8x3x3x144xf32> to tensor<8x3x3x128xf32>
func.func @padded_rows(%x: tensor<1x8x4x4xf32>) -> tensor<1x128x2x2xf32> {
  %w = arith.constant dense<0.5> : tensor<128x8x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x2x2xf32>) -> tensor<1x128x2x2xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x4xf32>, tensor<128x8x3x3xf32>) outs(%init : tensor<1x128x2x2xf32>) -> tensor<1x128x2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x128x2x2xf32>) outs(%0 : tensor<1x128x2x2xf32>) attrs = {strata.epilogue} {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x128x2x2xf32>
  return %r : tensor<1x128x2x2xf32>
}

// The same convolution without an epilogue reads its filter packed in blocks of a tile's
// filters (32 with 16 lanes, 16 with 8: at most two vectors a tile).
// CHECK-LABEL: func.func @packed_rows
// CHECK: arith.constant dense_resource<conv_filter_packed{{.*}}> : tensor<4x8x3x3x32xf32>
// AVX2-LABEL: func.func @packed_rows
// AVX2: arith.constant dense_resource<conv_filter_packed{{.*}}> : tensor<8x8x3x3x16xf32>
func.func @packed_rows(%x: tensor<1x8x4x4xf32>) -> tensor<1x128x2x2xf32> {
  %w = arith.constant dense<0.5> : tensor<128x8x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x2x2xf32>) -> tensor<1x128x2x2xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x4xf32>, tensor<128x8x3x3xf32>) outs(%init : tensor<1x128x2x2xf32>) -> tensor<1x128x2x2xf32>
  return %0 : tensor<1x128x2x2xf32>
}

// A constant right-hand side of 128 columns (eight lines a row) is stored with one line more
// per row too, read through a slice; 96 columns (six lines) or a non-constant one as they are.
// CHECK-LABEL: func.func @padded_weights
// CHECK: %[[B:.*]] = arith.constant dense_resource<matmul_rows{{.*}}> : tensor<32x144xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[B]][0, 0] [32, 128] [1, 1] : tensor<32x144xf32> to tensor<32x128xf32>
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%arg0, %[[S]] : tensor<8x32xf32>, tensor<32x128xf32>)
// CHECK: linalg.matmul {strata.loop_order = "vectorize"} ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<32x128xf32>)
func.func @padded_weights(%a: tensor<8x32xf32>, %b: tensor<32x128xf32>, %c: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %w = arith.constant dense<0.5> : tensor<32x128xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<8x32xf32>, tensor<32x128xf32>) outs(%c : tensor<8x128xf32>) -> tensor<8x128xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x128xf32>) outs(%c : tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0, %1 : tensor<8x128xf32>, tensor<8x128xf32>
}

// With 8 lanes, a constant filter whose tiles read fewer filters than the whole row (7
// positions by 8 of 16 filters a tile) is packed at compile time into blocks of the tile's filters, `F / 8 x C
// x KH x KW x 8`, and the convolution's loops split the filters into blocks and lanes (`f = fo
// * 8 + fi`): a tile streams its block's taps contiguously. With 16 lanes one tile takes all 16
// filters: one block is the rows' layout, kept.
// AVX2-LABEL: func.func @packed_filter
// AVX2: arith.constant dense_resource<conv_filter_packed{{.*}}> : tensor<2x8x3x3x8xf32>
// AVX2: scf.for
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<7xf32>, vector<8xf32>
// AVX2-NOT: linalg.generic
// CHECK-LABEL: func.func @packed_filter
// CHECK: arith.constant dense_resource<conv_filter_chwf{{.*}}> : tensor<8x3x3x16xf32>
// CHECK: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<7xf32>, vector<16xf32>
func.func @packed_filter(%x: tensor<1x8x9x9xf32>) -> tensor<1x16x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<16x8x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// A filter that is a slice of a constant (a border part of strata-conv-borders reads its taps
// so) is sliced at compile time into a constant of its own, then laid out like any constant
// filter: no transpose in the kernel, no buffer for it on every run.
// CHECK-LABEL: func.func @sliced_filter
// CHECK-NOT: linalg.transpose
// CHECK: arith.constant dense_resource<conv_filter_chwf{{.*}}> : tensor<8x2x3x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @sliced_filter(%x: tensor<1x8x9x9xf32>) -> tensor<1x16x8x7xf32> {
  %w = arith.constant dense<0.5> : tensor<16x8x3x3xf32>
  %cut = tensor.extract_slice %w[0, 0, 1, 0] [16, 8, 2, 3] [1, 1, 1, 1] : tensor<16x8x3x3xf32> to tensor<16x8x2x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x8x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x8x7xf32>) -> tensor<1x16x8x7xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %cut : tensor<1x8x9x9xf32>, tensor<16x8x2x3xf32>) outs(%init : tensor<1x16x8x7xf32>) -> tensor<1x16x8x7xf32>
  return %0 : tensor<1x16x8x7xf32>
}

// 34 filters fill no register block: the 32 that do run blocked, the 2 left as a convolution of
// their own (a loop nest), each on its slice of the filter (sliced at compile time) and of the
// result, written in place. Before, the whole convolution was a loop nest.
// AVX2-LABEL: func.func @filter_remainder
// AVX2: arith.constant dense_resource<conv_filter_packed{{.*}}> : tensor<2x1x32x1x16xf32>
// AVX2: vector.outerproduct
// AVX2: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x64x1xf32>, tensor<2x1x32x1xf32>) outs(%{{.*}} : tensor<1x2x3x1xf32>)
// AVX2: tensor.insert_slice %{{.*}} into %{{.*}}[0, 32, 0, 0] [1, 2, 3, 1] [1, 1, 1, 1]
func.func @filter_remainder(%x: tensor<1x1x64x1xf32>) -> tensor<1x34x3x1xf32> {
  %w = arith.constant dense<0.5> : tensor<34x1x32x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x34x3x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x34x3x1xf32>) -> tensor<1x34x3x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[16, 1]> : tensor<2xi64>} ins(%x, %w : tensor<1x1x64x1xf32>, tensor<34x1x32x1xf32>) outs(%init : tensor<1x34x3x1xf32>) -> tensor<1x34x3x1xf32>
  return %0 : tensor<1x34x3x1xf32>
}

// A detector head's 27 filters have no register block over 8 x 8 positions with 16 lanes, but
// over the positions as one row (64 columns) blocks of 9 filters fit: the convolution is not
// split (16 filters blocked and 11 left a loop nest, as before), it runs flattened, although
// its input is also padded for another convolution (flattened, it is copied once: cheaper
// than any loop nest).
// CHECK-LABEL: func.func @detector_head
// CHECK: tensor.collapse_shape
// CHECK: scf.for %{{.*}} = %c0 to %c27 step %c9
// CHECK: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<9xf32>, vector<32xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @detector_head(%x: tensor<1x32x8x8xf32>) -> (tensor<1x27x8x8xf32>, tensor<1x32x10x10xf32>) {
  %w = arith.constant dense<0.5> : tensor<27x32x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x27x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x27x8x8xf32>) -> tensor<1x27x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x8x8xf32>, tensor<27x32x1x1xf32>) outs(%init : tensor<1x27x8x8xf32>) -> tensor<1x27x8x8xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x8x8xf32> to tensor<1x32x10x10xf32>
  return %0, %p : tensor<1x27x8x8xf32>, tensor<1x32x10x10xf32>
}

// MobileNetV2's 24 -> 144 expansion at 56 x 56, its result padded (so not flattened): columns
// in the lanes, one vector of 16 by 24 filters and a last block of 8 columns a row (AVX-512);
// two vectors would leave 24 columns, a vector and a half, which LLVM legalises with shuffles
// (10x slower). AVX2 takes two vectors of 8 and a last one.
// CHECK-LABEL: func.func @expansion_56
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<24xf32>, vector<16xf32>
// CHECK: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<24xf32>, vector<8xf32>
// CHECK-NOT: x24xf32>
// CHECK: return
// AVX2-LABEL: func.func @expansion_56
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<8xf32>
func.func @expansion_56(%x: tensor<1x24x56x56xf32>, %w: tensor<144x24x1x1xf32>) -> tensor<1x144x58x58xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x144x56x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x24x56x56xf32>, tensor<144x24x1x1xf32>) outs(%init : tensor<1x144x56x56xf32>) -> tensor<1x144x56x56xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x144x56x56xf32> to tensor<1x144x58x58xf32>
  return %p : tensor<1x144x58x58xf32>
}

// A 1x1 convolution at unit stride runs over its 49 positions as one row: blocks of 6
// positions x 16 filters (12 accumulators) where 7 x 7 allowed only 7 positions x 8 filters,
// the 49th position peeled into a tile of its own. The relu epilogue runs in both tiles over
// the same flattened shape; the result is reshaped back (views after bufferization).
// AVX2-LABEL: func.func @flat_1x1
// AVX2: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 64, 1, 49] : tensor<1x64x49xf32> into tensor<1x64x1x49xf32>
// AVX2: scf.for %{{.*}} = %c0 to %c48 step %c6
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
// AVX2: arith.maximumf %{{.*}}, %{{.*}} : vector<16x6xf32>
// AVX2: tensor.extract_slice %{{.*}}[0, 0, 0, 48] [1, 64, 1, 1]
// AVX2: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// AVX2: arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// AVX2: tensor.expand_shape %{{.*}} output_shape [1, 32, 7, 7] : tensor<1x32x49xf32> into tensor<1x32x7x7xf32>
// AVX2-NOT: linalg.generic
func.func @flat_1x1(%x: tensor<1x64x7x7xf32>, %w: tensor<32x64x1x1xf32>, %b: tensor<32xf32>) -> tensor<1x32x7x7xf32> {
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x7x7xf32>, tensor<32x64x1x1xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x32x7x7xf32>) outs(%c : tensor<1x32x7x7xf32>) attrs = {strata.epilogue} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x7x7xf32>
  return %r : tensor<1x32x7x7xf32>
}

// A result that is padded (for a 3x3 depthwise convolution after it) is written inside the
// padded buffer by `strata-pad-in-place`; flattened, it would be copied there. At 14 x 14 the
// rows' blocks (2 x 2 positions x 16 filters) hold two thirds of the flattened block's
// outputs: the convolution keeps its rows. At 7 x 7 (7 x 8 against 6 x 16) the copy pays:
// it runs flattened.
// AVX2-LABEL: func.func @padded_result
// AVX2-NOT: tensor.collapse_shape
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
// AVX2: tensor.pad
// AVX2: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x64x7x7xf32> into tensor<1x64x49xf32>
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
// AVX2: tensor.pad
func.func @padded_result(%x: tensor<1x64x14x14xf32>, %w: tensor<32x64x1x1xf32>, %y: tensor<1x64x7x7xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32x9x9xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x14x14xf32>, tensor<32x64x1x1xf32>) outs(%init : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x14x14xf32> to tensor<1x32x16x16xf32>
  %e7 = tensor.empty() : tensor<1x32x7x7xf32>
  %init7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %c7 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %w : tensor<1x64x7x7xf32>, tensor<32x64x1x1xf32>) outs(%init7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %p7 = tensor.pad %c7 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x7x7xf32> to tensor<1x32x9x9xf32>
  return %p, %p7 : tensor<1x32x16x16xf32>, tensor<1x32x9x9xf32>
}

// Columns in the lanes (24 taps a position) over 56 columns: two vectors of columns x 6 filters
// a block, where whole blocks allowed only one vector x 12 filters (as many FMAs, twice the
// broadcasts); the last 8 columns of each row peeled into a block of one vector. Its rows kept
// (the result is padded).
// AVX2-LABEL: func.func @columns_partial
// AVX2-NOT: tensor.collapse_shape
// AVX2: scf.for %{{.*}} = %c0 to %c48 step %c16
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
// AVX2: tensor.extract_slice %{{.*}}[0, 0, 0, 48] [1, 24, 1, 8]
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<8xf32>
// AVX2: tensor.pad
func.func @columns_partial(%x: tensor<1x24x56x56xf32>, %w: tensor<48x24x1x1xf32>) -> tensor<1x48x58x58xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x48x56x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x48x56x56xf32>) -> tensor<1x48x56x56xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x24x56x56xf32>, tensor<48x24x1x1xf32>) outs(%init : tensor<1x48x56x56xf32>) -> tensor<1x48x56x56xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x48x56x56xf32> to tensor<1x48x58x58xf32>
  return %p : tensor<1x48x58x58xf32>
}

// Columns in the lanes with 32 filters: blocks of 6 filters (the last 2) over two vectors of
// columns, where 32's divisors allowed 4: 12 FMAs a step instead of 8. The filters step in a
// loop of their own inside the columns', the last block peeled.
// AVX2-LABEL: func.func @filters_partial
// AVX2: scf.for %{{.*}} = %c0 to %c32 step %c16
// AVX2: scf.for %{{.*}} = %c0 to %c30 step %c6
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
// AVX2: tensor.extract_slice %{{.*}}[0, 30, 0, 0] [1, 2, 1, 16]
// AVX2: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<2xf32>, vector<16xf32>
func.func @filters_partial(%x: tensor<1x24x2x32xf32>, %w: tensor<32x24x1x1xf32>) -> tensor<1x32x4x34xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x2x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x2x32xf32>) -> tensor<1x32x2x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x24x2x32xf32>, tensor<32x24x1x1xf32>) outs(%init : tensor<1x32x2x32xf32>) -> tensor<1x32x2x32xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x2x32xf32> to tensor<1x32x4x34xf32>
  return %p : tensor<1x32x4x34xf32>
}
