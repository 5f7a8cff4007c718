// memref-copy-to-linalg turns memref.copy (which lowers to a runtime-library call for strided
// operands) into linalg.copy (plain loops).
// RUN: strata-opt %s -p 'builtin.module(func.func(memref-copy-to-linalg))' | FileCheck %s

// CHECK-LABEL: func.func @pad_copy
// CHECK-SAME: (%[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<4x5xf32>)
// CHECK: %[[S:.*]] = memref.subview %[[Y]][1, 1] [2, 3] [1, 1]
// CHECK-NEXT: linalg.copy ins(%[[X]] : memref<2x3xf32>) outs(%[[S]] : memref<2x3xf32, strided<[5, 1], offset: 6>>)
// CHECK-NOT: memref.copy
func.func @pad_copy(%x: memref<2x3xf32>, %y: memref<4x5xf32>) {
  %s = memref.subview %y[1, 1] [2, 3] [1, 1] : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  memref.copy %x, %s : memref<2x3xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  return
}
