//! `strata-target-cpu` is the host target, from linalg on tensors to runnable code:
//!
//! - [`cpu_schedule`]: `strata-cpu-schedule` (convolutions register-blocked in vector registers
//!   by [`conv_lanes`] and `schedules/cpu-conv.mlir`, loop orders by
//!   `schedules/cpu-loop-order.mlir`, run by MLIR's transform interpreter) and
//!   `strata-cpu-vectorize` (the matmuls' register blocks after planning); [`parallelize`]:
//!   `strata-parallelize`, kernels split across threads (OpenMP worksharing loops);
//! - [`bf16`]: `strata-expand-bf16`, f32 to bf16 truncations as integer arithmetic (no runtime
//!   library call on hosts without AVX-512 BF16); [`approximate`]: `strata-approximate-math`,
//!   f32 `exp`, `tanh` and `erf` as inline arithmetic, so their loops vectorise;
//! - the `strata-host-to-llvm` pipeline (planned buffers to the LLVM dialect with bare-pointer
//!   arguments) and `strata-lower-to-llvm` (the same through plain loops, for tests);
//! - [`entry`]: the model's C entry point `strata_<name>_run(weights, arena, inputs, outputs)`
//!   (the ABI of DESIGN.md); [`host`]: LLVM IR, assembly or objects through inkwell at
//!   `default<O3>` for the host CPU; [`jit`]: MLIR's ORC execution engine; [`artifact`]: the
//!   shared object, its C header and manifest; [`profile`]: `strata-profile-kernels`, cycle
//!   counters around every kernel for `strata run --profile`; [`outline_kernels`] and
//!   [`chunk_calls`]: each kernel a function, and long runs of calls to them split into
//!   functions, so code generation runs in parallel and in proportion.
//!
//! It never reads sg, and never plans memory: it takes what the lowering and the planner made.

pub mod approximate;
pub mod artifact;
pub mod bf16;
pub mod broadcast_loads;
pub mod chunk_calls;
mod column_blocks;
mod conv_flatten;
pub mod conv_lanes;
mod conv_matmul;
mod conv_outer;
mod conv_split;
pub mod cpu_schedule;
mod depthwise_fusion;
mod elementwise_slices;
pub mod entry;
mod f32_kernel;
pub mod fuse_casts;
pub mod host;
pub mod implicit_pads;
pub mod jit;
pub mod lower_transposes;
mod lower_vectors;
pub mod masked_stores;
pub mod math_calls;
pub mod matmul_accumulate;
pub mod matmul_tiles;
pub mod outline_kernels;
pub mod pack_weights;
pub mod parallelize;
mod peel_matmuls;
mod pool_rows;
pub mod prefetch_channels;
pub mod prefetch_filters;
pub mod prefetch_rows;
pub mod profile;
pub mod ring_in_producer;
mod shared_lines;
pub mod sink_into_parallel;
pub mod sink_transposes;
pub mod size_small_kernels;
mod text_kernels;
mod vector_ops;
pub mod vector_rows;
pub mod vectorize_depthwise;
pub mod vectorize_elementwise;
pub mod vectorize_integer_matmul;
pub mod vectorize_matmul;
pub mod vectorize_reductions;
pub mod vectorize_winograd;
pub mod winograd;
mod zero_accumulators;

pub use entry::{add_entry, uses_tiles, weights_symbol, EntrySignature};
pub use host::{emit, set_host_target, EmbeddedWeights, Emit};
pub use jit::Jit;
use strata_ir::NamedPipeline;

/// Buffers to the LLVM dialect through plain loops (no tiling or vectorisation yet).
pub const LOWER_TO_LLVM: NamedPipeline = NamedPipeline {
    name: "strata-lower-to-llvm",
    summary: "Lower linalg/memref/arith/scf on buffers to the LLVM dialect via loops",
    passes: "func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf,expand-strided-metadata,\
finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts",
};

/// Buffers to the LLVM dialect for the host: bf16 truncations as integer arithmetic (no
/// runtime-library call), f32 `exp`, `tanh` and `erf` as inline arithmetic (so their loops vectorise), `scf.forall`s
/// (`strata-parallelize`'s splits and the schedules' parallel tiles) as OpenMP worksharing loops (the team's size
/// is the OpenMP runtime's: `omp_set_num_threads`, `OMP_NUM_THREADS`) that compute their own views of the arena
/// (`strata-sink-into-parallel`: LLVM sees how they relate), loops, other math through LLVM intrinsics or libm (`strata-math-calls`: only when some is left),
/// the elements extracted from a vector read loaded one by one (`strata-broadcast-loads`: broadcasts from
/// memory), register blocks kept as rows (`strata-vector-rows`), their transposes between the accumulators and NCHW
/// memory as two-source shuffle networks (`strata-lower-transposes`; any other transpose as one shuffle of the
/// flattened block, `shuffle1d`), the loops of the kernels doing a small share of the work, and the small nests
/// and fills inside the others, kept rolled (`strata-size-small-kernels`), and functions taking bare pointers (the ABI of compiled models).
pub const HOST_TO_LLVM: NamedPipeline = NamedPipeline {
    name: "strata-host-to-llvm",
    summary: "Lower linalg/memref/math on buffers to the LLVM dialect with bare-pointer function arguments",
    passes: "strata-host-kernels-to-loops,strata-host-loops-to-llvm",
};

