// Quantized operators import as subgraphs with ONNX's reference arithmetic, and match NumPy's
// results exactly: QuantizeLinear (per-axis scale and uint8 zero point: divide, round half to
// even, add the zero point in i32, clamp, cast), DequantizeLinear ((q - zero) * scale in f32),
// QLinearMatMul (zero-point-centred i32 product, requantized in f64). The DequantizeLinear of
// the QuantizeLinear's output with the same parameters is the pair in floats from x (the same
// values, and no casts to split its fusion); QLinearMatMul, the quantized value's other
// reader, keeps the integer path.
// RUN: strata import %S/inputs/quant.onnx | FileCheck %s
// RUN: strata run %S/inputs/quant.onnx --input x=%S/../driver/inputs/quant_x.npy --expect y=%S/../driver/inputs/quant_y.npy --expect m=%S/../driver/inputs/quant_m.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=RUNOUT

// CHECK: %[[D:.*]] = "sg.div"(%arg0, %{{.*}}) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK: %[[R:.*]] = "sg.round"(%[[D]])
// CHECK: %[[I:.*]] = "sg.cast"(%[[R]]) : (tensor<2x4xf32>) -> tensor<2x4xi32>
// CHECK: "sg.add"(%[[I]], %{{.*}}) : (tensor<2x4xi32>, tensor<2x1xi32>) -> tensor<2x4xi32>
// CHECK: "sg.max"
// CHECK: "sg.min"
// CHECK: %[[Q:.*]] = "sg.cast"(%{{.*}}) : (tensor<2x4xi32>) -> tensor<2x4xui8>
// The pair in floats clamps the rounded quotient against the bounds less the zero point
// (folded per row), then scales: no add and subtract of the zero point.
// CHECK: %[[RF:.*]] = "sg.round"
// CHECK: "sg.max"(%[[RF]], %{{.*}}) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK: "sg.min"(%{{.*}}, %{{.*}}) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK: %[[Y:.*]] = "sg.mul"(%{{.*}}, %{{.*}}) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NOT: -> tensor<2x4xf32>
// CHECK: "sg.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
// CHECK: "sg.cast"(%{{.*}}) : (tensor<2x3xi32>) -> tensor<2x3xf64>
// CHECK: "sg.round"
// CHECK: "sg.cast"(%{{.*}}) : (tensor<2x3xf64>) -> tensor<2x3xi8>
// CHECK: return %[[Y]]

// RUNOUT: expect 'y': 0 of 8 elements outside
// RUNOUT: expect 'm': 0 of 6 elements outside
