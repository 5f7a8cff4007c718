//! `strata-approximate-math`: every f32 `math.exp`, `math.tanh` and `math.erf` (scalar or
//! vector) becomes inline arithmetic, so the loops around it vectorise.
//!
//! LLVM lowers them to calls of `expf`, `tanhf` and `erff`, which its loop vectoriser cannot
//! widen without a vector math library (and the JIT links none): softmax, sigmoid, SiLU, GELU
//! and the recurrent cells' gates ran one element at a time (BERT-tiny's two GELUs: 0.6 ms, an
//! eighth of the model). MLIR's polynomial approximation is only a test pass (not in the C
//! API), so this pass writes the approximations itself.
//!
//! `exp` is the classic range reduction (Cephes' `expf`):
//! `n = roundeven(x log2(e))`, `r = x - n ln(2)` in two parts (exact high part), `e^r` by a
//! degree-6 polynomial on [-ln(2)/2, ln(2)/2], scaled by `2^n` as two exponent-field
//! products (so `n` from -150 to 128 stays exact, denormal results included). Error at most
//! 2 ulp on the whole range. `x` is clamped to [-104, 89], where the scaling itself rounds to
//! 0 and overflows to +inf (the exact results are below half the least denormal and above
//! the largest float), so no compare and select handles the ends; NaN stays NaN (one select).
//!
//! On AVX-512 hosts (option `scale`, `host` by default) a 16-lane `exp` scales by `2^n` with
//! `vscalefps` (`llvm.x86.avx512.mask.scalef.ps.512`: one rounding, denormals and overflow
//! included) instead of the two exponent-field products and their integer arithmetic (nine
//! instructions, on the ports the polynomial's FMAs need): softmax's 64K exponentials and
//! their kernel 0.047-0.050 -> 0.037-0.039 ms, alternating runs.
//!
//! The range reduction's and the polynomials' products and sums are `fastmath<contract>`:
//! LLVM fuses them into FMAs on hosts that have them (one rounding instead of two; softmax's
//! exponentials 0.057 -> 0.044 ms for 64K elements), and keeps them apart elsewhere.
//!
//! `tanh` and `erf` are odd rational functions `x p(x^2) / q(x^2)` (minimax fits, the
//! coefficients Eigen and XLA use): `tanh` with `x` clamped to +-7.9053 (where it rounds to
//! +-1) and `|x| < 0.0004` returned as `x`, `erf` with `x` clamped to +-4. Measured against
//! `math.tanh`/`math.erf` in f64 on 4.2M points from 1e-8 to 12: at most 6 ulp (tanh) and
//! 7 ulp (erf), relative error under 4.2e-7; NaN stays NaN (it propagates through the clamp
//! and the arithmetic).

use crate::f32_kernel::{splat, with_element};
use melior::ir::operation::OperationRef;
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::KernelCache;

