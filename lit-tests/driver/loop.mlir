// A Loop with a constant trip count, unrolled at import: each iteration's body under its own
// names, the outer-scope input read directly, the iteration number a constant, the scan
// output stacked (reshape to a leading unit axis, concat); Ceil and Floor at run time. Exact
// against the numpy expectation (lit-tests/frontend/inputs/make_fixtures.py). A run-time trip
// count is an error that names it and says what to do.
// RUN: strata run %S/../frontend/inputs/loop.onnx --input x=%S/inputs/loop_x.npy --expect acc_final=%S/inputs/loop_acc_final.npy --expect scans=%S/inputs/loop_scans.npy --expect up=%S/inputs/loop_up.npy --expect down=%S/inputs/loop_down.npy --atol 0 --rtol 0 | FileCheck %s
// RUN: strata import %S/../frontend/inputs/loop.onnx | FileCheck --check-prefix=IMPORT %s
// RUN: not strata import %S/../frontend/inputs/loop_runtime.onnx 2>&1 | FileCheck --check-prefix=RUNTIME %s

// CHECK: expect 'acc_final': 0 of 2 elements outside
// CHECK: expect 'scans': 0 of 6 elements outside
// CHECK: expect 'up': 0 of 2 elements outside
// CHECK: expect 'down': 0 of 2 elements outside

// Iteration 0: acc + x, and acc * 0; iteration 1 reads iteration 0's sum.
// IMPORT: %[[A0:.*]] = "sg.add"(%arg0, %arg0)
// IMPORT: %[[S0:.*]] = "sg.mul"(%arg0, %{{.*}})
// IMPORT: %[[A1:.*]] = "sg.add"(%[[A0]], %arg0)
// IMPORT: %[[S1:.*]] = "sg.mul"(%[[A0]], %{{.*}})
// IMPORT: %[[A2:.*]] = "sg.add"(%[[A1]], %arg0)
// IMPORT: %[[S2:.*]] = "sg.mul"(%[[A1]], %{{.*}})
// IMPORT: "sg.reshape"(%[[S0]]) : (tensor<2xf32>) -> tensor<1x2xf32>
// IMPORT: %[[STACK:.*]] = "sg.concat"({{.*}}) {axis = 0 : i64} : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
// IMPORT: "sg.ceil"(%arg0)
// IMPORT: "sg.floor"(%arg0)
// IMPORT: return %[[A2]], %[[STACK]]

// RUNTIME: node #0 'unrolled' (Loop): unsupported: the trip count 'trips' is computed at run time (a Loop is unrolled at import: freeze the inputs it depends on with --freeze-input)
