// Input from standard input (`-`) and output to a file with -o.
// RUN: cat %s | strata-opt - -o %t && FileCheck %s < %t
// RUN: cat %s | not strata-opt -p 'builtin.module(sg-verify{x=1})' 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: func.func @from_stdin
// ERR: error: invalid pass pipeline
func.func @from_stdin() {
  return
}
