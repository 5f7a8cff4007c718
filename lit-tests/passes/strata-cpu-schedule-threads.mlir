// strata-cpu-schedule with threads: how the parallel tiles split the work.
//
// It splits a flattened 1x1 convolution whose register block
// does not divide its positions (12 positions x 32 filters over 56 x 56 = 3136) into one chunk
// of positions per thread, outside the filter blocks, so that each thread computes every
// filter of the rows the kernels around it split by rows; the columns of a chunk step in a
// loop of their own with the last, narrower block peeled. A result that a depthwise
// convolution reads (which splits its channels) keeps the split by filter blocks, and one
// thread has no parallel tiles at all; there its columns go in the lanes
// (`strata_machine::POINTWISE_COLUMN_POSITIONS`: 3136 positions of 128 channels into 128
// filters): blocks of 32 positions by 8 filters, the positions outermost, so a block's 32
// columns of every channel stay in L1 for all 16 filter blocks.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 threads=2})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 threads=1})' | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @chunks
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (3136, 4) step (1568, 1) shared_outs(%{{.*}}) -> (tensor<1x128x1x3136xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c1560 step %c12 iter_args(%{{.*}}) -> (tensor<1x32x1x1568xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args(%{{.*}}) -> (vector<12x32xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK: scf.forall.in_parallel
// ONE-LABEL: func.func @chunks
// ONE-NOT: scf.forall
// ONE: scf.for %{{.*}} = %c0 to %c3136 step %c32 iter_args(%{{.*}}) -> (tensor<1x128x1x3136xf32>)
// ONE: scf.for %{{.*}} = %c0 to %c128 step %c8 iter_args(%{{.*}}) -> (tensor<1x128x1x3136xf32>)
// ONE: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// ONE: vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
func.func @chunks(%x: tensor<1x128x56x56xf32>) -> tensor<1x128x56x56xf32> {
  %w = arith.constant dense<0.5> : tensor<128x128x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128x56x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x56x56xf32>) -> tensor<1x128x56x56xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x128x56x56xf32>, tensor<128x128x1x1xf32>) outs(%init : tensor<1x128x56x56xf32>) -> tensor<1x128x56x56xf32>
  return %0 : tensor<1x128x56x56xf32>
}

// CHECK-LABEL: func.func @before_depthwise
// CHECK: scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}}) -> (tensor<1x128x1x3136xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c3132 step %c12 iter_args(%{{.*}}) -> (tensor<1x32x1x3136xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args(%{{.*}}) -> (vector<4x32xf32>)
// ONE-LABEL: func.func @before_depthwise
// ONE-NOT: scf.forall
func.func @before_depthwise(%x: tensor<1x128x56x56xf32>, %dw: tensor<128x3x3xf32>) -> tensor<1x128x54x54xf32> {
  %w = arith.constant dense<0.5> : tensor<128x128x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128x56x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128x56x56xf32>) -> tensor<1x128x56x56xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x128x56x56xf32>, tensor<128x128x1x1xf32>) outs(%init : tensor<1x128x56x56xf32>) -> tensor<1x128x56x56xf32>
  %e2 = tensor.empty() : tensor<1x128x54x54xf32>
  %1 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %dw : tensor<1x128x56x56xf32>, tensor<128x3x3xf32>) outs(%e2 : tensor<1x128x54x54xf32>) -> tensor<1x128x54x54xf32>
  return %1 : tensor<1x128x54x54xf32>
}

