//! Small IR-mutation helpers over MLIR's C API for Rust passes (melior has no use-list API).
//!
//! Erasing an op frees it: every `OperationRef` to it, or to ops nested in it, dangles
//! afterwards. That is why the erasing helpers are `unsafe`.

use melior::ir::operation::{OperationLike, OperationRef, OperationResult, WalkOrder, WalkResult};
use melior::ir::{Value, ValueLike};
use mlir_sys::{mlirOperationDestroy, mlirValueGetFirstUse, mlirValueReplaceAllUsesOfWith, MlirOperation};

/// Every op nested in `root` (pre-order) for which `select` holds, as raw handles so they
/// outlive the walk. Collect first, then rewrite: a walk must not see ops erased under it.
pub fn collect(root: OperationRef<'_, '_>, mut select: impl FnMut(OperationRef<'_, '_>) -> bool) -> Vec<MlirOperation> {
    let mut found = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if select(op) {
            found.push(op.to_raw());
        }
        WalkResult::Advance
    });
    found
}

/// The op that defines `value`, or `None` for a block argument.
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    OperationResult::try_from(value).ok().map(|result| result.owner())
}

/// Whether anything uses `value`.
pub fn has_uses(value: Value<'_, '_>) -> bool {
    !unsafe { mlirValueGetFirstUse(value.to_raw()) }.ptr.is_null()
}

/// The op owning each use of `value`, one entry per use (an op using it twice appears twice).
pub fn users(value: Value<'_, '_>) -> Vec<MlirOperation> {
    let mut owners = Vec::new();
    // Safety: reading the use list of a live value.
    unsafe {
        let mut using = mlirValueGetFirstUse(value.to_raw());
        while !using.ptr.is_null() {
            owners.push(mlir_sys::mlirOpOperandGetOwner(using));
            using = mlir_sys::mlirOpOperandGetNextUse(using);
        }
    }
    owners
}

/// Whether `value` has exactly one use.
pub fn single_use(value: Value<'_, '_>) -> bool {
    users(value).len() == 1
}

/// Replaces every use of `op`'s single result by `replacement`, then erases `op`.
///
/// # Safety
/// `op` is freed; no reference to it or to anything nested in it may be used afterwards.
pub unsafe fn replace_op(op: OperationRef<'_, '_>, replacement: Value<'_, '_>) {
    let result = op.result(0).expect("replace_op needs an op with one result");
    unsafe {
        mlirValueReplaceAllUsesOfWith(result.to_raw(), replacement.to_raw());
        mlirOperationDestroy(op.to_raw());
    }
}

/// Erases `op` if none of its results is used; returns whether it did.
///
/// # Safety
/// When it returns `true`, `op` is freed (see [`replace_op`]).
pub unsafe fn erase_if_unused(op: OperationRef<'_, '_>) -> bool {
    if op.results().any(|result| has_uses(result.into())) {
        return false;
    }
    unsafe { mlirOperationDestroy(op.to_raw()) };
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
pub unsafe fn inline_call(function: MlirOperation, op: OperationRef<'_, '_>) {
    let operands: Vec<mlir_sys::MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    unsafe { inline_call_with(function, op, &operands) }
}

/// [`inline_call`] with the body's arguments bound to `operands` instead of `op`'s own.
///
/// # Safety
/// As [`inline_call`]; `operands` holds one value per argument of `function`, each defined
/// before `op`.
pub unsafe fn inline_call_with(function: MlirOperation, op: OperationRef<'_, '_>, operands: &[mlir_sys::MlirValue]) {
    use mlir_sys::*;
    unsafe {
        let copy = mlirOperationClone(function);
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(copy, 0));
        for i in 0..mlirBlockGetNumArguments(block) {
            mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(block, i), operands[i as usize]);
        }
        let location = op.location().to_raw();
        let terminator = mlirBlockGetTerminator(block);
        let mut current = mlirBlockGetFirstOperation(block);
        while current.ptr != terminator.ptr {
            let next = mlirOperationGetNextInBlock(current);
            mlirOperationMoveBefore(current, op.to_raw());
            OperationRef::from_raw(current).walk(WalkOrder::PreOrder, |nested| {
                mlirOperationSetLocation(nested.to_raw(), location);
                WalkResult::Advance
            });
            current = next;
        }
        for i in 0..mlirOperationGetNumResults(op.to_raw()) {
            mlirValueReplaceAllUsesOfWith(
                mlirOperationGetResult(op.to_raw(), i),
                mlirOperationGetOperand(terminator, i),
            );
        }
        mlirOperationDestroy(op.to_raw());
        mlirOperationDestroy(copy);
    }
}

/// The op directly in `module`'s body whose `sym_name` is `name`.
pub fn find_symbol<'c, 'a>(module: &'a melior::ir::Module<'c>, name: &str) -> Option<OperationRef<'c, 'a>> {
    use melior::ir::attribute::StringAttribute;
    use melior::ir::BlockLike;
    let mut op = module.body().first_operation();
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
    use melior::ir::RegionLike;
    unsafe { mlir_sys::mlirRegionTakeBody(into.to_raw(), from.to_raw()) }
}
