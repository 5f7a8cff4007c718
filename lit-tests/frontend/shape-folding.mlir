// Shape subgraphs are folded at import (every shape is static): Shape -> Gather -> Unsqueeze
// -> Concat -> Reshape leaves one sg.reshape; Slice of a shape -> ConstantOfShape, Range ->
// Cast and Size become constants; no integer shape computation remains.
// RUN: strata import %S/inputs/shape_subgraph.onnx | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>) -> (tensor<2x192xf32>, tensor<2x3x8x8xf32>, tensor<i64>)
// CHECK-NEXT: %[[Y:.*]] = "sg.reshape"(%[[X]]) : (tensor<2x3x8x8xf32>) -> tensor<2x192xf32>
// CHECK-NEXT: %[[ONES:.*]] = arith.constant dense_resource<ones_{{[0-9]+}}> : tensor<8x8xf32>
// CHECK-NEXT: %[[W:.*]] = "sg.add"(%[[X]], %[[ONES]])
// CHECK-NEXT: %[[R:.*]] = arith.constant dense_resource<rf_{{[0-9]+}}> : tensor<8xf32>
// CHECK-NEXT: %[[Z:.*]] = "sg.mul"(%[[W]], %[[R]])
// CHECK-NEXT: %[[N:.*]] = arith.constant dense<384> : tensor<i64>
// CHECK-NEXT: return %[[Y]], %[[Z]], %[[N]]
// 64 ones (f32 1.0 = 0x3F800000) and 0..7 as floats (the scalar size is inline above).
// CHECK: ones_{{[0-9]+}}: "0x08000000{{(0000803F)+}}"
// CHECK: rf_{{[0-9]+}}: "0x08000000000000000000803F0000004000004040000080400000A0400000C0400000E040"
