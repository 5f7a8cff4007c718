//! `strata-bufferize-and-plan`: bufferizes the module and plans its arena, with the values
//! worth producing inside their destination produced there.
//!
//! Producing a padded value inside its padded buffer (`strata-pad-in-place`, then
//! `eliminate-empty-tensors`), or a concatenation's part inside the concatenation, removes the
//! copies, but the destination then lives from the producer on: smaller arenas on most models
//! (MobileNetV2 9.81 -> 6.19 MB), larger where the producer runs long before the insertion or
//! near the peak (a strided convolution feeding a pool). `strata-choose-in-place` decides each
//! insertion by the peak of live buffers it leads to (it used to be one choice for the whole
//! module, planned both ways). The pipeline:
//!
//! `func.func(strata-init-per-destination,strata-read-only-loads),func.func(strata-pad-in-place),
//! func.func(strata-order-insertions),func.func(strata-choose-in-place{mark=true}),eliminate-empty-tensors,
//! func.func(strata-eliminate-reshaped-empties,strata-choose-in-place),func.func(strata-pad-rings),
//! strata-bufferize-only,func.func(strata-erase-self-copies,memref-copy-to-linalg,plan-arena{...}),
//! buffer-deallocation-pipeline,canonicalize` (the allocations left unplanned, in loops or of
//! dynamic size, freed after planning; without any, only its cleanup: `canonicalize`, `cse`,
//! `canonicalize`; each `canonicalize` bottom-up, `top-down=false`: the same IR, and the
//! top-down walk's dead-op checks of every region-holding op made it several times slower on a
//! convolution network's loops). `strata-pad-rings` (option `pad-rings`, the host's) then fills
//! only the ring of a padded buffer whose interior is inserted into or overwritten.
//!
//! It runs on a copy of the module. If that copy cannot be bufferized (an insertion in place
//! may leave a conflict One-Shot cannot resolve, in a loop body say), the module is planned
//! again without any (`pads-in-place=false`'s pipeline, without the three passes around the
//! elimination) and a remark says so; only that failing too fails the pass. A module without
//! pads or subset insertions (nothing for those passes to do) skips them.
//!
//! The nested pass managers verify after each pass only when the one running this pass does
//! (`PassContext::verify_each`: debug builds, `strata-opt`; a release build verifies the stage's
//! output).

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Module, RegionLike};
use strata_ir::{
    OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassManager, PassManagerOptions, PassOptions,
    SourceMap, StatisticInfo, StrataContext,
};

