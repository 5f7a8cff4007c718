//! `strata-size-small-kernels`: the loops of the outlined kernels that do little work stay
//! rolled in LLVM.
//!
//! LLVM's `default<O3>` fully unrolls every loop whose trip count it knows and whose body is
//! small enough: the right trade for the kernels that carry a model's time, a poor one for
//! the many that run a few thousand operations (the border strips of a convolution or pool,
//! small fills and copies, a classifier's last layers). ResNet-18's max pool borders, scalar
//! loops over one column, became ~110 calls to `llvm.maximum.f32` each, ~45 ms of code
//! generation apiece for microseconds of run time. The kernels whose work (see [`work`]),
//! times the calls to them, stays under [`SMALL_WORK`] are taken smallest first, while together
//! they stay within one part in [`BUDGET_SHARE`] of all the kernels' work (a model made only of
//! small kernels keeps them as they were: they are its run time). Each loop of a kernel taken
//! gets `loop_annotation<unroll = <disable = true>>` (carried onto the loop's latch by
//! `convert-scf-to-cf`): LLVM still vectorises it, but does not unroll it. Not LLVM's
//! `optsize`, tried first: it also keeps the loop vectoriser from loops that need a scalar
//! remainder, and a small detector's convolution ran 3x slower. A loop that indexes a vector
//! value by a position it computes stays unrollable ([`indexes_registers`]).
//!
//! Part of `strata-host-to-llvm`, after `convert-linalg-to-loops` (every kernel a loop nest).
//! It changes how a kernel is compiled, never what it computes.

use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::operation::OperationRef;
use std::collections::BTreeMap;
use strata_ir::rewrite::collect;
use strata_ir::{Blk, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

/// Kernels that run at most this many operations (loop iterations times the ops of their
/// bodies, a vector op counting one) in a model's run keep their loops rolled: tens of
/// microseconds at most, where unrolling saves a fraction of that.
pub const SMALL_WORK: u64 = 1 << 17;

/// The kernels kept rolled do at most this share (one part in `BUDGET_SHARE`) of all the
/// kernels' work together: even several times slower rolled, they cost the run a few percent
/// at most.
pub const BUDGET_SHARE: u64 = 100;

pub static INFO: PassInfo = PassInfo {
    name: "strata-size-small-kernels",
    summary: "Keep the loops of the outlined kernels that do little work rolled (no unrolling by LLVM)",
    anchor: "builtin.module",
    options: &[],
    statistics: &[
        StatisticInfo { name: "kernels", help: "kernels whose loops stay rolled" },
        StatisticInfo { name: "nests", help: "small loop nests of the other kernels kept rolled" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SizeSmallKernels)
}

struct SizeSmallKernels;

impl Pass for SizeSmallKernels {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut calls: BTreeMap<String, u64> = BTreeMap::new();
        for call in collect(&module, |op| op.is("func.call")) {
            let callee = call.attribute("callee").and_then(|a| FlatSymbolRefAttribute::try_from(a).ok());
            if let Some(callee) = callee {
                *calls.entry(callee.value().to_owned()).or_default() += 1;
            }
        }
        let Some(body) = Op::of(&module).body(0) else { return Ok(()) };
        let rolled =
            melior::ir::Attribute::parse(cx.strata().mlir(), "#llvm.loop_annotation<unroll = <disable = true>>")
                .ok_or(PassFailed)?;
        // Each kernel's work per call and in the whole run.
        let mut known: Vec<(Op, Blk, u64)> = Vec::new();
        let mut kernels: Vec<(u64, Op)> = Vec::new();
        let mut total = 0u64;
        for function in body.ops() {
            let Some(name) = function.symbol_name() else { continue };
            if !function.is("func.func") || !crate::outline_kernels::is_kernel(&name) {
                continue;
            }
            let Some(entry) = function.body(0) else { continue };
            let count = calls.get(&name).copied().unwrap_or(0);
            // A kernel of unknown work is never taken, and counts for nothing in the budget.
            let Some(once) = work(entry) else { continue };
            known.push((function, entry, once));
            let Some(work) = once.checked_mul(count) else { continue };
            total = total.saturating_add(work);
            // Nor is a kernel split across threads (worth a fork, so not small): once the
            // loops in its OpenMP region are rolled, LLVM unrolls the worksharing loop around
            // them instead, and the code grows.
            if function.collect(|op| op.name().starts_with("omp.")).is_empty() {
                kernels.push((work, function));
            }
        }
        // The smallest first, while each is small and all of them together a small share of
        // the model's work: a model made of small kernels only (a tiny detector) keeps them
        // unrolled, since they are its run time.
        kernels.sort_by_key(|&(work, _)| work);
        let budget = total / BUDGET_SHARE;
        let mut spent = 0u64;
        let mut taken = Vec::new();
        for (work, function) in kernels {
            spent = spent.saturating_add(work);
            if work > SMALL_WORK || spent > budget {
                break;
            }
            roll(function, rolled);
            taken.push(function);
            cx.bump("kernels", 1);
        }
        // In the kernels left to LLVM's unrolling, the loop nests that do little beside the rest.
        for (function, entry, once) in known {
            if taken.contains(&function) {
                continue;
            }
            let mut nests = Vec::new();
            small_nests(entry, 1, once / BUDGET_SHARE, &mut nests);
            for nest in nests {
                roll(nest, rolled);
                cx.bump("nests", 1);
            }
        }
        Ok(())
    }
}

/// `loop_annotation<unroll = disable>` on every loop in `root` (itself included) not annotated
/// already, but those that index a vector value by a position computed in them (see
/// [`indexes_registers`]): loops the elementwise vectoriser annotated keep theirs.
fn roll(root: Op, rolled: melior::ir::Attribute<'_>) {
    for r#loop in root.collect(|op| op.is("scf.for") && op.attribute("loop_annotation").is_none()) {
        if !indexes_registers(r#loop) {
            r#loop.set_attribute("loop_annotation", rolled);
        }
    }
}

