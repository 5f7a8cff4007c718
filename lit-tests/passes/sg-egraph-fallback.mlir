// sg-egraph-optimize never fails a compile. Issue #20's DenseNet-style block (ten layers of
// `t = Relu(cat); c = Conv1x1(t); cat = Concat(cat, c)`, frontend/inputs/dense_block.onnx): the
// storage validator refuses one in-place relu per layer. The repairs run up to the e-graph's
// in-place writes (at most max-repairs, 128 by default), so they converge after nine refusals
// with no warning, and the model computes what numpy does (references:
// frontend/inputs/make_fixtures.py); the nine refusals are on storages of their own, so one
// round bans them all. With no repair round allowed (max-repairs=0) the optimiser drops every
// in-place write, says so, and goes on.
// RUN: strata run %S/../frontend/inputs/dense_block.onnx --input x=%S/../driver/inputs/dense_block_x.npy --expect cat9=%S/../driver/inputs/dense_block_y.npy 2>&1 | FileCheck %s
// RUN: strata compile %S/../frontend/inputs/dense_block.onnx --emit=rewrite-report | FileCheck --check-prefix=REPORT %s
// RUN: strata compile %S/../frontend/inputs/dense_block.onnx --emit=sg -o %t.mlir
// RUN: strata-opt %t.mlir -p 'builtin.module(func.func(sg-egraph-optimize{max-repairs=0}))' 2>&1 | FileCheck --check-prefix=LIMIT %s

// CHECK-NOT: warning
// CHECK: expect 'cat9': 0 of 88 elements outside

// REPORT: 9 in-place repairs
// REPORT-NOT: in-place writes dropped

// LIMIT: warning: 'func.func' op sg-egraph-optimize: the in-place choices did not validate after the repair limit; no value is written in place
// LIMIT: func.func
