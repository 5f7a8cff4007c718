//! `sg-fuse-reductions`: a reduction whose operand is a fused elementwise program that nothing
//! else reads computes the program as it reduces. `reduce_sum(sg.fused "mul(i0,i1)"(v, v))`
//! (ONNX's `ReduceSumSquare`, `RMSNormalization`'s mean of squares, a variance) becomes one
//! `sg.fused` with `reduce = "reduce_sum"` and the reduction's `axes`, whose result is the
//! reduction's: the program's elements are never stored.
//!
//! Without it the program's result was a tensor of the operands' size, live from the program
//! to the reduction. When the program reads a strided view (the speech model's power spectrum
//! reads its STFT's output transposed) it could not even be written in place: a contiguous
//! copy of the whole spectrum sat beside it. A reduced program reads its operands through
//! their views' bases as any fused program does.
//!
//! Runs after the e-graph optimiser (which makes the `sg.fused` ops). Left alone: programs
//! that are epilogues (they run inside their kernel's tiles), already reduced, or read by
//! anything but the one reduction, and reductions over no axes. The same elements are
//! combined in the same order as the reduction alone would: results are bit-identical.

use crate::{Fused, SgOp};
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, ValueLike};
use strata_ir::rewrite::{collect, defining_op};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-fuse-reductions",
    summary: "Compute a fused elementwise program inside the reduction that alone reads it, never storing its elements",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "fused", help: "Reductions that compute their operand's program" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(FuseReductions)
}

struct FuseReductions;

impl Pass for FuseReductions {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        let reductions: Vec<Op> = collect(&func, |op| matches!(SgOp::of(op.get()), Some(SgOp::Reduction(_))));
        for raw in reductions {
            let Some(SgOp::Reduction(reduction)) = SgOp::of(raw.get()) else { continue };
            let axes = reduction.axes();
            let Some(program) = defining_op(reduction.input()).and_then(Fused::cast) else { continue };
            let plain = program.epilogue() != Some(1) && matches!(program.reduction(), Ok(None));
            if axes.is_empty() || !plain || Val::of(program.output()).users().len() != 1 {
                continue;
            }
            let Some(block) = raw.get().block() else { continue };
            let fused = Fused::build(
                context,
                raw.get().location(),
                &program.inputs(),
                &program.program(),
                None,
                None,
                Some(reduction.kind().op().name()),
                Some(&axes),
                reduction.output().r#type(),
            );
            let fused = Op::of(&block.insert_operation_before(raw.get(), fused));
            raw.result(0).replace_all_uses_with(fused.result(0));
            let old_program = Op::of(&program.op());
            // Safety: the reduction's uses were replaced and the program's only reader was the
            // reduction; neither is used after this.
            unsafe {
                raw.erase();
                old_program.erase();
            }
            cx.bump("fused", 1);
        }
        Ok(())
    }
}
