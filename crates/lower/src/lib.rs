//! `strata-lower` lowers the `sg` dialect out of the graph level: `sg-to-linalg` turns every
//! sg op into linalg named ops (convolutions, matmuls, pooling, transposes) or
//! `linalg.generic`s (elementwise with broadcasting, reductions, softmax, normalisations),
//! plus `tensor` ops for reshapes, slices and padding, all on tensors. Bufferization
//! (upstream one-shot) then gives each result its own buffer and turns reshapes and slices into
//! memref views.
//!
//! The kernels are written by small builders ([`kernel`]) that produce MLIR text, so each
//! lowering reads like the IR it makes; [`ops`] maps each sg op to its builder (one exhaustive
//! match on `SgOp`), [`fused`] writes `sg.fused` programs, [`minifloat`] the casts of the small
//! float formats, [`pads`] recognises the pads the kernels leave; `strata-fold-constant-transposes`
//! ([`fold_transposes`]) transposes constant weights at compile time. Later stages (bufferization
//! policy, the targets) reuse the builders. It never schedules, bufferizes or emits code.

pub mod elementwise;
pub mod fold_transposes;
pub mod fused;
pub mod indexing;
pub mod kernel;
pub mod layout;
pub mod minifloat;
pub mod nn;
pub mod ops;
pub mod pads;
pub mod recurrent;
pub mod reduce;
pub mod row_blocks;
pub mod sg_to_linalg;
pub mod top_k;
pub mod work;

#[cfg(test)]
mod tests;

/// Registers `sg-to-linalg` and `strata-fold-constant-transposes`.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&sg_to_linalg::INFO, sg_to_linalg::create);
    registry.register(&fold_transposes::INFO, fold_transposes::create);
}
