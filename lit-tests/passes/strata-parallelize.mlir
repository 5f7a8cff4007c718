// strata-parallelize{threads} splits each top-level linalg kernel big enough to pay for a fork
// (at least 32768 loop iterations) along its outermost parallel loop that no reduction
// encloses and that the thread count divides (each thread's share at least a cache line of
// the output): one scf.forall of `threads` tiles. A loop the
// threads do not divide, at least four times as long as their count, is cut first at the
// largest multiple (transform.structured.split): the tiles take that part, the rest stays one
// kernel on one thread. Reductions stay whole inside a tile (bit-identical results).
// Small kernels, kernels whose only long parallel loops sit inside a reduction, and
// threads=1 are left alone. Consecutive kernels each of whose iterations touch only what the
// same iteration of the others touches share one loop (@softmax, @cut_rows). strata-host-to-llvm turns
// the foralls into OpenMP worksharing loops (the second run).
// RUN: strata-opt %s -p 'builtin.module(strata-parallelize{threads=2})' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-parallelize{threads=2},strata-host-to-llvm)' | FileCheck %s --check-prefix=OMP
// RUN: strata-opt %s -p 'builtin.module(strata-parallelize{threads=1})' | FileCheck %s --check-prefix=ONE
// A split that fails to apply (a Strata bug; injected here) leaves every kernel whole, on one
// thread, with a warning: the compile goes on.
// RUN: strata-opt %s -p 'builtin.module(strata-parallelize{threads=2 inject-failure=true})' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=FALLBACK
// FALLBACK: warning: {{.*}}the thread split failed to apply ({{.+}}); the kernels it would have split run on one thread instead
// FALLBACK-NOT: scf.forall
// FALLBACK-NOT: strata.parallel
// FALLBACK: (S) 0 kernels
// FALLBACK: (S) 1 fallbacks

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#rows = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#pool_in = affine_map<(d0, d1, d2, d3) -> (d1, d2 + d0, d3)>
#pool_out = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#window = affine_map<(d0, d1, d2, d3) -> (d0)>

