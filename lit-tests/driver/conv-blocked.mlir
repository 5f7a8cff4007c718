// The host's register-blocked convolutions (strata-cpu-schedule; crates/lower/src/conv_lanes.rs)
// compute what float64 numpy does: a run-time filter (transposed in the kernel) with stride 2,
// dilation 2 and pads; a constant 1x1 filter (transposed at compile time) with bias; a strided
// 1x1 convolution without pads on an odd size. References: lit-tests/frontend/inputs/make_fixtures.py.
// RUN: strata run %S/../frontend/inputs/conv_blocked.onnx --input x=%S/inputs/conv_blocked_x.npy --input w=%S/inputs/conv_blocked_w.npy --expect y1=%S/inputs/conv_blocked_y1.npy --expect y2=%S/inputs/conv_blocked_y2.npy --expect y3=%S/inputs/conv_blocked_y3.npy | FileCheck %s
// RUN: strata compile %S/../frontend/inputs/conv_blocked.onnx --emit=memref | FileCheck --check-prefix=MEMREF %s
// `strata run --profile` times each ONNX node's kernels (still matching the references), writes
// every kernel's row to profile.csv in the output folder (saying which file it could not
// write when the folder is a file), and refuses --device=cuda with a message saying why.
// RUN: rm -rf %t && strata run %S/../frontend/inputs/conv_blocked.onnx --input x=%S/inputs/conv_blocked_x.npy --input w=%S/inputs/conv_blocked_w.npy --expect y1=%S/inputs/conv_blocked_y1.npy --profile --repeat 3 --output-dir %t | FileCheck --check-prefix=PROFILE %s
// RUN: FileCheck --check-prefix=CSV %s < %t/profile.csv
// RUN: rm -rf %t.file && touch %t.file && not strata run %S/../frontend/inputs/conv_blocked.onnx --input x=%S/inputs/conv_blocked_x.npy --input w=%S/inputs/conv_blocked_w.npy --profile --output-dir %t.file 2>&1 | FileCheck --check-prefix=CSV-ERROR %s
// CSV-ERROR: error: cannot write {{.*}}profile.csv:
// RUN: not strata run %S/../frontend/inputs/conv_blocked.onnx --device=cuda --profile 2>&1 | FileCheck --check-prefix=PROFILE-CUDA %s
// A malformed --input or --expect is refused when the command line is read, before the compile.
// RUN: not strata run %S/../frontend/inputs/conv_blocked.onnx --input %S/inputs/conv_blocked_x.npy 2>&1 | FileCheck --check-prefix=INPUT-SPEC %s
// RUN: not strata run %S/../frontend/inputs/conv_blocked.onnx --expect y1= 2>&1 | FileCheck --check-prefix=EXPECT-SPEC %s
// PROFILE: profile: {{[0-9]+}} kernels, {{.*}} ms per run in kernels
// PROFILE-NEXT: ms       %   cum %  kernel (ONNX nodes)  [ops]
// PROFILE-NEXT: {{[0-9.]+ +[0-9.]+% +[0-9.]+%}}
// PROFILE: profile: every kernel in {{.*}}profile.csv
// PROFILE: expect 'y1': 0 of
// CSV: ms_per_run,percent,nodes,ops
// CSV-NEXT: {{[0-9]+\.[0-9]+}},{{[0-9]+\.[0-9]+}},"{{[^"]+}}","{{.*}}"
// PROFILE-CUDA: error: --profile times host code; it does not apply to --device=cuda

// CHECK: expect 'y1': 0 of 576 elements outside
// CHECK: expect 'y2': 0 of 1152 elements outside
// CHECK: expect 'y3': 0 of 288 elements outside

// All three are vectorised: no convolution op is left, and the filter-lane fused multiply-adds
// (the schedule's outer products, lowered) are there.
// MEMREF-NOT: linalg.conv_2d
// MEMREF: vector.fma {{.*}} : vector<

// INPUT-SPEC: error: invalid value '{{.*}}conv_blocked_x.npy' for '--input <NAME=FILE.npy>': expected NAME=FILE.npy (like input=x.npy)
// INPUT-SPEC-NOT: compile:
// EXPECT-SPEC: error: invalid value 'y1=' for '--expect <NAME=FILE.npy>': expected NAME=FILE.npy
