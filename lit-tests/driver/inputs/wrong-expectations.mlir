// Input for driver/verify-diagnostics.mlir: expectations that do not match.
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error {{this text is never produced}}
  %0 = "sg.transpose"(%x) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// expected-error@+1 {{nothing here}}
func.func @g() {
  return
}
