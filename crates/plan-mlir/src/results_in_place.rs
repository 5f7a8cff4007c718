//! `strata-results-in-place`: a result computed in a buffer of its own and copied into its
//! out-param at the end is computed in the out-param instead, seen through the reshapes between.
//!
//! Upstream `buffer-results-to-out-params{hoist-static-allocs}` replaces an allocation the
//! function returns as it is by the caller's out-param. A result returned through a reshape
//! (a batch matmul's `[4, 128, 128]` expanded to the graph's `[1, 4, 128, 128]`, a pixel
//! shuffle's `[1, 1, 224, 3, 224, 3]` collapsed to `[1, 1, 672, 672]`, a flattened head) or a
//! recurrence's state (a buffer a loop writes) is left in its allocation and copied into the
//! out-param before the return: a pass over the whole output every run and a buffer the arena
//! holds for it (the attention bench's 4 x 128 x 128 product: 256 KB and 15% of its time).
//!
//! For `memref.copy %v, %out`, where `%out` is an out-param of an entry function (an argument
//! after its inputs, `strata.input_names`, that nothing else uses) and `%v` is a static
//! `memref.alloc` of the function's body, or a chain of `memref.expand_shape` /
//! `memref.collapse_shape` of one, every view contiguous, and where every use of the
//! allocation and of the views made of it comes before the copy, the allocation becomes the
//! out-param seen through the chain undone (each expansion a collapse, each collapse an
//! expansion: views of a contiguous buffer) and the copy, now of the out-param onto itself,
//! goes. The out-param then holds every value the allocation held, in the same order, and
//! nothing reads it after: the caller gets the same bytes.

use melior::ir::attribute::DenseI64ArrayAttribute;
use melior::ir::operation::{OperationBuilder, OperationRef};
use melior::ir::{BlockLike, Identifier};
use strata_ir::rewrite::{positions, users_through_views};
use strata_ir::{attrs, Blk, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-results-in-place",
    summary: "Compute a result copied into its out-param at the end (through reshapes, or a loop's state) in the out-param itself",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "results", help: "results now computed in their out-param (copies gone)" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ResultsInPlace)
}

struct ResultsInPlace;

impl Pass for ResultsInPlace {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let Some(inputs) = attrs::INPUT_NAMES.get(func).map(|names| names.len()) else { return Ok(()) };
        let Some(body) = Op::of(&func).body(0) else { return Ok(()) };
        for copy in body.ops().into_iter().filter(|op| op.is("memref.copy")) {
            let Some((alloc, chain)) = candidate(copy, body, inputs) else { continue };
            let Some(root) = undo(cx, copy.operand(1), &chain, alloc)? else { continue };
            alloc.result(0).replace_all_uses_with(root);
            // Safety: the allocation has no uses left, the copy none at all, and the views
            // only go once unused (the chain's outermost was the copy's source); no handle to
            // any of them is used afterwards.
            unsafe {
                copy.erase();
                alloc.erase();
                for step in chain.iter().rev() {
                    if !strata_ir::rewrite::erase_if_unused(*step) {
                        break;
                    }
                }
            }
            cx.bump("results", 1);
        }
        Ok(())
    }
}

/// The allocation `copy` copies into an out-param and the views between (from the allocation
/// out), when the copy may go.
fn candidate(copy: Op, body: Blk, inputs: usize) -> Option<(Op, Vec<Op>)> {
    let (source, out) = (copy.operand(0), copy.operand(1));
    if out.owner_block() != Some(body) || out.argument_number()? < inputs || out.uses().len() != 1 {
        return None;
    }
    contiguous(out)?;
    let mut chain = Vec::new();
    let mut at = source;
    let alloc = loop {
        contiguous(at)?;
        let definer = at.owner()?;
        match definer.name().as_str() {
            "memref.expand_shape" | "memref.collapse_shape" => {
                chain.push(definer);
                at = definer.operand(0);
            }
            "memref.alloc" if definer.operand_count() == 0 && definer.block() == Some(body) => break definer,
            _ => return None,
        }
    };
    chain.reverse();
    // Every use of the allocation, through any view of it, before the copy.
    let order = positions(&body.ops());
    let at = |op: Op| op.ancestor_in(body).and_then(|top| order.get(&(top.raw().ptr as usize)).copied());
    let copy_at = at(copy)?;
    for user in users_through_views(alloc.result(0)) {
        if user != copy && at(user)? >= copy_at {
            return None;
        }
    }
    Some((alloc, chain))
}

/// The shape of `value`'s type when it is a static memref laid out contiguously from its start.
fn contiguous(value: Val) -> Option<Vec<i64>> {
    let (shape, strides, offset) = strata_ir::types::memref_layout(value.r#type())?;
    (offset == 0 && strides == strata_ir::types::row_major_strides(&shape)).then_some(shape)
}

/// `out` seen as the allocation `alloc` that `chain` (expansions and collapses, from the
/// allocation out) reshapes into it: each step undone from the outermost, inserted before
/// `alloc`. `None` when a step cannot be built.
fn undo(cx: &mut PassContext<'_>, out: Val, chain: &[Op], alloc: Op) -> Result<Option<Val>, PassFailed> {
    let context = cx.strata().mlir();
    let block = alloc.block().expect("the allocation is in the body");
    let mut value = out;
    for step in chain.iter().rev() {
        let source = step.operand(0);
        let Some(reassociation) = step.attribute("reassociation") else { return Ok(None) };
        let mut builder = OperationBuilder::new(
            if step.is("memref.expand_shape") { "memref.collapse_shape" } else { "memref.expand_shape" },
            alloc.location(),
        )
        .add_operands(&[value.get()])
        .add_results(&[source.r#type()]);
        let mut attributes = vec![(Identifier::new(context, "reassociation"), reassociation)];
        if step.is("memref.collapse_shape") {
            let Some(shape) = contiguous(source) else { return Ok(None) };
            attributes.push((
                Identifier::new(context, "static_output_shape"),
                DenseI64ArrayAttribute::new(context, &shape).into(),
            ));
        }
        builder = builder.add_attributes(&attributes);
        let Ok(op) = builder.build() else { return Ok(None) };
        let op = block.get().insert_operation_before(alloc.get(), op);
        value = Val::from(op.result(0).expect("one result"));
    }
    Ok(Some(value))
}
