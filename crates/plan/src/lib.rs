//! `strata-plan` plans buffers into memory: plain Rust over plain data (usage records with
//! sizes, alignments and half-open lifetimes), no MLIR. It offers the TFLite family of
//! shared-object strategies, greedy offset strategies, an anytime exact offset solver
//! (MiniMalloc-class) with certified gaps, lower bounds, an independent validator through
//! which every plan goes, and reports (table, JSON, SVG memory timeline). The MLIR adapter
//! (the `plan-arena` pass) lives outside this crate's core and only converts IR to
//! [`Problem`]s and back.

pub mod bounds;
pub mod dag;
pub mod exact;
mod flow;
pub mod fuzzing;
pub mod in_order;
pub mod objects;
pub mod offsets;
pub mod order;
pub mod problem;
pub mod report;
pub mod tiling;
mod time_index;
pub mod validate;

pub use dag::OpDag;
pub use exact::{Budget, ExactResult};
pub use objects::{ObjectStrategy, SharedObjects};
pub use offsets::{OffsetPlan, OffsetStrategy};
pub use problem::{Buffer, MemoryClass, Problem};
pub use report::{plan, PlanReport, Strategy};
pub use validate::Violation;

/// Errors of the planner.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    #[error("{file}:{line}: {message}")]
    Csv { file: String, line: u64, message: String },
    #[error("buffer '{id}': {message}")]
    InvalidBuffer { id: String, message: String },
    #[error("unknown strategy '{0}' (known: {known})", known = Strategy::names().join(", "))]
    UnknownStrategy(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The problem is beyond the strategy's documented size limit.
    #[error("{0}")]
    TooLarge(String),
    #[error("internal error: strategy '{strategy}' produced an invalid plan:\n{}", .violations.iter().map(|v| format!("  {}", v.0)).collect::<Vec<_>>().join("\n"))]
    InvalidPlan { strategy: String, violations: Vec<Violation> },
}

impl strata_error::HasKind for PlanError {
    fn kind(&self) -> strata_error::ErrorKind {
        use strata_error::ErrorKind;
        match self {
            PlanError::Io { .. } => ErrorKind::Io,
            PlanError::Csv { .. } | PlanError::InvalidBuffer { .. } | PlanError::UnknownStrategy(_) => {
                ErrorKind::InvalidInput
            }
            PlanError::Unsupported(_) | PlanError::TooLarge(_) => ErrorKind::Unsupported,
            PlanError::InvalidPlan { .. } => ErrorKind::Internal,
        }
    }
}

#[cfg(test)]
mod tests;
