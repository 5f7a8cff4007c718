// When the register-blocked convolution schedule fails to apply (forced here with the
// testing-only option inject-conv-failure), strata-cpu-schedule does not fail the compile: it
// restores the module as it was, schedules it again with every convolution left to the
// loop-order schedule, and warns. The convolution is then a loop nest (reduction loops
// outside, as for any convolution without a register block), and nothing of the failed
// attempt (marks, tiles, the transposed filter) is left.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16 inject-conv-failure=true})' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16})' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=BLOCKED

// CHECK: warning: 'builtin.module' op the register-blocked convolution schedule failed to apply (Attempted to vectorize, but failed); the convolutions run as loop nests instead
// CHECK-LABEL: func.func @conv
// CHECK-NOT: strata.conv_tiles
// CHECK-NOT: conv_filter_chwf
// CHECK-NOT: vector.
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]
// CHECK: (S) 0 convolutions
// CHECK: (S) 1 conv-fallbacks

// BLOCKED-NOT: warning
// BLOCKED: vector.outerproduct
// BLOCKED: (S) 1 convolutions
// BLOCKED: (S) 0 conv-fallbacks
func.func @conv(%x: tensor<1x32x10x10xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x10x10xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}
