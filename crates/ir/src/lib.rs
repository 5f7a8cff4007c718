//! `strata-ir` is Strata's foundation over MLIR: it makes a ready [`StrataContext`] (every
//! upstream dialect, translation and pass registered; Strata's IRDL dialects loaded),
//! captures MLIR's diagnostics into typed Rust values ([`Diagnostic`], [`IrError`]) instead of
//! printing them, and runs textual pass pipelines that mix upstream MLIR passes and Rust
//! passes ([`PassManager`]). It knows no particular dialect: dialects plug in through
//! [`DialectDef`]. The `strata.*` attributes stages hand each other are declared in [`attrs`]
//! and checked whenever IR is verified.

pub mod attrs;
pub mod context;
pub mod diagnostics;
pub mod error;
pub mod fuzzing;
pub mod handle;
pub mod llvm;
pub mod nesting;
pub mod nodes;
pub mod ods;
pub mod pass;
pub mod pass_manager;
pub mod pipeline;
pub mod pipelines;
pub mod resource;
pub mod rewrite;
pub mod structure;
pub mod timing;
pub mod types;
pub mod weights;

#[cfg(test)]
mod tests;

pub use context::{DialectDef, StrataContext, VerifyFn};
pub use diagnostics::{render_all, Diagnostic, DiagnosticSink, Severity, SourceLoc, SourceMap};
pub use error::{Error, ErrorKind, HasKind, IrError, Location, PipelineError, Result};
pub use handle::{Blk, Op, Val};
pub use pass::{
    OptionInfo, OptionKind, Pass, PassContext, PassEntry, PassFailed, PassInfo, PassOptions, PassRegistry,
    StatisticInfo,
};
pub use pass_manager::{PassManager, PassManagerOptions, RunReport};
pub use pipeline::{Element, PassSpec, Pipeline};
pub use pipelines::NamedPipeline;
pub use timing::{render_report, TimingNode};

/// Re-exported so dialect crates and passes use the same melior.
pub use melior;
