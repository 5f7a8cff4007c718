//! Import errors: each names the node (index, name, op type) or the input concerned, and has a
//! kind (`strata_ir::ErrorKind`): a malformed model, something Strata does not import, or a
//! bug of the importer.

use std::collections::BTreeMap;
use strata_ir::{Error, ErrorKind, HasKind, Location};

#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    #[error("{file}: not a valid ONNX model: {message}")]
    Malformed { file: String, message: String },

    #[error("{file}: {message}")]
    Opset { file: String, message: String },

    /// Every unsupported op type with the nodes that use it, in one error.
    #[error("{file}: unsupported operators (nothing was imported):\n{}", list(.ops))]
    Unsupported { file: String, ops: BTreeMap<String, Vec<String>> },

    #[error("{file}: input '{input}' has a symbolic or unknown dimension {dim}: pass its shape with --input-shape {input}=1x3x224x224 (for example)")]
    SymbolicShape { file: String, input: String, dim: String },

    #[error("{file}: node #{index} '{name}' ({op_type}): {error}")]
    Node { file: String, index: usize, name: String, op_type: String, error: Box<Error> },

    #[error("{file}: {error}")]
    Graph { file: String, error: Box<Error> },

    #[error("{file}: the imported module is invalid (an importer bug):\n{source}")]
    Invalid { file: String, source: strata_ir::IrError },
}

impl FrontendError {
    /// Whether the model is valid but uses something Strata does not import yet (a clean
    /// "unsupported" error rather than a rejection of the model or an importer bug).
    pub fn is_unsupported(&self) -> bool {
        self.kind() == ErrorKind::Unsupported
    }
}

impl HasKind for FrontendError {
    fn kind(&self) -> ErrorKind {
        match self {
            FrontendError::Malformed { .. } | FrontendError::SymbolicShape { .. } => ErrorKind::InvalidInput,
            FrontendError::Opset { .. } | FrontendError::Unsupported { .. } => ErrorKind::Unsupported,
            FrontendError::Node { error, .. } | FrontendError::Graph { error, .. } => error.kind,
            FrontendError::Invalid { .. } => ErrorKind::Internal,
        }
    }
}

/// The shared error: the node or file as its location.
impl From<FrontendError> for Error {
    fn from(error: FrontendError) -> Error {
        match error {
            FrontendError::Node { file, index, name, op_type, error } => {
                error.at(Location::Node { file, index, name, op_type })
            }
            FrontendError::Graph { file, error } => error.at(Location::File(file)),
            other => {
                let (kind, message) = (other.kind(), other.to_string());
                Error::new(kind, message)
            }
        }
    }
}

fn list(ops: &BTreeMap<String, Vec<String>>) -> String {
    ops.iter()
        .map(|(op, nodes)| {
            let shown: Vec<&str> = nodes.iter().take(5).map(String::as_str).collect();
            let more = if nodes.len() > 5 { format!(" and {} more", nodes.len() - 5) } else { String::new() };
            let advice = crate::support::advice(op).map_or(String::new(), |a| format!("\n    ({a})"));
            format!("  {op}: {} node(s): {}{more}{advice}", nodes.len(), shown.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}
