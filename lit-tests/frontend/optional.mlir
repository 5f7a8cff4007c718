// Optionals are resolved at import (`crate::sequence`): `Optional(x)` is `x`, so getting its
// element back is `x` and the Relu reads the argument; `Optional()` is empty; each
// `OptionalHasElement` folds to a constant output. Getting the element of an empty optional
// is a clean error naming the node, and so is reading an empty optional as a tensor.
// RUN: strata compile %S/inputs/optional.onnx --emit=sg | FileCheck %s
// RUN: not strata import %S/inputs/invalid_optional.onnx 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not strata import %S/inputs/invalid_optional_tensor.onnx 2>&1 | FileCheck %s --check-prefix=TENSOR

// CHECK: func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<i1>, tensor<i1>)
// CHECK-NEXT: %[[Y:.*]] = "sg.relu"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[T:.*]] = arith.constant dense<true> : tensor<i1>
// CHECK-NEXT: %[[F:.*]] = arith.constant dense<false> : tensor<i1>
// CHECK-NEXT: return %[[Y]], %[[T]], %[[F]]

// EMPTY: error: {{.*}}invalid_optional.onnx: node #1 'get_none' (OptionalGetElement): 'none' is an empty optional: it has no element to get
// TENSOR: error: {{.*}}invalid_optional_tensor.onnx: node #1 'relu_of_none' (Relu): unsupported: 'none' is an empty optional, used here as a tensor
