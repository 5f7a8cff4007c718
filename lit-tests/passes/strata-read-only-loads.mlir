// strata-read-only-loads: the tensor.extract reads a top-level op's loops make of a tensor that
// is never written (an argument marked bufferization.writable = false, a tensor constant) go
// through one `bufferization.to_buffer ... read_only` of it right before that op, as
// memref.loads; bufferization's analysis then sees one read where it saw one per element.
// Writable arguments, single reads, reads at the top level and reads inside a linalg op stay.
// A tensor constant CSE shared between top-level ops gets a copy before each reader after the
// first (the analysis gathers every read of an operand's value for each operand).
// The result bufferizes as before (second RUN: no to_buffer and no tensor left).
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-read-only-loads))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-read-only-loads),one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map})' | FileCheck %s --check-prefix=BUF

// Two reads of a read-only argument in a loop: one buffer before the loop, two loads.
// CHECK-LABEL: func.func @walk
// CHECK: %[[B:.*]] = bufferization.to_buffer %arg0 read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT: scf.for
// CHECK-NOT: tensor.extract %arg0
// CHECK: memref.load %[[B]][%{{.*}}, %c0] : memref<4x8xf32>
// CHECK: memref.load %[[B]][%{{.*}}, %c1] : memref<4x8xf32>
// CHECK: tensor.insert
// BUF-LABEL: func.func @walk
// BUF-NOT: to_buffer
// BUF: memref.load %arg0[%{{.*}}, %c0] : memref<4x8xf32>
// BUF: memref.load %arg0[%{{.*}}, %c1] : memref<4x8xf32>
func.func @walk(%x: tensor<4x8xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %e) -> (tensor<4xf32>) {
    %a = tensor.extract %x[%i, %c0] : tensor<4x8xf32>
    %b = tensor.extract %x[%i, %c1] : tensor<4x8xf32>
    %s = arith.addf %a, %b : f32
    %t2 = tensor.insert %s into %t[%i] : tensor<4xf32>
    scf.yield %t2 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A constant table read twice in a loop, through a conditional: one buffer; the writable
// argument read twice in the same loop stays a tensor.
// CHECK-LABEL: func.func @table
// CHECK: %[[T:.*]] = bufferization.to_buffer %cst read_only : tensor<3xi64> to memref<3xi64>
// CHECK-NEXT: scf.for
// CHECK: tensor.extract %arg0
// CHECK: tensor.extract %arg0
// CHECK: scf.if
// CHECK: memref.load %[[T]]
// CHECK: memref.load %[[T]]
func.func @table(%w: tensor<4xi64>, %flag: i1) -> tensor<4xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %table = arith.constant dense<[7, 8, 9]> : tensor<3xi64>
  %e = tensor.empty() : tensor<4xi64>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %e) -> (tensor<4xi64>) {
    %u = tensor.extract %w[%i] : tensor<4xi64>
    %v = tensor.extract %w[%c0] : tensor<4xi64>
    %sum = arith.addi %u, %v : i64
    %pick = scf.if %flag -> (i64) {
      %a = tensor.extract %table[%c1] : tensor<3xi64>
      scf.yield %a : i64
    } else {
      %b = tensor.extract %table[%c2] : tensor<3xi64>
      scf.yield %b : i64
    }
    %s = arith.addi %sum, %pick : i64
    %t2 = tensor.insert %s into %t[%i] : tensor<4xi64>
    scf.yield %t2 : tensor<4xi64>
  }
  return %r : tensor<4xi64>
}

// One read in a loop, reads at the top level, reads in a linalg op's body: all stay.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: to_buffer
// CHECK: tensor.extract %arg0[%c0]
// CHECK: tensor.extract %arg0[%c1]
// CHECK: scf.for
// CHECK: tensor.extract %arg0
// CHECK: linalg.generic
// CHECK: tensor.extract %arg0
// CHECK: tensor.extract %arg0
// CHECK: return
func.func @left_alone(%x: tensor<4xf32> {bufferization.writable = false}) -> (f32, tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = tensor.extract %x[%c0] : tensor<4xf32>
  %b = tensor.extract %x[%c1] : tensor<4xf32>
  %s = arith.addf %a, %b : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %e) -> (tensor<4xf32>) {
    %v = tensor.extract %x[%i] : tensor<4xf32>
    %t2 = tensor.insert %v into %t[%i] : tensor<4xf32>
    scf.yield %t2 : tensor<4xf32>
  }
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %p = tensor.extract %x[%i] : tensor<4xf32>
    %q = tensor.extract %x[%c0] : tensor<4xf32>
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %s, %r, %g : f32, tensor<4xf32>, tensor<4xf32>
}

// A scalar constant two elementwise ops read: the second reads a copy of its own.
// CHECK-LABEL: func.func @shared_constant
// CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[C]] : tensor<4xf32>, tensor<f32>)
// CHECK: %[[COPY:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[COPY]] : tensor<4xf32>, tensor<f32>)
// BUF-LABEL: func.func @shared_constant
// BUF-COUNT-2: memref.get_global @__constant_xf32 : memref<f32>
func.func @shared_constant(%x: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %two : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %m = arith.mulf %in, %t : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %two : tensor<4xf32>, tensor<f32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %m = arith.addf %in, %t : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// CHECK: 2 buffers
// CHECK: 4 loads
// CHECK: 1 constants
