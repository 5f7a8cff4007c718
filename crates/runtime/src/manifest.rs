//! The manifest of a compiled artifact (`<name>.json` beside it): what the runtime needs to
//! run it without the compiler. For a host shared object: the library, its entry symbol, the
//! signature and the arena. For a GPU artifact: the PTX file, the weights blob, and every
//! kernel launch in order with its grid, block and arguments (which ABI buffer each kernel
//! parameter is).
//!
//! A manifest is untrusted input: [`Manifest::parse`] checks every field a loader relies on
//! (names, element types, sizes that fit the address space, a power-of-two alignment, files
//! that are bare names beside it, kernel arguments that exist), and the loaders check the
//! artifact against it before running anything: the SHA-256 of the code and of the weights
//! ([`Digests`]), and the signature compiled into the code itself ([`EmbeddedSignature`]: a
//! host library exports it as `strata_<name>_signature`, PTX carries it as a comment), which
//! must equal the manifest's.

use crate::{DType, RuntimeError, Signature, TensorSpec};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
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
    /// The SHA-256 of the code and of the weights file, checked before either is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<Digests>,
}

/// SHA-256 digests (lower-case hex) of an artifact's files.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Digests {
    /// The shared object (host) or the PTX text (nvptx).
    pub code: String,
    /// The weights file, when the artifact has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
}

/// The layout of [`EmbeddedSignature`]; a loader refuses another.
pub const SIGNATURE_FORMAT: u32 = 1;

/// What the compiled code was compiled for, embedded in the code itself (compact JSON): a host
/// library exports it as the NUL-terminated `strata_<name>_signature`, a PTX file carries it
/// as its line `// strata-signature <json>`. A loader compares it with the manifest's and
/// refuses any difference, so an edited manifest cannot make the code run on buffers of
/// other sizes or with other kernel launches.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct EmbeddedSignature {
    pub format: u32,
    pub name: String,
    pub target: String,
    pub entry: String,
    pub chip: Option<String>,
    pub inputs: Vec<TensorEntry>,
    pub outputs: Vec<TensorEntry>,
    pub arena_bytes: usize,
    pub arena_alignment: usize,
    pub checks: Vec<String>,
    pub weights_bytes: usize,
    pub kernels: Vec<Launch>,
}

/// The first place where two JSON values differ: its path (`kernels[0].grid[1]`) and the
/// value on each side (`None`: absent there).
fn first_difference<'a>(
    a: &'a serde_json::Value,
    b: &'a serde_json::Value,
    path: String,
) -> Option<(String, Option<&'a serde_json::Value>, Option<&'a serde_json::Value>)> {
    use serde_json::Value;
    let join = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.keys().chain(y.keys()).find_map(|key| match (x.get(key), y.get(key)) {
                (Some(u), Some(v)) => first_difference(u, v, join(key)),
                (u, v) => Some((join(key), u, v)),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (u, v))| first_difference(u, v, format!("{path}[{i}]")))
        }
        _ => (a != b).then(|| (if path.is_empty() { "signature".into() } else { path }, Some(a), Some(b))),
    }
}

/// The symbol of the signature a host library exports.
pub fn signature_symbol(name: &str) -> String {
    format!("strata_{name}_signature")
}

/// The PTX comment line that carries the embedded signature.
const PTX_SIGNATURE: &str = "// strata-signature ";

/// `ptx` with `signature` appended as its comment line.
pub fn ptx_with_signature(ptx: &str, signature: &EmbeddedSignature) -> String {
    let mut text = ptx.trim_end().to_owned();
    text.push('\n');
    text.push_str(PTX_SIGNATURE);
    text.push_str(&signature.to_json());
    text.push('\n');
    text
}

/// The signature a PTX text carries (its last signature line), if any.
pub fn ptx_signature(ptx: &str) -> Option<&str> {
    ptx.lines().rev().find_map(|line| line.strip_prefix(PTX_SIGNATURE))
}

