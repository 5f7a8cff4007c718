//! `sg-inline-branches`: every call of a function `sg-outline-branches` made (marked
//! `strata.outlined_branch`) is replaced by a copy of the function's body, its arguments by
//! the call's operands and the call's results by what it returns; calls the copies bring
//! along (nested ifs) are inlined in turn. The functions are then erased.

use melior::ir::operation::OperationRef;
use std::collections::BTreeMap;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-inline-branches",
    summary: "Put the functions sg-outline-branches made back into the branches that call them",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "branches", help: "calls inlined" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(InlineBranches)
}

struct InlineBranches;

fn key(value: Val) -> usize {
    value.raw().ptr as usize
}

impl Pass for InlineBranches {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let Some(body) = Op::of(&module).body(0) else { return Ok(()) };
        let outlined: BTreeMap<String, Op> = body
            .ops()
            .into_iter()
            .filter(|op| op.is("func.func") && op.attribute(crate::outline_branches::MARK).is_some())
            .filter_map(|op| Some((op.symbol_name()?, op)))
            .collect();
        if outlined.is_empty() {
            return Ok(());
        }
        let callee = |call: Op| {
            let name = strata_ir::handle::symbol_root(call.attribute("callee")?)?;
            outlined.get(&name).copied()
        };
        let mut inlined = 0;
        loop {
            // Calls outside the outlined functions; the copies bring nested ones along.
            let calls = Op::of(&module).collect(|op| {
                op.is("func.call") && callee(op).is_some() && !outlined.values().any(|&function| op.is_inside(function))
            });
            if calls.is_empty() {
                break;
            }
            for call in calls {
                let function = callee(call).expect("selected above");
                inline(call, function);
                inlined += 1;
            }
        }
        for function in outlined.into_values() {
            // Safety: no call of it is left, and nothing else refers to its ops.
            unsafe { function.erase() };
        }
        cx.bump("branches", inlined);
        Ok(())
    }
}

/// Replaces `call` by a copy of `function`'s body.
fn inline(call: Op, function: Op) {
    let entry = function.body(0).expect("an outlined function has a body");
    let block = call.block().expect("a call in a block");
    let mut map: BTreeMap<usize, Val> = BTreeMap::new();
    for k in 0..entry.argument_count() {
        map.insert(key(entry.argument(k)), call.operand(k));
    }
    for op in entry.ops_before_terminator() {
        let copy = op.clone_detached();
        block.insert_before(call, copy);
        // The copy still reads the function's values wherever it reads from outside itself.
        for nested in copy.collect(|_| true) {
            for (index, operand) in nested.operands().into_iter().enumerate() {
                if let Some(&to) = map.get(&key(operand)) {
                    nested.set_operand(index, to);
                }
            }
        }
        for (old, new) in op.results().into_iter().zip(copy.results()) {
            map.insert(key(old), new);
        }
    }
    let returned = entry.terminator().expect("an outlined function returns").operands();
    for (k, value) in returned.into_iter().enumerate() {
        call.result(k).replace_all_uses_with(map.get(&key(value)).copied().unwrap_or(value));
    }
    // Safety: its results have no uses left.
    unsafe { call.erase() };
}
