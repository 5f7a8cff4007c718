// Input for passes/sg-verify.mlir: valid to MLIR (IRDL), invalid to the sg Rust verifier.
// Not a test by itself (inputs/ is skipped by the harness).
func.func @f(%x: tensor<2x3xf32>, %w: tensor<4x4xf32>) -> tensor<3x4xf32> {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "sg.matmul"(%0, %w) : (tensor<3x2xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
