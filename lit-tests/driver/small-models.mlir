// A model with little work (under 16 million loop iterations: conv_relu's 3x3 convolution
// is a few thousand) is compiled for one thread whatever --threads asks, and strata says so:
// on two threads the small zoo CNNs ran 0.78-0.92x as fast as on one. `--disable
// small-models` compiles it for the threads asked (the winograd fixture, big enough to split,
// is split either way: lit-tests/driver/conv-winograd.mlir).
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --threads 2 --emit=memref 2>&1 | FileCheck %s
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --threads 1 --emit=memref 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --threads 2 --disable small-models --emit=memref 2>&1 | FileCheck %s --check-prefix=ASKED
// RUN: strata compile %S/../frontend/inputs/conv_winograd.onnx --threads 2 --emit=memref 2>&1 | FileCheck %s --check-prefix=BIG

// CHECK: note: compiled for one thread, not 2: the model does {{[0-9.]+}}M loop iterations, under 16M
// CHECK-SAME: `--disable small-models` compiles for 2 anyway
// CHECK-NOT: scf.forall
// ONE-NOT: note:
// ASKED-NOT: note:
// BIG-NOT: note:
// BIG: scf.forall
