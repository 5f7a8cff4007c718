// strata-parallelize{threads} splits each top-level linalg kernel big enough to pay for a fork
// (at least 32768 loop iterations) along its outermost parallel loop that no reduction
// encloses and that the thread count divides (each thread's share at least a cache line of
// the output): one scf.forall of `threads` tiles. A loop the
// threads do not divide, at least four times as long as their count, is cut first at the
// largest multiple (transform.structured.split): the tiles take that part, the rest stays one
// kernel on one thread. Reductions stay whole inside a tile (bit-identical results).
// Small kernels, kernels whose only long parallel loops sit inside a reduction, and
// threads=1 are left alone. strata-host-to-llvm turns the foralls into OpenMP worksharing
// loops (the second run).
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

// CHECK-LABEL: Pass statistics report
// CHECK: (S) 4 kernels
// CHECK: (S) 0 fallbacks
