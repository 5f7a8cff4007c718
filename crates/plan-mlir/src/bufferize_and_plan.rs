//! `strata-bufferize-and-plan`: bufferizes the module and plans its arena two ways, and keeps
//! the smaller arena.
//!
//! Producing a padded value inside its padded buffer (`strata-pad-in-place`, then
//! `eliminate-empty-tensors`) removes the padded copies, but the padded buffer then lives from
//! its source's producer on: smaller arenas on most models (MobileNetV2 9.81 -> 6.19 MB), larger
//! on some (a strided convolution feeding a pool). Both ways run on copies of the module:
//!
//! 1. `func.func(strata-init-per-destination),func.func(strata-pad-in-place),
//!    eliminate-empty-tensors,strata-bufferize-only,func.func(memref-copy-to-linalg,plan-arena{...}),
//!    buffer-deallocation-pipeline,canonicalize` (the allocations left unplanned, in loops or
//!    of dynamic size, freed after planning; without any, only its cleanup: `canonicalize`,
//!    `cse`, `canonicalize`; each `canonicalize` bottom-up, `top-down=false`: the same IR,
//!    and the top-down walk's dead-op checks of every region-holding op made it several times
//!    slower on a convolution network's loops);
//! 2. the same without `strata-pad-in-place` and `eliminate-empty-tensors`.
//!
//! The two ways run at once when the process has two cores or more and the pipeline does not
//! verify after each pass: the in-place one on a thread of its own, in its own capture scope of
//! diagnostics (`DiagnosticSink::isolated`), the plain one on the calling thread (MLIR's context
//! is thread-safe; each copy of the module is touched by one thread). MobileNetV2's pass 369 ->
//! 224 ms (minima of four runs); the same modules, so the same result.
//!
//! The nested pass managers verify after each pass only when the one running this pass does
//! (`PassContext::verify_each`: debug builds, `strata-opt`; a release build verifies the stage's
//! output).
//!
//! A module without pads or subset insertions (nothing for those two passes to do) is planned
//! once, the plain way (a transformer's stack: half the stage's time), and so is every module
//! with the option `pads-in-place=false`.
//!
//! The module takes the body of the copy whose `@main` records the smaller
//! `strata.arena_bytes` (the first on a tie: it also saves the copies). Warnings of either way
//! are reported; a failure of either fails the pass.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Module, RegionLike};
use strata_ir::{
    OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassManager, PassManagerOptions, PassOptions,
    SourceMap, StatisticInfo, StrataContext,
};

pub static INFO: PassInfo = PassInfo {
    name: "strata-bufferize-and-plan",
    summary: "Bufferize and plan the arena with padded values produced in place and without; keep the smaller arena",
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
            help: "time budget of the exact solver, per way",
        },
        OptionInfo {
            name: "record-plan",
            kind: OptionKind::Bool,
            default: "false",
            help: "record the kept plan's table on each function (plan-arena's `record-plan`)",
        },
        OptionInfo {
            name: "pads-in-place",
            kind: OptionKind::Bool,
            default: "true",
            help: "try the way with padded values produced in place; false: plan the plain way only (what the idea saves: `cargo xtask bench memory`)",
        },
    ],
    statistics: &[
        StatisticInfo { name: "pads-in-place", help: "1 when the arena with padded values produced in place was kept" },
        StatisticInfo { name: "arena-bytes", help: "bytes of the arena kept" },
        StatisticInfo { name: "other-arena-bytes", help: "bytes of the arena of the way not kept" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(BufferizeAndPlan {
        strategy: options.string("strategy").to_owned(),
        budget_ms: options.int("budget-ms"),
        record_plan: options.bool("record-plan"),
        pads_in_place: options.bool("pads-in-place"),
    })
}

struct BufferizeAndPlan {
    strategy: String,
    budget_ms: i64,
    record_plan: bool,
    pads_in_place: bool,
}

impl BufferizeAndPlan {
    /// Bufferization and planning, up to `plan-arena`.
    fn pipeline(&self, pads_in_place: bool) -> String {
        let pads = if pads_in_place { "func.func(strata-pad-in-place),eliminate-empty-tensors," } else { "" };
        format!(
            "builtin.module(func.func(strata-init-per-destination),{pads}strata-bufferize-only,func.func(memref-copy-to-linalg,plan-arena{{strategy={} budget-ms={} record-plan={}}}))",
            self.strategy, self.budget_ms, self.record_plan
        )
    }

    /// Bufferizes and plans `module` one way, then frees what is left unplanned (or cleans up):
    /// the warnings, or the failure rendered.
    fn way<'c>(
        &self,
        strata: &'c StrataContext,
        module: &mut Module<'c>,
        pads_in_place: bool,
        verify_each: bool,
    ) -> Result<Vec<strata_ir::Diagnostic>, String> {
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
                Ok(report.warnings)
            })
            .map_err(|error| error.render(&SourceMap::default()).trim_end().to_owned())
    }
}