impl EmbeddedSignature {
    /// Compact JSON: one line, no NUL (JSON escapes control characters).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a signature serialises")
    }
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
            sha256: None,
        }
    }

    /// The signature the code must carry for this manifest.
    pub fn embedded(&self) -> EmbeddedSignature {
        EmbeddedSignature {
            format: SIGNATURE_FORMAT,
            name: self.name.clone(),
            target: self.target.clone(),
            entry: self.entry.clone(),
            chip: self.chip.clone(),
            inputs: self.inputs.clone(),
            outputs: self.outputs.clone(),
            arena_bytes: self.arena_bytes,
            arena_alignment: self.arena_alignment,
            checks: self.checks.clone(),
            weights_bytes: self.weights_bytes,
            kernels: self.kernels.clone(),
        }
    }

    /// Checks the signature `text` found in the code at `code` against the manifest's: an
    /// error names the first field that differs, with both values.
    pub fn check_embedded(&self, text: Option<&str>, code: &Path) -> Result<(), RuntimeError> {
        let refuse = |why: String| {
            RuntimeError::Load(format!(
                "{} does not match its manifest: {why}; the manifest was edited or belongs to another \
                 build: recompile the model (or restore the manifest strata wrote)",
                code.display()
            ))
        };
        let text = text.ok_or_else(|| refuse("the code carries no Strata signature".into()))?;
        let found: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| refuse(format!("its embedded signature is not valid JSON ({e})")))?;
        let expected = serde_json::to_value(self.embedded()).expect("a signature serialises");
        if found.get("format") != expected.get("format") {
            return Err(refuse(format!(
                "signature format {} (this runtime reads {SIGNATURE_FORMAT})",
                found.get("format").map_or_else(|| "missing".into(), ToString::to_string)
            )));
        }
        if let Some((path, expected, found)) = first_difference(&expected, &found, String::new()) {
            let shorten = |v: Option<&serde_json::Value>| {
                let text = v.map_or_else(|| "nothing".into(), ToString::to_string);
                if text.len() > 120 {
                    format!("{}...", &text[..text.floor_char_boundary(117)])
                } else {
                    text
                }
            };
            return Err(refuse(format!(
                "'{path}': the manifest says {}, the code was compiled for {}",
                shorten(expected),
                shorten(found)
            )));
        }
        Ok(())
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
        // `libm.so` -> `m.json`; `lib.so` keeps its stem (not a hidden `.json`).
        let stem = stem
            .strip_prefix("lib")
            .filter(|rest| !rest.is_empty() && main.extension().is_some_and(|e| e == "so"))
            .unwrap_or(stem);
        let beside = |suffix: &str| main.with_file_name(format!("{stem}{suffix}"));
        ArtifactPaths {
            main: main.to_path_buf(),
            manifest: beside(".json"),
            weights: beside(".weights.bin"),
            header: beside(".h"),
        }
    }

    /// Why these files would overwrite each other (`-o m.json` names the library after its
    /// own manifest), if they would.
    pub fn collision(&self) -> Option<String> {
        let clash = [&self.manifest, &self.weights, &self.header].into_iter().find(|p| **p == self.main)?;
        Some(format!(
            "{} would be overwritten by its own {}: name the artifact `*.so` (host) or `*.ptx` (GPU)",
            self.main.display(),
            if *clash == self.manifest {
                "manifest"
            } else if *clash == self.header {
                "header"
            } else {
                "weights"
            }
        ))
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

/// The largest manifest read (a big model's plan makes it a few MiB).
const MAX_MANIFEST_BYTES: u64 = 256 << 20;

/// The largest kernel block the runtime launches (CUDA's limit on threads per block).
const MAX_BLOCK_THREADS: u64 = 1024;

impl Manifest {
    /// Reads and checks a manifest ([`Manifest::parse`]); returns it with the folder its files
    /// are in. A host library given instead is read as its manifest ([`Manifest::of_library`]).
    pub fn read(path: &Path) -> Result<(Manifest, PathBuf), RuntimeError> {
        Manifest::read_artifact(path).map(|(manifest, dir, _)| (manifest, dir))
    }

    /// [`Manifest::read`], and when `path` is a host library (its own manifest), that library
    /// open as it was hashed for the manifest's digest, for a loader not to read it again
    /// (`Model::from_read`).
    pub fn read_artifact(path: &Path) -> Result<(Manifest, PathBuf, Option<std::fs::File>), RuntimeError> {
        let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        let (file, _) = open_regular(path, true)?;
        let mut bytes = Vec::new();
        let mut reader = std::io::Read::take(file, MAX_MANIFEST_BYTES + 1);
        let unreadable = |e: std::io::Error| RuntimeError::Load(format!("cannot read {}: {e}", path.display()));
        // The artifact itself instead of its manifest (a shared object is no text): told from
        // its first bytes, before reading the rest.
        std::io::Read::read_to_end(&mut std::io::Read::take(&mut reader, 4), &mut bytes).map_err(unreadable)?;
        if bytes.starts_with(b"\x7fELF") {
            drop(reader);
            let (manifest, library) = Manifest::of_library(path)?;
            return Ok((manifest, dir, Some(library)));
        }
        std::io::Read::read_to_end(&mut reader, &mut bytes).map_err(unreadable)?;
        if bytes.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(RuntimeError::Load(format!(
                "{} is larger than {} MiB: not a Strata manifest",
                path.display(),
                MAX_MANIFEST_BYTES >> 20
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| RuntimeError::Load(format!("{} is not a Strata manifest (not UTF-8 text)", path.display())))?;
        let manifest = Manifest::parse(&text).map_err(|e| RuntimeError::Load(format!("{}: {e}", path.display())))?;
        Ok((manifest, dir, None))
    }

    /// The manifest of the host library at `path` read from the library itself: the signature
    /// it exports (`strata_<name>_signature`, the one exported symbol of that form), naming the
    /// library by its file name, with its SHA-256 (so a loader checks it like any other), and
    /// the library open as hashed. A library needs no manifest: it carries its weights and its
    /// signature.
    pub fn of_library(path: &Path) -> Result<(Manifest, std::fs::File), RuntimeError> {
        let refuse = |why: String| RuntimeError::Load(format!("{}: {why}", path.display()));
        let (mut file, _) = open_regular(path, true)?;
        let code = sha256_of(&mut file).map_err(|e| refuse(format!("cannot read it: {e}")))?;
        // Only the headers, the symbol tables and the signature's bytes are read.
        let cache = object::ReadCache::new(file);
        let embedded = Manifest::embedded_in(&cache, path)?;
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let manifest = Manifest {
            name: embedded.name,
            target: embedded.target,
            entry: embedded.entry,
            library: Some(file_name),
            ptx: None,
            chip: embedded.chip,
            inputs: embedded.inputs,
            outputs: embedded.outputs,
            arena_bytes: embedded.arena_bytes,
            arena_alignment: embedded.arena_alignment,
            checks: embedded.checks,
            weights_bytes: embedded.weights_bytes,
            weights: None,
            kernels: embedded.kernels,
            plan: None,
            sha256: Some(Digests { code, weights: None }),
        };
        manifest.validate().map_err(|e| {
            refuse(format!(
                "its signature '{}' is not one this runtime can load: {e}",
                signature_symbol(&manifest.name)
            ))
        })?;
        Ok((manifest, cache.into_inner()))
    }

    /// The signature the host library read through `cache` (at `path`) exports as its one
    /// `strata_<name>_signature`, checked to be this runtime's format and to name the model
    /// its symbol does.
    fn embedded_in(cache: &object::ReadCache<std::fs::File>, path: &Path) -> Result<EmbeddedSignature, RuntimeError> {
        use object::{Object, ObjectSection, ObjectSymbol, ReadRef};
        let refuse = |why: String| RuntimeError::Load(format!("{}: {why}", path.display()));
        let elf = object::File::parse(cache)
            .map_err(|e| refuse(format!("not a shared object this runtime can read ({e})")))?;
        let signatures: Vec<(&str, object::Symbol<'_, '_, _>)> = elf
            .dynamic_symbols()
            .filter(|s| s.is_definition())
            .filter_map(|s| Some((s.name().ok()?.strip_prefix("strata_")?.strip_suffix("_signature")?, s)))
            .collect();
        let (name, symbol) =
            match signatures.as_slice() {
                [(name, symbol)] => (*name, symbol),
                [] => return Err(refuse(
                    "not a Strata library: it exports no 'strata_<name>_signature' (write one with `strata compile \
                     model.onnx -o lib.so`)"
                        .into(),
                )),
                several => {
                    let mut names: Vec<String> = several.iter().map(|(n, _)| signature_symbol(n)).collect();
                    names.sort();
                    return Err(refuse(format!(
                        "exports several model signatures ({}): load it through the manifest of the one to run",
                        names.join(", ")
                    )));
                }
            };
        let damaged = |why: &str| refuse(format!("its signature '{}' {why}", signature_symbol(name)));
        let section = symbol
            .section_index()
            .and_then(|index| elf.section_by_index(index).ok())
            .ok_or_else(|| damaged("is in no section"))?;
        let (section_offset, section_size) =
            section.file_range().ok_or_else(|| damaged("is in a section without bytes in the file"))?;
        let start = symbol.address().checked_sub(section.address()).filter(|&s| s < section_size);
        let start = start.ok_or_else(|| damaged("lies outside its section"))?;
        let size = symbol.size().min(section_size - start).min(MAX_MANIFEST_BYTES);
        let bytes =
            cache.read_bytes_at(section_offset + start, size).map_err(|()| damaged("cannot be read from the file"))?;
        let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
        let text = std::str::from_utf8(text).map_err(|_| damaged("is not UTF-8 text"))?;
        let embedded: EmbeddedSignature =
            serde_json::from_str(text).map_err(|e| damaged(&format!("does not parse ({e})")))?;
        if embedded.format != SIGNATURE_FORMAT {
            return Err(damaged(&format!("has format {} (this runtime reads {SIGNATURE_FORMAT})", embedded.format)));
        }
        if embedded.name != name || embedded.target != "host" {
            return Err(damaged(&format!(
                "describes the {} model '{}', not this host library's '{name}'",
                embedded.target, embedded.name
            )));
        }
        Ok(embedded)
    }

    /// Parses manifest text and checks what a loader relies on: a symbol-safe name, a known
    /// target with its file, files named by bare names (no folder, no `..`), known element
    /// types, buffer sizes that fit the address space, a power-of-two arena alignment of at
    /// most 64, the entry point `strata_<name>_run`, well-formed digests, and kernels whose
    /// launch sizes are valid and whose arguments exist. The error says what is wrong.
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let manifest: Manifest = serde_json::from_str(text).map_err(|e| format!("not a Strata manifest: {e}"))?;
        manifest.validate()?;
        Ok(manifest)
    }

    fn validate(&self) -> Result<(), String> {
        if self.name.is_empty() || !self.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("model name {:?} is not made of letters, digits and '_'", self.name));
        }
        let (code, field) = match self.target.as_str() {
            "host" => (&self.library, "library"),
            "nvptx" => (&self.ptx, "ptx"),
            other => return Err(format!("unknown target '{other}' (host or nvptx)")),
        };
        if code.is_none() {
            return Err(format!("a {} artifact names its code in '{field}', which is missing", self.target));
        }
        for (field, file) in [("library", &self.library), ("ptx", &self.ptx), ("weights", &self.weights)] {
            if let Some(file) = file {
                bare_name(file).map_err(|why| format!("'{field}' {file:?} {why}"))?;
            }
        }
        let entry = format!("strata_{}_run", self.name);
        if self.target == "host" && self.entry != entry {
            return Err(format!("entry point {:?} is not the model's '{entry}'", self.entry));
        }
        for (kind, list) in [("input", &self.inputs), ("output", &self.outputs)] {
            for entry in list {
                let spec = entry.spec().map_err(|e| e.to_string())?;
                spec.bytes().ok_or_else(|| {
                    format!("{kind} '{}' of shape {:?} is larger than the address space", entry.name, entry.shape)
                })?;
            }
        }
        let limit = isize::MAX as usize;
        if self.arena_bytes > limit || self.weights_bytes > limit {
            return Err(format!(
                "arena ({} bytes) or weights ({} bytes) larger than the address space",
                self.arena_bytes, self.weights_bytes
            ));
        }
        if self.arena_alignment > 64 || (self.arena_alignment != 0 && !self.arena_alignment.is_power_of_two()) {
            return Err(format!(
                "arena alignment {} is not a power of two of at most 64 bytes (the runtime's)",
                self.arena_alignment
            ));
        }
        if self.weights.is_some() && self.weights_bytes == 0 {
            return Err("names a weights file of 0 bytes".into());
        }
        match &self.sha256 {
            None => {
                return Err("has no content digests ('sha256'): it was written by an older Strata; recompile the \
                            model"
                    .into())
            }
            Some(digests) => {
                for (what, digest) in [("code", Some(&digests.code)), ("weights", digests.weights.as_ref())] {
                    if let Some(digest) = digest {
                        if digest.len() != 64 || !digest.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                            return Err(format!("the {what} digest {digest:?} is not a SHA-256 in hex"));
                        }
                    }
                }
                if self.weights.is_some() != digests.weights.is_some() {
                    return Err("a weights file and its digest come together".into());
                }
            }
        }
        for launch in &self.kernels {
            if launch.kernel.is_empty() || launch.kernel.contains('\0') {
                return Err(format!("kernel name {:?} is empty or has a NUL byte", launch.kernel));
            }
            let threads = launch.block.iter().map(|&b| u64::from(b)).product::<u64>();
            if launch.grid.contains(&0) || launch.block.contains(&0) || threads > MAX_BLOCK_THREADS {
                return Err(format!(
                    "kernel '{}' has grid {:?} and block {:?}: every size must be at least 1, with at most \
                     {MAX_BLOCK_THREADS} threads per block",
                    launch.kernel, launch.grid, launch.block
                ));
            }
            for arg in &launch.args {
                let valid = match *arg {
                    KernelArg::Input(i) => i < self.inputs.len(),
                    KernelArg::Output(i) => i < self.outputs.len(),
                    KernelArg::Arena | KernelArg::Weights => true,
                    KernelArg::Status => !self.checks.is_empty(),
                };
                if !valid {
                    return Err(format!("kernel '{}' takes {arg:?}, which the model does not have", launch.kernel));
                }
            }
        }
        Ok(())
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

    /// The code file (library or PTX) in `dir`, opened, with its path, after checking that its
    /// SHA-256 is the manifest's. The open file is the one checked: a loader reads it (PTX) or
    /// makes sure the library it loads is this file (`loader`).
    pub fn open_code(&self, dir: &Path) -> Result<(std::fs::File, PathBuf), RuntimeError> {
        let file = self
            .library
            .as_ref()
            .or(self.ptx.as_ref())
            .ok_or_else(|| RuntimeError::Load(format!("the manifest of '{}' names no code", self.name)))?;
        let path = dir.join(file);
        let (mut opened, _) = open_regular(&path, false)?;
        let digest =
            sha256_of(&mut opened).map_err(|e| RuntimeError::Load(format!("cannot read {}: {e}", path.display())))?;
        let expected = self.sha256.as_ref().map(|d| d.code.as_str()).unwrap_or_default();
        if digest != expected {
            return Err(changed(&path, expected, &digest));
        }
        std::io::Seek::rewind(&mut opened)
            .map_err(|e| RuntimeError::Load(format!("cannot read {}: {e}", path.display())))?;
        Ok((opened, path))
    }

    /// The weights blob (empty when the artifact has none), checked against its size and
    /// digest.
    pub fn read_weights(&self, dir: &Path) -> Result<Vec<u8>, RuntimeError> {
        let Some(file) = &self.weights else { return Ok(Vec::new()) };
        let path = dir.join(file);
        let (opened, size) = open_regular(&path, false)?;
        if size != self.weights_bytes as u64 {
            return Err(RuntimeError::Load(format!(
                "{} has {size} bytes, the manifest says {}",
                path.display(),
                self.weights_bytes
            )));
        }
        let mut bytes = Vec::with_capacity(self.weights_bytes);
        std::io::Read::read_to_end(&mut std::io::Read::take(opened, size), &mut bytes)
            .map_err(|e| RuntimeError::Load(format!("cannot read the weights {}: {e}", path.display())))?;
        let digest = sha256_hex(&bytes);
        let expected = self.sha256.as_ref().and_then(|d| d.weights.as_deref()).unwrap_or_default();
        if bytes.len() != self.weights_bytes || digest != expected {
            return Err(changed(&path, expected, &digest));
        }
        Ok(bytes)
    }
}

