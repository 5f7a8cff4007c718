// strata-outline-kernels: every top-level loop nest of a planned function becomes a function
// of its own taking the function's arguments (with their attributes), the views and constants
// it reads cloned into it; the code generator compiles such kernels in parallel. Kernels that
// Strata vectorised (vector ops, no linalg op left to LLVM), or wrote as scalar loops (no vector
// or linalg op: a tree walk), and that are the same code but for the byte offsets of their
// views are one function taking the offsets as parameters. A
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

  // The same layouts read through other views: columns 1-2 and 2-3 of a 4 x 4 buffer (two
  // bands), and a 2 x 4 buffer seen as an expansion of a flat view or as a subview of a larger
  // one. Each becomes a view of the arena at its bytes (and a reinterpret_cast to its strides
  // where it is not contiguous): one function each.
  func.func @views(%arena: memref<128xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %rows = memref.view %arena[%c0][] : memref<128xi8> to memref<4x4xf32>
    %out = memref.view %arena[%c64][] : memref<128xi8> to memref<4x4xf32>
    %band1 = memref.subview %rows[0, 1] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1], offset: 1>>
    %band2 = memref.subview %rows[0, 2] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1], offset: 2>>
    scf.for %i = %c0 to %c4 step %c1 {
      %a = vector.load %band1[%i, %c0] : memref<4x2xf32, strided<[4, 1], offset: 1>>, vector<2xf32>
      vector.store %a, %out[%i, %c0] : memref<4x4xf32>, vector<2xf32>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %a = vector.load %band2[%i, %c0] : memref<4x2xf32, strided<[4, 1], offset: 2>>, vector<2xf32>
      vector.store %a, %out[%i, %c0] : memref<4x4xf32>, vector<2xf32>
    }
    %flat = memref.view %arena[%c0][] : memref<128xi8> to memref<8xf32>
    %grid = memref.expand_shape %flat [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
    %half = memref.subview %out[2, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 8>>
    scf.for %i = %c0 to %c4 step %c4 {
      %a = vector.load %grid[%c1, %i] : memref<2x4xf32>, vector<4xf32>
      vector.store %a, %rows[%c0, %i] : memref<4x4xf32>, vector<4xf32>
    }
    scf.for %i = %c0 to %c4 step %c4 {
      %a = vector.load %half[%c1, %i] : memref<2x4xf32, strided<[4, 1], offset: 8>>, vector<4xf32>
      vector.store %a, %rows[%c0, %i] : memref<4x4xf32>, vector<4xf32>
    }
    return
  }

  // Two scalar loop nests, no vector or linalg op (a tree walk's shape: each step loads the
  // next node by the one before), the same but for where their table and result sit: LLVM's
  // vectoriser takes nothing from such loops, so they are one function too.
  func.func @walks(%arena: memref<128xi8>, %w: memref<64xi8> {llvm.noalias, llvm.readonly}) attributes {strata.weights_arg = 1 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c96 = arith.constant 96 : index
    %t0 = memref.view %w[%c0][] : memref<64xi8> to memref<4xi64>
    %t1 = memref.view %w[%c32][] : memref<64xi8> to memref<4xi64>
    %o0 = memref.view %arena[%c64][] : memref<128xi8> to memref<4xi64>
    %o1 = memref.view %arena[%c96][] : memref<128xi8> to memref<4xi64>
    scf.for %i = %c0 to %c4 step %c1 {
      %n = scf.for %s = %c0 to %c4 step %c1 iter_args(%p = %i) -> (index) {
        %next = memref.load %t0[%p] : memref<4xi64>
        %q = arith.index_cast %next : i64 to index
        scf.yield %q : index
      }
      %v = arith.index_cast %n : index to i64
      memref.store %v, %o0[%i] : memref<4xi64>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %n = scf.for %s = %c0 to %c4 step %c1 iter_args(%p = %i) -> (index) {
        %next = memref.load %t1[%p] : memref<4xi64>
        %q = arith.index_cast %next : i64 to index
        scf.yield %q : index
      }
      %v = arith.index_cast %n : index to i64
      memref.store %v, %o1[%i] : memref<4xi64>
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

// The bands: one function, its views at byte offsets 4 and 8 (1 and 2 floats into the
// buffer at 0; the 14 floats from there a band spans, cast to its strides) and 64 for the
// output; the 2 x 4 buffers: 0 (the flat view's) and 96 (8 floats into the buffer at 64),
// contiguous, so views alone.
// CHECK: func.func private @strata_kernel_6(%arg0: memref<128xi8>, %arg1: index, %arg2: index)
// CHECK: %[[BAND:.*]] = memref.view %arg0[%arg1][] : memref<128xi8> to memref<14xf32>
// CHECK: memref.reinterpret_cast %[[BAND]] to offset: [0], sizes: [4, 2], strides: [4, 1] : memref<14xf32> to memref<4x2xf32, strided<[4, 1]>>
// CHECK: memref.view %arg0[%arg2][] : memref<128xi8> to memref<4x4xf32>
// CHECK-NOT: memref.subview
// CHECK: vector.load
// CHECK-NOT: func.func private @strata_kernel_7(
// CHECK: func.func private @strata_kernel_8(%arg0: memref<128xi8>, %arg1: index, %arg2: index)
// CHECK: memref.view %arg0[%arg1][] : memref<128xi8> to memref<2x4xf32>
// CHECK-NOT: memref.expand_shape
// CHECK-NOT: func.func private @strata_kernel_9(
// CHECK: func.func @views(
// CHECK: call @strata_kernel_6(%arg0, %c4{{[_0-9]*}}, %c64{{[_0-9]*}})
// CHECK: call @strata_kernel_6(%arg0, %c8{{[_0-9]*}}, %c64{{[_0-9]*}})
// CHECK: call @strata_kernel_8(%arg0, %c0{{[_0-9]*}}, %c0{{[_0-9]*}})
// CHECK: call @strata_kernel_8(%arg0, %c96{{[_0-9]*}}, %c0{{[_0-9]*}})

// The walks: one function, the table's offset in the weights and the result's in the arena
// its parameters.
// CHECK: func.func private @strata_kernel_10(%arg0: memref<128xi8>, %arg1: memref<64xi8> {llvm.noalias, llvm.readonly}, %arg2: index, %arg3: index)
// CHECK: memref.view %arg1[%arg2][] : memref<64xi8> to memref<4xi64>
// CHECK: memref.view %arg0[%arg3][] : memref<128xi8> to memref<4xi64>
// CHECK-NOT: func.func private @strata_kernel_11(
// CHECK: func.func @walks(
// CHECK: call @strata_kernel_10(%arg0, %arg1, %c0{{[_0-9]*}}, %c64{{[_0-9]*}})
// CHECK: call @strata_kernel_10(%arg0, %arg1, %c32{{[_0-9]*}}, %c96{{[_0-9]*}})

// STATS: (S) 12 kernels - kernels moved into functions of their own
// STATS: (S) 1 kept-inline - kernels that read a value computed at the top level
// STATS: (S) 4 shared - kernels that are the same code as an earlier one (one function, several calls)

// After lowering, each kernel is a function of its own with the blob's promises.
// LLVM: llvm.func @strata_kernel_0(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr {llvm.noalias, llvm.readonly})
// LLVM: llvm.call @strata_kernel_0
