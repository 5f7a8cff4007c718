//! Named pipelines: a name that stands for a list of passes inside `builtin.module(...)`.
//!
//! A named pipeline may appear wherever a pass may appear directly under `builtin.module`:
//! `builtin.module(sg-verify,strata-bufferize,strata-lower-to-llvm)`. The pass manager splices
//! its passes in place, so timing, IR printing and verification see each pass.

/// A named pipeline.
#[derive(Clone, Copy, Debug)]
pub struct NamedPipeline {
    pub name: &'static str,
    pub summary: &'static str,
    /// The passes, written as the inside of `builtin.module(...)`.
    pub passes: &'static str,
}

/// Tensors to buffers: one-shot bufferization across function boundaries, results turned
/// into caller-provided out-params, deallocations made explicit.
pub const BUFFERIZE: NamedPipeline = NamedPipeline {
    name: "strata-bufferize",
    summary: "Bufferize linalg-on-tensors: one-shot across functions, results as out-params, explicit deallocs",
    passes:
        "one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map},\
buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},\
buffer-deallocation-pipeline,canonicalize",
};

/// Buffers to the LLVM dialect through plain loops (no tiling or vectorisation yet).
pub const LOWER_TO_LLVM: NamedPipeline = NamedPipeline {
    name: "strata-lower-to-llvm",
    summary: "Lower linalg/memref/arith/scf on buffers to the LLVM dialect via loops",
    passes: "func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf,expand-strided-metadata,\
finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts",
};

/// Buffers to the LLVM dialect for the host: bf16 truncations as integer arithmetic (no
/// runtime-library call), loops, math through LLVM intrinsics or libm (`erff`, `tanhf`, ...),
/// and functions taking bare pointers (the ABI of compiled models).
pub const HOST_TO_LLVM: NamedPipeline = NamedPipeline {
    name: "strata-host-to-llvm",
    summary: "Lower linalg/memref/math on buffers to the LLVM dialect with bare-pointer function arguments",
    passes: "func.func(strata-expand-bf16,convert-vector-to-scf{full-unroll=true target-rank=1},convert-linalg-to-loops),expand-strided-metadata,lower-affine,convert-scf-to-cf,\
convert-vector-to-llvm,convert-math-to-funcs,convert-math-to-llvm,convert-math-to-libm,finalize-memref-to-llvm,convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},\
convert-to-llvm,reconcile-unrealized-casts",
};

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

/// The named pipelines every Strata context knows.
pub const BUILTIN: &[NamedPipeline] = &[BUFFERIZE, LOWER_TO_LLVM, HOST_TO_LLVM, GPU_TO_NVVM];
