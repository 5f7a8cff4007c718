//! Part of `strata-vectorize-elementwise`: the elementwise kernels it would refuse only for how
//! they index their buffers are rewritten to read and write `memref.subview`s of them, which it
//! then takes.
//!
//! Two shapes of kernel come out of lowering that way. (1) A kernel reading a slice of a
//! buffer through the offsets of its indexing map (`(0, d1 + 64, d2)`: the second half of a
//! split, a detector head's class rows of a concatenation) instead of a view: the vectoriser
//! takes projected permutations only. YOLOv8n's sigmoid over its 80 x 2100 class scores ran
//! as LLVM's loops. (2) A kernel with unit loops (a 1-D model's `[1, C, T, 1]` tensors, which
//! `linalg-fold-unit-extent-dims` would fold on tensors): its innermost loop is the unit one,
//! under a vector. A conformer's GLU gate and sigmoid over `[1, 144, 100, 1]` ran element by
//! element.
//!
//! Each operand becomes a static `memref.subview` at the map's constant offsets, rank-reduced
//! to the dimensions read by a loop that is not a unit one (a constant index or a unit loop's
//! is a unit dimension of the subview, dropped); the unit loops go from the kernel, its maps
//! are the remaining loops' dimensions. The subviews are views (no copy), the body is the same
//! ops on the same elements, so the kernel computes what it did. Only kernels that every
//! other condition of the vectoriser admits are rewritten (see [`rewrite`]), so nothing else
//! changes.

use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{Attribute, BlockLike, Identifier, Type};
use strata_ir::handle::MapTerm;
use strata_ir::{Op, Val};

/// Rewrites each of `kernels` (elementwise `linalg.generic`s the vectoriser refused) that
/// [`rewrite`] takes; returns how many it rewrote.
pub(crate) fn rewrite_all(kernels: &[Op], context: &melior::Context) -> u64 {
    kernels.iter().filter(|&&op| rewrite(op, context).is_some()).count() as u64
}

/// How one operand is read once rewritten: the subview's static offsets and sizes (one per
/// dimension of the operand), and the new loop each dimension reads (`None`: a unit dimension,
/// dropped); with the operand's element type, strides and offset (`None`: dynamic), which the
/// subview's type is made of.
struct Slice {
    offsets: Vec<i64>,
    sizes: Vec<i64>,
    reads: Vec<Option<usize>>,
    element: String,
    strides: Vec<i64>,
    offset: Option<i64>,
}

impl Slice {
    /// Whether the operand is read as it is (no offset, every dimension kept).
    fn whole(&self) -> bool {
        self.offsets.iter().all(|&o| o == 0) && self.reads.iter().all(Option::is_some)
    }

    /// The new loops the kept dimensions read, in order.
    fn results(&self) -> Vec<usize> {
        self.reads.iter().flatten().copied().collect()
    }
}

