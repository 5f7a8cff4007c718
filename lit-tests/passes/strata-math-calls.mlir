// strata-math-calls: the math ops left after convert-math-to-llvm become calls through
// convert-math-to-funcs (integer powers: a generated function) and convert-math-to-libm
// (`erf` on f64: libm's); a module without any skips both conversions (they walk every op).
// RUN: strata-opt %s -p 'builtin.module(strata-math-calls)' --split-input-file | FileCheck %s
// RUN: strata-opt %s -p 'builtin.module(strata-math-calls)' --split-input-file --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// CHECK: func.func private @erf(f64) -> f64
// CHECK-LABEL: func.func @left
// CHECK: call @__mlir_math_ipowi_i32
// CHECK: call @erf(%{{.*}}) : (f64) -> f64
// CHECK-NOT: math.
// CHECK: func.func private @__mlir_math_ipowi_i32
// Statistics add up over the two modules: the second finds none.
// STATS: (S) 2 math-ops
func.func @left(%a: i32, %b: i32, %x: f64) -> (i32, f64) {
  %p = math.ipowi %a, %b : i32
  %e = math.erf %x : f64
  return %p, %e : i32, f64
}

// -----

// Nothing left: the module as it was.
// CHECK-LABEL: func.func @none
// CHECK-NEXT: arith.addf
// CHECK-NEXT: return
func.func @none(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
