// strata-split-conv-channels: a convolution whose 32-filter block of filters is over 512 KiB
// (out of L2 for every tile of output positions) runs as one convolution per block of input
// channels, each block's filters at most 256 KiB, each convolution reading a channel slice of
// the input and of the filter and accumulating into the next one's initial value.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-split-conv-channels))' --mlir-pass-statistics 2>&1 | FileCheck %s

// 5 x 5 over 256 channels (32 x 256 x 25 floats: 800 KiB a block of filters) at 7 x 7: blocks
// of 64 channels (200 KiB), four convolutions, the first from the bias, each later one from
// the one before; the strides and dilations kept.
// CHECK-LABEL: func.func @wide
// CHECK: %[[X0:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 64, 11, 11] [1, 1, 1, 1]
// CHECK: %[[W0:.*]] = tensor.extract_slice %arg1[0, 0, 0, 0] [32, 64, 5, 5] [1, 1, 1, 1]
// CHECK: %[[C0:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X0]], %[[W0]] : tensor<1x64x11x11xf32>, tensor<32x64x5x5xf32>) outs(%arg2 : tensor<1x32x7x7xf32>)
// CHECK: %[[X1:.*]] = tensor.extract_slice %arg0[0, 64, 0, 0] [1, 64, 11, 11] [1, 1, 1, 1]
// CHECK: %[[W1:.*]] = tensor.extract_slice %arg1[0, 64, 0, 0] [32, 64, 5, 5] [1, 1, 1, 1]
// CHECK: %[[C1:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X1]], %[[W1]] : {{.*}}) outs(%[[C0]] : tensor<1x32x7x7xf32>)
// CHECK: %[[C2:.*]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%[[C1]] : tensor<1x32x7x7xf32>)
// CHECK: tensor.extract_slice %arg0[0, 192, 0, 0] [1, 64, 11, 11]
// CHECK: %[[C3:.*]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%[[C2]] : tensor<1x32x7x7xf32>)
// CHECK: return %[[C3]]
func.func @wide(%x: tensor<1x256x11x11xf32>, %w: tensor<32x256x5x5xf32>, %init: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x256x11x11xf32>, tensor<32x256x5x5xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// A 3 x 3 over 256 channels (288 KiB a block of filters): within L2, whole.
// CHECK-LABEL: func.func @fits
// CHECK-COUNT-1: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @fits(%x: tensor<1x256x9x9xf32>, %w: tensor<32x256x3x3xf32>, %init: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x256x9x9xf32>, tensor<32x256x3x3xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// One output position: the block's filters are read once whatever their size; whole.
// CHECK-LABEL: func.func @one_position
// CHECK-COUNT-1: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: (S) 1 split
func.func @one_position(%x: tensor<1x256x5x5xf32>, %w: tensor<32x256x5x5xf32>, %init: tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x256x5x5xf32>, tensor<32x256x5x5xf32>) outs(%init : tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32>
  return %0 : tensor<1x32x1x1xf32>
}
