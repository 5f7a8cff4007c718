// Input for passes/sg-verify.mlir: valid to MLIR (IRDL), invalid to the sg Rust verifier.
// Not a test by itself (inputs/ is skipped by the harness).
func.func @f(%x: tensor<2x3xf32>, %w: tensor<4x4xf32>) -> tensor<3x4xf32> {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "sg.matmul"(%0, %w) : (tensor<3x2xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// A quantized product whose packed weight does not match its rows' depth, and one with a
// float left operand.
func.func @quantized(%a: tensor<3x8xui8>, %w: tensor<1x3x16x4xi8>, %o: tensor<16xi32>, %s: tensor<16xf32>, %f: tensor<3x12xf32>) -> (tensor<3x16xf32>, tensor<3x16xf32>) {
  %0 = "sg.quantized_matmul"(%a, %w, %o, %s) : (tensor<3x8xui8>, tensor<1x3x16x4xi8>, tensor<16xi32>, tensor<16xf32>) -> tensor<3x16xf32>
  %1 = "sg.quantized_matmul"(%f, %w, %o, %s) : (tensor<3x12xf32>, tensor<1x3x16x4xi8>, tensor<16xi32>, tensor<16xf32>) -> tensor<3x16xf32>
  return %0, %1 : tensor<3x16xf32>, tensor<3x16xf32>
}

// A quantized 1x1 convolution whose channels are not a multiple of 4, and one with an i8
// input.
func.func @quantized_conv(%x: tensor<1x6x4x4xui8>, %w: tensor<3x6xi8>, %o: tensor<3xi32>, %s: tensor<3xf32>, %y: tensor<1x8x4x4xi8>, %v: tensor<3x8xi8>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  %0 = "sg.quantized_conv"(%x, %w, %o, %s) : (tensor<1x6x4x4xui8>, tensor<3x6xi8>, tensor<3xi32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %1 = "sg.quantized_conv"(%y, %v, %o, %s) : (tensor<1x8x4x4xi8>, tensor<3x8xi8>, tensor<3xi32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return %0, %1 : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}
