//! LLVM IR, assembly and object files for the host CPU, through inkwell: the LLVM-dialect
//! module is translated into an inkwell context, optimised with `default<O3>` for the host's
//! CPU name and features, and printed or compiled.
//!
//! The weights blob (`plan-weights`, `strata_ir::weights`) travels in the same output as one
//! exported byte array, `strata_<name>_weights`, given its bytes only after optimisation: LLVM
//! never sees them as constants to fold, and emitting them is a copy. The entry point uses it
//! when its caller passes null weights, so the object alone runs the model.

use crate::CodegenError;
use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use melior::ir::attribute::{Attribute, StringAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Module, RegionLike};

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// Optimised LLVM IR text.
    LlvmIr,
    /// Assembly text for the host.
    Assembly,
    /// A relocatable object file (position-independent, so it links into shared objects).
    Object,
}

/// The host's target machine: its triple, CPU name and features, at O3.
pub fn host_machine() -> Result<TargetMachine, CodegenError> {
    Target::initialize_native(&InitializationConfig::default()).map_err(CodegenError::Llvm)?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| CodegenError::Llvm(e.to_string()))?;
    let cpu = TargetMachine::get_host_cpu_name();
    let features = TargetMachine::get_host_cpu_features();
    target
        .create_target_machine(
            &triple,
            cpu.to_str().unwrap_or("generic"),
            features.to_str().unwrap_or(""),
            OptimizationLevel::Aggressive,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| CodegenError::Llvm(format!("no target machine for {}", triple.as_str().to_string_lossy())))
}

/// What code compiled for this host depends on: the triple, the CPU name and its features
/// (a compile cache keys on it).
pub fn identity() -> String {
    let triple = TargetMachine::get_default_triple();
    format!(
        "{} {} {}",
        triple.as_str().to_string_lossy(),
        TargetMachine::get_host_cpu_name().to_string_lossy(),
        TargetMachine::get_host_cpu_features().to_string_lossy()
    )
}

/// Extra x86 tuning for Strata's loop nests: LLVM's AVX-512 cost model vectorises strided
/// loops with gathers and scatters, which made MobileNetV2 3.8x slower (182 ms against 48 ms,
/// Zen 4, one thread) than vectorising only contiguous loops.
pub const TUNING: &[&str] = &["+prefer-no-gather", "+prefer-no-scatter"];

/// Marks every function of `module` (LLVM dialect) with the host's CPU and features plus
/// [`TUNING`], as `target_cpu` / `target_features`. LLVM's per-function subtarget then
/// governs vectorisation the same way in the JIT and in emitted objects.
pub fn set_host_target(context: &melior::Context, module: &Module<'_>) -> Result<(), CodegenError> {
    Target::initialize_native(&InitializationConfig::default()).map_err(CodegenError::Llvm)?;
    let cpu = TargetMachine::get_host_cpu_name().to_str().unwrap_or("generic").to_owned();
    let host = TargetMachine::get_host_cpu_features().to_str().unwrap_or("").to_owned();
    let features: Vec<String> = host
        .split(',')
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .chain(TUNING.iter().map(|f| f.to_string()))
        .collect();
    let quoted: Vec<String> = features.iter().map(|f| format!("\"{f}\"")).collect();
    let features = Attribute::parse(context, &format!("#llvm.target_features<[{}]>", quoted.join(", ")))
        .ok_or_else(|| CodegenError::Llvm("cannot build the target_features attribute".into()))?;
    let cpu = StringAttribute::new(context, &cpu);
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if current.name().as_string_ref().as_str() == Ok("llvm.func")
            && current.region(0).ok().and_then(|r| r.first_block()).is_some()
        {
            let function = strata_ir::Op::of(&current);
            function.set_attribute("target_cpu", cpu.into());
            function.set_attribute("target_features", features);
        }
        op = current.next_in_block();
    }
    Ok(())
}

/// The weights blob an emitted object carries, and the entry point that falls back to it.
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedWeights<'a> {
    /// The entry point (`strata_<name>_run`), whose first argument is the weights pointer.
    pub entry: &'a str,
    /// The exported symbol of the blob (`strata_<name>_weights`).
    pub symbol: &'a str,
    pub bytes: &'a [u8],
    /// Byte alignment of the blob (the offsets `plan-weights` chose assume it).
    pub alignment: u32,
}

