//! `sg-outline-branches`: each branch of a top-level `scf.if` with results (a run-time ONNX
//! If) becomes a private function that the branch calls, so the function-anchored passes
//! (the e-graph optimiser above all, which reads an op with regions as one opaque kernel)
//! optimise a branch's ops as they do `@main`'s: fusion, views, in-place writes.
//! `sg-inline-branches` puts them back.
//!
//! - A branch's function takes every value the branch reads from outside, in first-use
//!   order, and returns what the branch yields; constants read from outside are copied into it
//!   instead (the optimiser sees them as constants). Nested ifs are outlined from the function
//!   they end up in. A branch with no op but its `scf.yield` stays.
//! - The functions are `private` and carry the unit attribute `strata.outlined_branch`, named
//!   `<function>_branch<N>`.

use melior::dialect::func;
use melior::ir::attribute::{Attribute, FlatSymbolRefAttribute, StringAttribute, TypeAttribute};
use melior::ir::operation::OperationRef;
use melior::ir::r#type::FunctionType;
use melior::ir::{Block, BlockLike, Identifier, Location, Region, RegionLike, Type};
use std::collections::BTreeSet;
use strata_ir::{Blk, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-outline-branches",
    summary: "Make each branch of a top-level scf.if a private function it calls, for the function passes (sg-inline-branches undoes it)",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "branches", help: "branches outlined" }],
};

/// The unit attribute that marks an outlined branch.
pub const MARK: &str = strata_ir::attrs::OUTLINED_BRANCH.0;

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(OutlineBranches)
}

struct OutlineBranches;

impl Pass for OutlineBranches {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        let Some(body) = Op::of(&module).body(0) else { return Ok(()) };
        let mut taken: BTreeSet<String> = body.ops().iter().filter_map(|op| op.symbol_name()).collect();
        let mut worklist: Vec<Op> = body.ops().into_iter().filter(|op| op.is("func.func")).collect();
        let mut outlined = 0;
        while let Some(function) = worklist.pop() {
            let Some(entry) = function.body(0) else { continue };
            let name = function.symbol_name().unwrap_or_default();
            // A loop body that writes a carried value back into its block argument (a Scan's
            // or Loop's state, `materialize_in_destination`) stays: optimised alone, the e-graph
            // does not see that write, and wrote the state's next value into a new buffer
            // copied into the argument instead of computing it there (lit `driver/loop.mlir`).
            let carries_state =
                |op: &Op| !op.collect(|inner| inner.is("bufferization.materialize_in_destination")).is_empty();
            let regions =
                |op: &Op| (op.is("scf.if") && op.result_count() > 0) || (op.is("scf.for") && !carries_state(op));
            for branching in entry.ops().into_iter().filter(regions) {
                for region in 0..branching.region_count() {
                    let Some(block) = branching.body(region) else { continue };
                    if block.ops_before_terminator().is_empty() {
                        continue;
                    }
                    let mut symbol = format!("{name}_branch{outlined}");
                    while taken.contains(&symbol) {
                        symbol.push('_');
                    }
                    taken.insert(symbol.clone());
                    worklist.push(outline(context, body, function, block, &symbol, branching.location()));
                    outlined += 1;
                }
            }
        }
        cx.bump("branches", outlined as u64);
        Ok(())
    }
}

/// Whether `value` is defined inside `block` (by one of its ops, an op nested in them, or as
/// an argument of `block` or of a block nested in its ops).
fn defined_in(value: Val, block: Blk) -> bool {
    match value.owner() {
        Some(definer) => definer.ancestor_in(block).is_some(),
        None => value
            .owner_block()
            .is_some_and(|b| b == block || b.parent().is_some_and(|op| op.ancestor_in(block).is_some())),
    }
}

/// Moves the ops of `block` (a branch of an `scf.if` in `function`) into a new private
/// function `symbol` placed after `function`, and makes the branch call it; the function.
fn outline(
    context: &melior::Context,
    module: Blk,
    function: Op,
    block: Blk,
    symbol: &str,
    location: Location<'_>,
) -> Op {
    let yield_op = block.terminator().expect("an scf.if branch or scf.for body ends in scf.yield");
    let ops = block.ops_before_terminator();
    // What the block reads from outside, in first-use order; a loop body's own arguments
    // (induction variable, carried values) too.
    let own_argument = |v: Val| v.owner().is_none() && v.owner_block() == Some(block);
    let mut outside: Vec<Val> = Vec::new();
    for op in ops.iter().flat_map(|op| op.collect(|_| true)).chain([yield_op]) {
        for operand in op.operands() {
            if (!defined_in(operand, block) || own_argument(operand)) && !outside.contains(&operand) {
                outside.push(operand);
            }
        }
    }
    let (constants, arguments): (Vec<Val>, Vec<Val>) =
        outside.into_iter().partition(|v| v.owner().is_some_and(|op| op.is("arith.constant")));
    let argument_types: Vec<Type> = arguments.iter().map(|v| v.r#type()).collect();
    let results: Vec<Val> = yield_op.operands();
    let result_types: Vec<Type> = results.iter().map(|v| v.r#type()).collect();
    let region = Region::new();
    region.append_block(Block::new(&argument_types.iter().map(|&t| (t, location)).collect::<Vec<_>>()));
    let outlined = func::func(
        context,
        StringAttribute::new(context, symbol),
        TypeAttribute::new(FunctionType::new(context, &argument_types, &result_types).into()),
        region,
        &[
            (Identifier::new(context, "sym_visibility"), StringAttribute::new(context, "private").into()),
            (Identifier::new(context, MARK), Attribute::unit(context)),
        ],
        location,
    );
    let outlined = Op::of(&module.get().insert_operation_after(function.get(), outlined));
    let entry = outlined.body(0).expect("the block made above");
    let values: Vec<_> = results.iter().map(|v| v.get()).collect();
    entry.get().append_operation(func::r#return(&values, location));
    let ret = entry.terminator().expect("appended above");
    for op in &ops {
        op.move_before(ret);
    }
    let first = entry.first().expect("the return at least");
    for constant in constants {
        let definer = constant.owner().expect("a constant's op");
        let copy = definer.clone_detached();
        entry.insert_before(first, copy);
        constant.replace_uses_inside(outlined, copy.result(0));
    }
    for (k, &argument) in arguments.iter().enumerate() {
        argument.replace_uses_inside(outlined, entry.argument(k));
    }
    let operands: Vec<_> = arguments.iter().map(|v| v.get()).collect();
    let call = func::call(context, FlatSymbolRefAttribute::new(context, symbol), &operands, &result_types, location);
    let call = Op::of(&block.get().insert_operation_before(yield_op.get(), call));
    for k in 0..results.len() {
        yield_op.set_operand(k, call.result(k));
    }
    outlined
}
