// sg-inplace: the e-graph with its in-place rules only. Neg writes over the slice (its only
// reader besides the transpose, which is scheduled first) and exp over relu's result: the
// generics' outs are their first operands, which bufferization then reuses.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-inplace))' --mlir-pass-statistics 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[SLICE:.*]] = "sg.slice"
// CHECK: "sg.transpose"(%[[SLICE]])
// CHECK: linalg.generic {{.*}} ins(%[[SLICE]] : {{.*}}) outs(%[[SLICE]] : {{.*}})
// CHECK: arith.negf
// CHECK: %[[RELU:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[RELU]] : {{.*}}) outs(%[[RELU]] : {{.*}})
// CHECK: math.exp
// CHECK: (S) 7 allocations-before
// CHECK: (S) 5 allocations-after
// CHECK: (S) 2 in-place-kernels
