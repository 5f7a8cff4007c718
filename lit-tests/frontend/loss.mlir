// SoftmaxCrossEntropyLoss imports as LogSoftmax then the negative log-likelihood subgraph:
// each target's log-probability gathered along the class axis, ignored positions zeroed and
// weighing nothing, per-class weights gathered by target, the mean taken over the weights.
// The loss and the log-probabilities output match NumPy's.
// RUN: strata import %S/inputs/loss.onnx | FileCheck %s
// RUN: strata run %S/inputs/loss.onnx --input x=%S/../driver/inputs/loss_x.npy --input t=%S/../driver/inputs/loss_t.npy --expect loss=%S/../driver/inputs/loss_loss.npy --expect lp=%S/../driver/inputs/loss_lp.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: %[[LP:.*]] = "sg.log_softmax"(%arg0) {axis = 1 : i64}
// CHECK: %[[IGNORED:.*]] = "sg.equal"(%arg1,
// CHECK: "sg.gather_elements"(%[[LP]], %{{.*}}) {axis = 1 : i64}
// CHECK: "sg.neg"
// CHECK: "sg.gather"(%{{.*}}, %{{.*}}) {axis = 0 : i64}
// CHECK: "sg.reduce_sum"
// CHECK: "sg.reduce_sum"
// CHECK: "sg.div"

// NUMBERS: expect 'loss': 0 of 1 elements outside
// NUMBERS: expect 'lp': 0 of 24 elements outside
