// `strata compile --target=nvptx` writes PTX (LLVM's NVPTX backend through inkwell), a launch
// manifest and the weights blob; `--target=host -o lib.so` a shared object with a C header and
// a manifest that strata-exec runs like `strata run`. The kernels of the layout fixture
// (slice, transpose and reshape as views, a matmul) address every buffer as a base parameter
// plus an immediate offset: no per-buffer pointer parameters. Exp (conv_relu) comes from
// libdevice (`STRATA_LIBDEVICE`, set by the harness to what `cargo xtask` fetched).
// RUN: rm -rf %t && mkdir -p %t
// RUN: strata compile %S/../frontend/inputs/layout.onnx --target=nvptx --chip=sm_90 -o %t/layout.ptx 2>&1 | FileCheck %s --check-prefix=WROTE
// RUN: FileCheck %s --check-prefix=PTX < %t/layout.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/layout.json
// An architecture LLVM does not know is an error, not a warning and a generic chip.
// RUN: not strata compile %S/../frontend/inputs/layout.onnx --target=nvptx --chip=sm_1 -o %t/bad.ptx 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: {{.*}}'sm_1' is not a GPU architecture LLVM's NVPTX backend knows
// CHIP-NOT: not a recognized processor
// RUN: strata compile %S/../frontend/inputs/gemm.onnx --target=nvptx -o %t/gemm.ptx 2>&1 | FileCheck %s --check-prefix=GEMM
// RUN: FileCheck %s --check-prefix=GEMMPTX < %t/gemm.ptx
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx --target=nvptx -o %t/conv_relu.ptx
// RUN: FileCheck %s --check-prefix=CONV < %t/conv_relu.ptx
// RUN: strata compile %S/../frontend/inputs/layout.onnx --target=nvptx --emit=gpu | FileCheck %s --check-prefix=GPU
// RUN: not strata compile %S/../frontend/inputs/layout.onnx --target=nvptx --emit=obj 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: strata compile %S/../frontend/inputs/conv_relu.onnx -o %t/libconv_relu.so 2>&1 | FileCheck %s --check-prefix=SO
// A directory with a newline in its path takes a library like any other (the weights are
// written as an object, not read by an assembler from a quoted path).
// RUN: mkdir -p "%t/new"$'\n'"line" && strata compile %S/../frontend/inputs/conv_relu.onnx -o "%t/new"$'\n'"line/lib.so" 2>&1 | FileCheck %s --check-prefix=NEWLINE
// RUN: test -s "%t/new"$'\n'"line/lib.so" && test -s "%t/new"$'\n'"line/lib.json" && test -s "%t/new"$'\n'"line/lib.h"
// NEWLINE: wrote {{.*}}new
// NEWLINE-NEXT: line/lib.so (manifest
// NEWLINE-NOT: error
// Without libdevice (here: the one named is not there) a model whose kernels call math
// functions cannot be compiled for a GPU (the machine lacks something, which is neither
// the model's fault nor a Strata bug): exit status 69, EX_UNAVAILABLE.
// RUN: STRATA_LIBDEVICE=%t/missing.bc strata compile %S/../frontend/inputs/conv_relu.onnx --target=nvptx -o %t/nolib.ptx > %t/nolib.txt 2>&1; echo "exit $?" >> %t/nolib.txt; FileCheck %s --check-prefix=NOLIB < %t/nolib.txt
// NOLIB: error: the kernels call NVIDIA libdevice math functions (__nv_expf) and libdevice at {{.*}}missing.bc could not be read
// NOLIB-NOT: internal error
// NOLIB: exit 69
// Verifying after every pass and once per stage are one choice.
// RUN: not strata compile %S/../frontend/inputs/conv_relu.onnx --verify-each --no-verify-each -o %t/both.o 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: error: the argument '--verify-each' cannot be used with '--no-verify-each'
// RUN: FileCheck %s --check-prefix=HEADER < %t/conv_relu.h
// RUN: strata-exec run %t/conv_relu.json --input x=%S/inputs/conv_relu_x.npy --expect y=%S/inputs/conv_relu_y_ort.npy --repeat 1 | FileCheck %s --check-prefix=EXEC
// RUN: not strata-exec run %t/layout.json --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=NOGPU
// The library alone runs too (its signature and weights are inside it): copied without its
// manifest and header, and passed where a manifest goes.
// RUN: mkdir -p %t/alone && cp %t/libconv_relu.so %t/alone/renamed.so
// RUN: strata-exec run %t/alone/renamed.so --input x=%S/inputs/conv_relu_x.npy --expect y=%S/inputs/conv_relu_y_ort.npy --repeat 1 | FileCheck %s --check-prefix=EXEC
// A shared object that is no Strata library says so.
// RUN: printf 'int answer(void) { return 42; }\n' > %t/plain.c && cc -shared -fPIC -o %t/libplain.so %t/plain.c
// RUN: not strata-exec run %t/libplain.so --input x=%S/inputs/conv_relu_x.npy 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN: error: {{.*}}libplain.so: not a Strata library: it exports no 'strata_<name>_signature' (write one with `strata compile model.onnx -o lib.so`)

