// strata-pad-in-place: a pad becomes fill + insert_slice, so that eliminate-empty-tensors lets
// the source's producer write into the padded buffer's interior (where strata-choose-in-place
// finds it pays); pads of a value that is not a float constant stay.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-pad-in-place))' --mlir-pass-statistics 2>&1 | FileCheck %s
// Planned: with the pad in place the expanded value and its padded copy never coexist.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-pad-in-place),eliminate-empty-tensors,strata-bufferize,func.func(plan-arena))' | FileCheck %s --check-prefix=INPLACE
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize,func.func(plan-arena))' | FileCheck %s --check-prefix=COPY

// CHECK-LABEL: func.func @expand_then_pad
// CHECK: %[[X:.*]] = linalg.generic
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x16x10x10xf32>)
// CHECK: tensor.insert_slice %[[X]] into %[[F]][0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : tensor<1x16x8x8xf32> into tensor<1x16x10x10xf32>
// CHECK-NOT: tensor.pad
// INPLACE-LABEL: func.func @expand_then_pad
// INPLACE-SAME: strata.arena_bytes = 6400
// COPY-LABEL: func.func @expand_then_pad
// COPY-SAME: strata.arena_bytes = 10496
func.func @expand_then_pad(%bias: tensor<16xf32>, %out: tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<16xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x16x8x8xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x16x10x10xf32>) outs(%out : tensor<1x16x10x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x16x10x10xf32>
  return %y : tensor<1x16x10x10xf32>
}

// A source that another op reads is inserted too (the chooser copies it if in place would
// cost memory, and the fill is then narrowed to the ring); an integer pad stays.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x6xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[1, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<6x6xf32>
// CHECK-COUNT-1: tensor.pad
// CHECK: (S) 2 pads-in-place
// CHECK: (S) 1 pads-kept
func.func @kept(%x: tensor<4x4xf32>, %i: tensor<4x4xi32>) -> (tensor<6x6xf32>, tensor<4x4xf32>, tensor<6x6xi32>) {
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i32
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%a: index, %b: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  %q = tensor.pad %i low[1, 1] high[1, 1] {
  ^bb0(%a: index, %b: index):
    tensor.yield %izero : i32
  } : tensor<4x4xi32> to tensor<6x6xi32>
  return %p, %x, %q : tensor<6x6xf32>, tensor<4x4xf32>, tensor<6x6xi32>
}
