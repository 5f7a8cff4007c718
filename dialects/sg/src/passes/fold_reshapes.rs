//! `sg-fold-reshapes`: `reshape(reshape(x))` becomes `reshape(x)`, and a reshape to the
//! operand's own type is replaced by the operand.
//!
//! Sound because a reshape only reinterprets the row-major element order, which a chain of
//! reshapes preserves; the final result type is kept.

use crate::Reshape;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Value, ValueLike};
use strata_ir::rewrite::{collect, defining_op, erase_if_unused, replace_op};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "sg-fold-reshapes",
    summary: "Fold chains of sg.reshape and drop reshapes that change nothing",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "folded", help: "Reshapes removed" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(FoldReshapes)
}

struct FoldReshapes;

impl Pass for FoldReshapes {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        for raw in collect(&func, |op| Reshape::cast(op.get()).is_some()) {
            let outer = Reshape::cast(raw.get()).expect("collected reshapes");
            let inner = defining_op(outer.input()).and_then(Reshape::cast);
            let source = inner.map_or(outer.input(), |inner| inner.input());
            let replacement: Value = if source.r#type() == outer.output().r#type() {
                source
            } else if inner.is_some() {
                let block = outer.op().block().expect("reshapes live in blocks");
                let folded = Reshape::build(cx.strata().mlir(), outer.op().location(), source, outer.output().r#type());
                block.insert_operation_before(outer.op(), folded).result(0).expect("one result").into()
            } else {
                continue;
            };
            // Safety: `outer` and `inner` are not used after they are erased.
            unsafe { replace_op(strata_ir::Op::of(&outer.op()), strata_ir::Val::of(replacement)) };
            cx.bump("folded", 1);
            if inner.is_some_and(|inner| unsafe { erase_if_unused(strata_ir::Op::of(&inner.op())) }) {
                cx.bump("folded", 1);
            }
        }
        Ok(())
    }
}
