//! `strata-order-insertions`: each chain of insertions into pairwise disjoint static slices of
//! one tensor (a concatenation's parts) inserts its values in the order they are made.
//!
//! `eliminate-empty-tensors` gives a producer whose result is inserted a slice of the
//! insertion's destination, made where the producer's `tensor.empty` is; it cannot when that
//! destination is made after the producer. In a chain `insert(b, insert(a, empty))` whose part
//! `b` is computed before `a` (the schedule's order, not the concatenation's), `b`'s destination
//! is `insert(a, ..)`, made after `b`: `b` kept a buffer of its own and was copied. YOLOv8n's
//! output is `Concat(boxes, scores)`, its 80 x 2100 class scores computed first: 672 KB copied
//! into the output every run (0.06-0.08 ms) and held in the arena. Disjoint, the parts may go
//! in any order, so each chain takes them in the order they are made (the insertions keep
//! their places: the k-th earliest value is made before the k-th insertion).
//!
//! This pass orders only the chains the function returns (before `eliminate-empty-tensors`,
//! in `strata-bufferize-and-plan`): their destination is the caller's output buffer, so a part
//! made inside it costs the arena nothing. Every chain is ordered by
//! `strata-eliminate-reshaped-empties`, after the elimination: ordered before it, DeepLab's
//! concatenation took parts in place that `strata-choose-in-place` then priced differently,
//! and its arena grew 1389056 -> 1393920 bytes.

use strata_ir::ods::SliceBox;
use strata_ir::{Blk, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-order-insertions",
    summary: "Insert a concatenation's parts (insertions into disjoint static slices) in the order they are made",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo {
        name: "reordered",
        help: "chains of insertions into disjoint slices put in the order their values are made",
    }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(OrderInsertions)
}

struct OrderInsertions;

impl Pass for OrderInsertions {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        if let Some(block) = Op::of(&func).body(0) {
            cx.bump("reordered", order_chains(block, true) as u64);
        }
        Ok(())
    }
}

/// Puts each chain of insertions of `block` into pairwise disjoint static slices (each
/// insertion's result read only by the next: a concatenation's parts) in the order their values
/// are made; returns how many chains changed. Disjoint, the order does not change the chain's
/// value, but a part is produced inside its destination without a copy only where the tensor
/// its slice is taken of is the one it is inserted into: a part made before the parts inserted
/// ahead of it can only be given a slice of the chain's root, and bufferization then gives it a
/// buffer of its own and copies it (a linear Resize's phases, the second computed first). Each
/// insertion keeps its place and takes the next value in the order they are made: the k-th
/// earliest value is made before the k-th insertion, as k + 1 of them (the first k + 1
/// insertions' own) are. With `returned_only`, only the chains the function returns.
pub(crate) fn order_chains(block: Blk, returned_only: bool) -> usize {
    let ops = block.ops();
    let position = strata_ir::rewrite::positions(&ops);
    let made = |insert: Op| -> i64 {
        let owner = insert.operand(0).owner().and_then(|op| op.ancestor_in(block));
        owner.and_then(|op| position.get(&(op.raw().ptr as usize)).copied()).map_or(-1, |at| at as i64)
    };
    let mut reordered = 0;
    for &last in &ops {
        if !crate::reshaped_empties::is_static_insertion(last, block) {
            continue;
        }
        let users = last.result(0).users();
        if users.len() == 1
            && crate::reshaped_empties::is_static_insertion(users[0], block)
            && users[0].operand(1) == last.result(0)
        {
            continue;
        }
        if returned_only && !users.iter().any(|user| user.is("func.return")) {
            continue;
        }
        let mut chain = vec![last];
        chain.extend(crate::reshaped_empties::insertion_chain(last.operand(1), block).0);
        chain.reverse();
        let boxes: Option<Vec<SliceBox>> = chain.iter().map(|op| SliceBox::static_of(op.get())).collect();
        let Some(boxes) = boxes else { continue };
        let disjoint = (0..boxes.len()).all(|i| (i + 1..boxes.len()).all(|j| boxes[i].disjoint(&boxes[j])));
        let order: Vec<i64> = chain.iter().map(|&op| made(op)).collect();
        if chain.len() < 2 || !disjoint || order.windows(2).all(|w| w[0] <= w[1]) {
            continue;
        }
        const SLICE: [&str; 3] = ["static_offsets", "static_sizes", "static_strides"];
        let mut parts: Vec<(i64, Val, Vec<melior::ir::Attribute>)> = chain
            .iter()
            .zip(&order)
            .map(|(&op, &at)| {
                let attributes = SLICE.iter().map(|name| op.attribute(name).expect("a static slice")).collect();
                (at, op.operand(0), attributes)
            })
            .collect();
        parts.sort_by_key(|&(at, ..)| at);
        for (&op, (_, source, attributes)) in chain.iter().zip(parts) {
            op.set_operand(0, source);
            for (name, attribute) in SLICE.iter().zip(attributes) {
                op.set_attribute(name, attribute);
            }
        }
        reordered += 1;
    }
    reordered
}
