// strata-prefetch-rows: a reduction loop that reads a new row of a large activation each
// iteration (a 1x1 convolution's input channels) prefetches the next block of that row, one
// prefetch per cache line (a line ahead for blocks shorter than a line); contiguous walks and
// small buffers are left alone. Compiled for several threads (the second run), a loop that is
// its kernel's only one carrying vectors (a flattened 1x1 convolution's channels) takes buffers
// from 64 KiB: half of such a buffer was written by the other core; a loop nested in or around
// another (a convolution's taps) still only buffers past the L2.
// RUN: strata-opt %s -p 'builtin.module(strata-prefetch-rows)' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-prefetch-rows{threads=2})' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=TWO

// 64 channels of 4096 positions (1 MiB): 32 positions a block, two lines ahead.
// CHECK-LABEL: func.func @channels
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[ROW:.*]] = memref.subview %{{.*}}[0, 0, 0, 0] [1, 1, 1, 32]
// CHECK: memref.prefetch %[[ROW]][%{{.*}}], read, locality<3>, data : memref<32xf32, strided<[1], offset: ?>>
// CHECK: memref.prefetch %[[ROW]][%{{.*}}], read, locality<3>, data : memref<32xf32, strided<[1], offset: ?>>
// CHECK-NEXT: vector.transfer_read %[[ROW]]
func.func @channels(%x: memref<1x64x1x4096xf32>, %w: memref<64xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  scf.for %p = %c0 to %c4096 step %c32 {
    %block = memref.subview %x[0, 0, 0, %p] [1, 64, 1, 32] [1, 1, 1, 1] : memref<1x64x1x4096xf32> to memref<1x64x1x32xf32, strided<[262144, 4096, 4096, 1], offset: ?>>
    %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %channel = memref.subview %block[0, %c, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x64x1x32xf32, strided<[262144, 4096, 4096, 1], offset: ?>> to memref<1x1x1x32xf32, strided<[262144, 4096, 4096, 1], offset: ?>>
      %row = memref.subview %channel[0, 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x1x1x32xf32, strided<[262144, 4096, 4096, 1], offset: ?>> to memref<32xf32, strided<[1], offset: ?>>
      %v = vector.transfer_read %row[%c0], %pad {in_bounds = [true]} : memref<32xf32, strided<[1], offset: ?>>, vector<32xf32>
      %s = memref.load %w[%c] : memref<64xf32>
      %b = vector.broadcast %s : f32 to vector<32xf32>
      %r = vector.fma %b, %v, %acc : vector<32xf32>
      scf.yield %r : vector<32xf32>
    }
    vector.transfer_write %sum, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  }
  return
}

// Blocks of 8 positions share their line with the next block: one prefetch, a line ahead.
// CHECK-LABEL: func.func @short_rows
// CHECK: %[[AHEAD:.*]] = arith.constant 16 : index
// CHECK-NEXT: memref.prefetch %{{.*}}[%[[AHEAD]]], read, locality<3>, data : memref<8xf32, strided<[1], offset: ?>>
// CHECK-NEXT: vector.transfer_read
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @short_rows(%x: memref<1x64x1x4096xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<8xf32>) {
    %channel = memref.subview %x[0, %c, 0, 8] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x64x1x4096xf32> to memref<1x1x1x8xf32, strided<[262144, 4096, 4096, 1], offset: ?>>
    %row = memref.subview %channel[0, 0, 0, 0] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x1x8xf32, strided<[262144, 4096, 4096, 1], offset: ?>> to memref<8xf32, strided<[1], offset: ?>>
    %v = vector.transfer_read %row[%c0], %pad {in_bounds = [true]} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
    %r = arith.addf %v, %acc : vector<8xf32>
    scf.yield %r : vector<8xf32>
  }
  vector.transfer_write %sum, %out[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
  return
}

// The same walk over a buffer the caches hold (64 KiB), and one row read contiguously: no
// prefetch (on two threads, the walk's rows are).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.prefetch
// CHECK: return
// TWO-LABEL: func.func @left_alone
// TWO: %[[ROW:.*]] = memref.subview %{{.*}}[0, 0, 0, 0] [1, 1, 1, 32]
// TWO: memref.prefetch %[[ROW]]
// TWO: memref.prefetch %[[ROW]]
// TWO-NEXT: vector.transfer_read %[[ROW]]
// TWO-NOT: memref.prefetch
// TWO: return
func.func @left_alone(%x: memref<1x64x1x256xf32>, %y: memref<8192xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %c8192 = arith.constant 8192 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
    %channel = memref.subview %x[0, %c, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x64x1x256xf32> to memref<1x1x1x32xf32, strided<[16384, 256, 256, 1], offset: ?>>
    %row = memref.subview %channel[0, 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x1x1x32xf32, strided<[16384, 256, 256, 1], offset: ?>> to memref<32xf32, strided<[1], offset: ?>>
    %v = vector.transfer_read %row[%c0], %pad {in_bounds = [true]} : memref<32xf32, strided<[1], offset: ?>>, vector<32xf32>
    %r = arith.addf %v, %acc : vector<32xf32>
    scf.yield %r : vector<32xf32>
  }
  %total = scf.for %i = %c0 to %c8192 step %c32 iter_args(%acc = %sum) -> (vector<32xf32>) {
    %v = vector.load %y[%i] : memref<8192xf32>, vector<32xf32>
    %r = arith.addf %v, %acc : vector<32xf32>
    scf.yield %r : vector<32xf32>
  }
  vector.transfer_write %total, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}
// A tap loop inside the channel loop (a 3x3 window's rows, each read by three windows: in L1
// already) over 256 KiB: no prefetch on any thread count.
// CHECK-LABEL: func.func @taps
// CHECK-NOT: memref.prefetch
// CHECK: return
// TWO-LABEL: func.func @taps
// TWO-NOT: memref.prefetch
// TWO: return
func.func @taps(%x: memref<1x64x1x1024xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %sum = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
    %inner = scf.for %t = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (vector<32xf32>) {
      %channel = memref.subview %x[0, %c, 0, %t] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x64x1x1024xf32> to memref<1x1x1x32xf32, strided<[65536, 1024, 1024, 1], offset: ?>>
      %row = memref.subview %channel[0, 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1] : memref<1x1x1x32xf32, strided<[65536, 1024, 1024, 1], offset: ?>> to memref<32xf32, strided<[1], offset: ?>>
      %v = vector.transfer_read %row[%c0], %pad {in_bounds = [true]} : memref<32xf32, strided<[1], offset: ?>>, vector<32xf32>
      %r = arith.addf %v, %a : vector<32xf32>
      scf.yield %r : vector<32xf32>
    }
    scf.yield %inner : vector<32xf32>
  }
  vector.transfer_write %sum, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}
// CHECK: (S) 3 prefetches
// TWO: (S) 5 prefetches
