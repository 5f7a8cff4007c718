// `ai.onnx.preview.training::Adam` (`crate::training`): one update step of each of two
// tensors as elementwise ops, the bias-corrected learning rate chosen at run time from the
// update count T (`sg.where` of T > 0), the regularisation before and after. The run matches
// ONNX's reference formulas (numpy, f64). A Momentum of an unknown mode is a clean error, and
// so is an Adam given a Momentum's inputs (one state per tensor instead of two).
// RUN: strata compile %S/inputs/adam.onnx --emit=sg | FileCheck %s
// RUN: strata run %S/inputs/adam.onnx --no-cache --input R=%S/../driver/inputs/adam_R.npy --input T=%S/../driver/inputs/adam_T.npy --input X1=%S/../driver/inputs/adam_X1.npy --input X2=%S/../driver/inputs/adam_X2.npy --input G1=%S/../driver/inputs/adam_G1.npy --input G2=%S/../driver/inputs/adam_G2.npy --input V1=%S/../driver/inputs/adam_V1.npy --input V2=%S/../driver/inputs/adam_V2.npy --input H1=%S/../driver/inputs/adam_H1.npy --input H2=%S/../driver/inputs/adam_H2.npy --expect X1n=%S/../driver/inputs/adam_X1n.npy --expect X2n=%S/../driver/inputs/adam_X2n.npy --expect V1n=%S/../driver/inputs/adam_V1n.npy --expect V2n=%S/../driver/inputs/adam_V2n.npy --expect H1n=%S/../driver/inputs/adam_H1n.npy --expect H2n=%S/../driver/inputs/adam_H2n.npy | FileCheck %s --check-prefix=RUNOUT
// RUN: not strata import %S/inputs/invalid_momentum.onnx 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not strata import %S/inputs/invalid_adam_inputs.onnx 2>&1 | FileCheck %s --check-prefix=COUNT

// CHECK: func.func @main(%arg0: tensor<f32>, %arg1: tensor<i64>
// CHECK: %[[T:.*]] = "sg.cast"(%arg1) : (tensor<i64>) -> tensor<f32>
// CHECK: %[[STARTED:.*]] = "sg.greater"(%[[T]], %{{.*}}) : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK: "sg.pow"(%{{.*}}, %[[T]])
// CHECK: "sg.where"(%[[STARTED]], %{{.*}}, %arg0) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: "sg.sqrt"

// RUNOUT-COUNT-6: 0 of {{[23]}} elements outside

// MODE: error: {{.*}}invalid_momentum.onnx: node #0 'momentum' (Momentum): Momentum's mode must be "standard" or "nesterov", got "heavy-ball"
// COUNT: error: {{.*}}invalid_adam_inputs.onnx: node #0 'adam_short' (Adam): Adam takes R, T and 4 inputs per tensor (X, G, V and H, the tensors' X first, then their G, ...) and gives 3 outputs per tensor; it has 5 inputs and 2 outputs