/// A value moved to or from the planning thread. Safety: MLIR's context is thread-safe with
/// threading on (`StrataContext` always turns it on); each module is used by one thread at a
/// time; the pass and the registry are only read.
struct Shared<T>(T);
// Safety: see the type's documentation.
unsafe impl<T> Send for Shared<T> {}

/// Cores this process may run on.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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
        // Each way is an optimisation of the other's memory: one that cannot be bufferized (the
        // in-place pads may leave a conflict One-Shot cannot resolve, in a loop body say) is
        // dropped, and only both failing fails the pass.
        let mut ways = Vec::new();
        let mut failures = Vec::new();
        // Without a pad or a subset insertion the two ways are the same pipeline: plan once.
        let both = self.pads_in_place && may_differ(module);
        let verify_each = cx.verify_each();
        let copy = || {
            let copy = strata_ir::Op::of(&module).clone_owned();
            Module::from_operation(copy).expect("a clone of a module is a module")
        };
        let results = if both && !verify_each && cores() > 1 {
            // The two ways at once, the in-place one on a thread of its own (its own capture
            // scope of diagnostics: neither pass manager takes the other's).
            let (in_place, plain) = (Shared(copy()), copy());
            let this: &Self = self;
            let on_thread = Shared((this, strata));
            let parent = strata_ir::DiagnosticSink::scope();
            std::thread::scope(|scope| {
                let thread = scope.spawn(move || {
                    let (Shared(mut module), Shared((this, strata))) = (in_place, on_thread);
                    let run = strata.sink().isolated(parent, || this.way(strata, &mut module, true, false));
                    Shared((run, module))
                });
                let mut plain = plain;
                let second = (this.way(strata, &mut plain, false, false), plain);
                // A panic on the thread goes on as it would have without it.
                let Shared(first) = thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                vec![(first, true), (second, false)]
            })
        } else {
            let ways: &[bool] = if both { &[true, false] } else { &[false] };
            ways.iter()
                .map(|&pads_in_place| {
                    let mut module = copy();
                    ((self.way(strata, &mut module, pads_in_place, verify_each), module), pads_in_place)
                })
                .collect()
        };
        for ((run, copy), pads_in_place) in results {
            match run {
                Ok(warnings) => {
                    cx.extend_warnings(warnings);
                    let bytes = arena_bytes(&copy);
                    ways.push((copy, bytes, pads_in_place));
                }
                Err(error) => failures.push(error),
            }
        }
        if ways.is_empty() {
            cx.emit_op_error(module, failures.pop().unwrap_or_default().as_str());
            return Err(PassFailed);
        }
        // The smaller arena; the in-place pads on a tie.
        ways.sort_by_key(|(_, bytes, in_place)| (bytes.unwrap_or(i64::MAX), !*in_place));
        let other_bytes = ways.get(1).and_then(|w| w.1).unwrap_or(0);
        let (kept, kept_bytes, pads_in_place) = ways.swap_remove(0);
        cx.bump("pads-in-place", u64::from(pads_in_place));
        cx.bump("arena-bytes", kept_bytes.unwrap_or(0) as u64);
        cx.bump("other-arena-bytes", other_bytes as u64);
        drop(ways);
        // The module's body is replaced by the kept copy's (which is then destroyed empty).
        let (into, from) = (module.region(0).expect("a module body"), kept.as_operation().region(0).expect("a body"));
        strata_ir::rewrite::take_body(into, from);
        Ok(())
    }
}

/// Whether the way with pads in place can differ from the plain one: the module has a
/// `tensor.pad` (`strata-pad-in-place` rewrites it) or an op `eliminate-empty-tensors` acts on
/// (a subset insertion: a convolution's own padded input is a fill plus an `insert_slice`).
fn may_differ(module: OperationRef<'_, '_>) -> bool {
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
