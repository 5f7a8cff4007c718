// A padded tensor whose interior is overwritten is filled on its ring only: the fill of a
// tensor.empty becomes fills of the slabs around the box (top and bottom rows, then the left
// and right columns between them), and the insertion or the producer writes the box. A slice
// is overwritten when its every user writes all of it without reading it, or when it carries
// strata-choose-in-place's mark (a producer's destination made from its tensor.empty: the mark
// is removed). An accumulating user, or a reader of the fill, keeps the whole fill.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-pad-rings))' | FileCheck %s

// CHECK-LABEL: func.func @inserted
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x6x6xf32>
// CHECK: %[[TOP:.*]] = tensor.extract_slice %[[E]][0, 0, 0, 0] [1, 2, 1, 6] [1, 1, 1, 1]
// CHECK: %[[T:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]] : tensor<1x2x1x6xf32>)
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[T]] into %[[E]][0, 0, 0, 0] [1, 2, 1, 6]
// CHECK: tensor.extract_slice %[[R1]][0, 0, 5, 0] [1, 2, 1, 6]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 0] [1, 2, 4, 1]
// CHECK: %[[LEFT:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 5] [1, 2, 4, 1]
// CHECK: %[[L:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[LEFT]] : tensor<1x2x4x1xf32>)
// CHECK: %[[RING:.*]] = tensor.insert_slice %[[L]] into %{{.*}}[0, 0, 1, 5] [1, 2, 4, 1]
// CHECK-NOT: linalg.fill
// CHECK: tensor.insert_slice %arg0 into %[[RING]][0, 0, 1, 1] [1, 2, 4, 4]
func.func @inserted(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %p = tensor.insert_slice %x into %f[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x2x6x6xf32>
  return %p : tensor<1x2x6x6xf32>
}

// CHECK-LABEL: func.func @produced
// CHECK-COUNT-4: linalg.fill
// CHECK: %[[BOX:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 2, 4, 4]
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<2xf32>) outs(%[[BOX]] : tensor<1x2x4x4xf32>)
func.func @produced(%x: tensor<1x2x4x4xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %s = tensor.extract_slice %f[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x6x6xf32> to tensor<1x2x4x4xf32>
  %init = linalg.broadcast ins(%b : tensor<2xf32>) outs(%s : tensor<1x2x4x4xf32>) dimensions = [0, 2, 3]
  %y = linalg.add ins(%x, %init : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = tensor.insert_slice %y into %f[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x2x6x6xf32>
  return %p : tensor<1x2x6x6xf32>
}

// The producer's destination made by eliminate-empty-tensors (marked): ring only, mark removed.
// CHECK-LABEL: func.func @marked
// CHECK-COUNT-4: linalg.fill
// CHECK-NOT: strata.overwritten_slice
// CHECK: linalg.matmul
func.func @marked(%a: tensor<4x3xf32>, %w: tensor<3x4xf32>) -> tensor<6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x6xf32>) -> tensor<6x6xf32>
  %s = tensor.extract_slice %f[1, 1] [4, 4] [1, 1] {strata.overwritten_slice} : tensor<6x6xf32> to tensor<4x4xf32>
  %y = linalg.matmul ins(%a, %w : tensor<4x3xf32>, tensor<3x4xf32>) outs(%s : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = tensor.insert_slice %y into %f[1, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// The same unmarked: the matmul accumulates onto the zeros.
// CHECK-LABEL: func.func @accumulated
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x6xf32>)
// CHECK: tensor.extract_slice %[[F]][1, 1] [4, 4] [1, 1]
func.func @accumulated(%a: tensor<4x3xf32>, %w: tensor<3x4xf32>) -> tensor<6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x6xf32>) -> tensor<6x6xf32>
  %s = tensor.extract_slice %f[1, 1] [4, 4] [1, 1] : tensor<6x6xf32> to tensor<4x4xf32>
  %y = linalg.matmul ins(%a, %w : tensor<4x3xf32>, tensor<3x4xf32>) outs(%s : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = tensor.insert_slice %y into %f[1, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// The fill is read as a whole: kept.
// CHECK-LABEL: func.func @read
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x6xf32>)
// CHECK: linalg.add ins(%[[F]], %{{.*}} : tensor<6x6xf32>, tensor<6x6xf32>)
func.func @read(%x: tensor<4x4xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x6xf32>) -> tensor<6x6xf32>
  %p = tensor.insert_slice %x into %f[1, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<6x6xf32>
  %e2 = tensor.empty() : tensor<6x6xf32>
  %q = linalg.add ins(%f, %p : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e2 : tensor<6x6xf32>) -> tensor<6x6xf32>
  return %p, %q : tensor<6x6xf32>, tensor<6x6xf32>
}

// A rank-0 fill whose one element is inserted into: no ring, the empty tensor alone.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: linalg.fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK: tensor.insert_slice %arg0 into %[[E]][] [] [] : tensor<f32> into tensor<f32>
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %p = tensor.insert_slice %x into %f[] [] [] : tensor<f32> into tensor<f32>
  return %p : tensor<f32>
}
