// `strata compile --emit` stops at every stage of the pipeline; `strata run` executes the
// model and checks it against ONNX Runtime's output for the same input (made once by
// ONNX Runtime 1.32 and checked in).
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=sg | FileCheck --check-prefix=SG %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=sg-opt | FileCheck --check-prefix=SG %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=linalg | FileCheck --check-prefix=LINALG %s
// The optimised graph is still sg (a fused program is an `sg.fused`), and strata-opt
// re-parses and verifies it.
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=sg-opt | strata-opt | FileCheck --check-prefix=SGOPT %s
// The GPU's graph stage does not depend on the machine that compiles: told target=nvptx, the
// optimiser gives no kernel an epilogue whatever the vector lanes (on the host, 8 lanes give
// conv_relu's 4-filter 3x3 convolution its ReLU as an epilogue in half registers, 16 in quarter
// registers; 32 lanes could not block 4 filters and do not), so AVX2 and AVX-512
// build machines produce the same GPU graph as `strata compile --target=nvptx`.
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=sg -o %t.sg.mlir
// RUN: strata-opt %t.sg.mlir -p 'builtin.module(sg-verify,func.func(sg-compose-transposes,sg-fold-reshapes),canonicalize,func.func(sg-fold-conv-affine,sg-egraph-optimize{target=nvptx vector-lanes=8},sg-sink-to-use))' -o %t.gpu8.mlir
// RUN: strata-opt %t.sg.mlir -p 'builtin.module(sg-verify,func.func(sg-compose-transposes,sg-fold-reshapes),canonicalize,func.func(sg-fold-conv-affine,sg-egraph-optimize{target=nvptx vector-lanes=16},sg-sink-to-use))' -o %t.gpu16.mlir
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --target=nvptx --emit=sg-opt -o %t.gpu.mlir
// RUN: diff %t.gpu8.mlir %t.gpu16.mlir && diff %t.gpu8.mlir %t.gpu.mlir
// RUN: FileCheck --check-prefix=GPUSG %s < %t.gpu.mlir
// RUN: strata-opt %t.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{target=host vector-lanes=8}))' | FileCheck --check-prefix=HOST8 %s
// RUN: strata-opt %t.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{target=host vector-lanes=16}))' | FileCheck --check-prefix=HOST8 %s
// RUN: strata-opt %t.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{target=host vector-lanes=32}))' | FileCheck --check-prefix=HOST32 %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=memref | FileCheck --check-prefix=MEMREF %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=llvm-dialect | FileCheck --check-prefix=LLVMDIALECT %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=llvm-ir | FileCheck --check-prefix=LLVMIR %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=asm | FileCheck --check-prefix=ASM %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --emit=obj -o %t.o && llvm-nm %t.o | FileCheck --check-prefix=OBJ %s
// RUN: strata run %S/../frontend/inputs/conv_relu.onnx --input x=%S/inputs/conv_relu_x.npy --expect y=%S/inputs/conv_relu_y_ort.npy --output-dir %t.out | FileCheck --check-prefix=EXEC %s
// RUN: not strata run %S/../frontend/inputs/conv_relu.onnx 2>&1 | FileCheck --check-prefix=MISSING %s
// Contradictions and unwritable outputs are refused before anything compiles.
// RUN: not strata run %S/../frontend/inputs/conv_relu.onnx --input x=%S/inputs/conv_relu_x.npy --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck --check-prefix=TWICE %s
// RUN: not strata run %S/../frontend/inputs/conv_relu.onnx --input x=%S/inputs/conv_relu_x.npy --expect y=%S/inputs/conv_relu_y_ort.npy --expect y=%S/inputs/conv_relu_y_ort.npy 2>&1 | FileCheck --check-prefix=EXPECTTWICE %s
// RUN: not strata compile %S/../frontend/inputs/conv_relu.onnx --emit=sg --input-shape x=1x3x8x8 --input-shape x=1x3x8x8 2>&1 | FileCheck --check-prefix=SHAPETWICE %s
// RUN: not strata compile %S/../frontend/inputs/conv_relu.onnx --emit=so -o %t.no-such-dir/libm.so 2>&1 | FileCheck --check-prefix=NODIR %s
// No C compiler driver to assemble the weights (and link), or one that fails: a clear error.
// RUN: not env CC=%t.no-such-cc strata compile %S/../frontend/inputs/conv_relu.onnx --emit=so -o %t.nocc.so 2>&1 | FileCheck --check-prefix=NOCC %s
// RUN: not env CC=false strata compile %S/../frontend/inputs/conv_relu.onnx --emit=so -o %t.ccfails.so 2>&1 | FileCheck --check-prefix=CCFAILS %s

