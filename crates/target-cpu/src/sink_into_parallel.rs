//! `strata-sink-into-parallel`: the views, constants and index arithmetic an `scf.parallel`
//! reads from outside are copied into its body, so that what the OpenMP region captures is
//! the function's own buffers (the arena, the weights blob) and nothing derived from them.
//!
//! `convert-scf-to-openmp` turns each outermost `scf.parallel` into an `omp.parallel` region,
//! and LLVM's OpenMP builder outlines that region into a function called by the runtime, its
//! captured values passed through memory. A view of the arena computed outside (the arena's
//! pointer plus its planned offset) arrives as a pointer loaded from that memory, with no
//! relation left to the other views': LLVM then cannot prove that a loop's loads and stores do
//! not overlap, and leaves to scalar code the loops it would vectorise on one thread (the
//! opset-11 CNN's nearest-neighbour Resize, 1.7 us on one thread, took 4.5 us split in two).
//! With the views made inside, every address is the one captured arena pointer plus constant
//! and loop-dependent offsets, which LLVM's dependence analysis reads as on one thread.
//!
//! Only ops that compute an address or a value from other values are copied
//! ([`strata_ir::rewrite::sinkable`]); a value loaded or computed by anything else outside
//! stays captured. Part of `strata-host-to-llvm`, between `scf-forall-to-parallel` and
//! `convert-scf-to-openmp`.

use melior::ir::operation::OperationRef;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-sink-into-parallel",
    summary: "Copy the views and index arithmetic an scf.parallel reads into its body (OpenMP regions capture only whole buffers)",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "regions", help: "outermost scf.parallel ops that read a value they now compute" },
        StatisticInfo { name: "copied", help: "ops copied into them" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SinkIntoParallel)
}

struct SinkIntoParallel;

impl Pass for SinkIntoParallel {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let parallels = collect(&func, |op| op.is("scf.parallel"));
        // Only the outermost ones become OpenMP regions; a nested one's captures are the
        // outer region's values already.
        let outermost: Vec<Op> =
            parallels.iter().copied().filter(|op| !parallels.iter().any(|outer| op.is_inside(*outer))).collect();
        for parallel in outermost {
            let Some(body) = parallel.body(0) else { continue };
            let Some(first) = body.ops().into_iter().next() else { continue };
            let users = parallel.collect(|op| op != parallel);
            let (copied, _) = strata_ir::rewrite::sink_into(parallel, &users, first, &mut |_| None, &|_| false);
            if copied > 0 {
                cx.bump("regions", 1);
                cx.bump("copied", copied as u64);
            }
        }
        Ok(())
    }
}
