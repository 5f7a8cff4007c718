// strata-vectorize-elementwise{vector-lanes} vectorises the elementwise kernels and transposes
// on buffers (every loop parallel but reductions outside a parallel innermost loop, output in
// loop order, inputs through projected permutations or unit
// broadcasts, 8- to 64-bit non-bool element types, an arith/math body without integer
// division, an innermost loop of at least 4, a copy's of 2): one tile of `vector-lanes` elements along the
// innermost loop, the last partial one peeled into a vector of its own width (no masks once
// canonicalized), the loops around it kept rolled in LLVM (`loop_annotation` unroll
// disable); a kernel whose operands are all in loop order and whose rows leave a partial
// vector first becomes one loop over its buffers where their layouts collapse. A kernel
// refused only because it reads through its map's offsets or runs unit loops first reads and
// writes static subviews (rank-reduced), its unit loops gone. Everything else is left as it
// was.
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-elementwise{vector-lanes=16})' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-elementwise{vector-lanes=16},canonicalize)' | FileCheck %s --check-prefix=CANON
// RUN: strata-opt %s -p 'builtin.module(strata-vectorize-elementwise{vector-lanes=16},strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
#strided = affine_map<(d0, d1) -> (d0, d1 * 2)>

// Batch norm + ReLU with per-channel parameters ([C, 1, 1] read at 0): the channel and row
// loops stay, the 32-wide rows are two 16-lane vectors.
// CHECK-LABEL: func.func @bn_relu
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: vector.load {{.*}} : memref<1x1x1x16xf32, {{.*}}>, vector<16xf32>
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}}, vector<16xf32>
// CHECK: } {loop_annotation = #{{.*}}}
// CHECK: } {loop_annotation = #{{.*}}}
// CHECK-NOT: linalg.generic
// CHECK: return
// LLVM-LABEL: llvm.func @bn_relu
// LLVM: llvm.fmul {{.*}} : vector<16xf32>
// LLVM: llvm.br {{.*}} {loop_annotation = #{{.*}}}
func.func @bn_relu(%x: memref<1x24x32x32xf32>, %s: memref<24x1x1xf32>, %b: memref<24x1x1xf32>, %y: memref<1x24x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id4, #chan, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s, %b : memref<1x24x32x32xf32>, memref<24x1x1xf32>, memref<24x1x1xf32>) outs(%y : memref<1x24x32x32xf32>) {
  ^bb0(%a: f32, %sc: f32, %bi: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    %p = arith.addf %m, %bi : f32
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// 56-wide rows with a row broadcast and an i8 -> f32 cast: a loop of three whole vectors
// and the last 8 lanes peeled off. The vectorizer masks both by their tiles' sizes, constants
// after peeling: canonicalization folds the masks away.
// CHECK-LABEL: func.func @partial
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: vector.maskedload {{.*}} : memref<1x?xi8, {{.*}}>, vector<16xi1>, vector<16xi8> into vector<16xi8>
// CHECK: arith.sitofp {{.*}} : vector<16xi8> to vector<16xf32>
// CHECK: scf.for
// CHECK: vector.maskedload {{.*}} : memref<1x?xi8, {{.*}}>, vector<8xi1>, vector<8xi8> into vector<8xi8>
// CHECK-NOT: linalg.generic
// CHECK: return
// CANON-LABEL: func.func @partial
// CANON: scf.for %{{.*}} = %c0 to %c48 step %c16 {
// CANON: vector.load {{.*}} : memref<1x16xi8, {{.*}}>, vector<16xi8>
// CANON: vector.store {{.*}} : memref<1x16xf32, {{.*}}>, vector<16xf32>
// CANON: }
// CANON: vector.load {{.*}} : memref<1x8xi8, {{.*}}>, vector<8xi8>
// CANON: vector.store {{.*}} : memref<1x8xf32, {{.*}}>, vector<8xf32>
// CANON-NOT: mask
// CANON: return
// LLVM-LABEL: llvm.func @partial
// LLVM-NOT: llvm.intr.masked
// LLVM: llvm.return
func.func @partial(%x: memref<4x56xi8>, %r: memref<4xf32>, %y: memref<4x56xf32>) {
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : memref<4x56xi8>, memref<4xf32>) outs(%y : memref<4x56xf32>) {
  ^bb0(%a: i8, %b: f32, %o: f32):
    %f = arith.sitofp %a : i8 to f32
    %m = arith.mulf %f, %b : f32
    linalg.yield %m : f32
  }
  return
}

// One loop only (a softmax's scale over a 100-wide row): the peeled rest is its sibling.
// CANON-LABEL: func.func @one_row
// CANON: scf.for %{{.*}} = %c0 to %c96 step %c16 {
// CANON: arith.divf {{.*}} : vector<16xf32>
// CANON: }
// CANON: arith.divf {{.*}} : vector<4xf32>
// CANON-NOT: mask
// CANON: return
func.func @one_row(%x: memref<1x100xf32>, %y: memref<1x100xf32>) {
  %c = arith.constant 6.0 : f32
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1x100xf32>) outs(%y : memref<1x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %c : f32
    linalg.yield %d : f32
  }
  return
}

