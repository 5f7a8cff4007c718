//! `strata-approximate-exp`: every f32 `math.exp` (scalar or vector) becomes inline
//! arithmetic, so the loops around it vectorise.
//!
//! LLVM lowers `math.exp` to a call of `expf`, which its loop vectoriser cannot widen without
//! a vector math library (and the JIT links none): softmax, sigmoid, SiLU and the recurrent
//! cells' gates ran one element at a time. MLIR's polynomial approximation is only a test pass
//! (not in the C API), so this pass writes the classic range reduction itself (Cephes' `expf`):
//! `n = floor(x log2(e) + 1/2)`, `r = x - n ln(2)` in two parts (exact high part), `e^r` by a
//! degree-6 polynomial on [-ln(2)/2, ln(2)/2], scaled by `2^n` as two exponent-field
//! products (so `n` from -150 to 128 stays exact, denormal results included). Error at most
//! 2 ulp on the whole range; `x > 88.72284` gives +inf, `x < -103.97` gives 0, NaN stays NaN.

use crate::f32_kernel::{splat, with_element};
use melior::ir::operation::OperationRef;
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::KernelCache;

pub static INFO: PassInfo = PassInfo {
    name: "strata-approximate-exp",
    summary: "f32 math.exp as inline arithmetic (range reduction and a degree-6 polynomial, within 2 ulp), so loops calling it vectorise",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "exps", help: "math.exp ops on f32 rewritten" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ApproximateExp)
}

struct ApproximateExp;

/// The kernel: `e^x` for `%x` of type `ty` (f32 or a vector of f32).
fn kernel(ty: &str) -> Option<String> {
    let (int, flag) = (with_element(ty, "i32")?, with_element(ty, "i1")?);
    let f = |value: &str| splat(value, ty);
    let i = |value: &str| splat(value, &int);
    Some(format!(
        "func.func private @exp(%x: {ty}) -> {ty} {{
  %lo = arith.constant {lo}
  %hi = arith.constant {hi}
  %log2e = arith.constant {log2e}
  %half = arith.constant {half}
  %c1 = arith.constant {c1}
  %c2 = arith.constant {c2}
  %p0 = arith.constant {p0}
  %p1 = arith.constant {p1}
  %p2 = arith.constant {p2}
  %p3 = arith.constant {p3}
  %p4 = arith.constant {p4}
  %p5 = arith.constant {p5}
  %one = arith.constant {one}
  %inf = arith.constant {inf}
  %zero = arith.constant {zero}
  %bias = arith.constant {bias}
  %shift = arith.constant {shift}
  %i1 = arith.constant {i1}
  %low = arith.maximumf %x, %lo : {ty}
  %xc = arith.minimumf %low, %hi : {ty}
  %scaled = arith.mulf %xc, %log2e : {ty}
  %rounded = arith.addf %scaled, %half : {ty}
  %nf = math.floor %rounded : {ty}
  %t1 = arith.mulf %nf, %c1 : {ty}
  %r1 = arith.subf %xc, %t1 : {ty}
  %t2 = arith.mulf %nf, %c2 : {ty}
  %r = arith.subf %r1, %t2 : {ty}
  %q0 = arith.mulf %p0, %r : {ty}
  %q1 = arith.addf %q0, %p1 : {ty}
  %q2 = arith.mulf %q1, %r : {ty}
  %q3 = arith.addf %q2, %p2 : {ty}
  %q4 = arith.mulf %q3, %r : {ty}
  %q5 = arith.addf %q4, %p3 : {ty}
  %q6 = arith.mulf %q5, %r : {ty}
  %q7 = arith.addf %q6, %p4 : {ty}
  %q8 = arith.mulf %q7, %r : {ty}
  %q9 = arith.addf %q8, %p5 : {ty}
  %rr = arith.mulf %r, %r : {ty}
  %q10 = arith.mulf %q9, %rr : {ty}
  %q11 = arith.addf %q10, %r : {ty}
  %y = arith.addf %q11, %one : {ty}
  %n = arith.fptosi %nf : {ty} to {int}
  %n1 = arith.shrsi %n, %i1 : {int}
  %n2 = arith.subi %n, %n1 : {int}
  %e1 = arith.addi %n1, %bias : {int}
  %e2 = arith.addi %n2, %bias : {int}
  %b1 = arith.shli %e1, %shift : {int}
  %b2 = arith.shli %e2, %shift : {int}
  %s1 = arith.bitcast %b1 : {int} to {ty}
  %s2 = arith.bitcast %b2 : {int} to {ty}
  %y1 = arith.mulf %y, %s1 : {ty}
  %y2 = arith.mulf %y1, %s2 : {ty}
  %over = arith.cmpf ogt, %x, %hi : {ty}
  %under = arith.cmpf olt, %x, %lo : {ty}
  %nan = arith.cmpf uno, %x, %x : {ty}
  %y3 = arith.select %over, %inf, %y2 : {flag}, {ty}
  %y4 = arith.select %under, %zero, %y3 : {flag}, {ty}
  %y5 = arith.select %nan, %x, %y4 : {flag}, {ty}
  return %y5 : {ty}
}}
",
        lo = f("-1.039720840e+02"),
        hi = f("8.872283911e+01"),
        log2e = f("1.442695041e+00"),
        half = f("5.000000000e-01"),
        c1 = f("6.933593750e-01"),
        c2 = f("-2.121944400e-04"),
        p0 = f("1.987569150e-04"),
        p1 = f("1.398199951e-03"),
        p2 = f("8.333451907e-03"),
        p3 = f("4.166579590e-02"),
        p4 = f("1.666666546e-01"),
        p5 = f("5.000000120e-01"),
        one = f("1.000000000e+00"),
        inf = f("0x7F800000"),
        zero = f("0.000000000e+00"),
        bias = i("127"),
        shift = i("23"),
        i1 = i("1"),
    ))
}

impl Pass for ApproximateExp {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        let exps = collect(&func, |op| op.is("math.exp") && op.result_count() == 1);
        for raw in exps {
            let op = raw.get();
            let ty = op.result(0).expect("exp has a result").r#type().to_string();
            let Some(text) = kernel(&ty) else { continue };
            // Safety: `op` is replaced once and not used afterwards.
            unsafe { kernels.replace_op(cx, op, &text, "exp approximation kernel")? };
            cx.bump("exps", 1);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::kernel;

    #[test]
    fn kernels_keep_their_type() {
        assert!(kernel("f32").unwrap().contains("arith.fptosi %nf : f32 to i32"));
        assert!(kernel("vector<16xf32>").unwrap().contains("dense<127> : vector<16xi32>"));
        assert_eq!(kernel("f64"), None);
    }
}
