//! LLVM IR, assembly and object files for the host CPU, through inkwell: the LLVM-dialect
//! module is translated into an inkwell context, optimised with `default<O3>` for the host's
//! CPU name and features, and printed or compiled.

use crate::CodegenError;
use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use melior::ir::Module;

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
        .create_target_machine(&triple, cpu.to_str().unwrap_or("generic"), features.to_str().unwrap_or(""), OptimizationLevel::Aggressive, RelocMode::PIC, CodeModel::Default)
        .ok_or_else(|| CodegenError::Llvm(format!("no target machine for {}", triple.as_str().to_string_lossy())))
}

/// Translates, optimises and emits `module` (LLVM dialect).
pub fn emit(module: &Module<'_>, what: Emit) -> Result<Vec<u8>, CodegenError> {
    let machine = host_machine()?;
    let context = Context::create();
    let raw = unsafe { mlir_sys::mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), context.raw() as *mut _) };
    if raw.is_null() {
        return Err(CodegenError::Translate("mlirTranslateModuleToLLVMIR returned nothing (an op outside the LLVM dialect?)".into()));
    }
    // Safety: the translated module is new, owned by us and lives in `context`.
    let llvm = unsafe { inkwell::module::Module::new(raw as *mut _) };
    llvm.set_triple(&machine.get_triple());
    llvm.set_data_layout(&machine.get_target_data().get_data_layout());
    llvm.verify().map_err(|e| CodegenError::Llvm(format!("invalid LLVM IR after translation: {e}")))?;
    llvm.run_passes("default<O3>", &machine, PassBuilderOptions::create()).map_err(|e| CodegenError::Llvm(e.to_string()))?;
    Ok(match what {
        Emit::LlvmIr => llvm.print_to_string().to_bytes().to_vec(),
        Emit::Assembly | Emit::Object => {
            let kind = if what == Emit::Assembly { FileType::Assembly } else { FileType::Object };
            machine.write_to_memory_buffer(&llvm, kind).map_err(|e| CodegenError::Llvm(e.to_string()))?.as_slice().to_vec()
        }
    })
}
