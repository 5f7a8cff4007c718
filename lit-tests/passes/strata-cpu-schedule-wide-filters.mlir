// On one thread, strata-cpu-schedule blocks a flattened 1x1 convolution whose input is past
// strata_machine::WIDE_FILTERS_INPUT_BYTES (768 KiB) and that reads at least 128 channels with
// four registers of filters (strata_machine::wide_filter_tiles): on AVX-512, 6 positions x 64
// filters, one filter block, so the input streams once instead of once per 32-filter block
// (256 -> 64 filters at 40 x 40: 1.6 MB of input). The 1600 positions leave a last block of
// 4. An input of 768 KiB (256 channels at 24 x 32) keeps blocks of 12 positions x 32 filters. Up to 192 channels and 128 filters over at least 1600 positions, the columns
// go in the lanes first (strata_machine::POINTWISE_COLUMN_POSITIONS; YOLOv8n's 192 -> 64
// filters at 40 x 40 0.348 -> 0.305 ms in the model): 32 positions x 8 filters, positions
// outermost.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 threads=1})' | FileCheck %s

// CHECK-LABEL: func.func @wide
// CHECK: scf.for %{{.*}} = %c0 to %c1596 step %c6
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<6x64xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<4x64xf32>)
// CHECK-NOT: vector<12x32xf32>
// CHECK: return
func.func @wide(%x: tensor<1x256x40x40xf32>) -> tensor<1x64x40x40xf32> {
  %w = arith.constant dense<0.5> : tensor<64x256x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x40x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x40x40xf32>) -> tensor<1x64x40x40xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x256x40x40xf32>, tensor<64x256x1x1xf32>) outs(%init : tensor<1x64x40x40xf32>) -> tensor<1x64x40x40xf32>
  return %0 : tensor<1x64x40x40xf32>
}

// CHECK-LABEL: func.func @narrow
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<12x32xf32>)
// CHECK-NOT: vector<6x64xf32>
// CHECK: return
func.func @narrow(%x: tensor<1x256x24x32xf32>) -> tensor<1x64x24x32xf32> {
  %w = arith.constant dense<0.5> : tensor<64x256x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x24x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x24x32xf32>) -> tensor<1x64x24x32xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x256x24x32xf32>, tensor<64x256x1x1xf32>) outs(%init : tensor<1x64x24x32xf32>) -> tensor<1x64x24x32xf32>
  return %0 : tensor<1x64x24x32xf32>
}

// CHECK-LABEL: func.func @columns
// CHECK: scf.for %{{.*}} = %c0 to %c1600 step %c32
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c192 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-NOT: vector<6x64xf32>
// CHECK: return
func.func @columns(%x: tensor<1x192x40x40xf32>) -> tensor<1x64x40x40xf32> {
  %w = arith.constant dense<0.5> : tensor<64x192x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x40x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x40x40xf32>) -> tensor<1x64x40x40xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x192x40x40xf32>, tensor<64x192x1x1xf32>) outs(%init : tensor<1x64x40x40xf32>) -> tensor<1x64x40x40xf32>
  return %0 : tensor<1x64x40x40xf32>
}