// Every operand in loop order and contiguous, rows that leave a partial vector (10 wide: one
// vector of 10 a row; a SiLU over a detector's 10 x 10 map): one loop over the whole buffers,
// seen through `memref.collapse_shape`, in whole vectors (800 = 50 x 16). A strided operand
// that does not collapse (the copy's) keeps its rows.
// CANON-LABEL: func.func @flat
// CANON: memref.collapse_shape {{.*}} into memref<800xf32>
// CANON: memref.collapse_shape {{.*}} into memref<800xf32, strided<[1], offset: 64>>
// CANON: scf.for %{{.*}} = %c0 to %c800 step %c16 {
// CANON: math.exp {{.*}} : vector<16xf32>
// CANON: }
// CANON-NOT: vector<10xf32>
// CANON: vector.load {{.*}} : memref<1x10xf32, strided<[12, 1], offset: ?>>, vector<10xf32>
// CANON: return
func.func @flat(%x: memref<1x8x10x10xf32>, %y: memref<1x8x10x10xf32, strided<[800, 100, 10, 1], offset: 64>>, %a: memref<8x10xf32, strided<[12, 1]>>, %b: memref<8x10xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x8x10x10xf32>) outs(%y : memref<1x8x10x10xf32, strided<[800, 100, 10, 1], offset: 64>>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %v, %d : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%a : memref<8x10xf32, strided<[12, 1]>>) outs(%b : memref<8x10xf32>)
  return
}

// A copy (a concatenation's part, a padded interior) is a kernel too.
// CHECK-LABEL: func.func @copy
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: vector.store {{.*}} : memref<1x16xf32, strided<[66, 1], offset: ?>>, vector<16xf32>
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @copy(%a: memref<8x64xf32>, %b: memref<8x64xf32, strided<[66, 1], offset: 67>>) {
  linalg.copy ins(%a : memref<8x64xf32>) outs(%b : memref<8x64xf32, strided<[66, 1], offset: 67>>)
  return
}

// A copy's rows may be as short as 2 (a concatenation's part of two coordinates).
// CHECK-LABEL: func.func @short_copy
// CHECK: vector.load {{.*}} vector<2xf32>
// CHECK: vector.store {{.*}} : memref<1x2xf32, strided<[9, 1], offset: ?>>, vector<2xf32>
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @short_copy(%a: memref<64x2xf32, strided<[4, 1]>>, %b: memref<64x2xf32, strided<[9, 1]>>) {
  linalg.copy ins(%a : memref<64x2xf32, strided<[4, 1]>>) outs(%b : memref<64x2xf32, strided<[9, 1]>>)
  return
}

