// strata-init-per-destination: a new tensor (tensor.empty, or a fill or constant broadcast into one) that several ops
// write into (as CSE leaves it) gets one clone per destination, right before it (before the
// user's ancestor in the original's block when the user is nested); readers keep the
// original, and an original nothing reads any more is erased. Bufferized, each destination is
// filled in its own buffer instead of copying one shared fill that stays live throughout, and
// one-shot bufferization's analysis no longer compares every writer of a shared empty with
// every other (quadratic: 32 s for a 1000-op elementwise chain).
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-init-per-destination))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-bufferize,func.func(plan-arena))' | FileCheck %s --check-prefix=SHARED
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-init-per-destination),strata-bufferize,func.func(plan-arena))' | FileCheck %s --check-prefix=OWN

#id = affine_map<(d0) -> (d0)>

// Two accumulations into zero-filled outputs, and an insert into a zero-filled tensor.
// CHECK-LABEL: func.func @two_accumulators
// CHECK-NOT: linalg.fill
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<256xf32>
// CHECK-NEXT: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<256xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F1]] : tensor<256xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<256xf32>
// CHECK-NEXT: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<256xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F2]] : tensor<256xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<256xf32>
// CHECK-NEXT: %[[F3:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E3]] : tensor<256xf32>)
// CHECK-NEXT: tensor.insert_slice %{{.*}} into %[[F3]][0] [128] [1]
// CHECK-NOT: linalg.fill
// CHECK: return
// Shared, the fill is copied into each destination and lives from the first to the last:
// SHARED-LABEL: func.func @two_accumulators
// SHARED-SAME: strata.arena_bytes = 3072
// SHARED: linalg.fill ins(%{{.*}} : f32) outs(%[[SHARED:.*]] : memref<256xf32>)
// SHARED-COUNT-2: memref.copy %[[SHARED]], %{{.*}} : memref<256xf32> to memref<256xf32>
// Cloned, each destination is filled in place, nothing is copied, and the arena is a third
// smaller.
// OWN-LABEL: func.func @two_accumulators
// OWN-SAME: strata.arena_bytes = 2048
// OWN-COUNT-3: linalg.fill
// OWN-NOT: memref.copy %{{.*}} : memref<256xf32> to memref<256xf32>
// OWN: memref.copy %arg3, %arg4
func.func @two_accumulators(%a: tensor<256xf32>, %b: tensor<256xf32>, %c: tensor<128xf32>, %out: tensor<256xf32>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<256xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%b, %x : tensor<256xf32>, tensor<256xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    %t = arith.addf %s, %o : f32
    linalg.yield %t : f32
  } -> tensor<256xf32>
  %z = tensor.insert_slice %c into %f[0] [128] [1] : tensor<128xf32> into tensor<256xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%y, %z : tensor<256xf32>, tensor<256xf32>) outs(%out : tensor<256xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// A reader keeps the original; the one destination gets its own clone.
// CHECK-LABEL: func.func @reader_keeps_it
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[F]] : tensor<256xf32>, tensor<256xf32>)
// CHECK: %[[G:.*]] = linalg.fill
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[G]] : tensor<256xf32>)
func.func @reader_keeps_it(%a: tensor<256xf32>, %out: tensor<256xf32>) -> tensor<256xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %f : tensor<256xf32>, tensor<256xf32>) outs(%out : tensor<256xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %s = arith.mulf %i, %j : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<256xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %y : tensor<256xf32>
}

// A chain of kernels writing into one shared empty (as CSE leaves an elementwise chain of one
// shape): each gets its own, right before it; the original goes.
// CHECK-LABEL: func.func @shared_empty
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %[[X:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3xf32>) outs(%[[E1]] : tensor<2x3xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x3xf32>) outs(%[[E2]] : tensor<2x3xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[Y]] : tensor<2x3xf32>) outs(%[[E3]] : tensor<2x3xf32>)
// CHECK-NOT: tensor.empty
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_empty(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  } -> tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  } -> tensor<2x3xf32>
  %z = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  } -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// Destination-passing ops without operand segments (linalg.transpose's `init`): their
// destination is their last operand. Sharing one empty, BERT's head splits and merges of both
// layers were one buffer each, live across both (its arena: 656 KB, 395 KB with a clone each).
// CHECK-LABEL: func.func @transposes
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK-NEXT: %[[T1:.*]] = linalg.transpose ins(%arg0 : tensor<2x4xf32>) outs(%[[E1]] : tensor<4x2xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK-NEXT: linalg.transpose ins(%{{.*}} : tensor<2x4xf32>) outs(%[[E2]] : tensor<4x2xf32>)
func.func @transposes(%a: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %e = tensor.empty() : tensor<4x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x4xf32>) outs(%e : tensor<4x2xf32>) permutation = [1, 0]
  %u = linalg.transpose ins(%t : tensor<4x2xf32>) outs(%a : tensor<2x4xf32>) permutation = [1, 0]
  %v = linalg.transpose ins(%u : tensor<2x4xf32>) outs(%e : tensor<4x2xf32>) permutation = [1, 0]
  return %v : tensor<4x2xf32>
}

