// strata-expand-bf16: f32 -> bf16 truncations (scalar, in a kernel body, and vector) become
// integer arithmetic, rounding to nearest even (add 0x7fff plus the lowest kept bit) and
// keeping NaN quiet (0x7fc0); other truncations stay.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-expand-bf16))' | FileCheck %s

// CHECK-LABEL: func.func @truncations
// CHECK-NOT: arith.truncf {{.*}} to bf16
// CHECK: arith.constant 32767 : i32
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.cmpf uno
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @truncations(%x: f32, %v: vector<8xf32>, %t: tensor<4xf32>) -> (bf16, vector<8xbf16>, f16, tensor<4xbf16>) {
  %a = arith.truncf %x : f32 to bf16
  %b = arith.truncf %v : vector<8xf32> to vector<8xbf16>
  %c = arith.truncf %x : f32 to f16
  %e = tensor.empty() : tensor<4xbf16>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t : tensor<4xf32>) outs(%e : tensor<4xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4xbf16>
  return %a, %b, %c, %d : bf16, vector<8xbf16>, f16, tensor<4xbf16>
}
