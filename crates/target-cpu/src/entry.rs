//! The model's C entry point, added in the LLVM dialect so every later stage (LLVM IR,
//! assembly, object, JIT) sees it:
//!
//! ```c
//! int strata_<name>_run(const uint8_t *weights, uint8_t *arena,
//!                       const void *const *inputs, void *const *outputs);
//! ```
//!
//! It loads each input and output pointer and calls the lowered model function (renamed
//! `strata_<name>_main`, internal, so LLVM inlines it), whose bare-pointer arguments are the
//! inputs, the outputs, the run-time checks' status (an `i32` on the wrapper's stack) when the
//! model has checks, then the arena when the model has intermediates, then the weights blob
//! when `plan-weights` placed constants in one. It returns the status: 0, or the code of the
//! check that failed (`strata_frontend`'s checks; always 0 without checks). An emitted object also carries the blob
//! ([`weights_symbol`]) and uses it when `weights` is null (`host::emit`).
//!
//! A model whose kernels use AMX tiles (`llvm.x86.t*` intrinsics: `strata-vectorize-integer-matmul`
//! with `amx`) first asks Linux for the tiles' state (`syscall(SYS_arch_prctl,
//! ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`, process-wide and idempotent, so a library
//! loaded anywhere needs no set-up call); refused, it returns
//! [`strata_runtime::TILES_REFUSED`] instead of faulting at the first tile instruction.

