//! `strata-outline-kernels`: every top-level loop nest of a planned function moves into a
//! function of its own, called in its place, so the code generator can optimise and compile
//! the kernels in parallel, several LLVM modules at once ([`crate::host::emit_objects`]).
//!
//! A kernel (a top-level op with regions and no results: a loop nest, a linalg op, an OpenMP
//! region) becomes `func.func private @strata_kernel_<n>` taking the function's own arguments
//! (inputs, outputs, arena, weights: every buffer is a view of one of them) with the same
//! argument attributes (`noalias`, alignment), and the views, constants and index arithmetic
//! it reads are cloned into it. A kernel that reads anything else computed at the top level
//! (a scalar loaded from memory, say) stays where it is: outlining never changes what runs.
//! After lowering, [`mark`] makes the kernels internal and never inlined, so a single module
//! (the JIT) keeps them as separate functions too.

use melior::ir::attribute::{FlatSymbolRefAttribute, StringAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
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
        for func in functions {
            let entry = func.body(0).expect("checked above");
            let kernels: Vec<Op> = entry
                .ops_before_terminator()
                .into_iter()
                .filter(|op| op.region_count() > 0 && op.results().is_empty())
                .collect();
            for kernel in kernels {
                let name = format!("{KERNEL_PREFIX}{next}");
                match outline(cx.strata(), body, func, entry, kernel, &name) {
                    Ok(true) => {
                        next += 1;
                        cx.bump("kernels", 1);
                    }
                    Ok(false) => cx.bump("kept-inline", 1),
                    Err(why) => {
                        cx.emit_op_error(kernel.get(), format!("strata-outline-kernels: {why}"));
                        return Err(PassFailed);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Moves `kernel` (a top-level op of `func`'s `entry` block) into a new function `name` of
/// `module_body`; returns false (and changes nothing) when it reads a value it cannot take.
fn outline(
    strata: &strata_ir::StrataContext,
    module_body: Blk,
    func: Op,
    entry: Blk,
    kernel: Op,
    name: &str,
) -> Result<bool, String> {
    let context = strata.mlir();
    let arguments: Vec<Val> = (0..entry.argument_count()).map(|i| entry.argument(i)).collect();
    let parameters: Vec<String> =
        arguments.iter().enumerate().map(|(i, a)| format!("%arg{i}: {}", a.r#type())).collect();
    let text =
        format!("module {{\n  func.func private @{name}({}) {{\n    func.return\n  }}\n}}\n", parameters.join(", "));
    let skeleton = strata.parse(&text, "kernel").map_err(|e| e.to_string())?;
    let outlined = skeleton.body().first_operation().ok_or("empty kernel skeleton")?;
    let outlined = Op::of(&outlined);
    outlined.detach();
    drop(skeleton);
    if let Ok(attributes) = func.get().attribute("arg_attrs") {
        outlined.set_attribute("arg_attrs", attributes);
    }
    let body = outlined.body(0).ok_or("kernel skeleton has no body")?;
    let ret = body.terminator().ok_or("kernel skeleton has no return")?;
    let clone = kernel.clone_detached();
    body.insert_before(ret, clone);
    let users = clone.collect(|_| true);
    let (_, left) = strata_ir::rewrite::sink_into(clone, &users, clone, &mut |value| {
        (value.owner_block() == Some(entry)).then(|| body.argument(value.argument_number().expect("an argument")))
    });
    if !left.is_empty() {
        // Safety: the detached function and everything cloned into it are not used again.
        unsafe { outlined.erase() };
        return Ok(false);
    }
    module_body.insert_before(func, outlined);
    let operands: Vec<melior::ir::Value> = arguments.iter().map(|a| a.get()).collect();
    let call = OperationBuilder::new("func.call", kernel.location())
        .add_operands(&operands)
        .add_attributes(&[(Identifier::new(context, "callee"), FlatSymbolRefAttribute::new(context, name).into())])
        .build()
        .map_err(|e| e.to_string())?;
    entry.get().insert_operation_before(kernel.get(), call);
    // Safety: the kernel now lives in its function; nothing refers to the original.
    unsafe { kernel.erase() };
    Ok(true)
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

/// The outlined kernels of `module` (LLVM dialect) that have a body.
pub fn kernels(module: &Module<'_>) -> Vec<Op> {
    Blk::of(&module.body())
        .ops()
        .into_iter()
        .filter(|op| op.is("llvm.func") && op.body(0).is_some() && op.symbol_name().is_some_and(|s| is_kernel(&s)))
        .collect()
}
