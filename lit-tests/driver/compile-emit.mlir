// `strata compile --emit` stops at every stage of the pipeline; `strata run` executes the
// model and checks it against ONNX Runtime's output for the same input (made once by
// ONNX Runtime 1.32 and checked in).
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=sg | FileCheck --check-prefix=SG %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=sg-opt | FileCheck --check-prefix=SG %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=linalg | FileCheck --check-prefix=LINALG %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=memref | FileCheck --check-prefix=MEMREF %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=llvm-dialect | FileCheck --check-prefix=LLVMDIALECT %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=llvm-ir | FileCheck --check-prefix=LLVMIR %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=asm | FileCheck --check-prefix=ASM %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=obj -o %t.o && llvm-nm %t.o | FileCheck --check-prefix=OBJ %s
// RUN: strata run %S/../frontend/inputs/conv_relu.onnx --input x=%S/inputs/conv_relu_x.npy --expect y=%S/inputs/conv_relu_y_ort.npy --output-dir %t.out | FileCheck --check-prefix=EXEC %s
// RUN: not strata run %S/../frontend/inputs/conv_relu.onnx 2>&1 | FileCheck --check-prefix=MISSING %s

// SG: func.func @main(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> attributes {strata.input_names = ["x"], strata.output_names = ["y"]}
// SG: "sg.conv2d"

// LINALG: linalg.conv_2d_nchw_fchw
// LINALG: linalg.depthwise_conv_2d_nchw_chw
// LINALG-NOT: sg.

// The plan: one arena argument, every intermediate a view at a constant offset.
// MEMREF: func.func @main(%arg0: memref<1x3x8x8xf32>, %arg1: memref<1x4x4x4xf32>, %arg2: memref<1200xi8>)
// MEMREF-SAME: strata.arena_bytes = 1200
// MEMREF: memref.view %arg2
// MEMREF-NOT: memref.alloc

// LLVMDIALECT: llvm.func internal @strata_conv_relu_main(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)
// LLVMDIALECT: llvm.func @strata_conv_relu_run(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr)

// LLVMIR: define void @strata_conv_relu_run(ptr {{.*}}%0, ptr {{.*}}%1, ptr {{.*}}%2, ptr {{.*}}%3)
// LLVMIR-NOT: @strata_conv_relu_main

// ASM: strata_conv_relu_run:

// OBJ: T strata_conv_relu_run

// EXEC: output 'y': float32 [1, 4, 4, 4]
// EXEC: arena: 1200 B, alignment 64 (lower bound 1200 B)
// EXEC: expect 'y': 0 of 64 elements outside atol {{.*}}; max |error|

// MISSING: error: input 'x' (float32 [1, 3, 8, 8]) is missing: pass --input x=FILE.npy