/// Why a file does not match its digest.
fn changed(path: &Path, expected: &str, found: &str) -> RuntimeError {
    RuntimeError::Load(format!(
        "{} has SHA-256 {found}, its manifest says {expected}: the file changed after compiling (corrupt, \
         edited or from another build); recompile the model",
        path.display()
    ))
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of a digest.
pub(crate) fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Lower-case hex SHA-256 of what `reader` yields.
pub fn sha256_of(reader: &mut impl std::io::Read) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return Ok(hex(&hasher.finalize())),
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Whether `file` is a bare file name: one normal path component (no folder, `..`, root or
/// NUL byte).
fn bare_name(file: &str) -> Result<(), &'static str> {
    let mut components = Path::new(file).components();
    match (components.next(), components.next()) {
        (Some(std::path::Component::Normal(_)), None) if !file.contains(['/', '\0']) => Ok(()),
        _ => Err("must be a file name beside the manifest (no folder, no '..')"),
    }
}

/// Opens `path` for reading if it is a regular file (a FIFO or device is refused without
/// blocking) and, unless `follow`, not a symbolic link; returns it with its size.
pub fn open_regular(path: &Path, follow: bool) -> Result<(std::fs::File, u64), RuntimeError> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = if follow { libc::O_NONBLOCK } else { libc::O_NOFOLLOW | libc::O_NONBLOCK };
    let file = std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path).map_err(|e| {
        let why = if e.raw_os_error() == Some(libc::ELOOP) { "it is a symbolic link".into() } else { e.to_string() };
        RuntimeError::Load(format!("cannot read {}: {why}", path.display()))
    })?;
    let meta = file.metadata().map_err(|e| RuntimeError::Load(format!("cannot read {}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(RuntimeError::Load(format!("{} is not a regular file", path.display())));
    }
    Ok((file, meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> serde_json::Value {
        serde_json::json!({
            "name": "m", "target": "host", "entry": "strata_m_run", "library": "libm.so",
            "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 3]}],
            "outputs": [{"name": "y", "dtype": "int64", "shape": [2]}],
            "arena_bytes": 128, "arena_alignment": 64, "checks": ["node #0 (Gather): index"],
            "sha256": {"code": "0".repeat(64)},
        })
    }

    fn parse_with(edit: impl FnOnce(&mut serde_json::Value)) -> Result<Manifest, String> {
        let mut value = manifest();
        edit(&mut value);
        Manifest::parse(&value.to_string())
    }

    #[test]
    fn artifact_files_sit_beside_the_library() {
        let paths = ArtifactPaths::for_output(Path::new("out/libm.so"));
        assert_eq!(paths.manifest, Path::new("out/m.json"));
        assert_eq!(paths.header, Path::new("out/m.h"));
        // Nothing after `lib`: the stem stays (not a hidden `.json`).
        assert_eq!(ArtifactPaths::for_output(Path::new("out/lib.so")).manifest, Path::new("out/lib.json"));
        assert_eq!(ArtifactPaths::for_output(Path::new("m.ptx")).weights, Path::new("m.weights.bin"));
    }

    #[test]
    fn a_well_formed_manifest_parses() {
        let parsed = parse_with(|_| {}).unwrap();
        assert_eq!(parsed.signature().inputs[0].bytes(), Some(24));
    }

    #[test]
    fn every_field_a_loader_relies_on_is_checked() {
        type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
        let cases: Vec<(&str, Edit)> = vec![
            ("not made of letters", Box::new(|m| m["name"] = "a/b".into())),
            ("unknown target 'gpu'", Box::new(|m| m["target"] = "gpu".into())),
            ("'library', which is missing", Box::new(|m| m["library"] = serde_json::Value::Null)),
            ("must be a file name beside the manifest", Box::new(|m| m["library"] = "../x.so".into())),
            ("must be a file name beside the manifest", Box::new(|m| m["library"] = "/lib/libc.so.6".into())),
            ("must be a file name beside the manifest", Box::new(|m| m["library"] = "..".into())),
            ("must be a file name beside the manifest", Box::new(|m| m["weights"] = "d/w.bin".into())),
            ("entry point \"abort\" is not the model's 'strata_m_run'", Box::new(|m| m["entry"] = "abort".into())),
            ("unknown element type 'float33'", Box::new(|m| m["inputs"][0]["dtype"] = "float33".into())),
            (
                "larger than the address space",
                Box::new(|m| m["outputs"][0]["shape"] = serde_json::json!([1u64 << 40, 1u64 << 40])),
            ),
            ("larger than the address space", Box::new(|m| m["arena_bytes"] = serde_json::json!(u64::MAX))),
            ("not a power of two", Box::new(|m| m["arena_alignment"] = 48.into())),
            ("not a power of two", Box::new(|m| m["arena_alignment"] = 128.into())),
            ("no content digests", Box::new(|m| m.as_object_mut().unwrap().remove("sha256").map(drop).unwrap())),
            ("not a SHA-256", Box::new(|m| m["sha256"]["code"] = "ABC".into())),
            ("names a weights file of 0 bytes", Box::new(|m| m["weights"] = "w.bin".into())),
            (
                "come together",
                Box::new(|m| {
                    m["weights"] = "w.bin".into();
                    m["weights_bytes"] = 8.into();
                }),
            ),
            ("not a Strata manifest", Box::new(|m| m["arena_bytes"] = (-1).into())),
        ];
        for (expected, edit) in cases {
            let error = parse_with(edit).expect_err(expected);
            assert!(error.contains(expected), "expected '{expected}', got: {error}");
        }
    }

    #[test]
    fn kernels_need_valid_sizes_and_existing_arguments() {
        let launch = |grid: [u32; 3], block: [u32; 3], args: serde_json::Value| {
            move |m: &mut serde_json::Value| {
                m["target"] = "nvptx".into();
                m["ptx"] = "m.ptx".into();
                m["kernels"] = serde_json::json!([{"kernel": "k", "grid": grid, "block": block, "args": args}]);
            }
        };
        parse_with(launch([1, 1, 1], [256, 1, 1], serde_json::json!(["arena", {"input": 0}, "status"]))).unwrap();
        for (grid, block, args, expected) in [
            ([0, 1, 1], [1, 1, 1], serde_json::json!([]), "at least 1"),
            ([1, 1, 1], [64, 64, 1], serde_json::json!([]), "at most 1024 threads"),
            ([1, 1, 1], [1, 1, 1], serde_json::json!([{"output": 1}]), "Output(1), which the model does not have"),
        ] {
            let error = parse_with(launch(grid, block, args)).unwrap_err();
            assert!(error.contains(expected), "expected '{expected}', got: {error}");
        }
    }

    #[test]
    fn the_embedded_signature_must_equal_the_manifests() {
        let parsed = parse_with(|_| {}).unwrap();
        let code = Path::new("libm.so");
        let same = parsed.embedded().to_json();
        parsed.check_embedded(Some(&same), code).unwrap();
        let mut other = parsed.embedded();
        other.inputs[0].shape[1] = 4;
        let error = parsed.check_embedded(Some(&other.to_json()), code).unwrap_err().to_string();
        assert!(error.contains("'inputs[0].shape[1]': the manifest says 3, the code was compiled for 4"), "{error}");
        let mut other = parsed.embedded();
        other.checks.clear();
        let error = parsed.check_embedded(Some(&other.to_json()), code).unwrap_err().to_string();
        assert!(error.contains("'checks': the manifest says [\"node #0 (Gather): index\"], the code"), "{error}");
        let mut other = parsed.embedded();
        other.format = 7;
        let error = parsed.check_embedded(Some(&other.to_json()), code).unwrap_err().to_string();
        assert!(error.contains("signature format 7"), "{error}");
        let error = parsed.check_embedded(None, code).unwrap_err().to_string();
        assert!(error.contains("carries no Strata signature"), "{error}");
        let error = parsed.check_embedded(Some("{"), code).unwrap_err().to_string();
        assert!(error.contains("not valid JSON"), "{error}");
    }

    #[test]
    fn ptx_carries_its_signature_on_its_last_signature_line() {
        let parsed = parse_with(|_| {}).unwrap();
        let ptx = ptx_with_signature(".version 8.0\n.target sm_80\n", &parsed.embedded());
        assert!(ptx.starts_with(".version 8.0\n.target sm_80\n// strata-signature {\"format\":1,"), "{ptx}");
        assert_eq!(ptx_signature(&ptx), Some(parsed.embedded().to_json().as_str()));
        assert_eq!(ptx_signature(".version 8.0\n"), None);
    }

    #[test]
    fn a_damaged_library_or_other_bytes_passed_as_a_manifest_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let library = dir.path().join("libm.so");
        std::fs::write(&library, b"\x7fELF\x02\x01\x01\0binary").unwrap();
        let error = Manifest::read(&library).unwrap_err().to_string();
        assert!(error.contains("libm.so: not a shared object this runtime can read"), "{error}");
        std::fs::write(&library, b"\xff\xfe").unwrap();
        let error = Manifest::read(&library).unwrap_err().to_string();
        assert!(error.contains("is not a Strata manifest (not UTF-8 text)"), "{error}");
    }

    #[test]
    fn files_are_hashed_and_refused_when_changed_or_not_regular() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("libm.so"), b"code").unwrap();
        std::fs::write(dir.path().join("w.bin"), b"weights").unwrap();
        let mut parsed = parse_with(|_| {}).unwrap();
        parsed.weights = Some("w.bin".into());
        parsed.weights_bytes = 7;
        parsed.sha256 = Some(Digests { code: sha256_hex(b"code"), weights: Some(sha256_hex(b"weights")) });
        parsed.open_code(dir.path()).unwrap();
        assert_eq!(parsed.read_weights(dir.path()).unwrap(), b"weights");
        std::fs::write(dir.path().join("w.bin"), b"Weights").unwrap();
        let error = parsed.read_weights(dir.path()).unwrap_err().to_string();
        assert!(error.contains("the file changed after compiling"), "{error}");
        std::fs::write(dir.path().join("w.bin"), b"weights!").unwrap();
        let error = parsed.read_weights(dir.path()).unwrap_err().to_string();
        assert!(error.contains("has 8 bytes, the manifest says 7"), "{error}");
        std::fs::remove_file(dir.path().join("libm.so")).unwrap();
        std::os::unix::fs::symlink("w.bin", dir.path().join("libm.so")).unwrap();
        let error = parsed.open_code(dir.path()).unwrap_err().to_string();
        assert!(error.contains("it is a symbolic link"), "{error}");
        std::fs::remove_file(dir.path().join("libm.so")).unwrap();
        std::fs::create_dir(dir.path().join("libm.so")).unwrap();
        let error = parsed.open_code(dir.path()).unwrap_err().to_string();
        assert!(error.contains("is not a regular file"), "{error}");
    }
}
