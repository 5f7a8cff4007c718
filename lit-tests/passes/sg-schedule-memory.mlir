// sg-schedule-memory: a function's independent ops in the order with the lowest peak of live
// results; never a higher one.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-schedule-memory))' --mlir-pass-statistics 2>&1 | FileCheck %s

// Three branches listed breadth first: every wide (1x256) first layer, then every narrow
// (1x2) second layer. Reordered, each branch finishes before the next starts (the first join
// frees two results and comes as soon as it can): one wide result live at a time. %x's last
// reader (the third wide layer) stays its last reader.
// CHECK-LABEL: func.func @branches
// CHECK: %[[H1:.*]] = "sg.matmul"(%arg0, %arg1)
// CHECK-NEXT: "sg.matmul"(%[[H1]], %arg4)
// CHECK-NEXT: %[[H2:.*]] = "sg.matmul"(%arg0, %arg2)
// CHECK-NEXT: "sg.matmul"(%[[H2]], %arg5)
// CHECK-NEXT: "sg.concat"
// CHECK-NEXT: %[[H3:.*]] = "sg.matmul"(%arg0, %arg3)
// CHECK-NEXT: "sg.matmul"(%[[H3]], %arg6)
// CHECK-NEXT: "sg.concat"
func.func @branches(%x: tensor<1x4xf32>, %w1: tensor<4x256xf32>, %w2: tensor<4x256xf32>, %w3: tensor<4x256xf32>,
                    %v1: tensor<256x2xf32>, %v2: tensor<256x2xf32>, %v3: tensor<256x2xf32>) -> tensor<1x6xf32> {
  %h1 = "sg.matmul"(%x, %w1) : (tensor<1x4xf32>, tensor<4x256xf32>) -> tensor<1x256xf32>
  %h2 = "sg.matmul"(%x, %w2) : (tensor<1x4xf32>, tensor<4x256xf32>) -> tensor<1x256xf32>
  %h3 = "sg.matmul"(%x, %w3) : (tensor<1x4xf32>, tensor<4x256xf32>) -> tensor<1x256xf32>
  %t1 = "sg.matmul"(%h1, %v1) : (tensor<1x256xf32>, tensor<256x2xf32>) -> tensor<1x2xf32>
  %t2 = "sg.matmul"(%h2, %v2) : (tensor<1x256xf32>, tensor<256x2xf32>) -> tensor<1x2xf32>
  %t3 = "sg.matmul"(%h3, %v3) : (tensor<1x256xf32>, tensor<256x2xf32>) -> tensor<1x2xf32>
  %c12 = "sg.concat"(%t1, %t2) {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
  %c = "sg.concat"(%c12, %t3) {axis = 1 : i64} : (tensor<1x4xf32>, tensor<1x2xf32>) -> tensor<1x6xf32>
  return %c : tensor<1x6xf32>
}

// A chain has one order: left as it is.
// CHECK-LABEL: func.func @chain
// CHECK: "sg.relu"
// CHECK-NEXT: "sg.neg"
func.func @chain(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = "sg.relu"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = "sg.neg"(%r) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

// A widening that both matmuls read through (the lowering binds them to the f32 value) costs
// nothing; each f64 product is narrowed before the next is made, so two are never live.
// CHECK-LABEL: func.func @widened
// CHECK: "sg.cast"(%arg0)
// CHECK-NEXT: %[[M1:.*]] = "sg.matmul"
// CHECK-NEXT: "sg.cast"(%[[M1]])
// CHECK-NEXT: %[[M2:.*]] = "sg.matmul"
// CHECK-NEXT: "sg.cast"(%[[M2]])
func.func @widened(%x: tensor<4x8xf32>, %b1: tensor<8x3xf64>, %b2: tensor<8x3xf64>) -> tensor<4x6xf32> {
  %w = "sg.cast"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf64>
  %m1 = "sg.matmul"(%w, %b1) : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
  %m2 = "sg.matmul"(%w, %b2) : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
  %c1 = "sg.cast"(%m1) : (tensor<4x3xf64>) -> tensor<4x3xf32>
  %c2 = "sg.cast"(%m2) : (tensor<4x3xf64>) -> tensor<4x3xf32>
  %r = "sg.concat"(%c1, %c2) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// The estimated peaks, summed over all three functions: 3 x 1024 + 8 before and 1024 + 3 x 8
// after in @branches (the arguments are the caller's); 128 in @chain; 2 x 96 + 48 before and
// 96 + 2 x 48 after in @widened.
// CHECK: (S) 2 reordered
// CHECK: (S) 3448 peak-before
// CHECK: (S) 1368 peak-after
