// plan-arena: static allocations become views of one arena argument at constant offsets.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena))' | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena{strategy=naive alignment=128}))' | FileCheck %s --check-prefix=NAIVE
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena{min-alignment=64}))' | FileCheck %s --check-prefix=STRICT
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena),strata-lower-to-llvm)' | FileCheck %s --check-prefix=LLVM
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena{record-plan=true}))' | FileCheck %s --check-prefix=PLAN
// RUN: not strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena{alignment=3}))' 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not strata-opt %s --split-input-file -p 'builtin.module(func.func(plan-arena{min-alignment=24}))' 2>&1 | FileCheck %s --check-prefix=MINALIGN
// RUN: not strata-opt %s -p 'builtin.module(func.func(plan-arena{strategy=best}))' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: strata-opt %S/inputs/many-buffers.mlir -p 'builtin.module(func.func(plan-arena{strategy=min-cost-flow}))' 2>&1 | FileCheck %s --check-prefix=FALLBACK

// A strategy beyond its size limit gives way to one within it, with a warning; the compile
// goes on.
// FALLBACK: warning: 'func.func' op plan-arena: 'min-cost-flow' is limited to 500 arena buffers {{.*}} this problem has 501{{.*}}; planned with 'offsets-greedy-by-size' instead
// FALLBACK: func.func @many(%arg0: f32
// FALLBACK-SAME: strata.arena_strategy = "offsets-greedy-by-size"
// FALLBACK-NOT: memref.alloc

// The bufferized two-layer MLP of docs/examples: %h (matmul result) dies at the add that
// produces %a, so %a is written in place (offset 0); %z lives throughout (offset 256).
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: memref<4x8xf32>, %[[ARENA:[a-z0-9]+]]: memref<512xi8>)
// CHECK-SAME: strata.arena_alignment = 64 : i64, strata.arena_arg = 5 : i64, strata.arena_bytes = 512 : i64, strata.arena_lower_bound = 512 : i64, strata.arena_strategy = "exact"
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<512xi8> to memref<4x16xf32>
// CHECK-DAG: %[[Z:.*]] = memref.view %[[ARENA]][%[[C256]]][] : memref<512xi8> to memref<4x16xf32>
// CHECK-DAG: %[[H:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<512xi8> to memref<4x16xf32>
// CHECK: linalg.add ins(%[[H]], %{{.*}} : memref<4x16xf32>, memref<4x16xf32>) outs(%[[A]] : memref<4x16xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: return

// Without reuse: three buffers of 256 bytes, each aligned to 128.
// NAIVE-LABEL: func.func @mlp
// NAIVE-SAME: memref<768xi8>
// NAIVE-SAME: strata.arena_alignment = 128 : i64, strata.arena_arg = 5 : i64, strata.arena_bytes = 768 : i64, strata.arena_lower_bound = 512 : i64, strata.arena_strategy = "naive"

// With record-plan, the plan's table (JSON) for the driver: each buffer's op (the first
// user other than a fill), offset, size and lifetime in entry-block ops.
// PLAN-LABEL: func.func @mlp
// PLAN-SAME: strata.arena_plan = "{\22strategy\22:\22exact\22,\22arena_bytes\22:512,\22lower_bound\22:512,\22optimal\22:true,
// PLAN-SAME: \22buffers\22:[{\22id\22:\22(no ONNX node)\22,\22op\22:\22linalg.add\22,\22offset\22:0,\22size\22:256,\22lower\22:7,\22upper\22:11,
// PLAN-SAME: {\22id\22:\22(no ONNX node)\22,\22op\22:\22memref.copy\22,\22offset\22:256,\22size\22:256,\22lower\22:3,\22upper\22:9,

