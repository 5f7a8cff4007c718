//! PTX for NVIDIA GPUs through inkwell's NVPTX backend.
//!
//! Every `gpu.module` of the module (NVVM-lowered kernels, after `gpu-kernel-outlining` and
//! `convert-gpu-to-nvvm`) is translated to LLVM IR with `mlirTranslateModuleToLLVMIR` into one
//! inkwell context and linked into one LLVM module. Math functions that
//! `convert-gpu-to-nvvm` turned into libdevice calls (`__nv_expf`, `__nv_erff`, ...) are
//! resolved by linking NVIDIA's `libdevice.10.bc` (the bitcode library that ships with CUDA;
//! `cargo xtask libdevice` fetches it without a CUDA install), whose functions are then
//! internalised so that `default<O3>` inlines them and drops the rest. The module is compiled
//! for `nvptx64-nvidia-cuda` at the chosen SM and PTX version and printed as PTX text, which
//! the CUDA driver JIT-compiles when it loads it (no `ptxas` needed).

use crate::CodegenError;
use inkwell::context::Context;
use inkwell::module::Linkage;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::values::AsValueRef;
use inkwell::OptimizationLevel;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Module};
use std::path::{Path, PathBuf};

/// The NVPTX target triple.
pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// LLVM's calling convention number for PTX kernels (`ptx_kernel`).
const PTX_KERNEL: u32 = 71;

/// What to compile for.
#[derive(Clone, Debug)]
pub struct PtxOptions {
    /// The GPU architecture: `sm_80`, `sm_90`, ...
    pub chip: String,
    /// The PTX ISA version feature, e.g. `+ptx80`.
    pub features: String,
    /// NVIDIA's libdevice bitcode, needed when kernels call math functions.
    pub libdevice: Option<PathBuf>,
}

/// The GPU architectures LLVM 22's NVPTX backend knows (`llc -march=nvptx64 -mcpu=help`; a
/// test compares when `llc` is installed). Any other name only made LLVM warn "not a
/// recognized processor" and compile for a generic one.
pub const CHIPS: &[&str] = &[
    "sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62",
    "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a",
    "sm_100f", "sm_101", "sm_101a", "sm_101f", "sm_103", "sm_103a", "sm_103f", "sm_110", "sm_110a", "sm_110f",
    "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f",
];

impl PtxOptions {
    /// Options for `chip` (`sm_80` or `sm_90`, or any SM LLVM knows: [`CHIPS`]) with the PTX
    /// version that chip needs at least (7.0 for sm_80, 7.8 for sm_90), and the libdevice
    /// found by [`find_libdevice`].
    pub fn for_chip(chip: &str) -> Result<PtxOptions, CodegenError> {
        if !CHIPS.contains(&chip) {
            return Err(CodegenError::Llvm(format!(
                "'{chip}' is not a GPU architecture LLVM's NVPTX backend knows (sm_80, sm_90, ...: one of {})",
                CHIPS.join(", ")
            )));
        }
        let sm: u32 =
            chip.strip_prefix("sm_").map(|s| s.trim_end_matches(['a', 'f'])).and_then(|s| s.parse().ok()).ok_or_else(
                || CodegenError::Llvm(format!("'{chip}' is not an NVIDIA architecture (expected sm_80, sm_90, ...)")),
            )?;
        let ptx = match sm {
            0..=75 => "+ptx63",
            76..=86 => "+ptx71",
            87..=89 => "+ptx78",
            _ => "+ptx80",
        };
        Ok(PtxOptions { chip: chip.to_owned(), features: ptx.to_owned(), libdevice: find_libdevice() })
    }
}

/// Where libdevice is: `$STRATA_LIBDEVICE`, then `$CUDA_HOME` or `$CUDA_PATH`
/// (`nvvm/libdevice/libdevice.10.bc`), then `/usr/local/cuda`.
pub fn find_libdevice() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("STRATA_LIBDEVICE") {
        return Some(PathBuf::from(path));
    }
    let under = |root: PathBuf| root.join("nvvm/libdevice/libdevice.10.bc");
    ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|var| std::env::var_os(var).map(|root| under(PathBuf::from(root))))
        .chain(std::iter::once(under(PathBuf::from("/usr/local/cuda"))))
        .find(|path| path.is_file())
}

/// The NVPTX target machine for `options`.
fn machine(options: &PtxOptions) -> Result<TargetMachine, CodegenError> {
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| CodegenError::Llvm(e.to_string()))?;
    target
        .create_target_machine(
            &triple,
            &options.chip,
            &options.features,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| CodegenError::Llvm(format!("no NVPTX target machine for {} {}", options.chip, options.features)))
}

