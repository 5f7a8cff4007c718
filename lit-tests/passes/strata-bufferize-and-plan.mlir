// strata-bufferize-and-plan: bufferize and plan the arena, with the padded values worth
// producing in place (strata-choose-in-place) produced there.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),strata-bufferize-and-plan)' --mlir-pass-statistics 2>&1 | FileCheck %s
// A strided convolution feeding a pool (frontend/inputs/conv_relu.onnx): producing the pool's
// padded input in place would keep the larger padded buffer alive from the convolution on, so
// the copy is kept (1776 bytes in place).
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=linalg | strata-opt -p 'builtin.module(strata-bufferize-and-plan)' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=COPY
// A relu read only by a reflection pad writes into the padded buffer's interior, the borders
// then copied through one small stage each (one buffer for all): 10368 + 512 bytes, where the
// relu's result and its padded copy took 18560.
// RUN: strata-opt %S/inputs/reflect-pad.mlir -p 'builtin.module(func.func(sg-to-linalg),strata-bufferize-and-plan)' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=REFLECT
// With `pads-in-place=false` (`--disable pads-in-place`) nothing is produced in place.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),strata-bufferize-and-plan{pads-in-place=false})' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=PLAIN

// Relu writes straight into the convolution's padded input: one 18x18 buffer instead of the
// relu's result and its padded copy. The planned module takes the kept way's body.
// CHECK-LABEL: func.func @main
// CHECK-SAME: strata.arena_bytes = 10368
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK-NOT: memref.copy
// CHECK: (S) 1 in-place
// CHECK: (S) 0 copied
// CHECK: (S) 10368 arena-bytes
// CHECK: (S) 0 fallbacks

// (The convolution's output now has a buffer of its own in the arena: with one tensor.empty
// shared by every 1x4x4x4 result, one-shot bufferization used to put it in the caller's output
// buffer, 1200 bytes. strata-init-per-destination gives each result its own empty, which keeps
// the analysis linear and saves 17-22% on DenseNet and the int8 CNN.)
// PLAIN-LABEL: func.func @main
// PLAIN-SAME: strata.arena_bytes = 18560
// PLAIN: (S) 0 in-place
// PLAIN: (S) 0 copied
// PLAIN: (S) 18560 arena-bytes
// REFLECT-LABEL: func.func @main
// REFLECT-SAME: strata.arena_bytes = 10880
// REFLECT: %[[P:.*]] = memref.view %arg3[%c0][] : memref<10880xi8> to memref<1x8x18x18xf32>
// REFLECT: %[[I:.*]] = memref.subview %[[P]][0, 0, 1, 1] [1, 8, 16, 16]
// REFLECT: arith.maximumf
// REFLECT-NOT: memref.copy
// REFLECT: (S) 1 in-place
// REFLECT: (S) 10880 arena-bytes
// COPY: (S) 0 in-place
// COPY: (S) 1 copied
// COPY: (S) 1456 arena-bytes
func.func @main(%x: tensor<1x8x16x16xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %r = "sg.relu"(%x) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %y = "sg.conv2d"(%r, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %y : tensor<1x8x16x16xf32>
}
