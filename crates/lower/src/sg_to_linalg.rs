//! `sg-to-linalg`: every sg op becomes linalg, tensor, arith and math ops on tensors (phase 1
//! of the pipeline: one tensor per value, so bufferization later gives each result its own
//! buffer, and views stay views).
//!
//! Each op's kernel is built as the text of a small private function (see [`crate::kernel`]),
//! parsed once per distinct kernel, and inlined in place of every op that needs it, with the
//! op's location. An op without a lowering is reported at its location and fails the pass.
//! `sg.fused` kernels read their `sg.view` operands through the views' bases
//! ([`crate::fused`]); a view nothing else reads is then not computed.

use crate::kernel::KernelCache;
use crate::ops::{self, Reads};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Attribute, Location};
use strata_dialect_sg::{Fused, SgOp, View};
use strata_ir::rewrite::{collect, erase_if_unused, inline_call, inline_call_with};
use strata_ir::{
    Error, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo,
};

pub static INFO: PassInfo = PassInfo {
    name: "sg-to-linalg",
    summary: "Lower sg ops to linalg/tensor/arith/math on tensors (one kernel per op, inlined)",
    anchor: "func.func",
    options: &[
        OptionInfo {
            name: "sections",
            kind: OptionKind::Bool,
            default: "false",
            help: "a host compiled for several threads: run a bidirectional recurrence's two directions side by side (an scf.forall marked strata.sections), a tree walk's rows as an scf.forall",
        },
        OptionInfo {
            name: "gpu",
            kind: OptionKind::Bool,
            default: "false",
            help: "kernels for a GPU: a tree walk is one walk per output element (one thread each)",
        },
    ],
    statistics: &[
        StatisticInfo { name: "lowered", help: "sg ops lowered" },
        StatisticInfo { name: "views-folded", help: "views read only by fused kernels (folded into their indexing)" },
        StatisticInfo { name: "kernels", help: "Distinct kernels built" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(SgToLinalg { placement: ops::Placement { sections: options.bool("sections"), gpu: options.bool("gpu") } })
}

struct SgToLinalg {
    placement: ops::Placement,
}

impl Pass for SgToLinalg {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let strata = cx.strata();
        let mut kernels = KernelCache::default();
        // Each op with its kernel and what the kernel's arguments are bound to.
        let mut uses: Vec<(Op, Op, Reads)> = Vec::new();
        // Reported after the loop: parsing a kernel resets the context's diagnostic sink.
        let mut errors = Vec::new();
        for raw in collect(&func, |op| SgOp::of(op.get()).is_some()) {
            let lowered = match ops::kernel(raw.get(), self.placement) {
                Ok(Some(lowered)) => lowered,
                Ok(None) => continue,
                Err(message) => {
                    errors.push((raw, message));
                    continue;
                }
            };
            let text = format!("module {{\n{}}}\n", lowered.kernel.function("kernel"));
            match kernels.function(strata, &text, "sg-to-linalg kernel") {
                Ok(function) => uses.push((raw, function, lowered.reads)),
                Err(error) => errors.push((
                    raw,
                    Error::internal(format!(
                        "the linalg kernel of this op does not parse (a Strata bug; please report it):\n{error}\n{text}"
                    )),
                )),
            }
        }
        if !errors.is_empty() {
            for (raw, error) in errors {
                cx.fail(raw.get(), &error);
            }
            return Err(PassFailed);
        }
        // Matmuls that read widened values' sources, and casts that read their boolean
        // producers' operands, first, while the casts and producers are still sg ops to look
        // through (one then read by nothing is dead, and canonicalization drops it); then
        // fused kernels: they read their view operands through the views' bases, which can
        // leave a view without readers, and such a view is not computed at all.
        let (widening, uses): (Vec<_>, Vec<_>) =
            uses.into_iter().partition(|(.., reads)| matches!(reads, Reads::WidenedSources | Reads::ProducerSources));
        let (fused, rest): (Vec<_>, Vec<_>) = uses.into_iter().partition(|(raw, ..)| Fused::cast(raw.get()).is_some());
        for (raw, function, reads) in widening.into_iter().chain(fused).chain(rest) {
            let op = raw.get();
            // Safety: `raw` is an op of this function, visited once and not used afterwards.
            if View::cast(op).is_some() && unsafe { erase_if_unused(raw) } {
                cx.bump("views-folded", 1);
                continue;
            }
            // The operands as they are now: ops inlined earlier replaced their results.
            let operands: Option<Vec<strata_ir::Val>> = match reads {
                Reads::ViewBases => Fused::cast(op)
                    .map(|fused| crate::fused::operands(fused).into_iter().map(strata_ir::Val::of).collect()),
                Reads::WidenedSources => Some(ops::widened_sources(op).into_iter().map(strata_ir::Val::of).collect()),
                Reads::ProducerSources => ops::cast_producer(op).map(|producer| {
                    // The kernel is both nodes' (profiles and diagnostics name both).
                    let both = [producer.location(), op.location()];
                    let context = cx.strata().mlir();
                    raw.set_location_deep(Location::fused(context, &both, Attribute::unit(context)));
                    Op::of(&producer).operands()
                }),
                Reads::Operands => None,
            };
            match operands {
                Some(operands) => unsafe { inline_call_with(function, raw, &operands) },
                None => unsafe { inline_call(function, raw) },
            }
            cx.bump("lowered", 1);
        }
        cx.bump("kernels", kernels.len() as u64);
        Ok(())
    }
}
