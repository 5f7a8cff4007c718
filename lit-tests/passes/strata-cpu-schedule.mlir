// strata-cpu-schedule interchanges the loops of the ops whose shapes favour reductions
// outside (marked strata.loop_order = "reduction_outer", which generalize drops) with the transform script in
// crates/lower/schedules; the others keep MLIR's order, and the script leaves no trace.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule)' | FileCheck %s

// CHECK-LABEL: func.func @convs
// Depthwise: (n, c, kh, kw, oh, ow).
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]
// A 1x1 convolution over 16 channels keeps its dot product innermost (a named op).
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: strata.loop_order
// A 3x3 convolution over 16 channels (144 per output): (n, f, c, kh, kw, oh, ow).
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]
func.func @convs(%x: tensor<1x16x10x10xf32>, %dw: tensor<16x3x3xf32>, %pw: tensor<8x16x1x1xf32>, %w: tensor<8x16x3x3xf32>,
                 %a: tensor<1x16x8x8xf32>, %b: tensor<1x8x10x10xf32>, %c: tensor<1x8x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x8x10x10xf32>, tensor<1x8x8x8xf32>) {
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dw : tensor<1x16x10x10xf32>, tensor<16x3x3xf32>) outs(%a : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %pw : tensor<1x16x10x10xf32>, tensor<8x16x1x1xf32>) outs(%b : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x10x10xf32>, tensor<8x16x3x3xf32>) outs(%c : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0, %1, %2 : tensor<1x16x8x8xf32>, tensor<1x8x10x10xf32>, tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func.func @matmuls
// 64 columns: (m, k, n).
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// 8 columns: unchanged.
// CHECK: linalg.matmul ins
// CHECK-NOT: transform.
func.func @matmuls(%a: tensor<4x32xf32>, %b: tensor<32x64xf32>, %c: tensor<4x64xf32>, %d: tensor<32x8xf32>, %e: tensor<4x8xf32>) -> (tensor<4x64xf32>, tensor<4x8xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x32xf32>, tensor<32x64xf32>) outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = linalg.matmul ins(%a, %d : tensor<4x32xf32>, tensor<32x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x64xf32>, tensor<4x8xf32>
}

// A matmul whose rows are a multiple of 8 and columns a multiple of 32 stays a named op,
// marked for strata-cpu-vectorize (register-tiled and vectorised after bufferization).
// CHECK-LABEL: func.func @vectorizable
// CHECK: linalg.matmul {strata.loop_order = "vectorize"}
func.func @vectorizable(%a: tensor<8x32xf32>, %b: tensor<32x64xf32>, %c: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x64xf32>) outs(%c : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