/// Whether `nest` reads or writes an element of a vector value at a position known only at run
/// time (`vector.extract` or `vector.insert` with a dynamic position: a register block filled
/// or read lane by lane, the lane the loop's index). Unrolled, the positions are constants and
/// the vector stays in registers; rolled, LLVM keeps it in memory and goes through the stack
/// for every element. The raw-waveform network's first convolution (1 input channel, 21
/// taps a `vector<21xf32>`) counted as small and ran 100x slower rolled: the model 0.28 ->
/// 1.17 ms on one thread.
fn indexes_registers(nest: Op) -> bool {
    !nest
        .collect(|op| {
            (op.is("vector.extract") && op.operand_count() > 1) || (op.is("vector.insert") && op.operand_count() > 2)
        })
        .is_empty()
}

/// The outermost loop nests under `block`, run `trips` times, whose work there stays within
/// `budget` (one part in [`BUDGET_SHARE`] of their kernel's) and [`SMALL_WORK`]: a padded
/// buffer's ring filled in the same parallel loop as its interior's producer (YOLOv8n: 640
/// zeros a thread, fully unrolled into 6000 scalar stores, 1.2 s more code generation), a
/// convolution's border strips beside its interior. A loop nest that is not small is looked
/// into, its trip count multiplying; an OpenMP loop nest's iterations multiply the same way.
fn small_nests(block: Blk, trips: u64, budget: u64, nests: &mut Vec<Op>) {
    for op in block.ops() {
        let small = |w: u64| w <= SMALL_WORK && (w <= budget || stores_one_value(op));
        if op.is("scf.for") && op_work(op).and_then(|w| w.checked_mul(trips)).is_some_and(small) {
            nests.push(op);
            continue;
        }
        let Some(trips) = self::trips(op).and_then(|inner| inner.checked_mul(trips)) else { continue };
        for region in 0..op.region_count() {
            if let Some(inner) = op.body(region) {
                small_nests(inner, trips, budget, nests);
            }
        }
    }
}

/// The operations `block` (a loop nest: linalg ops already loops) runs: each op one, each
/// `scf.for` or OpenMP loop nest its trip count times its body's. `None` when a trip count is
/// not a compile-time constant or an op with regions is neither such a loop nor a branch:
/// such a kernel is never taken for small.
pub fn work(block: Blk) -> Option<u64> {
    block.ops().into_iter().try_fold(0u64, |total, op| total.checked_add(op_work(op)?))
}

fn op_work(op: Op) -> Option<u64> {
    if op.region_count() == 0 {
        return Some(1);
    }
    let trips = trips(op)?;
    let mut inner = 0u64;
    for region in 0..op.region_count() {
        if let Some(block) = op.body(region) {
            inner = inner.checked_add(work(block)?)?;
        }
    }
    trips.checked_mul(inner)?.checked_add(1)
}

/// Whether the loop nest `nest` only stores a value from outside it (a fill): its cost is its
/// stores, unrolled or not (LLVM still vectorises the contiguous ones).
fn stores_one_value(nest: Op) -> bool {
    nest.collect(|op| match op.name().as_str() {
        "scf.for" | "scf.yield" => false,
        "memref.store" | "vector.store" => op.operand(0).owner().is_none_or(|value| value.is_inside(nest)),
        _ => true,
    })
    .is_empty()
}

/// How many times `op`'s regions run each time `op` does: an `scf.for`'s or OpenMP loop
/// nest's trip count, once for a branch, a scope or an OpenMP region; `None` for other ops
/// with regions and for trip counts not known at compile time.
fn trips(op: Op) -> Option<u64> {
    match op.name().as_str() {
        "scf.for" => strata_lower::work::trip_count(op.operand(0), op.operand(1), op.operand(2)),
        "omp.loop_nest" => {
            let ivs = op.body(0)?.argument_count();
            let mut trips = 1u64;
            for i in 0..ivs {
                let (lower, upper, step) = (op.operand(i), op.operand(ivs + i), op.operand(2 * ivs + i));
                trips = trips.checked_mul(strata_lower::work::trip_count(lower, upper, step)?)?;
            }
            Some(trips)
        }
        "scf.if" | "scf.execute_region" | "memref.alloca_scope" | "omp.parallel" | "omp.wsloop" => Some(1),
        _ => None,
    }
}