// LLVM-LABEL: llvm.func @mlp
// LLVM: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// LLVM-NOT: llvm.call @malloc
func.func @mlp(%x: memref<4x8xf32>, %w1: memref<8x16xf32>, %b1: memref<4x16xf32>, %w2: memref<16x8xf32>, %out: memref<4x8xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
  %z = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
  linalg.fill ins(%cst : f32) outs(%z : memref<4x16xf32>)
  %h = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
  memref.copy %z, %h : memref<4x16xf32> to memref<4x16xf32>
  linalg.matmul ins(%x, %w1 : memref<4x8xf32>, memref<8x16xf32>) outs(%h : memref<4x16xf32>)
  linalg.add ins(%h, %b1 : memref<4x16xf32>, memref<4x16xf32>) outs(%a : memref<4x16xf32>)
  linalg.max ins(%a, %z : memref<4x16xf32>, memref<4x16xf32>) outs(%a : memref<4x16xf32>)
  linalg.fill ins(%cst : f32) outs(%out : memref<4x8xf32>)
  linalg.matmul ins(%a, %w2 : memref<4x16xf32>, memref<16x8xf32>) outs(%out : memref<4x8xf32>)
  memref.dealloc %a : memref<4x16xf32>
  memref.dealloc %z : memref<4x16xf32>
  memref.dealloc %h : memref<4x16xf32>
  return
}

// -----

// A view keeps its base alive, and a buffer used inside a loop is live for the whole loop:
// %big is read through %sub inside the loop, so it cannot give its 1024 bytes to %acc
// (without the view rule the arena would be 1536 bytes; with it, 2048 = the bound).
// CHECK-LABEL: func.func @views_and_loops
// CHECK-SAME: strata.arena_bytes = 2048 : i64, strata.arena_lower_bound = 2048 : i64
// CHECK-DAG: memref.view %{{.*}}[%{{.*}}][] : memref<2048xi8> to memref<16x16xf32>
// CHECK-DAG: memref.view %{{.*}}[%{{.*}}][] : memref<2048xi8> to memref<8x16xf32>
// CHECK-DAG: memref.view %{{.*}}[%{{.*}}][] : memref<2048xi8> to memref<8x16xf32>
// CHECK: scf.for

// The arena replaces every malloc of @mlp (checked up to the next function).
// LLVM-LABEL: llvm.func @views_and_loops
func.func @views_and_loops(%in: memref<16x16xf32>, %out: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %big = memref.alloc() : memref<16x16xf32>
  memref.copy %in, %big : memref<16x16xf32> to memref<16x16xf32>
  %sub = memref.subview %big[0, 0] [8, 16] [1, 1] : memref<16x16xf32> to memref<8x16xf32, strided<[16, 1]>>
  %t = memref.alloc() : memref<8x16xf32>
  linalg.copy ins(%sub : memref<8x16xf32, strided<[16, 1]>>) outs(%t : memref<8x16xf32>)
  %acc = memref.alloc() : memref<8x16xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    linalg.add ins(%t, %sub : memref<8x16xf32>, memref<8x16xf32, strided<[16, 1]>>) outs(%acc : memref<8x16xf32>)
  }
  memref.copy %acc, %out : memref<8x16xf32> to memref<8x16xf32>
  return
}

// -----

// Not planned: a returned buffer (it escapes) and a dynamic one.
// CHECK-LABEL: func.func @unplannable
// CHECK-SAME: (%[[N:.*]]: index) -> memref<4xf32> {
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.alloc(%[[N]]) : memref<?xf32>
func.func @unplannable(%n: index) -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  return %r : memref<4xf32>
}

// ALIGN: error: 'func.func' op plan-arena: alignment 3 is not a positive power of two
// MINALIGN: error: 'func.func' op plan-arena: min-alignment 24 is not a positive power of two
// STRATEGY: error: invalid pass pipeline at column 26: option 'strategy' expects one of naive, equality, greedy-in-order, greedy-by-breadth, greedy-by-size, greedy-best, min-cost-flow, offsets-greedy-by-size, offsets-greedy-by-breadth, exact, got 'best'

// -----

