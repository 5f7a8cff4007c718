// strata-cpu-schedule keeps the window's tap loops (kh, kw) of a register-blocked convolution
// rolled (an llvm.loop annotation that disables unrolling) where its block has several output
// rows, unit row stride, and its accumulators, one kernel row's input broadcasts and the filter
// vectors exceed the registers by several (conv_lanes::rolled_taps): unrolled, the broadcasts
// shared between the taps of neighbouring rows spill accumulators every step. YOLOv8n's head
// (256 -> 80 filters, 3x3, at 10 x 10) takes blocks of 2 x 10 positions x 16 filters on
// AVX-512: 20 accumulators, 2 x 12 broadcasts, one filter vector. A block of one row (ResNet's
// 7 x 7 maps: 1 x 7 positions x 32 filters) keeps its taps unrolled.
// RUN: strata-opt %s -p 'builtin.module(strata-cpu-schedule{vector-lanes=16})' | FileCheck %s

// CHECK: #[[NOUNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[ROLLED:.*]] = #llvm.loop_annotation<unroll = #[[NOUNROLL]]>

// CHECK-LABEL: func.func @rolled
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<2x10x16xf32>)
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: vector.outerproduct
// CHECK: } {loop_annotation = #[[ROLLED]]}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {loop_annotation = #[[ROLLED]]}
func.func @rolled(%x: tensor<1x256x12x12xf32>) -> tensor<1x80x10x10xf32> {
  %w = arith.constant dense<0.5> : tensor<80x256x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x80x10x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x80x10x10xf32>) -> tensor<1x80x10x10xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x256x12x12xf32>, tensor<80x256x3x3xf32>) outs(%init : tensor<1x80x10x10xf32>) -> tensor<1x80x10x10xf32>
  return %0 : tensor<1x80x10x10xf32>
}

// CHECK-LABEL: func.func @unrolled
// CHECK: iter_args(%{{.*}}) -> (vector<7x32xf32>)
// CHECK-NOT: loop_annotation
// CHECK: return
func.func @unrolled(%x: tensor<1x64x9x9xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x9x9xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}
