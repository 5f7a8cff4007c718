// Run-time checks: indices computed at run time outside their dimension (Gather, GatherND)
// and integer division by zero are errors from the entry point (its status), never a clamped
// read or a SIGFPE; `strata run`, `strata-exec` and a C caller all see them. INT_MIN / -1
// wraps (ONNX Runtime traps on it).
// RUN: strata compile %S/../frontend/inputs/checked.onnx --emit=sg | FileCheck %s --check-prefix=SG
// RUN: strata run %S/../frontend/inputs/checked.onnx --no-cache --input table=%S/inputs/checked_table.npy --input ids=%S/inputs/checked_ids.npy --input a=%S/inputs/checked_a.npy --input b=%S/inputs/checked_b.npy --input at=%S/inputs/checked_at.npy --expect rows=%S/inputs/checked_rows.npy --expect q=%S/inputs/checked_q.npy --expect picked=%S/inputs/checked_picked.npy --atol 0 --rtol 0 | FileCheck %s --check-prefix=OK
// RUN: not strata run %S/../frontend/inputs/checked.onnx --input table=%S/inputs/checked_table.npy --input ids=%S/inputs/checked_ids_bad.npy --input a=%S/inputs/checked_a.npy --input b=%S/inputs/checked_b.npy --input at=%S/inputs/checked_at.npy 2>&1 | FileCheck %s --check-prefix=IDS
// RUN: not strata run %S/../frontend/inputs/checked.onnx --input table=%S/inputs/checked_table.npy --input ids=%S/inputs/checked_ids.npy --input a=%S/inputs/checked_a.npy --input b=%S/inputs/checked_b_zero.npy --input at=%S/inputs/checked_at.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not strata run %S/../frontend/inputs/checked.onnx --input table=%S/inputs/checked_table.npy --input ids=%S/inputs/checked_ids.npy --input a=%S/inputs/checked_a.npy --input b=%S/inputs/checked_b.npy --input at=%S/inputs/checked_at_bad.npy 2>&1 | FileCheck %s --check-prefix=TUPLE
// RUN: rm -rf %t && mkdir -p %t && strata compile %S/../frontend/inputs/checked.onnx -o %t/checked.so
// RUN: FileCheck %s --check-prefix=HEADER < %t/checked.h
// RUN: not strata-exec run %t/checked.json --input table=%S/inputs/checked_table.npy --input ids=%S/inputs/checked_ids_bad.npy --input a=%S/inputs/checked_a.npy --input b=%S/inputs/checked_b.npy --input at=%S/inputs/checked_at.npy 2>&1 | FileCheck %s --check-prefix=IDS
// RUN: cc -I %t %S/inputs/call_checked.c %t/checked.so -Wl,-rpath,%t -o %t/call && %t/call | FileCheck %s --check-prefix=C

// The checks are ONNX-level graphs beside the model, and their status is @main's last result.
// SG: func.func @main({{.*}}) -> (tensor<2x3xf32>, tensor<3xi32>, tensor<2xf32>, tensor<i32>)
// SG-SAME: strata.status_checks = ["node #0 'embed' (Gather): an index in 'ids' is outside [-4, 4)", "node #1 'divide' (Div): integer division by zero (divisor 'b')", "node #2 'pick' (GatherND): an index in 'at' is outside the dimensions [4, 3] (each from -n to n-1)"]

// OK: expect 'rows': 0 of 6 elements outside
// OK: expect 'q': 0 of 3 elements outside
// OK: expect 'picked': 0 of 2 elements outside

// IDS: error: the model's run-time check failed: node #0 'embed' (Gather): an index in 'ids' is outside [-4, 4) (status 1; the outputs are not valid)
// ZERO: error: the model's run-time check failed: node #1 'divide' (Div): integer division by zero (divisor 'b') (status 2;
// TUPLE: error: the model's run-time check failed: node #2 'pick' (GatherND): an index in 'at' is outside the dimensions [4, 3] (each from -n to n-1) (status 3;

// HEADER: /* status 1: node #0 'embed' (Gather): an index in 'ids' is outside [-4, 4) */
// HEADER: int strata_checked_run(const uint8_t *weights, uint8_t *arena, const void *const *inputs, void *const *outputs);
// HEADER: extern const char strata_checked_signature[];
// HEADER-NEXT: #define STRATA_CHECKED_SIGNATURE "{\042format\042:1,\042name\042:\042checked\042,\042target\042:\042host\042,\042entry\042:\042strata_checked_run\042,
// HEADER: static inline int strata_checked_check_library(void) {

// C: library matches header: 1
// C-NEXT: out of range: status 1
// C-NEXT: in range: status 0
