// strata-matmul-accumulate: a matmul whose result is only added to a bias (broadcast down its
// rows) starts its sums from it: the bias broadcast into a new tensor of the product's shape
// where the fill of zeros was (through the reshape between them: column j of the product is
// element j of the sum's last axis), a batch matmul's into one of the sum's; the addition goes. The schedule's splits then start each part from its own
// columns of the bias, as they fill parts (`peel_matmuls`).
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(strata-matmul-accumulate))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(strata-matmul-accumulate),strata-cpu-schedule{vector-lanes=16 threads=1})' | FileCheck %s --check-prefix=PEEL

// The OCR head's form: fill, matmul, expand_shape, an in-place add of a [N] bias.
// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%[[A:.*]]: tensor<20x64xf32>)
// CHECK: %[[I:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<197xf32>) outs(%{{.*}} : tensor<20x197xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<20x64xf32>, tensor<64x197xf32>) outs(%[[I]] : tensor<20x197xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0], [1, 2]] output_shape [20, 1, 197]
// CHECK-NOT: arith.addf
// CHECK-NOT: linalg.fill
// CHECK: return %[[R]]
// Split into 16 rows of 192 columns, their 5 columns left, and the 4 rows left: each part
// broadcasts its columns of the bias.
// PEEL-LABEL: func.func @bias
// PEEL-DAG: tensor.extract_slice %{{.*}}[0] [192] [1] : tensor<197xf32> to tensor<192xf32>
// PEEL-DAG: tensor.extract_slice %{{.*}}[192] [5] [1] : tensor<197xf32> to tensor<5xf32>
// PEEL-DAG: tensor.extract_slice %{{.*}}[0] [197] [1] : tensor<197xf32> to tensor<197xf32>
// PEEL-NOT: linalg.fill
func.func @bias(%a: tensor<20x64xf32>) -> tensor<20x1x197xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<64x197xf32>
  %v = arith.constant dense<0.25> : tensor<197xf32>
  %e = tensor.empty() : tensor<20x197xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<20x197xf32>) -> tensor<20x197xf32>
  %m = linalg.matmul ins(%a, %w : tensor<20x64xf32>, tensor<64x197xf32>) outs(%f : tensor<20x197xf32>) -> tensor<20x197xf32>
  %x = tensor.expand_shape %m [[0], [1, 2]] output_shape [20, 1, 197] : tensor<20x197xf32> into tensor<20x1x197xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %v : tensor<20x1x197xf32>, tensor<197xf32>) outs(%x : tensor<20x1x197xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %sum = arith.addf %in, %b : f32
    linalg.yield %sum : f32
  } -> tensor<20x1x197xf32>
  return %s : tensor<20x1x197xf32>
}

// -----

// A residual of the sum's own shape stays an addition: accumulated in its buffer, every
// result of a residual ladder would alias the first in bufferization (quadratic analysis).
// CHECK-LABEL: func.func @residual
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: arith.addf
// PEEL-LABEL: func.func @residual
func.func @residual(%a: tensor<8x16xf32>, %r: tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<16x32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %x = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 8, 32] : tensor<8x32xf32> into tensor<1x8x32xf32>
  %o = tensor.empty() : tensor<1x8x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %x : tensor<1x8x32xf32>, tensor<1x8x32xf32>) outs(%o : tensor<1x8x32xf32>) {
  ^bb0(%in: f32, %p: f32, %out: f32):
    %sum = arith.addf %in, %p : f32
    linalg.yield %sum : f32
  } -> tensor<1x8x32xf32>
  return %s : tensor<1x8x32xf32>
}

// -----

// A batch matmul's bias (added first, by a broadcast along the last axis): broadcast whole
// into a new tensor of the sum's shape, the batch matmul accumulating onto it. The fill
// another matmul still reads stays.
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<2x16x32xf32>, %[[V:.*]]: tensor<32xf32>)
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[I:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<32xf32>) outs(%{{.*}} : tensor<2x8x32xf32>)
// CHECK: %[[M:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%[[I]] : tensor<2x8x32xf32>)
// CHECK: linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%[[F]] : tensor<2x8x32xf32>)
// CHECK: return %[[M]]
// PEEL-LABEL: func.func @batch
func.func @batch(%a: tensor<2x8x16xf32>, %b: tensor<2x16x32xf32>, %v: tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%f : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %m : tensor<32xf32>, tensor<2x8x32xf32>) outs(%e : tensor<2x8x32xf32>) {
  ^bb0(%in: f32, %p: f32, %out: f32):
    %sum = arith.addf %in, %p : f32
    linalg.yield %sum : f32
  } -> tensor<2x8x32xf32>
  %n = linalg.batch_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%f : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %s, %n : tensor<2x8x32xf32>, tensor<2x8x32xf32>
}

// -----

// Left alone: a product read by something else too, a product times (not plus) a bias, an
// addend made after the matmul, and a product with an initial value of its own (a
// recurrence's input projection), which the bias must not replace.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.matmul
// CHECK: arith.addf
// CHECK: linalg.matmul
// CHECK: arith.mulf
// CHECK: linalg.matmul
// CHECK: linalg.fill
// CHECK: arith.addf
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>) outs(%[[P:.*]] : tensor<4x8xf32>)
// CHECK: arith.addf
func.func @kept(%a: tensor<4x8xf32>, %v: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<8x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m1 = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m1, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %sum = arith.addf %in, %b : f32
    linalg.yield %sum : f32
  } -> tensor<4x8xf32>
  %m2 = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m2, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %prod = arith.mulf %in, %b : f32
    linalg.yield %prod : f32
  } -> tensor<4x8xf32>
  %m3 = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %late = arith.addf %zero, %zero : f32
  %l = linalg.fill ins(%late : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m3, %l : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %sum = arith.addf %in, %b : f32
    linalg.yield %sum : f32
  } -> tensor<4x8xf32>
  %m4 = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%a : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m4, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %sum = arith.addf %in, %b : f32
    linalg.yield %sum : f32
  } -> tensor<4x8xf32>
  return %s1, %m1, %s2, %s3, %s4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The accumulating matmul runs where the matmul did, not at the addition: its operand %a is
// then free before the in-place division that overwrites it (tabular_linear's normalizer).
// CHECK-LABEL: func.func @position
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>)
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8x16xf32>) outs(%[[A]] : tensor<8x16xf32>)
// CHECK-NOT: arith.addf
// CHECK: return %[[M]], %[[D]]
// CHECK: Pass statistics report
// CHECK: strata-matmul-accumulate
// CHECK-NEXT: (S) 3 matmuls
// PEEL-LABEL: func.func @position
func.func @position(%a: tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %w = arith.constant dense<0.5> : tensor<16x4xf32>
  %v = arith.constant dense<0.25> : tensor<4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x16xf32>) outs(%a : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %in, %two : f32
    linalg.yield %q : f32
  } -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %v : tensor<8x4xf32>, tensor<4xf32>) outs(%m : tensor<8x4xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %sum = arith.addf %in, %b : f32
    linalg.yield %sum : f32
  } -> tensor<8x4xf32>
  return %s, %d : tensor<8x4xf32>, tensor<8x16xf32>
}
