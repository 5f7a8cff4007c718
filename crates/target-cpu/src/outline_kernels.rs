//! `strata-outline-kernels`: every top-level loop nest of a planned function moves into a
//! function of its own, called in its place, so the code generator can optimise and compile
//! the kernels in parallel, several LLVM modules at once ([`crate::host::emit_objects`]).
//!
//! A kernel (a top-level op with regions and no results: a loop nest, a linalg op, an OpenMP
//! region) becomes `func.func private @strata_kernel_<n>` taking the function's own arguments
//! (inputs, outputs, arena, weights: every buffer is a view of one of them) with the same
//! argument attributes (`noalias`, alignment), and the views, constants and index arithmetic
//! it reads are cloned into it, as are the loads of read-only memory (the weights blob,
//! constant globals) and the vector values computed from them that loop-invariant code motion
//! hoisted out of it. A kernel that reads anything else computed at the top level (a scalar
//! loaded from the arena, say) stays where it is: outlining never changes what runs.
//! After lowering, [`mark`] makes the kernels internal and never inlined, so a single module
//! (the JIT) keeps them as separate functions too.
//!
//! Kernels that are the same code but for the byte offsets of their views (where their buffers
//! sit in the arena and the weights blob) become one function taking those offsets as
//! parameters, called once per kernel: the repeated blocks of a network (MobileNetV2's
//! bottlenecks, a transformer's layers) are compiled once per distinct shape, not once per
//! layer. Only kernels that Strata's schedules vectorised, that Strata wrote as scalar loops (a
//! tree walk), or whose loops are too small for LLVM's vectoriser to matter, are shared (see
//! [`shareable`]). Kernels are compared with their
//! views written one way ([`canonical_views`]): the row bands of a banded convolution, which
//! read one buffer through `subview`s at different static rows, are one function too.

