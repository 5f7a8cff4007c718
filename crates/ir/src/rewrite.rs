//! IR-mutation helpers for Rust passes, over the handles of [`crate::handle`] (melior has no
//! use-list or inlining API).
//!
//! Erasing an op frees it: every handle or reference to it, or to ops nested in it, dangles
//! afterwards. That is why the erasing helpers are `unsafe`.

use crate::handle::{Op, Val};
use melior::ir::attribute::StringAttribute;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, RegionLike};

/// Every op nested in `root` (pre-order, `root` included) for which `select` holds.
/// Collect first, then rewrite: a walk must not see ops erased under it.
pub fn collect<'c: 'a, 'a>(root: &impl OperationLike<'c, 'a>, select: impl FnMut(Op) -> bool) -> Vec<Op> {
    Op::of(root).collect(select)
}

/// Every op nested in `root` named `name` (pre-order).
pub fn collect_named<'c: 'a, 'a>(root: &impl OperationLike<'c, 'a>, name: &str) -> Vec<Op> {
    collect(root, |op| op.is(name))
}

/// The op that defines `value`, or `None` for a block argument.
pub fn defining_op<'c, 'a>(value: melior::ir::Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    melior::ir::operation::OperationResult::try_from(value).ok().map(|result| result.owner())
}

/// Replaces every use of `op`'s single result by `replacement`, then erases `op`.
///
/// # Safety
/// `op` is freed; no handle or reference to it or to anything nested in it may be used
/// afterwards.
pub unsafe fn replace_op(op: Op, replacement: Val) {
    op.result(0).replace_all_uses_with(replacement);
    unsafe { op.erase() }
}

/// Erases `op` if none of its results is used; returns whether it did.
///
/// # Safety
/// When it returns `true`, `op` is freed (see [`replace_op`]).
pub unsafe fn erase_if_unused(op: Op) -> bool {
    if op.has_uses() {
        return false;
    }
    unsafe { op.erase() };
    true
}

/// Inlines a copy of `function`'s single-block body in place of `op`: the body's arguments
/// become `op`'s operands, the values its terminator returns replace `op`'s results, and every
/// inlined op (nested ones included) takes `op`'s location. `op` is erased; `function` is
/// left untouched.
///
/// # Safety
/// `op` is freed (see [`replace_op`]). `function` must be a function-like op with one block
/// whose terminator returns one value per result of `op`, taking one argument per operand.
pub unsafe fn inline_call(function: Op, op: Op) {
    unsafe { inline_call_with(function, op, &op.operands()) }
}

/// [`inline_call`] with the body's arguments bound to `operands` instead of `op`'s own.
///
/// # Safety
/// As [`inline_call`]; `operands` holds one value per argument of `function`, each defined
/// before `op`.
pub unsafe fn inline_call_with(function: Op, op: Op, operands: &[Val]) {
    let copy = function.clone_detached();
    let block = copy.body(0).expect("a kernel function has a body");
    for (i, &operand) in operands.iter().enumerate().take(block.argument_count()) {
        block.argument(i).replace_all_uses_with(operand);
    }
    let location = op.location();
    for inlined in block.ops_before_terminator() {
        inlined.move_before(op);
        inlined.set_location_deep(location);
    }
    let terminator = block.terminator().expect("a kernel body ends in a return");
    for (i, result) in op.results().into_iter().enumerate() {
        result.replace_all_uses_with(terminator.operand(i));
    }
    unsafe {
        op.erase();
        copy.erase();
    }
}

/// The op directly in `module`'s body whose `sym_name` is `name`.
pub fn find_symbol<'c, 'a>(module: &'a melior::ir::Module<'c>, name: &str) -> Option<OperationRef<'c, 'a>> {
    find_symbol_in(module.body(), name)
}

/// The op directly in `block` (a module's body, as a module-anchored pass sees it) whose
/// `sym_name` is `name`.
pub fn find_symbol_in<'c, 'a>(block: melior::ir::BlockRef<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let mut op = block.first_operation();
    while let Some(current) = op {
        if current
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .is_some_and(|s| s.value() == name)
        {
            return Some(current);
        }
        op = current.next_in_block();
    }
    None
}

/// Moves `from`'s blocks into `into`, whose own blocks are dropped first (MLIR's
/// `Region::takeBody`).
pub fn take_body(into: melior::ir::RegionRef<'_, '_>, from: melior::ir::RegionRef<'_, '_>) {
    // Safety: both are live regions; MLIR clears `into` before moving `from`'s blocks.
    unsafe { mlir_sys::mlirRegionTakeBody(into.to_raw(), from.to_raw()) }
}
