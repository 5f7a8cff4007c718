// strata-ring-in-producer (memref stage, host schedule, before strata-parallelize): the fills of
// a padded buffer's side columns (column 0 and the last, rows 1..=H, every channel) move into
// the loop that writes its rows, when that loop's one write into the buffer is a whole row block
// `[nc, W]` of the interior and its loops walk every channel block and every row once: each
// fill lands right after the write, on `[1, nc, 1, 1]` of the written rows. Anything else
// keeps its fills.
// RUN: strata-opt %s --split-input-file -p 'builtin.module(strata-ring-in-producer)' | FileCheck %s
// RUN: strata-opt %s --split-input-file -p 'builtin.module(strata-ring-in-producer)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// A 16-channel 4 x 4 interior in a 6 x 6 padded buffer, written in blocks of 8 channels by 4.
// CHECK-LABEL: func.func @moved
// CHECK-NOT: linalg.fill
// CHECK: scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step
// CHECK: scf.for %[[CH:.+]] = %{{.+}} to %{{.+}} step
// CHECK: %[[R1:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// CHECK: %[[LEFT:.+]] = memref.subview %{{.+}}[0, %[[CH]], %[[R1]], 0] [1, 8, 1, 1] [1, 1, 1, 1]
// CHECK: %[[R2:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// CHECK: %[[RIGHT:.+]] = memref.subview %{{.+}}[0, %[[CH]], %[[R2]], 5] [1, 8, 1, 1] [1, 1, 1, 1]
// CHECK: vector.transfer_write
// CHECK-DAG: linalg.fill ins(%{{.+}} : f32) outs(%[[LEFT]] :
// CHECK-DAG: linalg.fill ins(%{{.+}} : f32) outs(%[[RIGHT]] :
func.func @moved(%in: memref<16x4xf32>, %p: memref<1x16x6x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %left = memref.subview %p[0, 0, 1, 0] [1, 16, 4, 1] [1, 1, 1, 1] : memref<1x16x6x6xf32> to memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 6>>
  linalg.fill ins(%zero : f32) outs(%left : memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 6>>)
  %right = memref.subview %p[0, 0, 1, 5] [1, 16, 4, 1] [1, 1, 1, 1] : memref<1x16x6x6xf32> to memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 11>>
  linalg.fill ins(%zero : f32) outs(%right : memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 11>>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x16x6x6xf32> to memref<1x16x4x4xf32, strided<[576, 36, 6, 1], offset: 7>>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %c = %c0 to %c16 step %c8 {
      %v = vector.transfer_read %in[%c, %c0], %zero {in_bounds = [true, true]} : memref<16x4xf32>, vector<8x4xf32>
      %block = memref.subview %interior[0, %c, %r, 0] [1, 8, 1, 4] [1, 1, 1, 1] : memref<1x16x4x4xf32, strided<[576, 36, 6, 1], offset: 7>> to memref<1x8x1x4xf32, strided<[576, 36, 6, 1], offset: ?>>
      %flat = memref.subview %block[0, 0, 0, 0] [1, 8, 1, 4] [1, 1, 1, 1] : memref<1x8x1x4xf32, strided<[576, 36, 6, 1], offset: ?>> to memref<8x4xf32, strided<[36, 1], offset: ?>>
      vector.transfer_write %v, %flat[%c0, %c0] {in_bounds = [true, true]} : vector<8x4xf32>, memref<8x4xf32, strided<[36, 1], offset: ?>>
    }
  }
  return
}

// -----

// Rows walked by 2: rows 1, 3 of the interior are never written by the loop, so the fills stay.
// CHECK-LABEL: func.func @every_other_row
// CHECK: linalg.fill
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @every_other_row(%in: memref<16x4xf32>, %p: memref<1x16x6x6xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %left = memref.subview %p[0, 0, 1, 0] [1, 16, 4, 1] [1, 1, 1, 1] : memref<1x16x6x6xf32> to memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 6>>
  linalg.fill ins(%zero : f32) outs(%left : memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 6>>)
  %right = memref.subview %p[0, 0, 1, 5] [1, 16, 4, 1] [1, 1, 1, 1] : memref<1x16x6x6xf32> to memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 11>>
  linalg.fill ins(%zero : f32) outs(%right : memref<1x16x4x1xf32, strided<[576, 36, 6, 1], offset: 11>>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x16x6x6xf32> to memref<1x16x4x4xf32, strided<[576, 36, 6, 1], offset: 7>>
  scf.for %r = %c0 to %c4 step %c2 {
    scf.for %c = %c0 to %c16 step %c8 {
      %v = vector.transfer_read %in[%c, %c0], %zero {in_bounds = [true, true]} : memref<16x4xf32>, vector<8x4xf32>
      %block = memref.subview %interior[0, %c, %r, 0] [1, 8, 1, 4] [1, 1, 1, 1] : memref<1x16x4x4xf32, strided<[576, 36, 6, 1], offset: 7>> to memref<1x8x1x4xf32, strided<[576, 36, 6, 1], offset: ?>>
      %flat = memref.subview %block[0, 0, 0, 0] [1, 8, 1, 4] [1, 1, 1, 1] : memref<1x8x1x4xf32, strided<[576, 36, 6, 1], offset: ?>> to memref<8x4xf32, strided<[36, 1], offset: ?>>
      vector.transfer_write %v, %flat[%c0, %c0] {in_bounds = [true, true]} : vector<8x4xf32>, memref<8x4xf32, strided<[36, 1], offset: ?>>
    }
  }
  return
}

// STATS: (S) 2 moved - side-column fills moved into their rows' producer
