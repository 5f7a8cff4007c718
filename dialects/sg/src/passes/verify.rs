//! `sg-verify`: runs the `sg` verifier on every `sg` op, reporting every problem at once.
//!
//! The pass manager already verifies between passes; this pass is for pipelines that run with
//! `--verify-each=false`, and it counts what it checked.

use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "sg-verify",
    summary: "Check sg shape relations and attribute ranges that IRDL cannot express",
    anchor: "any",
    options: &[],
    statistics: &[StatisticInfo { name: "ops-checked", help: "Number of sg ops checked" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SgVerify)
}

struct SgVerify;

impl Pass for SgVerify {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut errors = Vec::new();
        let mut checked = 0;
        op.walk(WalkOrder::PreOrder, |nested| {
            if crate::op_name(nested).starts_with("sg.") {
                checked += 1;
                crate::verify::verify_op(nested, &mut errors);
            }
            WalkResult::Advance
        });
        cx.bump("ops-checked", checked);
        let failed = !errors.is_empty();
        for error in errors {
            cx.strata().sink().push(error);
        }
        if failed {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }
}
