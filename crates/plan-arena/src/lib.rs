//! `strata-plan-arena` is the MLIR adapter of `strata-plan`: it turns the static
//! `memref.alloc`s of a function into usage records ([`analyze`]), plans them with any
//! strategy, and rewrites them into `memref.view`s of one arena argument at constant offsets
//! (the `plan-arena` pass). All planning decisions are made by `strata-plan` on plain data;
//! this crate only reads and writes IR.

pub mod analyze;
pub mod pass;
pub mod weights;

pub use analyze::{analyze, Analysis};

/// Registers the `plan-arena` and `plan-weights` passes.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&pass::INFO, pass::create);
    registry.register(&weights::INFO, weights::create);
}