// WROTE: wrote {{.*}}layout.ptx (manifest {{.*}}layout.json, [[N:[0-9]+]] kernels, weights [[W:[0-9]+]] B)

// PTX: .target sm_90
// PTX: .address_size 64
// PTX: .visible .entry main_kernel(
// PTX-NEXT: .param .u64 .ptr .align 1 main_kernel_param_0
// PTX-NOT: main_kernel_param_2
// PTX: ret;
// A kernel reading a buffer of the arena or the weights at a non-zero offset adds it as an
// immediate to a base parameter.
// PTX: .visible .entry main_kernel_{{[0-9]+}}(
// PTX: ld.param.b64 %rd[[BASE:[0-9]+]], [main_kernel_{{[0-9]+}}_param_{{[0-9]}}];
// PTX: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, {{[0-9]+}};

// MANIFEST: "target": "nvptx",
// MANIFEST: "ptx": "layout.ptx",
// MANIFEST: "chip": "sm_90",
// MANIFEST: "weights": "layout.weights.bin",
// MANIFEST: "kernels": [
// MANIFEST: "kernel": "main_kernel",
// MANIFEST: "grid": [
// MANIFEST: "block": [
// MANIFEST: "args": [

// GEMM: wrote {{.*}}gemm.ptx
// GEMMPTX: .target sm_80
// GEMMPTX: .visible .entry main_kernel(

// Convolutions (the window loops inside the thread), the ReLU, and Exp through
// libdevice, inlined: no calls remain, only the hardware's ex2.approx.
// CONV: .target sm_80
// CONV: .visible .entry main_kernel(
// CONV: .param .u64 .ptr .align 1 main_kernel_param_0
// CONV-NOT: call
// CONV: ex2.approx
// CONV-NOT: call

// GPU: gpu.container_module
// GPU: gpu.launch_func @main_kernel::@main_kernel
// GPU: gpu.module @main_kernel
// GPU: llvm.func @main_kernel(%arg0: !llvm.ptr

// STAGE: error: --emit=obj is not a stage of target nvptx (--emit=gpu or ptx)

// SO: wrote {{.*}}libconv_relu.so (manifest {{.*}}conv_relu.json, header {{.*}}conv_relu.h)
// HEADER: #define STRATA_CONV_RELU_ARENA_BYTES ((size_t){{[0-9]+}})
// HEADER: #define STRATA_CONV_RELU_INPUT_0_ELEMENTS ((size_t)192)
// HEADER: int strata_conv_relu_run(const uint8_t *weights, uint8_t *arena, const void *const *inputs, void *const *outputs);

// EXEC: output 'y': float32 [1, 4, 4, 4]
// EXEC: run: {{.*}} ms (wall time, median of 1)
// EXEC: expect 'y': 0 of 64 elements outside

// NOGPU: error: {{.*}}
