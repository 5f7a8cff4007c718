// strata-sink-transposes: an elementwise chain on a transposed 2-D vector (a convolution's
// block turned from positions x filters to filters x positions before its store) runs before
// the transpose when the source's rows are wider: the rounding (truncf, extf) and the clamps
// with their splat constants rebuilt in the source's shape, attributes kept (fastmath), the
// transpose moved to the end of the chain. It stops at an op with another vector operand (the
// residual add), and nothing moves where the source is the narrower shape. A DAG that reads
// the transposed block twice moves whole when one of its values is read after it.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-sink-transposes))' | FileCheck %s

// CHECK-LABEL: func.func @epilogue
// CHECK: %[[N:.*]] = arith.truncf %arg0 : vector<12x32xf32> to vector<12x32xbf16>
// CHECK: %[[W:.*]] = arith.extf %[[N]] : vector<12x32xbf16> to vector<12x32xf32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<12x32xf32>
// CHECK: %[[LO:.*]] = arith.maximumf %[[W]], %[[ZERO]] fastmath<nnan> : vector<12x32xf32>
// CHECK: %[[SIX:.*]] = arith.constant dense<6.000000e+00> : vector<12x32xf32>
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]], %[[SIX]] : vector<12x32xf32>
// CHECK: %[[T:.*]] = vector.transpose %[[HI]], [1, 0] : vector<12x32xf32> to vector<32x12xf32>
// CHECK: %[[S:.*]] = arith.addf %[[T]], %arg1 : vector<32x12xf32>
// CHECK: return %[[S]]
func.func @epilogue(%a: vector<12x32xf32>, %m: vector<32x12xf32>) -> vector<32x12xf32> {
  %c0 = arith.constant dense<0.0> : vector<32x12xf32>
  %c6 = arith.constant dense<6.0> : vector<32x12xf32>
  %t = vector.transpose %a, [1, 0] : vector<12x32xf32> to vector<32x12xf32>
  %r = arith.truncf %t : vector<32x12xf32> to vector<32x12xbf16>
  %e = arith.extf %r : vector<32x12xbf16> to vector<32x12xf32>
  %x = arith.maximumf %e, %c0 fastmath<nnan> : vector<32x12xf32>
  %y = arith.minimumf %x, %c6 : vector<32x12xf32>
  %s = arith.addf %y, %m : vector<32x12xf32>
  return %s : vector<32x12xf32>
}

// CHECK-LABEL: func.func @narrower_source
// CHECK: vector.transpose %arg0, [1, 0] : vector<32x12xf32> to vector<12x32xf32>
// CHECK: arith.maximumf %{{.*}} : vector<12x32xf32>
func.func @narrower_source(%a: vector<32x12xf32>) -> vector<12x32xf32> {
  %c0 = arith.constant dense<0.0> : vector<12x32xf32>
  %t = vector.transpose %a, [1, 0] : vector<32x12xf32> to vector<12x32xf32>
  %x = arith.maximumf %t, %c0 : vector<12x32xf32>
  return %x : vector<12x32xf32>
}

// A hard-swish epilogue reads the transposed block twice (x * clamp(x + 3) / 6): the whole
// DAG moves, its one result transposed where it is computed; the store reads that.
// CHECK-LABEL: func.func @reads_twice
// CHECK: %[[THREE:.*]] = arith.constant dense<3.000000e+00> : vector<10x32xf32>
// CHECK: %[[P:.*]] = arith.addf %arg0, %[[THREE]] : vector<10x32xf32>
// CHECK: arith.maximumf %[[P]], %{{.*}} : vector<10x32xf32>
// CHECK: %[[M:.*]] = arith.mulf %arg0, %{{.*}} : vector<10x32xf32>
// CHECK: %[[Y:.*]] = arith.divf %[[M]], %{{.*}} : vector<10x32xf32>
// CHECK: %[[T:.*]] = vector.transpose %[[Y]], [1, 0] : vector<10x32xf32> to vector<32x10xf32>
// CHECK: vector.transfer_write %[[T]], %arg1
func.func @reads_twice(%a: vector<10x32xf32>, %out: memref<32x10xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant dense<3.0> : vector<32x10xf32>
  %zero = arith.constant dense<0.0> : vector<32x10xf32>
  %c6 = arith.constant dense<6.0> : vector<32x10xf32>
  %t = vector.transpose %a, [1, 0] : vector<10x32xf32> to vector<32x10xf32>
  %p = arith.addf %t, %c3 : vector<32x10xf32>
  %lo = arith.maximumf %p, %zero : vector<32x10xf32>
  %hi = arith.minimumf %lo, %c6 : vector<32x10xf32>
  %m = arith.mulf %t, %hi : vector<32x10xf32>
  %y = arith.divf %m, %c6 : vector<32x10xf32>
  vector.transfer_write %y, %out[%c0, %c0] {in_bounds = [true, true]} : vector<32x10xf32>, memref<32x10xf32>
  return
}

// Two values read after the ops (the clamp's result and the product): nothing moves.
// CHECK-LABEL: func.func @two_exits
// CHECK: vector.transpose %arg0, [1, 0] : vector<10x32xf32> to vector<32x10xf32>
// CHECK: arith.maximumf %{{.*}} : vector<32x10xf32>
func.func @two_exits(%a: vector<10x32xf32>, %out: memref<32x10xf32>) -> vector<32x10xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : vector<32x10xf32>
  %t = vector.transpose %a, [1, 0] : vector<10x32xf32> to vector<32x10xf32>
  %r = arith.maximumf %t, %zero : vector<32x10xf32>
  %m = arith.mulf %t, %r : vector<32x10xf32>
  vector.transfer_write %m, %out[%c0, %c0] {in_bounds = [true, true]} : vector<32x10xf32>, memref<32x10xf32>
  return %r : vector<32x10xf32>
}
