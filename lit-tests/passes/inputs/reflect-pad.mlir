// Input of strata-bufferize-and-plan.mlir: a relu read only by a reflection pad that a
// convolution reads.
func.func @main(%x: tensor<1x8x16x16xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %r = "sg.relu"(%x) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %p = "sg.pad"(%r) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = 1 : i64, value = 0.0 : f64} : (tensor<1x8x16x16xf32>) -> tensor<1x8x18x18xf32>
  %y = "sg.conv2d"(%p, %w) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x18x18xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %y : tensor<1x8x16x16xf32>
}
