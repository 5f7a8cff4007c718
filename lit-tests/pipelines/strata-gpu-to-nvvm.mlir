// strata-gpu-to-nvvm on a planned module: after outlining and NVVM lowering every kernel takes
// only base pointers (arena, weights, inputs, outputs) and addresses its buffers at constant
// offsets from them.
// RUN: strata-opt %S/../passes/inputs/gpu-planned.mlir -p 'builtin.module(strata-gpu-to-nvvm)' | FileCheck %s --check-prefix=NVVM

// NVVM: gpu.launch_func @main_kernel::@main_kernel blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%[[T:.*]], %[[ONE]], %[[ONE]]) args(%arg2 : memref<256xi8>)
// NVVM: gpu.launch_func @main_kernel_0::@main_kernel {{.*}} args(%arg3 : memref<320xi8>, %arg2 : memref<256xi8>, %arg0 : memref<4x8xf32>)
// NVVM: gpu.launch_func @main_kernel_1::@main_kernel {{.*}} args(%arg2 : memref<256xi8>, %arg3 : memref<320xi8>)
// NVVM: gpu.launch_func @main_kernel_2::@main_kernel {{.*}} args(%arg2 : memref<256xi8>, %arg1 : memref<8x4xf32>)
// The fused bias+ReLU kernel: bias at weights + 256, the result at arena + 128.
// NVVM-LABEL: gpu.module @main_kernel_1
// NVVM: llvm.func @main_kernel(%[[ARENA:.*]]: !llvm.ptr, %[[WEIGHTS:.*]]: !llvm.ptr) attributes {gpu.kernel
// NVVM-DAG: llvm.getelementptr %[[WEIGHTS]][256] : (!llvm.ptr) -> !llvm.ptr, i8
// NVVM-DAG: llvm.getelementptr %[[ARENA]][128] : (!llvm.ptr) -> !llvm.ptr, i8
// NVVM: llvm.intr.maximum
// The view read: the transposed arena buffer at arena + 128, strides (1, 8).
// NVVM-LABEL: gpu.module @main_kernel_2
// NVVM: llvm.func @main_kernel(%[[A2:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
// NVVM: llvm.getelementptr %[[A2]][128] : (!llvm.ptr) -> !llvm.ptr, i8
