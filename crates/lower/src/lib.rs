//! `strata-lower` lowers the `sg` dialect out of the graph level: `sg-to-linalg` turns every
//! sg op into linalg named ops (convolutions, matmuls, pooling, transposes) or
//! `linalg.generic`s (elementwise with broadcasting, reductions, softmax, normalisations),
//! plus `tensor` ops for reshapes, slices and padding, all on tensors. Bufferization
//! (upstream one-shot) then gives each result its own buffer and turns reshapes and slices into
//! memref views.
//!
//! The kernels are written by small builders ([`kernel`]) that produce MLIR text, so each
//! lowering reads like the IR it makes; [`ops`] maps each sg op to its builder.

pub mod bf16;
pub mod conv_lanes;
pub mod copy_to_linalg;
pub mod cpu_schedule;
pub mod elementwise;
pub mod fused;
pub mod gpu_map;
pub mod kernel;
pub mod layout;
pub mod minifloat;
pub mod nn;
pub mod ops;
pub mod pad_in_place;
pub mod reduce;
pub mod sg_to_linalg;

#[cfg(test)]
mod tests;

/// Registers the lowering passes.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&sg_to_linalg::INFO, sg_to_linalg::create);
    registry.register(&copy_to_linalg::INFO, copy_to_linalg::create);
    registry.register(&pad_in_place::INFO, pad_in_place::create);
    registry.register(&bf16::INFO, bf16::create);
    registry.register(&cpu_schedule::INFO, cpu_schedule::create);
    registry.register(&cpu_schedule::VECTORIZE_INFO, cpu_schedule::create_vectorize);
    registry.register(&gpu_map::INFO, gpu_map::create);
}
