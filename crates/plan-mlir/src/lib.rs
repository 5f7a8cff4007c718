//! `strata-plan-mlir` is the MLIR adapter of `strata-plan`: it turns the static
//! `memref.alloc`s of a function into usage records ([`analyze`]), plans them with any
//! strategy, and rewrites them into `memref.view`s of one arena argument at constant offsets
//! (the `plan-arena` pass; `plan-weights` lays out the constants the same way). All planning
//! decisions are made by `strata-plan` on plain data. It also owns the bufferization policy
//! that decides what there is to plan: the `strata-bufferize` pipeline, pads produced in place
//! (`strata-pad-in-place`), depthwise and grouped convolutions and pools that read their
//! unpadded input (`strata-conv-borders`), convolutions over a padded graph input run in bands
//! (`strata-band-input-pads`), a convolution and the pool or convolution reading it run in
//! bands together (`strata-band-chains`), a copy per repeated result (`strata-distinct-results`), a new tensor per destination (`strata-init-per-destination`), loops' reads of never-written tensors through one read-only buffer (`strata-read-only-loads`), copies as linalg (`memref-copy-to-linalg`), copies of elements onto themselves erased (`strata-erase-self-copies`), which values to produce inside
//! their destination (`strata-eliminate-reshaped-empties` for values reshaped on their way,
//! `strata-choose-in-place`, both run by `strata-bufferize-and-plan`). It never schedules,
//! and it never emits code.

pub mod analyze;
pub mod band_chains;
pub mod band_pads;
pub mod bufferize_and_plan;
pub mod choose_in_place;
pub mod concat_convs;
pub mod constants_to_globals;
pub mod conv_borders;
pub mod conv_channels;
pub mod copy_to_linalg;
pub mod distinct_results;
pub mod fused_spans;
pub mod init_per_destination;
pub mod order_insertions;
pub mod pad_in_place;
pub mod pad_rings;
pub mod pass;
pub mod read_only_loads;
pub mod reshaped_empties;
pub mod results_in_place;
pub mod self_copies;
pub mod weights;

pub use analyze::{analyze, Analysis};
use strata_ir::NamedPipeline;

/// The passes of [`BUFFERIZE_ONLY`] (a macro, so [`BUFFERIZE`] can extend the literal).
macro_rules! bufferize_passes {
    () => {
        "func.func(strata-distinct-results),strata-constants-to-globals,\
one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map},\
buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},\
func.func(buffer-loop-hoisting),canonicalize{top-down=false},func.func(strata-results-in-place)"
    };
}

/// Tensors to buffers without deallocations: a value returned twice copied, tensor constants as
/// globals (in linear time), one-shot
/// bufferization across function boundaries, results turned into caller-provided out-params
/// (also those returned through reshapes or copied out of a loop: `strata-results-in-place`).
/// What `strata-bufferize-and-plan` plans; the allocations it does not plan are freed after
/// planning (`buffer-deallocation-pipeline`), so the deallocation passes see only those:
/// upstream `buffer-deallocation-simplification` is quadratic in the allocations of a block
/// (5.4 s for a 5000-op chain's, before any was planned away).
pub const BUFFERIZE_ONLY: NamedPipeline = NamedPipeline {
    name: "strata-bufferize-only",
    summary: "Bufferize linalg-on-tensors without deallocations: repeated results copied, one-shot across functions, results as out-params",
    passes: bufferize_passes!(),
};

/// [`BUFFERIZE_ONLY`], then deallocations made explicit: tensors to buffers that run as they
/// are, without an arena.
pub const BUFFERIZE: NamedPipeline = NamedPipeline {
    name: "strata-bufferize",
    summary: "Bufferize linalg-on-tensors: repeated results copied, one-shot across functions, results as out-params, explicit deallocs",
    passes: concat!(bufferize_passes!(), ",buffer-deallocation-pipeline,canonicalize"),
};

/// Registers the planning and bufferization-policy passes and `strata-bufferize`.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&pass::INFO, pass::create);
    registry.register(&weights::INFO, weights::create);
    registry.register(&pad_in_place::INFO, pad_in_place::create);
    registry.register(&pad_rings::INFO, pad_rings::create);
    registry.register(&choose_in_place::INFO, choose_in_place::create);
    registry.register(&reshaped_empties::INFO, reshaped_empties::create);
    registry.register(&order_insertions::INFO, order_insertions::create);
    registry.register(&conv_borders::INFO, conv_borders::create);
    registry.register(&band_pads::INFO, band_pads::create);
    registry.register(&band_chains::INFO, band_chains::create);
    registry.register(&concat_convs::INFO, concat_convs::create);
    registry.register(&conv_channels::INFO, conv_channels::create);
    registry.register(&copy_to_linalg::INFO, copy_to_linalg::create);
    registry.register(&distinct_results::INFO, distinct_results::create);
    registry.register(&results_in_place::INFO, results_in_place::create);
    registry.register(&self_copies::INFO, self_copies::create);
    registry.register(&constants_to_globals::INFO, constants_to_globals::create);
    registry.register(&init_per_destination::INFO, init_per_destination::create);
    registry.register(&read_only_loads::INFO, read_only_loads::create);
    registry.register(&bufferize_and_plan::INFO, bufferize_and_plan::create);
    registry.register_pipeline(BUFFERIZE_ONLY);
    registry.register_pipeline(BUFFERIZE);
}