// A transposed read (a ConvNeXt block's NHWC result added to its NCHW input): vectors along
// the result's rows would read 16 elements 40 floats apart. The loop over the channels, which
// the transposed operand walks contiguously, goes just outside the vector loop and is tiled
// too (8 channels: the largest of 16 and 8 that divides 40): each tile reads 16 rows of 8
// contiguous channels and transposes them in registers (a shuffle network after
// strata-lower-transposes), where element by element every line was fetched again for each of
// its channels. A `linalg.transpose` (an NHWC -> NCHW Transpose kernel) is vectorised the same
// way.
// CANON-LABEL: func.func @transposed
// CANON: scf.for %[[H:.*]] = %c0 to %c56 step %c1 {
// CANON: scf.for %[[C:.*]] = %c0 to %c40 step %c8 {
// CANON: scf.for %[[W:.*]] = %c0 to %c48 step %c16 {
// CANON: vector.transpose %{{.*}}, [2, 0, 1] : vector<1x16x8xf32> to vector<8x1x16xf32>
// CANON: arith.addf {{.*}} : vector<8x1x16xf32>
// CANON: vector.transpose %{{.*}}, [2, 0, 1] : vector<1x8x8xf32> to vector<8x1x8xf32>
// CANON: scf.for %{{.*}} = %c0 to %c56 step %c1 {
// CANON: scf.for %{{.*}} = %c0 to %c40 step %c8 {
// CANON: scf.for %{{.*}} = %c0 to %c48 step %c16 {
// CANON: vector.transpose %{{.*}}, [2, 0, 1] : vector<1x16x8xf32> to vector<8x1x16xf32>
// CANON-NOT: linalg.transpose
// CANON: return
// LLVM-LABEL: llvm.func @transposed
// LLVM-NOT: vector.transpose
// LLVM: llvm.shufflevector
// LLVM: llvm.return
func.func @transposed(%nhwc: memref<1x56x56x40xf32>, %x: memref<1x40x56x56xf32>, %y: memref<1x40x56x56xf32>, %t: memref<1x40x56x56xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%nhwc, %x : memref<1x56x56x40xf32>, memref<1x40x56x56xf32>) outs(%y : memref<1x40x56x56xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  linalg.transpose ins(%nhwc : memref<1x56x56x40xf32>) outs(%t : memref<1x40x56x56xf32>) permutation = [0, 3, 1, 2]
  return
}

