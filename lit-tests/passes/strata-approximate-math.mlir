// strata-approximate-exp: f32 exp (scalar, in a kernel body, and vector) becomes inline
// arithmetic: clamp to [-103.97, 88.72], n = floor(x log2(e) + 1/2), a degree-6 polynomial in
// x - n ln(2), scaled by 2^n as two exponent-field products; +inf above the range, 0 below,
// NaN kept. Other exps (f64) stay.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-approximate-exp))' | FileCheck %s

// CHECK-LABEL: func.func @exps
// CHECK-NOT: math.exp %{{.*}} : f32
// CHECK: arith.constant -103.972084 : f32
// CHECK: arith.constant 88.7228394 : f32
// CHECK: math.floor %{{.*}} : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.shli %{{.*}} : i32
// CHECK: arith.cmpf uno
// CHECK: linalg.generic
// CHECK: math.floor %{{.*}} : f32
// CHECK: linalg.yield
// CHECK: math.floor %{{.*}} : vector<8xf32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: math.exp %{{.*}} : f64
func.func @exps(%x: f32, %v: vector<8xf32>, %d: f64, %t: tensor<4xf32>) -> (f32, vector<8xf32>, f64, tensor<4xf32>) {
  %a = math.exp %x : f32
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %b = math.exp %v : vector<8xf32>
  %c = math.exp %d : f64
  return %a, %b, %c, %g : f32, vector<8xf32>, f64, tensor<4xf32>
}
