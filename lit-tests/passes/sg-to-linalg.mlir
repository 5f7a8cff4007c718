// sg-to-linalg lowers each sg op to linalg named ops or generics on tensors, inlined where
// the op was (with its location).
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-to-linalg))' | FileCheck %s

// Broadcasting reads a size-1 dimension at index 0.
// CHECK: #[[BCAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x5x5xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BCAST]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: outs(%[[E]] : tensor<2x4x5x5xf32>)
// CHECK: arith.addf
// CHECK-NOT: sg.
func.func @add_broadcast(%x: tensor<2x4x5x5xf32>, %b: tensor<4x1x1xf32>) -> tensor<2x4x5x5xf32> {
  %0 = "sg.add"(%x, %b) : (tensor<2x4x5x5xf32>, tensor<4x1x1xf32>) -> tensor<2x4x5x5xf32>
  return %0 : tensor<2x4x5x5xf32>
}

// -----

// Convolution: explicit padding, the accumulator starts as the broadcast bias.
// CHECK-LABEL: func.func @conv_bias
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[ACC:.*]] = linalg.generic
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %{{.*}} : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%[[ACC]] : tensor<1x4x4x4xf32>)
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = "sg.conv2d"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Depthwise (group = channels = filters) and other groups use their own named ops.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 2, 2, 6, 6] : tensor<1x4x6x6xf32> into tensor<1x2x2x6x6xf32>
// CHECK: linalg.conv_2d_ngchw_gfchw
func.func @grouped(%x: tensor<1x4x6x6xf32>, %dw: tensor<4x1x3x3xf32>, %g: tensor<4x2x3x3xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %0 = "sg.conv2d"(%x, %dw) {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  %1 = "sg.conv2d"(%x, %g) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// Matmul: a 2-D right operand folds the left's batch into M; equal batches use
// batch_matmul; broadcast batches a contraction generic.
// CHECK-LABEL: func.func @matmuls
// CHECK: tensor.collapse_shape %{{.*}} : tensor<2x3x8xf32> into tensor<48xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<6x8xf32>, tensor<8x5xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x8xf32>, tensor<2x8x5xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
func.func @matmuls(%a: tensor<2x3x8xf32>, %w: tensor<8x5xf32>, %b: tensor<2x8x5xf32>, %c: tensor<2x1x3x8xf32>, %d: tensor<4x8x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x4x3x5xf32>) {
  %0 = "sg.matmul"(%a, %w) : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
  %1 = "sg.matmul"(%a, %b) : (tensor<2x3x8xf32>, tensor<2x8x5xf32>) -> tensor<2x3x5xf32>
  %2 = "sg.matmul"(%c, %d) : (tensor<2x1x3x8xf32>, tensor<4x8x5xf32>) -> tensor<2x4x3x5xf32>
  return %0, %1, %2 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x4x3x5xf32>
}

// -----

// Reductions fill the identity, reduce, and reshape for keepdims; mean divides.
// CHECK-LABEL: func.func @reduce_mean
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: arith.divf
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = "sg.reduce_mean"(%x) {axes = array<i64: 1, 2>, keepdims = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Softmax: the maximum (ignoring NaN: a row with one comes out NaN anyway), exp(x - max) in
// a loop of its own (it vectorises; 0 below -87, where it would be denormal, and exp never
// asked for one: masked rows took a microcode assist per element), its sum, one reciprocal
// per row (over the sum), then the products written over the exponentials.
// CHECK-LABEL: func.func @softmax
// CHECK: arith.maxnumf
// CHECK: %[[E:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: %[[SH:.*]] = arith.subf
// CHECK: %[[KEPT:.*]] = arith.maximumf %[[SH]], %[[FLUSH:.*]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[KEPT]]
// CHECK: %[[TINY:.*]] = arith.cmpf olt, %[[SH]], %[[FLUSH]] : f32
// CHECK: arith.select %[[TINY]], %{{.*}}, %[[EXP]] : f32
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<2x8xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<2xf32>)
// CHECK: arith.divf %{{.*}}, %out
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<2xf32>) outs(%[[E]] : tensor<2x8xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = "sg.softmax"(%x) {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Log-softmax: the sum of exp(x - max) in one reduction, exp's argument kept at -87 or more
// (its result then rounds away in a sum that holds exp(0) = 1), no select: the body stays a
// plain reduction that strata-vectorize-reductions takes. The logarithm of each row's sum
// once, in the sum's buffer, not per element of the last loop.
// CHECK-LABEL: func.func @log_softmax
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.addf
// CHECK-NOT: arith.select
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[SUM:.*]]: f32):
// CHECK-NEXT: math.log %[[SUM]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-NOT: math.log
// CHECK: return
func.func @log_softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = "sg.log_softmax"(%x) {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Sigmoid: 1 / (1 + exp(-x)) with -x kept at -87 or more (above x = 87 the result is 1 in
// every float format either way, and exp never gives a denormal).
// CHECK-LABEL: func.func @sigmoid
// CHECK: %[[NEG:.*]] = arith.negf
// CHECK: %[[KEPT:.*]] = arith.maximumf %[[NEG]], %{{.*}} : f32
// CHECK: math.exp %[[KEPT]]
// CHECK: arith.divf
func.func @sigmoid(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = "sg.sigmoid"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Layout ops: transpose and contiguous slices are linalg/tensor ops (views after
// bufferization); gather reads through tensor.extract with clamped indices.
// CHECK-LABEL: func.func @layout
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>) permutation = [1, 0]
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 2] [1, 1] : tensor<2x3xf32> to tensor<2x2xf32>
// CHECK: arith.index_cast
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}} : tensor<2x3xf32>
// A slice walking an axis down (rows reversed, columns from the last by -2) gathers
// `start + i * step` per axis.
// CHECK: %[[DOWN:.*]] = arith.constant -2 : index
// CHECK: %[[LAST:.*]] = arith.constant 2 : index
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %[[DOWN]] : index
// CHECK: arith.addi %[[LAST]], %[[OFF]] : index
// CHECK: tensor.extract %{{.*}} : tensor<2x3xf32>
func.func @layout(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<2x2xf32>) {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "sg.slice"(%x) {starts = array<i64: 0, 1>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %2 = "sg.gather"(%x, %i) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  %3 = "sg.slice"(%x) {starts = array<i64: 1, 2>, ends = array<i64: -1, -1>, steps = array<i64: -1, -2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<2x2xf32>
}

// -----

// A view on its own is a copy that reads it as a fused kernel reads a view operand: a
// transposed slice of channels (YOLOv8's box head: [1, 64, 20] split into 4 x 16 bins,
// transposed) as its storage expanded into the view's axes and sliced, read through a
// permutation; a slice of columns from 1 (not a per-axis projected map: `d1 + 1`) the same
// way, the offset in the expanded axes' digits; a view whose axes overlap through one index
// over the storage (no `tensor.extract`: a map the copy reads).
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d1, d3)>
// CHECK-DAG: #[[FLAT:.*]] = affine_map<(d0, d1) -> (d0 * 2 + d1 + 1)>
// CHECK-LABEL: func.func @standalone_views
// CHECK: %[[FLAT1:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<1x144x20xf32> into tensor<2880xf32>
// CHECK: %[[LINE:.*]] = tensor.extract_slice %[[FLAT1]][0] [1280] [1] : tensor<2880xf32> to tensor<1280xf32>
// CHECK: %[[BINS:.*]] = tensor.expand_shape %[[LINE]] {{\[}}[0, 1, 2]] output_shape [4, 16, 20] : tensor<1280xf32> into tensor<4x16x20xf32>
// CHECK: linalg.generic {indexing_maps = [#[[SWAP]], #{{.*}}], {{.*}} ins(%[[BINS]] : tensor<4x16x20xf32>) outs(%{{.*}} : tensor<1x16x4x20xf32>)
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [6, 5] : tensor<30xf32> into tensor<6x5xf32>
// CHECK: %[[COLS:.*]] = tensor.extract_slice %[[ROWS]][0, 1] [6, 3] [1, 1] : tensor<6x5xf32> to tensor<6x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[COLS]] : tensor<6x3xf32>) outs(%{{.*}} : tensor<6x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[FLAT]], #{{.*}}], {{.*}} ins(%{{.*}} : tensor<30xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NOT: tensor.extract %
// CHECK-NOT: sg.
func.func @standalone_views(%x: tensor<1x144x20xf32>, %y: tensor<6x5xf32>) -> (tensor<1x16x4x20xf32>, tensor<6x3xf32>, tensor<4x4xf32>) {
  %0 = "sg.view"(%x) {offset = 0 : i64, sizes = array<i64: 1, 16, 4, 20>, strides = array<i64: 1280, 20, 320, 1>} : (tensor<1x144x20xf32>) -> tensor<1x16x4x20xf32>
  %1 = "sg.view"(%y) {offset = 1 : i64, sizes = array<i64: 6, 3>, strides = array<i64: 5, 1>} : (tensor<6x5xf32>) -> tensor<6x3xf32>
  %2 = "sg.view"(%y) {offset = 1 : i64, sizes = array<i64: 4, 4>, strides = array<i64: 2, 1>} : (tensor<6x5xf32>) -> tensor<4x4xf32>
  return %0, %1, %2 : tensor<1x16x4x20xf32>, tensor<6x3xf32>, tensor<4x4xf32>
}

// -----

// Reflect and edge padding: the input inserted into the interior, then each border region
// (sides, then corners, one region per axis at a time) staged from the interior through one
// affine index per axis into a tensor of its own, then written into the border: the stage
// has a leading unit axis, so the write is a generic with two different maps, which neither
// canonicalisation nor eliminate-empty-tensors folds back, and nothing reads the input but
// its insertion, so its producer can write into the interior. Mirrored for reflect (cols 3-4
// read as 1 - t before, col 3 as 0 - t after), a constant for edge (row 0 before; column 2
// after, the corner both).
// CHECK-DAG: #[[BELOW:.*]] = affine_map<(d0, d1, d2) -> (d1, -d2 + 1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ABOVE:.*]] = affine_map<(d0, d1, d2) -> (d1, -d2)>
// CHECK-DAG: #[[UNIT:.*]] = affine_map<(d0, d1) -> (0, d0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TOP:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[CORNER:.*]] = affine_map<(d0, d1, d2) -> (0, 0)>
// CHECK-DAG: #[[RIGHT:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @pad_reflect
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x6xf32>
// CHECK: %[[IN:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 2] [2, 3] [1, 1]
// CHECK: %[[R0:.*]] = tensor.extract_slice %[[IN]][0, 3] [2, 2] [1, 1]
// CHECK: %[[T0:.*]] = linalg.generic {indexing_maps = [#[[BELOW]], #[[ID3]]], {{.*}} ins(%[[R0]] : tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x2xf32>)
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[IN]][0, 0] [2, 2] [1, 1]
// CHECK: %[[B0:.*]] = linalg.generic {indexing_maps = [#[[UNIT]], #[[ID]]], {{.*}} ins(%[[T0]] : tensor<1x2x2xf32>) outs(%[[S0]] : tensor<2x2xf32>)
// CHECK: %[[P0:.*]] = tensor.insert_slice %[[B0]] into %[[IN]][0, 0] [2, 2] [1, 1]
// CHECK: %[[R1:.*]] = tensor.extract_slice %[[P0]][0, 3] [2, 1] [1, 1]
// CHECK: %[[T1:.*]] = linalg.generic {indexing_maps = [#[[ABOVE]], #[[ID3]]], {{.*}} ins(%[[R1]] : tensor<2x1xf32>) outs(%{{.*}} : tensor<1x2x1xf32>)
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[P0]][0, 5] [2, 1] [1, 1]
// CHECK: %[[B1:.*]] = linalg.generic {indexing_maps = [#[[UNIT]], #[[ID]]], {{.*}} ins(%[[T1]] : tensor<1x2x1xf32>) outs(%[[S1]] : tensor<2x1xf32>)
// CHECK: %[[P1:.*]] = tensor.insert_slice %[[B1]] into %[[P0]][0, 5] [2, 1] [1, 1]
// CHECK-NOT: %arg0
// CHECK: return %[[P1]]
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = "sg.pad"(%x) {pads = array<i64: 0, 2, 0, 1>, mode = 1 : i64, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @pad_edge
// CHECK: %[[IN:.*]] = tensor.insert_slice %arg0 into %{{.*}}[1, 0] [2, 3] [1, 1]
// CHECK: tensor.extract_slice %[[IN]][1, 0] [1, 3] [1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[TOP]], #[[ID3]]], {{.*}} outs(%{{.*}} : tensor<1x1x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[UNIT]], #[[ID]]], {{.*}} outs(%{{.*}} : tensor<1x3xf32>)
// CHECK: tensor.extract_slice %{{.*}}[1, 2] [1, 1] [1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[CORNER]], #[[ID3]]], {{.*}} outs(%{{.*}} : tensor<1x1x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[UNIT]], #[[ID]]], {{.*}} outs(%{{.*}} : tensor<1x2xf32>)
// CHECK: tensor.extract_slice %{{.*}}[1, 2] [2, 1] [1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[RIGHT]], #[[ID3]]], {{.*}} outs(%{{.*}} : tensor<1x2x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[UNIT]], #[[ID]]], {{.*}} outs(%{{.*}} : tensor<2x2xf32>)
// CHECK-NOT: tensor.extract %arg0
func.func @pad_edge(%x: tensor<2x3xf32>) -> tensor<3x5xf32> {
  %0 = "sg.pad"(%x) {pads = array<i64: 1, 0, 0, 2>, mode = 2 : i64, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Wrap padding past the input's extent (4 after 3 columns) reads (i + lift) mod n on a padded
// axis (here 2 before on 3: lift 1), and an axis without padding reads where it writes.
// CHECK-LABEL: func.func @pad_wrap
// CHECK: linalg.generic
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[LIFT:.*]] = arith.constant 1 : index
// CHECK: %[[N:.*]] = arith.constant 3 : index
// CHECK: %[[L:.*]] = arith.addi %[[I1]], %[[LIFT]] : index
// CHECK: %[[J:.*]] = arith.remui %[[L]], %[[N]] : index
// CHECK: tensor.extract %{{.*}}[%[[I0]], %[[J]]] : tensor<2x3xf32>
func.func @pad_wrap(%x: tensor<2x3xf32>) -> tensor<2x9xf32> {
  %0 = "sg.pad"(%x) {pads = array<i64: 0, 2, 0, 4>, mode = 3 : i64, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// Identical ops share one parsed kernel; each use is inlined.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-2: math.tanh
func.func @shared(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "sg.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "sg.tanh"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Unsigned elements: tensors keep ui8; scalars are cast to signless for unsigned arithmetic.
// Integer division never traps: a zero divisor divides by 1 (the frontend's run-time check
// reports it).
// CHECK-LABEL: func.func @unsigned
// CHECK: ^bb0(%[[X:.*]]: ui8, %[[Y:.*]]: ui8, %{{.*}}: ui8):
// CHECK: %[[XS:.*]] = builtin.unrealized_conversion_cast %[[X]] : ui8 to i8
// CHECK: %[[YS:.*]] = builtin.unrealized_conversion_cast %[[Y]] : ui8 to i8
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[ONE:.*]] = arith.constant 1 : i8
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[YS]], %[[ZERO]] : i8
// CHECK: %[[D:.*]] = arith.select %[[IS0]], %[[ONE]], %[[YS]] : i8
// CHECK: %[[Q:.*]] = arith.divui %[[XS]], %[[D]] : i8
// CHECK: %[[QU:.*]] = builtin.unrealized_conversion_cast %[[Q]] : i8 to ui8
// CHECK: linalg.yield %[[QU]] : ui8
func.func @unsigned(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  %0 = "sg.div"(%x, %y) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Casts to a float8 format: round to nearest even at the format's precision (math.roundeven
// of |x| scaled by a power of two), then the code, its sign and the bit pattern of the type.
// Saturating (the default) clamps codes past 0x7E (448) to 0x7E; with saturate = 0 they
// become the NaN code 0x7F.
// CHECK-LABEL: func.func @cast_to_float8
// CHECK: linalg.generic
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: %[[MAX:.*]] = arith.constant 126 : i32
// CHECK: %[[OVER:.*]] = arith.cmpi sgt, %{{.*}}, %[[MAX]] : i32
// CHECK: arith.select %[[OVER]], %[[MAX]], %{{.*}} : i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: -> tensor<2x3xf8E4M3FN>
// CHECK: linalg.generic
// CHECK: %[[MAX2:.*]] = arith.constant 126 : i32
// CHECK: %[[NAN:.*]] = arith.constant 127 : i32
// CHECK: arith.select %{{.*}}, %[[NAN]], %{{.*}} : i32
func.func @cast_to_float8(%x: tensor<2x3xf32>) -> (tensor<2x3xf8E4M3FN>, tensor<2x3xf8E4M3FN>) {
  %0 = "sg.cast"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf8E4M3FN>
  %1 = "sg.cast"(%x) {saturate = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf8E4M3FN>
  return %0, %1 : tensor<2x3xf8E4M3FN>, tensor<2x3xf8E4M3FN>
}

// -----

// From float8 E5M2: fields as integers, normal values assembled as f32 bits, subnormals
// scaled, the all-ones exponent as infinity or NaN.
// CHECK-LABEL: func.func @cast_from_float8
// CHECK: arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cast_from_float8(%x: tensor<4xf8E5M2>) -> tensor<4xf16> {
  %0 = "sg.cast"(%x) : (tensor<4xf8E5M2>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Floats to int4 truncate toward zero and wrap (through i32).
// CHECK-LABEL: func.func @cast_to_int4
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i4
func.func @cast_to_int4(%x: tensor<5xf32>) -> tensor<5xi4> {
  %0 = "sg.cast"(%x) : (tensor<5xf32>) -> tensor<5xi4>
  return %0 : tensor<5xi4>
}

// -----

// Unsigned max pooling: the sign bit flipped (unsigned order becomes signed order), a signed
// pool, flipped back.
// CHECK-LABEL: func.func @max_pool_unsigned
// CHECK: arith.xori %{{.*}}, %{{.*}} : i8
// CHECK: -> tensor<1x1x4x4xi8>
// CHECK: linalg.pooling_nchw_max
// CHECK: arith.xori
// CHECK: -> tensor<1x1x2x2xui8>
func.func @max_pool_unsigned(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  %0 = "sg.max_pool"(%x) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
  return %0 : tensor<1x1x2x2xui8>
}

// -----

// MaxPool's Indices: one reduction over the window's taps (d4, d5) of the padded input,
// keeping the smallest row-major index of a tap inside the input equal to the maximum; then,
// column major, each plane's position renumbered as w * H + h.
// CHECK: #[[TAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK: #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK: #[[TAPS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @max_pool_indices
// CHECK: %[[POOLED:.*]] = linalg.pooling_nchw_max
// CHECK: linalg.generic {indexing_maps = [#[[TAP]], #[[WINDOW]], #[[TAPS]], #[[WINDOW]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[POOLED]], %{{.*}} :
// CHECK: arith.cmpf oeq
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK: arith.minsi
// CHECK: linalg.generic
// CHECK: arith.divsi
// CHECK: arith.remsi
func.func @max_pool_indices(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xi64> {
  %0 = "sg.max_pool"(%x) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %1 = "sg.max_pool_indices"(%x, %0) {ceil_mode = 0 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xi64>
  return %1 : tensor<1x1x3x3xi64>
}

// -----

// Half-precision products accumulate in f32, rounded once: a convolution and a matmul.
// CHECK-LABEL: func.func @half_accumulates_in_f32
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x5x5xf16>, tensor<3x2x3x3xf16>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x5xf16>) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @half_accumulates_in_f32(%x: tensor<1x2x5x5xf16>, %w: tensor<3x2x3x3xf16>, %a: tensor<4x8xf16>, %b: tensor<8x5xf16>) -> (tensor<1x3x3x3xf16>, tensor<4x5xf16>) {
  %0 = "sg.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf16>, tensor<3x2x3x3xf16>) -> tensor<1x3x3x3xf16>
  %1 = "sg.matmul"(%a, %b) : (tensor<4x8xf16>, tensor<8x5xf16>) -> tensor<4x5xf16>
  return %0, %1 : tensor<1x3x3x3xf16>, tensor<4x5xf16>
}

// -----

// Dilated average pooling: a dilated sum pool, divided by the count of taps inside the input.
// CHECK-LABEL: func.func @average_pool_dilated
// CHECK: linalg.pooling_nchw_sum {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK: arith.divsi
// CHECK: arith.divf
func.func @average_pool_dilated(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x6x6xf32> {
  %0 = "sg.average_pool"(%x) {ceil_mode = 0 : i64, count_include_pad = 0 : i64, dilations = array<i64: 2, 2>, kernel = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}

// -----

// A matmul of an f32 value widened to f64 (how a short-time Fourier transform accumulates)
// reads the f32 value: linalg's matmul widens as it multiplies, and the f64 copy is dead.
// A widened operand read by something else stays widened for that reader.
// CHECK-LABEL: func.func @widened_matmul
// CHECK: linalg.generic
// CHECK: arith.extf
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x3xf64>) outs(%{{.*}} : tensor<4x3xf64>)
// CHECK: return
func.func @widened_matmul(%a: tensor<4x8xf32>, %b: tensor<8x3xf64>) -> (tensor<4x3xf64>, tensor<4x8xf64>) {
  %w = "sg.cast"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf64>
  %m = "sg.matmul"(%w, %b) : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
  return %m, %w : tensor<4x3xf64>, tensor<4x8xf64>
}

// -----

// A cast of a boolean that only it reads computes the comparison itself, reading the
// comparison's operands (broadcast as the comparison reads them): no boolean tensor between
// them (the comparison's own kernel is dead, and canonicalization drops it). A boolean read by
// something else as well stays one, and the cast reads it.
// CHECK-LABEL: func.func @compared_cast
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x5xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x8x1xi32>, tensor<1x1x5xi32>) outs(%[[E]] : tensor<1x8x5xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.cmpi eq, %[[X]], %[[Y]] : i32
// CHECK-NEXT: %[[F:.*]] = arith.uitofp %[[C]] : i1 to f32
// CHECK-NEXT: linalg.yield %[[F]] : f32
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @shared_boolean
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi1>)
// CHECK: arith.cmpf olt
// CHECK: linalg.generic {{.*}} ins(%[[B]] : tensor<4xi1>)
// CHECK: arith.uitofp %{{.*}} : i1 to f32
func.func @compared_cast(%x: tensor<1x8x1xi32>, %c: tensor<1x1x5xi32>) -> tensor<1x8x5xf32> {
  %e = "sg.equal"(%x, %c) : (tensor<1x8x1xi32>, tensor<1x1x5xi32>) -> tensor<1x8x5xi1>
  %f = "sg.cast"(%e) : (tensor<1x8x5xi1>) -> tensor<1x8x5xf32>
  return %f : tensor<1x8x5xf32>
}
func.func @shared_boolean(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %e = "sg.less"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %f = "sg.cast"(%e) : (tensor<4xi1>) -> tensor<4xf32>
  return %f, %e : tensor<4xf32>, tensor<4xi1>
}

// -----

// BitCast: the same bits as another type of one width (unsigned values through their
// signless twin).
// CHECK-LABEL: func.func @bitcast
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: -> tensor<4xi32>
// CHECK: linalg.generic
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : ui16 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK: -> tensor<4xf16>
func.func @bitcast(%x: tensor<4xf32>, %u: tensor<4xui16>) -> (tensor<4xi32>, tensor<4xf16>) {
  %0 = "sg.bitcast"(%x) : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "sg.bitcast"(%u) : (tensor<4xui16>) -> tensor<4xf16>
  return %0, %1 : tensor<4xi32>, tensor<4xf16>
}

// -----

// ArgMin/ArgMax: one all-parallel generic over the kept positions, each scanning its axis in
// an scf.for from the second element, the best value and its position carried (the first
// element always wins; a strictly better one replaces it, or an equal one for the last).
// CHECK-LABEL: func.func @arg_extreme
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<2xi64>)
// CHECK:   %[[ROW:.*]] = linalg.index 0 : index
// CHECK:   %[[FIRST:.*]] = tensor.extract %arg0[%[[ROW]], %{{.*}}] : tensor<2x5xf32>
// CHECK:   %[[SCAN:.*]]:2 = scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[V:.*]] = %[[FIRST]], %[[I:.*]] = %{{.*}}) -> (f32, i64)
// CHECK:     %[[X:.*]] = tensor.extract %arg0[%[[ROW]], %[[P]]] : tensor<2x5xf32>
// CHECK:     %[[B:.*]] = arith.cmpf olt, %[[X]], %[[V]] : f32
// CHECK:     arith.select %[[B]], %[[X]], %[[V]] : f32
// CHECK:     arith.select %[[B]], %{{.*}}, %[[I]] : i64
// CHECK:   linalg.yield %[[SCAN]]#1 : i64
// The last of equal ones along axis 0, unsigned: `uge`.
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<5xi64>)
// CHECK:   tensor.extract %arg1[%{{.*}}, %{{.*}}] : tensor<2x5xui8>
// CHECK:   arith.cmpi uge
// Booleans (the importer's ArgMax of masks): true above false.
// CHECK: tensor.extract %arg2[%{{.*}}, %{{.*}}] : tensor<2x5xi1>
// CHECK: arith.cmpi ugt
func.func @arg_extreme(%x: tensor<2x5xf32>, %y: tensor<2x5xui8>, %z: tensor<2x5xi1>) -> (tensor<2xi64>, tensor<1x5xi64>, tensor<2xi64>) {
  %0 = "sg.arg_extreme"(%x) {axis = 1 : i64, keepdims = 0 : i64, largest = 0 : i64, select_last_index = 0 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>
  %1 = "sg.arg_extreme"(%y) {axis = 0 : i64, keepdims = 1 : i64, largest = 1 : i64, select_last_index = 1 : i64} : (tensor<2x5xui8>) -> tensor<1x5xi64>
  %2 = "sg.arg_extreme"(%z) {axis = 1 : i64, keepdims = 0 : i64, largest = 1 : i64, select_last_index = 0 : i64} : (tensor<2x5xi1>) -> tensor<2xi64>
  return %0, %1, %2 : tensor<2xi64>, tensor<1x5xi64>, tensor<2xi64>
}

// -----

// TopK's positions: one pass over each row (an scf.for over the other dimensions carrying the
// result and a k-long scratch of the best values, started at the worst value), a value that
// beats the k-th best (or any, before there are k) placed by a binary search before the first
// value it beats, the ones from there moved down one place, and written with its position.
// Strict comparisons: an equal value stays behind an earlier one. Along
// axis 0, unsigned, smallest first: `ult` on the signless twins.
// CHECK-LABEL: func.func @top_k
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: scf.for %[[ROW:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[FILL]]) -> (tensor<2x2xi64>, tensor<2xf32>)
// CHECK:   scf.for %[[P:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, tensor<2xf32>, tensor<2x2xi64>)
// CHECK:     %[[X:.*]] = tensor.extract %arg0[%[[ROW]], %[[P]]] : tensor<2x5xf32>
// CHECK:     arith.cmpf ogt, %[[X]], %{{.*}} : f32
// CHECK:     scf.if %{{.*}} -> (index, tensor<2xf32>, tensor<2x2xi64>)
// CHECK:       scf.for
// CHECK:         arith.cmpf ogt, %[[X]], %{{.*}} : f32
// CHECK:       tensor.insert %[[X]] into
// CHECK:       %[[AT:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK:       tensor.insert %[[AT]] into %{{.*}}[%[[ROW]], %{{.*}}] : tensor<2x2xi64>
// CHECK: tensor.extract %arg1[%{{.*}}, %{{.*}}] : tensor<6x3xui8>
// CHECK: arith.cmpi ult
// A row at least 4k long first bounds the k-th best from below: the bests of k or more
// blocks (block b every 10th element from b, their maxima taken elementwise over the row's
// runs of 2, NaNs ignored), the worst of them (no bound where a block is all NaN), and the
// scan skips every element strictly below it.
// CHECK: %[[ROW1:.*]] = tensor.extract_slice %arg2[%{{.*}}, 0] [1, 20] [1, 1] : tensor<1x20xf32> to tensor<20xf32>
// CHECK: %[[BESTS:.*]] = scf.for {{.*}} -> (tensor<2xf32>)
// CHECK:   tensor.extract_slice %[[ROW1]][%{{.*}}] [2] [1] : tensor<20xf32> to tensor<2xf32>
// CHECK:   linalg.generic
// CHECK:     arith.maxnumf
// CHECK: %[[BOUND:.*]] = scf.for {{.*}} -> (f32)
// CHECK:   tensor.extract %[[BESTS]]
// CHECK:   arith.cmpf uno
// An f32 row along its last axis runs in chunks of 16: one vector compare of the chunk against
// the k-th best and the bound (with the state the chunk starts with) decides whether any of
// its elements would be taken; only such a chunk is scanned element by element, and the
// elements after the last whole chunk (4 of 20) one by one.
// CHECK: %[[BOUNDV:.*]] = vector.broadcast %[[BOUND]] : f32 to vector<16xf32>
// CHECK: %[[CHUNKS:.*]]:3 = scf.for %[[C:[a-z0-9_]+]] = {{.*}} -> (index, tensor<2xf32>, tensor<1x2xi64>)
// CHECK:   %[[XV:.*]] = vector.transfer_read %arg2[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<1x20xf32>, vector<16xf32>
// CHECK:   arith.cmpf ogt, %[[XV]], %{{.*}} : vector<16xf32>
// CHECK:   arith.cmpf ogt, %[[BOUNDV]], %[[XV]] : vector<16xf32>
// CHECK:   %[[ANY:.*]] = vector.reduction <or>, %{{.*}} : vector<16xi1> into i1
// CHECK:   scf.if %[[ANY]]
// CHECK:     scf.for %[[Q:[a-z0-9_]+]] = {{.*}} -> (index, tensor<2xf32>, tensor<1x2xi64>)
// CHECK:       %[[Z:.*]] = tensor.extract %arg2[%{{.*}}, %[[Q]]] : tensor<1x20xf32>
// CHECK:       %[[BELOW:.*]] = arith.cmpf ogt, %[[BOUND]], %[[Z]] : f32
// CHECK:       %[[KEEP:.*]] = arith.xori %[[BELOW]], %true
// CHECK:       %[[TAKE:.*]] = arith.andi %{{.*}}, %[[KEEP]] : i1
// CHECK:       scf.if %[[TAKE]]
// CHECK: %[[TAIL:.*]] = arith.constant 16 : index
// CHECK: scf.for %{{.*}} = %[[TAIL]] to %{{.*}} iter_args(%{{.*}} = %[[CHUNKS]]#0, %{{.*}} = %[[CHUNKS]]#1, %{{.*}} = %[[CHUNKS]]#2)
func.func @top_k(%x: tensor<2x5xf32>, %y: tensor<6x3xui8>, %z: tensor<1x20xf32>) -> (tensor<2x2xi64>, tensor<2x3xi64>, tensor<1x2xi64>) {
  %0 = "sg.top_k"(%x) {axis = 1 : i64, k = 2 : i64, largest = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x2xi64>
  %1 = "sg.top_k"(%y) {axis = 0 : i64, k = 2 : i64, largest = 0 : i64} : (tensor<6x3xui8>) -> tensor<2x3xi64>
  %2 = "sg.top_k"(%z) {axis = 1 : i64, k = 2 : i64, largest = 1 : i64} : (tensor<1x20xf32>) -> tensor<1x2xi64>
  return %0, %1, %2 : tensor<2x2xi64>, tensor<2x3xi64>, tensor<1x2xi64>
}

// -----

// A quantized product: the i32 sums start from the offsets (broadcast over the rows), add the
// zero-extended ui8 rows times the sign-extended packed weight (read through floordiv/mod),
// then become f32 times the scales, written over them: an f32 tensor holds the sums as their
// bits (bitcasts in and out of each step), so no i32 buffer stands beside the result. The
// batch of rows is collapsed first.
// CHECK: #[[PACKED:.*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 16, d2 floordiv 4, d1 mod 16, d2 mod 4)>
// CHECK-LABEL: func.func @quantized_matmul
// CHECK: tensor.expand_shape {{.*}} : tensor<48xui8> into tensor<6x8xui8>
// CHECK: linalg.generic {{.*}} ins(%arg2 : tensor<32xi32>) outs(%{{.*}} : tensor<6x32xf32>)
// CHECK:   arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[SUMS:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[PACKED]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %arg1 : tensor<6x8xui8>, tensor<2x2x16x4xi8>)
// CHECK:   arith.extui %{{.*}} : i8 to i32
// CHECK:   arith.extsi %{{.*}} : i8 to i32
// CHECK:   arith.muli
// CHECK:   arith.bitcast %{{.*}} : f32 to i32
// CHECK:   arith.addi
// CHECK:   arith.bitcast %{{.*}} : i32 to f32
// CHECK: linalg.generic {{.*}} ins(%arg3 : tensor<32xf32>) outs(%[[SUMS]] : tensor<6x32xf32>)
// CHECK:   arith.bitcast %{{.*}} : f32 to i32
// CHECK:   arith.sitofp %{{.*}} : i32 to f32
// CHECK:   arith.mulf
// CHECK: tensor.expand_shape {{.*}} : tensor<192xf32> into tensor<2x3x32xf32>
func.func @quantized_matmul(%a: tensor<2x3x8xui8>, %w: tensor<2x2x16x4xi8>, %o: tensor<32xi32>, %s: tensor<32xf32>) -> tensor<2x3x32xf32> {
  %0 = "sg.quantized_matmul"(%a, %w, %o, %s) : (tensor<2x3x8xui8>, tensor<2x2x16x4xi8>, tensor<32xi32>, tensor<32xf32>) -> tensor<2x3x32xf32>
  return %0 : tensor<2x3x32xf32>
}

// -----

// A quantized 1x1 convolution: the ui8 pixels [C, H * W] padded with zeros to whole 16-pixel
// registers (5 x 7 = 35 -> 48) and packed [3, C / 4, 16, 4] by a generic of their own, then
// the sums of the sign-extended filter rows (broadcast) and the zero-extended packed pixels,
// starting from each output channel's offset (their bits in f32), and f32 times each output
// channel's scale over them.
// CHECK: #[[INTERLEAVE:.*]] = affine_map<(d0, d1, d2, d3) -> (d1 * 4 + d3, d0 * 16 + d2)>
// CHECK: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @quantized_conv
// CHECK: tensor.collapse_shape %arg0 {{.*}} : tensor<1x8x5x7xui8> into tensor<280xui8>
// CHECK: linalg.fill {{.*}} -> tensor<8x48xui8>
// CHECK: tensor.insert_slice {{.*}} into {{.*}}[0, 0] [8, 35] [1, 1] : tensor<8x35xui8> into tensor<8x48xui8>
// CHECK: linalg.generic {indexing_maps = [#[[INTERLEAVE]], #{{.*}}], {{.*}} ins(%{{.*}} : tensor<8x48xui8>) outs(%{{.*}} : tensor<3x2x16x4xui8>)
// CHECK: linalg.generic {indexing_maps = [#[[ROWS]], #{{.*}}], {{.*}} ins(%arg2 : tensor<12xi32>) outs(%{{.*}} : tensor<12x35xf32>)
// CHECK: %[[SUMS:.*]] = linalg.generic {{.*}} ins(%arg1, %{{.*}} : tensor<12x8xi8>, tensor<3x2x16x4xui8>) outs(%{{.*}} : tensor<12x35xf32>)
// CHECK:   arith.extsi %{{.*}} : i8 to i32
// CHECK:   arith.extui %{{.*}} : i8 to i32
// CHECK: linalg.generic {indexing_maps = [#[[ROWS]], #{{.*}}], {{.*}} ins(%arg3 : tensor<12xf32>) outs(%[[SUMS]] : tensor<12x35xf32>)
// CHECK:   arith.sitofp %{{.*}} : i32 to f32
// CHECK: tensor.expand_shape {{.*}} : tensor<420xf32> into tensor<1x12x5x7xf32>
func.func @quantized_conv(%x: tensor<1x8x5x7xui8>, %w: tensor<12x8xi8>, %o: tensor<12xi32>, %s: tensor<12xf32>) -> tensor<1x12x5x7xf32> {
  %0 = "sg.quantized_conv"(%x, %w, %o, %s) : (tensor<1x8x5x7xui8>, tensor<12x8xi8>, tensor<12xi32>, tensor<12xf32>) -> tensor<1x12x5x7xf32>
  return %0 : tensor<1x12x5x7xf32>
}
