//! `strata-choose-in-place`: which values are produced inside the larger buffer they are
//! inserted into, decided one insertion at a time by the peak of live buffers they lead to.
//!
//! `eliminate-empty-tensors` lets the producer of every inserted value (a padded value's
//! interior after `strata-pad-in-place`, a concatenation's part, a band of rows) write straight
//! into its destination: the value and its copy never exist side by side, but the destination
//! then lives from the producer on, across everything that runs between the producer and the
//! insertion. Near a model's peak that can cost more than the copy saves (a strided
//! convolution feeding a pool; a concatenation whose parts are produced long before it).
//! `strata-bufferize-and-plan` used to plan the whole module twice, every insertion in place
//! and none, and keep the smaller arena; this pass decides each insertion on its own instead.
//!
//! It runs twice around `eliminate-empty-tensors`: with `mark=true` it marks every
//! `tensor.extract_slice` of the function (and the function), so that afterwards the slices
//! the elimination created are the unmarked ones. Each such slice `%e = extract_slice %d[..]`
//! is the new destination of a producer whose own was a `tensor.empty` (the producer never
//! reads it): an insertion in place. Without `mark`, the pass models the function's buffers at
//! tensor level (one per `tensor.empty` or value-producing op, shared by destination-passing
//! results, views and insertions; live from the first op of the entry block that uses one of
//! its values, a use inside a loop counting at the loop, to the last), takes the peak of the
//! bytes live at once (the planner's lower bound, which its exact solver reaches on every zoo
//! model) for each choice, and flips insertions greedily while the peak (then the number of
//! ops at the peak) drops, starting from all in place and from none and keeping the better.
//! A rejected insertion gets its `tensor.empty` back: the producer writes a buffer of its own,
//! and bufferization copies it into the destination at the insertion. A fill of a new tensor
//! (a padded buffer's border) the elimination moved above the producer moves down to its first
//! remaining user, so the destination lives from the insertion on, as without the elimination.
//! The marks are removed. In place is kept on a tie (it saves the copy).
//!
//! An insertion of a copy (a part not produced in place: the U-Net's skip, read by the encoder
//! too) runs where the model places it, right before its first user: often beside the value
//! of another part being made, the copy's source still live. Each choice is also judged with
//! such insertions moved up (up to [`WINDOW`] ops, above an op making another part), with the
//! fills, views and new tensors they need, where the peak drops: the source dies there and the
//! destination, live from the other part's write anyway, takes its place. The U-Net's last
//! decoder stage (skip, transposed convolution, shuffle into the padded concatenation) 2408960 ->
//! 2169856 bytes. The searches for moves are bounded ([`MAX_STEPS`]), so the pass stays linear.
//!
//! With `mark-overwritten`, each slice kept as a producer's destination is marked
//! `strata.overwritten_slice` instead (its producer never reads it: `strata-pad-rings` then
//! leaves the box it covers out of the destination's fill).
//!
//! A slice of a new tensor that nothing else reads gets its own buffer before any choice: the
//! elimination leaves such a destination behind when it first makes a concatenation's part
//! inside the concatenation and then moves the concatenation into a padded buffer (the U-Net's
//! skips were written into tensors twice their size only to be copied from).
//!
//! Functions the `mark` run did not see are left alone (an unmarked slice of one may be a real
//! read of its source).

use std::collections::{BTreeMap, BTreeSet};
use strata_ir::{
    Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val,
};

pub static INFO: PassInfo = PassInfo {
    name: "strata-choose-in-place",
    summary: "Decide for each value eliminate-empty-tensors produces inside its destination whether that pays (the peak of live buffers), and give the others their own buffer back",
    anchor: "func.func",
    options: &[
        OptionInfo {
            name: "mark",
            kind: OptionKind::Bool,
            default: "false",
            help: "mark the function's slices before eliminate-empty-tensors (run once with, once without, around it)",
        },
        OptionInfo {
            name: "mark-overwritten",
            kind: OptionKind::Bool,
            default: "false",
            help: "mark each slice kept as a producer's destination strata.overwritten_slice (read and removed by strata-pad-rings)",
        },
    ],
    statistics: &[
        StatisticInfo { name: "in-place", help: "insertions produced inside their destination" },
        StatisticInfo { name: "copied", help: "insertions given their own buffer back (the copy costs less at the peak)" },
        StatisticInfo { name: "stale", help: "slices of a new tensor nothing else reads (left behind by the elimination) given their own buffer" },
        StatisticInfo { name: "hoisted", help: "insertions of copies moved up, with their destination, to where their source's death lowers the peak" },
        StatisticInfo { name: "peak-bytes", help: "the modelled peak of live buffers with the choice made" },
    ],
};

