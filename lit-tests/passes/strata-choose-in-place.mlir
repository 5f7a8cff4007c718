// strata-choose-in-place: each value eliminate-empty-tensors lets its producer write inside
// the destination it is inserted into stays there only where that does not raise the peak of
// live buffers; the others get their tensor.empty back, and the fill of their destination
// moves down to the insertion, or up with an insertion of a copy where the copy's source then
// dies before the peak.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),func.func(strata-pad-in-place),func.func(strata-choose-in-place{mark=true}),eliminate-empty-tensors,func.func(strata-choose-in-place))' --mlir-pass-statistics 2>&1 | FileCheck %s
// Planned (strata-bufferize-and-plan runs the passes above): the mixed choice against every
// pad in place and none.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),strata-bufferize-and-plan)' | FileCheck %s --check-prefix=MIXED
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),func.func(strata-pad-in-place),eliminate-empty-tensors,strata-bufferize-only,func.func(plan-arena))' | FileCheck %s --check-prefix=ALL
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),strata-bufferize-and-plan{pads-in-place=false})' | FileCheck %s --check-prefix=NONE
// Without the marking run the pass leaves the function alone.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-to-linalg),func.func(strata-pad-in-place),eliminate-empty-tensors,func.func(strata-choose-in-place))' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=UNMARKED

// %v's padded buffer in place would live across %b's kernel, the peak (16x64x64 floats): its
// copy costs 8 KB there instead of 10 KB. %v2's pad in place saves 128 KB where its padded
// copy and %p are live.
// CHECK-LABEL: func.func @mixed
// CHECK: %[[V:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x8x16x16xf32>) outs(%{{.*}} : tensor<1x8x16x16xf32>)
// CHECK: math.exp
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x18x18xf32>)
// CHECK-NEXT: tensor.insert_slice %[[V]] into %[[F]][0, 0, 1, 1]
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x66x66xf32>)
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[F2]][0, 0, 1, 1] [1, 8, 64, 64]
// CHECK-NEXT: %[[V2:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<1x8x64x64xf32>) outs(%[[S]] : tensor<1x8x64x64xf32>)
// CHECK-NOT: strata.slice
// MIXED-LABEL: func.func @mixed
// MIXED-SAME: strata.arena_bytes = 270336
// ALL-LABEL: func.func @mixed
// ALL-SAME: strata.arena_bytes = 272512
// NONE-LABEL: func.func @mixed
// NONE-SAME: strata.arena_bytes = 280832
func.func @mixed(%x: tensor<1x8x16x16xf32>, %y: tensor<1x16x64x64xf32>, %z: tensor<1x8x64x64xf32>) -> (tensor<1x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
  %v = "sg.relu"(%x) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %b = "sg.exp"(%y) : (tensor<1x16x64x64xf32>) -> tensor<1x16x64x64xf32>
  %s = "sg.reduce_sum"(%b) {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x16x64x64xf32>) -> tensor<1x16xf32>
  %p = "sg.pad"(%v) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = 0 : i64, value = 0.0 : f64} : (tensor<1x8x16x16xf32>) -> tensor<1x8x18x18xf32>
  %v2 = "sg.neg"(%z) : (tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  %p2 = "sg.pad"(%v2) {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = 0 : i64, value = 0.0 : f64} : (tensor<1x8x64x64xf32>) -> tensor<1x8x66x66xf32>
  %t2 = "sg.reduce_sum"(%p2) {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x8x66x66xf32>) -> tensor<1x8xf32>
  %t1 = "sg.reduce_sum"(%p) {axes = array<i64: 2, 3>, keepdims = 0 : i64} : (tensor<1x8x18x18xf32>) -> tensor<1x8xf32>
  return %s, %t1, %t2 : tensor<1x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>
}

