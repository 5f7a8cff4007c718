//! Typed errors of the IR layer.

use crate::diagnostics::{render_all, Diagnostic, SourceMap};
use std::fmt;

/// The broad class of an error, so callers can map it to exit codes or retry policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The user's input (IR text, pipeline string, option) is malformed.
    InvalidInput,
    /// The input is valid but asks for something Strata does not do.
    Unsupported,
    /// IR failed verification, or a pass reported failure on valid input.
    VerificationFailed,
    /// A bug or an environment problem in Strata itself.
    Internal,
}

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

    /// A pass signalled failure.
    #[error("pass '{pass}' failed\n{}", render_all(.diagnostics, &SourceMap::default()).trim_end())]
    PassFailed { pass: String, diagnostics: Vec<Diagnostic> },

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
            IrError::PassFailed { .. } | IrError::Verification { .. } => ErrorKind::VerificationFailed,
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
            IrError::PassFailed { pass, diagnostics } => {
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