/// Compiles every `gpu.module` of `module` into one PTX text; returns it with the kernels'
/// names. Each kernel is named after its `gpu.module` (unique symbols; what
/// `gpu.launch_func @module::@kernel` names first).
pub fn emit_ptx(module: &Module<'_>, options: &PtxOptions) -> Result<(String, Vec<String>), CodegenError> {
    let machine = machine(options)?;
    let context = Context::create();
    let mut linked: Option<inkwell::module::Module<'_>> = None;
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if current.name().as_string_ref().as_str() == Ok("gpu.module") {
            let raw = strata_ir::llvm::translate_module(&current, context.raw().cast()).ok_or_else(|| {
                CodegenError::Translate("a gpu.module did not translate to LLVM IR (is it lowered to NVVM?)".into())
            })?;
            // Safety: the translated module is new, owned by us and lives in `context`.
            let kernels = unsafe { inkwell::module::Module::new(raw as *mut _) };
            // Outlining names every kernel after its function (`main_kernel`); the gpu.module's
            // own symbol is unique, so the kernel takes that name (what launches refer to).
            let symbol = strata_ir::Op::of(&current).symbol_name().unwrap_or_default();
            for function in kernels.get_functions().filter(|f| f.get_call_conventions() == PTX_KERNEL) {
                function.as_global_value().set_name(&symbol);
            }
            match &linked {
                None => linked = Some(kernels),
                Some(all) => {
                    all.link_in_module(kernels).map_err(|e| CodegenError::Llvm(format!("linking kernels: {e}")))?
                }
            }
        }
        op = current.next_in_block();
    }
    let llvm = linked
        .ok_or_else(|| CodegenError::Translate("the module has no gpu.module (nothing runs on the GPU)".into()))?;
    llvm.set_triple(&machine.get_triple());
    llvm.set_data_layout(&machine.get_target_data().get_data_layout());

    // Resolve libdevice calls.
    let missing = |llvm: &inkwell::module::Module<'_>| -> Vec<String> {
        // `__nvvm_reflect` (libdevice's query of compile options) is folded by the NVPTX
        // backend's NVVMReflect pass during optimisation.
        llvm.get_functions()
            .map(|f| (f.count_basic_blocks(), f.get_name().to_string_lossy().into_owned()))
            .filter(|(blocks, name)| *blocks == 0 && !name.starts_with("llvm.") && name != "__nvvm_reflect")
            .map(|(_, name)| name)
            .collect()
    };
    let calls = missing(&llvm);
    if calls.iter().any(|name| name.starts_with("__nv_")) {
        let path = options.libdevice.as_deref().ok_or_else(|| no_libdevice(&calls, None))?;
        let library = inkwell::module::Module::parse_bitcode_from_path(path, &context)
            .map_err(|e| no_libdevice(&calls, Some((path, e.to_string()))))?;
        library.set_triple(&machine.get_triple());
        library.set_data_layout(&machine.get_target_data().get_data_layout());
        llvm.link_in_module(library).map_err(|e| CodegenError::Llvm(format!("linking libdevice: {e}")))?;
    }
    let unresolved = missing(&llvm);
    if !unresolved.is_empty() {
        return Err(CodegenError::Llvm(format!("kernels call functions nothing defines: {}", unresolved.join(", "))));
    }
    let mut kernels = Vec::new();
    for function in llvm.get_functions() {
        if function.get_call_conventions() == PTX_KERNEL {
            kernels.push(function.get_name().to_string_lossy().into_owned());
        } else if function.count_basic_blocks() > 0 {
            function.set_linkage(Linkage::Internal);
        }
    }
    llvm.verify().map_err(|e| CodegenError::Llvm(format!("invalid LLVM IR after translation: {e}")))?;
    llvm.run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| CodegenError::Llvm(e.to_string()))?;
    let used = |f: &inkwell::values::FunctionValue<'_>| {
        !unsafe { inkwell::llvm_sys::core::LLVMGetFirstUse(f.as_value_ref()) }.is_null()
    };
    let left: Vec<String> = llvm
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0 && used(f))
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("llvm."))
        .collect();
    if !left.is_empty() {
        return Err(CodegenError::Llvm(format!(
            "after optimisation the kernels still call undefined functions: {}",
            left.join(", ")
        )));
    }
    let ptx =
        machine.write_to_memory_buffer(&llvm, FileType::Assembly).map_err(|e| CodegenError::Llvm(e.to_string()))?;
    let ptx = String::from_utf8(ptx.as_slice().to_vec())
        .map_err(|_| CodegenError::Llvm("the NVPTX backend wrote non-UTF-8 PTX".into()))?;
    Ok((ptx, kernels))
}

fn no_libdevice(calls: &[String], failed: Option<(&Path, String)>) -> CodegenError {
    let math: Vec<&str> = calls.iter().filter(|c| c.starts_with("__nv_")).map(String::as_str).collect();
    let why = match failed {
        None => "no libdevice was found".to_owned(),
        Some((path, error)) => format!("libdevice at {} could not be read: {error}", path.display()),
    };
    CodegenError::NoLibdevice(format!(
        "the kernels call NVIDIA libdevice math functions ({}) and {why}; set STRATA_LIBDEVICE to libdevice.10.bc (from a CUDA install's nvvm/libdevice, or fetched by `cargo xtask libdevice`) or CUDA_HOME",
        math.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_chips_are_refused() {
        assert!(PtxOptions::for_chip("sm_90a").is_ok());
        for chip in ["sm_1", "sm_91", "sm_80x", "compute_80", ""] {
            let error = PtxOptions::for_chip(chip).unwrap_err().to_string();
            assert!(error.contains("is not a GPU architecture"), "{chip}: {error}");
        }
    }

    /// The table is LLVM's own list, where `llc` is installed beside the libraries.
    #[test]
    fn the_chip_table_is_llvms() {
        let llc = std::path::Path::new("/usr/lib/llvm-22/bin/llc");
        if !llc.is_file() {
            return;
        }
        let output = std::process::Command::new(llc).args(["-march=nvptx64", "-mcpu=help"]).output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
        let mut known: Vec<&str> = text
            .split_whitespace()
            .filter(|w| w.starts_with("sm_") && w[3..].chars().all(|c| c.is_ascii_alphanumeric()))
            .collect();
        known.sort_unstable();
        known.dedup();
        let mut table = CHIPS.to_vec();
        table.sort_unstable();
        assert_eq!(table, known);
    }
}
