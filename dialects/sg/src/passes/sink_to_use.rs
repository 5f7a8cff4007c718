//! `sg-sink-to-use`: work that reads only constants and the function's arguments moves to just
//! before the first op that reads its result.
//!
//! Exporters list such nodes where the model's code made them: a quantized model's weights
//! dequantized at run time (`(w - zero_point) * scale` on initializers) come first in the
//! file, so each result was live, and took arena memory, from the first kernel to its
//! convolution. Moved next to its reader, it lives only there.
//!
//! An op moves when each of its operands is a constant, a function argument, or the result of
//! an op that moves too and that only this op reads (a chain such as the subtraction and the
//! multiplication of a dequantization). Sound because every top-level op of an `sg` function
//! computes values from values (no memory, no effects; a run-time check is a value too,
//! combined into the status by a maximum, which does not depend on order), and a moved op
//! still comes after its operands and before every reader. It never lengthens another value's
//! life: constants and arguments are not in the arena, and a chain's inner values move with
//! their only reader. A value computed in the function that something else reads too is never
//! an operand of a moved op (moving the op would keep the value alive longer). Ops with
//! regions (`scf.if`, loops) stay where they are.

use melior::ir::operation::OperationRef;
use std::collections::BTreeSet;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "sg-sink-to-use",
    summary: "Move work on constants and arguments alone to just before its first reader",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "sunk", help: "Ops moved down to their first reader" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SinkToUse)
}

struct SinkToUse;

impl Pass for SinkToUse {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let Some(block) = Op::of(&func).body(0) else { return Ok(()) };
        let ops = block.ops_before_terminator();
        // The ops that move, in block order (see the module comment), and their set.
        let mut free: Vec<Op> = Vec::new();
        let mut moving: BTreeSet<usize> = BTreeSet::new();
        let key = |op: Op| op.raw().ptr as usize;
        for &op in &ops {
            let movable = !op.is("arith.constant")
                && op.region_count() == 0
                && op.result_count() > 0
                && op.operands().into_iter().all(|value| match value.owner() {
                    None => value.owner_block() == Some(block),
                    Some(definer) => {
                        definer.is("arith.constant")
                            || (moving.contains(&key(definer))
                                && definer.results().into_iter().all(|r| r.users().into_iter().all(|u| u == op)))
                    }
                });
            if movable {
                free.push(op);
                moving.insert(key(op));
            }
        }
        // Readers before producers, so a chain follows its last op down.
        for &op in free.iter().rev() {
            // The ops of the block that read a result (directly or inside their regions).
            let readers: Vec<Op> = op
                .results()
                .into_iter()
                .flat_map(|result| result.users())
                .filter_map(|user| user.ancestor_in(block))
                .collect();
            if readers.is_empty() {
                continue;
            }
            // The first of them: the block's next ops, in order (every reader follows `op`).
            let first = std::iter::successors(op.next(), |o| o.next()).find(|o| readers.contains(o));
            if let Some(first) = first.filter(|&first| op.next() != Some(first)) {
                op.move_before(first);
                cx.bump("sunk", 1);
            }
        }
        Ok(())
    }
}
