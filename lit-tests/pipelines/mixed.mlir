// A Rust pass between upstream passes in one textual pipeline: each runs in the written
// order, on the op it is nested under, and the IR is verified after each.
// (cse merges the arith ops only: IRDL ops have no traits, so MLIR treats sg ops as having
// side effects and never merges or erases them.)
// RUN: strata-opt %s -p 'builtin.module(func.func(canonicalize,sg-compose-transposes,cse),sg-verify,canonicalize)' \
// RUN:   --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: strata-opt %s -p 'builtin.module(func.func(canonicalize,sg-compose-transposes,cse),sg-verify,canonicalize)' | FileCheck %s

// DUMP: // -----// IR Dump After canonicalize //----- //
// DUMP: "sg.transpose"
// DUMP: "sg.transpose"
// DUMP: // -----// IR Dump After sg-compose-transposes //----- //
// DUMP-NOT: "sg.transpose"
// DUMP: // -----// IR Dump After cse //----- //
// DUMP-COUNT-1: arith.mulf
// DUMP-NOT: arith.mulf
// DUMP: // -----// IR Dump After sg-verify //----- //
// DUMP: // -----// IR Dump After canonicalize //----- //

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[E:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK: "sg.add"(%[[E]], %[[E]])
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "sg.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "sg.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = arith.mulf %1, %1 : tensor<2x3xf32>
  %3 = arith.mulf %x, %x : tensor<2x3xf32>
  %4 = "sg.add"(%2, %3) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}
