// sg-fuse-elementwise: the e-graph with its fusion rule only. relu and exp become one kernel;
// the slice and the transpose stay copies.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-fuse-elementwise))' --mlir-pass-statistics 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: "sg.slice"
// CHECK: "sg.transpose"
// CHECK: "sg.fused"(%{{.*}}) {program = "relu(i0) exp(s0)"}
// CHECK: "sg.fused"(%{{.*}}) {program = "neg(i0)"}
// CHECK-NOT: linalg.
// CHECK: (S) 6 launches-before
// CHECK: (S) 5 launches-after