// Softmax-style row sums of [1, 2, 128, 128]: the batch loop is 1 long, the heads split.
// CHECK-LABEL: func.func @row_sums
// CHECK: scf.forall (%[[T:.*]]) in (2)
// CHECK: memref.subview %arg0[0, %{{.*}}, 0, 0] [1, 1, 128, 128]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}}strata.parallel = "0x2x0x0"
// OMP-LABEL: llvm.func @row_sums
// OMP: omp.parallel
// OMP: omp.wsloop
// ONE-LABEL: func.func @row_sums
// ONE-NOT: scf.forall
func.func @row_sums(%x: memref<1x2x128x128xf32>, %y: memref<1x2x128xf32>) {
  linalg.generic {indexing_maps = [#id4, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<1x2x128x128xf32>) outs(%y : memref<1x2x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// ConvNeXt's LayerNorm sums over 40 channels a pixel, [1, 32, 32, 40]: each thread's half of
// the output (16 x 32 sums, 2 KB) is under 4 KB, but one run, not alternate ones: split.
// CHECK-LABEL: func.func @channel_sums
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: memref.subview %arg0[0, %{{.*}}, 0, 0] [1, 16, 32, 40]
// ONE-LABEL: func.func @channel_sums
// ONE-NOT: scf.forall
func.func @channel_sums(%x: memref<1x32x32x40xf32>, %y: memref<1x32x32xf32>) {
  linalg.generic {indexing_maps = [#id4, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<1x32x32x40xf32>) outs(%y : memref<1x32x32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// A fill of 3 x 224 x 224: 3 channels neither divide by two nor are long, so the rows split.
// CHECK-LABEL: func.func @fill
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.fill {strata.parallel = "0x2x0"}
func.func @fill(%y: memref<3x224x224xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<3x224x224xf32>)
  return
}

// Too small (64 x 64 = 4096 iterations), and a pool whose window loop is outermost: alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.forall
// CHECK-NOT: strata.parallel
// CHECK: return
func.func @left_alone(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %x: memref<64x66x64xf32>, %w: memref<3xf32>, %y: memref<64x64x64xf32>) {
  linalg.copy ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#pool_in, #window, #pool_out], iterator_types = ["reduction", "parallel", "parallel", "parallel"]}
      ins(%x, %w : memref<64x66x64xf32>, memref<3xf32>) outs(%y : memref<64x64x64xf32>) {
  ^bb0(%a0: f32, %w0: f32, %acc: f32):
    %m = arith.maximumf %acc, %a0 : f32
    linalg.yield %m : f32
  }
  return
}

// A vision transformer's Softmax-style rows over 3 x 197 x 197: neither 3 nor 197 divides by
// two, so the 197 rows are cut at 196 (98 per thread) and the last row runs after the forall.
// CHECK-LABEL: func.func @odd_rows
// CHECK: memref.subview %arg0[0, 0, 0] [3, 196, 197]
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : memref<3x98x197xf32, {{.*}}) outs(%{{.*}} : memref<3x98xf32, {{.*}})
// CHECK: memref.subview %arg0[0, 196, 0] [3, 1, 197]
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : memref<3x1x197xf32, {{.*}}) outs(%{{.*}} : memref<3x1xf32, {{.*}})
// ONE-LABEL: func.func @odd_rows
// ONE-NOT: scf.forall
// ONE-NOT: strata.parallel
func.func @odd_rows(%x: memref<3x197x197xf32>, %y: memref<3x197xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<3x197x197xf32>) outs(%y : memref<3x197xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  return
}

// A bilinear Resize's gather of its two taps, [1, 5, 129, 129, 2]: the taps loop is the only one
// the threads divide, but a thread's share of it would be one float of every cache line (the
// threads writing alternate floats: false sharing). The 129 rows are cut at 128 instead.
// CHECK-LABEL: func.func @two_taps
// CHECK: memref.subview %arg0[0, 0, 0, 0, 0] [1, 5, 128, 129, 2]
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.fill {{.*}}outs(%{{.*}} : memref<1x5x64x129x2xf32, {{.*}}>)
// CHECK: memref.subview %arg0[0, 0, 128, 0, 0] [1, 5, 1, 129, 2]
func.func @two_taps(%y: memref<1x5x129x129x2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x5x129x129x2xf32>)
  return
}

// Consecutive kernels over the same rows share one loop (one fork and join): a softmax's
// fills, max, exponentials, sum, reciprocals and products over [1, 4, 128, 128], the small
// fills and reciprocals (512 iterations, whole on their own) split with them. The arena views
// are apart (bytes 0-2047 and 2048-4095), and every buffer two kernels share is indexed by the
// split loop alone in both: iteration i touches only head i's rows in each.
// CHECK-LABEL: func.func @softmax
// CHECK: memref.view
// CHECK: memref.view
// CHECK: scf.forall (%[[I:.*]]) in (2)
// CHECK: linalg.fill {strata.parallel = "0x2x0"}
// CHECK: linalg.generic {{.*}}strata.parallel = "0x2x0x0"
// CHECK: linalg.fill {strata.parallel = "0x2x0"}
// CHECK: linalg.generic {{.*}}strata.parallel = "0x2x0x0"
// CHECK: linalg.generic {{.*}}strata.parallel = "0x2x0x0"
// CHECK: linalg.generic {{.*}}strata.parallel = "0x2x0"
// CHECK: linalg.generic {{.*}}strata.parallel = "0x2x0x0"
// CHECK-NOT: scf.forall
// CHECK-NOT: strata.parallel_group
// CHECK: return
// OMP-LABEL: llvm.func @softmax
// OMP-COUNT-1: omp.parallel
// OMP-NOT: omp.parallel
// OMP: llvm.return
func.func @softmax(%x: memref<1x4x128x128xf32>, %y: memref<1x4x128x128xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %low = arith.constant 0xFF800000 : f32
  %max = memref.view %arena[%c0][] : memref<4096xi8> to memref<1x4x128xf32>
  linalg.fill ins(%low : f32) outs(%max : memref<1x4x128xf32>)
  linalg.generic {indexing_maps = [#id4, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<1x4x128x128xf32>) outs(%max : memref<1x4x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maxnumf %acc, %a : f32
    linalg.yield %m : f32
  }
  %sum = memref.view %arena[%c2048][] : memref<4096xi8> to memref<1x4x128xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<1x4x128xf32>)
  linalg.generic {indexing_maps = [#id4, #rows, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %max : memref<1x4x128x128xf32>, memref<1x4x128xf32>) outs(%y : memref<1x4x128x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id4, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%y : memref<1x4x128x128xf32>) outs(%sum : memref<1x4x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%sum : memref<1x4x128xf32>) {
  ^bb0(%s: f32):
    %r = arith.divf %one, %s : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#rows, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sum : memref<1x4x128xf32>) outs(%y : memref<1x4x128x128xf32>) {
  ^bb0(%r: f32, %o: f32):
    %p = arith.mulf %o, %r : f32
    linalg.yield %p : f32
  }
  return
}

// Kernels that cannot share a loop keep their own: the second reads the first's sums along
// the wrong loop (a transposed read: iteration i would need the other thread's rows), the
// third writes a view of the arena that overlaps a buffer the fourth reads whole, and a
// copy (not a kernel: a library call) separates the last two.
// CHECK-LABEL: func.func @apart
// CHECK-COUNT-5: scf.forall
// CHECK-NOT: scf.forall
// CHECK: return
func.func @apart(%x: memref<64x64x64xf32>, %t: memref<64x64x64xf32>, %arena: memref<2097152xi8>, %z: memref<64x64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<64x64x64xf32>) outs(%t : memref<64x64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  %a = memref.view %arena[%c0][] : memref<2097152xi8> to memref<64x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : memref<64x64x64xf32>) outs(%a : memref<64x64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  %b = memref.view %arena[%c1024][] : memref<2097152xi8> to memref<64x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<64x64x64xf32>) outs(%b : memref<64x64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<64x64x64xf32>) outs(%z : memref<64x64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  memref.copy %x, %t : memref<64x64x64xf32> to memref<64x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<64x64x64xf32>)
  return
}

// A gather's body loads its table itself (no operand, no map): a kernel writing that table
// after it keeps its own loop (iteration i of the fill would overwrite rows iteration j of
// the gather may still read); the two fills after it share one.
// CHECK-LABEL: func.func @gather_apart
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK: scf.forall
// CHECK: linalg.fill {strata.parallel = "2x0"}
// CHECK: linalg.fill {strata.parallel = "2x0x0"}
// CHECK-NOT: scf.forall
// CHECK: return
func.func @gather_apart(%ids: memref<64x64xindex>, %table: memref<64x64xf32>, %y: memref<64x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : memref<64x64xindex>) outs(%y : memref<64x64x64xf32>) {
  ^bb0(%i: index, %o: f32):
    %c = linalg.index 2 : index
    %v = memref.load %table[%i, %c] : memref<64x64xf32>
    linalg.yield %v : f32
  }
  linalg.fill ins(%zero : f32) outs(%table : memref<64x64xf32>)
  linalg.fill ins(%zero : f32) outs(%y : memref<64x64x64xf32>)
  return
}

// Kernels cut first at the same row of as many rows (a vision transformer's 197: 196 split)
// share one loop too; each kernel's last row runs after it, in order (the loop touches only the
// first 196 rows of the buffers they share).
// CHECK-LABEL: func.func @cut_rows
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : memref<3x98x197xf32, {{.*}}) outs(%{{.*}} : memref<3x98xf32, {{.*}})
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : memref<3x98x197xf32, {{.*}}, memref<3x98xf32, {{.*}}) outs(%{{.*}} : memref<3x98x197xf32, {{.*}})
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : memref<3x1x197xf32, {{.*}}) outs(%{{.*}} : memref<3x1xf32, {{.*}})
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : memref<3x1x197xf32, {{.*}}, memref<3x1xf32, {{.*}}) outs(%{{.*}} : memref<3x1x197xf32, {{.*}})
// CHECK: return
func.func @cut_rows(%x: memref<3x197x197xf32>, %m: memref<3x197xf32>, %y: memref<3x197x197xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<3x197x197xf32>) outs(%m : memref<3x197xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %m : memref<3x197x197xf32>, memref<3x197xf32>) outs(%y : memref<3x197x197xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  return
}

// CHECK-LABEL: Pass statistics report
// CHECK: (S) 22 kernels
// CHECK: (S) 8 merged
// CHECK: (S) 0 fallbacks
