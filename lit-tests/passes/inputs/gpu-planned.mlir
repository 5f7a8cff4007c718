// A planned module (after plan-arena): a matmul, a fused bias+ReLU generic, and a transposed
// view copied into the output, with two constant globals. Shared by the GPU-path lit tests.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  memref.global "private" constant @bias : memref<8xf32> = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> {alignment = 64 : i64}
  memref.global "private" constant @weight : memref<8x8xf32> = dense<0.5> {alignment = 64 : i64}
  func.func @main(%x: memref<4x8xf32>, %y: memref<8x4xf32>, %arena: memref<256xi8>) attributes {strata.arena_arg = 2 : i64} {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %w = memref.get_global @weight : memref<8x8xf32>
    %b = memref.get_global @bias : memref<8xf32>
    %mm = memref.view %arena[%c0][] : memref<256xi8> to memref<4x8xf32>
    %act = memref.view %arena[%c128][] : memref<256xi8> to memref<4x8xf32>
    linalg.fill ins(%zero : f32) outs(%mm : memref<4x8xf32>)
    linalg.matmul ins(%x, %w : memref<4x8xf32>, memref<8x8xf32>) outs(%mm : memref<4x8xf32>)
    // A fused elementwise kernel: bias add and ReLU in one generic.
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : memref<4x8xf32>, memref<8xf32>) outs(%act : memref<4x8xf32>) {
    ^bb0(%in: f32, %bias: f32, %out: f32):
      %s = arith.addf %in, %bias : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    }
    // A view read: the transpose is a strided view of the arena, copied into the output.
    %t = memref.transpose %act (d0, d1) -> (d1, d0) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
    linalg.copy ins(%t : memref<8x4xf32, strided<[1, 8]>>) outs(%y : memref<8x4xf32>)
    return
  }
}
