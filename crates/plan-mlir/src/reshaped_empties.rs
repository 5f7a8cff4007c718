//! `strata-eliminate-reshaped-empties`: a value reshaped before it is inserted is produced
//! inside its destination too, what `eliminate-empty-tensors` does for values inserted as they
//! are.
//!
//! `eliminate-empty-tensors` gives a producer whose result is inserted into a larger tensor a
//! slice of that tensor as its destination, so the value and its copy never exist side by
//! side. It follows the inserted value back to the producer's `tensor.empty` through ops of
//! one type only, so a value collapsed on its way keeps its own buffer and is copied: the
//! pixel shuffle of a `ConvTranspose` k2 s2 or a `DepthToSpace` (a transpose into
//! `[N, C, H, 2, W, 2]`, collapsed to `[N, C, 2H, 2W]`) written into a concatenation or a padded
//! buffer, a flattened feature map concatenated. The U-Net's last decoder stage holds the
//! skip, the transposed convolution's result, its shuffled copy and their padded
//! concatenation at once: its peak.
//!
//! For `tensor.insert_slice %c into %d[...]` where `%c` is a chain of `tensor.collapse_shape`s
//! of the only result of a destination-passing op whose destination is a `tensor.empty` read
//! by nothing else (and each value in between read only by the next), the pass makes the
//! producer's destination `expand_shape(extract_slice %d[...])`, the collapses undone in
//! reverse order: an expansion is a view of any strided buffer, so bufferization writes the
//! producer straight into the destination, and the insertion of an equivalent subset is no
//! copy. Where `%d` (or an op it depends on) is made after the `tensor.empty`, those ops move
//! up to right before it, as `eliminate-empty-tensors` moves the values it needs; only fills of
//! new tensors, insertions, views (slices, reshapes, casts), new tensors and constants move
//! (no work is reordered; the walk is `strata-choose-in-place`'s `needed_after`, which also
//! moves its insertions of copies), and an insertion needing any other op is left alone.
//!
//! A second sweep, last insertion first, takes two more shapes of the same thing: a value
//! expanded by unit dimensions before it is inserted (a part of an interleaving concatenation,
//! `[.., n]` to `[.., n, 1]` into `[.., n, 2]`: a linear Resize's phases along its last axis),
//! whose producer's destination becomes `collapse_shape(extract_slice ...)`, and a producer that
//! is itself a chain of insertions into a new tensor (a concatenation inserted into a larger
//! one), whose new tensor becomes the slice. Last first, so that a concatenation is placed in its
//! destination before its parts are placed in it. Where the destination needs work done after
//! the `tensor.empty` (the parts inserted into it before), the slice is taken of its root
//! instead, the tensor those insertions write into: the same positions, and no work moves.
//! Before both sweeps, each chain of insertions into disjoint slices takes its values in the
//! order they are made (`strata-order-insertions`' [`crate::order_insertions::order_chains`],
//! again: the concatenations' parts moved since), so that a part computed before the parts inserted
//! ahead of it is not left with a slice of another tensor than the one it is inserted into
//! (which bufferization copies). `32 x 160 x 160 -> 320 x 320` bilinear: arena 26.2 -> 6.7 MB,
//! 5.0 -> 2.1 ms; the ConvTranspose k3 s2 bench row's 655 -> 426 KB.
//!
//! It runs after `eliminate-empty-tensors` and before `strata-choose-in-place`, which sees the
//! new slices as the elimination's (unmarked) and decides each by the peak like the others:
//! a rejected one gets its `tensor.empty` back (under the expansions) and the moved fills and
//! insertions move down to their first user left.

use crate::choose_in_place::needed_after;
use melior::ir::operation::OperationBuilder;
use melior::ir::{Attribute, BlockLike, Identifier};
use strata_ir::{Blk, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-eliminate-reshaped-empties",
    summary: "A producer whose result is collapsed and then inserted writes into the insertion's slice, expanded back (eliminate-empty-tensors through reshapes)",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "eliminated", help: "producers given an expanded slice of their insertion's destination" },
        StatisticInfo { name: "moved", help: "ops moved above a producer's tensor.empty so that its destination's slice can be made there" },
        StatisticInfo { name: "reordered", help: "chains of insertions into disjoint slices put in the order their values are made" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(EliminateReshapedEmpties)
}

struct EliminateReshapedEmpties;

/// An insertion of a reshaped producer's result.
struct Candidate {
    insert: Op,
    /// The reshapes from the insertion's source back to the producer's result: collapses, and
    /// expansions that only add unit dimensions.
    reshapes: Vec<Op>,
    empty: Op,
    /// Collapses only, of a producer whose destination is the `tensor.empty` itself (the first
    /// sweep's).
    plain: bool,
}

