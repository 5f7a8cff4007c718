// strata-gpu-map: each top-level loop nest becomes one gpu.launch of a collapsed 1-D grid; the
// views and constants a kernel uses are cloned into it.
// RUN: strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(plan-weights,func.func(convert-linalg-to-parallel-loops,strata-gpu-map))' | FileCheck %s --check-prefix=MAP
// RUN: strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(func.func(convert-linalg-to-parallel-loops,strata-gpu-map{block-size=64}))' | FileCheck %s --check-prefix=SMALL
// RUN: not strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(func.func(strata-gpu-map{block-size=48}))' 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not strata-opt %s -p 'builtin.module(func.func(strata-gpu-map))' 2>&1 | FileCheck %s --check-prefix=ALLOC
// RUN: strata-opt %S/inputs/gpu-if.mlir -p 'builtin.module(func.func(convert-linalg-to-parallel-loops,strata-gpu-map))' | FileCheck %s --check-prefix=IF

// One launch per loop nest (fill, matmul, bias+ReLU, transposed copy): 32 elements, one
// block of 32 threads, the linear index guarded and delinearised.
// MAP-LABEL: func.func @main
// MAP: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %[[ONE:.*]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}) in (%{{.*}} = %[[T:.*]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// MAP: memref.view %arg2
// MAP: arith.cmpi ult
// MAP: scf.if
// MAP: arith.remui
// MAP: memref.store
// MAP: gpu.terminator
// MAP-COUNT-3: gpu.launch blocks
// MAP-NOT: scf.parallel
// MAP: return

// SMALL-COUNT-4: gpu.launch blocks

// BLOCK: strata-gpu-map: block-size 48 is not a multiple of 32 in 32..=1024

// A condition read from a model input is read in the kernel that uses it, with the select
// of the buffer: host code cannot read device memory, and nothing writes an input. One
// parallel launch, no one-thread launch and nothing left on the host.
// IF-LABEL: func.func @main
// IF-NOT: memref.load
// IF: gpu.launch blocks
// IF: %[[C:.*]] = memref.load %arg0[] : memref<i1>
// IF: arith.select %[[C]]
// IF: memref.store
// IF: gpu.terminator
// IF-NOT: gpu.launch
// IF: return

// ALLOC: error: 'memref.alloc' op strata-gpu-map: 'memref.alloc' on the host is not supported on the GPU path; every buffer must be planned into the arena (plan-arena) first
func.func @unplanned(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  return
}