// A band of rows (`strata-band-chains`: MobileNetV2's second expansion, 24 -> 144 filters, in
// two bands of 29 x 56 rows): its input a slice of whole rows, whose positions are one run of
// each channel, so one thread blocks them as one row of 1624 (16 positions x 24 filters, the
// last block peeled) rather than rows of 56 ending in a partial block each; several threads
// keep the rows (split by rows: the band's positions, flattened into chunks or split by
// filters, ran 1.6x slower on two threads in the first expansion's bands).
// CHECK-LABEL: func.func @band
// CHECK-NOT: 1x1624
// CHECK: return
// ONE-LABEL: func.func @band
// ONE: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x24x29x56xf32> into tensor<1x24x1624xf32>
// ONE: scf.for %{{.*}} = %c0 to %c1616 step %c16 iter_args(%{{.*}}) -> (tensor<1x24x1x1624xf32>)
// ONE: return
func.func @band(%x: tensor<1x24x56x56xf32>) -> tensor<1x144x29x56xf32> {
  %w = arith.constant dense<0.5> : tensor<144x24x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %rows = tensor.extract_slice %x[0, 0, 0, 0] [1, 24, 29, 56] [1, 1, 1, 1] : tensor<1x24x56x56xf32> to tensor<1x24x29x56xf32>
  %e = tensor.empty() : tensor<1x144x29x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x144x29x56xf32>) -> tensor<1x144x29x56xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%rows, %w : tensor<1x24x29x56xf32>, tensor<144x24x1x1xf32>) outs(%init : tensor<1x144x29x56xf32>) -> tensor<1x144x29x56xf32>
  return %0 : tensor<1x144x29x56xf32>
}

// The same band read next by a stride-2 depthwise convolution with implicit padding (its body
// reads the band through `tensor.extract`; `strata-vectorize-depthwise` splits its channels
// across the threads): the band's parallel tiles take the filter blocks outermost, so each
// core writes the channels it reads next (split by rows, each band went to the other core and
// back: MobileNetV2's first expansion and depthwise step ran as slowly on two threads as on one).
// CHECK-LABEL: func.func @band_to_depthwise
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (144, 29) step (24, 1) shared_outs(%{{.*}}) -> (tensor<1x144x29x56xf32>)
// CHECK: return
func.func @band_to_depthwise(%x: tensor<1x24x56x56xf32>, %dw: tensor<144x3x3xf32>) -> tensor<1x144x14x28xf32> {
  %w = arith.constant dense<0.5> : tensor<144x24x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c28 = arith.constant 28 : index
  %c55 = arith.constant 55 : index
  %rows = tensor.extract_slice %x[0, 0, 0, 0] [1, 24, 29, 56] [1, 1, 1, 1] : tensor<1x24x56x56xf32> to tensor<1x24x29x56xf32>
  %e = tensor.empty() : tensor<1x144x29x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x144x29x56xf32>) -> tensor<1x144x29x56xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%rows, %w : tensor<1x24x29x56xf32>, tensor<144x24x1x1xf32>) outs(%init : tensor<1x144x29x56xf32>) -> tensor<1x144x29x56xf32>
  %e2 = tensor.empty() : tensor<1x144x14x28xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x144x14x28xf32>) -> tensor<1x144x14x28xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%dw : tensor<144x3x3xf32>) outs(%init2 : tensor<1x144x14x28xf32>) attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 1, 1>} {
  ^bb0(%in: f32, %out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %i4 = linalg.index 4 : index
    %i5 = linalg.index 5 : index
    %r0 = arith.muli %i2, %c2 : index
    %r1 = arith.addi %r0, %i4 : index
    %r2 = arith.subi %r1, %c1 : index
    %r3 = arith.maxsi %r2, %c0 : index
    %r4 = arith.minsi %r3, %c28 : index
    %r5 = arith.cmpi eq, %r2, %r4 : index
    %q0 = arith.muli %i3, %c2 : index
    %q1 = arith.addi %q0, %i5 : index
    %q2 = arith.subi %q1, %c1 : index
    %q3 = arith.maxsi %q2, %c0 : index
    %q4 = arith.minsi %q3, %c55 : index
    %q5 = arith.cmpi eq, %q2, %q4 : index
    %inside = arith.andi %r5, %q5 : i1
    %v = tensor.extract %0[%i0, %i1, %r4, %q4] : tensor<1x144x29x56xf32>
    %s = arith.select %inside, %v, %zero : f32
    %m = arith.mulf %s, %in : f32
    %a = arith.addf %out, %m : f32
    linalg.yield %a : f32
  } -> tensor<1x144x14x28xf32>
  return %1 : tensor<1x144x14x28xf32>
}