/// Rewrites `op` (see the module documentation) when it is an elementwise kernel (every loop
/// parallel, a body the vectoriser takes, element types it loads and stores, the output
/// written in loop order), every input map result is a loop plus a constant or a constant
/// within the operand's bounds, every operand has static strides and its innermost kept
/// dimension unit stride, something changes (an offset, a unit loop or dimension), and the
/// innermost loop left is at least a vector's minimum.
/// `None`: left as it was.
fn rewrite(op: Op, context: &melior::Context) -> Option<()> {
    let raw = op.get();
    let loops = crate::parallelize::loops(raw)?;
    if loops.is_empty() || !loops.iter().all(|&(_, parallel)| parallel) || !crate::vectorize_elementwise::plain_body(op)
    {
        return None;
    }
    let terms = strata_ir::handle::map_terms(op.attribute("indexing_maps")?)?;
    let operands = op.operand_count();
    if operands < 2 || terms.len() != operands {
        return None;
    }
    let output = terms.last()?;
    if output.len() != loops.len() || output.iter().enumerate().any(|(i, &t)| t != MapTerm::Dim(i, 0)) {
        return None;
    }
    // The loops that stay, renumbered.
    let mut index = vec![None; loops.len()];
    let mut kept = 0;
    for (l, &(extent, _)) in loops.iter().enumerate() {
        if extent != 1 {
            index[l] = Some(kept);
            kept += 1;
        }
    }
    let &(inner, _) = loops.iter().rev().find(|&&(extent, _)| extent != 1)?;
    if inner < crate::vectorize_elementwise::MIN_INNER {
        return None;
    }
    let mut slices = Vec::with_capacity(operands);
    for (i, map) in terms.iter().enumerate() {
        let ty = op.operand(i).r#type();
        let element = strata_ir::types::memref_element_name(ty)?;
        let (shape, strides, offset) = strata_ir::types::memref_strides(ty)?;
        if !crate::vectorize_elementwise::ELEMENT_TYPES.contains(&element.as_str()) || map.len() != shape.len() {
            return None;
        }
        let mut slice = Slice { offsets: Vec::new(), sizes: Vec::new(), reads: Vec::new(), element, strides, offset };
        for (&term, &extent) in map.iter().zip(&shape) {
            let (offset, size, result) = match term {
                MapTerm::Dim(l, c) => match *index.get(l)? {
                    Some(n) => (c, loops[l].0, Some(n)),
                    None => (c, 1, None),
                },
                MapTerm::Const(c) => (c, 1, None),
                MapTerm::Other => return None,
            };
            if offset < 0 || offset + size > extent {
                return None;
            }
            if result.is_some() && slice.reads.contains(&result) {
                return None;
            }
            slice.reads.push(result);
            slice.offsets.push(offset);
            slice.sizes.push(size);
        }
        slices.push(slice);
    }
    if kept == loops.len() && slices.iter().all(Slice::whole) {
        return None;
    }
    // Every operand's innermost kept dimension contiguous: a unit dimension dropped from the
    // end can leave a strided one there (a pad's border column `[2, 3, 1, 1]` of a `[.., 11, 7]`
    // buffer, 77 floats apart), whose 0-d broadcast read the transfer lowering does not take
    // (the conversion to LLVM failed on it).
    for slice in &slices {
        let last = slice.reads.iter().rposition(Option::is_some);
        if last.is_some_and(|k| slice.strides[k] != 1) {
            return None;
        }
    }
    // The new views, then the kernel on them.
    let block = op.block()?;
    let mut views: Vec<Option<Val>> = Vec::with_capacity(operands);
    for (i, slice) in slices.iter().enumerate() {
        views.push(if slice.whole() { None } else { Some(subview(context, op, i, slice, block)?) });
    }
    let dims = (0..kept).map(|d| format!("d{d}")).collect::<Vec<_>>().join(", ");
    let maps: Vec<String> = slices
        .iter()
        .map(|slice| {
            let results = slice.results().iter().map(|n| format!("d{n}")).collect::<Vec<_>>().join(", ");
            format!("affine_map<({dims}) -> ({results})>")
        })
        .collect();
    let maps = Attribute::parse(context, &format!("[{}]", maps.join(", ")))?;
    let iterators =
        Attribute::parse(context, &format!("[{}]", vec!["#linalg.iterator_type<parallel>"; kept].join(", ")))?;
    for (i, view) in views.into_iter().enumerate() {
        if let Some(view) = view {
            op.set_operand(i, view);
        }
    }
    op.set_attribute("indexing_maps", maps);
    op.set_attribute("iterator_types", iterators);
    Some(())
}

/// A `memref.subview` of `op`'s operand `i` as `slice` reads it, inserted before `op` in
/// `block`: static offsets and sizes, unit strides, rank-reduced to the kept dimensions (every
/// dropped one is a unit dimension, every kept one a loop's extent over 1: unambiguous).
fn subview(context: &melior::Context, op: Op, i: usize, slice: &Slice, block: strata_ir::Blk) -> Option<Val> {
    let source = op.operand(i);
    let start: i64 = slice.offsets.iter().zip(&slice.strides).map(|(o, s)| o * s).sum();
    let offset = slice.offset.map_or_else(|| "?".to_owned(), |o| (o + start).to_string());
    let kept: Vec<usize> = (0..slice.sizes.len()).filter(|&k| slice.reads[k].is_some()).collect();
    let shape: String = kept.iter().map(|&k| format!("{}x", slice.sizes[k])).collect();
    let layout = kept.iter().map(|&k| slice.strides[k].to_string()).collect::<Vec<_>>().join(", ");
    let element = &slice.element;
    let ty = Type::parse(context, &format!("memref<{shape}{element}, strided<[{layout}], offset: {offset}>>"))?;
    let location = op.get().location();
    let rank = slice.sizes.len();
    let view = OperationBuilder::new("memref.subview", location)
        .add_operands(&[source.get()])
        .add_attributes(&[
            (
                Identifier::new(context, "operandSegmentSizes"),
                DenseI32ArrayAttribute::new(context, &[1, 0, 0, 0]).into(),
            ),
            (Identifier::new(context, "static_offsets"), DenseI64ArrayAttribute::new(context, &slice.offsets).into()),
            (Identifier::new(context, "static_sizes"), DenseI64ArrayAttribute::new(context, &slice.sizes).into()),
            (Identifier::new(context, "static_strides"), DenseI64ArrayAttribute::new(context, &vec![1; rank]).into()),
        ])
        .add_results(&[ty])
        .build()
        .ok()?;
    Some(Val::from(block.get().insert_operation_before(op.get(), view).result(0).ok()?))
}
