//! `strata-split-concat-convs`: a convolution reading a concatenation of channels runs as one
//! convolution per part, each accumulating into the next one's initial value, where that
//! lowers the function's peak.
//!
//! Detectors' and segmenters' necks concatenate branches and mix them with a 1x1 convolution
//! (YOLOv8n's C2f and SPPF blocks, DeepLab's ASPP): the parts, their concatenation and the
//! convolution's result are live at once, often the model's peak. A convolution is a sum over
//! its input channels, so `conv(concat(a, b), W) = conv(b, W[:, Ca..], conv(a, W[:, ..Ca],
//! init))`: the concatenation is never made. The filter is sliced by the part's channels (a
//! view of the constant, sliced at compile time by the host schedule), and the earliest-made
//! part's convolution moves up to where the function's estimated peak is lowest, so that
//! part dies early and the result takes its place. The zoo's YOLOv8n: arena 3123200 -> 2867200
//! B, DeepLab 1254656 -> 1132672, each as fast (the concatenation's copy saved, the result
//! read and written once more).
//!
//! What makes a candidate: a static f32 `linalg.conv_2d_nchw_fchw` whose input is a chain of
//! `tensor.insert_slice`s into a `tensor.empty` (which may be shared) read only by it, each
//! writing whole channels at unit strides (every axis but the channels whole), together
//! covering every channel once, each insertion read only by the next. A padded concatenation
//! (a 3 x 3 convolution's) is left whole: each part would need a padded copy of its own (a
//! part read elsewhere, or made as a reshape, is copied into its padded buffer), and those
//! copies with the result written twice took the U-Net decoder's 32 -> 16 convolution at 96 x
//! 96 from 0.43 to 0.67 ms (9% of the model) for 5% of its arena.
//!
//! Which: the pre-bufferization estimate of `strata-conv-borders` ([`pressure`]) decides. A
//! candidate is split (on a copy of the function first) only where that takes at least
//! [`MIN_SAVES`] bytes off the function's estimated peak; `all=true` splits every one, its
//! first part's convolution left in place. The sums' order over the channels changes with the
//! split, so results differ from the whole convolution's by rounding.

use crate::band_chains::{only_user, static_f32, Builder};
use crate::conv_borders::pressure;
use strata_ir::rewrite::erase_if_unused;
use strata_ir::{
    Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val,
};

pub static INFO: PassInfo = PassInfo {
    name: "strata-split-concat-convs",
    summary: "A convolution reading a concatenation of channels runs as one convolution per part, accumulating, where that lowers the peak",
    anchor: "func.func",
    options: &[OptionInfo {
        name: "all",
        kind: OptionKind::Bool,
        default: "false",
        help: "split every such convolution, not only where that lowers the estimated peak, without moving any",
    }],
    statistics: &[
        StatisticInfo { name: "split", help: "Convolutions over a concatenation run as one per part" },
        StatisticInfo { name: "kept", help: "Convolutions over a concatenation left whole: splitting would not lower the estimated peak" },
    ],
};

/// The fewest bytes a split must take off the function's estimated peak: below it, one more
/// kernel and the result written twice cost more than the bytes are worth.
pub const MIN_SAVES: u64 = 32 << 10;

/// How many ops before the convolution its first part's convolution may move to.
const WINDOW: usize = 64;

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(SplitConcatConvs { all: options.bool("all") })
}

struct SplitConcatConvs {
    all: bool,
}

const CONV: &str = "linalg.conv_2d_nchw_fchw";

/// One part of a concatenation: its value and its channels `[offset, offset + channels)`.
#[derive(Clone, Copy)]
struct Part {
    value: Val,
    offset: i64,
    channels: i64,
}

/// A convolution over a concatenation.
struct Candidate {
    conv: Op,
    /// The insertions, last first, and the empty tensor they start from.
    insertions: Vec<Op>,
    empty: Op,
    parts: Vec<Part>,
}