// Two 100-byte buffers live together: at 64-byte alignment the second starts at 128 (228
// bytes in all, proved optimal); planned again at `min-alignment` (16 bytes by default) it
// starts at 112 (212 bytes), which is kept. The arena itself keeps its 64-byte alignment.
// CHECK-LABEL: func.func @realigned
// CHECK-SAME: strata.arena_alignment = 64 : i64, strata.arena_arg = 2 : i64, strata.arena_bytes = 212 : i64
// CHECK-DAG: memref.view %{{.*}}[%c0{{.*}}][] : memref<212xi8> to memref<25xf32>
// CHECK-DAG: memref.view %{{.*}}[%c112{{.*}}][] : memref<212xi8> to memref<25xf32>
// STRICT-LABEL: func.func @realigned
// STRICT-SAME: strata.arena_bytes = 228 : i64
func.func @realigned(%x: memref<25xf32>, %y: memref<25xf32>) {
  %a = memref.alloc() : memref<25xf32>
  %b = memref.alloc() : memref<25xf32>
  linalg.copy ins(%x : memref<25xf32>) outs(%a : memref<25xf32>)
  linalg.copy ins(%x : memref<25xf32>) outs(%b : memref<25xf32>)
  linalg.add ins(%a, %b : memref<25xf32>, memref<25xf32>) outs(%y : memref<25xf32>)
  memref.dealloc %a : memref<25xf32>
  memref.dealloc %b : memref<25xf32>
  return
}

// -----

// Scratch inside an scf.forall (iterations that run at once, such as a bidirectional
// recurrence's two directions): a buffer in the loop's body gets one copy per iteration (100
// bytes, 128 apart at 64-byte alignment, the view at the iteration's offset), one in a case of
// an scf.index_switch on the loop's variable only one (a single iteration runs it); both live
// over the whole loop. A loop of more than 16 iterations keeps its allocation.
// CHECK-LABEL: func.func @forall_scratch
// CHECK-SAME: %[[ARENA:[^:]*]]: memref<356xi8>
// CHECK: scf.forall (%[[I:.*]]) in (2) {
// CHECK:   %[[STRIDE:.*]] = arith.constant 128 : index
// CHECK:   %[[AT:.*]] = arith.muli %[[I]], %[[STRIDE]] : index
// CHECK:   %[[OFF:.*]] = arith.addi %[[AT]], %{{.*}} : index
// CHECK:   %[[T:.*]] = memref.view %[[ARENA]][%[[OFF]]][] : memref<356xi8> to memref<25xf32>
// CHECK:   case 1 {
// CHECK:     memref.view %[[ARENA]][%c256][] : memref<356xi8> to memref<25xf32>
// CHECK: scf.forall (%{{.*}}) in (17) {
// CHECK:   memref.alloc() : memref<25xf32>
func.func @forall_scratch(%x: memref<2x25xf32>, %y: memref<2x25xf32>, %z: memref<17x25xf32>) {
  scf.forall (%i) in (2) {
    %t = memref.alloc() : memref<25xf32>
    %xs = memref.subview %x[%i, 0] [1, 25] [1, 1] : memref<2x25xf32> to memref<25xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [1, 25] [1, 1] : memref<2x25xf32> to memref<25xf32, strided<[1], offset: ?>>
    linalg.copy ins(%xs : memref<25xf32, strided<[1], offset: ?>>) outs(%t : memref<25xf32>)
    scf.index_switch %i
    case 1 {
      %u = memref.alloc() : memref<25xf32>
      linalg.add ins(%t, %t : memref<25xf32>, memref<25xf32>) outs(%u : memref<25xf32>)
      linalg.copy ins(%u : memref<25xf32>) outs(%ys : memref<25xf32, strided<[1], offset: ?>>)
      scf.yield
    }
    default {
      linalg.copy ins(%t : memref<25xf32>) outs(%ys : memref<25xf32, strided<[1], offset: ?>>)
      scf.yield
    }
  }
  scf.forall (%i) in (17) {
    %t = memref.alloc() : memref<25xf32>
    %zs = memref.subview %z[%i, 0] [1, 25] [1, 1] : memref<17x25xf32> to memref<25xf32, strided<[1], offset: ?>>
    linalg.copy ins(%zs : memref<25xf32, strided<[1], offset: ?>>) outs(%t : memref<25xf32>)
    linalg.add ins(%t, %t : memref<25xf32>, memref<25xf32>) outs(%zs : memref<25xf32, strided<[1], offset: ?>>)
    memref.dealloc %t : memref<25xf32>
  }
  return
}

