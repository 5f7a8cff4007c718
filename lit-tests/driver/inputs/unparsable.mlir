// Input for driver/errors.mlir: a parse error on line 3.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>, i32
}
