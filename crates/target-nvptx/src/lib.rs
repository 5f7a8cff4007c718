//! `strata-target-nvptx` is the NVIDIA GPU target, from planned buffers to a runnable
//! artifact:
//!
//! - [`gpu_map`]: `strata-gpu-map`, one `gpu.launch` per top-level loop nest;
//! - the `strata-gpu-to-nvvm` pipeline (weights into one blob, kernels outlined and lowered to
//!   NVVM with bare-pointer parameters addressing the arena and the weights at constant
//!   offsets);
//! - [`nvptx`]: PTX through LLVM's NVPTX backend with libdevice linked; [`artifact`]: the
//!   kernel launches of `@main`, the PTX file, the weights blob (`strata_ir::weights`) and the
//!   launch manifest `strata-runtime` loads.
//!
//! It never reads sg, and never plans memory.

pub mod artifact;
pub mod gpu_map;
pub mod nvptx;

pub use nvptx::{emit_ptx, PtxOptions};
use strata_ir::NamedPipeline;

/// Planned buffers to NVVM kernels: weights into one blob argument (`plan-weights`), linalg
/// to parallel loops, one `gpu.launch` per loop nest with views and constants sunk into it
/// (`strata-gpu-map`), integer powers as software functions (`convert-math-to-funcs`, which
/// outlining copies into the kernels that call them), kernels outlined, then each
/// `gpu.module` lowered to NVVM with
/// bare-pointer kernel parameters: every kernel takes base pointers (arena, weights, inputs,
/// outputs) and addresses its buffers at constant offsets from them.
pub const GPU_TO_NVVM: NamedPipeline = NamedPipeline {
    name: "strata-gpu-to-nvvm",
    summary: "Lower planned linalg/memref to NVVM kernels (gpu.launch per loop nest, outlined, bare-pointer parameters)",
    passes: "plan-weights,func.func(convert-linalg-to-parallel-loops,strata-gpu-map),canonicalize,gpu-launch-sink-index-computations,\
convert-math-to-funcs,gpu-kernel-outlining,gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,\
convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true},canonicalize,cse,reconcile-unrealized-casts),canonicalize",
};

/// Registers `strata-gpu-map` and `strata-gpu-to-nvvm`.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&gpu_map::INFO, gpu_map::create);
    registry.register_pipeline(GPU_TO_NVVM);
}

/// Why GPU code generation failed.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("translation to LLVM IR failed: {0}")]
    Translate(String),
    #[error("LLVM: {0}")]
    Llvm(String),
    /// NVIDIA's libdevice, which the kernels' math functions need, is not on this machine.
    #[error("{0}")]
    NoLibdevice(String),
}

/// Code generation fails only on IR the earlier stages should not have produced, or without
/// libdevice.
impl strata_error::HasKind for CodegenError {
    fn kind(&self) -> strata_error::ErrorKind {
        match self {
            CodegenError::NoLibdevice(_) => strata_error::ErrorKind::Unavailable,
            _ => strata_error::ErrorKind::Internal,
        }
    }
}