// -----

// An elementwise generic whose other input is a broadcast (a bias) writes over the input it
// reads through the identity where that input dies: one buffer.
// CHECK-LABEL: func.func @bias_in_place
// CHECK-SAME: strata.arena_bytes = 256 : i64
func.func @bias_in_place(%x: memref<4x16xf32>, %bias: memref<16xf32>, %y: memref<4x16xf32>) {
  %h = memref.alloc() : memref<4x16xf32>
  linalg.exp ins(%x : memref<4x16xf32>) outs(%h : memref<4x16xf32>)
  %o = memref.alloc() : memref<4x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %bias : memref<4x16xf32>, memref<16xf32>) outs(%o : memref<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  memref.copy %o, %y : memref<4x16xf32> to memref<4x16xf32>
  return
}

// -----

// The same input read through the identity and as a broadcast of its first row: writing
// over it would change the row the other elements still read, so two buffers.
// CHECK-LABEL: func.func @broadcast_of_itself
// CHECK-SAME: strata.arena_bytes = 512 : i64
func.func @broadcast_of_itself(%x: memref<4x16xf32>, %y: memref<4x16xf32>) {
  %h = memref.alloc() : memref<4x16xf32>
  linalg.exp ins(%x : memref<4x16xf32>) outs(%h : memref<4x16xf32>)
  %o = memref.alloc() : memref<4x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %h : memref<4x16xf32>, memref<4x16xf32>) outs(%o : memref<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  }
  memref.copy %o, %y : memref<4x16xf32> to memref<4x16xf32>
  return
}

// -----

// A depthwise convolution, its quantization chain and the cast to bytes run later as one
// kernel (strata-vectorize-depthwise stores the bytes with the accumulators, while it still
// reads the input): a use in that span counts over all of it, so the bytes never take the
// input's memory, which dies at the convolution: 4224 + 3200 + 800 bytes (op by op the bytes
// would reuse the input's, 4224 + 3200).
// CHECK-LABEL: func.func @depthwise_span
// CHECK-SAME: strata.arena_bytes = 8224 : i64
func.func @depthwise_span(%x: memref<1x4x12x22xf32>, %w: memref<4x3x3xf32>, %s: memref<f32>, %z: memref<1x4x10x20xui8>) {
  %xa = memref.alloc() : memref<1x4x12x22xf32>
  memref.copy %x, %xa : memref<1x4x12x22xf32> to memref<1x4x12x22xf32>
  %y = memref.alloc() : memref<1x4x10x20xf32>
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xa, %w : memref<1x4x12x22xf32>, memref<4x3x3xf32>) outs(%y : memref<1x4x10x20xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %s : memref<1x4x10x20xf32>, memref<f32>) outs(%y : memref<1x4x10x20xf32>) {
  ^bb0(%in: f32, %sc: f32, %out: f32):
    %0 = arith.divf %in, %sc : f32
    %1 = math.roundeven %0 : f32
    linalg.yield %1 : f32
  }
  %bytes = memref.alloc() : memref<1x4x10x20xui8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x4x10x20xf32>) outs(%bytes : memref<1x4x10x20xui8>) {
  ^bb0(%in: f32, %out: ui8):
    %0 = arith.fptoui %in : f32 to i8
    %1 = builtin.unrealized_conversion_cast %0 : i8 to ui8
    linalg.yield %1 : ui8
  }
  memref.copy %bytes, %z : memref<1x4x10x20xui8> to memref<1x4x10x20xui8>
  return
}
