//! `strata-expand-bf16`: every `arith.truncf` from f32 to bf16 (scalar or vector) becomes
//! integer arithmetic: round to nearest even on the bit pattern, NaN kept a quiet NaN.
//!
//! A round trip, `arith.extf` back to f32 of such a truncation (what `sg.round_bf16` lowers
//! to: a bf16 op computed in f32), becomes the same rounding kept in f32 lanes: the rounded
//! bit pattern with its low 16 bits cleared, no i16 or bf16 value in between (the same bits).
//! The truncation's narrow vectors had cost LLVM dearly: the convolutions' register blocks are
//! vectors such as `vector<32x12xf32>`, whose rows became `<12 x i16>` and `<12 x bfloat>`
//! values, each widened back with its own shifts (bf16 MobileNetV2: 151K lines of LLVM IR
//! against the f32 model's 67K, code generation 1.9 s against 0.7).
//!
//! LLVM lowers the truncation to a call of `__truncsfbf2` on x86 machines without AVX-512 BF16
//! (a compiler-rt builtin that the JIT's process and the C runtime do not provide), so compiled
//! code would not load there. MLIR's `arith-expand{include-bf16}` has the same rewrite but also
//! expands every `maximumf`/`minimumf`, which the kernels use everywhere; this pass rewrites only
//! the truncations.

use crate::f32_kernel::{splat, with_element};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::TypeLike;
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::KernelCache;

pub static INFO: PassInfo = PassInfo {
    name: "strata-expand-bf16",
    summary: "Truncations from f32 to bf16 as integer arithmetic (round to nearest even), so compiled code calls no runtime library for them",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "truncations", help: "arith.truncf ops to bf16 rewritten" },
        StatisticInfo { name: "round-trips", help: "arith.extf ops of such a truncation back to f32 rounded in f32 lanes" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ExpandBf16)
}

struct ExpandBf16;

/// The steps both kernels share: `%x` (of type `source`) as its bits (`i32t`) rounded to
/// nearest even at bit 16 (`%rounded`; the bf16 value is its high half), with the constants
/// `%c16`.
fn rounded_bits(source: &str, i32t: &str) -> String {
    format!(
        "  %c16 = arith.constant {c16}
  %c1 = arith.constant {c1}
  %bias = arith.constant {bias}
  %bits = arith.bitcast %x : {source} to {i32t}
  %high = arith.shrui %bits, %c16 : {i32t}
  %odd = arith.andi %high, %c1 : {i32t}
  %round = arith.addi %odd, %bias : {i32t}
  %rounded = arith.addi %bits, %round : {i32t}
",
        c16 = splat("16", i32t),
        c1 = splat("1", i32t),
        bias = splat("32767", i32t),
    )
}

/// The kernel: `%x` of type `source` (f32 or a vector of f32) to bf16.
fn kernel(source: &str) -> Option<String> {
    let (i32t, i16t, bf16t, i1t) = (
        with_element(source, "i32")?,
        with_element(source, "i16")?,
        with_element(source, "bf16")?,
        with_element(source, "i1")?,
    );
    Some(format!(
        "func.func private @trunc(%x: {source}) -> {bf16t} {{
{rounded}  %qnan = arith.constant {qnan}
  %top = arith.shrui %rounded, %c16 : {i32t}
  %narrow = arith.trunci %top : {i32t} to {i16t}
  %nan = arith.cmpf uno, %x, %x : {source}
  %chosen = arith.select %nan, %qnan, %narrow : {i1t}, {i16t}
  %y = arith.bitcast %chosen : {i16t} to {bf16t}
  return %y : {bf16t}
}}
",
        rounded = rounded_bits(source, &i32t),
        qnan = splat("32704", &i16t),
    ))
}

/// The round trip through bf16 of `%x` of type `source` (f32 or a vector of f32), in f32
/// lanes: [`kernel`]'s rounding with the bits kept where they are, the low 16 cleared, a NaN
/// the quiet NaN [`kernel`] gives, widened back.
fn round_kernel(source: &str) -> Option<String> {
    let (i32t, i1t) = (with_element(source, "i32")?, with_element(source, "i1")?);
    Some(format!(
        "func.func private @round(%x: {source}) -> {source} {{
{rounded}  %high_half = arith.constant {mask}
  %qnan = arith.constant {qnan}
  %top = arith.andi %rounded, %high_half : {i32t}
  %nan = arith.cmpf uno, %x, %x : {source}
  %chosen = arith.select %nan, %qnan, %top : {i1t}, {i32t}
  %y = arith.bitcast %chosen : {i32t} to {source}
  return %y : {source}
}}
",
        rounded = rounded_bits(source, &i32t),
        // 0xFFFF0000 and 0x7FC00000 (the bits of bf16's quiet NaN 0x7FC0, widened).
        mask = splat("-65536", &i32t),
        qnan = splat("2143289344", &i32t),
    ))
}

