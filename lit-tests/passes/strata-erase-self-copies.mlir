// strata-erase-self-copies: a copy whose source and target are the same elements of one buffer
// (views of one value, equal static sizes and offset, equal strides wherever a size is not 1)
// is erased; copies between other elements stay.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-erase-self-copies))' --mlir-pass-statistics 2>&1 | FileCheck %s

// A part of an interleaving concatenation written in place: the producer wrote the collapsed
// subview, the insertion copies its expansion back onto the subview, whose unit dimension has
// another stride (1 against 2). Same addresses: erased.
// CHECK-LABEL: func.func @interleaved_part
// CHECK-NOT: memref.copy
// CHECK: return
func.func @interleaved_part(%buf: memref<4x8x2xf32>) {
  %sv = memref.subview %buf[0, 0, 1] [4, 8, 1] [1, 1, 1] : memref<4x8x2xf32> to memref<4x8x1xf32, strided<[16, 2, 1], offset: 1>>
  %c = memref.collapse_shape %sv [[0], [1, 2]] : memref<4x8x1xf32, strided<[16, 2, 1], offset: 1>> into memref<4x8xf32, strided<[16, 2], offset: 1>>
  %e = memref.expand_shape %c [[0], [1, 2]] output_shape [4, 8, 1] : memref<4x8xf32, strided<[16, 2], offset: 1>> into memref<4x8x1xf32, strided<[16, 2, 2], offset: 1>>
  memref.copy %e, %sv : memref<4x8x1xf32, strided<[16, 2, 2], offset: 1>> to memref<4x8x1xf32, strided<[16, 2, 1], offset: 1>>
  return
}

// The other phase's elements (offset 0 against 1), and a transposed view copied into another
// buffer: both copies stay.
// CHECK-LABEL: func.func @other_elements
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x8x1xf32, strided<[16, 2, 1]>> to memref<4x8x1xf32, strided<[16, 2, 1], offset: 1>>
// CHECK: linalg.copy ins(%{{.*}} : memref<8x4xf32, strided<[2, 16]>>) outs(%{{.*}} : memref<8x4xf32, strided<[4, 1]>>)
func.func @other_elements(%buf: memref<4x8x2xf32>, %flat: memref<32xf32>) {
  %a = memref.subview %buf[0, 0, 0] [4, 8, 1] [1, 1, 1] : memref<4x8x2xf32> to memref<4x8x1xf32, strided<[16, 2, 1]>>
  %b = memref.subview %buf[0, 0, 1] [4, 8, 1] [1, 1, 1] : memref<4x8x2xf32> to memref<4x8x1xf32, strided<[16, 2, 1], offset: 1>>
  memref.copy %a, %b : memref<4x8x1xf32, strided<[16, 2, 1]>> to memref<4x8x1xf32, strided<[16, 2, 1], offset: 1>>
  %t = memref.subview %buf[0, 0, 0] [4, 8, 1] [1, 1, 1] : memref<4x8x2xf32> to memref<4x8xf32, strided<[16, 2]>>
  %tt = memref.transpose %t (i, j) -> (j, i) : memref<4x8xf32, strided<[16, 2]>> to memref<8x4xf32, strided<[2, 16]>>
  %r = memref.expand_shape %flat [[0, 1]] output_shape [8, 4] : memref<32xf32> into memref<8x4xf32>
  %rs = memref.cast %r : memref<8x4xf32> to memref<8x4xf32, strided<[4, 1]>>
  linalg.copy ins(%tt : memref<8x4xf32, strided<[2, 16]>>) outs(%rs : memref<8x4xf32, strided<[4, 1]>>)
  return
}

// CHECK: (S) 1 erased
