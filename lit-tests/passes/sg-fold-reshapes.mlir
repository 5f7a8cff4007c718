// sg-fold-reshapes folds reshape chains and drops no-op reshapes.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(func.func(sg-fold-reshapes))' | FileCheck %s

// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = "sg.reshape"(%[[X]]) : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = "sg.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = "sg.reshape"(%0) : (tensor<24xf32>) -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// Back to the original shape: both reshapes go.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "sg.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = "sg.reshape"(%0) : (tensor<6xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// An inner reshape with another user stays.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[F:.*]] = "sg.reshape"(%[[X]]) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: %[[E:.*]] = "sg.exp"(%[[F]])
// CHECK: %[[G:.*]] = "sg.reshape"(%[[X]]) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: return %[[E]], %[[G]]
func.func @shared(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %0 = "sg.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = "sg.exp"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  %2 = "sg.reshape"(%0) : (tensor<6xf32>) -> tensor<3x2xf32>
  return %1, %2 : tensor<6xf32>, tensor<3x2xf32>
}
