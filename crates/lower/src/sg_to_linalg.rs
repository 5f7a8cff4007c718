//! `sg-to-linalg`: every sg op becomes linalg, tensor, arith and math ops on tensors (phase 1
//! of the pipeline: one tensor per value, so bufferization later gives each result its own
//! buffer, and views stay views).
//!
//! Each op's kernel is built as the text of a small private function (see [`crate::kernel`]),
//! parsed once per distinct kernel, and inlined in place of every op that needs it, with the
//! op's location. An op without a lowering is reported at its location and fails the pass.

use crate::kernel::KernelCache;
use crate::ops;
use melior::ir::operation::OperationRef;
use strata_ir::rewrite::{collect, inline_call};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "sg-to-linalg",
    summary: "Lower sg ops to linalg/tensor/arith/math on tensors (one kernel per op, inlined)",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "lowered", help: "sg ops lowered" },
        StatisticInfo { name: "kernels", help: "Distinct kernels built" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SgToLinalg)
}

struct SgToLinalg;

impl Pass for SgToLinalg {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let strata = cx.strata();
        let mut kernels = KernelCache::default();
        let mut uses = Vec::new();
        // Reported after the loop: parsing a kernel resets the context's diagnostic sink.
        let mut errors = Vec::new();
        for raw in collect(func, |op| strata_ir::ods::op_name(op).starts_with("sg.")) {
            let op = unsafe { OperationRef::from_raw(raw) };
            let kernel = match ops::kernel(op) {
                Ok(Some(kernel)) => kernel,
                Ok(None) => continue,
                Err(message) => {
                    errors.push((raw, message));
                    continue;
                }
            };
            let text = format!("module {{\n{}}}\n", kernel.function("kernel"));
            match kernels.function(strata, &text, "sg-to-linalg kernel") {
                Ok(function) => uses.push((raw, function)),
                Err(error) => errors.push((raw, format!("internal error: the linalg kernel of this op does not parse (a Strata bug; please report it):\n{error}\n{text}"))),
            }
        }
        if !errors.is_empty() {
            for (raw, message) in errors {
                cx.emit_op_error(unsafe { OperationRef::from_raw(raw) }, message);
            }
            return Err(PassFailed);
        }
        for (raw, function) in uses {
            // Safety: `raw` is an op of this function, visited once and not used afterwards.
            unsafe { inline_call(function, OperationRef::from_raw(raw)) };
            cx.bump("lowered", 1);
        }
        cx.bump("kernels", kernels.len() as u64);
        Ok(())
    }
}
