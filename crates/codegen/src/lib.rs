//! `strata-codegen` turns the LLVM-dialect module of a compiled model into host code.
//!
//! - [`entry`] adds the model's C entry point `strata_<name>_run(weights, arena, inputs,
//!   outputs)` (the ABI of DESIGN.md) around the lowered function;
//! - [`host`] translates the module to LLVM IR (`mlirTranslateModuleToLLVMIR` into an inkwell
//!   context), runs LLVM's `default<O3>` pipeline for the host CPU (its name and features),
//!   and writes LLVM IR, assembly or an object file;
//! - [`jit`] runs the same module in MLIR's ORC-based execution engine (which also optimises
//!   at O3 for the detected host) and hands out the entry point;
//! - [`nvptx`] compiles the NVVM-lowered `gpu.module`s into one PTX text (libdevice linked
//!   for math functions);
//! - [`weights`] writes the bytes of the weights blob that `plan-weights` laid out.

pub mod entry;
pub mod host;
pub mod jit;
pub mod nvptx;
pub mod weights;

pub use entry::{add_entry, EntrySignature};
pub use host::{emit, set_host_target, Emit};
pub use jit::Jit;
pub use nvptx::{emit_ptx, PtxOptions};

/// Why code generation failed.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("the module has no function '{0}' to wrap (was it lowered to the LLVM dialect?)")]
    MissingFunction(String),
    #[error("the model function has {found} arguments, expected {expected} (inputs, outputs and maybe the arena)")]
    Signature { found: usize, expected: String },
    #[error("internal error building the entry point: {0}")]
    Entry(String),
    #[error("translation to LLVM IR failed: {0}")]
    Translate(String),
    #[error("LLVM: {0}")]
    Llvm(String),
    #[error("the JIT could not compile the module: {0}")]
    Jit(String),
    #[error("the JIT has no symbol '{0}'")]
    Symbol(String),
}