/// The candidate `conv` makes, if any (see the module comment).
fn candidate(conv: Op) -> Option<Candidate> {
    if !conv.is(CONV) {
        return None;
    }
    (0..3).try_for_each(|i| static_f32(conv.operand(i)).map(drop))?;
    static_f32(conv.result(0))?;
    // A padded concatenation is left whole (see the module comment).
    let mut value = conv.operand(0);
    (only_user(value)? == conv).then_some(())?;
    let whole = static_f32(value)?;
    let mut insertions = Vec::new();
    let mut parts = Vec::new();
    let empty = loop {
        let op = value.owner()?;
        if op.is("tensor.empty") {
            break op;
        }
        (op.is("tensor.insert_slice") && op.operand_count() == 2).then_some(())?;
        let strata_ir::ods::SliceBox { offsets, sizes, strides } = strata_ir::ods::SliceBox::of(op.get())?;
        let source = static_f32(op.operand(0))?;
        let whole_axes = [0, 2, 3].iter().all(|&d| offsets[d] == 0 && sizes[d] == whole.shape[d]);
        (whole_axes && strides.iter().all(|&s| s == 1) && source.shape == sizes).then_some(())?;
        parts.push(Part { value: op.operand(0), offset: offsets[1], channels: sizes[1] });
        insertions.push(op);
        value = op.operand(1);
        // The empty tensor may be shared (an empty has no contents); an insertion may not.
        let empty = value.owner().is_some_and(|o| o.is("tensor.empty"));
        (empty || only_user(value)? == op).then_some(())?;
    };
    // Every channel written once.
    let mut ranges: Vec<(i64, i64)> = parts.iter().map(|p| (p.offset, p.offset + p.channels)).collect();
    ranges.sort();
    let mut next = 0;
    for (from, to) in ranges {
        (from == next).then_some(())?;
        next = to;
    }
    (next == whole.shape[1] && parts.len() >= 2).then_some(())?;
    Some(Candidate { conv, insertions, empty, parts })
}

/// The position in `ops` of the op of the entry block that holds `op`.
fn position_of(body: Blk, ops: &[Op], op: Op) -> Option<usize> {
    let top = op.ancestor_in(body)?;
    ops.iter().position(|&o| o == top)
}

/// The position just after `value`'s definition in `ops` (0 for a block argument).
fn after_definition(body: Blk, ops: &[Op], value: Val) -> usize {
    value.owner().and_then(|op| position_of(body, ops, op)).map_or(0, |p| p + 1)
}

/// Where [`split`] puts the first part's convolution.
#[derive(Clone, Copy)]
enum Move {
    /// Where the whole convolution was.
    Stay,
    /// Where the function's estimated peak is lowest.
    Search,
    /// Right before the op at this position of the body after the split (as `Search` found on
    /// a copy of the function).
    To(usize),
}

