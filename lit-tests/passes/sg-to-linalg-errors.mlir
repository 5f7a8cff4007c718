// An sg op that has no lowering for its element type is reported at its location.
// RUN: strata-opt %s --verify-diagnostics -p 'builtin.module(func.func(sg-to-linalg))'

func.func @integer_erf(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{unsupported: erf on element type i32 is not lowered}}
  %0 = "sg.erf"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
