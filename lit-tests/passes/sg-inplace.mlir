// sg-inplace: the e-graph with its in-place rules only. Neg writes over the slice (its only
// reader besides the transpose, which is scheduled first) and exp over relu's result
// (`in_place = 1`); lowered, the generics' outs are their first operands, which bufferization
// then reuses.
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-inplace))' --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: strata-opt %S/inputs/seed-views-reader.sg.mlir -p 'builtin.module(func.func(sg-inplace,sg-to-linalg))' | FileCheck %s --check-prefix=LINALG

// CHECK-LABEL: func.func @main
// CHECK: %[[SLICE:.*]] = "sg.slice"
// CHECK: "sg.transpose"(%[[SLICE]])
// CHECK: "sg.fused"(%[[SLICE]]) {in_place = 1 : i64, program = "neg(i0)"}
// CHECK: %[[RELU:.*]] = "sg.fused"(%{{.*}}) {program = "relu(i0)"}
// CHECK: "sg.fused"(%[[RELU]]) {in_place = 1 : i64, program = "exp(i0)"}
// CHECK: (S) 7 allocations-before
// CHECK: (S) 5 allocations-after
// CHECK: (S) 2 in-place-kernels

// LINALG: %[[SLICE:.*]] = tensor.extract_slice
// LINALG: linalg.generic {{.*}} ins(%[[SLICE]] : {{.*}}) outs(%[[SLICE]] : {{.*}})
// LINALG: arith.negf
// LINALG: %[[RELU:.*]] = linalg.generic
// LINALG: linalg.generic {{.*}} ins(%[[RELU]] : {{.*}}) outs(%[[RELU]] : {{.*}})
// LINALG: math.exp
