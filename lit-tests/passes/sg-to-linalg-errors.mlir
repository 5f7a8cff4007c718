// An sg op that has no lowering for its element type is reported at its location.
// RUN: strata-opt %s --verify-diagnostics -p 'builtin.module(func.func(sg-to-linalg))'

func.func @unsigned(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error@+1 {{unsupported: Add on element type ui8 is not lowered}}
  %0 = "sg.add"(%x, %y) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
