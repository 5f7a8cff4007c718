// A user's IRDL dialect loaded at run time with --irdl-file; its ops then parse and verify
// like built-in ones.
// RUN: strata-opt %s --irdl-file=%S/inputs/toy.irdl.mlir | FileCheck %s
// RUN: not strata-opt %S/inputs/toy-invalid.mlir --irdl-file=%S/inputs/toy.irdl.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not strata-opt %s 2>&1 | FileCheck %s --check-prefix=UNLOADED

// CHECK: "toy.double"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "toy.double"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// BAD: toy-invalid.mlir:3:8: error: expected 'tensor<4xf32>' but got 'tensor<4xf16>'
// UNLOADED: irdl-file.mlir:9:20: error: operation being parsed with an unregistered dialect
