//! The manifest of a compiled artifact (`<name>.json` beside it): what the runtime needs to
//! run it without the compiler. For a host shared object: the library, its entry symbol, the
//! signature and the arena. For a GPU artifact: the PTX file, the weights blob, and every
//! kernel launch in order with its grid, block and arguments (which ABI buffer each kernel
//! parameter is).

use crate::{DType, RuntimeError, Signature, TensorSpec};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A compiled model's manifest.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// The model's name (symbols are `strata_<name>_...`).
    pub name: String,
    /// `host` or `nvptx`.
    pub target: String,
    /// The entry point (host) or empty.
    #[serde(default)]
    pub entry: String,
    /// The shared object, relative to the manifest (host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// The PTX text, relative to the manifest (nvptx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx: Option<String>,
    /// The GPU architecture the PTX was compiled for (nvptx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chip: Option<String>,
    pub inputs: Vec<TensorEntry>,
    pub outputs: Vec<TensorEntry>,
    pub arena_bytes: usize,
    pub arena_alignment: usize,
    /// The run-time checks, by the status code the entry point returns minus one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
    /// The weights blob, relative to the manifest, and its size (0 and none: no blob; a size
    /// and no file: a host library carries its blob itself).
    #[serde(default)]
    pub weights_bytes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    /// Kernel launches in order (nvptx).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernels: Vec<Launch>,
    /// The arena plan: every buffer's ONNX nodes, first writer, size, offset and lifetime
    /// (what `strata.load(...).plan` shows; informational, the code has the offsets baked in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<strata_plan::report::PlanReport>,
}

impl Manifest {
    /// A manifest for `signature`, with no files named yet.
    pub fn new(name: &str, target: &str, signature: &Signature) -> Manifest {
        Manifest {
            name: name.to_owned(),
            target: target.to_owned(),
            entry: String::new(),
            library: None,
            ptx: None,
            chip: None,
            inputs: signature.inputs.iter().map(TensorEntry::from_spec).collect(),
            outputs: signature.outputs.iter().map(TensorEntry::from_spec).collect(),
            arena_bytes: signature.arena_bytes,
            arena_alignment: signature.arena_alignment,
            checks: signature.checks.clone(),
            weights_bytes: 0,
            weights: None,
            kernels: Vec::new(),
            plan: None,
        }
    }
}

/// The files of an artifact: `<dir>/<stem>.<ext>` plus `<stem>.json` (and
/// `<stem>.weights.bin`, `<stem>.h`).
pub struct ArtifactPaths {
    pub main: PathBuf,
    pub manifest: PathBuf,
    pub weights: PathBuf,
    pub header: PathBuf,
}

impl ArtifactPaths {
    pub fn for_output(main: &Path) -> ArtifactPaths {
        let stem = main.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let stem = stem.strip_prefix("lib").filter(|_| main.extension().is_some_and(|e| e == "so")).unwrap_or(stem);
        let beside = |suffix: &str| main.with_file_name(format!("{stem}{suffix}"));
        ArtifactPaths {
            main: main.to_path_buf(),
            manifest: beside(".json"),
            weights: beside(".weights.bin"),
            header: beside(".h"),
        }
    }
}

/// The file name of `path`, as a manifest names files beside it.
pub fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// One input or output: name, element type (`float32`, `int64`, `bool`, ...), shape.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TensorEntry {
    pub name: String,
    pub dtype: String,
    pub shape: Vec<usize>,
}

/// One kernel launch.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Launch {
    /// The kernel's PTX entry name.
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Its parameters, each a base pointer of the ABI.
    pub args: Vec<KernelArg>,
}

/// Which ABI buffer a kernel parameter points to.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum KernelArg {
    Arena,
    Weights,
    Input(usize),
    Output(usize),
    /// The run-time checks' `i32` status (see [`Manifest::checks`]).
    Status,
}

impl TensorEntry {
    pub fn from_spec(spec: &TensorSpec) -> TensorEntry {
        TensorEntry { name: spec.name.clone(), dtype: spec.dtype.to_string(), shape: spec.shape.clone() }
    }

    fn spec(&self) -> Result<TensorSpec, RuntimeError> {
        let dtype = DType::from_name(&self.dtype)
            .ok_or_else(|| RuntimeError::Load(format!("'{}' has unknown element type '{}'", self.name, self.dtype)))?;
        Ok(TensorSpec { name: self.name.clone(), dtype, shape: self.shape.clone() })
    }
}

impl Manifest {
    /// Reads a manifest; returns it with the folder its relative paths start from.
    pub fn read(path: &Path) -> Result<(Manifest, PathBuf), RuntimeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| RuntimeError::Load(format!("cannot read {}: {e}", path.display())))?;
        let manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| RuntimeError::Load(format!("{} is not a Strata manifest: {e}", path.display())))?;
        // Validate the element types now, so a bad manifest fails at load.
        for entry in manifest.inputs.iter().chain(&manifest.outputs) {
            entry.spec()?;
        }
        Ok((manifest, path.parent().map_or_else(PathBuf::new, Path::to_path_buf)))
    }

    /// Writes the manifest as pretty JSON, atomically.
    pub fn write(&self, path: &Path) -> Result<(), RuntimeError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| RuntimeError::Data(e.to_string()))?;
        crate::files::write_atomic(path, (text + "\n").as_bytes())
            .map_err(|e| RuntimeError::Data(format!("cannot write {}: {e}", path.display())))
    }

    /// The signature (inputs, outputs, arena) the manifest describes.
    pub fn signature(&self) -> Signature {
        Signature {
            inputs: self.inputs.iter().map(|e| e.spec().expect("validated by read")).collect(),
            outputs: self.outputs.iter().map(|e| e.spec().expect("validated by read")).collect(),
            arena_bytes: self.arena_bytes,
            arena_alignment: self.arena_alignment,
            checks: self.checks.clone(),
        }
    }

    /// The weights blob (empty when the artifact has none), checked against its size.
    pub fn read_weights(&self, dir: &Path) -> Result<Vec<u8>, RuntimeError> {
        let Some(file) = &self.weights else { return Ok(Vec::new()) };
        let path = dir.join(file);
        let bytes = std::fs::read(&path)
            .map_err(|e| RuntimeError::Load(format!("cannot read the weights {}: {e}", path.display())))?;
        if bytes.len() != self.weights_bytes {
            return Err(RuntimeError::Load(format!(
                "{} has {} bytes, the manifest says {}",
                path.display(),
                bytes.len(),
                self.weights_bytes
            )));
        }
        Ok(bytes)
    }
}