/// Splits `c`: one convolution per part, the earliest-made part first, each accumulating into
/// the next one's initial value; the first part's convolution (with its filter slice, and its
/// initial value where only it reads that) goes where `moving` says. With [`Move::Search`],
/// the function's estimated peak afterwards and the position found.
fn split(context: &melior::Context, body: Blk, c: &Candidate, moving: Move) -> Option<(u64, usize)> {
    let ops = body.ops();
    let mut parts = c.parts.clone();
    parts.sort_by_key(|p| (after_definition(body, &ops, p.value), p.offset));
    let b = Builder { context, anchor: c.conv };
    let out = static_f32(c.conv.result(0)).expect("a candidate's result is static");
    let mut acc = c.conv.operand(2);
    let mut first: Vec<Op> = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let mut made = Vec::new();
        let input = part.value;
        let w = static_f32(c.conv.operand(1)).expect("a candidate's filter is static");
        let filter =
            b.slice(c.conv.operand(1), &[0, part.offset, 0, 0], &[w.shape[0], part.channels, w.shape[2], w.shape[3]]);
        made.extend(filter.owner());
        acc = b.clone(c.conv, &[(0, input), (1, filter), (2, acc)], &out);
        made.extend(acc.owner());
        if k == 0 {
            first = made;
        }
    }
    c.conv.result(0).replace_all_uses_with(acc);
    // Safety: each op is erased once, after every op that read it, and only when unused.
    unsafe {
        erase_if_unused(c.conv);
        for &insertion in &c.insertions {
            erase_if_unused(insertion);
        }
        erase_if_unused(c.empty);
    }
    let peak = |body: Blk| pressure(body).1.into_iter().max().unwrap_or(0);
    if let Move::Stay = moving {
        return None;
    }
    // The first part's initial value moves with it where only it reads it (a bias broadcast
    // or a fill over an empty tensor).
    let init = first.last().and_then(|conv| conv.operand(2).owner()).filter(|init| {
        only_user(init.result(0)) == first.last().copied()
            && init
                .operands()
                .last()
                .and_then(|v| v.owner())
                .is_some_and(|e| e.is("tensor.empty") && only_user(e.result(0)) == Some(*init))
    });
    let mut group: Vec<Op> = Vec::new();
    if let Some(init) = init {
        group.extend(init.operands().last().and_then(|v| v.owner()));
        group.push(init);
    }
    group.extend(first.iter().copied());
    // The group runs together right before the op after the first part's convolution, then
    // before each earlier op down to where what it reads is defined (at most [`WINDOW`] ops).
    let ops = body.ops();
    let place = |target: Op| group.iter().for_each(|&op| op.move_before(target));
    if let Move::To(at) = moving {
        place(ops[at]);
        return None;
    }
    let last = position_of(body, &ops, *group.last().expect("a convolution")).expect("in the body");
    place(ops[last + 1]);
    let first = position_of(body, &ops, first[0]).expect("in the body");
    let inside = |op: Op| group.contains(&op);
    let earliest = group
        .iter()
        .flat_map(|op| op.collect(|_| true))
        .flat_map(|op| op.operands())
        .filter(|v| v.owner().and_then(|o| o.ancestor_in(body)).is_none_or(|top| !inside(top)))
        .map(|v| after_definition(body, &ops, v))
        .max()
        .unwrap_or(0)
        .max(first.saturating_sub(WINDOW));
    let mut best = (peak(body), last + 1);
    for at in (earliest..first).rev().filter(|&at| !inside(ops[at])) {
        place(ops[at]);
        let tried = peak(body);
        if tried < best.0 {
            best = (tried, at);
        }
    }
    place(ops[best.1]);
    Some(best)
}

impl Pass for SplitConcatConvs {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let Some(body) = Op::of(&func).body(0) else { return Ok(()) };
        let context = cx.strata().mlir();
        let found = |body: Blk| -> Vec<usize> {
            body.ops().iter().enumerate().filter(|&(_, &op)| candidate(op).is_some()).map(|(i, _)| i).collect()
        };
        let positions = found(body);
        if positions.is_empty() {
            return Ok(());
        }
        if self.all {
            for &at in positions.iter().rev() {
                let c = candidate(body.ops()[at]).expect("found above");
                split(context, body, &c, Move::Stay);
                cx.bump("split", 1);
            }
            return Ok(());
        }
        // Latest first: a split changes only the positions after its convolution's first.
        for &at in positions.iter().rev() {
            let before = pressure(body).1.into_iter().max().unwrap_or(0);
            // Tried on a copy of the function: the move is searched there, then replayed (the
            // same split of the same ops leaves the same positions).
            let copy = Op::of(&func).clone_detached();
            let copy_body = copy.body(0).expect("a copy of the body");
            let after = candidate(copy_body.ops()[at]).and_then(|c| split(context, copy_body, &c, Move::Search));
            // Safety: the copy is detached, owned here, and not used again.
            unsafe { copy.erase() };
            if let Some((_, to)) = after.filter(|&(after, _)| after + MIN_SAVES <= before) {
                let c = candidate(body.ops()[at]).expect("found above");
                split(context, body, &c, Move::To(to));
                cx.bump("split", 1);
            } else {
                cx.bump("kept", 1);
            }
        }
        Ok(())
    }
}
