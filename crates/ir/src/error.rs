//! Typed errors of the IR layer.

use crate::diagnostics::{render_all, Diagnostic, SourceMap};
use std::fmt;

pub use strata_error::{Error, ErrorKind, HasKind, Location};

/// A position inside a textual pass pipeline (0-based byte column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    pub pipeline: String,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "invalid pass pipeline at column {}: {}", self.column + 1, self.message)?;
        writeln!(f, "  {}", self.pipeline)?;
        write!(f, "  {}^", " ".repeat(self.column))
    }
}

/// Errors of `strata-ir`.
#[derive(Debug, thiserror::Error)]
pub enum IrError {
    /// The IR text could not be parsed or failed verification while parsing.
    #[error("{}", render_all(.diagnostics, &SourceMap::default()).trim_end())]
    Parse { diagnostics: Vec<Diagnostic> },

    /// A pipeline string is malformed, names an unknown pass, or passes a bad option.
    #[error("{0}")]
    Pipeline(PipelineError),

    /// A pass signalled failure; `kind` says why (what the pass reported, else verification).
    #[error("pass '{pass}' failed\n{}", render_all(.diagnostics, &SourceMap::default()).trim_end())]
    PassFailed { pass: String, kind: ErrorKind, diagnostics: Vec<Diagnostic> },

    /// IR was invalid after a pass (or on input).
    #[error("IR failed verification after '{after}'\n{}", render_all(.diagnostics, &SourceMap::default()).trim_end())]
    Verification { after: String, diagnostics: Vec<Diagnostic> },

    /// A dialect definition could not be loaded.
    #[error("cannot load dialect '{dialect}'\n{}", render_all(.diagnostics, &SourceMap::default()).trim_end())]
    DialectLoad { dialect: String, diagnostics: Vec<Diagnostic> },

    /// Something that should not happen.
    #[error("internal error: {0}")]
    Internal(String),
}

impl IrError {
    /// The class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            IrError::Parse { .. } | IrError::Pipeline(_) => ErrorKind::InvalidInput,
            IrError::PassFailed { kind, .. } => *kind,
            IrError::Verification { .. } => ErrorKind::Verification,
            IrError::DialectLoad { .. } | IrError::Internal(_) => ErrorKind::Internal,
        }
    }

    /// The MLIR diagnostics carried by this error (empty for pipeline errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            IrError::Parse { diagnostics }
            | IrError::PassFailed { diagnostics, .. }
            | IrError::Verification { diagnostics, .. }
            | IrError::DialectLoad { diagnostics, .. } => diagnostics,
            IrError::Pipeline(_) | IrError::Internal(_) => &[],
        }
    }

    /// Renders the error with source lines quoted from `sources`.
    pub fn render(&self, sources: &SourceMap) -> String {
        match self {
            IrError::Parse { diagnostics } => render_all(diagnostics, sources),
            IrError::PassFailed { pass, diagnostics, .. } => {
                format!("{}error: pass '{pass}' failed\n", render_all(diagnostics, sources))
            }
            IrError::Verification { after, diagnostics } => {
                format!("{}error: IR failed verification after '{after}'\n", render_all(diagnostics, sources))
            }
            IrError::DialectLoad { dialect, diagnostics } => {
                format!("{}error: cannot load dialect '{dialect}'\n", render_all(diagnostics, sources))
            }
            IrError::Pipeline(e) => format!("error: {e}\n"),
            IrError::Internal(message) => format!("error: internal error: {message}\n"),
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = IrError> = std::result::Result<T, E>;

impl HasKind for IrError {
    fn kind(&self) -> ErrorKind {
        IrError::kind(self)
    }
}

/// The shared error, with the rendered diagnostics as its message (their own locations and
/// severities included).
impl From<IrError> for Error {
    fn from(error: IrError) -> Error {
        Error::new(error.kind(), error.render(&SourceMap::default()).trim_end().trim_start_matches("error: "))
    }
}
