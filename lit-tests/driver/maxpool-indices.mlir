// MaxPool's Indices output: the flat input index of each window's first maximum (ties are
// common: the inputs are rounded to halves), row major (storage_order 0) and column major
// (1, with pads), and 1-D pooling as 2-D over a unit width. References computed in numpy by
// lit-tests/frontend/inputs/make_fixtures.py.
// RUN: strata import %S/../frontend/inputs/maxpool_indices.onnx | FileCheck --check-prefix=IMPORT %s
// RUN: strata run %S/../frontend/inputs/maxpool_indices.onnx --input x=%S/inputs/maxpool_x.npy --input s=%S/inputs/maxpool_s.npy --expect y_cm=%S/inputs/maxpool_y_cm.npy --expect i_cm=%S/inputs/maxpool_i_cm.npy --expect y_rm=%S/inputs/maxpool_y_rm.npy --expect i_rm=%S/inputs/maxpool_i_rm.npy --expect y_1d=%S/inputs/maxpool_y_1d.npy --expect i_1d=%S/inputs/maxpool_i_1d.npy | FileCheck %s

// The pool, and beside it the indices of the same windows, reading the pooled values.
// IMPORT: %[[Y:.*]] = "sg.max_pool"(%arg0) {{.*}}kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>
// IMPORT: "sg.max_pool_indices"(%arg0, %[[Y]]) {{.*}}storage_order = 1 : i64{{.*}} -> tensor<1x2x3x3xi64>
// IMPORT: %[[L:.*]] = "sg.reshape"(%arg1) : (tensor<1x2x7xf32>) -> tensor<1x2x7x1xf32>
// IMPORT: %[[P:.*]] = "sg.max_pool"(%[[L]])
// IMPORT: %[[I:.*]] = "sg.max_pool_indices"(%[[L]], %[[P]]) {{.*}} -> tensor<1x2x4x1xi64>
// IMPORT: "sg.reshape"(%[[I]]) : (tensor<1x2x4x1xi64>) -> tensor<1x2x4xi64>

// CHECK: expect 'y_cm': 0 of 18 elements outside
// CHECK: expect 'i_cm': 0 of 18 elements outside
// CHECK: expect 'y_rm': 0 of 32 elements outside
// CHECK: expect 'i_rm': 0 of 32 elements outside
// CHECK: expect 'y_1d': 0 of 8 elements outside
// CHECK: expect 'i_1d': 0 of 8 elements outside
