//! `strata-egraph`: an e-graph (egg) optimiser that chooses **fusion, strided views and
//! in-place execution jointly**, by a memory-aware cost model. No MLIR here: the core works on
//! a plain [`Graph`] so it tests and benchmarks without linking MLIR.
//!
//! - [`egraph`]: the language (`in`, `const`, `kernel`, `kernel+`, `move`, `ew`, `ew!`, `view`,
//!   `contig`, `out`) and the analysis (shape, layout, storage owner, read-only, readers). An
//!   e-class is one value in one layout and storage: a view is never merged with a copy.
//! - [`rules`]: the rewrite rules (`RULES.md` says why each is sound).
//! - [`optimize`]: saturation under iteration and node budgets (the node budget is checked
//!   after every action, inside an iteration), then [`extract`].
//! - [`extract`]: DAG-aware greedy extraction on [`extract::Metrics`] (allocations, bytes
//!   allocated and copied, launches, bytes retained by views), and the in-place validator
//!   with ban-and-re-extract repair.
//! - [`interp`]: a reference interpreter for the property tests.

pub mod egraph;
pub mod extract;
pub mod graph;
pub mod interp;
pub mod layout;
pub mod optimize;
pub mod rules;

pub use extract::{Extracted, Metrics, Repairs, Step, Weights};
pub use graph::{Graph, Node, Op};
pub use optimize::{baseline, optimize, Limits, Outcome, Stop};
pub use strata_sg_kinds::{Arg, Elementwise, Program, ScalarOp};

#[cfg(test)]
mod tests;
