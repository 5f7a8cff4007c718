// A two-layer perceptron on tensors (linalg named ops), the input of `cargo xtask demo`:
// y = relu(x * w1 + b1) * w2.
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<4x16xf32>,
               %w2: tensor<16x8xf32>) -> tensor<4x8xf32> attributes {llvm.emit_c_interface} {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %hb = linalg.add ins(%h, %b1 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.max ins(%hb, %f1 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
