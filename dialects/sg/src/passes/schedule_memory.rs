//! `sg-schedule-memory`: a function's ops in the order that lowers the peak of their live
//! results ([`strata_plan::order`]: the given order, or a greedy list schedule that finishes
//! one branch before starting the next, whichever has the lower peak; never a higher one).
//!
//! An op's results count their static tensor bytes (constants none: they are weights, not in
//! the arena; views and reshapes none: they share their source's buffer, as does a widening
//! every matmul reading it reads through, [`crate::widened_source`]; their readers keep the
//! source alive instead); a value lives from its op to its last reader (a reader nested in an op's region
//! counts at that op), and a value the function returns to its end. The model is the "plain"
//! in-order reference of `strata plan`; fusion, views and in-place writes come from the
//! e-graph before this pass, which keeps each value's last reader last so that a kernel that
//! writes over an operand still can.
//!
//! Sound for the same reason as `sg-sink-to-use`: every top-level op of an `sg` function
//! computes values from values, and the new order keeps every op after its operands' ops.
//! The lowering keeps the order, and bufferization and the planner follow it.

use melior::ir::operation::OperationRef;
use std::collections::BTreeMap;
use strata_ir::handle::tensor_bytes;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-schedule-memory",
    summary: "Order a function's independent ops to lower the peak of live results (never raise it)",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "reordered", help: "Functions whose ops were put in a new order" },
        StatisticInfo { name: "peak-before", help: "Estimated peak of live result bytes in the given order" },
        StatisticInfo { name: "peak-after", help: "Estimated peak of live result bytes in the order kept" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ScheduleMemory)
}

struct ScheduleMemory;

impl Pass for ScheduleMemory {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let Some(block) = Op::of(&func).body(0) else { return Ok(()) };
        let Some(terminator) = block.terminator() else { return Ok(()) };
        let ops = block.ops_before_terminator();
        let key = |op: Op| op.raw().ptr as usize;
        let index: BTreeMap<usize, usize> = ops.iter().enumerate().map(|(i, &op)| (key(op), i)).collect();
        let mut order = strata_plan::order::Block {
            bytes: Vec::with_capacity(ops.len()),
            reads: vec![Vec::new(); ops.len()],
            kept: vec![false; ops.len()],
        };
        // The ops whose buffers each op's result is: its own, or for a view (`sg.view`,
        // `sg.reshape`: the e-graph's strided views share their source's buffer) and a widening
        // every reader of which reads its source instead ([`crate::widened_source`]), its
        // source's. Such an op has no bytes of its own; its readers keep its source alive.
        let mut owners: Vec<Vec<usize>> = Vec::with_capacity(ops.len());
        for (i, &op) in ops.iter().enumerate() {
            let source = (op.operand_count() > 0).then(|| op.operand(0));
            let absorbed = op.is("sg.cast")
                && op
                    .result(0)
                    .uses()
                    .into_iter()
                    .all(|(user, operand)| crate::widened_source(user.get(), operand).map(Val::of) == source);
            let alias = absorbed || op.is("sg.view") || op.is("sg.reshape");
            let free = alias || op.is("arith.constant");
            order.bytes.push(if free {
                0
            } else {
                op.results().into_iter().map(|r| tensor_bytes(r.r#type()).unwrap_or(0)).sum()
            });
            let mut own = vec![i];
            if alias {
                if let Some(&producer) = source.and_then(|v| v.owner()).and_then(|o| index.get(&key(o))) {
                    own.extend_from_slice(&owners[producer]);
                }
            }
            for user in op.results().into_iter().flat_map(|r| r.users()) {
                match user.ancestor_in(block).and_then(|top| index.get(&key(top))) {
                    Some(&reader) => order.reads[reader].extend_from_slice(&own),
                    None => own.iter().for_each(|&o| order.kept[o] = true),
                }
            }
            owners.push(own);
        }
        let best = order.order();
        let given = order.peak(&(0..ops.len()).collect::<Vec<_>>());
        cx.bump("peak-before", given);
        cx.bump("peak-after", best.peak);
        if best.order.iter().enumerate().any(|(step, &i)| step != i) {
            for &i in &best.order {
                ops[i].move_before(terminator);
            }
            cx.bump("reordered", 1);
        }
        Ok(())
    }
}
