// One value as two graph outputs (`Relu -> y`, `Identity(y) -> z`, both outputs) is a valid
// model: each output is its own out-param, the second a copy of the first
// (`strata-distinct-results`), and both hold the result. It used to crash in upstream
// buffer-results-to-out-params.
// RUN: strata compile %S/../frontend/inputs/two_outputs.onnx --emit=memref | FileCheck %s --check-prefix=MEMREF
// RUN: strata run %S/../frontend/inputs/two_outputs.onnx --no-cache --input x=%S/inputs/two_outputs_x.npy --expect y=%S/inputs/two_outputs_y.npy --expect z=%S/inputs/two_outputs_y.npy --atol 0 --rtol 0 | FileCheck %s --check-prefix=EXEC
// RUN: strata compile %S/../frontend/inputs/two_outputs.onnx -o %t.so
// RUN: strata-exec run %t.json --input x=%S/inputs/two_outputs_x.npy --expect y=%S/inputs/two_outputs_y.npy --expect z=%S/inputs/two_outputs_y.npy --atol 0 --rtol 0 | FileCheck %s --check-prefix=EXEC

// MEMREF: func.func @main(%[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2x3xf32>, %[[Z:.*]]: memref<2x3xf32>
// MEMREF: outs(%[[Y]] : memref<2x3xf32>)
// The copy, one vector of its 6 elements (`strata-vectorize-elementwise` flattens it):
// MEMREF: memref.collapse_shape %[[Y]]
// MEMREF: memref.collapse_shape %[[Z]]
// MEMREF: vector.load {{.*}} vector<6xf32>
// MEMREF: vector.store {{.*}} vector<6xf32>

// EXEC: expect 'y': 0 of 6 elements outside atol 0 + rtol 0
// EXEC: expect 'z': 0 of 6 elements outside atol 0 + rtol 0
