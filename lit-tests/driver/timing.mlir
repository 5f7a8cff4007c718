// --mlir-timing prints a wall-time tree: parser, passes nested like the pipeline, output.
// RUN: strata-opt %s -p 'builtin.module(func.func(cse,sg-compose-transposes),canonicalize)' --mlir-timing 2>&1 >/dev/null \
// RUN:   | FileCheck %s

// CHECK: ... Execution time report ...
// CHECK: Total Execution Time: {{[0-9.]+}} seconds
// CHECK: ----Wall Time----  ----Name----
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Parser
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  'func.func' Pipeline
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    cse
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)    sg-compose-transposes
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  canonicalize
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Output
// CHECK-NEXT: {{[0-9.]+}} (100.0%)  Total
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "sg.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// `strata compile --timing` prints each stage's tree, named after the stage, on standard error.
// RUN: strata compile %S/../frontend/inputs/two_outputs.onnx --emit=llvm-dialect --timing 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=STAGES
// STAGES: timing: sg-opt
// STAGES: sg-egraph-optimize
// STAGES: {{[0-9.]+}} (100.0%)  Total
// STAGES: timing: lower
// STAGES: sg-to-linalg
// STAGES: timing: bufferize+plan
// STAGES: strata-bufferize-and-plan
// STAGES: timing: weights
// STAGES: timing: to-llvm
// STAGES: strata-outline-kernels
// STAGES: {{[0-9.]+}} (100.0%)  Total
