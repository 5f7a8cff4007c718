// IR printing around passes goes to standard error.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-compose-transposes))' --mlir-print-ir-before-all 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=BEFORE
// RUN: not strata-opt %s -p 'builtin.module(canonicalize,one-shot-bufferize)' --mlir-print-ir-after-failure 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=FAILURE

// BEFORE: // -----// IR Dump Before sg-compose-transposes //----- //
// BEFORE-NEXT: module {
// BEFORE: "sg.transpose"

// FAILURE-NOT: IR Dump After canonicalize
// FAILURE: // -----// IR Dump After one-shot-bufferize Failed //----- //
// FAILURE-NEXT: module {
// FAILURE: error: op was not bufferized
// FAILURE: error: pass 'one-shot-bufferize' failed
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
