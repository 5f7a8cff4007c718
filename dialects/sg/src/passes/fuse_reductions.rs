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
//! their views' bases as any fused program does; an `sg.transpose` that only the program
//! reads (the e-graph materialises one for a program to write in place over) becomes an
//! `sg.view` of its input, since a reduced program writes nothing there.
//!
//! Runs after the e-graph optimiser (which makes the `sg.fused` ops). Left alone: programs
//! that are epilogues (they run inside their kernel's tiles), already reduced, or read by
//! anything but the one reduction, and reductions over no axes. The same elements are
//! combined in the same order as the reduction alone would: results are bit-identical.

use crate::{Fused, SgOp, Transpose, View};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Value, ValueLike};
use strata_ir::rewrite::{collect, defining_op};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-fuse-reductions",
    summary: "Compute a fused elementwise program inside the reduction that alone reads it, never storing its elements",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "fused", help: "Reductions that compute their operand's program" },
        StatisticInfo { name: "views", help: "Transposes only such a program read, read as views" },
    ],
};

/// `value`'s transpose when every use of `value` is by `reader`.
fn transpose_read_only_by<'c, 'a>(value: Value<'c, 'a>, reader: OperationRef<'c, 'a>) -> Option<Transpose<'c, 'a>> {
    let transpose = defining_op(value).and_then(Transpose::cast)?;
    let users = Val::of(value).users();
    users.iter().all(|u| u.raw().ptr == Op::of(&reader).raw().ptr).then_some(transpose)
}

/// The strides (elements) of a row-major tensor of `shape` read in the order `perm` (result
/// axis `k` is input axis `perm[k]`).
fn permuted_strides(shape: &[i64], perm: &[i64]) -> Vec<i64> {
    let strides = strata_ir::types::row_major_strides(shape);
    perm.iter().map(|&p| strides[p as usize]).collect()
}

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
            if axes.is_empty() || !plain || program.inputs().is_empty() || Val::of(program.output()).users().len() != 1
            {
                continue;
            }
            let Some(block) = raw.get().block() else { continue };
            // A transpose that only the program reads was materialised for the program to
            // write in place; reduced, it writes nothing there: the program reads it as a view.
            // (One view per transpose: `mul(t, t)` reads it twice.)
            let mut views: Vec<(Value, Value)> = Vec::new();
            let mut inputs: Vec<Value> = Vec::new();
            for v in program.inputs() {
                if let Some(&(_, view)) = views.iter().find(|(t, _)| *t == v) {
                    inputs.push(view);
                    continue;
                }
                let Some(t) = transpose_read_only_by(v, program.op()) else {
                    inputs.push(v);
                    continue;
                };
                let strides = permuted_strides(&crate::verify::shape(t.input()), &t.perm());
                let view = View::build(
                    context,
                    t.op().location(),
                    t.input(),
                    0,
                    &crate::verify::shape(v),
                    &strides,
                    v.r#type(),
                );
                let view: Value = block.insert_operation_before(raw.get(), view).result(0).expect("one result").into();
                cx.bump("views", 1);
                views.push((v, view));
                inputs.push(view);
            }
            let fused = Fused::build(
                context,
                raw.get().location(),
                &inputs,
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
            let transposes: Vec<Op> = views.iter().filter_map(|&(t, _)| Val::of(t).owner()).collect();
            // Safety: the reduction's uses were replaced and the program's only reader was the
            // reduction; neither is used after this. A transpose read as a view above has no
            // reader left once the program goes.
            unsafe {
                raw.erase();
                old_program.erase();
                for transpose in transposes {
                    strata_ir::rewrite::erase_if_unused(transpose);
                }
            }
            cx.bump("fused", 1);
        }
        Ok(())
    }
}
