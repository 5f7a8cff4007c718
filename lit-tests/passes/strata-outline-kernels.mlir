// strata-outline-kernels: every top-level loop nest of a planned function becomes a function
// of its own taking the function's arguments (with their attributes), the views and constants
// it reads cloned into it; the code generator compiles such kernels in parallel. Kernels that
// Strata vectorised (vector ops, no linalg op left to LLVM) and that are the same code but for
// the byte offsets of their views are one function taking the offsets as parameters. A
// kernel also takes its own copies of the loads of read-only memory (the weights blob, constant
// globals) and the vector values computed from them that loop-invariant code motion hoisted
// out of it; a load of the arena keeps it in place.
// RUN: strata-opt %s -p 'builtin.module(strata-outline-kernels)' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-outline-kernels)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: strata-opt %s -p 'builtin.module(strata-outline-kernels,strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

#map = affine_map<(d0) -> (d0)>
module {
  memref.global "private" constant @scale : memref<4xf32> = dense<2.0>
  func.func @main(%x: memref<16xf32>, %y: memref<16xf32>, %arena: memref<128xi8>, %w: memref<64xi8> {llvm.noalias, llvm.readonly}) attributes {strata.weights_arg = 3 : i64} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %t = memref.view %arena[%c0][] : memref<128xi8> to memref<16xf32>
    %u = memref.view %arena[%c64][] : memref<128xi8> to memref<16xf32>
    %b = memref.view %w[%c0][] : memref<64xi8> to memref<16xf32>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%x, %b : memref<16xf32>, memref<16xf32>) outs(%t : memref<16xf32>) {
    ^bb0(%in: f32, %bias: f32, %out: f32):
      %s = arith.addf %in, %bias : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    }
    // A scalar read at the top level: the kernel using it stays in place.
    %first = memref.load %t[%c0] : memref<16xf32>
    linalg.fill ins(%first : f32) outs(%u : memref<16xf32>)
    linalg.copy ins(%t : memref<16xf32>) outs(%y : memref<16xf32>)
    // Two vectorised kernels that differ only in where their buffers sit: one function.
    %c0i = arith.constant 0 : index
    %c16i = arith.constant 16 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %v0 = memref.view %arena[%c32][] : memref<128xi8> to memref<16xf32>
    %v1 = memref.view %arena[%c64][] : memref<128xi8> to memref<16xf32>
    scf.for %i = %c0i to %c16i step %c4 {
      %a = vector.load %v0[%i] : memref<16xf32>, vector<4xf32>
      vector.store %a, %v1[%i] : memref<16xf32>, vector<4xf32>
    }
    scf.for %i = %c0i to %c16i step %c4 {
      %a = vector.load %t[%i] : memref<16xf32>, vector<4xf32>
      vector.store %a, %v0[%i] : memref<16xf32>, vector<4xf32>
    }
    // The same with another step is other code.
    scf.for %i = %c0i to %c16i step %c16i {
      %a = vector.load %t[%i] : memref<16xf32>, vector<16xf32>
      vector.store %a, %v0[%i] : memref<16xf32>, vector<16xf32>
    }
    // Hoisted out of the next kernel: loads of the weights and of a constant global, and a
    // vector built from them.
    %bias = vector.load %b[%c0] : memref<16xf32>, vector<4xf32>
    %g = memref.get_global @scale : memref<4xf32>
    %scale = vector.load %g[%c0] : memref<4xf32>, vector<4xf32>
    %e:4 = vector.to_elements %bias : vector<4xf32>
    %init = vector.from_elements %e#3, %e#2, %e#1, %e#0 : vector<4xf32>
    scf.for %i = %c0i to %c16i step %c4 {
      %a = vector.load %t[%i] : memref<16xf32>, vector<4xf32>
      %r = arith.addf %a, %init : vector<4xf32>
      %q = arith.mulf %r, %scale : vector<4xf32>
      vector.store %q, %u[%i] : memref<16xf32>, vector<4xf32>
    }
    return
  }
}

// CHECK: func.func private @strata_kernel_0(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: memref<128xi8>, %arg3: memref<64xi8> {llvm.noalias, llvm.readonly})
// CHECK-DAG: memref.view %arg2
// CHECK-DAG: memref.view %arg3
// CHECK: linalg.generic
// CHECK: func.func private @strata_kernel_1(
// CHECK: linalg.copy
// CHECK: func.func private @strata_kernel_2(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: memref<128xi8>, %arg3: memref<64xi8> {llvm.noalias, llvm.readonly}, %arg4: index, %arg5: index)
// CHECK: memref.view %arg2[%arg4][]
// CHECK: memref.view %arg2[%arg5][]
// CHECK: vector.load
// CHECK-NOT: func.func private @strata_kernel_3(
// CHECK: func.func private @strata_kernel_4(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: memref<128xi8>, %arg3: memref<64xi8> {llvm.noalias, llvm.readonly})
// CHECK: vector<16xf32>
// CHECK: func.func private @strata_kernel_5(
// CHECK: memref.view %arg3
// CHECK: vector.to_elements
// CHECK: vector.from_elements
// CHECK: memref.get_global @scale
// CHECK: scf.for
// CHECK: func.func @main(
// CHECK: call @strata_kernel_0(%arg0, %arg1, %arg2, %arg3)
// CHECK: memref.load
// CHECK: linalg.fill
// CHECK: call @strata_kernel_1(%arg0, %arg1, %arg2, %arg3)
// CHECK: call @strata_kernel_2(%arg0, %arg1, %arg2, %arg3, %c32{{[_0-9]*}}, %c64{{[_0-9]*}})
// CHECK: call @strata_kernel_2(%arg0, %arg1, %arg2, %arg3, %c0{{[_0-9]*}}, %c32{{[_0-9]*}})
// CHECK: call @strata_kernel_4(%arg0, %arg1, %arg2, %arg3)
// CHECK: call @strata_kernel_5(%arg0, %arg1, %arg2, %arg3)
// CHECK-NOT: vector.from_elements
// CHECK: return

// STATS: (S) 6 kernels - kernels moved into functions of their own
// STATS: (S) 1 kept-inline - kernels that read a value computed at the top level
// STATS: (S) 1 shared - kernels that are the same code as an earlier one (one function, several calls)

// After lowering, each kernel is a function of its own with the blob's promises.
// LLVM: llvm.func @strata_kernel_0(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr {llvm.noalias, llvm.readonly})
// LLVM: llvm.call @strata_kernel_0
