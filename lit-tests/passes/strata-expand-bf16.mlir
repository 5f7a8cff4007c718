// strata-expand-bf16: f32 -> bf16 truncations (scalar, in a kernel body, and vector) become
// integer arithmetic, rounding to nearest even (add 0x7fff plus the lowest kept bit) and
// keeping NaN quiet (0x7fc0); other truncations stay. A round trip (`arith.extf` back to f32
// of such a truncation, `sg.round_bf16` lowered) is the same rounding kept in 32-bit lanes:
// the low 16 bits cleared (0xffff0000), NaN the quiet NaN's bits widened (0x7fc00000), no i16
// or bf16 value; a truncation read otherwise too stays for those readers.
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

// CHECK-LABEL: func.func @round_trips
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.*}} : vector<4x12xf32> to vector<4x12xi32>
// CHECK: arith.addi
// CHECK: arith.addi
// CHECK: arith.constant dense<-65536> : vector<4x12xi32>
// CHECK: arith.constant dense<2143289344> : vector<4x12xi32>
// CHECK: %[[TOP:.*]] = arith.andi
// CHECK: %[[PICK:.*]] = arith.select %{{.*}}, %{{.*}}, %[[TOP]] : vector<4x12xi1>, vector<4x12xi32>
// CHECK: %[[R:.*]] = arith.bitcast %[[PICK]] : vector<4x12xi32> to vector<4x12xf32>
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: %[[HALF:.*]] = arith.bitcast %{{.*}} : i16 to bf16
// CHECK: arith.constant -65536 : i32
// CHECK: %[[S:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: return %[[R]], %[[S]], %[[HALF]]
func.func @round_trips(%v: vector<4x12xf32>, %x: f32) -> (vector<4x12xf32>, f32, bf16) {
  %a = arith.truncf %v : vector<4x12xf32> to vector<4x12xbf16>
  %b = arith.extf %a : vector<4x12xbf16> to vector<4x12xf32>
  %c = arith.truncf %x : f32 to bf16
  %d = arith.extf %c : bf16 to f32
  return %b, %d, %c : vector<4x12xf32>, f32, bf16
}
