// sg-verify checks every sg op and counts them.
// RUN: strata-opt %s -p 'builtin.module(sg-verify)' --mlir-pass-statistics 2>&1 | FileCheck %s
// Invalid ops that got past parsing (verifier disabled) make the pass fail with every problem listed.
// RUN: not strata-opt %S/inputs/invalid-shapes.mlir --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false \
// RUN:   -p 'builtin.module(sg-verify)' 2>&1 | FileCheck %s --check-prefix=FAIL

// CHECK-LABEL: func.func @f
// CHECK: "sg.relu"
// CHECK: "sg.exp"
// CHECK: "sg.add"
// CHECK: Pass statistics report
// CHECK: sg-verify (on builtin.module)
// CHECK-NEXT: (S) 3 ops-checked - Number of sg ops checked
func.func @f(%x: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<4x4xf32> {
  %0 = "sg.relu"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "sg.exp"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = "sg.add"(%1, %b) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// FAIL: invalid-shapes.mlir:4:8: error: 'sg.transpose' op 'perm' [1, 1] is not a permutation of 0..2
// FAIL-NEXT: %0 = "sg.transpose"
// FAIL: invalid-shapes.mlir:5:8: error: 'sg.matmul' op contraction sizes differ: [3x2] x [4x4]
// FAIL: error: 'sg.quantized_matmul' op shapes [3x8] x packed [1x3x16x4] into [3x16] are not a product of [..., M, K] and [N / 16, K / 4, 16, 4]
// FAIL: error: 'sg.quantized_matmul' op operands must be ui8, i8, i32, f32 and the result f32, got f32, i8, i32, f32 and f32
// FAIL: error: 'sg.quantized_conv' op shapes [1x6x4x4] and [3x6] into [1x3x4x4] are not a 1x1 convolution of [1, C, H, W] (C a multiple of 4) with [O, C] into [1, O, H, W]
// FAIL: error: 'sg.quantized_conv' op operands must be ui8, i8, i32, f32 and the result f32, got i8, i8, i32, f32, f32
// FAIL: error: pass 'sg-verify' failed
