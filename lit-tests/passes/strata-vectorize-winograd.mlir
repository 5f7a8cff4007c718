// strata-vectorize-winograd: after planning, a linalg.generic that strata-winograd marked
// strata.winograd becomes its kernel: per band of tile rows, each thread in its own slot of the
// planned scratch (an scf.forall over the slots), the input transform (here F(4x4, 3x3): four
// 16-lane loads a row split into its four column phases by halving shuffles, the transform's
// integer coefficients as splat multiplies, masked stores of the transformed tiles), the products (the
// transformed filter's values broadcast against vectors of tiles, summed over the channels)
// and the output transform (the four columns of each tile interleaved and added into the
// output). The zero fill of the scratch is dropped: the kernel writes the scratch before it
// reads it. Images of a batch run one after the other.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-winograd{threads=2}),strata-bufferize-and-plan,strata-vectorize-winograd)' --mlir-pass-statistics 2>&1 | FileCheck %s
// With CSE after strata-winograd (as the driver's pipeline has), the convolutions of a shape
// share one zero-filled scratch until strata-init-per-destination gives each its own again;
// planned at one offset, their views are one value, and each fill is still absorbed by the
// convolution right after it.
// RUN: strata-opt %s -p 'builtin.module(func.func(strata-winograd{threads=2},cse),strata-bufferize-and-plan,strata-vectorize-winograd)' | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @batch
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.fill {{.*}} memref<{{[0-9]+}}xf32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: vector.transfer_read %{{.*}} : memref<2x32x34x34xf32{{.*}}>, vector<16xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]
// CHECK: vector.maskedstore
// CHECK: memref.prefetch %{{.*}}, read, locality<3>, data : memref<36x4x32x8xf32{{.*}}>
// CHECK: memref.load %{{.*}} : memref<36x4x32x8xf32{{.*}}>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23]
// CHECK: vector.transfer_write %{{.*}} : vector<16xf32>, memref<2x32x32x32xf32{{.*}}>
// CHECK-NOT: linalg.generic
func.func @batch(%x: tensor<2x32x32x32xf32>, %init: tensor<2x32x32x32xf32>) -> (tensor<2x32x32x32xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  // An 8 MiB temporary, the function's memory peak: the scratch fits under it.
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<2x256x64x64xf32>) -> tensor<2x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<2x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x32x32x32xf32> to tensor<2x32x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<2x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<2x32x32x32xf32>) -> tensor<2x32x32x32xf32>
  return %y, %one : tensor<2x32x32x32xf32>, f32
}

// One band an image (a 4 x 128 output in F(4x4, 3x3): one row of 32 tiles): one slot of
// scratch for two threads; they split the band's channels (input transform) and filter blocks
// (products and output transform, each thread its own products).
// CHECK-LABEL: func.func @split
// CHECK: scf.for
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: vector.maskedstore
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.generic
func.func @split(%x: tensor<1x32x4x128xf32>, %init: tensor<1x32x4x128xf32>) -> (tensor<1x32x4x128xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256x64x64xf32>) -> tensor<1x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x4x128xf32> to tensor<1x32x6x130xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x6x130xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x4x128xf32>) -> tensor<1x32x4x128xf32>
  return %y, %one : tensor<1x32x4x128xf32>, f32
}

// 14 tile rows in bands of 2 on two threads: seven bands, six in the slots (three each), the
// seventh after them with the threads splitting its channels, then its filter blocks (it used
// to go to one slot: four bands against three).
// CHECK-LABEL: func.func @rest
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// CHECK: vector.maskedstore
// CHECK: scf.for %{{.*}} = %c6{{.*}} to %c7{{.*}} step %c1
// CHECK-NEXT: arith.muli
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: vector.maskedstore
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.generic
func.func @rest(%x: tensor<1x32x56x56xf32>, %init: tensor<1x32x56x56xf32>) -> (tensor<1x32x56x56xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<1x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256x64x64xf32>) -> tensor<1x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<1x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x56x56xf32> to tensor<1x32x58x58xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x58x58xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x56x56xf32>) -> tensor<1x32x56x56xf32>
  return %y, %one : tensor<1x32x56x56xf32>, f32
}

// Bands of runs of a tile row (a 224-wide map of 64 channels: 56 tiles a row in runs of 32):
// band b is tile row b / 2 and its run b % 2, the last run 24 tiles; the loops over vectors of
// tiles end at the run's length, columns counted from the run's start.
// CHECK-LABEL: func.func @runs
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c2
// CHECK: %[[RUN:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[X0:.*]] = arith.muli %[[RUN]], %c32
// CHECK: %[[LEFT:.*]] = arith.subi %c56{{.*}}, %[[X0]]
// CHECK: %[[CW:.*]] = arith.minsi %[[LEFT]], %c32
// CHECK: scf.for %[[TX:.*]] = %c0{{.*}} to %[[CW]] step %c16
// CHECK: arith.addi %[[X0]], %[[TX]]
// CHECK: vector.maskedstore
// CHECK: vector.transfer_write %{{.*}} : vector<16xf32>, memref<1x64x8x224xf32{{.*}}>
// CHECK-NOT: linalg.generic
func.func @runs(%x: tensor<1x64x8x224xf32>, %init: tensor<1x64x8x224xf32>) -> (tensor<1x64x8x224xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  // An 8 MiB temporary, the function's memory peak: the scratch fits under it.
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<2x256x64x64xf32>) -> tensor<2x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<2x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<64x64x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x64x8x224xf32> to tensor<1x64x10x226xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x64x10x226xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x8x224xf32>) -> tensor<1x64x8x224xf32>
  return %y, %one : tensor<1x64x8x224xf32>, f32
}

// Two convolutions sharing one filter (as the bands of one convolution do): both written,
// the filter's global read by neither afterwards dropped once.
// CHECK-LABEL: func.func @shared_filter
// CHECK-COUNT-2: scf.forall
// CHECK-NOT: linalg.generic
// CHECK: return
// CSE-LABEL: func.func @shared_filter
// CSE-NOT: linalg.fill {{.*}} memref<{{[0-9]+}}xf32
// CSE-COUNT-2: scf.forall
// CSE-NOT: linalg.fill {{.*}} memref<{{[0-9]+}}xf32
// CSE: return
func.func @shared_filter(%x: tensor<1x32x32x32xf32>, %x2: tensor<1x32x32x32xf32>, %init: tensor<1x32x32x32xf32>, %init2: tensor<1x32x32x32xf32>) -> (tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2x256x64x64xf32>
  %big = linalg.fill ins(%zero : f32) outs(%e : tensor<2x256x64x64xf32>) -> tensor<2x256x64x64xf32>
  %one = tensor.extract %big[%c0, %c0, %c0, %c0] : tensor<2x256x64x64xf32>
  %w = arith.constant dense<0.5> : tensor<32x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x32xf32> to tensor<1x32x34x34xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %p2 = tensor.pad %x2 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x32xf32> to tensor<1x32x34x34xf32>
  %y2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p2, %w : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init2 : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %y, %y2, %one : tensor<1x32x32x32xf32>, tensor<1x32x32x32xf32>, f32
}

// CHECK: Pass statistics report
// CHECK: strata-vectorize-winograd
// CHECK-NEXT: (S) 6 convolutions - Winograd convolutions written
