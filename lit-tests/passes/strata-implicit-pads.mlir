// strata-implicit-pads: a depthwise convolution over a zero pad of its input's rows and
// columns becomes a linalg.generic carrying strata.implicit_pads (strides, dilations, padding top
// and left) over the unpadded input, which its body reads where the window lies inside it
// (zero elsewhere); the pad goes. After planning, strata-vectorize-depthwise writes it as its
// kernel: no padded buffer, no fill, no copy. A full convolution over at most 4 input channels
// and 27 taps with at most 16 filters (a 3 x 3 RGB stem) is taken the same way, its loops
// (n, f, oh, ow, c, kh, kw). Another padding value, or a shape the host kernel does not take
// (a width stride of 3, a stem of 32 filters), stays padded. A grouped convolution (ResNeXt's),
// in the lowering's form (input, filter and accumulator expanded into groups), is taken as a
// full convolution whose body reads its group's channels, padded or not; its result is
// expanded back into the groups. A max pool over a pad of -inf and a sum pool over a zero pad
// are taken too (the kernel's lanes outside the row then read -inf for a maximum).
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-implicit-pads))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-implicit-pads),strata-bufferize-and-plan,strata-vectorize-depthwise{vector-lanes=16})' | FileCheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @stride_one
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg1 : tensor<4x3x3xf32>) outs(%arg2 : tensor<1x4x10x20xf32>) attrs = {strata.implicit_pads = array<i64: 1, 1, 1, 1, 1, 1>}
// CHECK: arith.cmpi eq
// CHECK: tensor.extract %arg0[{{.*}}] : tensor<1x4x10x20xf32>
// CHECK: arith.select
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// KERNEL-LABEL: func.func @stride_one
// KERNEL-NOT: memref<1x4x12x22xf32>
// KERNEL-NOT: linalg.fill
// KERNEL: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// The first row's first block: the tap left of the row takes a zero lane.
// KERNEL: %[[X:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}, %c0{{.*}}, %c0{{.*}}] : memref<1x4x10x20xf32>, vector<16xf32>
// KERNEL: vector.shuffle %[[X]], %[[ZERO]] [16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
// KERNEL-NOT: linalg.generic
func.func @stride_one(%x: tensor<1x4x10x20xf32>, %w: tensor<4x3x3xf32>, %init: tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x10x20xf32> to tensor<1x4x12x22xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x4x12x22xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32>
  return %y : tensor<1x4x10x20xf32>
}

// Stride 2, 5 x 5 window padded by 2 (MobileNetV3's): strides and padding in the attribute.
// CHECK-LABEL: func.func @stride_two
// CHECK: attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 2, 2>}
// KERNEL-LABEL: func.func @stride_two
// KERNEL-NOT: linalg.fill
// KERNEL: vector.shuffle
func.func @stride_two(%x: tensor<1x4x14x14xf32>, %w: tensor<4x5x5xf32>, %init: tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x14x14xf32> to tensor<1x4x18x18xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x4x18x18xf32>, tensor<4x5x5xf32>) outs(%init : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  return %y : tensor<1x4x7x7xf32>
}

// A stem: 3 channels, 8 filters, stride 2. The kernel loops over the input channels with the
// accumulators carried (each tap's weights read where they are used).
// CHECK-LABEL: func.func @stem
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg1 : tensor<8x3x3x3xf32>) {{.*}} attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 1, 1>}
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x3x32x32xf32>
// KERNEL-LABEL: func.func @stem
// KERNEL-NOT: memref<1x3x34x34xf32>
// KERNEL: scf.for %{{.*}} = %c0{{.*}} to %c3 step %c1{{.*}} iter_args(
// KERNEL: memref.load %arg1[%{{.*}}, %{{.*}}, %c0{{.*}}, %c{{.*}}] : memref<8x3x3x3xf32>
// KERNEL-NOT: linalg.generic
func.func @stem(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x32x32xf32> to tensor<1x3x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x3x34x34xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %y : tensor<1x8x16x16xf32>
}

// CHECK-LABEL: func.func @stem_of_32_filters
// CHECK: tensor.pad
// CHECK: linalg.conv_2d_nchw_fchw
func.func @stem_of_32_filters(%x: tensor<1x3x32x32xf32>, %w: tensor<32x3x3x3xf32>, %init: tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x32x32xf32> to tensor<1x3x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x3x34x34xf32>, tensor<32x3x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %y : tensor<1x32x16x16xf32>
}

