// sg-convert-to-views: the e-graph with its view rules only. The slice and the transpose
// become strided reads of the conv's output (no copies); relu and exp stay separate kernels.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-convert-to-views))' --mlir-pass-statistics 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NOT: sg.slice
// CHECK-NOT: sg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}]{{.*}} ins(%0 : tensor<1x8x16x16xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: math.exp
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%0 : tensor<1x8x16x16xf32>)
// CHECK: arith.negf
// CHECK: (S) 6 launches-before
// CHECK: (S) 4 launches-after
