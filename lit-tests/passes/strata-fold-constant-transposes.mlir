// strata-fold-constant-transposes: a linalg.transpose of an f32 constant, or of a static slice
// of one, becomes the transposed constant (computed at compile time); a transpose of anything
// else stays.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-fold-constant-transposes),canonicalize)' --mlir-pass-statistics 2>&1 | FileCheck %s

// [[1, 2, 3], [4, 5, 6]] transposed: 1, 4, 2, 5, 3, 6.
// CHECK-LABEL: func.func @constant
// CHECK-NOT: linalg.transpose
// CHECK: %[[T:.*]] = arith.constant dense_resource<[[R1:transposed[_0-9]*]]> : tensor<3x2xf32>
// CHECK: return %[[T]]
func.func @constant() -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

// The second direction's slice of a [2, 2, 3] weight (7 ... 12), rank-reduced, transposed:
// 7, 10, 8, 11, 9, 12; the weight itself dies.
// CHECK-LABEL: func.func @slice
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[S:.*]] = arith.constant dense_resource<[[R2:transposed[_0-9]*]]> : tensor<3x2xf32>
// CHECK: return %[[S]]
func.func @slice() -> tensor<3x2xf32> {
  %w = arith.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]]> : tensor<2x2x3xf32>
  %s = tensor.extract_slice %w[1, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<2x2x3xf32> to tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%s : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

// A splat stays a splat (not a blob of equal values).
// CHECK-LABEL: func.func @splat
// CHECK-NOT: linalg.transpose
// CHECK: arith.constant dense<2.000000e+00> : tensor<3x2xf32>
func.func @splat() -> tensor<3x2xf32> {
  %w = arith.constant dense<2.0> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

// A run-time value, and an integer constant, keep their transposes.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.transpose ins(%arg0
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3xi32>)
func.func @kept(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %i = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %ei = tensor.empty() : tensor<3x2xi32>
  %ti = linalg.transpose ins(%i : tensor<2x3xi32>) outs(%ei : tensor<3x2xi32>) permutation = [1, 0]
  return %t, %ti : tensor<3x2xf32>, tensor<3x2xi32>
}

// The blobs (an 8-byte alignment word, then the little-endian floats).
// CHECK: [[R1]]: "0x080000000000803F00008040000000400000A040000040400000C040"
// CHECK: [[R2]]: "0x080000000000E0400000204100000041000030410000104100004041"
// CHECK: (S) 3 transposes-folded
