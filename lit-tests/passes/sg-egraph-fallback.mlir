// sg-egraph-optimize never fails a compile. Issue #20's DenseNet-style block (ten layers of
// `t = Relu(cat); c = Conv1x1(t); cat = Concat(cat, c)`, frontend/inputs/dense_block.onnx): the
// storage validator keeps refusing the in-place relus past the repair limit, so the optimiser
// drops every in-place write, says so, and the model still computes what numpy does
// (references: frontend/inputs/make_fixtures.py).
// RUN: strata run %S/../frontend/inputs/dense_block.onnx --input x=%S/../driver/inputs/dense_block_x.npy --expect cat9=%S/../driver/inputs/dense_block_y.npy 2>&1 | FileCheck %s
// RUN: strata compile %S/../frontend/inputs/dense_block.onnx --emit=rewrite-report | FileCheck --check-prefix=REPORT %s

// CHECK: warning: 'func.func' op sg-egraph-optimize: the in-place choices did not validate after the repair limit; no value is written in place
// CHECK: expect 'cat9': 0 of 88 elements outside

// REPORT: 8 in-place repairs
// REPORT: in-place writes dropped: the validator's refusals did not converge