// A slice the program had (here a part updated in place) is no candidate, whatever it costs:
// its values are read.
// CHECK-LABEL: func.func @program_slice
// CHECK: %[[P:.*]] = tensor.extract_slice %arg0[0, 0] [2, 8] [1, 1]
// CHECK: linalg.exp ins(%[[P]] : tensor<2x8xf32>) outs(%[[P]] : tensor<2x8xf32>)
// UNMARKED: (S) 0 in-place
// UNMARKED: (S) 0 copied
func.func @program_slice(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %a[0, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  %e = linalg.exp ins(%s : tensor<2x8xf32>) outs(%s : tensor<2x8xf32>) -> tensor<2x8xf32>
  %i = tensor.insert_slice %e into %a[0, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x8xf32>
  return %i : tensor<4x8xf32>
}

// A padded concatenation: %v (the negation of %u) in place inside the padded buffer and %k
// copied into it pay only together with the copy run before %u is made, so that %k is not
// live beside %u and the padded buffer (14464 bytes; 18560 without the pads in place, 22656
// with every value in place, %k's buffer then live across %big's kernel).
// The elimination first made %k inside the concatenation's new tensor, then moved the
// concatenation into the padded buffer, leaving %k a slice of a tensor nothing else reads:
// %k gets a buffer of its own (stale).
// CHECK-LABEL: func.func @hoist
// CHECK-NOT: tensor.empty() : tensor<1x8x16x16xf32>
// CHECK: %[[K:.*]] = linalg.exp ins(%arg0 : tensor<1x4x16x16xf32>) outs(%{{[0-9]+}} : tensor<1x4x16x16xf32>)
// CHECK: %[[BIG:.*]] = linalg.exp ins(%arg1
// CHECK: linalg.reduce ins(%[[BIG]]
// CHECK: %[[P:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x18x18xf32>)
// CHECK-NEXT: %[[I:.*]] = tensor.extract_slice %[[P]][0, 0, 1, 1] [1, 8, 16, 16]
// CHECK-NEXT: %[[C:.*]] = tensor.insert_slice %[[K]] into %[[I]][0, 0, 0, 0]
// CHECK: %[[U:.*]] = linalg.exp ins(%arg2
// CHECK: %[[S:.*]] = tensor.extract_slice %[[C]][0, 4, 0, 0]
// CHECK-NEXT: linalg.negf ins(%[[U]] : {{.*}}) outs(%[[S]] :
// The three functions' statistics together.
// CHECK: (S) 3 in-place
// CHECK: (S) 1 copied
// CHECK: (S) 1 stale
// CHECK: (S) 1 hoisted
// CHECK: (S) 284800 peak-bytes
// MIXED-LABEL: func.func @hoist
// MIXED-SAME: strata.arena_bytes = 14464
// ALL-LABEL: func.func @hoist
// ALL-SAME: strata.arena_bytes = 22656
// NONE-LABEL: func.func @hoist
// NONE-SAME: strata.arena_bytes = 18560
func.func @hoist(%x: tensor<1x4x16x16xf32>, %z: tensor<1x8x16x16xf32>, %y: tensor<1x4x16x16xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4x16x16xf32>
  %k = linalg.exp ins(%x : tensor<1x4x16x16xf32>) outs(%e0 : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %e1 = tensor.empty() : tensor<1x8x16x16xf32>
  %big = linalg.exp ins(%z : tensor<1x8x16x16xf32>) outs(%e1 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %e2 = tensor.empty() : tensor<1x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %bs = linalg.reduce ins(%big : tensor<1x8x16x16xf32>) outs(%f2 : tensor<1x8xf32>) dimensions = [2, 3]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %e3 = tensor.empty() : tensor<1x4x16x16xf32>
  %u = linalg.exp ins(%y : tensor<1x4x16x16xf32>) outs(%e3 : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %e4 = tensor.empty() : tensor<1x4x16x16xf32>
  %v = linalg.negf ins(%u : tensor<1x4x16x16xf32>) outs(%e4 : tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
  %e5 = tensor.empty() : tensor<1x8x16x16xf32>
  %c0 = tensor.insert_slice %k into %e5[0, 0, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  %cat = tensor.insert_slice %v into %c0[0, 4, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1] : tensor<1x4x16x16xf32> into tensor<1x8x16x16xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %e6 = tensor.empty() : tensor<1x8xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %r = linalg.reduce ins(%p : tensor<1x8x18x18xf32>) outs(%f6 : tensor<1x8xf32>) dimensions = [2, 3]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r, %bs : tensor<1x8xf32>, tensor<1x8xf32>
}