pub static INFO: PassInfo = PassInfo {
    name: "strata-bufferize-and-plan",
    summary: "Bufferize and plan the arena, with the values worth producing inside their destination (padded values, concatenations' parts) produced there",
    anchor: "builtin.module",
    options: &[
        OptionInfo {
            name: "strategy",
            kind: OptionKind::Enum(crate::pass::STRATEGIES),
            default: "exact",
            help: "planning strategy of plan-arena",
        },
        OptionInfo {
            name: "budget-ms",
            kind: OptionKind::Int,
            default: "1000",
            help: "time budget of the exact solver",
        },
        OptionInfo {
            name: "record-plan",
            kind: OptionKind::Bool,
            default: "false",
            help: "record the kept plan's table on each function (plan-arena's `record-plan`)",
        },
        OptionInfo {
            name: "pad-rings",
            kind: OptionKind::Bool,
            default: "true",
            help: "fill only the ring of a padded tensor whose interior is overwritten (strata-pad-rings)",
        },
        OptionInfo {
            name: "pads-in-place",
            kind: OptionKind::Bool,
            default: "true",
            help: "produce values inside their destination where that lowers the peak; false: never (what the idea saves: `cargo xtask bench memory`)",
        },
    ],
    statistics: &[
        StatisticInfo { name: "in-place", help: "values produced inside their destination (strata-choose-in-place)" },
        StatisticInfo { name: "copied", help: "values given a buffer of their own and copied, which lowers the peak" },
        StatisticInfo { name: "arena-bytes", help: "bytes of the arena" },
        StatisticInfo { name: "fallbacks", help: "1 when the module was planned again with nothing in place, the choice failing to bufferize" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(BufferizeAndPlan {
        strategy: options.string("strategy").to_owned(),
        budget_ms: options.int("budget-ms"),
        record_plan: options.bool("record-plan"),
        pads_in_place: options.bool("pads-in-place"),
        pad_rings: options.bool("pad-rings"),
    })
}

struct BufferizeAndPlan {
    strategy: String,
    budget_ms: i64,
    record_plan: bool,
    pads_in_place: bool,
    pad_rings: bool,
}

impl BufferizeAndPlan {
    /// Bufferization and planning, up to `plan-arena`.
    fn pipeline(&self, pads_in_place: bool) -> String {
        let pads = if pads_in_place {
            format!(
                "func.func(strata-pad-in-place),func.func(strata-order-insertions),func.func(strata-choose-in-place{{mark=true}}),eliminate-empty-tensors,func.func(strata-eliminate-reshaped-empties,strata-choose-in-place{{mark-overwritten={}}}),",
                self.pad_rings
            )
        } else {
            String::new()
        };
        let rings = if self.pad_rings { "func.func(strata-pad-rings)," } else { "" };
        format!(
            "builtin.module(func.func(strata-init-per-destination,strata-read-only-loads),{pads}{rings}strata-bufferize-only,func.func(strata-erase-self-copies,memref-copy-to-linalg,plan-arena{{strategy={} budget-ms={} record-plan={}}}))",
            self.strategy, self.budget_ms, self.record_plan
        )
    }

    /// Bufferizes and plans `module`, values produced in place where `strata-choose-in-place`
    /// finds it pays when `pads_in_place`, then frees what is left unplanned (or cleans up):
    /// the run's warnings and statistics, or the failure rendered.
    fn way<'c>(
        &self,
        strata: &'c StrataContext,
        module: &mut Module<'c>,
        pads_in_place: bool,
        verify_each: bool,
    ) -> Result<strata_ir::RunReport, String> {
        let options = || PassManagerOptions { verify_each, ..PassManagerOptions::default() };
        PassManager::parse(strata, &self.pipeline(pads_in_place), options())
            .and_then(|mut pm| pm.run(module, &mut std::io::sink()))
            .and_then(|mut report| {
                // The allocations left unplanned (in loops, of dynamic size) freed; a module
                // with none skips the deallocation passes (half a second on a 10k-node graph,
                // for nothing to free) but keeps the cleanup the pipeline does (`canonicalize`,
                // `cse`: the views of one arena offset merged, which the GPU mapping needs to
                // see an in-place kernel).
                let rest = if has_allocations(module.as_operation()) {
                    "builtin.module(buffer-deallocation-pipeline,canonicalize{top-down=false})"
                } else {
                    "builtin.module(canonicalize{top-down=false},cse,canonicalize{top-down=false})"
                };
                let more = PassManager::parse(strata, rest, options())
                    .and_then(|mut pm| pm.run(module, &mut std::io::sink()))?;
                report.warnings.extend(more.warnings);
                Ok(report)
            })
            .map_err(|error| error.render(&SourceMap::default()).trim_end().to_owned())
    }
}

impl Pass for BufferizeAndPlan {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let strata = cx.strata();
        // The model's inputs are the caller's: bufferization copies rather than writes them.
        let mut op = module.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.first_operation());
        while let Some(current) = op {
            if current.name().as_string_ref().as_str() == Ok("func.func") {
                strata_ir::attrs::read_only_arguments(current);
            }
            op = current.next_in_block();
        }
        // Without a pad or a subset insertion there is nothing to produce in place.
        let choose = self.pads_in_place && has_insertions(module);
        let verify_each = cx.verify_each();
        let copy = || {
            let copy = strata_ir::Op::of(&module).clone_owned();
            Module::from_operation(copy).expect("a clone of a module is a module")
        };
        let mut planned = copy();
        let report = match self.way(strata, &mut planned, choose, verify_each) {
            Ok(report) => report,
            // The insertions in place are an optimisation of memory: a module they leave
            // unbufferizable is planned without them.
            Err(error) if choose => {
                planned = copy();
                match self.way(strata, &mut planned, false, verify_each) {
                    Ok(report) => {
                        cx.emit_op_warning(
                            module,
                            format!("values produced inside their destination could not be bufferized; planned with copies instead: {error}"),
                        );
                        cx.bump("fallbacks", 1);
                        report
                    }
                    Err(_) => {
                        cx.emit_op_error(module, error.as_str());
                        return Err(PassFailed);
                    }
                }
            }
            Err(error) => {
                cx.emit_op_error(module, error.as_str());
                return Err(PassFailed);
            }
        };
        for (pass, _, statistics) in &report.statistics {
            if pass == crate::choose_in_place::INFO.name {
                for &(name, _, value) in statistics {
                    if name == "in-place" || name == "copied" {
                        cx.bump(name, value);
                    }
                }
            }
        }
        cx.extend_warnings(report.warnings);
        cx.bump("arena-bytes", arena_bytes(&planned).unwrap_or(0) as u64);
        // The module's body is replaced by the planned copy's (which is then destroyed empty).
        let (into, from) =
            (module.region(0).expect("a module body"), planned.as_operation().region(0).expect("a body"));
        strata_ir::rewrite::take_body(into, from);
        Ok(())
    }
}

/// Whether anything could be produced in place: the module has a
/// `tensor.pad` (`strata-pad-in-place` rewrites it) or an op `eliminate-empty-tensors` acts on
/// (a subset insertion: a convolution's own padded input is a fill plus an `insert_slice`).
fn has_insertions(module: OperationRef<'_, '_>) -> bool {
    const OPS: [&str; 4] = [
        "tensor.pad",
        "tensor.insert_slice",
        "tensor.parallel_insert_slice",
        "bufferization.materialize_in_destination",
    ];
    !strata_ir::rewrite::collect(&module, |op| OPS.iter().any(|name| op.is(name))).is_empty()
}

/// Whether `module` still allocates memory of its own after planning (what the deallocation
/// pipeline frees).
fn has_allocations(module: OperationRef<'_, '_>) -> bool {
    const OPS: [&str; 3] = ["memref.alloc", "memref.realloc", "bufferization.alloc_tensor"];
    !strata_ir::rewrite::collect(&module, |op| OPS.iter().any(|name| op.is(name))).is_empty()
}

/// The arena size a planned module's `@main` records.
fn arena_bytes(module: &Module<'_>) -> Option<i64> {
    let main = strata_ir::rewrite::find_symbol(module, "main")?;
    strata_ir::attrs::ARENA_BYTES.get(main)
}
