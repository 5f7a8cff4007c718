// strata-split-masked-stores (in strata-host-to-llvm, after the transfers are lowered to 1-D
// ops): a 1-D vector.maskedstore whose constant mask sets the first n lanes stores those n
// lanes with a plain vector.store (whole stores of 4, 2 and 1 lanes in LLVM), not a masked
// store (microcoded on AMD: `vmaskmovps` to memory). `split=auto`, the pipeline's, splits
// unless the host has AVX-512; the tests say `always`, or `never`.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-split-masked-stores{split=always}))' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-split-masked-stores{split=always}))' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-split-masked-stores{split=never}))' | FileCheck %s --check-prefix=NEVER
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-split-masked-stores{split=always}),strata-host-to-llvm)' | FileCheck %s --check-prefix=LLVM

// A 55-wide row's last 7 lanes (a convolution block's partial column vector).
// CHECK-LABEL: func.func @row_tail
// CHECK-SAME: (%[[OUT:.+]]: memref<{{.+}}>, %[[V:.+]]: vector<8xf32>, %[[I:.+]]: index)
// CHECK: %[[P:.+]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [7], strides = [1]} : vector<8xf32> to vector<7xf32>
// CHECK: vector.store %[[P]], %[[OUT]][%[[I]], %c48] : memref<{{.+}}>, vector<7xf32>
// CHECK-NOT: vector.maskedstore
// NEVER-LABEL: func.func @row_tail
// NEVER: vector.maskedstore
// LLVM-LABEL: llvm.func @row_tail
// LLVM-NOT: llvm.intr.masked.store
// LLVM: llvm.store {{.*}} : vector<7xf32>, !llvm.ptr
func.func @row_tail(%out: memref<4x56xf32>, %v: vector<8xf32>, %i: index) {
  %c48 = arith.constant 48 : index
  %m = vector.constant_mask [7] : vector<8xi1>
  vector.maskedstore %out[%i, %c48], %m, %v : memref<4x56xf32>, vector<8xi1>, vector<8xf32>
  return
}

// Masks written as bool constants: a prefix of 3 lanes, every lane (a plain store of the whole
// vector), no lane (nothing stored).
// CHECK-LABEL: func.func @constants
// CHECK: vector.extract_strided_slice {{.*}} sizes = [3]
// CHECK: vector.store {{.*}} vector<3xi32>
// CHECK: vector.store {{.*}} vector<4xi32>
// CHECK-NOT: vector.store
// CHECK: return
func.func @constants(%out: memref<16xi32>, %v: vector<4xi32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %three = arith.constant dense<[true, true, true, false]> : vector<4xi1>
  %all = arith.constant dense<true> : vector<4xi1>
  %none = arith.constant dense<false> : vector<4xi1>
  vector.maskedstore %out[%c0], %three, %v : memref<16xi32>, vector<4xi1>, vector<4xi32>
  vector.maskedstore %out[%c4], %all, %v : memref<16xi32>, vector<4xi1>, vector<4xi32>
  vector.maskedstore %out[%c8], %none, %v : memref<16xi32>, vector<4xi1>, vector<4xi32>
  return
}

// Left masked: a mask known only at run time, a mask that is not a prefix, a 2-D vector.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: vector.maskedstore
// CHECK-NOT: vector.store
// CHECK: return
func.func @left_alone(%out: memref<64xf32>, %out2: memref<4x8xf32>, %v: vector<8xf32>, %n: index, %w: vector<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %dynamic = vector.create_mask %n : vector<8xi1>
  vector.maskedstore %out[%c0], %dynamic, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  %gap = arith.constant dense<[false, true, true, true, true, true, true, true]> : vector<8xi1>
  vector.maskedstore %out[%c0], %gap, %v : memref<64xf32>, vector<8xi1>, vector<8xf32>
  %two = vector.constant_mask [2, 7] : vector<2x8xi1>
  vector.maskedstore %out2[%c0, %c0], %two, %w : memref<4x8xf32>, vector<2x8xi1>, vector<2x8xf32>
  return
}

// STATS: strata-split-masked-stores
// STATS: (S) 3 split
// STATS: (S) 1 erased
