// Index and axis operators: GatherElements, ScatterElements (add, applied in order over a
// repeated index), ArgMax (the last of ties), CumSum (reverse, exclusive), Einsum (the
// ellipsis written out as letters), TopK (sg.top_k's positions, its values a gather of them:
// the stable order of ties, 3.0 at 0 before 3.0 at 2). Each result
// matches NumPy's.
// RUN: strata import %S/inputs/indexing.onnx | FileCheck %s
// RUN: strata run %S/inputs/indexing.onnx --input x=%S/../driver/inputs/indexing_x.npy --expect ge=%S/../driver/inputs/indexing_ge.npy --expect sc=%S/../driver/inputs/indexing_sc.npy --expect am=%S/../driver/inputs/indexing_am.npy --expect cs=%S/../driver/inputs/indexing_cs.npy --expect es=%S/../driver/inputs/indexing_es.npy --expect tv=%S/../driver/inputs/indexing_tv.npy --expect ti=%S/../driver/inputs/indexing_ti.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: "sg.gather_elements"(%arg0, %{{.*}}) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
// CHECK: "sg.scatter_elements"(%arg0, %{{.*}}, %{{.*}}) {axis = 1 : i64, reduction = 1 : i64}
// CHECK: "sg.arg_extreme"(%arg0) {axis = 1 : i64, keepdims = 0 : i64, largest = 1 : i64, select_last_index = 1 : i64}
// CHECK: "sg.cumulative"(%arg0) {axis = 1 : i64, exclusive = 1 : i64, product = 0 : i64, reverse = 1 : i64}
// CHECK: "sg.einsum"(%{{.*}}, %{{.*}}) {equation = "Aij,jk->Aik"}
// CHECK: %[[TOP:.*]] = "sg.top_k"(%arg0) {axis = 1 : i64, k = 2 : i64, largest = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x2xi64>
// CHECK: "sg.gather_elements"(%arg0, %[[TOP]]) {axis = 1 : i64}

// NUMBERS-COUNT-7: expect '{{[a-z]+}}': 0 of
