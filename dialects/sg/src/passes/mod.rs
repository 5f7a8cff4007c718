//! The `sg` dialect's Rust passes, one per file.

pub mod accumulate_residuals;
pub mod compose_transposes;
pub mod fold_conv_affine;
pub mod fold_reshapes;
pub mod verify;

use strata_ir::PassRegistry;

/// Registers every pass of this module.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&verify::INFO, verify::create);
    registry.register(&compose_transposes::INFO, compose_transposes::create);
    registry.register(&fold_reshapes::INFO, fold_reshapes::create);
    registry.register(&fold_conv_affine::INFO, fold_conv_affine::create);
    registry.register(&accumulate_residuals::INFO, accumulate_residuals::create);
}
