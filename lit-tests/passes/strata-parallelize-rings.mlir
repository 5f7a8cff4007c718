// strata-parallelize{threads}: a fill of a padded buffer's side columns (one element a row, a
// row apart) before a loop over the same rows that writes the interior (a convolution's tiles)
// is split by rows however small, so that each row's ring and interior are written by one
// thread (filled on the main thread, every line they share was the other core's to take back);
// on one thread, or before anything else, it stays whole. The left and right columns, views of
// one buffer at the same rows, share one loop (`in_step`); columns at other rows do not.
// RUN: strata-opt %s -p 'builtin.module(strata-parallelize{threads=2})' | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-parallelize{threads=1})' | FileCheck %s --check-prefix=ONE
// ONE-LABEL: func.func @ring
// ONE-NOT: strata.parallel
// ONE: scf.forall (%{{.*}}, %{{.*}}) in (32, 8)

// The top row (contiguous) stays whole; the side columns split, in one loop.
// CHECK-LABEL: func.func @ring
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x96x1x34xf32, {{.*}}>)
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.fill {strata.parallel = "0x0x2x0"} {{.*}} outs(%{{.*}} : memref<1x96x16x1xf32, {{.*}}>)
// CHECK-NOT: scf.forall
// CHECK: linalg.fill {strata.parallel = "0x0x2x0"} {{.*}} outs(%{{.*}} : memref<1x96x16x1xf32, {{.*}}>)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (32, 8)
// CHECK-LABEL: func.func @out_of_step
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.fill {strata.parallel = "0x0x2x0"}
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: linalg.fill {strata.parallel = "0x0x2x0"}
// CHECK-LABEL: func.func @ring_elsewhere
// CHECK-NOT: scf.forall (%{{.*}}) in (2)
// CHECK: return
func.func @ring(%x: memref<1x96x32x32xf32>, %arena: memref<443904xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %p = memref.view %arena[%c0][] : memref<443904xi8> to memref<1x96x34x34xf32>
  %top = memref.subview %p[0, 0, 0, 0] [1, 96, 1, 34] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x1x34xf32, strided<[110976, 1156, 34, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<1x96x1x34xf32, strided<[110976, 1156, 34, 1]>>)
  %left = memref.subview %p[0, 0, 1, 0] [1, 96, 32, 1] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 34>>
  linalg.fill ins(%zero : f32) outs(%left : memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 34>>)
  %right = memref.subview %p[0, 0, 1, 33] [1, 96, 32, 1] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 67>>
  linalg.fill ins(%zero : f32) outs(%right : memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 67>>)
  %inner = memref.subview %p[0, 0, 1, 1] [1, 96, 32, 32] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x32x32xf32, strided<[110976, 1156, 34, 1], offset: 35>>
  scf.forall (%r, %b) in (32, 8) {
    %c = affine.apply affine_map<(d0) -> (d0 * 12)>(%b)
    %v = memref.load %x[%c0, %c, %r, %c0] : memref<1x96x32x32xf32>
    memref.store %v, %inner[%c0, %c, %r, %c0] : memref<1x96x32x32xf32, strided<[110976, 1156, 34, 1], offset: 35>>
  }
  return
}
func.func @out_of_step(%x: memref<1x96x32x32xf32>, %arena: memref<443904xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %p = memref.view %arena[%c0][] : memref<443904xi8> to memref<1x96x34x34xf32>
  %left = memref.subview %p[0, 0, 1, 0] [1, 96, 32, 1] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 34>>
  linalg.fill ins(%zero : f32) outs(%left : memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 34>>)
  %right = memref.subview %p[0, 0, 2, 33] [1, 96, 32, 1] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 101>>
  linalg.fill ins(%zero : f32) outs(%right : memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 101>>)
  %inner = memref.subview %p[0, 0, 1, 1] [1, 96, 32, 32] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x32x32xf32, strided<[110976, 1156, 34, 1], offset: 35>>
  scf.forall (%r, %b) in (32, 8) {
    %c = affine.apply affine_map<(d0) -> (d0 * 12)>(%b)
    %v = memref.load %x[%c0, %c, %r, %c0] : memref<1x96x32x32xf32>
    memref.store %v, %inner[%c0, %c, %r, %c0] : memref<1x96x32x32xf32, strided<[110976, 1156, 34, 1], offset: 35>>
  }
  return
}
func.func @ring_elsewhere(%arena: memref<443904xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %p = memref.view %arena[%c0][] : memref<443904xi8> to memref<1x96x34x34xf32>
  %left = memref.subview %p[0, 0, 1, 0] [1, 96, 32, 1] [1, 1, 1, 1] : memref<1x96x34x34xf32> to memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 34>>
  linalg.fill ins(%zero : f32) outs(%left : memref<1x96x32x1xf32, strided<[110976, 1156, 34, 1], offset: 34>>)
  return
}
