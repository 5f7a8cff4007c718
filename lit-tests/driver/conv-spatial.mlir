// Host convolutions with too few filters to fill half a vector register take output columns in
// the lanes (strata_machine::spatial_tiles; crates/target-cpu/src/conv_lanes.rs) and compute
// what float64 numpy does: 12 filters 3x3 with bias and a ReLU epilogue run on the
// accumulators, 36 filters 1x1 accumulating into a residual, and 4 filters read from a
// run-time input (transposed in the kernel); and grouped convolutions, each group's 2 filters
// over several rows (strata_machine::grouped_tiles): 32 columns, 28 (14 lanes of a vector),
// and rows at stride 2 (one a tile). References: lit-tests/frontend/inputs/make_fixtures.py.
// RUN: strata run %S/../frontend/inputs/conv_spatial.onnx --threads 1 --input x=%S/inputs/conv_spatial_x.npy --input r=%S/inputs/conv_spatial_r.npy --input w=%S/inputs/conv_spatial_w.npy --input z=%S/inputs/conv_spatial_z.npy --expect y1=%S/inputs/conv_spatial_y1.npy --expect y2=%S/inputs/conv_spatial_y2.npy --expect y3=%S/inputs/conv_spatial_y3.npy --expect y4=%S/inputs/conv_spatial_y4.npy --expect y5=%S/inputs/conv_spatial_y5.npy --expect y6=%S/inputs/conv_spatial_y6.npy | FileCheck %s
// RUN: strata run %S/../frontend/inputs/conv_spatial.onnx --threads 2 --disable small-models --input x=%S/inputs/conv_spatial_x.npy --input r=%S/inputs/conv_spatial_r.npy --input w=%S/inputs/conv_spatial_w.npy --input z=%S/inputs/conv_spatial_z.npy --expect y1=%S/inputs/conv_spatial_y1.npy --expect y2=%S/inputs/conv_spatial_y2.npy --expect y3=%S/inputs/conv_spatial_y3.npy --expect y4=%S/inputs/conv_spatial_y4.npy --expect y5=%S/inputs/conv_spatial_y5.npy --expect y6=%S/inputs/conv_spatial_y6.npy | FileCheck %s
// CHECK: expect 'y1': 0 of 6144 elements outside
// CHECK: expect 'y2': 0 of 18432 elements outside
// CHECK: expect 'y3': 0 of 2048 elements outside
// CHECK: expect 'y4': 0 of 4096 elements outside
// CHECK: expect 'y5': 0 of 6272 elements outside
// CHECK: expect 'y6': 0 of 3136 elements outside

// The steps are outer products of the tile's filter values and two vectors of 16 columns
// (AVX-512 lanes), the ReLU a vector op on the 12 x 32 accumulators; no convolution is left.
// RUN: strata compile %S/../frontend/inputs/conv_spatial.onnx --threads 1 --emit=linalg | strata-opt -p 'builtin.module(strata-cpu-schedule{vector-lanes=16})' --mlir-pass-statistics 2>&1 | FileCheck --check-prefix=SCHEDULE %s
// (The e-graph's schedule orders the kernels, hence -DAG.)
// SCHEDULE-NOT: linalg.conv_2d
// SCHEDULE-DAG: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<12xf32>, vector<32xf32>
// SCHEDULE-DAG: arith.maximumf %{{.*}}, %{{.*}} : vector<12x32xf32>
// SCHEDULE-DAG: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<4xf32>, vector<32xf32>
// SCHEDULE-DAG: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<2xf32>, vector<14xf32>
// SCHEDULE-NOT: linalg.conv_2d
// SCHEDULE: (S) 6 convolutions
// SCHEDULE: (S) 6 spatial-convolutions
