// sg-egraph-optimize: the e-graph's choice applied to the IR. The seed example with a second
// reader (inputs/seed-views-reader.sg.mlir, `strata import` of
// frontend/inputs/seed_views_reader.onnx): the slice and the transpose are no copies any more;
// each fused kernel reads the conv's output in place through an affine map on its own axes
// (rows from 1, columns from 2; transposed for relu/exp), relu and exp in one generic.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize),func.func(sg-to-linalg),strata-bufferize,func.func(memref-copy-to-linalg,plan-arena))' | FileCheck %s --check-prefix=PLAN

// CHECK-DAG: #[[NEG:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2 + 1, d3 + 2)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3 + 1, d2 + 2)>
// CHECK-LABEL: func.func @main
// CHECK: %[[CONV:.*]] = "sg.conv2d"
// CHECK-NOT: sg.slice
// CHECK-NOT: sg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[NEG]], #{{[a-z0-9]+}}]{{.*}}ins(%[[CONV]] : tensor<1x8x16x16xf32>)
// CHECK: arith.negf
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{[a-z0-9]+}}]{{.*}}ins(%[[CONV]] : tensor<1x8x16x16xf32>)
// CHECK: arith.maximumf
// CHECK-NEXT: math.exp
// CHECK-NOT: "sg.relu"
// CHECK-NOT: "sg.exp"
// CHECK: (S) 6 launches-before
// CHECK: (S) 3 launches-after
// CHECK: (S) 7 allocations-before
// CHECK: (S) 3 allocations-after
// CHECK: (S) 2 fused-kernels

// After lowering and planning, the only intermediates are the conv's padded input and its
// output: the two fused kernels read the conv's buffer where it is and write the outputs.
// PLAN: func.func @main(%arg0: memref<1x4x16x16xf32>, %arg1: memref<1x8x12x9xf32>, %arg2: memref<1x8x9x12xf32>, %arg3: memref<{{[0-9]+}}xi8>)
// PLAN-COUNT-2: memref.view %arg3
// PLAN-NOT: memref.view %arg3
// PLAN: linalg.generic {{.*}} ins(%[[C:.*]] : memref<1x8x16x16xf32>) outs(%arg2 : memref<1x8x9x12xf32>)
// PLAN: linalg.generic {{.*}} ins(%[[C]] : memref<1x8x16x16xf32>) outs(%arg1 : memref<1x8x12x9xf32>)
// PLAN: return
