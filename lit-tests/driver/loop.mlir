// Loops. A Loop whose carried values keep their shapes is one loop body: scf.for to its trip
// count (a constant, or a run-time input) when its condition stays true, scan outputs
// inserted into a carried tensor; scf.while when the body computes the condition. A Loop
// whose carried value grows is unrolled at import. Scan is scf.for over its scan axis
// (here axis 1, input and output reversed). Each carried value is written back into its own
// buffer, and the body's buffers are planned once, in the arena: no allocation in the loop.
// Exact against NumPy (lit-tests/frontend/inputs/make_fixtures.py, checked against ONNX
// Runtime). A scan output of a run-time trip count is an error that names it.
// RUN: strata run %S/../frontend/inputs/loop.onnx --input x=%S/inputs/loop_x.npy --expect acc_final=%S/inputs/loop_acc_final.npy --expect scans=%S/inputs/loop_scans.npy --expect up=%S/inputs/loop_up.npy --expect down=%S/inputs/loop_down.npy --atol 0 --rtol 0 | FileCheck %s
// RUN: strata import %S/../frontend/inputs/loop.onnx | FileCheck --check-prefix=IMPORT %s
// RUN: strata run %S/../frontend/inputs/loop_for.onnx --input x=%S/inputs/loop_x.npy --input trips=%S/inputs/loop_trips.npy --expect acc_final=%S/inputs/loop_for_acc.npy --atol 0 --rtol 0 | FileCheck --check-prefix=NUMBERS %s
// RUN: strata import %S/../frontend/inputs/loop_for.onnx | FileCheck --check-prefix=FOR %s
// RUN: strata run %S/../frontend/inputs/loop_while.onnx --input x=%S/inputs/loop_while_x.npy --input limit=%S/inputs/loop_limit.npy --expect acc_final=%S/inputs/loop_while_acc.npy --atol 0 --rtol 0 | FileCheck --check-prefix=NUMBERS %s
// RUN: strata compile %S/../frontend/inputs/loop_while.onnx --emit memref 2>/dev/null | FileCheck --check-prefix=WHILE %s
// RUN: strata run %S/../frontend/inputs/loop_grow.onnx --input x=%S/inputs/loop_x.npy --expect acc_final=%S/inputs/loop_grow_acc.npy --atol 0 --rtol 0 | FileCheck --check-prefix=NUMBERS %s
// RUN: strata import %S/../frontend/inputs/loop_grow.onnx | FileCheck --check-prefix=GROW %s
// RUN: strata run %S/../frontend/inputs/scan.onnx --input init=%S/inputs/scan_init.npy --input seq=%S/inputs/scan_seq.npy --expect total=%S/inputs/scan_total.npy --expect weighed=%S/inputs/scan_weighed.npy --atol 0 --rtol 0 | FileCheck --check-prefix=NUMBERS %s
// RUN: strata compile %S/../frontend/inputs/scan.onnx --emit memref 2>/dev/null | FileCheck --check-prefix=SCAN %s
// RUN: not strata import %S/../frontend/inputs/loop_runtime.onnx 2>&1 | FileCheck --check-prefix=RUNTIME %s

// CHECK: expect 'acc_final': 0 of 2 elements outside
// CHECK: expect 'scans': 0 of 6 elements outside
// CHECK: expect 'up': 0 of 2 elements outside
// CHECK: expect 'down': 0 of 2 elements outside

// The body once: the iteration number from the index, the outer input read directly, the
// carried sum written back into its buffer, the scan element inserted at the iteration.
// IMPORT: %[[EMPTY:.*]] = tensor.empty() : tensor<3x2xf32>
// IMPORT: %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %c0 to %c3 step %c1 iter_args(%[[ACC:.*]] = %arg0, %[[SCANS:.*]] = %[[EMPTY]])
// IMPORT:   arith.index_cast %[[I]] : index to i64
// IMPORT:   %[[SUM:.*]] = "sg.add"(%[[ACC]], %arg0)
// IMPORT:   %[[SCALED:.*]] = "sg.mul"(%[[ACC]],
// IMPORT:   %[[BACK:.*]] = bufferization.materialize_in_destination %[[SUM]] in %[[ACC]]
// IMPORT:   %[[INS:.*]] = tensor.insert_slice %[[SCALED]] into %[[SCANS]][%[[I]], 0] [1, 2] [1, 1]
// IMPORT:   scf.yield %[[BACK]], %[[INS]]
// IMPORT: "sg.ceil"(%arg0)
// IMPORT: return %[[LOOP]]#0, %[[LOOP]]#1

// NUMBERS: 0 of {{[0-9]+}} elements outside

// FOR: %[[N:.*]] = tensor.extract %arg0[] : tensor<i64>
// FOR: %[[UB:.*]] = arith.index_cast %[[N]] : i64 to index
// FOR: scf.for %{{.*}} = %c0 to %[[UB]] step %c1 iter_args(

// The condition is carried as an i1; the doubled value stays in one arena buffer.
// WHILE: scf.while (%{{.*}} = %c0, %{{.*}} = %true) : (index, i1) -> index {
// WHILE-NOT: memref.alloc
// WHILE: memref.load {{.*}} : memref<i1>
// WHILE: scf.yield

// GROW-NOT: scf.for
// GROW: "sg.concat"(%arg0, %arg0) {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
// GROW: -> tensor<16xf32>

// The state is updated in place in its out-param (the loop's final state is the result
// `total`: strata-results-in-place); the scan element is written straight into the reversed
// column of the stacked output. No arena at all.
// SCAN-NOT: strata.arena_bytes
// SCAN: %[[INIT:.*]] = vector.load %arg0[%c0] : memref<3xf32>, vector<3xf32>
// SCAN: vector.store %[[INIT]], %arg2[%c0] : memref<3xf32>, vector<3xf32>
// SCAN: scf.for
// SCAN-NOT: memref.alloc
// SCAN: %[[AT:.*]] = arith.subi %c3, %{{.*}} : index
// SCAN: memref.subview %arg1[0, %[[AT]]] [3, 1] [1, 1]
// SCAN: outs(%arg2 : memref<3xf32>)
// SCAN: outs(%{{.*}} : memref<3xf32, strided<[4], offset: ?>>)

// RUNTIME: node #0 'unrolled' (Loop): unsupported: scan output 'scan' of a Loop whose trip count is computed at run time has a run-time length (freeze the inputs the trip count depends on with --freeze-input)
