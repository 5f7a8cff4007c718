//! `sg-fold-split-concats` (after the e-graph optimiser): a concatenation of two parts of one
//! tensor that make it up whole, in order along the concatenation's axis, is that tensor. A
//! part is a unit-step `sg.slice` or an `sg.view` with the tensor's own row-major strides.
//!
//! ONNX splits a tensor and concatenates its parts again in the cross-stage blocks of
//! detectors (YOLOv8's C2f: `Split` of a convolution's result into halves, a bottleneck on
//! the second, `Concat(half, half, bottleneck)`, a chain of binary `sg.concat`s here). Left
//! as it is, bufferization builds the halves' concatenation as a copy of the tensor, and
//! copies each half on the way (YOLOv8n's `concat_29`: 104 us on one thread for 1.2 MB);
//! folded, the tensor is the outer concatenation's first part, copied once at most.
//!
//! After the e-graph, not before: folded earlier, the extraction priced recomputing the
//! tensor's SiLU in place for the concatenation below keeping the one it had computed for
//! the slice (a copy of 800 KB against a launch), and ran the SiLU twice.
//!
//! Sound: the parts' elements are the tensor's, in the same order. The concatenation now
//! reads the tensor's storage where a slice (a copy) was read before, so it is folded only
//! when no op between the tensor's definition and the concatenation writes into that storage
//! (`in_place` or `epilogue` through a view of it); dynamic shapes are left alone.

use crate::{Concat, Fused, Slice, View};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Value, ValueLike};
use strata_ir::rewrite::{collect, defining_op, erase_if_unused, replace_op};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-fold-split-concats",
    summary: "Fold a concatenation of a tensor's parts, in order and whole, into the tensor",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "folded", help: "Concatenations folded" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(FoldSplitConcats)
}

struct FoldSplitConcats;

/// A part of a tensor: its source and bounds.
struct Part {
    source: Val,
    starts: Vec<i64>,
    ends: Vec<i64>,
}

/// `value` as a part of a tensor of static shape: a unit-step `sg.slice`, or an `sg.view`
/// with the source's row-major strides (its offset then names where the part starts).
fn part(value: Value<'_, '_>) -> Option<Part> {
    let op = defining_op(value)?;
    if let Some(slice) = Slice::cast(op) {
        if slice.steps().iter().any(|&s| s != 1) {
            return None;
        }
        return Some(Part { source: Val::of(slice.input()), starts: slice.starts(), ends: slice.ends() });
    }
    let view = View::cast(op)?;
    let shape = crate::verify::static_shape(view.input().r#type())?;
    let sizes = view.sizes();
    if view.strides() != strata_ir::types::row_major_strides(&shape) || sizes.len() != shape.len() {
        return None;
    }
    // The offset, digit by digit in the source's strides.
    let mut rest = view.offset();
    let mut starts = Vec::with_capacity(shape.len());
    for &stride in &view.strides() {
        starts.push(rest / stride.max(1));
        rest %= stride.max(1);
    }
    let ends: Vec<i64> = starts.iter().zip(&sizes).map(|(s, n)| s + n).collect();
    let inside = ends.iter().zip(&shape).all(|(e, d)| e <= d);
    (rest == 0 && inside).then(|| Part { source: Val::of(view.input()), starts, ends })
}

/// Whether `lhs ++ rhs` along `axis` is all of their common source (of shape `shape`).
fn whole(lhs: &Part, rhs: &Part, axis: usize, shape: &[i64]) -> bool {
    let rank = shape.len();
    let ranks = [&lhs.starts, &lhs.ends, &rhs.starts, &rhs.ends].iter().all(|v| v.len() == rank);
    ranks
        && axis < rank
        && lhs.source == rhs.source
        && (0..rank).all(|d| {
            if d == axis {
                lhs.starts[d] == 0 && lhs.ends[d] == rhs.starts[d] && rhs.ends[d] == shape[d]
            } else {
                lhs.starts[d] == 0 && rhs.starts[d] == 0 && lhs.ends[d] == shape[d] && rhs.ends[d] == shape[d]
            }
        })
}

/// The value whose storage `value` is: through views, to their base.
fn storage(value: Val) -> Val {
    let mut value = value;
    while let Some(view) = defining_op(value.get()).and_then(View::cast) {
        value = Val::of(view.input());
    }
    value
}

/// Whether an op from `source`'s definition up to `until`, or one nested in such an op, writes
/// into `source`'s storage: an in-place or epilogue `sg.fused` whose operand 0 is a view of the
/// same base (`source` may be a view itself). `true` where `until` is not found after the
/// definition in its block.
fn written_before(source: Val, until: OperationRef<'_, '_>) -> bool {
    let base = storage(source);
    let writes = |op: Op| {
        Fused::cast(op.get()).is_some_and(|fused| {
            (fused.in_place() == Some(1) || fused.epilogue() == Some(1))
                && fused.inputs().first().is_some_and(|&v| storage(Val::of(v)) == base)
        })
    };
    // From the op after the definition, or the block's first op for an argument.
    let mut next = match defining_op(source.get()) {
        Some(def) => def.next_in_block(),
        None => until.block().and_then(|block| block.first_operation()),
    };
    while let Some(op) = next {
        if op == until {
            return false;
        }
        if !collect(&op, writes).is_empty() {
            return true;
        }
        next = op.next_in_block();
    }
    true
}

impl Pass for FoldSplitConcats {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        for raw in collect(&func, |op| Concat::cast(op.get()).is_some()) {
            let concat = Concat::cast(raw.get()).expect("collected concatenations");
            let (Some(lhs), Some(rhs)) = (part(concat.lhs()), part(concat.rhs())) else { continue };
            let Ok(axis) = usize::try_from(concat.axis()) else { continue };
            let source: Value = lhs.source.get();
            let Some(shape) = crate::verify::static_shape(source.r#type()) else { continue };
            if !whole(&lhs, &rhs, axis, &shape) || source.r#type() != concat.output().r#type() {
                continue;
            }
            if written_before(lhs.source, concat.op()) {
                continue;
            }
            let parts = [concat.lhs(), concat.rhs()].map(|v| defining_op(v).map(|o| Op::of(&o)));
            // Safety: the concatenation is not used after it is erased, nor a part after it is.
            unsafe { replace_op(Op::of(&concat.op()), Val::of(source)) };
            cx.bump("folded", 1);
            for part in parts.into_iter().flatten() {
                unsafe { erase_if_unused(part) };
            }
        }
        Ok(())
    }
}
