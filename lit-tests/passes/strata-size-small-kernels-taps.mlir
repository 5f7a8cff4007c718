// strata-size-small-kernels, tap loops: a loop of a few constant trips that carries a register
// block (`vector<R x C>` accumulators) and reads a row of N inputs extracted one by one stays
// rolled when, unrolled, the block's vectors, the N + trips - 1 inputs the steps share and
// every step's filter vectors would exceed the vector registers (32 of 16 lanes here) by more
// than three eighths: LLVM would keep the shared inputs live and move the accumulators to the
// stack.
// RUN: strata-opt %s -p 'builtin.module(strata-size-small-kernels{vector-lanes=16})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-size-small-kernels{vector-lanes=16})' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// Only on 32 registers, where it was measured: AVX2's 16 registers of 8 lanes roll none.
// RUN: strata-opt %s -p 'builtin.module(strata-size-small-kernels{vector-lanes=8})' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=AVX2

// CHECK: #[[ROLLED:.+]] = #llvm.loop_annotation<unroll = #{{.+}}>
module {
  func.func @main(%in: memref<4096xf32>, %w: memref<144xf32>, %out: memref<24x16xf32>, %o2: memref<7x32xf32>) {
    call @strata_kernel_0(%in, %w, %out) : (memref<4096xf32>, memref<144xf32>, memref<24x16xf32>) -> ()
    call @strata_kernel_1(%in, %w, %o2) : (memref<4096xf32>, memref<144xf32>, memref<7x32xf32>) -> ()
    return
  }
  // 24 accumulators + 26 inputs + 3 filter vectors: the tap loop stays rolled, not the pixel
  // loop around it.
  // CHECK-LABEL: func.func private @strata_kernel_0
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK: scf.yield
  // CHECK-NEXT: } {loop_annotation = #[[ROLLED]]}
  // CHECK: vector.transfer_write
  // CHECK-NEXT: {{^ +}$}}
  // CHECK-NEXT: return
  func.func private @strata_kernel_0(%in: memref<4096xf32>, %w: memref<144xf32>, %out: memref<24x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c65536 = arith.constant 65536 : index
    %zero = arith.constant dense<0.0> : vector<24x16xf32>
    %pad = arith.constant 0.0 : f32
    scf.for %p = %c0 to %c65536 step %c1 {
      %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (vector<24x16xf32>) {
        %row = vector.transfer_read %in[%t], %pad {in_bounds = [true]} : memref<4096xf32>, vector<24xf32>
        %f = vector.transfer_read %w[%t], %pad {in_bounds = [true]} : memref<144xf32>, vector<16xf32>
        %x0 = vector.extract %row[0] : f32 from vector<24xf32>
        %b0 = vector.broadcast %x0 : f32 to vector<16xf32>
        %a0 = vector.extract %acc[0] : vector<16xf32> from vector<24x16xf32>
        %y0 = vector.fma %b0, %f, %a0 : vector<16xf32>
        %x1 = vector.extract %row[1] : f32 from vector<24xf32>
        %b1 = vector.broadcast %x1 : f32 to vector<16xf32>
        %a1 = vector.extract %acc[1] : vector<16xf32> from vector<24x16xf32>
        %y1 = vector.fma %b1, %f, %a1 : vector<16xf32>
        %n0 = vector.insert %y0, %acc[0] : vector<16xf32> into vector<24x16xf32>
        %n1 = vector.insert %y1, %n0[1] : vector<16xf32> into vector<24x16xf32>
        scf.yield %n1 : vector<24x16xf32>
      }
      vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<24x16xf32>, memref<24x16xf32>
    }
    return
  }
  // 7 rows of two vectors: 14 accumulators + 9 inputs + 6 filter vectors fit; unrolled as
  // LLVM sees fit.
  // CHECK-LABEL: func.func private @strata_kernel_1
  // CHECK-NOT: loop_annotation
  // CHECK: return
  func.func private @strata_kernel_1(%in: memref<4096xf32>, %w: memref<144xf32>, %out: memref<7x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c65536 = arith.constant 65536 : index
    %zero = arith.constant dense<0.0> : vector<7x32xf32>
    %pad = arith.constant 0.0 : f32
    scf.for %p = %c0 to %c65536 step %c1 {
      %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (vector<7x32xf32>) {
        %row = vector.transfer_read %in[%t], %pad {in_bounds = [true]} : memref<4096xf32>, vector<7xf32>
        %f = vector.transfer_read %w[%t], %pad {in_bounds = [true]} : memref<144xf32>, vector<32xf32>
        %x0 = vector.extract %row[0] : f32 from vector<7xf32>
        %b0 = vector.broadcast %x0 : f32 to vector<32xf32>
        %a0 = vector.extract %acc[0] : vector<32xf32> from vector<7x32xf32>
        %y0 = vector.fma %b0, %f, %a0 : vector<32xf32>
        %n0 = vector.insert %y0, %acc[0] : vector<32xf32> into vector<7x32xf32>
        scf.yield %n0 : vector<7x32xf32>
      }
      vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<7x32xf32>, memref<7x32xf32>
    }
    return
  }
}

// STATS: (S) 0 kernels
// STATS: (S) 0 nests
// STATS: (S) 1 taps
// AVX2: (S) 0 taps