// SG: func.func @main(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32> attributes {strata.input_names = ["x"], strata.output_names = ["y"]}
// SG: "sg.conv2d"

// SGOPT: "sg.conv2d"
// SGOPT: "sg.fused"
// SGOPT-NOT: linalg.

// GPUSG: "sg.fused"(%0) {in_place = 1 : i64, program = "relu(i0)"}
// GPUSG-NOT: epilogue
// HOST8: "sg.fused"(%0) {epilogue = 1 : i64, program = "relu(i0)"}
// HOST32: "sg.fused"(%0) {in_place = 1 : i64, program = "relu(i0)"}

// LINALG: linalg.conv_2d_nchw_fchw
// LINALG: linalg.depthwise_conv_2d_nchw_chw
// LINALG-NOT: sg.

// The plan: one arena argument, every intermediate a view at a constant offset.
// The arena's size depends on the host's vector registers (the convolution's blocking):
// captured, then checked to be the same everywhere.
// MEMREF: func.func @main(%arg0: memref<1x3x8x8xf32>, %arg1: memref<1x4x4x4xf32>, %arg2: memref<[[ARENA:[0-9]+]]xi8>)
// MEMREF-SAME: strata.arena_bytes = [[ARENA]]
// MEMREF: memref.view %arg2
// MEMREF-NOT: memref.alloc

// The weights leave the code (plan-weights, issue #19): the 576-byte filter is in the blob,
// the last argument of the model function; constants under 64 bytes (the 16-byte biases) and
// splats stay globals for LLVM to fold.
// LLVMDIALECT: module attributes {strata.weights_alignment = 64 : i64, strata.weights_bytes = 640 : i64}
// LLVMDIALECT-NOT: dense_resource<{{.*}}> : tensor<4x3x3x3xf32>
// LLVMDIALECT: llvm.func internal @strata_conv_relu_main(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr {llvm.align = 64 : i64, llvm.dereferenceable = 640 : i64, llvm.noalias, llvm.readonly})
// LLVMDIALECT: llvm.func @strata_conv_relu_run(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr) -> i32
// LLVMDIALECT: llvm.call @strata_conv_relu_main({{.*}}, %arg1, %arg0)

// An emitted object carries the blob as one exported array of bytes, given them only after
// optimisation, and the entry point reads it when called with null weights.
// LLVMIR: @strata_conv_relu_weights = {{.*}}constant [640 x i8] c"{{.*}}", align 64
// LLVMIR: define {{.*}}i32 @strata_conv_relu_run(ptr {{.*}}%0, ptr {{.*}}%1, ptr {{.*}}%2, ptr {{.*}}%3)
// LLVMIR: icmp eq ptr %0, null
// LLVMIR: select i1 {{.*}}, ptr @strata_conv_relu_weights, ptr %0
// LLVMIR-NOT: @strata_conv_relu_main

// ASM: strata_conv_relu_run:
// ASM: strata_conv_relu_weights:
// ASM-NEXT: .asciz

// OBJ: T strata_conv_relu_run
// OBJ: R strata_conv_relu_weights

// EXEC: output 'y': float32 [1, 4, 4, 4]
// EXEC: arena: [[ARENA:[0-9]+]] B, alignment 64 (lower bound [[ARENA]] B)
// EXEC: expect 'y': 0 of 64 elements outside atol {{.*}}; max |error|

// MISSING: error: input 'x' (float32 [1, 3, 8, 8]) is missing: pass --input x=FILE.npy
// TWICE: error: --input names input 'x' twice
// EXPECTTWICE: error: --expect names output 'y' twice
// SHAPETWICE: error: --input-shape names input 'x' twice
// NODIR: error: cannot write {{.*}}no-such-dir/libm.so: the directory {{.*}}no-such-dir does not exist
// NOCC: error: cannot run the linker `{{.*}}no-such-cc` (set CC to a C compiler driver)
// CCFAILS: error: linking {{.*}}ccfails.so with `false -shared` failed (exit status: 1)