impl Candidate {
    fn of(insert: Op, block: Blk) -> Option<Candidate> {
        // Static offsets, sizes and strides: the slice is rebuilt from the attributes alone.
        if !insert.is("tensor.insert_slice") || insert.operand_count() != 2 {
            return None;
        }
        let mut reshapes = Vec::new();
        let mut value = insert.operand(0);
        while let Some(op) = value.owner().filter(|&op| op.is("tensor.collapse_shape") || unit_expansion(op)) {
            // Each reshape back needs the reshaped value's static shape.
            let fixed = strata_lower::ops::tensor_type(op.operand(0).r#type()).is_ok();
            if value.users().len() != 1 || op.block() != Some(block) || !fixed {
                return None;
            }
            reshapes.push(op);
            value = op.operand(0);
        }
        let producer = value.owner()?;
        let tied = producer.operand_count().checked_sub(1)?;
        let destination = crate::init_per_destination::is_destination(producer, tied);
        if !destination || producer.result_count() != 1 || value.users().len() != 1 || producer.block() != Some(block) {
            return None;
        }
        // The producer's destination, through insertions each read only by the next (a
        // concatenation's parts written into a new tensor), to its `tensor.empty`.
        let (chain, init) = insertion_chain(producer.operand(tied), block);
        let chained = !chain.is_empty();
        let empty = init.owner().filter(|e| e.is("tensor.empty") && e.operand_count() == 0)?;
        let only = empty.result(0).users().len() == 1 && empty.block() == Some(block);
        let collapses = reshapes.iter().all(|op| op.is("tensor.collapse_shape"));
        if !only || (reshapes.is_empty() && !chained) {
            return None;
        }
        let plain = collapses && !reshapes.is_empty() && !chained;
        Some(Candidate { insert, reshapes, empty, plain })
    }
}

/// The static insertions of `block` that make `value`, last first, back through each whose
/// result is read only by the next (`value` too: by its one user), and the value the first of
/// them writes into (`value` itself when it is not made so).
pub(crate) fn insertion_chain(mut value: Val, block: Blk) -> (Vec<Op>, Val) {
    let mut chain = Vec::new();
    while let Some(op) = value.owner().filter(|op| is_static_insertion(*op, block)) {
        if value.users().len() != 1 {
            break;
        }
        chain.push(op);
        value = op.operand(1);
    }
    (chain, value)
}

/// Whether `op` is a `tensor.insert_slice` of `block` with static offsets, sizes and strides.
pub(crate) fn is_static_insertion(op: Op, block: Blk) -> bool {
    op.is("tensor.insert_slice") && op.operand_count() == 2 && op.block() == Some(block)
}

/// Whether `op` is a static `tensor.expand_shape` that only adds unit dimensions (a value
/// reshaped to be one part of an interleaving concatenation: `[.., n]` to `[.., n, 1]`).
fn unit_expansion(op: Op) -> bool {
    if !op.is("tensor.expand_shape") || op.operand_count() != 1 {
        return false;
    }
    let shape = |value: Val| strata_lower::ops::tensor_type(value.r#type()).ok().map(|t| t.shape);
    let (Some(from), Some(to)) = (shape(op.operand(0)), shape(op.result(0))) else { return false };
    let kept = |dims: Vec<i64>| dims.into_iter().filter(|&d| d != 1).collect::<Vec<i64>>();
    kept(from) == kept(to)
}

/// The tensor `insert` writes into, back through the insertions that made it, each read only
/// by the next, to the first value that is not one (a new tensor, or a slice of one): a slice
/// of it holds the same positions as one of the insertion's destination, without needing the
/// values inserted before.
fn destination_root(insert: Op, block: Blk) -> Val {
    insertion_chain(insert.operand(1), block).1
}

impl Pass for EliminateReshapedEmpties {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let Some(block) = Op::of(&func).body(0) else { return Ok(()) };
        let context = cx.strata().mlir();
        cx.bump("reordered", crate::order_insertions::order_chains(block, false) as u64);
        let inserts: Vec<Op> = block.ops().into_iter().filter(|op| op.is("tensor.insert_slice")).collect();
        // First the collapsed producers, in order, into destinations that can move above them.
        for &insert in &inserts {
            let Some(candidate) = Candidate::of(insert, block).filter(|c| c.plain) else { continue };
            // What the destination needs after the `tensor.empty` moves above it.
            let Some(moved) = needed_after(block, vec![insert.operand(1)], candidate.empty) else { continue };
            eliminate(context, &candidate, insert.operand(1), &moved, cx);
        }
        // Then the rest, last insertion first: a concatenation's parts (inserted into a new
        // tensor, itself inserted) and values expanded by unit dimensions, after the
        // concatenation they make, whose slices their destinations then are. A destination
        // that needs work done after the `tensor.empty` (the parts inserted before) is sliced
        // at its root instead: the same positions.
        for &insert in inserts.iter().rev() {
            let Some(candidate) = Candidate::of(insert, block) else { continue };
            let (target, moved) = match needed_after(block, vec![insert.operand(1)], candidate.empty) {
                Some(moved) => (insert.operand(1), moved),
                None => {
                    let root = destination_root(insert, block);
                    let Some(moved) = needed_after(block, vec![root], candidate.empty) else { continue };
                    (root, moved)
                }
            };
            eliminate(context, &candidate, target, &moved, cx);
        }
        Ok(())
    }
}

/// Moves `moved` above the candidate's `tensor.empty` and replaces the empty by the insertion's
/// slice of `target` (its destination or that destination's root), reshaped back.
fn eliminate(context: &melior::Context, candidate: &Candidate, target: Val, moved: &[Op], cx: &mut PassContext<'_>) {
    for &op in moved {
        op.move_before(candidate.empty);
    }
    let destination = expanded_slice(context, candidate, target);
    candidate.empty.result(0).replace_all_uses_with(destination);
    // Safety: nothing uses the empty any more, and no handle to it is used again.
    unsafe { candidate.empty.erase() };
    cx.bump("eliminated", 1);
    cx.bump("moved", moved.len() as u64);
}

/// `expand_shape(extract_slice %target[...])` before the candidate's `tensor.empty`, of its
/// type: the insertion's slice of `target` with the reshapes undone (a collapse by an
/// expansion, a unit expansion by a collapse).
fn expanded_slice(context: &melior::Context, candidate: &Candidate, target: Val) -> Val {
    let (insert, anchor) = (candidate.insert, candidate.empty);
    let block = anchor.block().expect("the empty is in the entry block");
    let attribute = |name: &str| {
        let value = insert.attribute(name).expect("an insert_slice has its static slice attributes");
        (Identifier::new(context, name), value)
    };
    let mut attributes: Vec<(Identifier, Attribute)> =
        ["static_offsets", "static_sizes", "static_strides"].iter().map(|name| attribute(name)).collect();
    attributes.push((
        Identifier::new(context, "operandSegmentSizes"),
        melior::ir::attribute::DenseI32ArrayAttribute::new(context, &[1, 0, 0, 0]).into(),
    ));
    let slice = OperationBuilder::new("tensor.extract_slice", anchor.location())
        .add_operands(&[target.get()])
        .add_attributes(&attributes)
        .add_results(&[insert.operand(0).r#type()])
        .build()
        .expect("the slice an insert_slice writes is a valid extract_slice");
    let mut value = Val::from(block.get().insert_operation_before(anchor.get(), slice).result(0).expect("a result"));
    for &reshape in &candidate.reshapes {
        let source = reshape.operand(0);
        if reshape.is("tensor.expand_shape") {
            let collapse = OperationBuilder::new("tensor.collapse_shape", anchor.location())
                .add_operands(&[value.get()])
                .add_attributes(&[(
                    Identifier::new(context, "reassociation"),
                    reshape.attribute("reassociation").expect("a reassociation"),
                )])
                .add_results(&[source.r#type()])
                .build()
                .expect("the inverse of an expand_shape is a valid collapse_shape");
            value = Val::from(block.get().insert_operation_before(anchor.get(), collapse).result(0).expect("a result"));
            continue;
        }
        let collapse = reshape;
        let shape = strata_lower::ops::tensor_type(source.r#type()).expect("checked static by Candidate::of").shape;
        let output_shape: Attribute = melior::ir::attribute::DenseI64ArrayAttribute::new(context, &shape).into();
        let expand = OperationBuilder::new("tensor.expand_shape", anchor.location())
            .add_operands(&[value.get()])
            .add_attributes(&[
                (
                    Identifier::new(context, "reassociation"),
                    collapse.attribute("reassociation").expect("a reassociation"),
                ),
                (Identifier::new(context, "static_output_shape"), output_shape),
            ])
            .add_results(&[source.r#type()])
            .build()
            .expect("the inverse of a collapse_shape is a valid expand_shape");
        value = Val::from(block.get().insert_operation_before(anchor.get(), expand).result(0).expect("a result"));
    }
    value
}