/// Translates, optimises and emits `module` (LLVM dialect), with `weights` (when non-empty)
/// as an exported array its entry point falls back to.
pub fn emit(module: &Module<'_>, what: Emit, weights: Option<EmbeddedWeights<'_>>) -> Result<Vec<u8>, CodegenError> {
    let machine = host_machine()?;
    let context = Context::create();
    let raw = strata_ir::llvm::translate_module(&module.as_operation(), context.raw().cast()).ok_or_else(|| {
        CodegenError::Translate("MLIR's translation returned nothing (an op outside the LLVM dialect?)".into())
    })?;
    // Safety: the translated module is new, owned by us and lives in `context`.
    let llvm = unsafe { inkwell::module::Module::new(raw as *mut _) };
    llvm.set_triple(&machine.get_triple());
    llvm.set_data_layout(&machine.get_target_data().get_data_layout());
    let weights = weights.filter(|w| !w.bytes.is_empty());
    let blob = match weights {
        Some(weights) => Some(declare_weights(&context, &llvm, weights)?),
        None => None,
    };
    llvm.verify().map_err(|e| CodegenError::Llvm(format!("invalid LLVM IR after translation: {e}")))?;
    llvm.run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| CodegenError::Llvm(e.to_string()))?;
    if let (Some(blob), Some(weights)) = (blob, weights) {
        // Only now: the optimiser saw a declaration, nothing to fold.
        blob.set_initializer(&context.const_string(weights.bytes, false));
    }
    Ok(match what {
        Emit::LlvmIr => llvm.print_to_string().to_bytes().to_vec(),
        Emit::Assembly | Emit::Object => {
            let kind = if what == Emit::Assembly { FileType::Assembly } else { FileType::Object };
            machine
                .write_to_memory_buffer(&llvm, kind)
                .map_err(|e| CodegenError::Llvm(e.to_string()))?
                .as_slice()
                .to_vec()
        }
    })
}

/// Declares the exported weights array (its bytes come after optimisation) and makes the entry
/// point use it when called with null weights: `w = weights ? weights : strata_<name>_weights`.
fn declare_weights<'ctx>(
    context: &'ctx Context,
    llvm: &inkwell::module::Module<'ctx>,
    weights: EmbeddedWeights<'_>,
) -> Result<inkwell::values::GlobalValue<'ctx>, CodegenError> {
    use inkwell::values::AsValueRef;
    let length = u32::try_from(weights.bytes.len())
        .map_err(|_| CodegenError::Llvm(format!("the weights ({} bytes) exceed 4 GiB", weights.bytes.len())))?;
    let blob = llvm.add_global(context.i8_type().array_type(length), None, weights.symbol);
    blob.set_constant(true);
    blob.set_linkage(inkwell::module::Linkage::External);
    blob.set_alignment(weights.alignment);
    let entry =
        llvm.get_function(weights.entry).ok_or_else(|| CodegenError::MissingFunction(weights.entry.to_owned()))?;
    let first = entry
        .get_first_basic_block()
        .and_then(|b| b.get_first_instruction())
        .ok_or_else(|| CodegenError::Entry(format!("{} has no body", weights.entry)))?;
    let given = entry
        .get_nth_param(0)
        .filter(|p| p.is_pointer_value())
        .ok_or_else(|| CodegenError::Entry(format!("{} takes no weights pointer", weights.entry)))?
        .into_pointer_value();
    let builder = context.create_builder();
    builder.position_before(&first);
    let missing = builder.build_is_null(given, "no_weights").map_err(|e| CodegenError::Llvm(e.to_string()))?;
    let chosen = builder
        .build_select(missing, blob.as_pointer_value(), given, "weights")
        .map_err(|e| CodegenError::Llvm(e.to_string()))?;
    // Every use of the argument reads the choice, but the choice's own operands.
    // Safety: values of this module; the two operands restored are the ones just replaced.
    unsafe {
        let raw = given.as_value_ref();
        inkwell::llvm_sys::core::LLVMReplaceAllUsesWith(raw, chosen.as_value_ref());
        inkwell::llvm_sys::core::LLVMSetOperand(chosen.as_value_ref(), 2, raw);
        inkwell::llvm_sys::core::LLVMSetOperand(missing.as_value_ref(), 0, raw);
    }
    Ok(blob)
}
