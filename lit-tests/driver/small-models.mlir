// A model with little work in many kernels (under 16 million loop iterations in at least 16
// kernels: dense_block's 21) is compiled for one thread whatever --threads asks, and strata
// says so: on two threads the small zoo CNNs ran 0.78-0.92x as fast as on one. A model of a
// few kernels keeps its threads (conv_relu's 3: no kernel boundaries to lose at), as does a
// big one (the winograd fixture, split: lit-tests/driver/conv-winograd.mlir); `--disable
// small-models` compiles for the threads asked.
// RUN: strata compile %S/../frontend/inputs/dense_block.onnx --threads 2 --emit=memref 2>&1 | FileCheck %s
// RUN: strata compile %S/../frontend/inputs/dense_block.onnx --threads 1 --emit=memref 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: strata compile %S/../frontend/inputs/dense_block.onnx --threads 2 --disable small-models --emit=memref 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --threads 2 --emit=memref 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: strata compile %S/../frontend/inputs/conv_winograd.onnx --threads 2 --emit=memref 2>&1 | FileCheck %s --check-prefix=BIG

// CHECK: note: compiled for one thread, not 2: the model does {{[0-9.]+}}M loop iterations (under 16M) in 21 kernels
// CHECK-SAME: `--disable small-models` compiles for 2 anyway
// CHECK-NOT: scf.forall
// QUIET-NOT: note:
// BIG-NOT: note:
// BIG: scf.forall
