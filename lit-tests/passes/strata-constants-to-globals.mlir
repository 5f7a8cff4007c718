// strata-constants-to-globals: tensor constants become read-only memref globals before
// One-Shot Bufferize, named and placed as One-Shot names and places them (a value seen twice
// shares its global; a taken name gets the module's next `_N` suffix; each new global goes
// first in the module), so bufferization's output is the same, in linear time.
// RUN: strata-opt %s -p 'builtin.module(strata-constants-to-globals)' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-constants-to-globals,one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map})' > %t.ours
// RUN: strata-opt %s -p 'builtin.module(one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map})' > %t.upstream
// RUN: diff %t.ours %t.upstream

// CHECK: memref.global "private" constant @__constant_xf32_1 : memref<f32> = dense<2.000000e+00> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_xf32 : memref<f32> = dense<1.000000e+00> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_4xf32_0 : memref<4xf32> = dense<[5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> {alignment = 64 : i64}
// CHECK-LABEL: func.func @f
// CHECK: %[[A:.*]] = memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK-NEXT: %[[TA:.*]] = bufferization.to_tensor %[[A]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK: memref.get_global @__constant_4xf32_0 : memref<4xf32>
// The same value again: the same global.
// CHECK: memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK: memref.get_global @__constant_xf32 : memref<f32>
// CHECK: memref.get_global @__constant_xf32_1 : memref<f32>
// CHECK-NOT: arith.constant dense
// CHECK: 4 globals
// CHECK: 5 reads

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = arith.constant dense<1.0> : tensor<f32>
  %t = arith.constant dense<2.0> : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id, #scalar, #scalar, #id], iterator_types = ["parallel"]}
      ins(%x, %a, %b, %c, %s, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>)
      outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %j: f32, %k: f32, %l: f32, %m: f32, %n: f32, %o: f32):
    %0 = arith.addf %i, %j : f32
    %1 = arith.addf %0, %k : f32
    %2 = arith.addf %1, %l : f32
    %3 = arith.mulf %2, %m : f32
    %4 = arith.mulf %3, %n : f32
    linalg.yield %4 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
