// --verify-diagnostics passes when every diagnostic is expected and every expectation is
// met; it fails, naming both directions, otherwise.
// RUN: strata-opt %s --split-input-file --verify-diagnostics
// RUN: not strata-opt %S/inputs/wrong-expectations.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=WRONG

func.func @relu_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error@below {{expected 'tensor<4xf32>' but got 'tensor<4xf16>'}}
  %0 = "sg.relu"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Diagnostics with notes: each note is matched at its own location.
func.func @use_before_def() -> i32 {
  %0 = arith.constant 1 : i32 // expected-note {{prior use here}}
  // expected-error@+1 {{use of value '%0' expects different type than prior uses: 'i64' vs 'i32'}}
  return %0 : i64
}

// -----

// A chunk without errors and without expectations passes.
func.func @fine() {
  return
}

// WRONG: wrong-expectations.mlir:4:8: error: unexpected error: 'sg.transpose' op 'perm' [0, 0] is not a permutation of 0..2
// WRONG: wrong-expectations.mlir:3: error: expected error "this text is never produced" was not produced (directive on line 3)
// WRONG: wrong-expectations.mlir:11: error: expected error "nothing here" was not produced (directive on line 10)