use melior::ir::attribute::{FlatSymbolRefAttribute, StringAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::r#type::TypeLike;
use melior::ir::{BlockLike, Identifier, Module};
use strata_ir::{Blk, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

/// The name every outlined kernel starts with.
pub const KERNEL_PREFIX: &str = "strata_kernel_";

pub static INFO: PassInfo = PassInfo {
    name: "strata-outline-kernels",
    summary: "Move each top-level loop nest of a function into a function of its own (compiled in parallel)",
    anchor: "builtin.module",
    options: &[],
    statistics: &[
        StatisticInfo { name: "kernels", help: "kernels moved into functions of their own" },
        StatisticInfo { name: "kept-inline", help: "kernels that read a value computed at the top level" },
        StatisticInfo {
            name: "shared",
            help: "kernels that are the same code as an earlier one (one function, several calls)",
        },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(OutlineKernels)
}

struct OutlineKernels;

impl Pass for OutlineKernels {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let Some(body) = Op::of(&module).body(0) else { return Ok(()) };
        let public = |op: &Op| {
            op.is("func.func")
                && op.body(0).is_some()
                && op.get().attribute("sym_visibility").ok().and_then(|a| StringAttribute::try_from(a).ok()).is_none()
        };
        let functions: Vec<Op> = body.ops().into_iter().filter(public).collect();
        let mut next = 0;
        let mut outlined: Vec<(Op, Op)> = Vec::new();
        for func in functions {
            let entry = func.body(0).expect("checked above");
            let kernels: Vec<Op> = entry
                .ops_before_terminator()
                .into_iter()
                .filter(|op| op.region_count() > 0 && op.results().is_empty())
                .collect();
            if kernels.is_empty() {
                continue;
            }
            let memory = ReadOnly {
                constants: constant_globals(body),
                weights: strata_ir::attrs::WEIGHTS_ARG.get(func.get()).and_then(|i| usize::try_from(i).ok()),
                entry,
            };
            let skeleton = skeleton(cx.strata(), func).map_err(|why| {
                cx.emit_op_error(func.get(), format!("strata-outline-kernels: {why}"));
                PassFailed
            })?;
            for kernel in kernels {
                let name = format!("{KERNEL_PREFIX}{next}");
                match outline(cx.strata().mlir(), body, func, skeleton, kernel, &name, &memory) {
                    Ok(Some(pair)) => {
                        next += 1;
                        cx.bump("kernels", 1);
                        outlined.push(pair);
                    }
                    Ok(None) => cx.bump("kept-inline", 1),
                    Err(why) => {
                        cx.emit_op_error(kernel.get(), format!("strata-outline-kernels: {why}"));
                        // Safety: detached, and only copied.
                        unsafe { skeleton.erase() };
                        return Err(PassFailed);
                    }
                }
            }
            // Safety: detached, and only copied.
            unsafe { skeleton.erase() };
        }
        let shared = share(cx.strata().mlir(), &outlined).map_err(|why| {
            cx.emit_op_error(module, format!("strata-outline-kernels: {why}"));
            PassFailed
        })?;
        cx.bump("shared", shared as u64);
        Ok(())
    }
}

/// Whether `function` (an outlined kernel) may take its views' offsets as parameters without
/// getting slower: unless it leaves LLVM a linalg op with an operand over [`SMALL_ELEMENTS`]
/// elements, whose loops LLVM's vectoriser takes only where constant offsets prove that the
/// views they read and write do not overlap (DenseNet's 1x1 convolution in the loop order ran
/// 6x slower without them). So kernels Strata's schedules vectorised (vector ops), small linalg
/// ops, and loop nests Strata wrote as scalar code (a tree walk: steps that depend on the loads
/// before them, which the vectoriser does not take either way; a forest of 100 one-tree
/// ensembles compiled its walk 100 times) are shared.
fn shareable(function: Op) -> bool {
    let mut large_linalg = false;
    function.collect(|op| {
        if op.name().starts_with("linalg.") {
            // A dynamic shape counts as large; a scalar as small.
            // (A scalar is told apart first: a failed shape prints its type into the error.)
            large_linalg |= op.operands().iter().any(|v| {
                let ty = v.r#type();
                (ty.is_mem_ref() || ty.is_ranked_tensor())
                    && match strata_lower::ops::static_shape(ty) {
                        Ok(shape) => shape.iter().product::<i64>() > SMALL_ELEMENTS,
                        Err(_) => ty.is_mem_ref(),
                    }
            });
        }
        false
    });
    !large_linalg
}

/// Operands of at most this many elements make a loop too small for LLVM's vectoriser to matter.
const SMALL_ELEMENTS: i64 = 4096;

/// A key equal for two kernels exactly when [`offsets_as_parameters`] would make them the same
/// function but for its name ([`strata_ir::structure::key`]: no copy, no printing): each view
/// offset it would make a parameter stands as that parameter's position, and an offset
/// constant it would erase (every use an offset) is left out.
fn shape_key(function: Op) -> Result<Vec<usize>, String> {
    let body = function.body(0).ok_or("a kernel without a body")?;
    let offsets = offset_constants(body);
    let erased: Vec<Op> = offsets
        .iter()
        .filter(|(constant, views)| constant.result(0).uses().iter().all(|(user, i)| *i == 1 && views.contains(user)))
        .map(|(constant, _)| *constant)
        .collect();
    let mut parameter = |user: Op, index: usize, _: Val| {
        if index == 1 {
            if let Some(position) = offsets.iter().position(|(_, views)| views.contains(&user)) {
                return strata_ir::structure::Operand::Token(position as u64);
            }
        }
        strata_ir::structure::Operand::Value
    };
    Ok(strata_ir::structure::key(function, &["sym_name"], &mut parameter, &|op| erased.contains(&op)))
}

/// Makes kernels that are the same code but for their views' offsets ([`shareable`] ones) one
/// function: the first takes the offsets as parameters, and every call passes its own; the
/// others are erased. Returns how many were.
fn share(context: &melior::Context, outlined: &[(Op, Op)]) -> Result<usize, String> {
    // Grouped by the key of their views written one way ([`canonical_views`], on a copy: a
    // kernel no other one shares keeps the views it had); each member says whether it was
    // keyed on a copy.
    let mut groups: std::collections::BTreeMap<Vec<usize>, Vec<(Op, Op, bool)>> = std::collections::BTreeMap::new();
    for &(function, call) in outlined {
        if shareable(function) {
            let body = function.body(0).ok_or("a kernel without a body")?;
            // Views only of `memref.view`s: written one way in place (the same views, first in
            // the body with offsets of their own), no copy needed.
            let on_copy = views_of_views(body);
            let key = if on_copy {
                let copy = function.clone_detached();
                let key = canonical_views(context, copy.body(0).ok_or("a kernel without a body")?)
                    .and_then(|()| shape_key(copy));
                // Safety: detached, only read.
                unsafe { copy.erase() };
                key?
            } else {
                canonical_views(context, body)?;
                shape_key(function)?
            };
            groups.entry(key).or_default().push((function, call, on_copy));
        }
    }
    let mut shared = 0;
    for members in groups.values().filter(|members| members.len() > 1) {
        // The kernels keyed on a copy are written as their key was (the others already are).
        for &(function, _, on_copy) in members {
            if on_copy {
                canonical_views(context, function.body(0).ok_or("a kernel without a body")?)?;
            }
        }
        let callee = members[0].0.symbol_name().ok_or("a kernel without a name")?;
        for (i, &(function, call, _)) in members.iter().enumerate() {
            let body = function.body(0).ok_or("a kernel without a body")?;
            // The others are erased: only their offsets are needed, in the same order.
            let offsets = if i == 0 {
                offsets_as_parameters(context, function, body)?
            } else {
                offset_constants(body).into_iter().map(|(constant, _)| constant.clone_detached()).collect()
            };
            let mut operands: Vec<melior::ir::Value> = call.operands().iter().map(|v| v.get()).collect();
            for &offset in &offsets {
                call.block().ok_or("a call outside a block")?.insert_before(call, offset);
                operands.push(offset.result(0).get());
            }
            call_before(context, call, &callee, &operands)?;
            // Safety: replaced by the new call; the first member stays, the others were the
            // same code and have no call left.
            unsafe {
                call.erase();
                if i > 0 {
                    function.erase();
                    shared += 1;
                }
            }
        }
    }
    Ok(shared)
}

/// Whether a kernel's `body` has `VIEW_LIKE` ops at its top (views of views, which
/// [`canonical_views`] rewrites: the kernel is keyed on a copy).
fn views_of_views(body: Blk) -> bool {
    body.ops().into_iter().any(|op| VIEW_LIKE.iter().any(|name| op.is(name)))
}

/// Ops whose result is the memory of their one operand at another static layout (a view).
const VIEW_LIKE: [&str; 5] =
    ["memref.subview", "memref.expand_shape", "memref.collapse_shape", "memref.cast", "memref.reinterpret_cast"];

/// Writes every static view at the top of a kernel's `body` one way, so that kernels that read
/// the same memory layouts at other places have the same code but for their views' byte
/// offsets (what [`share`] parameterises): the bands of a banded convolution (`subview`s of
/// one buffer at static rows), or pools reading a `[1, 128, 10, 10]` buffer once as an
/// `expand_shape` of a `[1, 128, 1, 100]` view and once as a `subview` of a
/// `[1, 256, 10, 10]` one at channel 128. A chain of views from `memref.view %arg[%constant]`
/// (the arena or the weights blob) through static `VIEW_LIKE` ops to a value something else
/// reads becomes `memref.view %arg[%bytes]`: of the value's shape when it is contiguous (a
/// size-1 axis counts with its row-major stride), else of the flat extent it covers, cast
/// (`memref.reinterpret_cast`) to the value's sizes and strides at offset 0; placed first in
/// the body in the order the values are first read. The same addresses: the bytes are the
/// chain's offset plus the value's own offset in elements. A value some reader takes as a view
/// with a static offset in its type (which would have to change with it) is left as it is, as
/// are views of other element widths than whole bytes.
fn canonical_views(context: &melior::Context, body: Blk) -> Result<(), String> {
    use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute};
    use melior::ir::r#type::MemRefType;
    use melior::ir::ShapedTypeLike;
    // Each static view at the top: its value, the argument it views, the byte offset of the
    // chain's `memref.view` there, and that of the value's element 0 (its type's offset, which
    // counts from the view's pointer: views keep it, included).
    let mut known: Vec<(Val, Val, i64, i64)> = Vec::new();
    let bytes_of = |value: Val| -> Option<i64> {
        let ty = value.r#type();
        let width = strata_ir::handle::bit_width(strata_ir::types::memref(ty)?.element())?;
        (width % 8 == 0).then_some(width as i64 / 8)
    };
    let mut chain_ops: Vec<Op> = Vec::new();
    for op in body.ops_before_terminator() {
        if op.is("memref.view") && op.operand_count() == 2 {
            let (source, shift) = (op.operand(0), op.operand(1));
            let Some(shift) = shift.constant_int() else { continue };
            if source.owner().is_some() || strata_ir::types::memref_layout(op.result(0).r#type()).is_none() {
                continue;
            }
            known.push((op.result(0), source, shift, shift));
            chain_ops.push(op);
        } else if VIEW_LIKE.iter().any(|name| op.is(name)) && op.operand_count() == 1 && op.result_count() == 1 {
            let Some(&(_, root, shift, _)) = known.iter().find(|(v, ..)| *v == op.operand(0)) else { continue };
            let Some((_, _, offset)) = strata_ir::types::memref_layout(op.result(0).r#type()) else { continue };
            let Some(elem) = bytes_of(op.result(0)) else { continue };
            known.push((op.result(0), root, shift, shift + offset * elem));
            chain_ops.push(op);
        }
    }
    // The values read by anything but another view of the chains, in the order of first reads.
    let is_chain = |op: Op| chain_ops.contains(&op);
    let mut leaves: Vec<(usize, Val, Val, i64, bool)> = Vec::new();
    let order = strata_ir::rewrite::positions(
        &Op::of(&body.parent().ok_or("a kernel body outside a function")?.get()).collect(|_| true),
    );
    for &(value, root, _, bytes) in &known {
        let uses = value.uses();
        let readers: Vec<&(Op, usize)> = uses.iter().filter(|(user, _)| !is_chain(*user)).collect();
        if readers.is_empty() {
            continue;
        }
        // A reader that is a view with a static offset would need a new result type.
        let agnostic = readers.iter().all(|(user, _)| {
            !(VIEW_LIKE.iter().any(|name| user.is(name)) || user.is("memref.view"))
                || user.results().iter().all(|r| strata_ir::types::memref_layout(r.r#type()).is_none())
        });
        if !agnostic || bytes_of(value).is_none() {
            continue;
        }
        let first =
            readers.iter().filter_map(|(user, _)| order.get(&(user.raw().ptr as usize)).copied()).min().unwrap_or(0);
        // A view reader's result type keeps every stride of its source, a size-1 axis's too.
        let viewed = readers.iter().any(|(user, _)| user.results().iter().any(|r| r.r#type().is_mem_ref()));
        leaves.push((first, value, root, bytes, viewed));
    }
    leaves.sort_by_key(|&(first, ..)| first);
    let Some(top) = body.first() else { return Ok(()) };
    let index = melior::ir::Type::index(context);
    for &(_, value, root, bytes, viewed) in &leaves {
        let (shape, mut strides, _) =
            strata_ir::types::memref_layout(value.r#type()).ok_or("a static view lost its layout")?;
        if shape.contains(&0) || strides.iter().any(|&stride| stride < 0) {
            continue;
        }
        // A size-1 axis's stride is never used: the row-major one, for one type per layout
        // (unless a view reader's type has it).
        for d in (0..shape.len()).rev() {
            if shape[d] == 1 && !viewed {
                strides[d] = if d + 1 == shape.len() { 1 } else { strides[d + 1] * shape[d + 1] };
            }
        }
        let element = MemRefType::try_from(value.r#type()).map_err(|e| e.to_string())?.element();
        let location = value.owner().map_or(top.location(), Op::location);
        let shift =
            strata_ir::rewrite::constant_before(context, top.get(), index, IntegerAttribute::new(index, bytes).into())
                .ok_or("cannot build a view's byte offset")?;
        let view_as = |ty: MemRefType| -> Result<Op, String> {
            let view = OperationBuilder::new("memref.view", location)
                .add_operands(&[root.get(), shift.get()])
                .add_results(&[ty.into()])
                .build()
                .map_err(|e| e.to_string())?;
            Ok(Op::of(&body.get().insert_operation_before(top.get(), view)))
        };
        // Contiguous: the view itself (a `memref.view` has the identity layout); else a flat view
        // of the extent read, cast to the strides.
        let replacement = if strides == strata_ir::types::row_major_strides(&shape) {
            view_as(MemRefType::new(element, &shape, None, None))?
        } else {
            let extent = 1 + shape.iter().zip(&strides).map(|(n, s)| (n - 1) * s).sum::<i64>();
            let view = view_as(MemRefType::new(element, &[extent], None, None))?;
            let list = strides.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            let layout = melior::ir::Attribute::parse(context, &format!("strided<[{list}]>"))
                .ok_or("cannot build a strided layout")?;
            let cast = OperationBuilder::new("memref.reinterpret_cast", location)
                .add_operands(&[view.result(0).get()])
                .add_attributes(&[
                    (
                        Identifier::new(context, "operandSegmentSizes"),
                        DenseI32ArrayAttribute::new(context, &[1, 0, 0, 0]).into(),
                    ),
                    (Identifier::new(context, "static_offsets"), DenseI64ArrayAttribute::new(context, &[0]).into()),
                    (Identifier::new(context, "static_sizes"), DenseI64ArrayAttribute::new(context, &shape).into()),
                    (Identifier::new(context, "static_strides"), DenseI64ArrayAttribute::new(context, &strides).into()),
                ])
                .add_results(&[MemRefType::new(element, &shape, Some(layout), None).into()])
                .build()
                .map_err(|e| e.to_string())?;
            Op::of(&body.get().insert_operation_before(top.get(), cast))
        };
        for (user, operand) in value.uses() {
            if !is_chain(user) {
                user.set_operand(operand, replacement.result(0));
            }
        }
    }
    // The chains' views nothing reads now, last first, and the offsets only they took.
    for op in chain_ops.iter().rev() {
        let shift = op.is("memref.view").then(|| op.operand(1).owner()).flatten();
        // Safety: unused, and no handle to it is used afterwards.
        if unsafe { strata_ir::rewrite::erase_if_unused(*op) } {
            if let Some(constant) = shift {
                // Safety: as above.
                unsafe { strata_ir::rewrite::erase_if_unused(constant) };
            }
        }
    }
    Ok(())
}

/// An empty private function taking `func`'s arguments, with their attributes: what each of
/// its kernels starts from (parsed once per function, copied per kernel).
pub(crate) fn skeleton(strata: &strata_ir::StrataContext, func: Op) -> Result<Op, String> {
    let entry = func.body(0).ok_or("a function without a body")?;
    let parameters: Vec<String> =
        (0..entry.argument_count()).map(|i| format!("%arg{i}: {}", entry.argument(i).r#type())).collect();
    let text =
        format!("module {{\n  func.func private @kernel({}) {{\n    func.return\n  }}\n}}\n", parameters.join(", "));
    let module = strata.parse(&text, "kernel").map_err(|e| e.to_string())?;
    let skeleton = module.body().first_operation().ok_or("empty kernel skeleton")?;
    let skeleton = Op::of(&skeleton);
    skeleton.detach();
    drop(module);
    if let Ok(attributes) = func.get().attribute("arg_attrs") {
        skeleton.set_attribute("arg_attrs", attributes);
    }
    Ok(skeleton)
}

/// Moves `kernel` (a top-level op of `func`'s entry block) into a new function `name` of
/// `module_body`, a copy of `skeleton`; returns the function and its call, or `None` (and
/// changes nothing) when it reads a value it cannot take. Loads of `memory` the kernel may
/// copy ([`copyable`]).
fn outline(
    context: &melior::Context,
    module_body: Blk,
    func: Op,
    skeleton: Op,
    kernel: Op,
    name: &str,
    memory: &ReadOnly,
) -> Result<Option<(Op, Op)>, String> {
    let entry = func.body(0).ok_or("a function without a body")?;
    let arguments: Vec<Val> = (0..entry.argument_count()).map(|i| entry.argument(i)).collect();
    let outlined = skeleton.clone_detached();
    outlined.set_attribute("sym_name", StringAttribute::new(context, name).into());
    let body = outlined.body(0).ok_or("kernel skeleton has no body")?;
    let ret = body.terminator().ok_or("kernel skeleton has no return")?;
    let clone = kernel.clone_detached();
    body.insert_before(ret, clone);
    let users = clone.collect(|_| true);
    let (_, left) = strata_ir::rewrite::sink_into(
        clone,
        &users,
        clone,
        &mut |value| {
            (value.owner_block() == Some(entry)).then(|| body.argument(value.argument_number().expect("an argument")))
        },
        &|op| copyable(op, memory),
    );
    if !left.is_empty() {
        // Safety: the detached function and everything cloned into it are not used again.
        unsafe { outlined.erase() };
        return Ok(None);
    }
    module_body.insert_before(func, outlined);
    let operands: Vec<melior::ir::Value> = arguments.iter().map(|a| a.get()).collect();
    let call = call_before(context, kernel, name, &operands)?;
    // Safety: the kernel now lives in its function; nothing refers to the original.
    unsafe { kernel.erase() };
    Ok(Some((outlined, call)))
}

/// A `func.call` of `callee` with `operands`, inserted right before `anchor` (whose location it
/// takes: the kernel's or the calls' it stands for).
pub(crate) fn call_before(
    context: &melior::Context,
    anchor: Op,
    callee: &str,
    operands: &[melior::ir::Value],
) -> Result<Op, String> {
    let block = anchor.block().ok_or("an op outside a block")?;
    let call = OperationBuilder::new("func.call", anchor.location())
        .add_operands(operands)
        .add_attributes(&[(Identifier::new(context, "callee"), FlatSymbolRefAttribute::new(context, callee).into())])
        .build()
        .map_err(|e| e.to_string())?;
    Ok(Op::of(&block.get().insert_operation_before(anchor.get(), call)))
}

/// The names of the constant globals (`memref.global ... constant`) of a module's `body`, sorted.
fn constant_globals(body: Blk) -> Vec<String> {
    let mut names: Vec<String> = body
        .ops()
        .into_iter()
        .filter(|op| op.is("memref.global") && op.get().attribute("constant").is_ok())
        .filter_map(Op::symbol_name)
        .collect();
    names.sort();
    names
}

/// The memory of a function nothing writes.
struct ReadOnly {
    /// The module's constant globals (`memref.global ... constant`), sorted.
    constants: Vec<String>,
    /// The position of the function's weights blob argument (`plan-weights`).
    weights: Option<usize>,
    /// The function's entry block.
    entry: Blk,
}

/// Whether a kernel may take its own copy of `op`, computed at the top level, besides the
/// views and arithmetic [`strata_ir::rewrite::sinkable`] names: a vector op that only computes
/// a value, or a load from `memory` (a constant global, the weights blob). Loop-invariant code
/// motion hoists such ops out of a kernel's loops (a convolution's bias broadcast into its
/// accumulators), which left the whole kernel inline in the model function: one function for
/// LLVM to compile, on one core (YOLO-style's `@main`, 700 kB of optimised IR).
fn copyable(op: Op, memory: &ReadOnly) -> bool {
    const VALUES: [&str; 17] = [
        "vector.from_elements",
        "vector.to_elements",
        "vector.broadcast",
        "vector.shape_cast",
        "vector.extract",
        "vector.insert",
        "vector.extract_strided_slice",
        "vector.insert_strided_slice",
        "vector.transpose",
        "vector.splat",
        "vector.shuffle",
        "vector.fma",
        "vector.bitcast",
        "vector.interleave",
        "vector.deinterleave",
        "vector.step",
        "vector.constant_mask",
    ];
    const LOADS: [&str; 3] = ["vector.load", "vector.transfer_read", "memref.load"];
    if VALUES.iter().any(|name| op.is(name)) {
        return true;
    }
    if !LOADS.iter().any(|name| op.is(name)) {
        return false;
    }
    // The loaded memory: through views to a global or an argument.
    let mut source = op.operand(0);
    while let Some(view) = source.owner().filter(|v| v.operand_count() > 0 && strata_ir::rewrite::sinkable(&v.name())) {
        source = view.operand(0);
    }
    match source.owner() {
        Some(global) => {
            global.is("memref.get_global")
                && global_name(global).is_some_and(|name| memory.constants.binary_search(&name).is_ok())
        }
        None => {
            memory.weights.is_some()
                && source.owner_block() == Some(memory.entry)
                && source.argument_number() == memory.weights
        }
    }
}

/// The global a `memref.get_global` reads.
pub(crate) fn global_name(get_global: Op) -> Option<String> {
    let attribute = get_global.get().attribute("name").ok()?;
    FlatSymbolRefAttribute::try_from(attribute).ok().map(|symbol| symbol.value().to_owned())
}

/// Makes the byte offset of every `memref.view` at the top of `function`'s `body` that is a
/// constant a parameter of its own (one per distinct constant op), appended to the function's
/// arguments; returns copies of those constants, detached, for the call to pass.
fn offsets_as_parameters(context: &melior::Context, function: Op, body: Blk) -> Result<Vec<Op>, String> {
    let mut parameters: Vec<(Op, Val)> = Vec::new();
    for (constant, views) in offset_constants(body) {
        // Located at the first view that reads it.
        let parameter = Val::from(body.get().add_argument(views[0].operand(1).r#type(), views[0].location()));
        for view in views {
            view.set_operand(1, parameter);
        }
        parameters.push((constant, parameter));
    }
    if parameters.is_empty() {
        return Ok(Vec::new());
    }
    let inputs: Vec<melior::ir::Type> = (0..body.argument_count()).map(|i| body.argument(i).r#type()).collect();
    let ty = melior::ir::r#type::FunctionType::new(context, &inputs, &[]);
    function.set_attribute("function_type", melior::ir::attribute::TypeAttribute::new(ty.into()).into());
    if let Some(attributes) = function.attribute("arg_attrs") {
        let text = attributes.to_string();
        let open = text.strip_suffix(']').ok_or("unexpected argument attributes")?;
        let empty = vec!["{}"; parameters.len()].join(", ");
        let extended = if open.ends_with('[') { format!("{open}{empty}]") } else { format!("{open}, {empty}]") };
        let extended =
            melior::ir::Attribute::parse(context, &extended).ok_or("cannot extend the argument attributes")?;
        function.set_attribute("arg_attrs", extended);
    }
    let mut copies = Vec::with_capacity(parameters.len());
    for (constant, _) in parameters {
        copies.push(constant.clone_detached());
        if !constant.result(0).has_uses() {
            // Safety: unused, and no handle to it is used afterwards.
            unsafe { constant.erase() };
        }
    }
    Ok(copies)
}

/// The distinct constants that are byte offsets of `memref.view`s at the top of `body`, each
/// with the views it is the offset of, in the order of their first view: the order
/// [`offsets_as_parameters`] makes them parameters.
fn offset_constants(body: Blk) -> Vec<(Op, Vec<Op>)> {
    let mut constants: Vec<(Op, Vec<Op>)> = Vec::new();
    for view in body.ops().into_iter().filter(|op| op.is("memref.view")) {
        let Some(constant) = view.operand(1).owner().filter(|op| op.is("arith.constant")) else { continue };
        match constants.iter_mut().find(|(c, _)| *c == constant) {
            Some((_, views)) => views.push(view),
            None => constants.push((constant, vec![view])),
        }
    }
    constants
}

/// Whether `name` is an outlined kernel's.
pub fn is_kernel(name: &str) -> bool {
    name.starts_with(KERNEL_PREFIX)
}

/// Marks every outlined kernel of `module` (LLVM dialect) internal and never inlined: in one
/// module, LLVM keeps each a function of its own, as when they are compiled apart.
pub fn mark(context: &melior::Context, module: &Module<'_>) -> Result<(), String> {
    let internal = melior::ir::Attribute::parse(context, "#llvm.linkage<internal>")
        .ok_or("cannot build the internal linkage attribute")?;
    let never = melior::ir::Attribute::unit(context);
    for function in kernels(module) {
        function.set_attribute("linkage", internal);
        function.set_attribute("no_inline", never);
    }
    Ok(())
}

/// The outlined kernels of `module` (LLVM dialect, or still on buffers after this pass) that
/// have a body.
pub fn kernels(module: &Module<'_>) -> Vec<Op> {
    Blk::of(&module.body())
        .ops()
        .into_iter()
        .filter(|op| {
            (op.is("llvm.func") || op.is("func.func"))
                && op.body(0).is_some()
                && op.symbol_name().is_some_and(|s| is_kernel(&s))
        })
        .collect()
}
