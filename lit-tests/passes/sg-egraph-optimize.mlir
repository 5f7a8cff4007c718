// sg-egraph-optimize: the e-graph's choice applied to the IR. The seed example with a second
// reader (inputs/seed-views-reader.sg.mlir, `strata import` of
// frontend/inputs/seed_views_reader.onnx): the slice and the transpose are no copies any more;
// relu and exp are one fused kernel.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16}))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16}))' | strata-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16},sg-to-linalg))' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=LINALG
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16}),func.func(sg-to-linalg),strata-bufferize,func.func(memref-copy-to-linalg,plan-arena))' | FileCheck %s --check-prefix=PLAN
// Option `disable` leaves rule families out (`--disable`): without views the slice and the
// transpose are kernels again (5 launches, 4 buffers instead of 3 and 3); an unknown family
// is an error naming the known ones.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16 disable=views}))' --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=NOVIEWS
// RUN: not strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16 disable=views,loops}))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// An in-place write is an e-class of its own beside the value it computes; it keeps that
// value's ONNX node for its location (profiles and plan tables name kernels by it).
// RUN: strata-opt %S/inputs/in-place-location.sg.mlir -p 'builtin.module(func.func(sg-egraph-optimize{vector-lanes=16}))' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// LOC: "sg.fused"(%{{.*}}) {in_place = 1 : i64, program = "clip<0.0,6.0>(i0)"} {{.*}} loc([[CLIP:#loc[0-9]*]])
// LOC: [[CLIP]] = loc("clip")
// NOVIEWS: (S) 5 launches-after
// NOVIEWS: (S) 4 allocations-after
// UNKNOWN: error: 'func.func' op sg-egraph-optimize: option disable: unknown optimisation 'loops' (known: views, fusion, epilogues, in-place)

// The optimised function is sg only: each fused program reads a strided view of the conv's
// output (rows from 1, columns from 2; transposed for relu/exp).
// CHECK-LABEL: func.func @main
// CHECK: %[[CONV:.*]] = "sg.conv2d"
// CHECK-NOT: sg.slice
// CHECK-NOT: sg.transpose
// CHECK: %[[V1:.*]] = "sg.view"(%[[CONV]]) {offset = 18 : i64, sizes = array<i64: 1, 8, 9, 12>, strides = array<i64: 2048, 256, 16, 1>}
// CHECK: "sg.fused"(%[[V1]]) {program = "neg(i0)"}
// CHECK: %[[V2:.*]] = "sg.view"(%[[CONV]]) {offset = 18 : i64, sizes = array<i64: 1, 8, 12, 9>, strides = array<i64: 2048, 256, 1, 16>}
// CHECK: "sg.fused"(%[[V2]]) {program = "relu(i0) exp(s0)"}
// CHECK-NOT: linalg.
// CHECK-NOT: "sg.relu"
// CHECK-NOT: "sg.exp"
// CHECK: (S) 6 launches-before
// CHECK: (S) 3 launches-after
// CHECK: (S) 7 allocations-before
// CHECK: (S) 3 allocations-after
// CHECK: (S) 2 fused-kernels

// The optimised function prints and re-parses (and verifies) as it is.
// ROUNDTRIP: "sg.fused"({{.*}}) {program = "relu(i0) exp(s0)"}

// Lowered, each fused kernel reads the conv's output in place through an affine map on its own
// axes; the views are not computed.
// LINALG-DAG: #[[NEG:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2 + 1, d3 + 2)>
// LINALG-DAG: #[[T:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3 + 1, d2 + 2)>
// LINALG: linalg.generic {indexing_maps = [#[[NEG]], #{{[a-z0-9]+}}]{{.*}}ins(%[[CONV:.*]] : tensor<1x8x16x16xf32>)
// LINALG: arith.negf
// LINALG: linalg.generic {indexing_maps = [#[[T]], #{{[a-z0-9]+}}]{{.*}}ins(%[[CONV]] : tensor<1x8x16x16xf32>)
// LINALG: arith.maximumf
// LINALG-NEXT: math.exp
// LINALG-NOT: "sg.
// LINALG: (S) 2 views-folded

// After lowering and planning, the only intermediates are the conv's padded input and its
// output: the two fused kernels read the conv's buffer where it is and write the outputs.
// PLAN: func.func @main(%arg0: memref<1x4x16x16xf32>, %arg1: memref<1x8x12x9xf32>, %arg2: memref<1x8x9x12xf32>, %arg3: memref<{{[0-9]+}}xi8>)
// PLAN-COUNT-2: memref.view %arg3
// PLAN-NOT: memref.view %arg3
// PLAN: linalg.generic {{.*}} ins(%[[C:.*]] : memref<1x8x16x16xf32>) outs(%arg2 : memref<1x8x9x12xf32>)
// PLAN: linalg.generic {{.*}} ins(%[[C]] : memref<1x8x16x16xf32>) outs(%arg1 : memref<1x8x12x9xf32>)
// PLAN: return
