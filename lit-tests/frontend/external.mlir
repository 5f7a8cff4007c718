// Weights stored in an external data file (data_location = EXTERNAL) are read relative to
// the model.
// RUN: strata import %S/inputs/external.onnx | FileCheck %s
// Named without a directory, from its own: the current directory.
// RUN: cd %S/inputs && strata import external.onnx | FileCheck %s

// CHECK: %[[W:.*]] = arith.constant dense_resource<w_0> : tensor<64x32xf32>
// CHECK: "sg.matmul"(%{{.*}}, %[[W]]) : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
// CHECK: w_0: "0x08000000{{[0-9A-F]+}}"
