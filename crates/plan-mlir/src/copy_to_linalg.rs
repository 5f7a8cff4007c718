//! `memref-copy-to-linalg`: every `memref.copy` becomes a `linalg.copy`, so copies into
//! strided views (padding, concatenation, results) lower to plain loops instead of calls to
//! MLIR's `memrefCopy` runtime function, which compiled models must not depend on.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::KernelCache;

pub static INFO: PassInfo = PassInfo {
    name: "memref-copy-to-linalg",
    summary: "Rewrite memref.copy as linalg.copy (no runtime-library call)",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "copies", help: "memref.copy ops rewritten" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(CopyToLinalg)
}

struct CopyToLinalg;

impl Pass for CopyToLinalg {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        for raw in collect(&func, |op| op.is("memref.copy")) {
            let op = raw.get();
            let (source, target) = (
                op.operand(0).expect("memref.copy has a source").r#type(),
                op.operand(1).expect("and a target").r#type(),
            );
            let text = format!(
                "func.func private @copy(%a: {source}, %b: {target}) {{\n  linalg.copy ins(%a : {source}) outs(%b : {target})\n  return\n}}\n"
            );
            // Safety: `op` is not used after it is replaced.
            unsafe { kernels.replace_op(cx, op, &text, "linalg.copy kernel for this copy")? };
            cx.bump("copies", 1);
        }
        Ok(())
    }
}
