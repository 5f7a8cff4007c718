//! `strata-math-calls`: the math ops `convert-math-to-llvm` leaves (integer powers, and what
//! LLVM has no intrinsic for: `erf`, `tanh` when not approximated) become calls: MLIR's
//! `convert-math-to-funcs` then `convert-math-to-libm`, as before, but only when the module
//! has such an op. Both are module passes that walk every op (13-21 ms each on a CNN whose
//! math ops are all gone by then: `strata-approximate-math` inlines the f32 ones the kernels
//! use).
//!
//! Part of `strata-host-to-llvm`, after `convert-math-to-llvm`.

use melior::ir::operation::OperationRef;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-math-calls",
    summary: "Math ops left after convert-math-to-llvm as calls (convert-math-to-funcs, convert-math-to-libm), run only when there is one",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "math-ops", help: "math ops found (0: the conversions skipped)" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(MathCalls)
}

struct MathCalls;

/// The conversions, in the order the host lowering always ran them.
const CONVERSIONS: &str = "builtin.module(convert-math-to-funcs,convert-math-to-libm)";

impl Pass for MathCalls {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let found = collect(&module, |op| op.name().starts_with("math.")).len();
        cx.bump("math-ops", found as u64);
        if found == 0 {
            return Ok(());
        }
        if strata_ir::llvm::run_pipeline_on(cx.strata(), Op::of(&module), CONVERSIONS) {
            Ok(())
        } else {
            cx.emit_op_error(module, "convert-math-to-funcs or convert-math-to-libm failed on the math ops left");
            Err(PassFailed)
        }
    }
}