use strata_ir::attrs::{SLICES_MARKED as FUNCTION_MARK, SLICE_BEFORE_ELIMINATION as SLICE_MARK};

/// Buffers start at 64-byte boundaries in the arena.
const ALIGNMENT: u64 = 16;

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(ChooseInPlace { mark: options.bool("mark"), mark_overwritten: options.bool("mark-overwritten") })
}

struct ChooseInPlace {
    mark: bool,
    mark_overwritten: bool,
}

impl Pass for ChooseInPlace {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let slices = Op::of(&func).collect(|op| op.is("tensor.extract_slice"));
        if self.mark {
            for slice in slices {
                SLICE_MARK.set(slice.get());
            }
            FUNCTION_MARK.set(func);
            return Ok(());
        }
        if !Op::of(&func).remove_attribute(FUNCTION_MARK.0) {
            return Ok(());
        }
        // The slices the elimination created, by address.
        let mut created = BTreeSet::new();
        let mut stale = 0;
        for slice in slices {
            if slice.remove_attribute(SLICE_MARK.0) {
                continue;
            }
            // A slice of a new tensor nothing else reads: a destination the elimination left
            // behind (a concatenation's part made inside the concatenation, which a pad's
            // elimination then moved into the padded buffer). Its producer would write a
            // larger buffer only to be copied from: it gets its own.
            let source = slice.operand(0).owner().filter(|o| NEW.contains(&o.name().as_str()));
            if let Some(empty) = source.filter(|empty| empty.result(0).users() == [slice]) {
                own_buffer(cx, slice)?;
                // Safety: its one user is gone; no handle to it is used again.
                unsafe { empty.erase() };
                stale += 1;
                continue;
            }
            created.insert(slice.raw().ptr as usize);
        }
        cx.bump("stale", stale);
        let Some(block) = Op::of(&func).body(0).filter(|_| !created.is_empty()) else { return Ok(()) };
        let model = Model::build(block, &created);
        if model.candidates.is_empty() {
            return Ok(());
        }
        let (accepted, hoists, peak) = model.choose();
        let mut rejected = 0;
        for (candidate, &keep) in model.candidates.iter().zip(&accepted) {
            if !keep {
                own_buffer(cx, candidate.slice)?;
                rejected += 1;
            } else if self.mark_overwritten {
                strata_ir::attrs::OVERWRITTEN_SLICE.set(candidate.slice.get());
            }
        }
        for sunk in model.sunk.iter().rev() {
            sink(block, sunk.op);
        }
        for (&sunk, &at) in &hoists {
            hoist(block, model.sunk[sunk].op, model.ops[at]);
        }
        cx.bump("in-place", (accepted.len() - rejected) as u64);
        cx.bump("hoisted", hoists.len() as u64);
        cx.bump("copied", rejected as u64);
        cx.bump("peak-bytes", peak);
        Ok(())
    }
}

/// Replaces the slice `eliminate-empty-tensors` made the producer's destination by a
/// `tensor.empty` of its type (what the producer had before), and erases the slice.
fn own_buffer(cx: &mut PassContext<'_>, slice: Op) -> Result<(), PassFailed> {
    use melior::ir::operation::OperationBuilder;
    use melior::ir::BlockLike;
    let ty = slice.result(0).r#type();
    let empty = OperationBuilder::new("tensor.empty", slice.location())
        .add_results(&[ty])
        .build()
        .map_err(|e| cx.fail(slice.get(), &format!("cannot build a tensor.empty: {e}").into()))?;
    let block = slice.block().expect("a slice of the entry block");
    let empty = block.get().insert_operation_before(slice.get(), empty);
    slice.result(0).replace_all_uses_with(Val::from(empty.result(0).expect("one result")));
    // Safety: nothing uses the slice any more, and no handle to it is used again.
    unsafe { slice.erase() };
    Ok(())
}