// Left alone: a bool result (a vector of i1 is bit-packed, the buffer is not), an integer
// division (masked lanes would divide by the padding zero), a transposed output, a strided
// (non-permutation) read, a reduction, rows shorter than 4 (2 for a copy).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-6: linalg.generic
// CHECK-NOT: vector.
// CHECK-NOT: strata.vector_tile
// CHECK: return
func.func @left_alone(%a: memref<8x64xf32>, %i: memref<8x64xi32>, %c: memref<8x64xi1>, %q: memref<8x64xi32>,
                      %t: memref<64x8xf32>, %w: memref<8x128xf32>, %s: memref<8xf32>, %n: memref<8x3xf32>, %m: memref<8x3xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x64xf32>) outs(%c : memref<8x64xi1>) {
  ^bb0(%x: f32, %o: i1):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    linalg.yield %p : i1
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%i : memref<8x64xi32>) outs(%q : memref<8x64xi32>) {
  ^bb0(%x: i32, %o: i32):
    %seven = arith.constant 7 : i32
    %d = arith.divsi %seven, %x : i32
    linalg.yield %d : i32
  }
  linalg.generic {indexing_maps = [#id2, #tr2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x64xf32>) outs(%t : memref<64x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#strided, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<8x128xf32>) outs(%a : memref<8x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%n : memref<8x3xf32>) outs(%m : memref<8x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}


// A kernel whose output's innermost stride is not 1 (a transposing write into a strided view)
// is vectorised all the same; its write stays a transfer (lowered to LLVM later), since the
// transfer lowering patterns are not applied to it: each failure of theirs printed the write
// with the whole module's names set up (ddddocr's detector: 0.5 s of this pass).
// CHECK-LABEL: func.func @strided_output
// CHECK: vector.transfer_read
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, memref<1x16xf32, strided<[64, 2], offset: ?>>
// CHECK-NOT: strata.vector_tile
// CHECK: return
func.func @strided_output(%a: memref<8x32xf32>, %b: memref<8x32xf32, strided<[64, 2]>>) {
  linalg.copy ins(%a : memref<8x32xf32>) outs(%b : memref<8x32xf32, strided<[64, 2]>>)
  return
}

// A kernel read through its map's offsets (a split's second half: `(0, d1 + 144, d2, 0)` over
// a conformer's `[1, 288, 100, 1]`) and run over unit loops: each operand becomes a static
// subview at the offsets, rank-reduced to the loops' dimensions, the unit loops go, and the
// kernel is vectorised (here flattened: 14400 contiguous elements).
// CHECK-LABEL: func.func @glu
// CHECK: memref.subview %{{.*}}[0, 144, 0, 0] [1, 144, 100, 1] [1, 1, 1, 1] : memref<1x288x100x1xf32> to memref<144x100xf32, strided<[100, 1], offset: 14400>>
// CHECK: memref.subview %{{.*}}[0, 0, 0] [1, 144, 100] [1, 1, 1] : memref<1x144x100xf32> to memref<144x100xf32, strided<[100, 1]>>
// CHECK-NOT: linalg.generic
// CHECK: return
// CANON-LABEL: func.func @glu
// CANON: scf.for %{{.*}} = %c0 to %c14400 step %c16 {
// CANON: math.exp {{.*}} : vector<16xf32>
// CANON: return
func.func @glu(%x: memref<1x288x100x1xf32>, %y: memref<1x144x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1 + 144, d2, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<1x288x100x1xf32>) outs(%y : memref<1x144x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// The same at a view's run-time offset (one thread's rows of a detector head's class scores,
// rows 64.. of a concatenation): the subview's offset is dynamic too. A transposed read over
// unit loops (`(0, d2, d1, 0)`) keeps its transpose, the unit loops gone (100 channels: no
// tile of 16 or 8 rows divides them, so each vector gathers its elements).
// CHECK-LABEL: func.func @head
// CHECK: memref.subview %{{.*}}[0, 64, 0] [1, 8, 2100] [1, 1, 1] : memref<1x144x2100xf32, strided<[302400, 2100, 1], offset: ?>> to memref<8x2100xf32, strided<[2100, 1], offset: ?>>
// CHECK: vector.load
// CHECK: memref.subview %{{.*}}[0, 0, 0, 0] [1, 144, 100, 1] [1, 1, 1, 1] : memref<1x144x100x1xf32> to memref<144x100xf32, strided<[100, 1]>>
// CHECK: vector.transfer_read {{.*}} permutation_map
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @head(%x: memref<1x144x2100xf32, strided<[302400, 2100, 1], offset: ?>>, %y: memref<1x8x2100xf32>, %c: memref<1x144x100x1xf32>, %t: memref<1x100x144xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1 + 64, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<1x144x2100xf32, strided<[302400, 2100, 1], offset: ?>>) outs(%y : memref<1x8x2100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c : memref<1x144x100x1xf32>) outs(%t : memref<1x100x144xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// Left alone: a sliced read whose kernel the vectoriser refuses anyway (an integer division),
// a unit-loop kernel whose innermost loop left is under 4, and an edge pad's border column
// (`[2, 3, 1, 1]` of a `[2, 3, 11, 7]` buffer) broadcast along a row: dropping its unit
// dimensions would leave a strided innermost one (77 floats apart), whose 0-d broadcast read
// the transfer lowering does not take (the conversion to LLVM failed on it).
// CHECK-LABEL: func.func @not_sliced
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: memref.subview
// CHECK: return
func.func @not_sliced(%x: memref<1x16x64xi32>, %y: memref<1x8x64xi32>, %n: memref<1x8x3x1xf32>, %m: memref<1x8x3x1xf32>,
                      %c: memref<2x3x1x1xf32, strided<[231, 77, 7, 1], offset: 43>>, %r: memref<1x2x3x4x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, 0, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%c : memref<2x3x1x1xf32, strided<[231, 77, 7, 1], offset: 43>>) outs(%r : memref<1x2x3x4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1 + 8, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<1x16x64xi32>) outs(%y : memref<1x8x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %seven = arith.constant 7 : i32
    %d = arith.divsi %seven, %a : i32
    linalg.yield %d : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%n : memref<1x8x3x1xf32>) outs(%m : memref<1x8x3x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// A reduction over an outer loop (a softmax's max over the channels of NCHW: the innermost
// loop parallel, the output the parallel loops in order): each lane is a reduction of its own,
// the reduction loop a loop around the vector loop, in the scalar loops' order (the same sums).
// CHECK-LABEL: func.func @channel_max
// CHECK: vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [1] : vector<1x1x1x16xf32> to vector<1x1x16xf32>
// CHECK: vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [1] : vector<1x1x1x4xf32> to vector<1x1x4xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
// CANON-LABEL: func.func @channel_max
// CANON: scf.for %{{.*}} = %c0 to %c3 step %c1 {
// CANON: scf.for %{{.*}} = %c0 to %c96 step %c1 {
// CANON: scf.for %{{.*}} = %c0 to %c96 step %c16 {
// CANON: arith.maximumf {{.*}} : vector<1x1x16xf32>
// CANON: arith.maximumf {{.*}} : vector<1x1x4xf32>
// CANON: return
func.func @channel_max(%x: memref<1x3x96x100xf32>, %m: memref<1x96x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : memref<1x3x96x100xf32>) outs(%m : memref<1x96x100xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %o, %in : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: Pass statistics report
// CHECK: (S) 14 kernels
// CHECK: (S) 0 refused
// CHECK: (S) 3 sliced
// CHECK: (S) 4 flattened