// CHECK-LABEL: func.func @padded_with_one
// CHECK: tensor.pad
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @padded_with_one(%x: tensor<1x4x10x20xf32>, %w: tensor<4x3x3xf32>, %init: tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32> {
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x4x10x20xf32> to tensor<1x4x12x22xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x4x12x22xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32>
  return %y : tensor<1x4x10x20xf32>
}

// CHECK-LABEL: func.func @stride_three
// CHECK: tensor.pad
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @stride_three(%x: tensor<1x4x10x30xf32>, %w: tensor<4x3x3xf32>, %init: tensor<1x4x10x10xf32>) -> tensor<1x4x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x10x30xf32> to tensor<1x4x12x32xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 3]> : tensor<2xi64>} ins(%p, %w : tensor<1x4x12x32xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x10x10xf32>) -> tensor<1x4x10x10xf32>
  return %y : tensor<1x4x10x10xf32>
}

// Two groups of 4 channels and 4 filters, 3 x 3 at stride 2: the input channel of filter f's
// tap c is f / 4 * 4 + c. The kernel runs each block of filters over its group's channels.
// CHECK-LABEL: func.func @grouped_stride_two
// CHECK-NOT: tensor.pad
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<8x4x3x3xf32>) outs(%arg2 : tensor<1x8x8x8xf32>) attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 1, 1>}
// CHECK: %[[G:.*]] = arith.divui %{{.*}}, %c4{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %c4{{.*}} : index
// CHECK: %[[C:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: tensor.extract %arg0[%{{.*}}, %[[C]], %{{.*}}, %{{.*}}] : tensor<1x8x16x16xf32>
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 8, 8]
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
// KERNEL-LABEL: func.func @grouped_stride_two
// KERNEL-NOT: memref<1x8x18x18xf32>
// KERNEL: %[[Q:.*]] = arith.divui %{{.*}}, %c4{{[_0-9]*}} : index
// KERNEL: %[[BASE:.*]] = arith.muli %[[Q]], %c4{{[_0-9]*}} : index
// KERNEL: scf.for %[[CI:.*]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(
// KERNEL: %[[CX:.*]] = arith.addi %[[CI]], %[[BASE]] : index
// KERNEL: vector.load %arg0[%c0{{[_0-9]*}}, %[[CX]], %{{.*}}, %{{.*}}] : memref<1x8x16x16xf32>, vector<16xf32>
// KERNEL: memref.load %arg1[%{{.*}}, %[[CI]], %c0{{[_0-9]*}}, %c0{{[_0-9]*}}] : memref<8x4x3x3xf32>
// KERNEL-NOT: linalg.generic
func.func @grouped_stride_two(%x: tensor<1x8x16x16xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %xg = tensor.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 18, 18] : tensor<1x8x18x18xf32> into tensor<1x2x4x18x18xf32>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 4, 4, 3, 3] : tensor<8x4x3x3xf32> into tensor<2x4x4x3x3xf32>
  %ig = tensor.expand_shape %init [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 8, 8] : tensor<1x8x8x8xf32> into tensor<1x2x4x8x8xf32>
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%xg, %wg : tensor<1x2x4x18x18xf32>, tensor<2x4x4x3x3xf32>) outs(%ig : tensor<1x2x4x8x8xf32>) -> tensor<1x2x4x8x8xf32>
  %r = tensor.collapse_shape %y [[0], [1, 2], [3], [4]] : tensor<1x2x4x8x8xf32> into tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// Unpadded, stride 1, 2 channels and 3 filters a group: taken with no padding.
// CHECK-LABEL: func.func @grouped_unpadded
// CHECK: attrs = {strata.implicit_pads = array<i64: 1, 1, 1, 1, 0, 0>}
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
func.func @grouped_unpadded(%x: tensor<1x4x10x20xf32>, %w: tensor<6x2x3x3xf32>, %init: tensor<1x6x8x18xf32>) -> tensor<1x2x3x8x18xf32> {
  %xg = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 10, 20] : tensor<1x4x10x20xf32> into tensor<1x2x2x10x20xf32>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
  %ig = tensor.expand_shape %init [[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 8, 18] : tensor<1x6x8x18xf32> into tensor<1x2x3x8x18xf32>
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xg, %wg : tensor<1x2x2x10x20xf32>, tensor<2x3x2x3x3xf32>) outs(%ig : tensor<1x2x3x8x18xf32>) -> tensor<1x2x3x8x18xf32>
  return %y : tensor<1x2x3x8x18xf32>
}

