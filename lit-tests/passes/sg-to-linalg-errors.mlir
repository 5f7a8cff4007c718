// An sg op that has no lowering for its element type is reported at its location.
// RUN: strata-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(func.func(sg-to-linalg))'

func.func @integer_erf(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{unsupported: erf on element type i32 is not lowered}}
  %0 = "sg.erf"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// BitCast reinterprets integers and f16/bf16/f32/f64; float8 is refused.
func.func @bitcast_float8(%x: tensor<4xf8E4M3FN>) -> tensor<4xi8> {
  // expected-error@+1 {{unsupported: 'sg.bitcast' from f8E4M3FN to i8 (integers and f16, bf16, f32, f64 are reinterpreted)}}
  %0 = "sg.bitcast"(%x) : (tensor<4xf8E4M3FN>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