/// The bytes a buffer of `value`'s static tensor type takes in the arena.
fn aligned_bytes(value: Val) -> Option<u64> {
    strata_ir::handle::tensor_bytes(value.r#type()).map(|b| b.div_ceil(ALIGNMENT) * ALIGNMENT)
}

/// Moves `op` down to right before its first user in `block` (its operands are defined above
/// it, so above that user too).
fn sink(block: Blk, op: Op) {
    let users: Vec<Op> = op.result(0).users().into_iter().filter_map(|user| user.ancestor_in(block)).collect();
    let Some(first) = block.ops().into_iter().skip_while(|&o| o != op).skip(1).find(|o| users.contains(o)) else {
        return;
    };
    if op.next() != Some(first) {
        op.move_before(first);
    }
}

/// The view-like tensor ops: their result is their first operand's buffer, and making one is
/// not a use of it.
const VIEWS: &[&str] = &[
    "tensor.extract_slice",
    "tensor.expand_shape",
    "tensor.collapse_shape",
    "tensor.cast",
    "tensor.bitcast",
    "tensor.reshape",
];

/// Ops that make a new buffer without using it.
const NEW: &[&str] = &["tensor.empty", "bufferization.alloc_tensor"];

/// How many positions up an insertion of a copy may move.
const WINDOW: usize = 64;

/// The position steps (peak evaluations times the function's length) spent on moving
/// insertions up, in one function.
const MAX_STEPS: usize = 1 << 22;

/// The lowest position the insertion `op` (at `position[op]`) may run before: above the ops
/// its operands need that compute something (none of `sunk`, views, new tensors or
/// constants, which move along), at most [`WINDOW`] positions up.
fn lowest(block: Blk, position: &BTreeMap<usize, usize>, sunk: &BTreeSet<usize>, op: Op) -> usize {
    let at = |op: Op| position.get(&(op.raw().ptr as usize)).copied();
    let mut lowest = at(op).unwrap_or(0).saturating_sub(WINDOW);
    let mut work = op.operands();
    let mut seen = BTreeSet::new();
    while let Some(value) = work.pop() {
        let Some((def, here)) = value.owner().and_then(|o| o.ancestor_in(block)).and_then(|o| Some((o, at(o)?))) else {
            continue;
        };
        if here < lowest || !seen.insert(here) {
            continue;
        }
        let name = def.name();
        if movable(&name) && (sunk.contains(&here) || !uses_buffers(&name)) {
            work.extend(def.operands());
        } else {
            lowest = here + 1;
        }
    }
    lowest
}

/// Ops that only make or rearrange tensors: they may move up to an insertion's new place.
fn movable(name: &str) -> bool {
    VIEWS.contains(&name)
        || NEW.contains(&name)
        || matches!(name, "arith.constant" | "linalg.fill" | "tensor.insert_slice")
}

/// Whether the model counts `name` as a use of buffers (views, new tensors and constants do
/// not use one).
fn uses_buffers(name: &str) -> bool {
    !(VIEWS.contains(&name) || NEW.contains(&name) || name == "arith.constant")
}

/// Moves the insertion `op` and what it needs below `anchor` (ops [`movable`] all, or nothing
/// moves) to right before `anchor`, in order.
fn hoist(block: Blk, op: Op, anchor: Op) {
    for needed in needed_after(block, vec![op.result(0)], anchor).unwrap_or_default() {
        needed.move_before(anchor);
    }
}

/// The ops of `block` after `anchor` that make `roots` or the values they need (an op nested
/// in one counts as its ancestor in `block`), in block order, if every one of them is
/// [`movable`] (pure, so they may all move up to right before `anchor`; a fill's body reads
/// only its own arguments, the others have no regions); `None` otherwise. Also
/// `strata-eliminate-reshaped-empties`' (what must move above a producer's `tensor.empty`).
pub(crate) fn needed_after(block: Blk, roots: Vec<Val>, anchor: Op) -> Option<Vec<Op>> {
    let position = strata_ir::rewrite::positions(&block.ops());
    let at = |op: Op| position.get(&(op.raw().ptr as usize)).copied();
    let limit = at(anchor)?;
    let mut needed = BTreeMap::new();
    let mut work = roots;
    while let Some(value) = work.pop() {
        let Some(op) = value.owner().and_then(|op| op.ancestor_in(block)) else { continue };
        let Some(here) = at(op).filter(|&here| here > limit) else { continue };
        if needed.insert(here, op).is_some() {
            continue;
        }
        if !movable(&op.name()) {
            return None;
        }
        work.extend(op.operands());
    }
    Some(needed.into_values().collect())
}

/// An insertion in place: the slice of the destination the producer writes.
struct Candidate {
    slice: Op,
}

/// A choice of candidates in place, with the insertions moved up, and its cost: the peak, the
/// positions at it, the candidates copied.
struct Choice {
    cost: (u64, usize, usize),
    accepted: Vec<bool>,
    hoisted: BTreeMap<usize, usize>,
}

/// An op of the entry block that [`sink`] moves to right before its first user.
struct Sunk {
    op: Op,
    /// Its position.
    at: usize,
    /// The values it uses.
    uses: Vec<usize>,
    /// The positions of its result's users, with the candidate whose slice the user is.
    users: Vec<(usize, Option<usize>)>,
    /// For an insertion: the lowest position it may run before, with the ops after that its
    /// destination needs (fills, views, new tensors, other such insertions) moved along.
    lowest: Option<usize>,
}

/// The entry block's tensor values and their buffers.
struct Model {
    /// Per value: the value whose buffer it shares, through the candidate when it is one.
    alias: Vec<Option<(usize, Option<usize>)>>,
    /// Per value: its buffer's bytes when it starts one (rounded up to the alignment).
    bytes: Vec<Option<u64>>,
    /// Per value: the buffer is not the arena's (an argument, a constant, a returned value,
    /// a dynamic shape).
    outside: Vec<bool>,
    /// Per position in the block, the values used there.
    uses: Vec<Vec<usize>>,
    candidates: Vec<Candidate>,
    sunk: Vec<Sunk>,
    /// The entry block's ops, in order.
    ops: Vec<Op>,
    /// Per position: whether an insertion may be moved to right before the op there (it stays
    /// where it is: neither a candidate's slice nor one of [`Model::sunk`]).
    anchors: Vec<bool>,
}

impl Model {
    fn build(block: Blk, created: &BTreeSet<usize>) -> Model {
        let ops = block.ops();
        let mut ids: BTreeMap<usize, usize> = BTreeMap::new();
        let mut model = Model {
            alias: Vec::new(),
            bytes: Vec::new(),
            outside: Vec::new(),
            uses: vec![Vec::new(); ops.len()],
            candidates: Vec::new(),
            sunk: Vec::new(),
            ops: Vec::new(),
            anchors: Vec::new(),
        };
        let key = |value: Val| value.raw().ptr as usize;
        let new_value =
            |model: &mut Model, ids: &mut BTreeMap<usize, usize>, value: Val, alias: Option<(usize, Option<usize>)>| {
                let bytes = aligned_bytes(value);
                let id = model.alias.len();
                model.outside.push(alias.is_none() && bytes.is_none());
                model.alias.push(alias);
                model.bytes.push(if alias.is_none() { bytes } else { None });
                ids.insert(key(value), id);
                id
            };
        for index in 0..block.argument_count() {
            let id = new_value(&mut model, &mut ids, block.argument(index), None);
            model.outside[id] = true;
        }
        let is_tensor = |value: Val| strata_ir::types::ranked_tensor(value.r#type()).is_some();
        for (position, &op) in ops.iter().enumerate() {
            let name = op.name();
            // Values of the block this op (or one nested in it) reads.
            let mut used = Vec::new();
            let view = VIEWS.contains(&name.as_str());
            if !view {
                for inner in op.collect(|_| true) {
                    for operand in inner.operands() {
                        if let Some(&id) = ids.get(&key(operand)) {
                            used.push(id);
                        }
                    }
                }
            }
            let count = op.result_count();
            for index in 0..count {
                let result = op.result(index);
                if !is_tensor(result) {
                    continue;
                }
                // A destination-passing op's results are its last operands' buffers, in order.
                let tied = (op.operand_count() + index).checked_sub(count);
                let source = |index: usize| ids.get(&key(op.operand(index))).copied();
                let alias = if NEW.contains(&name.as_str()) || name == "arith.constant" {
                    None
                } else if view {
                    source(0).map(|s| (s, None::<usize>))
                } else if matches!(
                    name.as_str(),
                    "tensor.insert_slice"
                        | "tensor.insert"
                        | "vector.transfer_write"
                        | "bufferization.materialize_in_destination"
                ) {
                    source(1).map(|s| (s, None))
                } else if let Some(tied) = tied.filter(|&t| crate::init_per_destination::is_destination(op, t)) {
                    let operand = op.operand(tied);
                    (operand.r#type() == result.r#type()).then(|| source(tied).map(|s| (s, None))).flatten()
                } else {
                    None
                };
                let candidate = created.contains(&(op.raw().ptr as usize)).then_some(model.candidates.len());
                let alias = alias.map(|(s, _)| (s, candidate));
                let id = new_value(&mut model, &mut ids, result, alias);
                if name == "arith.constant" {
                    model.outside[id] = true;
                }
                if let Some(c) = candidate.filter(|_| alias.is_some()) {
                    debug_assert_eq!(c, model.candidates.len());
                    model.candidates.push(Candidate { slice: op });
                    if model.bytes[id].is_none() {
                        // Rejected, the slice is a buffer of its own.
                        model.bytes[id] = aligned_bytes(result);
                    }
                }
                if !view && !NEW.contains(&name.as_str()) {
                    used.push(id);
                }
            }
            if op.is("func.return") {
                for &id in &used {
                    model.outside[id] = true;
                }
            }
            model.uses[position] = used;
        }
        // What the elimination hoisted above a producer so that its slice could be the
        // producer's destination: fills of new tensors and insertions a candidate slices. They
        // run (and use their values) right before their first user that is left.
        let position = strata_ir::rewrite::positions(&ops);
        let candidate_of: BTreeMap<usize, usize> =
            model.candidates.iter().enumerate().map(|(c, candidate)| (candidate.slice.raw().ptr as usize, c)).collect();
        for (at, &op) in ops.iter().enumerate() {
            let fill = op.is("linalg.fill")
                && op.operand_count() == 2
                && op.operand(1).owner().is_some_and(|o| o.is("tensor.empty"));
            if !(fill || op.is("tensor.insert_slice")) || op.result_count() != 1 {
                continue;
            }
            let users: Vec<(usize, Option<usize>)> = op
                .result(0)
                .users()
                .into_iter()
                .filter_map(|user| {
                    let top = user.ancestor_in(block)?;
                    let at = *position.get(&(top.raw().ptr as usize))?;
                    Some((at, candidate_of.get(&(top.raw().ptr as usize)).copied()))
                })
                .collect();
            if users.iter().all(|&(_, candidate)| candidate.is_none()) {
                continue;
            }
            let uses = std::mem::take(&mut model.uses[at]);
            model.sunk.push(Sunk { op, at, uses, users, lowest: None });
        }
        let sunk: BTreeSet<usize> = model.sunk.iter().map(|sunk| sunk.at).collect();
        for index in 0..model.sunk.len() {
            let op = model.sunk[index].op;
            if op.is("tensor.insert_slice") {
                model.sunk[index].lowest = Some(lowest(block, &position, &sunk, op));
            }
        }
        model.anchors = ops
            .iter()
            .enumerate()
            .map(|(at, op)| !sunk.contains(&at) && !candidate_of.contains_key(&(op.raw().ptr as usize)))
            .collect();
        model.ops = ops;
        model
    }

    /// Where each of [`Model::sunk`] runs: right before its first user left (a candidate's
    /// slice only when `accepted`), or where `hoisted` moves it if that is earlier.
    fn placed(&self, accepted: &[bool], hoisted: &BTreeMap<usize, usize>) -> Vec<usize> {
        let mut placed = vec![0; self.sunk.len()];
        // Later ones first: an earlier one may move to right before a later one.
        let mut moved: BTreeMap<usize, usize> = BTreeMap::new();
        for (index, sunk) in self.sunk.iter().enumerate().rev() {
            let present = sunk.users.iter().filter(|&&(_, candidate)| candidate.is_none_or(|c| accepted[c]));
            let at = present.map(|&(at, _)| moved.get(&at).copied().unwrap_or(at)).min().unwrap_or(sunk.at);
            let at = hoisted.get(&index).map_or(at, |&to| to.min(at));
            moved.insert(sunk.at, at);
            placed[index] = at;
        }
        placed
    }

    /// The bytes live at each position, with the candidates in place where `accepted` says so
    /// and the insertions `hoisted` moved up.
    fn live(&self, accepted: &[bool], hoisted: &BTreeMap<usize, usize>) -> Vec<i64> {
        let n = self.alias.len();
        // The buffer of each value: values in order, an alias always earlier.
        let mut buffer: Vec<usize> = (0..n).collect();
        for value in 0..n {
            if let Some((source, candidate)) = self.alias[value] {
                if candidate.is_none_or(|c| accepted[c]) {
                    buffer[value] = buffer[source];
                }
            }
        }
        let mut outside = vec![false; n];
        for value in 0..n {
            if self.outside[value] {
                outside[buffer[value]] = true;
            }
        }
        let mut first = vec![usize::MAX; n];
        let mut last = vec![0usize; n];
        let mut mark = |value: usize, at: usize| {
            let b = buffer[value];
            first[b] = first[b].min(at);
            last[b] = last[b].max(at);
        };
        for (at, used) in self.uses.iter().enumerate() {
            for &value in used {
                mark(value, at);
            }
        }
        for (sunk, at) in self.sunk.iter().zip(self.placed(accepted, hoisted)) {
            for &value in &sunk.uses {
                mark(value, at);
            }
        }
        let positions = self.uses.len();
        let mut delta = vec![0i64; positions + 1];
        for b in 0..n {
            // A value is its own buffer only when it has no alias or is a rejected candidate,
            // exactly the values [`Model::bytes`] holds a size for.
            let own = buffer[b] == b;
            if let (true, false, Some(bytes), true) = (own, outside[b], self.bytes[b], first[b] != usize::MAX) {
                delta[first[b]] += bytes as i64;
                delta[last[b] + 1] -= bytes as i64;
            }
        }
        let mut live = 0i64;
        delta[..positions]
            .iter()
            .map(|d| {
                live += d;
                live
            })
            .collect()
    }

    /// The peak of live bytes and the number of positions at it, with the candidates in place
    /// where `accepted` says so and the insertions `hoisted` moved up.
    fn peak(&self, accepted: &[bool], hoisted: &BTreeMap<usize, usize>) -> (u64, usize) {
        peak_of(&self.live(accepted, hoisted))
    }

    /// The choice (true: in place), the insertions moved up (see [`Model::hoist`]) and the
    /// peak. Greedy flips from all in place and from none, judged with and without the
    /// insertions moved up that lower each choice's peak; those without then get a second
    /// pass, each candidate flipped once more with the moves (a padded concatenation in place
    /// pays only with its other part's insertion run before that part is made, which the
    /// flips one at a time may not reach). The best kept (in place on a tie).
    fn choose(&self) -> (Vec<bool>, BTreeMap<usize, usize>, u64) {
        let k = self.candidates.len();
        let tries = std::cell::Cell::new(self.max_tries());
        let cost = |accepted: &[bool], hoisted: BTreeMap<usize, usize>, moves: bool| {
            let hoisted = if moves { self.hoist(accepted, hoisted, &tries) } else { hoisted };
            let (peak, count) = self.peak(accepted, &hoisted);
            Choice {
                cost: (peak, count, accepted.iter().filter(|&&a| !a).count()),
                accepted: accepted.to_vec(),
                hoisted,
            }
        };
        let descend = |start: bool, moves: bool| {
            let mut best = cost(&vec![start; k], BTreeMap::new(), moves);
            // Each kept flip lowers the cost; a bounded number of sweeps keeps it linear.
            for _ in 0..8 {
                let mut improved = false;
                for c in 0..k {
                    let mut accepted = best.accepted.clone();
                    accepted[c] = !accepted[c];
                    let tried = cost(&accepted, BTreeMap::new(), moves);
                    if tried.cost < best.cost {
                        best = tried;
                        improved = true;
                    }
                }
                if !improved {
                    break;
                }
            }
            best
        };
        let better = |a: Choice, b: Choice| if b.cost < a.cost { b } else { a };
        let mut plain = better(descend(true, false), descend(false, false));
        for c in 0..k {
            let mut accepted = plain.accepted.clone();
            accepted[c] = !accepted[c];
            plain = better(plain, cost(&accepted, BTreeMap::new(), true));
        }
        let plain = cost(&plain.accepted, plain.hoisted, true);
        // Past the budget the descents with moves would repeat those without.
        let mut best = plain;
        for start in [true, false] {
            if tries.get() > 0 {
                best = better(best, descend(start, true));
            }
        }
        (best.accepted, best.hoisted, best.cost.0)
    }

    /// How many peak evaluations moving insertions up may take in all: about 2^22 position
    /// steps, so a few milliseconds on any function.
    fn max_tries(&self) -> usize {
        (MAX_STEPS / self.uses.len().max(1)).max(1)
    }

    /// `hoisted` and more insertions of copies moved up, each where the peak drops most (then
    /// the number of positions at it): index in [`Model::sunk`] -> the position it runs
    /// before. An insertion kills its source where that is its last use, and its destination
    /// (a padded buffer, a concatenation) is live from its producers' writes on anyway: run
    /// before the op that makes another part, the source no longer sits beside that part.
    /// Tried only for an insertion with the peak within [`WINDOW`] positions above it, while
    /// `tries` (peak evaluations) last.
    fn hoist(
        &self,
        accepted: &[bool],
        mut hoisted: BTreeMap<usize, usize>,
        tries: &std::cell::Cell<usize>,
    ) -> BTreeMap<usize, usize> {
        // Every evaluation of the whole function counts as a try.
        let spend = || match tries.get() {
            0 => false,
            left => {
                tries.set(left - 1);
                true
            }
        };
        if !spend() {
            return hoisted;
        }
        let mut placed = self.placed(accepted, &hoisted);
        let mut live = self.live(accepted, &hoisted);
        let mut best = peak_of(&live);
        for (index, sunk) in self.sunk.iter().enumerate() {
            let Some(lowest) = sunk.lowest.filter(|_| !hoisted.contains_key(&index)) else { continue };
            let at = placed[index];
            let from = lowest.max(at.saturating_sub(WINDOW));
            if from >= at || !live[from..=at].contains(&(best.0 as i64)) {
                continue;
            }
            let mut chosen = None;
            for to in (from..at).rev().filter(|&to| self.anchors[to]) {
                if !spend() {
                    break;
                }
                hoisted.insert(index, to);
                let tried = self.peak(accepted, &hoisted);
                if tried < best {
                    (best, chosen) = (tried, Some(to));
                }
                hoisted.remove(&index);
            }
            let Some(to) = chosen else { continue };
            hoisted.insert(index, to);
            if !spend() {
                break;
            }
            placed = self.placed(accepted, &hoisted);
            live = self.live(accepted, &hoisted);
        }
        hoisted
    }
}

/// The peak of the live bytes `live` (one entry per position) and the number of positions at
/// it.
fn peak_of(live: &[i64]) -> (u64, usize) {
    let (mut peak, mut count) = (0i64, 0usize);
    for &bytes in live {
        if bytes > peak {
            (peak, count) = (bytes, 1);
        } else if bytes == peak {
            count += 1;
        }
    }
    (peak as u64, count)
}
