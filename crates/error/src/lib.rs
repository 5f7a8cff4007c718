//! `strata-error` is the one vocabulary of failure shared by every Strata crate: an
//! [`ErrorKind`] (is the input invalid, unsupported by Strata, or is Strata broken?), a
//! [`Location`] (an IR position, an ONNX node by index and op type, a named thing), and
//! [`Error`], which carries both with its message across crate boundaries. Crates with richer
//! errors of their own (the IR layer's diagnostics, the importer's per-node errors) implement
//! [`HasKind`] and convert into [`Error`]. The command-line tools choose their exit code from
//! the kind ([`ErrorKind::exit_code`]). It depends on nothing, so the MLIR-free crates (planner,
//! e-graph, runtime) use it too.

use std::fmt;

/// The class of a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorKind {
    /// The input (model, IR text, pipeline, option, file) is malformed or inconsistent.
    InvalidInput,
    /// The input is valid, but asks for something Strata does not do (yet).
    Unsupported,
    /// IR failed verification, or a pass reported failure on valid input.
    Verification,
    /// Reading or writing a file failed.
    Io,
    /// A bug in Strata itself.
    Internal,
    /// Something the request needs is not on this machine (a GPU or its driver, NVIDIA's
    /// libdevice, the OpenMP runtime): installed, it would work.
    Unavailable,
}

impl ErrorKind {
    /// The exit status a command-line tool ends with (sysexits.h's for internal errors, I/O and
    /// what is unavailable).
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::InvalidInput => 1,
            ErrorKind::Unsupported => 3,
            ErrorKind::Verification => 4,
            ErrorKind::Io => 74,
            ErrorKind::Internal => 70,
            ErrorKind::Unavailable => 69,
        }
    }

    /// What a message of this kind starts with (`unsupported: `, `internal error: `, or
    /// nothing).
    pub fn label(self) -> &'static str {
        match self {
            ErrorKind::Unsupported => "unsupported: ",
            ErrorKind::Internal => "internal error: ",
            _ => "",
        }
    }
}

/// Where a failure is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Location {
    #[default]
    Unknown,
    /// A file as a whole.
    File(String),
    /// A position in a text file (MLIR locations).
    Source { file: String, line: usize, col: usize },
    /// An ONNX node: its position in the graph, its name (or `OpType#index` when it has none)
    /// and its op type.
    Node { file: String, index: usize, name: String, op_type: String },
    /// A named thing (an op, an input, a tensor).
    Named(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Unknown => Ok(()),
            Location::File(file) => f.write_str(file),
            Location::Source { file, line, col } => write!(f, "{file}:{line}:{col}"),
            Location::Node { file, index, name, op_type } => write!(f, "{file}: node #{index} '{name}' ({op_type})"),
            Location::Named(name) => f.write_str(name),
        }
    }
}

/// A failure: its kind, where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub location: Location,
    /// The message, without the kind's label.
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, location: Location::Unknown, message: message.into() }
    }

    pub fn invalid_input(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidInput, message)
    }

    pub fn unsupported(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unsupported, message)
    }

    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }

    pub fn io(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Io, message)
    }

    pub fn unavailable(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unavailable, message)
    }

    /// The error of a crate's own error type, with its kind and message.
    pub fn of<E: HasKind + fmt::Display>(error: &E) -> Error {
        Error::new(error.kind(), error.to_string())
    }

    /// The same error at `location` (kept when it already has one).
    pub fn at(mut self, location: Location) -> Error {
        if self.location == Location::Unknown {
            self.location = location;
        }
        self
    }

    /// The same error with `context` before its message (`context: message`).
    pub fn context(mut self, context: impl fmt::Display) -> Error {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// The message with its kind's label (`unsupported: exp on i32 ...`), without the location.
    pub fn labelled(&self) -> String {
        format!("{}{}", self.kind.label(), self.message)
    }
}

/// `location: label message`.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Location::Unknown => f.write_str(&self.labelled()),
            _ => write!(f, "{}: {}", self.location, self.labelled()),
        }
    }
}

impl std::error::Error for Error {}

/// A message on its own is about the input (the default of helpers that return text).
impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::invalid_input(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::invalid_input(message)
    }
}

impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Error {
        Error::io(error.to_string())
    }
}

/// Errors that know their kind.
pub trait HasKind {
    fn kind(&self) -> ErrorKind;
}

impl HasKind for Error {
    fn kind(&self) -> ErrorKind {
        self.kind
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_render_location_label_and_message() {
        let node = Location::Node { file: "m.onnx".into(), index: 3, name: "Conv#3".into(), op_type: "Conv".into() };
        let e = Error::unsupported("3-D kernels with groups").at(node);
        assert_eq!(e.to_string(), "m.onnx: node #3 'Conv#3' (Conv): unsupported: 3-D kernels with groups");
        assert_eq!(e.kind.exit_code(), 3);
        let plain: Error = "shapes [2] and [3] do not broadcast".to_string().into();
        assert_eq!(
            (plain.kind, plain.to_string().as_str()),
            (ErrorKind::InvalidInput, "shapes [2] and [3] do not broadcast")
        );
        assert_eq!(Error::internal("x").context("lowering").labelled(), "internal error: lowering: x");
    }
}
