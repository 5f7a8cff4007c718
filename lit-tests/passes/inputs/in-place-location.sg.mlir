// A depthwise convolution whose clip the optimiser writes in place (MobileNetV2's pattern), with
// named locations: see sg-egraph-optimize.mlir (LOC).
module {
  func.func @main(%arg0: tensor<1x8x16x16xf32>, %w: tensor<8x1x3x3xf32>, %w2: tensor<16x8x1x1xf32>) -> tensor<1x16x16x16xf32> attributes {strata.input_names = ["x", "w", "w2"], strata.output_names = ["y"]} {
    %0 = "sg.conv2d"(%arg0, %w) {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x16x16xf32> loc("dw")
    %1 = "sg.clip"(%0) {min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> loc("clip")
    %2 = "sg.conv2d"(%1, %w2) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x16x16xf32> loc("project")
    return %2 : tensor<1x16x16x16xf32>
  }
}
