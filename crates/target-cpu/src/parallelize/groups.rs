//! Sibling splits (part of `strata-parallelize`): consecutive kernels split across the same
//! threads run as one `scf.forall`, one fork and join instead of one per kernel, where each
//! iteration of the merged loop touches only the part of a shared buffer that the same
//! iteration of every other kernel in it touches.
//!
//! A softmax is seven kernels: the fills of its per-row max and sum, the max, the
//! exponentials, their sum, the reciprocals and the products; split alone, the four big ones
//! were four forks over the same rows, and the fills and reciprocals ran on the main thread
//! between them (the other thread then reading their lines from the main core's cache). Its
//! rows are independent: grouped, each thread runs all seven over its own rows.
//!
//! Legality is read from the kernels' indexing maps before tiling. For every pair of kernels
//! of a group and every pair of their operands where one is written, the two buffers are
//! apart in memory (distinct function arguments, or views of the arena at disjoint planned
//! byte ranges), or they are the same value (or static unit-stride subviews of one value, of
//! its rank, at the same offset and size along that dimension: a padded buffer's left and
//! right columns) and the split loop of each kernel alone indexes the same dimension of it:
//! iteration `i` of both then touches exactly slice `i` of that dimension. Anything else (a view of a view, a buffer read whole by one kernel and written by
//! another, an index that is not a plain loop) keeps the kernels apart. Kernels too small to
//! split on their own join a neighbouring group along a loop that satisfies this; the rest
//! stay whole as before. Results are unchanged: every kernel computes each element as before,
//! in the same order, on the thread that computed it before or the one that wrote its input.

use super::{outside_reductions, reduction_outside, Split, MIN_ITERATIONS, MIN_SHARE};
use melior::ir::r#type::ShapedTypeLike as _;
use std::collections::BTreeMap;
use strata_ir::handle::{map_results, MapResult};
use strata_ir::ods::SliceBox;
use strata_ir::rewrite::{collect, sinkable};
use strata_ir::{attrs, Op, Val};

/// Where a buffer lies, as far as the pass can tell.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Root {
    /// A function argument (its own allocation: a graph input or output, or a blob).
    Argument(usize),
    /// Bytes `[start, end)` of the arena (function argument `arena`).
    Arena { arena: usize, start: u64, end: u64 },
    /// A global (constants).
    Global(String),
    /// Anything else: may overlap every buffer.
    Unknown,
}

impl Root {
    pub(crate) fn of(value: Val) -> Root {
        if let Some(number) = value.argument_number() {
            let in_function = value.owner_block().and_then(|b| b.parent()).is_some_and(|p| p.is("func.func"));
            return if in_function { Root::Argument(number) } else { Root::Unknown };
        }
        let Some(definer) = value.owner() else { return Root::Unknown };
        match definer.name().as_str() {
            "memref.view" => {
                let Root::Argument(arena) = Root::of(definer.operand(0)) else { return Root::Unknown };
                let start = definer.operand(1).constant_int().and_then(|s| u64::try_from(s).ok());
                let bytes = strata_ir::handle::memref_bytes(value.r#type());
                match (start, bytes) {
                    (Some(start), Some(bytes)) => Root::Arena { arena, start, end: start + bytes },
                    _ => Root::Argument(arena),
                }
            }
            // A view of a buffer: anywhere in it.
            "memref.subview"
            | "memref.expand_shape"
            | "memref.collapse_shape"
            | "memref.cast"
            | "memref.reinterpret_cast"
            | "memref.transpose" => Root::of(definer.operand(0)),
            "memref.get_global" => {
                definer.attribute("name").map(|name| Root::Global(name.to_string())).unwrap_or(Root::Unknown)
            }
            _ => Root::Unknown,
        }
    }

    pub(crate) fn overlaps(&self, other: &Root) -> bool {
        use Root::*;
        match (self, other) {
            (Unknown, _) | (_, Unknown) => true,
            (Argument(a), Argument(b)) => a == b,
            (Argument(a), Arena { arena, .. }) | (Arena { arena, .. }, Argument(a)) => a == arena,
            (Arena { arena: a, start: s, end: e }, Arena { arena: b, start: s2, end: e2 }) => {
                a == b && s < e2 && s2 < e
            }
            (Global(a), Global(b)) => a == b,
            (Global(_), _) | (_, Global(_)) => false,
        }
    }
}

/// Which dimension of a buffer the split loop indexes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slice {
    /// This one alone, as a plain loop index: iteration `i` touches slice `i` of it.
    Dim(usize),
    /// None: every iteration touches the same elements.
    Whole,
    /// Some other way (an index expression, or several dimensions).
    Unknown,
}

