// sg-convert-to-views: the e-graph with its view rules only. The slice and the transpose
// become strided reads of the conv's output (no copies); relu and exp stay separate kernels.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-convert-to-views))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-convert-to-views,sg-to-linalg))' | FileCheck %s --check-prefix=LINALG

// CHECK-LABEL: func.func @main
// CHECK-NOT: sg.slice
// CHECK-NOT: sg.transpose
// CHECK: %[[T:.*]] = "sg.view"(%0) {offset = 18 : i64, sizes = array<i64: 1, 8, 12, 9>, strides = array<i64: 2048, 256, 1, 16>}
// CHECK: %[[RELU:.*]] = "sg.fused"(%[[T]]) {program = "relu(i0)"}
// CHECK: "sg.fused"(%[[RELU]]) {program = "exp(i0)"}
// CHECK: %[[S:.*]] = "sg.view"(%0)
// CHECK: "sg.fused"(%[[S]]) {program = "neg(i0)"}

// LINALG: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}]{{.*}} ins(%[[CONV:.*]] : tensor<1x8x16x16xf32>)
// LINALG: arith.maximumf
// LINALG-NOT: math.exp
// LINALG: linalg.generic
// LINALG: math.exp
// LINALG: linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x8x16x16xf32>)
// LINALG: arith.negf
// CHECK: (S) 6 launches-before
// CHECK: (S) 4 launches-after
