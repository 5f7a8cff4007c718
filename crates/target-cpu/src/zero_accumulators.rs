//! Part of `strata-cpu-vectorize`: a register-blocked matmul right after a fill of +0.0 into
//! its result, whose reduction is one cache tile, starts its register blocks' accumulators at
//! zero instead of loading the zeros the fill stored, and the fill goes.
//!
//! The lowering starts every product from such a fill. Kept, it wrote the whole result and
//! every register block read its tile back before the reduction: three passes over the
//! result where one (the blocks' stores) is needed. An attention's scores (1500 x 1500 x 64
//! per head, 9 MB) spent more time on those bytes than on their 64 multiply-adds an element.
//!
//! The fill is found on buffers before the schedule runs ([`fills_before`]): the op just
//! before the matmul, into exactly its result buffer, which neither operand is.
//! [`mark`] gives such a matmul's accumulator cast (`cpu_schedule`'s barrier, its own when
//! no other matmul shares the buffer) an id, and the fill the same. After the schedule,
//! [`start_from_zero`] checks what the tiled code does with the buffer: every read of it must
//! be a register block's accumulator load hoisted out of the reduction (a `vector.transfer_read`
//! whose value only starts an `scf.for`'s iteration), every other use a view or a store. Only
//! then are the loads replaced by zero vectors and the fill erased; otherwise both stay, and
//! the product is what it was. The sums are the same, bit for bit: each starts from +0.0
//! either way. Products whose reduction is tiled keep the fill: the second tile must read the
//! first one's sums.

use std::collections::BTreeMap;
use strata_ir::rewrite::{collect, users_through_views};
use strata_ir::{Op, Val};

/// The mark (an id) of a zero-starting matmul's accumulator cast and of its fill.
const CAST_MARK: &str = "strata.zero_accumulators";
const FILL_MARK: &str = "strata.zero_fill";

/// Each matmul right after a fill of +0.0 into its result (keyed by the matmul's address),
/// with that fill: the fill's buffer is the result and neither operand (which would read the
/// zeros).
pub(crate) fn fills_before(module: melior::ir::operation::OperationRef<'_, '_>) -> BTreeMap<usize, Op> {
    collect(&module, |op| op.is("linalg.fill"))
        .into_iter()
        .filter_map(|fill| {
            let matmul = fill.next().filter(|next| next.is("linalg.matmul"))?;
            let same_result = fill.operand_count() == 2
                && matmul.operand_count() == 3
                && fill.operand(1) == matmul.operand(2)
                && matmul.operand(0) != matmul.operand(2)
                && matmul.operand(1) != matmul.operand(2);
            let zero = crate::vectorize_matmul::is_positive_zero(fill.operand(0));
            (same_result && zero).then_some((matmul.raw().ptr as usize, fill))
        })
        .collect()
}

/// Marks the accumulator casts of `candidates` (matmuls after their barriers went in, each with
/// the fill just before it) and their fills, where the cast is the matmul's alone; returns how
/// many were marked.
pub(crate) fn mark(context: &melior::Context, candidates: &[(Op, Op)]) -> usize {
    let mut marked = 0;
    for (id, &(matmul, fill)) in candidates.iter().enumerate() {
        let cast = matmul.operand(2);
        let Some(cast_op) = cast.owner().filter(|op| op.is("builtin.unrealized_conversion_cast")) else { continue };
        if cast.users().len() != 1 {
            continue;
        }
        let id = melior::ir::attribute::IntegerAttribute::new(melior::ir::Type::index(context), id as i64);
        cast_op.set_attribute(CAST_MARK, id.into());
        fill.set_attribute(FILL_MARK, id.into());
        marked += 1;
    }
    marked
}

/// After the schedule: each marked cast's accumulator loads become zero vectors and its fill
/// goes, where every use of the buffer is as the module doc says; every mark is removed.
/// Returns how many products start from zero.
pub(crate) fn start_from_zero(context: &melior::Context, module: melior::ir::operation::OperationRef<'_, '_>) -> usize {
    let fills: BTreeMap<i64, Op> = collect(&module, |op| op.attribute(FILL_MARK).is_some())
        .into_iter()
        .filter_map(|fill| Some((fill.int_attribute(FILL_MARK)?, fill)))
        .collect();
    let mut done = 0;
    for cast in collect(&module, |op| op.attribute(CAST_MARK).is_some()) {
        let id = cast.int_attribute(CAST_MARK);
        cast.remove_attribute(CAST_MARK);
        let Some(fill) = id.and_then(|id| fills.get(&id)).copied() else { continue };
        fill.remove_attribute(FILL_MARK);
        let Some(loads) = accumulator_loads(cast.result(0)) else { continue };
        for load in loads {
            let ty = load.result(0).r#type();
            let zero = melior::ir::Attribute::parse(context, &format!("dense<0.000000e+00> : {ty}"));
            let Some(zero) = zero else { continue };
            let value = crate::conv_lanes::insert_before(context, load, "arith.constant", &[], ty, Some(zero));
            load.result(0).replace_all_uses_with(value);
            // Safety: its one result has no uses left and no handle to it survives.
            unsafe { load.erase() };
        }
        // Safety: every element it wrote is stored by a register block before anything reads
        // it, and no block reads it (checked above); nothing holds a handle to it.
        unsafe { fill.erase() };
        done += 1;
    }
    for fill in fills.values() {
        fill.remove_attribute(FILL_MARK);
    }
    done
}

/// The register blocks' accumulator loads of the buffer `buffer`, when every use of it is a
/// view, a `vector.transfer_write` into it or such a load (a `vector.transfer_read` whose value
/// is only the initial value of `scf.for` iterations), and there is at least one load.
fn accumulator_loads(buffer: Val) -> Option<Vec<Op>> {
    let mut loads = Vec::new();
    for user in users_through_views(buffer) {
        let name = user.name();
        if name == "vector.transfer_read" {
            let starts_loop = user.result(0).uses().iter().all(|&(owner, index)| owner.is("scf.for") && index >= 3);
            if !starts_loop {
                return None;
            }
            loads.push(user);
        } else if name != "vector.transfer_write" && !is_view(&name) {
            return None;
        }
    }
    (!loads.is_empty()).then_some(loads)
}

/// Whether an op named `name` only makes a view of its buffer operand (the views
/// [`users_through_views`] follows).
fn is_view(name: &str) -> bool {
    matches!(
        name,
        "memref.subview"
            | "memref.expand_shape"
            | "memref.collapse_shape"
            | "memref.reinterpret_cast"
            | "memref.transpose"
            | "memref.cast"
    )
}
