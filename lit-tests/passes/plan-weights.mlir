// plan-weights: the constant globals a function reads move into one weights blob argument at
// static offsets (each global keeps its value and records its offset for the code generator).
// RUN: strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(plan-weights)' | FileCheck %s --check-prefix=WEIGHTS
// RUN: strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(plan-weights{alignment=128})' | FileCheck %s --check-prefix=ALIGN
// RUN: strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(plan-weights{splats=false})' | FileCheck %s --check-prefix=NOSPLAT
// RUN: strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(plan-weights{min-bytes=64})' | FileCheck %s --check-prefix=MIN
// RUN: not strata-opt %S/inputs/gpu-planned.mlir -p 'builtin.module(plan-weights{alignment=3})' 2>&1 | FileCheck %s --check-prefix=BAD

// The weights blob: 256 bytes of @weight, then @bias at 256, padded to 320.
// WEIGHTS: module attributes {strata.weights_alignment = 64 : i64, strata.weights_bytes = 320 : i64}
// WEIGHTS: @bias {{.*}}strata.weights_offset = 256 : i64
// WEIGHTS: @weight {{.*}}strata.weights_offset = 0 : i64
// The blob argument promises LLVM what it may assume: read-only, no overlap, aligned, whole.
// WEIGHTS: func.func @main(%arg0: memref<4x8xf32>, %arg1: memref<8x4xf32>, %arg2: memref<256xi8>, %arg3: memref<320xi8> {llvm.align = 64 : i64, llvm.dereferenceable = 320 : i64, llvm.noalias, llvm.readonly}) attributes {strata.arena_arg = 2 : i64, strata.weights_arg = 3 : i64}
// WEIGHTS-DAG: memref.view %arg3[{{.*}} : memref<320xi8> to memref<8x8xf32>
// WEIGHTS-DAG: memref.view %arg3[{{.*}} : memref<320xi8> to memref<8xf32>
// WEIGHTS-NOT: memref.get_global

// ALIGN: strata.weights_alignment = 128 : i64, strata.weights_bytes = 384 : i64
// ALIGN: @bias {{.*}}strata.weights_offset = 256 : i64

// Without splats, the splat @weight stays a global (the host keeps it for LLVM to fold); @bias
// alone is the blob.
// NOSPLAT: strata.weights_bytes = 64 : i64
// NOSPLAT: @bias {{.*}}strata.weights_offset = 0 : i64
// NOSPLAT-NOT: @weight {{.*}}strata.weights_offset
// NOSPLAT: memref.get_global @weight : memref<8x8xf32>
// NOSPLAT: memref.view %arg3

// With a 64-byte minimum, the 32-byte @bias stays a global.
// MIN: strata.weights_bytes = 256 : i64
// MIN-NOT: @bias {{.*}}strata.weights_offset
// MIN: @weight {{.*}}strata.weights_offset = 0 : i64
// MIN: memref.get_global @bias : memref<8xf32>

// BAD: plan-weights: alignment 3 is not a positive power of two
