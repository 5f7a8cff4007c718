// strata-prefetch-channels: a split convolution's item walks every input channel, with the taps
// inside or alone (a 1x1 convolution); where another core wrote the input (its writer split it
// by channels, the reading loop splits rows; or a writer this function does not show, a graph
// input), each read prefetches the same segment four channels on: its first line and its last
// element. Where the writer split the rows as the reader does, its lines are this core's own,
// and nothing is added; nor for a walk of too few channels to prefetch ahead.
// RUN: strata-opt %s -p 'builtin.module(strata-prefetch-channels)' --mlir-pass-statistics 2>&1 | FileCheck %s

#by8 = affine_map<(d0) -> (d0 * 8)>
#by5 = affine_map<(d0) -> (d0 * 5)>

// CHECK-LABEL: func.func @written_by_channels
// CHECK: scf.forall (%[[R:.*]]) in (8)
// CHECK: %[[ROWS:.*]] = memref.subview %{{.*}}[0, 0, %[[R]], 0] [1, 16, 3, 16]
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: scf.for %[[KH:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[AHEAD:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK-NEXT: %[[SEG:.*]] = memref.subview %[[ROWS]][0, %[[AHEAD]], %[[KH]], 0] [1, 1, 1, 8]
// CHECK-NEXT: %[[FLAT:.*]] = memref.subview %[[SEG]][0, 0, 0, 0] [1, 1, 1, 8]
// CHECK-NEXT: memref.prefetch %[[FLAT]][%{{.*}}], read, locality<3>, data : memref<8xf32, strided<[1], offset: ?>>
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 7 : index
// CHECK-NEXT: memref.prefetch %[[FLAT]][%[[LAST]]], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read
func.func @written_by_channels(%x: memref<1x16x10x16xf32>, %buf: memref<1x16x10x16xf32>, %out: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  scf.forall (%t) in (2) {
    %c = affine.apply #by8(%t)
    %src = memref.subview %x[0, %c, 0, 0] [1, 8, 10, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x8x10x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %dst = memref.subview %buf[0, %c, 0, 0] [1, 8, 10, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x8x10x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    memref.copy %src, %dst : memref<1x8x10x16xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<1x8x10x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
  }
  scf.forall (%r) in (8) {
    %rows = memref.subview %buf[0, 0, %r, 0] [1, 16, 3, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %sum = scf.for %ch = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %taps = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8xf32>) {
        %seg = memref.subview %rows[0, %ch, %kh, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>>
        %flat = memref.subview %seg[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<8xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %flat[%c0], %pad {in_bounds = [true]} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
        %s = arith.addf %v, %a : vector<8xf32>
        scf.yield %s : vector<8xf32>
      }
      scf.yield %taps : vector<8xf32>
    }
    vector.transfer_write %sum, %out[%r, %c0] {in_bounds = [true]} : vector<8xf32>, memref<8x8xf32>
  }
  return
}

// The copy split by rows as the reading loop is: no prefetch.
// CHECK-LABEL: func.func @written_by_rows
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @written_by_rows(%x: memref<1x16x10x16xf32>, %buf: memref<1x16x10x16xf32>, %out: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  scf.forall (%t) in (2) {
    %h = affine.apply #by5(%t)
    %src = memref.subview %x[0, 0, %h, 0] [1, 16, 5, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %dst = memref.subview %buf[0, 0, %h, 0] [1, 16, 5, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    memref.copy %src, %dst : memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
  }
  scf.forall (%r) in (8) {
    %rows = memref.subview %buf[0, 0, %r, 0] [1, 16, 3, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %sum = scf.for %ch = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %taps = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8xf32>) {
        %seg = memref.subview %rows[0, %ch, %kh, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>>
        %flat = memref.subview %seg[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<8xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %flat[%c0], %pad {in_bounds = [true]} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
        %s = arith.addf %v, %a : vector<8xf32>
        scf.yield %s : vector<8xf32>
      }
      scf.yield %taps : vector<8xf32>
    }
    vector.transfer_write %sum, %out[%r, %c0] {in_bounds = [true]} : vector<8xf32>, memref<8x8xf32>
  }
  return
}

// The same with an elementwise kernel (a `linalg.generic`, its body ending in `linalg.yield`)
// as the writer, split by rows: its writes are known, no prefetch (DenseNet's 3x3 convolutions
// after their bottleneck's ReLU: 0.083 -> 0.051 ms on two threads without them).
// CHECK-LABEL: func.func @written_by_rows_generic
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @written_by_rows_generic(%x: memref<1x16x10x16xf32>, %buf: memref<1x16x10x16xf32>, %out: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  scf.forall (%t) in (2) {
    %h = affine.apply #by5(%t)
    %src = memref.subview %x[0, 0, %h, 0] [1, 16, 5, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %dst = memref.subview %buf[0, 0, %h, 0] [1, 16, 5, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%src : memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>) outs(%dst : memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %r = arith.maximumf %in, %pad : f32
      linalg.yield %r : f32
    }
  }
  scf.forall (%r) in (8) {
    %rows = memref.subview %buf[0, 0, %r, 0] [1, 16, 3, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %sum = scf.for %ch = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %taps = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8xf32>) {
        %seg = memref.subview %rows[0, %ch, %kh, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>>
        %flat = memref.subview %seg[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<8xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %flat[%c0], %pad {in_bounds = [true]} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
        %s = arith.addf %v, %a : vector<8xf32>
        scf.yield %s : vector<8xf32>
      }
      scf.yield %taps : vector<8xf32>
    }
    vector.transfer_write %sum, %out[%r, %c0] {in_bounds = [true]} : vector<8xf32>, memref<8x8xf32>
  }
  return
}

// And with a transpose (one input, one output, no operand segments) as the writer.
// CHECK-LABEL: func.func @written_by_rows_transpose
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @written_by_rows_transpose(%x: memref<1x16x10x16xf32>, %buf: memref<1x16x10x16xf32>, %out: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  scf.forall (%t) in (2) {
    %h = affine.apply #by5(%t)
    %src = memref.subview %x[0, 0, %h, 0] [1, 16, 5, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %dst = memref.subview %buf[0, 0, %h, 0] [1, 16, 5, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    linalg.transpose ins(%src : memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>) outs(%dst : memref<1x16x5x16xf32, strided<[2560, 160, 16, 1], offset: ?>>) permutation = [0, 1, 2, 3]
  }
  scf.forall (%r) in (8) {
    %rows = memref.subview %buf[0, 0, %r, 0] [1, 16, 3, 16] [1, 1, 1, 1] : memref<1x16x10x16xf32> to memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>>
    %sum = scf.for %ch = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %taps = scf.for %kh = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<8xf32>) {
        %seg = memref.subview %rows[0, %ch, %kh, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x16x3x16xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>>
        %flat = memref.subview %seg[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x1x8xf32, strided<[2560, 160, 16, 1], offset: ?>> to memref<8xf32, strided<[1], offset: ?>>
        %v = vector.transfer_read %flat[%c0], %pad {in_bounds = [true]} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
        %s = arith.addf %v, %a : vector<8xf32>
        scf.yield %s : vector<8xf32>
      }
      scf.yield %taps : vector<8xf32>
    }
    vector.transfer_write %sum, %out[%r, %c0] {in_bounds = [true]} : vector<8xf32>, memref<8x8xf32>
  }
  return
}

// A 1x1 convolution's channels over a graph input: taken; over four channels: not.
// CHECK-LABEL: func.func @pointwise
// CHECK: scf.forall (%[[R:.*]]) in (8)
// CHECK: %[[ROW:.*]] = memref.subview %{{.*}}[0, 0, %[[R]], 0] [1, 16, 1, 16]
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[AHEAD:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK-NEXT: memref.subview %[[ROW]][0, %[[AHEAD]], 0, 0] [1, 1, 1, 16]
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.prefetch
// CHECK-NEXT: arith.constant 15 : index
// CHECK-NEXT: memref.prefetch
// CHECK-NEXT: vector.transfer_read
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @pointwise(%x: memref<1x16x8x16xf32>, %y: memref<1x4x8x16xf32>, %out: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  scf.forall (%r) in (8) {
    %row = memref.subview %x[0, 0, %r, 0] [1, 16, 1, 16] [1, 1, 1, 1] : memref<1x16x8x16xf32> to memref<1x16x1x16xf32, strided<[2048, 128, 16, 1], offset: ?>>
    %sum = scf.for %ch = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
      %seg = memref.subview %row[0, %ch, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<1x16x1x16xf32, strided<[2048, 128, 16, 1], offset: ?>> to memref<1x1x1x16xf32, strided<[2048, 128, 16, 1], offset: ?>>
      %flat = memref.subview %seg[0, 0, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<1x1x1x16xf32, strided<[2048, 128, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      %v = vector.transfer_read %flat[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
      %s = arith.addf %v, %acc : vector<16xf32>
      scf.yield %s : vector<16xf32>
    }
    %few = memref.subview %y[0, 0, %r, 0] [1, 4, 1, 16] [1, 1, 1, 1] : memref<1x4x8x16xf32> to memref<1x4x1x16xf32, strided<[512, 128, 16, 1], offset: ?>>
    %total = scf.for %ch = %c0 to %c4 step %c1 iter_args(%acc = %sum) -> (vector<16xf32>) {
      %seg = memref.subview %few[0, %ch, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<1x4x1x16xf32, strided<[512, 128, 16, 1], offset: ?>> to memref<1x1x1x16xf32, strided<[512, 128, 16, 1], offset: ?>>
      %flat = memref.subview %seg[0, 0, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<1x1x1x16xf32, strided<[512, 128, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      %v = vector.transfer_read %flat[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
      %s = arith.addf %v, %acc : vector<16xf32>
      scf.yield %s : vector<16xf32>
    }
    vector.transfer_write %total, %out[%r, %c0] {in_bounds = [true]} : vector<16xf32>, memref<8x16xf32>
  }
  return
}

// CHECK: strata-prefetch-channels
// CHECK-NEXT: (S) 4 prefetches