pub static INFO: PassInfo = PassInfo {
    name: "strata-approximate-math",
    summary: "f32 math.exp, math.tanh and math.erf as inline arithmetic (exp within 2 ulp, tanh and erf within 7), so loops calling them vectorise",
    anchor: "func.func",
    options: &[OptionInfo {
        name: "scale",
        kind: OptionKind::Enum(&["host", "avx512", "portable"]),
        default: "host",
        help: "how exp scales by 2^n in 16-lane vectors: avx512 (vscalefps), portable (exponent-field products), host (avx512 where the host has it)",
    }],
    statistics: &[
        StatisticInfo { name: "exps", help: "math.exp ops on f32 rewritten" },
        StatisticInfo { name: "tanhs", help: "math.tanh ops on f32 rewritten" },
        StatisticInfo { name: "erfs", help: "math.erf ops on f32 rewritten" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    let scalef = match options.string("scale") {
        "avx512" => true,
        "portable" => false,
        _ => strata_machine::host_has_avx512(),
    };
    Box::new(ApproximateMath { scalef })
}

struct ApproximateMath {
    /// 16-lane `exp` scales with AVX-512's `vscalefps`.
    scalef: bool,
}

/// `x p(x^2) / q(x^2)` for `%x` of type `ty`: `p` and `q` Horner's coefficients from the
/// highest power down, `x` first clamped to `[-bound, bound]`. The body of a kernel function
/// whose result is `%r`.
fn odd_rational(ty: &str, bound: &str, p: &[&str], q: &[&str]) -> String {
    let f = |value: &str| splat(value, ty);
    let mut body = format!(
        "  %hi = arith.constant {hi}\n  %lo = arith.constant {lo}\n  %c0 = arith.minimumf %x, %hi : {ty}\n  %c = arith.maximumf %c0, %lo : {ty}\n  %x2 = arith.mulf %c, %c : {ty}\n",
        hi = f(bound),
        lo = f(&format!("-{bound}")),
    );
    for (name, coefficients) in [("p", p), ("q", q)] {
        body += &format!("  %{name}0 = arith.constant {}\n", f(coefficients[0]));
        for (i, c) in coefficients.iter().enumerate().skip(1) {
            body += &format!(
                "  %{name}k{i} = arith.constant {}\n  %{name}m{i} = arith.mulf %{name}{}, %x2 fastmath<contract> : {ty}\n  %{name}{i} = arith.addf %{name}m{i}, %{name}k{i} fastmath<contract> : {ty}\n",
                f(c),
                i - 1
            );
        }
    }
    let (np, nq) = (p.len() - 1, q.len() - 1);
    body += &format!("  %px = arith.mulf %p{np}, %c : {ty}\n  %r = arith.divf %px, %q{nq} : {ty}\n");
    body
}

/// The kernel: `tanh(x)` for `%x` of type `ty` (f32 or a vector of f32).
fn tanh_kernel(ty: &str) -> Option<String> {
    let flag = with_element(ty, "i1")?;
    let body = odd_rational(
        ty,
        "7.90531110763549805",
        &[
            "-2.76076847742355e-16",
            "2.00018790482477e-13",
            "-8.60467152213735e-11",
            "5.12229709037114e-08",
            "1.48572235717979e-05",
            "6.37261928875436e-04",
            "4.89352455891786e-03",
        ],
        &["1.19825839466702e-06", "1.18534705686654e-04", "2.26843463243900e-03", "4.89352518554385e-03"],
    );
    Some(format!(
        "func.func private @tanh(%x: {ty}) -> {ty} {{\n{body}  %tiny = arith.constant {tiny}\n  %a = math.absf %x : {ty}\n  %small = arith.cmpf olt, %a, %tiny : {ty}\n  %y = arith.select %small, %x, %r : {flag}, {ty}\n  return %y : {ty}\n}}\n",
        tiny = splat("4.0e-04", ty),
    ))
}

/// The kernel: `erf(x)` for `%x` of type `ty` (f32 or a vector of f32).
fn erf_kernel(ty: &str) -> Option<String> {
    with_element(ty, "i1")?;
    let body = odd_rational(
        ty,
        "4.0",
        &[
            "-2.72614225801306e-10",
            "2.77068142495902e-08",
            "-2.10102402082508e-06",
            "-5.69250639462346e-05",
            "-7.34990630326855e-04",
            "-2.95459980854025e-03",
            "-1.60960333262415e-02",
        ],
        &[
            "-1.45660718464996e-05",
            "-2.13374055278905e-04",
            "-1.68282697438203e-03",
            "-7.37332916720468e-03",
            "-1.42647390514189e-02",
        ],
    );
    Some(format!("func.func private @erf(%x: {ty}) -> {ty} {{\n{body}  return %r : {ty}\n}}\n"))
}

/// The kernel: `e^x` for `%x` of type `ty` (f32 or a vector of f32); `scalef`: a 16-lane
/// vector scales with `vscalefps`.
fn kernel(ty: &str, scalef: bool) -> Option<String> {
    let (int, flag) = (with_element(ty, "i32")?, with_element(ty, "i1")?);
    let scaling = if scalef && ty == "vector<16xf32>" {
        // Every lane (mask -1), the current rounding direction (4); `%nf` is integral.
        format!(
            "  %all = arith.constant -1 : i16
  %current = arith.constant 4 : i32
  %y2 = llvm.call_intrinsic \"llvm.x86.avx512.mask.scalef.ps.512\"(%y, %nf, %y, %all, %current) : ({ty}, {ty}, {ty}, i16, i32) -> {ty}
"
        )
    } else {
        format!(
            "  %n = arith.fptosi %nf : {ty} to {int}
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
"
        )
    };
    let f = |value: &str| splat(value, ty);
    let i = |value: &str| splat(value, &int);
    Some(format!(
        "func.func private @exp(%x: {ty}) -> {ty} {{
  %lo = arith.constant {lo}
  %hi = arith.constant {hi}
  %log2e = arith.constant {log2e}
  %c1 = arith.constant {c1}
  %c2 = arith.constant {c2}
  %p0 = arith.constant {p0}
  %p1 = arith.constant {p1}
  %p2 = arith.constant {p2}
  %p3 = arith.constant {p3}
  %p4 = arith.constant {p4}
  %p5 = arith.constant {p5}
  %one = arith.constant {one}
  %bias = arith.constant {bias}
  %shift = arith.constant {shift}
  %i1 = arith.constant {i1}
  %low = arith.maximumf %x, %lo : {ty}
  %xc = arith.minimumf %low, %hi : {ty}
  %scaled = arith.mulf %xc, %log2e : {ty}
  %nf = math.roundeven %scaled : {ty}
  %t1 = arith.mulf %nf, %c1 fastmath<contract> : {ty}
  %r1 = arith.subf %xc, %t1 fastmath<contract> : {ty}
  %t2 = arith.mulf %nf, %c2 fastmath<contract> : {ty}
  %r = arith.subf %r1, %t2 fastmath<contract> : {ty}
  %q0 = arith.mulf %p0, %r fastmath<contract> : {ty}
  %q1 = arith.addf %q0, %p1 fastmath<contract> : {ty}
  %q2 = arith.mulf %q1, %r fastmath<contract> : {ty}
  %q3 = arith.addf %q2, %p2 fastmath<contract> : {ty}
  %q4 = arith.mulf %q3, %r fastmath<contract> : {ty}
  %q5 = arith.addf %q4, %p3 fastmath<contract> : {ty}
  %q6 = arith.mulf %q5, %r fastmath<contract> : {ty}
  %q7 = arith.addf %q6, %p4 fastmath<contract> : {ty}
  %q8 = arith.mulf %q7, %r fastmath<contract> : {ty}
  %q9 = arith.addf %q8, %p5 fastmath<contract> : {ty}
  %rr = arith.mulf %r, %r fastmath<contract> : {ty}
  %q10 = arith.mulf %q9, %rr fastmath<contract> : {ty}
  %q11 = arith.addf %q10, %r fastmath<contract> : {ty}
  %y = arith.addf %q11, %one fastmath<contract> : {ty}
{scaling}  %nan = arith.cmpf uno, %x, %x : {ty}
  %y3 = arith.select %nan, %x, %y2 : {flag}, {ty}
  return %y3 : {ty}
}}
",
        lo = f("-1.040000000e+02"),
        hi = f("8.900000000e+01"),
        log2e = f("1.442695041e+00"),
        c1 = f("6.933593750e-01"),
        c2 = f("-2.121944400e-04"),
        p0 = f("1.987569150e-04"),
        p1 = f("1.398199951e-03"),
        p2 = f("8.333451907e-03"),
        p3 = f("4.166579590e-02"),
        p4 = f("1.666666546e-01"),
        p5 = f("5.000000120e-01"),
        one = f("1.000000000e+00"),
        bias = i("127"),
        shift = i("23"),
        i1 = i("1"),
    ))
}

