// If: a condition that folds (here from a frozen sample rate, through Equal and Greater on
// constants) imports only the taken branch, nested Ifs too; a condition computed at run time
// becomes scf.if with each branch in its region. The compiled model takes either branch. The
// e-graph optimises the function around the scf.if (an opaque kernel reading the values its
// branches read): the ReLU becomes a fused kernel, and the branch reads its result.
// RUN: strata import %S/inputs/if.onnx --freeze-input rate=%S/inputs/if_rate.pb | FileCheck %s
// RUN: strata run %S/inputs/if.onnx --freeze-input rate=%S/inputs/if_rate.pb --input x=%S/../driver/inputs/if_x.npy --input flag=%S/../driver/inputs/if_flag_true.npy --expect z=%S/../driver/inputs/if_z_true.npy 2>&1 | FileCheck %s --check-prefix=TAKEN
// RUN: strata run %S/inputs/if.onnx --freeze-input rate=%S/inputs/if_rate.pb --input x=%S/../driver/inputs/if_x.npy --input flag=%S/../driver/inputs/if_flag_false.npy --expect z=%S/../driver/inputs/if_z_false.npy 2>&1 | FileCheck %s --check-prefix=TAKEN
// RUN: strata import %S/inputs/if.onnx | FileCheck %s --check-prefix=UNFROZEN
// RUN: strata compile %S/inputs/if.onnx --freeze-input rate=%S/inputs/if_rate.pb --emit=sg-opt | FileCheck %s --check-prefix=OPT
// The in-order reference of `strata plan` runs a taken branch's nodes one by one: x @ w1 (32
// bytes), Relu over it in place, @ w2 (16 bytes; the If's result), then the graph output. Not
// the If as one node with only its result (16 bytes).
// RUN: strata plan %S/inputs/if_plan.onnx --freeze-input rate=%S/inputs/if_rate.pb | FileCheck %s --check-prefix=PLAN

// CHECK: func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<i1>)
// CHECK-NOT: sg.equal
// CHECK-NOT: sg.neg
// CHECK-NOT: sg.exp
// CHECK: %[[RELU:.*]] = "sg.relu"(%arg0)
// CHECK: %[[FLAG:.*]] = tensor.extract %arg1[] : tensor<i1>
// CHECK: scf.if %[[FLAG]] -> (tensor<2x3xf32>) {
// CHECK:   "sg.add"(%arg0, %[[RELU]])
// CHECK: } else {
// CHECK:   "sg.mul"(%arg0,
// CHECK: }

// TAKEN-NOT: warning
// TAKEN: expect 'z': 0 of 6 elements outside

// The branches are optimised like the top level (sg-outline-branches): fused programs, the
// constant's broadcast a view.
// OPT: %[[RELU:.*]] = "sg.fused"(%arg0) {program = "relu(i0)"}
// OPT: %[[FLAG:.*]] = tensor.extract %arg1[] : tensor<i1>
// OPT: scf.if %[[FLAG]] -> (tensor<2x3xf32>) {
// OPT:   "sg.fused"(%arg0, %[[RELU]]) {program = "add(i0,i1)"}
// OPT: } else {
// OPT:   %[[TWO:.*]] = "sg.view"
// OPT:   "sg.fused"(%arg0, %[[TWO]]) {program = "mul(i0,i1)"}
// OPT-NOT: "sg.relu"
// OPT-NOT: func.call

// Without the frozen rate, the rate is an input and the nested Ifs are scf.ifs too.
// UNFROZEN: func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<i64>, %arg2: tensor<i1>)
// UNFROZEN: scf.if
// UNFROZEN: scf.if
// UNFROZEN: "sg.relu"
// UNFROZEN: "sg.neg"
// UNFROZEN: "sg.exp"

// PLAN: the ONNX nodes run one by one in file order (3 activations): naive 80 bytes, plain 64 bytes, with views and in-place writes 48 bytes
