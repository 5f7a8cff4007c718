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
use strata_ir::{Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_machine::Registers;

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
    options: &[OptionInfo {
        name: "vector-lanes",
        kind: OptionKind::Int,
        default: "0",
        help: "f32 lanes of the target's vector registers, which give their number (0: the host's)",
    }],
    statistics: &[
        StatisticInfo { name: "kernels", help: "kernels whose loops stay rolled" },
        StatisticInfo { name: "nests", help: "small loop nests of the other kernels kept rolled" },
        StatisticInfo {
            name: "taps",
            help: "tap loops kept rolled: unrolled, their values would not fit the registers",
        },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    let registers = match options.int("vector-lanes") {
        lanes if lanes > 0 => Registers::for_lanes(lanes),
        _ => Registers::host(),
    };
    Box::new(SizeSmallKernels { registers })
}

struct SizeSmallKernels {
    registers: Registers,
}

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
        let functions: Vec<Op> = body
            .ops()
            .into_iter()
            .filter(|f| f.is("func.func") && f.symbol_name().is_some_and(|n| crate::outline_kernels::is_kernel(&n)))
            .collect();
        let rolled =
            melior::ir::Attribute::parse(cx.strata().mlir(), "#llvm.loop_annotation<unroll = <disable = true>>")
                .ok_or(PassFailed)?;
        // Each kernel's work per call and in the whole run.
        let mut known: Vec<(Op, Blk, u64)> = Vec::new();
        let mut kernels: Vec<(u64, Op)> = Vec::new();
        let mut total = 0u64;
        for &function in &functions {
            let Some(entry) = function.body(0) else { continue };
            let count = function.symbol_name().and_then(|name| calls.get(&name).copied()).unwrap_or(0);
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
        // In every kernel, the tap loops whose unrolled steps would not fit the registers.
        for function in functions {
            for r#loop in function.collect(|op| op.is("scf.for") && op.attribute("loop_annotation").is_none()) {
                if !indexes_registers(r#loop) && spills_unrolled(r#loop, self.registers) {
                    r#loop.set_attribute("loop_annotation", rolled);
                    cx.bump("taps", 1);
                }
            }
        }
        Ok(())
    }
}

/// Whether `r#loop` is a register block's tap loop that LLVM would spill unrolled: a loop of a
/// few constant trips (at most [`MAX_TAPS`]) carrying a `vector<R x C>` block of accumulators,
/// whose body reads a row of `N` inputs and extracts them one by one (each broadcast against
/// the filter vector). Rolled, each step needs the block, its `N` inputs and the filter
/// vectors, as the schedule sized it; unrolled, LLVM merges the loads of the inputs the steps
/// share (a row shifted by one column a tap), so the `N + trips - 1` inputs and every step's
/// filter vectors are live beside the block at once. When that exceeds the vector registers
/// by more than three eighths, the block's accumulators go to the stack: U-Net's 16-channel
/// 3x3 convolution (24 rows of 16 lanes) ran 1.7x slower unrolled (26 inputs and 3 filter
/// vectors beside 24 accumulators, 53 values on 32 registers; YOLOv8n's 20-row blocks, 45,
/// gained too). Less over is better unrolled (AVX-512's FMAs take a broadcast input from
/// memory): the Inception cell's 16 x 16 block (37 values) ran 1.2x faster unrolled, and
/// DeepLab's 32-lane blocks (41-44 values) about 2% faster.
///
/// Only where measured: hosts with 32 vector registers (AVX-512). On 16 (AVX2), the schedule's
/// blocks of 12 accumulators already reach the threshold with their inputs, and whether
/// rolled tap loops run faster there is not known.
fn spills_unrolled(r#loop: Op, registers: Registers) -> bool {
    if registers.count < 32 {
        return false;
    }
    let Some(trips) = trips(r#loop).filter(|&t| (2..=MAX_TAPS).contains(&t)) else { return false };
    let Some(body) = r#loop.body(0) else { return false };
    // The block's accumulators: the widest 2-D vector the loop carries.
    let block = (0..body.argument_count())
        .filter_map(|i| strata_ir::types::vector_shape(body.argument(i).r#type()))
        .filter(|(dims, _)| dims.len() == 2)
        .map(|(dims, _)| (dims[0] * registers.vectors(dims[1]), dims[1]))
        .max();
    let Some((accumulators, columns)) = block else { return false };
    // The rows of inputs the body reads and extracts (a loop nested in it is not a step's).
    let rows: i64 = body
        .ops()
        .into_iter()
        .filter(|op| op.is("vector.transfer_read") || op.is("vector.load"))
        .filter_map(|read| {
            let (dims, _) = strata_ir::types::vector_shape(read.result(0).r#type())?;
            let uses = read.result(0).uses();
            (dims.len() == 1 && !uses.is_empty() && uses.iter().all(|(user, _)| user.is("vector.extract")))
                .then(|| dims[0])
        })
        .sum();
    if rows == 0 {
        return false;
    }
    let live = accumulators + rows + (trips as i64 - 1) + trips as i64 * registers.vectors(columns);
    live > registers.count + registers.count * 3 / 8
}

/// The most trips a loop has to count as a filter's taps ([`spills_unrolled`]).
const MAX_TAPS: u64 = 7;

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