/// The kernel builder of one math op for a result type (`None`: that type stays as it is).
type KernelFor<'a> = &'a dyn Fn(&str) -> Option<String>;

impl Pass for ApproximateMath {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        let scalef = self.scalef;
        let exp = move |ty: &str| kernel(ty, scalef);
        let ops: [(&str, KernelFor, &str); 3] =
            [("math.exp", &exp, "exps"), ("math.tanh", &tanh_kernel, "tanhs"), ("math.erf", &erf_kernel, "erfs")];
        for (name, make, statistic) in ops {
            for raw in collect(&func, |op| op.is(name) && op.result_count() == 1) {
                let op = raw.get();
                let ty = op.result(0).expect("one result").r#type().to_string();
                let Some(text) = make(&ty) else { continue };
                // Safety: `op` is replaced once and not used afterwards.
                unsafe { kernels.replace_op(cx, op, &text, "math approximation kernel")? };
                cx.bump(statistic, 1);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{erf_kernel, kernel, tanh_kernel};

    #[test]
    fn kernels_keep_their_type() {
        assert!(kernel("f32", true).unwrap().contains("arith.fptosi %nf : f32 to i32"));
        assert!(kernel("vector<16xf32>", false).unwrap().contains("dense<127> : vector<16xi32>"));
        assert!(kernel("vector<16xf32>", true).unwrap().contains("llvm.x86.avx512.mask.scalef.ps.512"));
        assert!(!kernel("vector<8xf32>", true).unwrap().contains("scalef"));
        assert_eq!(kernel("f64", false), None);
        assert!(tanh_kernel("vector<8xf32>")
            .unwrap()
            .contains("arith.select %small, %x, %r : vector<8xi1>, vector<8xf32>"));
        assert!(erf_kernel("f32").unwrap().contains("%r = arith.divf %px, %q4 : f32"));
        assert_eq!(tanh_kernel("f64"), None);
        assert_eq!(erf_kernel("f16"), None);
    }
}
