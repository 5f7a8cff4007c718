//! Named pipelines: a name that stands for a list of passes inside `builtin.module(...)`.
//!
//! A named pipeline may appear wherever a pass may appear directly under `builtin.module`:
//! `builtin.module(sg-verify,strata-bufferize,strata-lower-to-llvm)`. The pass manager splices
//! its passes in place, so timing, IR printing and verification see each pass. Each crate
//! registers the named pipelines made of its passes (`PassRegistry::register_pipeline`); this
//! crate names none.

/// A named pipeline.
#[derive(Clone, Copy, Debug)]
pub struct NamedPipeline {
    pub name: &'static str,
    pub summary: &'static str,
    /// The passes, written as the inside of `builtin.module(...)`.
    pub passes: &'static str,
}
