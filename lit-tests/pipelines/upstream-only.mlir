// Upstream-only pipelines: plain MLIR passes, and Strata's named pipelines that lower
// linalg on tensors to the LLVM dialect.
// RUN: strata-opt %s -p 'builtin.module(func.func(cse,canonicalize))' | FileCheck %s --check-prefix=CSE
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize,strata-lower-to-llvm)' | FileCheck %s --check-prefix=LLVM

// CSE-LABEL: func.func @mm
// CSE-COUNT-1: tensor.empty
// CSE-NOT: tensor.empty
// CSE: linalg.matmul

// LLVM-NOT: linalg.
// LLVM-NOT: memref.
// LLVM-LABEL: llvm.func @mm
// LLVM: llvm.fmul
// LLVM: llvm.fadd
// LLVM: llvm.return
func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %_ = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
