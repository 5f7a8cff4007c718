//! `strata-plan-mlir` is the MLIR adapter of `strata-plan`: it turns the static
//! `memref.alloc`s of a function into usage records ([`analyze`]), plans them with any
//! strategy, and rewrites them into `memref.view`s of one arena argument at constant offsets
//! (the `plan-arena` pass; `plan-weights` lays out the constants the same way). All planning
//! decisions are made by `strata-plan` on plain data. It also owns the bufferization policy
//! that decides what there is to plan: the `strata-bufferize` pipeline, pads produced in place
//! (`strata-pad-in-place`), a copy per repeated result (`strata-distinct-results`), one fill per destination (`strata-fill-per-destination`), copies as linalg (`memref-copy-to-linalg`), and the choice between
//! padding in place and not (`strata-bufferize-and-plan`). It never schedules,
//! and it never emits code.

pub mod analyze;
pub mod bufferize_and_plan;
pub mod copy_to_linalg;
pub mod distinct_results;
pub mod fill_per_destination;
pub mod pad_in_place;
pub mod pass;
pub mod weights;

pub use analyze::{analyze, Analysis};
use strata_ir::NamedPipeline;

/// Tensors to buffers: a value returned twice copied (`strata-distinct-results`), one-shot
/// bufferization across function boundaries, results turned into caller-provided out-params,
/// deallocations made explicit.
pub const BUFFERIZE: NamedPipeline = NamedPipeline {
    name: "strata-bufferize",
    summary: "Bufferize linalg-on-tensors: repeated results copied, one-shot across functions, results as out-params, explicit deallocs",
    passes:
        "func.func(strata-distinct-results),\
one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map},\
buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},\
func.func(buffer-loop-hoisting),buffer-deallocation-pipeline,canonicalize",
};

/// Registers the planning and bufferization-policy passes and `strata-bufferize`.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&pass::INFO, pass::create);
    registry.register(&weights::INFO, weights::create);
    registry.register(&pad_in_place::INFO, pad_in_place::create);
    registry.register(&copy_to_linalg::INFO, copy_to_linalg::create);
    registry.register(&distinct_results::INFO, distinct_results::create);
    registry.register(&fill_per_destination::INFO, fill_per_destination::create);
    registry.register(&bufferize_and_plan::INFO, bufferize_and_plan::create);
    registry.register_pipeline(BUFFERIZE);
}
