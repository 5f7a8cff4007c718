// --list-passes lists Strata's passes and named pipelines with their summaries and options,
// then every upstream MLIR pass.
// RUN: strata-opt --list-passes | FileCheck %s

// CHECK: Strata passes:
// CHECK: --strata-bufferize{{ +}}- Bufferize linalg-on-tensors{{.*}}[pipeline]
// CHECK: --strata-lower-to-llvm{{ +}}- Lower linalg{{.*}}[pipeline]
// CHECK: --sg-verify{{ +}}- Check sg shape relations and attribute ranges that IRDL cannot express [on any]
// CHECK: --sg-compose-transposes{{ +}}- Compose chains of sg.transpose and drop identity transposes [on func.func]
// CHECK: Upstream MLIR passes:
// CHECK: --canonicalize
// CHECK: --convert-linalg-to-loops
// CHECK: --one-shot-bufferize
