// strata-profile-kernels: every kernel of @main (ops that do work; views and constants are
// not timed) is bracketed by cycle-counter reads whose difference is added to its ONNX node's
// counter in the public global @strata_profile_ticks; kernels of the same node (one name, or
// the same fused names) share a counter; the labels land on @main in counter order.
// RUN: strata-opt %s -p 'builtin.module(strata-profile-kernels)' | FileCheck %s

// CHECK: memref.global @strata_profile_ticks : memref<2xi64> = dense<0>
// CHECK-LABEL: func.func @main
// CHECK-SAME: strata.profile_kernels = ["conv_1\09linalg.fill, linalg.generic", "relu_2 + add_3\09linalg.generic"]
// CHECK: memref.view
// CHECK: %[[T0:.*]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: %[[T1:.*]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[T1]], %[[T0]] : i64
// CHECK-NEXT: %[[G:.*]] = memref.get_global @strata_profile_ticks : memref<2xi64>
// CHECK-NEXT: %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[OLD:.*]] = memref.load %[[G]][%[[C]]] : memref<2xi64>
// CHECK-NEXT: %[[NEW:.*]] = arith.addi %[[OLD]], %[[D]] : i64
// CHECK-NEXT: memref.store %[[NEW]], %[[G]][%[[C]]] : memref<2xi64>
// CHECK: linalg.generic
// CHECK: arith.constant 0 : index
// CHECK: linalg.generic
// CHECK: arith.constant 1 : index
// CHECK: return
#map = affine_map<(d0) -> (d0)>
func.func @main(%arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %buf = memref.view %arena[%c0][] : memref<64xi8> to memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%buf : memref<16xf32>) loc("conv_1"("m.onnx":1:0))
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%buf : memref<16xf32>) {
  ^bb0(%out: f32):
    %r = arith.addf %out, %out : f32
    linalg.yield %r : f32
  } loc("conv_1"("m.onnx":1:0))
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%buf : memref<16xf32>) {
  ^bb0(%out: f32):
    %r = arith.maximumf %out, %cst : f32
    linalg.yield %r : f32
  } loc(fused["relu_2"("m.onnx":2:0), "add_3"("m.onnx":3:0)])
  return
}