use crate::CodegenError;
use melior::ir::attribute::{Attribute, StringAttribute, TypeAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::operation::{OperationBuilder, OperationRef};
use melior::ir::r#type::FunctionType;
use melior::ir::{BlockLike, Module, RegionLike};
use melior::ir::{Value, ValueLike};
use strata_ir::Error;
use strata_ir::StrataContext;

/// How many inputs and outputs the model has; `empty_outputs` (indices) have no elements and
/// are not arguments of the model function: their pointer slots are ignored.
#[derive(Clone, Debug)]
pub struct EntrySignature {
    pub inputs: usize,
    pub outputs: usize,
    pub empty_outputs: Vec<usize>,
    /// Whether the model function takes the weights blob (its last argument).
    pub weights: bool,
    /// Whether the model function returns the run-time checks' status (an `i32` out-param
    /// after the outputs).
    pub status: bool,
    /// Whether the model's kernels use AMX tiles ([`uses_tiles`] of the whole module, where
    /// the entry point's part of a split module may not see them).
    pub tiles: bool,
}

/// The exported symbol of a host object's weights blob.
pub fn weights_symbol(name: &str) -> String {
    format!("strata_{name}_weights")
}

/// Wraps `function` of the LLVM-dialect `module` in `strata_<name>_run`; returns that symbol.
pub fn add_entry(
    strata: &StrataContext,
    module: &Module<'_>,
    function: &str,
    name: &str,
    signature: EntrySignature,
) -> Result<String, CodegenError> {
    let context = strata.mlir();
    let target = strata_ir::rewrite::find_symbol(module, function)
        .filter(|op| op.name().as_string_ref().as_str() == Ok("llvm.func"))
        .ok_or_else(|| CodegenError::MissingFunction(function.to_owned()))?;
    let arguments = target.region(0).ok().and_then(|r| r.first_block()).map_or(0, |b| b.argument_count());
    let plain = signature.inputs + signature.outputs - signature.empty_outputs.len()
        + usize::from(signature.weights)
        + usize::from(signature.status);
    let arena = match arguments {
        n if n == plain => false,
        n if n == plain + 1 => true,
        found => return Err(CodegenError::Signature { found, expected: format!("{plain} or {}", plain + 1) }),
    };
    let inner = format!("strata_{name}_main");
    let entry = format!("strata_{name}_run");
    let set = |name: &str, value: Attribute<'_>| strata_ir::Op::of(&target).set_attribute(name, value);
    set("sym_name", StringAttribute::new(context, &inner).into());
    let internal = Attribute::parse(context, "#llvm.linkage<internal>")
        .ok_or_else(|| CodegenError::Entry("cannot build the internal linkage attribute".into()))?;
    set("linkage", internal);

    let mut body = String::new();
    let mut operands = Vec::new();
    for (list, count, prefix) in [("%inputs", signature.inputs, "i"), ("%outputs", signature.outputs, "o")] {
        for index in 0..count {
            if prefix == "o" && signature.empty_outputs.contains(&index) {
                continue;
            }
            body += &format!(
                "    %{prefix}p{index} = llvm.getelementptr {list}[{index}] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr\n"
            );
            body += &format!("    %{prefix}{index} = llvm.load %{prefix}p{index} : !llvm.ptr -> !llvm.ptr\n");
            operands.push(format!("%{prefix}{index}"));
        }
    }
    if signature.status {
        body += "    %one = llvm.mlir.constant(1 : i64) : i64\n";
        body += "    %zero = llvm.mlir.constant(0 : i32) : i32\n";
        body += "    %status = llvm.alloca %one x i32 : (i64) -> !llvm.ptr\n";
        body += "    llvm.store %zero, %status : i32, !llvm.ptr\n";
        operands.push("%status".into());
    }
    if arena {
        operands.push("%arena".into());
    }
    if signature.weights {
        operands.push("%weights".into());
    }
    let tiles = signature.tiles || uses_tiles(module);
    let mut request = String::new();
    if tiles {
        request = format!(
            "    %sys = llvm.mlir.constant({} : i64) : i64\n\
             \x20   %req = llvm.mlir.constant({} : i64) : i64\n\
             \x20   %state = llvm.mlir.constant({} : i64) : i64\n\
             \x20   %granted = llvm.call @syscall(%sys, %req, %state) vararg(!llvm.func<i64 (i64, ...)>) : (i64, i64, i64) -> i64\n\
             \x20   %none = llvm.mlir.constant(0 : i64) : i64\n\
             \x20   %refused = llvm.icmp \"ne\" %granted, %none : i64\n\
             \x20   llvm.cond_br %refused, ^refused, ^run\n\
             \x20 ^refused:\n\
             \x20   %code = llvm.mlir.constant({} : i32) : i32\n\
             \x20   llvm.return %code : i32\n\
             \x20 ^run:\n",
            strata_machine::SYS_ARCH_PRCTL,
            strata_machine::ARCH_REQ_XCOMP_PERM,
            strata_machine::XFEATURE_XTILEDATA,
            strata_runtime::TILES_REFUSED
        );
    }
    let types = vec!["!llvm.ptr"; operands.len()].join(", ");
    let text = format!(
        "module {{\n  llvm.func @{inner}({types})\n  llvm.func @syscall(i64, ...) -> i64\n  llvm.func @{entry}(%weights: !llvm.ptr, %arena: !llvm.ptr, %inputs: !llvm.ptr, %outputs: !llvm.ptr) -> i32 {{\n{body}{request}    llvm.call @{inner}({}) : ({types}) -> ()\n{}  }}\n}}\n",
        operands.join(", "),
        if signature.status {
            "    %result = llvm.load %status : !llvm.ptr -> i32\n    llvm.return %result : i32\n"
        } else {
            "    %ok = llvm.mlir.constant(0 : i32) : i32\n    llvm.return %ok : i32\n"
        }
    );
    let wrapper = strata.parse(&text, "entry point").map_err(|e| CodegenError::Entry(e.to_string()))?;
    let declaration =
        wrapper.body().first_operation().ok_or_else(|| CodegenError::Entry("empty wrapper module".into()))?;
    let syscall =
        declaration.next_in_block().ok_or_else(|| CodegenError::Entry("no system call declaration".into()))?;
    let function = syscall.next_in_block().ok_or_else(|| CodegenError::Entry("no wrapper function".into()))?;
    // The wrapper function (and the declaration it calls) move from the parsed module
    // (dropped below) to `module`.
    let body = strata_ir::Blk::of(&module.body());
    if tiles && strata_ir::rewrite::find_symbol(module, "syscall").is_none() {
        let syscall = strata_ir::Op::of(&syscall);
        syscall.detach();
        body.append(syscall);
    }
    let function = strata_ir::Op::of(&function);
    function.detach();
    body.append(function);
    Ok(entry)
}

/// Whether a function of `module` uses AMX tiles: has an `amx` op (on buffers) or calls a tile
/// intrinsic (LLVM dialect: `llvm.x86.tileloadd64`, `tdpbusd`, `tilezero`, `tilestored64`...).
pub fn uses_tiles(module: &Module<'_>) -> bool {
    !strata_ir::rewrite::collect(&module.as_operation(), |op| {
        op.name().starts_with("amx.")
            || op.is("llvm.call_intrinsic")
                && op.get().attribute("intrin").is_ok_and(|name| {
                    let name = name.to_string();
                    name.starts_with("\"llvm.x86.tile") || name.starts_with("\"llvm.x86.tdp")
                })
    })
    .is_empty()
}

/// Removes results `drop` from the `func.func` `main` (its return and type), then erases the ops
/// left without users at the function's top level (sg ops count as side-effecting upstream).
pub fn drop_results(context: &melior::Context, main: OperationRef<'_, '_>, drop: &[usize]) -> Result<(), Error> {
    let block = main.region(0).ok().and_then(|r| r.first_block()).ok_or("@main has no body")?;
    let terminator = block.terminator().ok_or("@main has no terminator")?;
    let kept: Vec<Value> =
        terminator.operands().enumerate().filter(|(i, _)| !drop.contains(i)).map(|(_, v)| v).collect();
    let ty = main
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .and_then(|a| FunctionType::try_from(a.value()).ok())
        .ok_or("@main has no function type")?;
    let inputs: Vec<melior::ir::Type> = (0..ty.input_count()).map(|i| ty.input(i).expect("counted")).collect();
    let results: Vec<melior::ir::Type> = kept.iter().map(|v| v.r#type()).collect();
    let new_type = FunctionType::new(context, &inputs, &results);
    let ret = OperationBuilder::new("func.return", terminator.location())
        .add_operands(&kept)
        .build()
        .map_err(|e| e.to_string())?;
    block.insert_operation_before(terminator, ret);
    // Safety: the old terminator is not used again.
    unsafe { strata_ir::Op::of(&terminator).erase() };
    strata_ir::Op::of(&main).set_attribute("function_type", TypeAttribute::new(new_type.into()).into());
    let block = strata_ir::Blk::of(&block);
    let mut erased = true;
    while erased {
        erased = false;
        // Ops are looked up afresh each round; the terminator is never erased.
        for op in block.ops_before_terminator().into_iter().rev() {
            // Safety: an op erased here is not used again.
            erased |= unsafe { strata_ir::rewrite::erase_if_unused(op) };
        }
    }
    Ok(())
}
