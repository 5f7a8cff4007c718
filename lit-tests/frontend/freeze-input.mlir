// --freeze-input fixes an input's value at compile time (a serialized TensorProto): here the
// target shape of a Reshape, which a static-shape compiler cannot take at run time.
// RUN: not strata import %S/inputs/reshape_input.onnx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: strata import %S/inputs/reshape_input.onnx --freeze-input shape=%S/inputs/reshape_shape.pb | FileCheck %s
// RUN: not strata import %S/inputs/reshape_input.onnx --freeze-input nope=%S/inputs/reshape_shape.pb 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata import %S/inputs/reshape_input.onnx --freeze-input shape=%S/inputs/conv_relu.onnx 2>&1 | FileCheck %s --check-prefix=NOT-A-TENSOR

// DYNAMIC: error: {{.*}}node #0 'reshape0' (Reshape): unsupported: 'shape' must be a constant integer tensor (computed shapes are not folded yet)

// CHECK: func.func @main(%[[X:.*]]: tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[Y:.*]] = "sg.reshape"(%[[X]]) : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[Y]]

// UNKNOWN: error: {{.*}}reshape_input.onnx: cannot freeze 'nope': the graph has no input of that name
// NOT-A-TENSOR: error: {{.*}}conv_relu.onnx is not a serialized ONNX TensorProto
