//! `plan-arena`: every planned `memref.alloc` of a function becomes a `memref.view` of one
//! arena argument at a constant offset; the deallocs of planned buffers go away.
//!
//! The entry block gains a last argument `memref<Nxi8>` (the arena of the ABI), and the
//! function records `strata.arena_bytes`, `strata.arena_alignment`,
//! `strata.arena_lower_bound` and `strata.arena_strategy`. Every plan passes the validator
//! of `strata-plan` before the IR is touched.

use crate::analyze::analyze;
use melior::ir::attribute::{IntegerAttribute, TypeAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::r#type::{FunctionType, IntegerType, MemRefType};
use melior::ir::{BlockLike, RegionLike, Type, Value, ValueLike};
use std::time::Duration;
use strata_ir::{attrs, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_plan::report::{plan, Strategy};
use strata_plan::Budget;

/// The strategy names `strata-plan` knows (checked against it by a test).
pub const STRATEGIES: &[&str] = &[
    "naive",
    "equality",
    "greedy-in-order",
    "greedy-by-breadth",
    "greedy-by-size",
    "greedy-best",
    "min-cost-flow",
    "offsets-greedy-by-size",
    "offsets-greedy-by-breadth",
    "exact",
];

pub static INFO: PassInfo = PassInfo {
    name: "plan-arena",
    summary: "Place the static memref.allocs of a function into one arena argument at constant offsets",
    anchor: "func.func",
    options: &[
        OptionInfo {
            name: "strategy",
            kind: OptionKind::Enum(STRATEGIES),
            default: "exact",
            help: "planning strategy",
        },
        OptionInfo {
            name: "alignment",
            kind: OptionKind::Int,
            default: "64",
            help: "byte alignment of every buffer (a power of two)",
        },
        OptionInfo {
            name: "min-alignment",
            kind: OptionKind::Int,
            default: "16",
            help: "byte alignment the buffers fall back to when `alignment` costs arena bytes (a power of two; at least `alignment`: never)",
        },
        OptionInfo {
            name: "budget-ms",
            kind: OptionKind::Int,
            default: "1000",
            help: "time budget of the exact solver",
        },
        OptionInfo {
            name: "parallel-aware",
            kind: OptionKind::Bool,
            default: "false",
            help: "share memory only between buffers whose uses the dependency graph already orders",
        },
        OptionInfo {
            name: "record-plan",
            kind: OptionKind::Bool,
            default: "false",
            help: "record the plan's table on the function (`strata.arena_plan`, JSON)",
        },
    ],
    statistics: &[
        StatisticInfo { name: "buffers-planned", help: "Allocations placed in the arena" },
        StatisticInfo {
            name: "buffers-skipped",
            help: "Allocations left alone (dynamic, escaping, nested, unknown element type)",
        },
        StatisticInfo { name: "in-place-pairs", help: "Buffers sharing memory with a dying input" },
        StatisticInfo { name: "arena-bytes", help: "Arena size" },
        StatisticInfo { name: "lower-bound-bytes", help: "Max-load lower bound on the arena size" },
        StatisticInfo { name: "naive-bytes", help: "Bytes without reuse (sum of planned buffers)" },
        StatisticInfo { name: "realigned", help: "1 when the buffers were planned at min-alignment (smaller)" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(PlanArena {
        strategy: options.string("strategy").to_owned(),
        alignment: options.int("alignment"),
        min_alignment: options.int("min-alignment"),
        budget_ms: options.int("budget-ms"),
        parallel_aware: options.bool("parallel-aware"),
        record_plan: options.bool("record-plan"),
    })
}

struct PlanArena {
    strategy: String,
    alignment: i64,
    min_alignment: i64,
    budget_ms: i64,
    parallel_aware: bool,
    record_plan: bool,
}

impl Pass for PlanArena {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        if self.alignment <= 0 || !(self.alignment as u64).is_power_of_two() {
            cx.emit_op_error(func, format!("plan-arena: alignment {} is not a positive power of two", self.alignment));
            return Err(PassFailed);
        }
        if self.min_alignment <= 0 || !(self.min_alignment as u64).is_power_of_two() {
            cx.emit_op_error(
                func,
                format!("plan-arena: min-alignment {} is not a positive power of two", self.min_alignment),
            );
            return Err(PassFailed);
        }
        let min_alignment = self.min_alignment.min(self.alignment) as u64;
        if func.region(0).ok().and_then(|r| r.first_block()).is_none() {
            return Ok(()); // a declaration
        }
        let mut analysis = match analyze(func, self.alignment as u64, self.parallel_aware) {
            Ok(analysis) => analysis,
            Err(error) => {
                cx.emit_op_error(func, format!("plan-arena: {error}"));
                return Err(PassFailed);
            }
        };
        cx.bump("buffers-skipped", analysis.skipped.len() as u64);
        // The runtimes allocate the arena in whole blocks of its alignment: a plan within the
        // bound's last block takes no more memory, so the exact solver stops there (ViT-tiny:
        // 20 bytes over the bound took its whole second).
        analysis.problem.granule = self.alignment as u64;
        if analysis.problem.buffers.is_empty() {
            return Ok(());
        }
        let requested = Strategy::parse(&self.strategy).expect("the option only admits known strategies");
        // A strategy beyond its size limit gives way to the first fallback within its own
        // (`greedy-in-order` has none), with a warning: the compile goes on.
        let strategy = match requested.beyond_limit(&analysis.problem) {
            None => requested,
            Some(reason) => {
                let last = Strategy::Objects(strata_plan::ObjectStrategy::GreedyInOrder);
                let fallback = [Strategy::Offsets(strata_plan::OffsetStrategy::GreedyBySize), last]
                    .into_iter()
                    .find(|s| s.beyond_limit(&analysis.problem).is_none())
                    .unwrap_or(last);
                cx.emit_op_warning(func, format!("plan-arena: {reason}; planned with '{}' instead", fallback.name()));
                fallback
            }
        };
        let budget = Budget { nodes: u64::MAX, time: Some(Duration::from_millis(self.budget_ms.max(0) as u64)) };
        let mut report = match plan(&analysis.problem, strategy, budget) {
            Ok(report) => report,
            Err(error) => {
                cx.emit_op_error(func, format!("plan-arena: {error}"));
                return Err(PassFailed);
            }
        };
        // Alignment costs bytes when buffers of sizes that are not multiples of it live side by
        // side: the speech model's spectrogram (157584 bytes) and its power (78792) were
        // 48 bytes apart at 64-byte alignment. A plan proved optimal at `alignment` (so
        // quickly found) is tried again at `min-alignment` and kept only when smaller. The
        // generated code assumes no more than its elements' alignment of a buffer; the arena
        // itself keeps `alignment`.
        if report.optimal && min_alignment < self.alignment as u64 {
            let mut looser = analysis.problem.clone();
            for buffer in &mut looser.buffers {
                buffer.align = buffer.align.min(min_alignment);
            }
            if let Ok(smaller) = plan(&looser, strategy, budget) {
                if smaller.arena_bytes < report.arena_bytes {
                    report = smaller;
                    cx.bump("realigned", 1);
                }
            }
        }
        let offsets = report.offsets();
        let inplace = analysis
            .problem
            .buffers
            .iter()
            .enumerate()
            .filter(|(i, b)| b.inplace.is_some_and(|p| offsets[p] == offsets[*i]))
            .count();
        cx.bump("buffers-planned", analysis.problem.buffers.len() as u64);
        cx.bump("in-place-pairs", inplace as u64);
        cx.bump("arena-bytes", report.arena_bytes);
        cx.bump("lower-bound-bytes", report.lower_bound);
        cx.bump("naive-bytes", analysis.problem.buffers.iter().map(|b| b.size).sum());

        let context = cx.strata().mlir();
        let i8 = IntegerType::new(context, 8).into();
        let arena_type: Type = MemRefType::new(i8, &[report.arena_bytes as i64], None, None).into();
        let Some((arena, position)) = append_argument(context, func, arena_type) else {
            cx.emit_op_error(func, "plan-arena: the function has no body or no function_type");
            return Err(PassFailed);
        };
        attrs::ARENA_ARG.set(func, position as i64);
        attrs::ARENA_BYTES.set(func, report.arena_bytes as i64);
        attrs::ARENA_ALIGNMENT.set(func, self.alignment);
        attrs::ARENA_LOWER_BOUND.set(func, report.lower_bound as i64);
        attrs::ARENA_STRATEGY.set(func, &report.strategy);
        if self.record_plan {
            attrs::ARENA_PLAN.set(func, &plan_table(func, &analysis, report.clone()));
        }

        for (k, &raw) in analysis.allocs.iter().enumerate() {
            if !raw.is("memref.alloc") {
                continue; // an `scf.if`'s branches' scratch: its allocations below
            }
            let alloc = raw.get();
            let offset = offsets[k].expect("every planned buffer has an offset");
            let ty = alloc.result(0).expect("alloc result").r#type();
            let view = view_at(context, alloc, arena, offset, analysis.per_iteration[k], ty);
            // Safety: the alloc is not used after this.
            unsafe { strata_ir::rewrite::replace_op(raw, view.into()) };
        }
        for &(k, raw, within) in &analysis.branch_locals {
            let alloc = raw.get();
            let offset = offsets[k].expect("every planned buffer has an offset") + within;
            let ty = alloc.result(0).expect("alloc result").r#type();
            let view = view_at(context, alloc, arena, offset, None, ty);
            // Safety: the alloc is not used after this.
            unsafe { strata_ir::rewrite::replace_op(raw, view.into()) };
        }
        for &raw in &analysis.deallocs {
            // Safety: a dealloc of a planned buffer, erased once.
            unsafe { raw.erase() };
        }
        Ok(())
    }
}

/// The plan as JSON for `strata.arena_plan`: `report` with every buffer named by the ONNX
/// nodes of its allocation's location and the op that computes it (its first user other than
/// a `linalg.fill`, which only initialises).
fn plan_table(
    func: OperationRef<'_, '_>,
    analysis: &crate::analyze::Analysis,
    mut report: strata_plan::report::PlanReport,
) -> String {
    let body = strata_ir::Op::of(&func).body(0);
    let ops: Vec<String> = body.map(|b| b.ops()).unwrap_or_default().into_iter().map(kernel_name).collect();
    for ((placement, alloc), times) in report.buffers.iter_mut().zip(&analysis.allocs).zip(&analysis.use_times) {
        placement.id = strata_ir::nodes::label(alloc.get().location());
        let named = |&t: &u64| ops.get(t as usize).cloned();
        placement.op =
            times.iter().filter_map(named).find(|op| op != "linalg.fill").or_else(|| times.first().and_then(named));
    }
    serde_json::to_string(&report).expect("plans serialise")
}

/// The name of what `op` computes: its own, or for a loop nest (a tiled kernel) the first
/// `linalg` op inside other than a fill.
fn kernel_name(op: strata_ir::Op) -> String {
    fn first_linalg(op: strata_ir::Op) -> Option<String> {
        let name = op.name();
        if name.starts_with("linalg.") {
            return (name != "linalg.fill").then_some(name);
        }
        (0..op.region_count()).filter_map(|index| op.body(index)).flat_map(|b| b.ops()).find_map(first_linalg)
    }
    first_linalg(op).unwrap_or_else(|| op.name())
}

/// Appends an argument of type `ty` to `func`'s entry block and function type; returns it
/// and its position (`None` without a body or function type).
pub fn append_argument<'c, 'a>(
    context: &'c melior::Context,
    func: OperationRef<'c, 'a>,
    ty: Type<'c>,
) -> Option<(Value<'c, 'a>, usize)> {
    let body = func.region(0).ok()?.first_block()?;
    let function_type = func
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .and_then(|a| FunctionType::try_from(a.value()).ok())?;
    let mut inputs: Vec<Type> =
        (0..function_type.input_count()).map(|i| function_type.input(i).expect("counted")).collect();
    inputs.push(ty);
    let results: Vec<Type> =
        (0..function_type.result_count()).map(|i| function_type.result(i).expect("counted")).collect();
    strata_ir::Op::of(&func).set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(context, &inputs, &results).into()).into(),
    );
    let argument = body.add_argument(ty, func.location());
    Some((strata_ir::Val::of(argument).get(), inputs.len() - 1))
}

/// Inserts `arith.constant offset` and `memref.view base[offset] : ... to ty` before `op`
/// (in the same block); returns the view.
pub fn view_before<'c, 'a>(
    context: &'c melior::Context,
    op: OperationRef<'c, 'a>,
    base: Value<'c, 'a>,
    offset: u64,
    ty: Type<'c>,
) -> Value<'c, 'a> {
    view_at(context, op, base, offset, None, ty)
}

/// [`view_before`], at `offset + variable * stride` with `per_iteration`: one iteration's copy
/// of a buffer planned once per iteration of an `scf.forall`.
fn view_at<'c, 'a>(
    context: &'c melior::Context,
    op: OperationRef<'c, 'a>,
    base: Value<'c, 'a>,
    offset: u64,
    per_iteration: Option<(strata_ir::Val, u64)>,
    ty: Type<'c>,
) -> Value<'c, 'a> {
    let index = Type::index(context);
    let block = op.block().expect("the op is in a block");
    let constant = |value: u64| {
        let value = IntegerAttribute::new(index, value as i64).into();
        strata_ir::rewrite::constant_before(context, op, index, value).expect("valid arith.constant").get()
    };
    let insert = |name: &str, operands: &[Value<'c, 'a>], result: Type<'c>| -> Value<'c, 'a> {
        let built = OperationBuilder::new(name, op.location())
            .add_operands(operands)
            .add_results(&[result])
            .build()
            .expect("valid operation");
        let inserted = block.insert_operation_before(op, built);
        strata_ir::Val::from(inserted.result(0).expect("one result")).get()
    };
    let mut at = constant(offset);
    if let Some((variable, stride)) = per_iteration {
        let scaled = insert("arith.muli", &[variable.get(), constant(stride)], index);
        at = insert("arith.addi", &[scaled, at], index);
    }
    insert("memref.view", &[base, at], ty)
}

#[cfg(test)]
mod tests {
    #[test]
    fn strategy_names_match_the_planner() {
        assert_eq!(
            super::STRATEGIES.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            strata_plan::report::Strategy::names()
        );
    }
}
