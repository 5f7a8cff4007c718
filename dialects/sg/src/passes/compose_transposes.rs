//! `sg-compose-transposes`: folds chains of `sg.transpose`.
//!
//! `transpose(transpose(x, p1), p2)` becomes `transpose(x, q)` with `q[i] = p1[p2[i]]`, and a
//! transpose whose permutation is the identity is replaced by its operand. An inner transpose
//! left without users is erased. Values are unchanged: only the order of index mapping is
//! composed.

use crate::Transpose;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Value, ValueLike};
use strata_ir::rewrite::{collect, defining_op, erase_if_unused, replace_op};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "sg-compose-transposes",
    summary: "Compose chains of sg.transpose and drop identity transposes",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "composed", help: "Transpose pairs composed into one" },
        StatisticInfo { name: "erased", help: "Identity or dead transposes erased" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ComposeTransposes)
}

struct ComposeTransposes;

impl Pass for ComposeTransposes {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        for raw in collect(&func, |op| Transpose::cast(op.get()).is_some()) {
            let outer = Transpose::cast(raw.get()).expect("collected transposes");
            let perm = outer.perm();
            let inner = defining_op(outer.input()).and_then(Transpose::cast);
            let (source, perm) = match inner.map(|inner| (inner, inner.perm())) {
                Some((inner, inner_perm)) => {
                    cx.bump("composed", 1);
                    (inner.input(), perm.iter().map(|&p| inner_perm[p as usize]).collect::<Vec<_>>())
                }
                None => (outer.input(), perm),
            };
            let is_identity = perm.iter().enumerate().all(|(i, &p)| p == i as i64);
            let replacement: Value = if is_identity {
                source
            } else if inner.is_some() {
                let block = outer.op().block().expect("transposes live in blocks");
                let built =
                    Transpose::build(cx.strata().mlir(), outer.op().location(), source, &perm, outer.output().r#type());
                block.insert_operation_before(outer.op(), built).result(0).expect("one result").into()
            } else {
                continue;
            };
            // Safety: `outer` and `inner` are not used after they are erased.
            unsafe { replace_op(strata_ir::Op::of(&outer.op()), strata_ir::Val::of(replacement)) };
            cx.bump("erased", 1);
            if inner.is_some_and(|inner| unsafe { erase_if_unused(strata_ir::Op::of(&inner.op())) }) {
                cx.bump("erased", 1);
            }
        }
        Ok(())
    }
}
