// Every user-facing error of strata-opt: clear message, location, non-zero exit, no panic.
// RUN: not strata-opt %s -p 'builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// RUN: not strata-opt %s -p 'builtin.module(cse;canonicalize)' 2>&1 | FileCheck %s --check-prefix=SEPARATOR
// RUN: not strata-opt %s -p 'func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not strata-opt %s -p 'builtin.module(func.func(no-such-pass))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata-opt %s -p 'builtin.module(sg-compose-transposes)' 2>&1 | FileCheck %s --check-prefix=NESTING
// RUN: not strata-opt %s -p 'builtin.module(sg-verify{strict=1})' 2>&1 | FileCheck %s --check-prefix=RUST-OPTION
// RUN: not strata-opt %s -p 'builtin.module(canonicalize{max-iterations=many})' 2>&1 | FileCheck %s --check-prefix=UPSTREAM-OPTION
// RUN: not strata-opt %s -p 'builtin.module(one-shot-bufferize)' 2>&1 | FileCheck %s --check-prefix=PASS-FAILED
// RUN: not strata-opt %S/inputs/unparsable.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not strata-opt %S/inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not strata-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not strata-opt %S/inputs/deep-nesting.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not strata-opt %s -p 'builtin.module(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(a(cse))))))))))))))))))))))))))))))))' 2>&1 | FileCheck %s --check-prefix=DEEP-PIPELINE

// UNCLOSED: error: invalid pass pipeline at column 30: missing ')' to close 'builtin.module('
// UNCLOSED-NEXT: builtin.module(func.func(cse)
// UNCLOSED-NEXT: {{^                               \^$}}

// SEPARATOR: error: invalid pass pipeline at column 19: expected ',' or ')' but found ';'

// ANCHOR: error: invalid pass pipeline at column 1: the pipeline is anchored on 'func.func', but it runs on a module: write 'builtin.module(func.func(cse))'

// UNKNOWN: error: invalid pass pipeline at column 26: unknown pass 'no-such-pass': it is neither a Strata pass nor an upstream MLIR pass (see --list-passes)

// NESTING: error: invalid pass pipeline at column 16: pass 'sg-compose-transposes' runs on 'func.func' ops but is nested under 'builtin.module': write 'func.func(sg-compose-transposes)'

// RUST-OPTION: error: invalid pass pipeline at column 16: pass 'sg-verify' takes no options, but 'strict' was given

// UPSTREAM-OPTION: error: invalid pass pipeline at column 16: pass 'canonicalize': for the --max-iterations option: 'many' value invalid for long argument!

// PASS-FAILED: errors.mlir:[[# @LINE + 5]]:8: error: op was not bufferized
// PASS-FAILED-NEXT: %0 = "sg.relu"(%x)
// PASS-FAILED-NEXT: {{^       \^$}}
// PASS-FAILED: error: pass 'one-shot-bufferize' failed
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "sg.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// PARSE: unparsable.mlir:3:10: error: custom op 'func.return' number of operands and types do not match: got 1 operands and 2 types
// PARSE-NEXT: return %x : tensor<4xf32>, i32
// PARSE-NEXT: {{^         \^$}}
// PARSE-NOT: panicked

// MISSING: error: cannot read '{{.*}}does-not-exist.mlir': No such file or directory

// FLAG: error: unexpected argument '--no-such-flag' found

// Nesting deep enough to overflow a recursive parser is refused first, at the first bracket
// past the limit.
// DEEP: deep-nesting.mlir:2:287: error: the IR nests deeper than 256 levels of brackets (regions, attributes, types): refused before parsing, which recurses once per level; flatten the IR
// DEEP-PIPELINE: error: invalid pass pipeline at column {{[0-9]+}}: the pipeline nests deeper than 32 anchors
