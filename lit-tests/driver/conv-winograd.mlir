// 3x3 stride-1 convolutions with many channels run as Winograd on the host (strata-winograd,
// strata-vectorize-winograd) and compute what float64 numpy does, within 1e-4 (F(4x4, 3x3)'s
// rounding; see winograd.rs): batch 2 with bias and ReLU in F(4x4, 3x3) (10 tiles a row, the
// 3 tile rows one band of 30 tiles in 32 lanes); 40 filters at 14 x 14 added to a residual in
// F(2x2, 3x3) (bands of 4 and 3 tile rows); on one thread and on two (the first one band the
// two threads split, the second a slot of the planned scratch each: the same sums). A head's
// 1x1 convolution into 1024 channels is the model's memory peak: the scratch fits under it
// (strata-winograd's budget).
// References: lit-tests/frontend/inputs/make_fixtures.py.
// RUN: strata run %S/../frontend/inputs/conv_winograd.onnx --threads 1 --input x=%S/inputs/conv_winograd_x.npy --input z=%S/inputs/conv_winograd_z.npy --input r=%S/inputs/conv_winograd_r.npy --expect y1=%S/inputs/conv_winograd_y1.npy --expect y2=%S/inputs/conv_winograd_y2.npy --expect y3=%S/inputs/conv_winograd_y3.npy --atol 1e-4 | FileCheck %s
// RUN: strata run %S/../frontend/inputs/conv_winograd.onnx --threads 2 --disable small-models --input x=%S/inputs/conv_winograd_x.npy --input z=%S/inputs/conv_winograd_z.npy --input r=%S/inputs/conv_winograd_r.npy --expect y1=%S/inputs/conv_winograd_y1.npy --expect y2=%S/inputs/conv_winograd_y2.npy --expect y3=%S/inputs/conv_winograd_y3.npy --atol 1e-4 | FileCheck %s
// RUN: strata compile %S/../frontend/inputs/conv_winograd.onnx --threads 2 --disable small-models --emit=memref | FileCheck --check-prefix=MEMREF %s

// CHECK: expect 'y1': 0 of 30720 elements outside
// CHECK: expect 'y2': 0 of 7840 elements outside
// CHECK: expect 'y3': 0 of 2048 elements outside

// No convolution is left; each is a kernel over a planned scratch (split, or two slots),
// whose zero fill is gone: the input transform's even and odd columns, the products' broadcast
// multiply-adds and the output transform's interleaved columns.
// MEMREF-NOT: linalg.conv_2d
// MEMREF-NOT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<{{[0-9]+}}xf32
// MEMREF: scf.forall (%{{.*}}) in (2)
// MEMREF: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// MEMREF: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// MEMREF: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23]
// MEMREF-NOT: linalg.conv_2d