/// One memref operand of a kernel split along a loop.
struct Access {
    value: Val,
    root: Root,
    written: bool,
    slice: Slice,
}

/// The memref operands of `op` split along loop `dim`; `None` for ops this does not read
/// (only `linalg.generic`, `linalg.fill` and `linalg.copy` join groups).
fn accesses(op: Op, dim: usize) -> Option<Vec<Access>> {
    let operands = op.operands();
    let (maps, inputs) = match op.name().as_str() {
        "linalg.generic" => {
            let maps = map_results(op.attribute("indexing_maps")?)?;
            let segments = strata_ir::handle::i32_array(op.attribute("operandSegmentSizes")?)?;
            (maps, usize::try_from(*segments.first()?).ok()?)
        }
        // Identity maps; a fill's value is a scalar.
        "linalg.fill" | "linalg.copy" => {
            let maps = operands
                .iter()
                .map(|v| {
                    let rank = strata_ir::types::memref(v.r#type()).map_or(0, |m| m.rank());
                    (0..rank).map(MapResult::Dim).collect()
                })
                .collect();
            (maps, operands.len() - 1)
        }
        _ => return None,
    };
    if maps.len() != operands.len() {
        return None;
    }
    let mut accesses = Vec::new();
    for (i, (&value, map)) in operands.iter().zip(&maps).enumerate() {
        if strata_ir::types::memref(value.r#type()).is_none() {
            continue;
        }
        let at: Vec<usize> =
            map.iter().enumerate().filter(|(_, r)| **r == MapResult::Dim(dim)).map(|(p, _)| p).collect();
        let slice = if map.contains(&MapResult::Other) || at.len() > 1 {
            Slice::Unknown
        } else {
            at.first().map_or(Slice::Whole, |&p| Slice::Dim(p))
        };
        accesses.push(Access { value, root: Root::of(value), written: i >= inputs, slice });
    }
    // Buffers the body reads or writes itself (a gather's `memref.load` of its table): at
    // indices the maps do not tell, so any part of them (a Resize's gather in a group with a
    // fill of memory the plan had reused from the gathered input raced with the other
    // thread's reads of it).
    for inner in op.collect(|inner| inner != op) {
        for value in inner.operands() {
            if strata_ir::types::memref(value.r#type()).is_none() || strata_ir::rewrite::defined_inside(value, op) {
                continue;
            }
            let written = !matches!(inner.name().as_str(), "memref.load" | "vector.load" | "vector.transfer_read");
            accesses.push(Access { value, root: Root::of(value), written, slice: Slice::Unknown });
        }
    }
    Some(accesses)
}

/// Whether iteration `i` of a kernel with `later` accesses may run right after iteration `i`
/// of one with `earlier` accesses, in the same loop (see the module comment).
fn compatible(earlier: &[Access], later: &[Access]) -> bool {
    earlier.iter().all(|a| {
        later.iter().all(|b| {
            if !(a.written || b.written) || !a.root.overlaps(&b.root) {
                return true;
            }
            match (a.slice, b.slice) {
                (Slice::Dim(p), Slice::Dim(q)) if p == q => a.value == b.value || in_step(a.value, b.value, p),
                _ => false,
            }
        })
    })
}

/// Whether `a` and `b` are views of one buffer that a loop along their dimension `p` walks in
/// step: static unit-stride subviews of the same value keeping its rank, at the same offset and
/// size along `p`, so iteration `i` of either touches only index `i` of that dimension (a padded
/// buffer's left and right columns, both filled row by row).
fn in_step(a: Val, b: Val, p: usize) -> bool {
    let view = |v: Val| v.owner().filter(|o| o.is("memref.subview") && o.operand_count() == 1);
    let (Some(x), Some(y)) = (view(a), view(b)) else { return false };
    let rank = |v: Val| strata_ir::types::memref(v.r#type()).map(|m| m.rank());
    if x.operand(0) != y.operand(0) || rank(a) != rank(x.operand(0)) || rank(b) != rank(y.operand(0)) {
        return false;
    }
    let (Some(x), Some(y)) = (SliceBox::of(x.get()), SliceBox::of(y.get())) else { return false };
    x.unit_strides()
        && y.unit_strides()
        && x.offsets.get(p).is_some()
        && x.offsets.get(p) == y.offsets.get(p)
        && x.sizes.get(p) == y.sizes.get(p)
}

/// Whether `next` follows `op` in the same block with only address and value computations
/// (views, constants, index arithmetic) between them.
fn adjacent(op: Op, next: Op) -> bool {
    between(op, next, &[])
}

/// A kernel of a group: its position in the pass's list, the loop split, what it touches.
struct Member {
    index: usize,
    dim: usize,
    accesses: Vec<Access>,
}

/// The loop along which kernel `index`, too small to split on its own (`loops`, under
/// [`MIN_ITERATIONS`]), can join `members`, running before them (`before`) or after, with each
/// thread's share of its output at least a cache line; in a group `cut` first (at the first
/// number, of loops as long as the second), a loop as long, cut there too.
fn join(
    index: usize,
    op: Op,
    loops: &[(i64, bool)],
    threads: i64,
    members: &[Member],
    before: bool,
    cut: Option<(i64, i64)>,
) -> Option<Member> {
    if loops.iter().map(|&(extent, _)| extent).product::<i64>() >= MIN_ITERATIONS || reduction_outside(loops) {
        return None;
    }
    outside_reductions(loops).enumerate().find_map(|(dim, &(extent, parallel))| {
        let run = extent / threads * loops[dim + 1..].iter().filter(|l| l.1).map(|&(e, _)| e).product::<i64>();
        let fits = match cut {
            Some((_, whole)) => extent == whole,
            None => extent >= threads && extent % threads == 0,
        };
        if !parallel || !fits || run < MIN_SHARE {
            return None;
        }
        let accesses = accesses(op, dim)?;
        let fits = members.iter().all(|m| {
            if before {
                compatible(&accesses, &m.accesses)
            } else {
                compatible(&m.accesses, &accesses)
            }
        });
        fits.then_some(Member { index, dim, accesses })
    })
}

/// The groups of `kernels` (top-level linalg ops in walk order, with their `loops` and the
/// `splits` chosen for them alone) whose splits merge into one loop: runs of adjacent kernels
/// with at least one split, the others (small, whole) joining along a loop [`join`] finds,
/// which is set in `splits`. Kernels cut first join only kernels cut at the same point of a
/// loop as long (a vision transformer's 197 rows: 196 split, each kernel's last row after the
/// merged loop, in order; the rows of a shared buffer the loop touches are the first 196 in
/// every kernel, so the last rows may wait). Each group lists its kernels' positions.
pub(super) fn plan(
    kernels: &[Op],
    loops: &[Option<Vec<(i64, bool)>>],
    splits: &mut [Option<Split>],
    threads: i64,
) -> Vec<Vec<usize>> {
    let mut groups = Vec::new();
    let mut current: Vec<Member> = Vec::new();
    // The current group's cut: where, along a loop how long.
    let mut cut: Option<(i64, i64)> = None;
    // Adjacent kernels since the last group, left whole: they may join the next one.
    let mut pending: Vec<usize> = Vec::new();
    let close = |current: &mut Vec<Member>,
                 groups: &mut Vec<Vec<usize>>,
                 splits: &mut [Option<Split>],
                 cut: Option<(i64, i64)>| {
        if current.len() >= 2 {
            for m in current.iter() {
                splits[m.index] = Some(Split { dim: m.dim, before: cut.map(|(at, _)| at) });
            }
            groups.push(current.iter().map(|m| m.index).collect());
        }
        current.clear();
    };
    for (i, &op) in kernels.iter().enumerate() {
        if i > 0 && !adjacent(kernels[i - 1], op) {
            close(&mut current, &mut groups, splits, cut);
            pending.clear();
        }
        match (splits[i], loops[i].as_deref()) {
            (Some(Split { dim, before }), Some(l)) => {
                let Some(accesses) = accesses(op, dim) else {
                    close(&mut current, &mut groups, splits, cut);
                    pending.clear();
                    continue;
                };
                let own = before.map(|at| (at, l[dim].0));
                if !current.is_empty() && own == cut && current.iter().all(|m| compatible(&m.accesses, &accesses)) {
                    current.push(Member { index: i, dim, accesses });
                    continue;
                }
                close(&mut current, &mut groups, splits, cut);
                cut = own;
                current.push(Member { index: i, dim, accesses });
                // The whole kernels right before it, nearest first, while they fit.
                for &p in pending.iter().rev() {
                    let Some(Some(l)) = loops.get(p) else { break };
                    let Some(member) = join(p, kernels[p], l, threads, &current, true, cut) else { break };
                    current.insert(0, member);
                }
                pending.clear();
            }
            (None, l) => {
                if !current.is_empty() {
                    if let Some(member) = l.and_then(|l| join(i, op, l, threads, &current, false, cut)) {
                        current.push(member);
                        continue;
                    }
                    close(&mut current, &mut groups, splits, cut);
                }
                pending.push(i);
            }
            (Some(_), None) => {
                close(&mut current, &mut groups, splits, cut);
                pending.clear();
            }
        }
    }
    close(&mut current, &mut groups, splits, cut);
    groups
}

/// Merges the `scf.forall`s of each group (marked [`attrs::PARALLEL_GROUP`] on their kernels,
/// which this removes) into the first: the views and constants between them move before it,
/// each later loop's body after the first's, on its induction variable. Returns the loops
/// merged away. Loops that do not match (a Strata bug) stay as they are.
pub(super) fn merge(module: Op) -> usize {
    let mut loops: BTreeMap<i64, Vec<Op>> = BTreeMap::new();
    // The parts of kernels cut first that run after their loop, on one thread.
    let mut rests: BTreeMap<i64, Vec<Op>> = BTreeMap::new();
    for kernel in collect(&module.get(), |op| attrs::PARALLEL_GROUP.get(op.get()).is_some()) {
        let group = attrs::PARALLEL_GROUP.get(kernel.get()).unwrap_or_default();
        kernel.remove_attribute(attrs::PARALLEL_GROUP.0);
        let Some(forall) = kernel.parent().filter(|p| p.is("scf.forall")) else {
            rests.entry(group).or_default().push(kernel);
            continue;
        };
        let group = loops.entry(group).or_default();
        if group.last() != Some(&forall) {
            group.push(forall);
        }
    }
    let mut merged = 0;
    for (group, foralls) in &loops {
        let rests = rests.get(group).map(Vec::as_slice).unwrap_or_default();
        let mut into = foralls[0];
        for &next in &foralls[1..] {
            if !mergeable(into, next, rests) {
                into = next;
                continue;
            }
            let (Some(to), Some(from), Some(after)) = (into.body(0), next.body(0), next.next()) else { continue };
            let Some(anchor) = to.terminator() else { continue };
            // Views and constants before the first loop; the rests after the next, in order.
            let mut at = into.next();
            while let Some(between) = at.filter(|&op| op != next) {
                at = between.next();
                between.move_before(if rests.contains(&between) { after } else { into });
            }
            from.argument(0).replace_all_uses_with(to.argument(0));
            for op in from.ops_before_terminator() {
                op.move_before(anchor);
            }
            // Safety: `next` is empty of uses and handles: its body's ops moved out, and
            // nothing refers to a loop without results.
            unsafe { next.erase() };
            merged += 1;
        }
    }
    merged
}

/// Whether `next` can run inside `into`: the same iteration space, one induction variable,
/// no results or parallel inserts, with only views, constants and the group's `rests`
/// between them.
fn mergeable(into: Op, next: Op, rests: &[Op]) -> bool {
    let same = |name: &str| {
        let a = into.attribute(name).map(|a| a.to_string());
        a.is_some() && a == next.attribute(name).map(|a| a.to_string())
    };
    let simple = |op: Op| {
        op.operand_count() == 0
            && op.result_count() == 0
            && op.attribute("mapping").is_none()
            && op.body(0).is_some_and(|b| {
                b.argument_count() == 1 && b.terminator().is_some_and(|t| t.body(0).is_none_or(|i| i.ops().is_empty()))
            })
    };
    same("staticLowerBound")
        && same("staticUpperBound")
        && same("staticStep")
        && simple(into)
        && simple(next)
        && between(into, next, rests)
}

/// Whether only views, constants and `rests` lie between `op` and `next` in their block.
fn between(op: Op, next: Op, rests: &[Op]) -> bool {
    let mut at = op.next();
    while let Some(between) = at {
        if between == next {
            return true;
        }
        if !rests.contains(&between) && (!sinkable(&between.name()) || between.region_count() > 0) {
            return false;
        }
        at = between.next();
    }
    false
}
