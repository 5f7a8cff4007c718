// Pow by a constant whose every value is 1, 2 or 3 (a scalar, or a vector that broadcasts into
// the base) is imported as products: math.powf is a libm call per element that no loop
// vectorises (GPT-2's GELU cubes, a decomposed LayerNorm squares). x^1 is x, whatever the
// exponent's type. Another exponent stays an sg.pow. Checked against NumPy.
// RUN: strata import %S/inputs/pow.onnx | FileCheck %s
// Every activation is fused away or an output: `strata plan` reports an empty arena
// (it was an error) beside the in-order references.
// RUN: strata plan %S/inputs/pow.onnx | FileCheck %s --check-prefix=PLAN
// RUN: strata run %S/inputs/pow.onnx --input x=%S/../driver/inputs/pow_x.npy --expect squared=%S/../driver/inputs/pow_squared.npy --expect cubed=%S/../driver/inputs/pow_cubed.npy --expect same=%S/../driver/inputs/pow_x.npy --expect root=%S/../driver/inputs/pow_root.npy | FileCheck %s --check-prefix=NUMBERS

// CHECK: %[[SQUARED:.*]] = "sg.mul"(%arg0, %arg0)
// CHECK: %[[X2:.*]] = "sg.mul"(%arg0, %arg0)
// CHECK: %[[CUBED:.*]] = "sg.mul"(%[[X2]], %arg0)
// CHECK: %[[ABS:.*]] = "sg.abs"(%arg0)
// CHECK: %[[ROOT:.*]] = "sg.pow"(%[[ABS]], %{{.*}})
// CHECK: return %[[SQUARED]], %[[CUBED]], %arg0, %[[ROOT]]

// NUMBERS: expect 'squared': 0 of 6 elements outside
// NUMBERS: expect 'cubed': 0 of 6 elements outside
// NUMBERS: expect 'same': 0 of 6 elements outside
// NUMBERS: expect 'root': 0 of 6 elements outside

// PLAN: pow.onnx: 0 buffers (0 in the arena)
// PLAN: none 0 0 0.00% proved
// PLAN: the ONNX nodes run one by one in file order (1 activations): naive 24 bytes, plain 24 bytes, with views and in-place writes 24 bytes
