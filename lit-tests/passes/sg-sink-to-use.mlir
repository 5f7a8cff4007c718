// sg-sink-to-use: work on constants and arguments alone runs just before its first reader.
// A quantized model's weights, dequantized at run time, come first in the file; moved, each
// lives only beside its convolution instead of from the first kernel on.
// RUN: strata-opt %s -p 'builtin.module(func.func(sg-sink-to-use))' --mlir-pass-statistics 2>&1 | FileCheck %s

// The dequantization chain (sub, then mul) follows its last op down to the matmul that reads
// it, and the relu of an argument down to the add that reads it first (the function's result
// reads it too, later). The first matmul reads only arguments but is read by the second one
// right after it: it stays.
// CHECK-LABEL: func.func @dequantized
// CHECK: %[[A:.*]] = "sg.matmul"(%arg0, %arg1)
// CHECK-NEXT: %[[S:.*]] = "sg.sub"(%{{.*}}, %{{.*}})
// CHECK-NEXT: %[[M:.*]] = "sg.mul"(%[[S]], %{{.*}})
// CHECK-NEXT: %[[B:.*]] = "sg.matmul"(%[[A]], %[[M]])
// CHECK-NEXT: %[[R:.*]] = "sg.relu"(%arg0)
// CHECK-NEXT: "sg.add"(%[[B]], %[[R]])
func.func @dequantized(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %w = arith.constant dense<3.0> : tensor<4x4xf32>
  %zero = arith.constant dense<1.0> : tensor<4x4xf32>
  %scale = arith.constant dense<0.5> : tensor<4x4xf32>
  %s = "sg.sub"(%w, %zero) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = "sg.mul"(%s, %scale) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = "sg.relu"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = "sg.matmul"(%x, %y) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = "sg.matmul"(%a, %m) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = "sg.add"(%b, %r) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c, %r : tensor<4x4xf32>, tensor<4x4xf32>
}

// Already next to its reader, or read inside an op's region: the first op holding a reader
// counts, and nothing moves past it.
// CHECK-LABEL: func.func @in_place
// CHECK: "sg.neg"(%arg0)
// CHECK-NEXT: scf.if
// CHECK: "sg.exp"
func.func @in_place(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  %n = "sg.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r = scf.if %p -> tensor<4xf32> {
    scf.yield %n : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  %e = "sg.exp"(%r) : (tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
}

// A value computed in the function that two ops read does not move with either: moving the
// exp down to its first reader would keep the neg's result alive until there.
// CHECK-LABEL: func.func @shared
// CHECK: %[[N:.*]] = "sg.neg"(%arg0)
// CHECK-NEXT: "sg.exp"(%[[N]])
// CHECK-NEXT: "sg.relu"(%[[N]])
func.func @shared(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = "sg.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %e = "sg.exp"(%n) : (tensor<4xf32>) -> tensor<4xf32>
  %r = "sg.relu"(%n) : (tensor<4xf32>) -> tensor<4xf32>
  %d = "sg.add"(%r, %r) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = "sg.add"(%d, %e) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// CHECK: (S) 3 sunk