// Groups of 8 channels and filters (ResNeXt-50's second stage): taken too, whatever a
// group's size.
// CHECK-LABEL: func.func @grouped_wide_groups
// CHECK: attrs = {strata.implicit_pads = array<i64: 1, 1, 1, 1, 0, 0>}
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw
func.func @grouped_wide_groups(%x: tensor<1x16x10x20xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x8x18xf32>) -> tensor<1x2x8x8x18xf32> {
  %xg = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 8, 10, 20] : tensor<1x16x10x20xf32> into tensor<1x2x8x10x20xf32>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 8, 8, 3, 3] : tensor<16x8x3x3xf32> into tensor<2x8x8x3x3xf32>
  %ig = tensor.expand_shape %init [[0], [1, 2], [3], [4]] output_shape [1, 2, 8, 8, 18] : tensor<1x16x8x18xf32> into tensor<1x2x8x8x18xf32>
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xg, %wg : tensor<1x2x8x10x20xf32>, tensor<2x8x8x3x3xf32>) outs(%ig : tensor<1x2x8x8x18xf32>) -> tensor<1x2x8x8x18xf32>
  return %y : tensor<1x2x8x8x18xf32>
}

// Three outputs a row (the kernel takes at least 4): kept.
// CHECK-LABEL: func.func @grouped_three_columns
// CHECK: linalg.conv_2d_ngchw_gfchw
func.func @grouped_three_columns(%x: tensor<1x8x10x5xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x8x3xf32>) -> tensor<1x2x4x8x3xf32> {
  %xg = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 10, 5] : tensor<1x8x10x5xf32> into tensor<1x2x4x10x5xf32>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 4, 4, 3, 3] : tensor<8x4x3x3xf32> into tensor<2x4x4x3x3xf32>
  %ig = tensor.expand_shape %init [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 8, 3] : tensor<1x8x8x3xf32> into tensor<1x2x4x8x3xf32>
  %y = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xg, %wg : tensor<1x2x4x10x5xf32>, tensor<2x4x4x3x3xf32>) outs(%ig : tensor<1x2x4x8x3xf32>) -> tensor<1x2x4x8x3xf32>
  return %y : tensor<1x2x4x8x3xf32>
}

// A max pool over a pad of -inf: the body's maximum reads -inf outside the input; the kernel
// (two passes over each output row) reads the unpadded rows into a row buffer whose borders
// are -inf.
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<3x3xi8>) outs(%arg2 : tensor<1x4x10x20xf32>) attrs = {strata.implicit_pads = array<i64: 1, 1, 1, 1, 1, 1>}
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[V:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEG]] : f32
// CHECK: arith.maximumf %{{.*}}, %[[V]] : f32
// KERNEL-LABEL: func.func @max_pool
// KERNEL-NOT: memref<1x4x12x22xf32>
// KERNEL: %[[NEGV:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// KERNEL: %[[ROW:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// KERNEL: vector.store %[[NEGV]], %[[ROW]][%c0{{.*}}] : memref<64xf32>, vector<16xf32>
// KERNEL: vector.store %[[NEGV]], %[[ROW]][%c48] : memref<64xf32>, vector<16xf32>
// KERNEL: vector.load %arg0[%{{.*}}, %{{.*}}, %c0{{.*}}, %{{.*}}] : memref<1x4x10x20xf32>, vector<16xf32>
// KERNEL: arith.cmpf uno
// KERNEL-NOT: arith.maximumf
// KERNEL-NOT: linalg.generic
func.func @max_pool(%x: tensor<1x4x10x20xf32>, %window: tensor<3x3xi8>, %init: tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32> {
  %low = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %low : f32
  } : tensor<1x4x10x20xf32> to tensor<1x4x12x22xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %window : tensor<1x4x12x22xf32>, tensor<3x3xi8>) outs(%init : tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32>
  return %y : tensor<1x4x10x20xf32>
}

// A sum pool (an average pool's sum) over a zero pad, stride 2.
// CHECK-LABEL: func.func @sum_pool
// CHECK: attrs = {strata.implicit_pads = array<i64: 2, 2, 1, 1, 1, 1>}
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.mulf
// CHECK: arith.addf
// KERNEL-LABEL: func.func @sum_pool
// KERNEL: arith.constant dense<0.000000e+00> : vector<16xf32>
// KERNEL-NOT: linalg.generic
func.func @sum_pool(%x: tensor<1x4x16x16xf32>, %window: tensor<3x3xi8>, %init: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x16x16xf32> to tensor<1x4x18x18xf32>
  %y = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %window : tensor<1x4x18x18xf32>, tensor<3x3xi8>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// A max pool over a zero pad (not its identity: the zeros are values): kept.
// CHECK-LABEL: func.func @max_pool_over_zeros
// CHECK: tensor.pad
// CHECK: linalg.pooling_nchw_max
// CHECK: (S) 8 convolutions
// CHECK: (S) 5 kept
func.func @max_pool_over_zeros(%x: tensor<1x4x10x20xf32>, %window: tensor<3x3xi8>, %init: tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x10x20xf32> to tensor<1x4x12x22xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %window : tensor<1x4x12x22xf32>, tensor<3x3xi8>) outs(%init : tensor<1x4x10x20xf32>) -> tensor<1x4x10x20xf32>
  return %y : tensor<1x4x10x20xf32>
}
