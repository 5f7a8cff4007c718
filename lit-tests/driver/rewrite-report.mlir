// `strata compile --emit=rewrite-report`: what the e-graph optimiser (strata-egraph) makes of
// the e-graph issue's seed example and its variants (fixtures from make_fixtures.py):
// x2 = conv(x1); x3 = x2[.., 1:10, 2:14]; x4 = x3 transposed; x5 = relu(x4); x6 = exp(x5).
// RUN: strata compile %S/../frontend/inputs/seed_views.onnx --emit=rewrite-report --report-json=%t.json | FileCheck %s --check-prefix=SEED
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: strata compile %S/../frontend/inputs/seed_views_reader.onnx --emit=rewrite-report | FileCheck %s --check-prefix=READER
// RUN: strata compile %S/../frontend/inputs/seed_views_output.onnx --emit=rewrite-report | FileCheck %s --check-prefix=OUTPUT
// RUN: strata compile %S/../frontend/inputs/seed_views_conv.onnx --emit=rewrite-report | FileCheck %s --check-prefix=CONV

// Slice and transpose become one strided view of the conv's output; relu and exp fuse into one
// kernel written in place through that view: 6 buffers -> 2 (input, conv), 5 launches -> 2,
// no copies.
// SEED:      before        after
// SEED-NEXT: allocations                 6            2
// SEED:      launches                    5            2
// SEED-NEXT: bytes copied             6912            0
// SEED:      program:
// SEED:        %[[CV:[0-9]+]] = sg.conv2d(%0, %1)
// SEED-NEXT:   %[[VIEW:[0-9]+]] = view %[[CV]] shape [1, 8, 12, 9] strides [2048, 256, 1, 16] offset 18
// SEED-NEXT:   %[[OUT:[0-9]+]] = fused! [relu(i0) exp(s0)] (%[[VIEW]]), written over %[[VIEW]]
// SEED-NEXT:   return %[[OUT]]
// SEED:      rules fired: {{.*}}elementwise-in-place {{.*}}fuse-elementwise 1{{.*}}slice-to-view 1, transpose-to-view 2
// SEED:      e-graph: {{[0-9]+}} e-nodes in {{[0-9]+}} classes from 7 graph nodes

// JSON:      "after": {
// JSON-NEXT:   "allocations": 2,
// JSON:        "bytes_copied": 0,
// JSON:        "launches": 2
// JSON:      "before": {
// JSON-NEXT:   "allocations": 6,
// JSON:        "bytes_copied": 6912,
// JSON:        "launches": 5

// x3 is also read by a Neg: the in-place write stays legal (Neg runs first, reading the view).
// READER:      allocations                 7            3
// READER:      launches                    6            3
// READER-NEXT: bytes copied             6912            0
// READER:      fused [neg(i0)]
// READER:      fused! [relu(i0) exp(s0)]

// x2 is also an output: writing into it is refused (one repair); the fused kernel writes a new
// buffer, still reading the strided view.
// OUTPUT:      allocations                 6            3
// OUTPUT:      launches                    5            2
// OUTPUT-NEXT: bytes copied             6912            0
// OUTPUT:      fused [relu(i0) exp(s0)]
// OUTPUT-NOT:  fused!
// OUTPUT:      {{[1-9]}} in-place repairs

// A conv after the transpose needs contiguous input: one gather copy replaces two copies.
// CONV:      allocations                 5            4
// CONV:      launches                    4            3
// CONV-NEXT: bytes copied             6912         3456