impl Pass for ExpandBf16 {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        // A value's element type (its own type for a scalar), read without printing the type.
        let element = |value: strata_ir::Val| {
            let ty = value.r#type();
            strata_ir::types::vector_shape(ty).map_or(ty, |(_, element)| element)
        };
        let narrowing = |op: strata_ir::Op| {
            op.is("arith.truncf") && element(op.operand(0)).is_f32() && element(op.result(0)).is_bf16()
        };
        let round_trips = collect(&func, |op| {
            op.is("arith.extf") && element(op.result(0)).is_f32() && op.operand(0).owner().is_some_and(narrowing)
        });
        for ext in round_trips {
            let truncation = ext.operand(0).owner().expect("a round trip's truncation");
            let source = truncation.operand(0);
            let Some(text) = round_kernel(&source.r#type().to_string()) else { continue };
            // Safety: `ext` is replaced once and not used afterwards; the truncation, which
            // `source` comes from, stays until it has no uses left.
            unsafe { kernels.replace_op_with(cx, ext, &[source], &text, "bf16 rounding kernel")? };
            // Safety: erased only when nothing reads it; not used afterwards.
            unsafe { strata_ir::rewrite::erase_if_unused(truncation) };
            cx.bump("round-trips", 1);
        }
        let truncations =
            collect(&func, |op| op.is("arith.truncf") && op.result_count() == 1 && element(op.result(0)).is_bf16());
        for raw in truncations {
            let op = raw.get();
            let source = op.operand(0).expect("truncf has an operand").r#type().to_string();
            let Some(text) = kernel(&source) else { continue };
            // Safety: `op` is replaced once and not used afterwards.
            unsafe { kernels.replace_op(cx, op, &text, "bf16 truncation kernel")? };
            cx.bump("truncations", 1);
        }
        Ok(())
    }
}

/// The definition of `__truncsfbf2` (f32 to bf16, round to nearest even, NaN a quiet NaN),
/// `weak_odr` and hidden, never optimised or inlined.
const TRUNCATION: &str = r#"module {
  llvm.func weak_odr hidden @__truncsfbf2(%x: f32) -> bf16 attributes {passthrough = ["noinline", "optnone"]} {
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %bias = llvm.mlir.constant(32767 : i32) : i32
    %qnan = llvm.mlir.constant(32704 : i16) : i16
    %bits = llvm.bitcast %x : f32 to i32
    %high = llvm.lshr %bits, %c16 : i32
    %odd = llvm.and %high, %c1 : i32
    %round = llvm.add %odd, %bias : i32
    %sum = llvm.add %bits, %round : i32
    %top = llvm.lshr %sum, %c16 : i32
    %half = llvm.trunc %top : i32 to i16
    %nan = llvm.fcmp "uno" %x, %x : f32
    %pick = llvm.select %nan, %qnan, %half : i1, i16
    %result = llvm.bitcast %pick : i16 to bf16
    llvm.return %result : bf16
  }
}
"#;

/// Defines `__truncsfbf2` in `module` (LLVM dialect), the compiler-rt builtin that LLVM's x86
/// backend calls for an f32 to bf16 truncation on hosts without AVX-512 BF16, which neither the
/// JIT's process nor the C runtime provides. `strata-expand-bf16` leaves no truncation of its
/// own, but LLVM makes new ones: it narrows a `maximum` of two extended bf16 values (exact in
/// bf16) back to a bf16 `maximum`, which the backend computes in f32 and truncates. Without
/// the definition, such models (the bf16 Attention and Celu node tests, say) failed to load on
/// AVX2 machines ("Symbols not found: __truncsfbf2"). `weak_odr` and hidden: one definition
/// per linked library whatever the number of objects, none exported. Unoptimised (`optnone`),
/// so that LLVM cannot recognise its body as a truncation and call itself.
pub fn define_truncation(strata: &strata_ir::StrataContext, module: &melior::ir::Module<'_>) -> Result<(), String> {
    let defined = strata_ir::Blk::of(&module.body())
        .ops()
        .into_iter()
        .any(|op| op.is("llvm.func") && op.symbol_name().as_deref() == Some("__truncsfbf2"));
    if defined {
        return Ok(());
    }
    let helper = strata.parse(TRUNCATION, "bf16 truncation").map_err(|e| e.to_string())?;
    let function = strata_ir::Blk::of(&helper.body()).first().ok_or("empty bf16 truncation module")?;
    strata_ir::Blk::of(&module.body()).append(function.clone_detached());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::kernel;
    use crate::f32_kernel::with_element;

    #[test]
    fn types_keep_their_shape() {
        assert_eq!(with_element("f32", "i32").as_deref(), Some("i32"));
        assert_eq!(with_element("vector<4x8xf32>", "bf16").as_deref(), Some("vector<4x8xbf16>"));
        assert_eq!(with_element("f64", "i32"), None);
        assert!(kernel("vector<8xf32>").unwrap().contains("dense<32767> : vector<8xi32>"));
    }
}
