//! The vector lowering of `strata-cpu-vectorize` (`schedules/cpu-lower-vectors.mlir`), after
//! its tiling script: contractions to outer products to FMAs, permuted transfers, shape casts
//! and n-D broadcasts to 1-D vectors, applied only to the top-level ops that hold such a vector
//! op (marked `strata.lower_vectors`; the function where one stands at its top level). The
//! greedy pattern driver walked the whole model function before, twice a pattern group: 0.13
//! of the pass's 0.17 s on YOLOv8n, where 6% of the lines had anything to lower.

use crate::cpu_schedule::apply_script;
use melior::ir::operation::OperationRef;
use strata_ir::rewrite::collect;
use strata_ir::{Op, PassContext, PassFailed, Val};

/// Marks the ops that hold vectors to lower, applies the lowering to them and removes the
/// marks again; returns how many ops (or functions) it lowered.
pub(crate) fn lower(module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<usize, PassFailed> {
    let marked = mark_lowering(cx.strata().mlir(), module);
    if !marked.is_empty() {
        apply_script(module, cx, LOWER_VECTORS_SCRIPT, "schedules/cpu-lower-vectors.mlir", "the vector lowering")?;
        for op in collect(&module, |op| op.attribute(LOWER_VECTORS).is_some()) {
            op.remove_attribute(LOWER_VECTORS);
        }
    }
    Ok(marked.len())
}

/// The vector lowering that follows `cpu-vectorize.mlir`, on the ops [`mark_lowering`] marks.
pub const LOWER_VECTORS_SCRIPT: &str = include_str!("../schedules/cpu-lower-vectors.mlir");

/// The mark of the ops whose bodies `cpu-lower-vectors.mlir` lowers.
const LOWER_VECTORS: &str = "strata.lower_vectors";

/// Whether `op` is a vector op `cpu-lower-vectors.mlir` rewrites: a contraction, an outer
/// product, a shape cast, a broadcast other than a scalar's to one dimension, or a transfer
/// whose permutation map is not the minor identity.
fn needs_lowering(op: Op) -> bool {
    let rank = |value: Val| strata_ir::types::vector_shape(value.r#type()).map(|(dims, _)| dims.len());
    match op.name().as_str() {
        "vector.contract" | "vector.outerproduct" | "vector.shape_cast" => true,
        "vector.broadcast" => rank(op.operand(0)).is_some() || rank(op.result(0)) != Some(1),
        "vector.transfer_read" | "vector.transfer_write" => {
            !op.attribute("permutation_map").is_some_and(is_minor_identity)
        }
        _ => false,
    }
}

/// Whether the affine map attribute `map` is a minor identity: `(d0, ..., dn) -> (dk, ..., dn)`.
fn is_minor_identity(map: melior::ir::Attribute<'_>) -> bool {
    strata_ir::handle::affine_map(map).is_some_and(|map| map.is_minor_identity())
}

/// Marks `strata.lower_vectors` on each op that holds a vector op [`needs_lowering`]: its
/// ancestor at the top level of a function, or the function where it stands at the top level
/// itself (the patterns rewrite the bodies of the marked ops). Returns the marked ops.
fn mark_lowering(context: &melior::Context, module: OperationRef<'_, '_>) -> Vec<Op> {
    let mut marked: Vec<Op> = Vec::new();
    for op in collect(&module, needs_lowering) {
        let mut top = op;
        while let Some(parent) = top.parent().filter(|parent| !parent.is("func.func")) {
            top = parent;
        }
        let Some(function) = top.parent() else { continue };
        let target = if top == op { function } else { top };
        if marked.last() != Some(&target) && !marked.contains(&target) {
            marked.push(target);
        }
    }
    // A marked function's own ops need no mark of their own.
    let functions: Vec<Op> = marked.iter().copied().filter(|op| op.is("func.func")).collect();
    marked.retain(|op| op.is("func.func") || !op.parent().is_some_and(|parent| functions.contains(&parent)));
    for &op in &marked {
        op.set_attribute(LOWER_VECTORS, melior::ir::attribute::Attribute::unit(context));
    }
    marked
}

#[cfg(test)]
mod tests {
    use super::is_minor_identity;

    #[test]
    fn minor_identities() {
        let context = melior::Context::new();
        let minor = |text: &str| is_minor_identity(melior::ir::Attribute::parse(&context, text).expect("a map"));
        assert!(minor("affine_map<(d0, d1, d2, d3) -> (d3)>"));
        assert!(minor("affine_map<(d0, d1) -> (d0, d1)>"));
        assert!(!minor("affine_map<(d0, d1) -> (d0)>"));
        assert!(!minor("affine_map<(d0, d1) -> (d1, d0)>"));
        assert!(!minor("affine_map<(d0, d1) -> (0, d1)>"));
        assert!(!minor("affine_map<(d0) -> (d0, d0)>"));
    }
}