/// The first half of [`HOST_TO_LLVM`]: every kernel a nest of loops on 1-D vectors and scalars,
/// ending with `strata-size-small-kernels`, whose choices weigh each kernel's work (times its
/// calls) against the whole model's. Code generation in parts runs it on the whole module
/// before the split (`host::emit_objects`): run on a part, a kernel without its caller
/// counted no calls and no work, and every kernel outside the model function's part stayed
/// rolled (ResNet-18's heaviest convolution 8% slower).
pub const HOST_KERNELS_TO_LOOPS: NamedPipeline = NamedPipeline {
    name: "strata-host-kernels-to-loops",
    summary: "Lower the host kernels on buffers to loops on 1-D vectors, the small ones kept rolled",
    passes: "func.func(strata-sink-transposes,strata-expand-bf16,strata-approximate-math,scf-forall-to-parallel,strata-sink-into-parallel),convert-scf-to-openmp{num-threads=0},\
func.func(canonicalize{top-down=false},strata-broadcast-loads,convert-vector-to-scf{full-unroll=true target-rank=1},convert-linalg-to-loops,strata-vector-rows,strata-lower-transposes,strata-split-masked-stores),strata-size-small-kernels",
};

/// The second half of [`HOST_TO_LLVM`]: the loops to the LLVM dialect, each function on its own.
pub const HOST_LOOPS_TO_LLVM: NamedPipeline = NamedPipeline {
    name: "strata-host-loops-to-llvm",
    summary: "Lower host loops on buffers to the LLVM dialect with bare-pointer function arguments",
    passes: "func.func(expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-vector-to-llvm{vector-transpose-lowering=shuffle1d},convert-math-to-llvm),\
strata-math-calls,finalize-memref-to-llvm,convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},\
convert-to-llvm,reconcile-unrealized-casts",
};

/// MLIR's `ShapedType::kDynamic` in static arrays (a subview's `static_offsets`, a forall's
/// bounds): `strata_ir`'s one constant.
pub(crate) use strata_ir::ods::DYNAMIC;

/// Registers the host passes and pipelines.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&bf16::INFO, bf16::create);
    registry.register(&sink_transposes::INFO, sink_transposes::create);
    registry.register(&broadcast_loads::INFO, broadcast_loads::create);
    registry.register(&approximate::INFO, approximate::create);
    registry.register(&cpu_schedule::INFO, cpu_schedule::create);
    registry.register(&cpu_schedule::VECTORIZE_INFO, cpu_schedule::create_vectorize);
    registry.register(&profile::INFO, profile::create);
    registry.register(&parallelize::INFO, parallelize::create);
    registry.register(&prefetch_channels::INFO, prefetch_channels::create);
    registry.register(&prefetch_filters::INFO, prefetch_filters::create);
    registry.register(&prefetch_rows::INFO, prefetch_rows::create);
    registry.register(&vectorize_elementwise::INFO, vectorize_elementwise::create);
    registry.register(&vectorize_reductions::INFO, vectorize_reductions::create);
    registry.register(&vectorize_depthwise::INFO, vectorize_depthwise::create);
    registry.register(&implicit_pads::INFO, implicit_pads::create);
    registry.register(&matmul_accumulate::INFO, matmul_accumulate::create);
    registry.register(&winograd::INFO, winograd::create);
    registry.register(&vectorize_winograd::INFO, vectorize_winograd::create);
    registry.register(&vectorize_matmul::INFO, vectorize_matmul::create);
    registry.register(&vectorize_integer_matmul::INFO, vectorize_integer_matmul::create);
    registry.register(&fuse_casts::INFO, fuse_casts::create);
    registry.register(&outline_kernels::INFO, outline_kernels::create);
    registry.register(&chunk_calls::INFO, chunk_calls::create);
    registry.register(&pack_weights::INFO, pack_weights::create);
    registry.register(&size_small_kernels::INFO, size_small_kernels::create);
    registry.register(&ring_in_producer::INFO, ring_in_producer::create);
    registry.register(&sink_into_parallel::INFO, sink_into_parallel::create);
    registry.register(&vector_rows::INFO, vector_rows::create);
    registry.register(&lower_transposes::INFO, lower_transposes::create);
    registry.register(&masked_stores::INFO, masked_stores::create);
    registry.register(&math_calls::INFO, math_calls::create);
    registry.register_pipeline(LOWER_TO_LLVM);
    registry.register_pipeline(HOST_TO_LLVM);
    registry.register_pipeline(HOST_KERNELS_TO_LOOPS);
    registry.register_pipeline(HOST_LOOPS_TO_LLVM);
}

/// Why host code generation failed.
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
    #[error("lowering a part of the module to the LLVM dialect failed: {0}")]
    Lowering(String),
    #[error("the JIT could not compile the module: {0}")]
    Jit(String),
    #[error("the JIT has no symbol '{0}'")]
    Symbol(String),
    /// The output's directory cannot take the files the library is built from (the user's
    /// path, not the compiler, is at fault).
    #[error("{0}")]
    OutputPath(String),
}

/// Code generation fails only on IR the earlier stages should not have produced, or on an
/// output path the toolchain cannot use.
impl strata_error::HasKind for CodegenError {
    fn kind(&self) -> strata_error::ErrorKind {
        match self {
            CodegenError::OutputPath(_) => strata_error::ErrorKind::InvalidInput,
            _ => strata_error::ErrorKind::Internal,
        }
    }
}