// Kernels the host schedule tiled: an scf.for (or scf.forall) whose initial value (iter_args,
// shared_outs) is the kernel's destination. Each gets its own clone: with one shared empty,
// one-shot bufferization would either copy (the second reads the first) or, when their
// values never meet, write every such kernel of a shape into one buffer, live from the first
// to the last with its gaps (ResNet-50's 3x3 outputs: one buffer across three blocks, 11% of
// its arena).
// CHECK-LABEL: func.func @tiled_kernels
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<256xf32>
// CHECK-NEXT: %[[X:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E1]]) -> (tensor<256xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<256xf32>
// CHECK-NEXT: scf.forall {{.*}} shared_outs(%{{.*}} = %[[E2]]) -> (tensor<256xf32>)
// CHECK-NOT: tensor.empty
// CHECK: return
func.func @tiled_kernels(%a: tensor<256xf32>, %out: tensor<256xf32>) -> tensor<256xf32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %e = tensor.empty() : tensor<256xf32>
  %x = scf.for %i = %c0 to %c256 step %c64 iter_args(%acc = %e) -> (tensor<256xf32>) {
    %s = tensor.extract_slice %a[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %d = tensor.extract_slice %acc[%i] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%s : tensor<64xf32>) outs(%d : tensor<64xf32>) {
    ^bb0(%v: f32, %o: f32):
      %m = arith.negf %v : f32
      linalg.yield %m : f32
    } -> tensor<64xf32>
    %r = tensor.insert_slice %n into %acc[%i] [64] [1] : tensor<64xf32> into tensor<256xf32>
    scf.yield %r : tensor<256xf32>
  }
  %y = scf.forall (%j) in (4) shared_outs(%o = %e) -> (tensor<256xf32>) {
    %off = arith.muli %j, %c64 : index
    %s = tensor.extract_slice %x[%off] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %d = tensor.extract_slice %o[%off] [64] [1] : tensor<256xf32> to tensor<64xf32>
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%s : tensor<64xf32>) outs(%d : tensor<64xf32>) {
    ^bb0(%v: f32, %w: f32):
      %m = math.exp %v : f32
      linalg.yield %m : f32
    } -> tensor<64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %n into %o[%off] [64] [1] : tensor<64xf32> into tensor<256xf32>
    }
  }
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%y : tensor<256xf32>) outs(%out : tensor<256xf32>) {
  ^bb0(%v: f32, %w: f32):
    %m = arith.negf %v : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  return %z : tensor<256xf32>
}

// A broadcast of constants into a new tensor (a convolution's bias over its output) that two
// accumulations start from is cloned like a fill: each computes its own, in place (the bands of
// one convolution, `strata-band-chains`, each start from one; shared, bufferization copied it
// into every band's buffer).
// CHECK-LABEL: func.func @shared_bias
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[B1:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%[[E1]] : tensor<4x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[B1]] : tensor<4x8xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[B2:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%[[E2]] : tensor<4x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[B2]] : tensor<4x8xf32>)
func.func @shared_bias(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %bias = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %x, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// A destination inside a region (an scf.if branch here; in a loop body a clone would be a new
// buffer per iteration): its clone goes before the region's op, in the original's block.
// CHECK-LABEL: func.func @nested_user
// CHECK: tensor.empty
// CHECK-NEXT: linalg.generic
// CHECK: %[[MINE:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: scf.if
// CHECK-NOT: tensor.empty
// CHECK: linalg.generic {{.*}} outs(%[[MINE]] : tensor<2x3xf32>)
func.func @nested_user(%a: tensor<2x3xf32>, %c: i1) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.negf %i : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  %r = scf.if %c -> (tensor<2x3xf32>) {
    %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
    ^bb0(%i: f32, %o: f32):
      %m = arith.negf %i : f32
      linalg.yield %m : f32
    } -> tensor<2x3xf32>
    scf.yield %y : tensor<2x3xf32>
  } else {
    scf.yield %x : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// A Winograd convolution's scratch (operand 3 of a linalg.generic marked strata.winograd) is
// an input on tensors, but its lowering writes it: each convolution gets its own zero fill
// right before it (strata-vectorize-winograd absorbs it), instead of one scratch live from the
// first to the last.
// CHECK-LABEL: func.func @winograd_scratch
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[S1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%arg0, %arg1, %arg1, %[[S1]] : {{.*}}) outs(%arg2 : tensor<8xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[S2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%arg0, %arg1, %arg1, %[[S2]] : {{.*}}) outs(%arg3 : tensor<8xf32>)
// The statistics of the whole file.
// CHECK: (S) 9 empties-cloned
// CHECK: (S) 8 fills-cloned
func.func @winograd_scratch(%x: tensor<8xf32>, %w: tensor<8xf32>, %i1: tensor<8xf32>, %i2: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %w, %w, %s : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%i1 : tensor<8xf32>) attrs = {strata.winograd = array<i64: 2, 1, 1, 1>} {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %y2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %w, %w, %s : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%i2 : tensor<8xf32>) attrs = {strata.winograd = array<i64: 2, 1, 1, 1>} {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %y1, %y2 : tensor<8xf32>, tensor<8xf32>
}
