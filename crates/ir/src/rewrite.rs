//! IR-mutation helpers for Rust passes, over the handles of [`crate::handle`] (melior has no
//! use-list or inlining API).
//!
//! Erasing an op frees it: every handle or reference to it, or to ops nested in it, dangles
//! afterwards. That is why the erasing helpers are `unsafe`.

use crate::handle::{Blk, Op, Val};
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

/// A new `arith.constant` of type `ty` holding `value`, inserted right before `anchor` (which
/// is in a block); its result.
pub fn constant_before<'c>(
    context: &'c melior::Context,
    anchor: OperationRef<'c, '_>,
    ty: melior::ir::Type<'c>,
    value: melior::ir::Attribute<'c>,
) -> Option<Val> {
    let op = melior::ir::operation::OperationBuilder::new("arith.constant", anchor.location())
        .add_attributes(&[(melior::ir::Identifier::new(context, "value"), value)])
        .add_results(&[ty])
        .build()
        .ok()?;
    let block = anchor.block()?;
    Some(Val::from(block.insert_operation_before(anchor, op).result(0).ok()?))
}

/// Each op's position in `ops` (a block's, or a walk's), by address.
pub fn positions(ops: &[Op]) -> std::collections::BTreeMap<usize, usize> {
    ops.iter().enumerate().map(|(i, op)| (op.raw().ptr as usize, i)).collect()
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
    // An argument left unbound would be used by the inlined ops after `copy` (its owner) is
    // freed.
    assert_eq!(operands.len(), block.argument_count(), "a kernel's operands bind its arguments one to one");
    for (i, &operand) in operands.iter().enumerate() {
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
        if Op::of(&current).symbol_name().is_some_and(|s| s == name) {
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

/// Frees the body of `op`'s region `index` (e.g. to turn a function into a declaration).
///
/// # Safety
/// Nothing refers to an op of that body afterwards.
pub unsafe fn drop_body(op: Op, index: usize) {
    if index >= op.region_count() {
        return;
    }
    // Safety: the region is live; its blocks move into a new region freed right after.
    unsafe {
        let scratch = mlir_sys::mlirRegionCreate();
        mlir_sys::mlirRegionTakeBody(scratch, mlir_sys::mlirOperationGetRegion(op.raw(), index as isize));
        mlir_sys::mlirRegionDestroy(scratch);
    }
}

/// Ops that only compute an address or a value from other values (views, reshapes, casts,
/// constants, pure arithmetic): a kernel made self-contained gets its own copies rather than
/// taking their results as parameters.
pub fn sinkable(name: &str) -> bool {
    matches!(
        name,
        "memref.view"
            | "memref.subview"
            | "memref.expand_shape"
            | "memref.collapse_shape"
            | "memref.reinterpret_cast"
            | "memref.transpose"
            | "memref.cast"
            | "memref.get_global"
            | "affine.apply"
            | "builtin.unrealized_conversion_cast"
            | "ub.poison"
    ) || name.starts_with("arith.")
        || name.starts_with("math.")
        || name.starts_with("index.")
}

/// Views whose bytes lie within their one source's, at the addresses their static layout gives
/// from the source's base: a subview, reshapes, a cast.
pub const WITHIN_SOURCE: [&str; 4] = ["memref.subview", "memref.collapse_shape", "memref.expand_shape", "memref.cast"];

/// The value `view` views (through [`WITHIN_SOURCE`] views), or `view` itself.
pub fn view_root(view: Val) -> Val {
    let mut value = view;
    while let Some(owner) = value.owner().filter(|o| WITHIN_SOURCE.iter().any(|name| o.is(name))) {
        value = owner.operand(0);
    }
    value
}

/// Every op that uses the buffer `value` or a view of it, the views included, found through
/// the `memref` views and reshapes [`sinkable`] lists (subviews, expansions, collapses, casts).
pub fn users_through_views(value: Val) -> Vec<Op> {
    let mut users = Vec::new();
    let mut values = vec![value];
    while let Some(value) = values.pop() {
        for user in value.users() {
            if user.name().starts_with("memref.") && sinkable(&user.name()) {
                values.extend(user.results());
            }
            users.push(user);
        }
    }
    users
}

/// Whether `value` is defined inside `root`: by it, by an op nested in it, or as an argument
/// of a block nested in it.
pub fn defined_inside(value: Val, root: Op) -> bool {
    match value.owner() {
        Some(definer) => definer == root || definer.is_inside(root),
        None => {
            value.owner_block().and_then(Blk::parent).is_some_and(|parent| parent == root || parent.is_inside(root))
        }
    }
}

/// Makes `root` (an op and what it nests) independent of values defined outside it: every
/// operand of `users` (ops inside `root`, or `root` itself) that is defined outside `root`
/// becomes `outside(value)` when that gives a value, or else a copy of its defining op,
/// inserted before `insert_before` (its operands handled the same way first), where that op is
/// [`sinkable`] or the caller says it may be copied too (`also`: a load the caller knows reads
/// memory nothing writes). Returns how many ops were copied and the outside values left as
/// they were (a block argument `outside` does not map, or the result of an op that is not
/// sinkable).
pub fn sink_into(
    root: Op,
    users: &[Op],
    insert_before: Op,
    outside: &mut dyn FnMut(Val) -> Option<Val>,
    also: &dyn Fn(Op) -> bool,
) -> (usize, Vec<Val>) {
    let mut sink =
        Sink { root, block: insert_before.block(), insert_before, also, clones: Vec::new(), left: Vec::new() };
    let mut count = 0;
    for &user in users {
        for index in 0..user.operand_count() {
            if let Some(new) = sink.value(user.operand(index), outside, &mut count) {
                user.set_operand(index, new);
            }
        }
    }
    (count, sink.left)
}

struct Sink<'a> {
    root: Op,
    block: Option<Blk>,
    insert_before: Op,
    also: &'a dyn Fn(Op) -> bool,
    clones: Vec<(Val, Val)>,
    left: Vec<Val>,
}

impl Sink<'_> {
    /// The replacement of `value` inside the root, if it needs one.
    fn value(&mut self, value: Val, outside: &mut dyn FnMut(Val) -> Option<Val>, count: &mut usize) -> Option<Val> {
        if let Some(&(_, new)) = self.clones.iter().find(|(old, _)| *old == value) {
            return Some(new);
        }
        if defined_inside(value, self.root) {
            return None;
        }
        if let Some(mapped) = outside(value) {
            self.clones.push((value, mapped));
            return Some(mapped);
        }
        let Some(definer) = value.owner().filter(|&d| (sinkable(&d.name()) || (self.also)(d)) && d.region_count() == 0)
        else {
            if !self.left.contains(&value) {
                self.left.push(value);
            }
            return None;
        };
        let operands: Vec<Option<Val>> =
            definer.operands().into_iter().map(|operand| self.value(operand, outside, count)).collect();
        let clone = definer.clone_detached();
        for (i, new) in operands.into_iter().enumerate() {
            if let Some(new) = new {
                clone.set_operand(i, new);
            }
        }
        self.block.expect("the insertion point is in a block").insert_before(self.insert_before, clone);
        *count += 1;
        self.clones.extend(definer.results().into_iter().zip(clone.results()));
        self.clones.iter().find(|(old, _)| *old == value).map(|&(_, new)| new)
    }
}
