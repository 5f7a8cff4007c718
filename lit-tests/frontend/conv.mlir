// ONNX Conv (bias, pads, strides, group/depthwise, auto_pad SAME_UPPER), Relu, broadcasting
// Add and Exp import to sg; weights are dense_resource blobs; the output re-parses; every
// op is located at its ONNX node.
// RUN: strata import %S/inputs/conv_relu.onnx | FileCheck %s
// RUN: strata import %S/inputs/conv_relu.onnx | strata-opt | FileCheck %s
// RUN: strata import %S/inputs/conv_relu.onnx --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<b_{{[0-9]+}}> : tensor<4xf32>
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<w_{{[0-9]+}}> : tensor<4x3x3x3xf32>
// CHECK: %[[C:.*]] = "sg.conv2d"(%[[X]], %[[W]], %[[B]]) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[R:.*]] = "sg.relu"(%[[C]])
// CHECK: %[[DW:.*]] = arith.constant dense_resource<dw_{{[0-9]+}}> : tensor<4x1x3x3xf32>
// CHECK: %[[D:.*]] = "sg.conv2d"(%[[R]], %[[DW]]) {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK: %[[S:.*]] = arith.constant dense_resource<shift_{{[0-9]+}}> : tensor<1x4x1x1xf32>
// CHECK: %[[A:.*]] = "sg.add"(%[[D]], %[[S]]) : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[E:.*]] = "sg.exp"(%[[A]])
// CHECK: return %[[E]]
// CHECK: dialect_resources: {
// CHECK: w_{{[0-9]+}}: "0x08000000

// LOC: #[[CONV_AT:loc[0-9]*]] = loc("{{.*}}conv_relu.onnx":0:0)
// LOC: "sg.conv2d"{{.*}} loc(#[[CONV:loc[0-9]+]])
// LOC: "sg.relu"{{.*}} loc(#[[RELU:loc[0-9]+]])
// LOC-DAG: #[[RELU_AT:loc[0-9]+]] = loc("{{.*}}conv_relu.onnx":1:0)
// LOC-DAG: #[[CONV]] = loc("conv0"(#[[CONV_AT]]))
// LOC-DAG: #[[RELU]] = loc("relu0"(#[[RELU_AT]]))
