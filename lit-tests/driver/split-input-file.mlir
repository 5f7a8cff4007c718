// --split-input-file: each chunk is parsed and run on its own; outputs are joined by
// `// -----`; an error in one chunk does not stop the others, and its line number is that of
// the whole file.
// RUN: strata-opt %s --split-input-file | FileCheck %s
// RUN: not strata-opt %S/inputs/split-with-error.mlir --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: not strata-opt %S/inputs/split-with-error.mlir --split-input-file 2>/dev/null | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK: // -----
// CHECK-LABEL: func.func @third
func.func @first() {
  return
}

// -----

func.func @second() {
  return
}

// -----

func.func @third() {
  return
}

// ERR: split-with-error.mlir:9:3: error: 'func.return' op has 0 operands, but enclosing function (@broken) returns 1
// ERR-NOT: {{^.*}}: error:

// OUT: func.func @ok
// OUT: // -----
// OUT: func.func @also_ok
