// strata-approximate-math: f32 exp, tanh and erf (scalar, in a kernel body, and vector) become
// inline arithmetic. exp: clamp to [-104, 89], n = roundeven(x log2(e)), a degree-6
// polynomial in x - n ln(2), scaled by 2^n as two exponent-field products (which round to 0
// at the low end and overflow to +inf at the high end, no compare needed); NaN kept (the only
// select). tanh and erf: x p(x^2) / q(x^2) with x clamped (tanh to
// +-7.9053, returning x itself below 4e-4; erf to +-4). Other precisions (f64) stay.
// 16-lane vectors scale by 2^n with AVX-512's vscalefps where the host has it (`scale=host`,
// the default) or when asked (`scale=avx512`); `scale=portable` keeps the two products.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-approximate-math))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-approximate-math{scale=avx512}))' | FileCheck %s --check-prefix=AVX512
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-approximate-math{scale=portable}))' | FileCheck %s --check-prefix=PORTABLE
// RUN: not strata-opt %s -p 'builtin.module(func.func(strata-approximate-math{scale=sse}))' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: scale

// AVX512-LABEL: func.func @exp16
// AVX512: math.roundeven %{{.*}} : vector<16xf32>
// AVX512-NOT: arith.bitcast
// AVX512: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>, i16, i32) -> vector<16xf32>
// AVX512: arith.cmpf uno
// PORTABLE-LABEL: func.func @exp16
// PORTABLE-NOT: llvm.call_intrinsic
// PORTABLE: arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// PORTABLE: arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
func.func @exp16(%v: vector<16xf32>) -> vector<16xf32> {
  %r = math.exp %v : vector<16xf32>
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @exps
// CHECK-NOT: math.exp %{{.*}} : f32
// CHECK: arith.constant -1.040000e+02 : f32
// CHECK: arith.constant 8.900000e+01 : f32
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.shli %{{.*}} : i32
// CHECK-NOT: arith.cmpf ogt
// CHECK-NOT: arith.cmpf olt
// CHECK: arith.cmpf uno
// CHECK: linalg.generic
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: linalg.yield
// CHECK: math.roundeven %{{.*}} : vector<8xf32>
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

// CHECK-LABEL: func.func @tanh_and_erf
// CHECK-NOT: math.tanh %{{.*}} : f32
// CHECK-NOT: math.erf %{{.*}} : vector<16xf32>
// tanh: clamped, numerator from its highest coefficient down, small x passed through.
// CHECK: arith.constant 7.90531111 : f32
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.constant -2.76076837E-16 : f32
// CHECK: arith.divf %{{.*}} : f32
// CHECK: arith.constant 4.000000e-04 : f32
// CHECK: arith.cmpf olt
// CHECK: arith.select %{{.*}} : f32
// erf on vectors: clamped to +-4.
// CHECK: arith.constant dense<4.000000e+00> : vector<16xf32>
// CHECK: arith.constant dense<-2.72614237E-10> : vector<16xf32>
// CHECK: arith.divf %{{.*}} : vector<16xf32>
// CHECK: math.tanh %{{.*}} : f64
// CHECK: math.erf %{{.*}} : f64
// CHECK-LABEL: Pass statistics report
// CHECK: (S) 4 exps
// CHECK: (S) 1 tanhs
// CHECK: (S) 1 erfs
func.func @tanh_and_erf(%x: f32, %v: vector<16xf32>, %d: f64) -> (f32, vector<16xf32>, f64, f64) {
  %a = math.tanh %x : f32
  %b = math.erf %v : vector<16xf32>
  %c = math.tanh %d : f64
  %e = math.erf %d : f64
  return %a, %b, %c, %e : f32, vector<16xf32>, f64, f64
}
