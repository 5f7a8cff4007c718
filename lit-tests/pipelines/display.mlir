// Pipelines round-trip through Display: the canonical form parses back to itself, and named
// pipelines expand in place.
// RUN: strata-opt %s --dump-pass-pipeline -p ' builtin.module( func.func( cse , sg-compose-transposes ) ,canonicalize{ max-iterations=3  test-convergence } )' \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=CANON
// RUN: strata-opt %s --dump-pass-pipeline \
// RUN:   -p "$(strata-opt %s --dump-pass-pipeline -p 'builtin.module(func.func(cse,sg-compose-transposes),canonicalize{max-iterations=3 test-convergence})' 2>&1 >/dev/null)" \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=CANON
// RUN: strata-opt %s --dump-pass-pipeline -p 'builtin.module(sg-verify,strata-lower-to-llvm)' 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=NAMED

// CANON: {{^}}builtin.module(func.func(cse,sg-compose-transposes),canonicalize{max-iterations=3 test-convergence=true}){{$}}
// CANON-NOT: expanded

// NAMED: {{^}}builtin.module(sg-verify,strata-lower-to-llvm){{$}}
// NAMED-NEXT: {{^}}expanded: builtin.module(sg-verify,func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts){{$}}
func.func @f() {
  return
}