// A batch of matmuls with enough work for each thread (here 4 x 128 x 32 x 128, attention's
// scores) is an scf.forall over the batch, each thread taking whole matmuls, marked as kernels
// of their own (not split again); one thread keeps the sequential loop.
// CHECK-LABEL: func.func @batch
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (4) shared_outs(%[[ACC:.*]] = %arg2) -> (tensor<4x128x128xf32>)
// CHECK: %[[C:.*]] = tensor.extract_slice %[[ACC]][%[[I]], 0, 0] [1, 128, 128] [1, 1, 1]
// CHECK: %[[P:.*]] = linalg.matmul {strata.batch_item, strata.loop_order = "vectorize"} ins(%{{.*}}, %{{.*}} : tensor<128x32xf32>, tensor<32x128xf32>) outs(%[[C]] : tensor<128x128xf32>)
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[P]] into %[[ACC]][%[[I]], 0, 0] [1, 128, 128] [1, 1, 1]
// CHECK-NOT: linalg.batch_matmul
// ONE-LABEL: func.func @batch
// ONE: scf.for {{.*}} -> (tensor<4x128x128xf32>)
// ONE-NOT: scf.forall
// ONE-NOT: strata.batch_item
func.func @batch(%a: tensor<4x128x32xf32>, %b: tensor<4x32x128xf32>, %c: tensor<4x128x128xf32>) -> tensor<4x128x128xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x128x32xf32>, tensor<4x32x128xf32>) outs(%c : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  return %0 : tensor<4x128x128xf32>
}

// Three heads on two threads (a vision transformer's 197 tokens by 64): two matmuls on one
// thread and one on the other beat splitting each matmul's tiles (whose remainders run on one
// thread). Started from a fill of a new tensor, each matmul fills its own slice of the result
// on the thread that computes it, each of its parts (register-blocked, rows and columns left)
// its own slice just before the part's product; one thread keeps the loop, the fills in it
// too.
// CHECK-LABEL: func.func @three_heads
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x197x197xf32>
// CHECK: scf.forall (%[[I:.*]]) in (3) shared_outs(%[[ACC:.*]] = %[[E]]) -> (tensor<3x197x197xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[ACC]][%[[I]], 0, 0] [1, 197, 197] [1, 1, 1]
// CHECK: %[[P:.*]] = tensor.extract_slice %[[S]][0, 0] [192, 192] [1, 1]
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : tensor<192x192xf32>)
// CHECK-NEXT: linalg.matmul {strata.batch_item, strata.loop_order = "vectorize"} ins(%{{.*}}, %{{.*}} : tensor<192x64xf32>, tensor<64x192xf32>) outs(%[[F]]
// CHECK: scf.forall.in_parallel
// ONE-LABEL: func.func @three_heads
// ONE: scf.for {{.*}} -> (tensor<3x197x197xf32>)
// ONE: linalg.fill
// ONE-NOT: scf.forall
func.func @three_heads(%a: tensor<3x197x64xf32>, %b: tensor<3x64x197xf32>) -> tensor<3x197x197xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x197x197xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x197x197xf32>) -> tensor<3x197x197xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x197x64xf32>, tensor<3x64x197xf32>) outs(%c : tensor<3x197x197xf32>) -> tensor<3x197x197xf32>
  return %0 : tensor<3x197x197xf32>
}

// A convolution's tiles split across threads from PARALLEL_MACS (2^19) multiply-adds, as a
// matmul's: 16 filters over 3 channels at 28 x 112 are 1.35M and split; at 4 x 112 (194K)
// the convolution stays on one thread.
// CHECK-LABEL: func.func @split
// CHECK: scf.forall
// CHECK-LABEL: func.func @whole
// CHECK-NOT: scf.forall
// CHECK: return
func.func @split(%x: tensor<1x3x30x114xf32>) -> tensor<1x16x28x112xf32> {
  %w = arith.constant dense<0.5> : tensor<16x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x28x112xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x28x112xf32>) -> tensor<1x16x28x112xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x30x114xf32>, tensor<16x3x3x3xf32>) outs(%init : tensor<1x16x28x112xf32>) -> tensor<1x16x28x112xf32>
  return %0 : tensor<1x16x28x112xf32>
}

func.func @whole(%x: tensor<1x3x6x114xf32>) -> tensor<1x16x4x112xf32> {
  %w = arith.constant dense<0.5> : tensor<16x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x4x112xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x112xf32>) -> tensor<1x16x4x112xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x6x114xf32>, tensor<16x3x3x3xf32>) outs(%init : tensor<1x16x4x112xf32>) -> tensor<1x16x4x112xf32>
  return %0 : tensor<1x16x4x112xf32>
}
