// Invalid use of the toy dialect (result type differs from operand type).
func.func @f(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = "toy.double"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
