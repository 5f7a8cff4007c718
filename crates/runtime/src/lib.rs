//! `strata-runtime` runs compiled models, without the compiler: it links no MLIR or LLVM.
//!
//! - A [`Model`] owns host code (JIT-compiled by the driver, or a shared object loaded from
//!   its [`Manifest`]), its arena (one allocation, sized and aligned by the memory plan), its
//!   weights blob and its [`Signature`]; it checks the inputs and calls the entry point of
//!   DESIGN.md's ABI: `strata_<name>_run(weights, arena, inputs, outputs)`.
//! - With the `cuda` feature, [`cuda::CudaModel`] runs a PTX artifact: one device allocation
//!   for the arena, one for the weights, kernels launched in the manifest's order through the
//!   CUDA driver API (`libcuda` is loaded at run time, so building needs no CUDA).
//! - [`compare`] checks outputs against references with ONNX's tolerance rule.

pub mod cli;
pub mod compare;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod files;
pub mod fuzzing;
mod loader;
pub mod manifest;
pub mod tensor;

pub use compare::{compare, Comparison};
pub use files::write_atomic;
pub use manifest::{KernelArg, Launch, Manifest};
pub use tensor::{AlignedBytes, DType, Element, Tensor};

use std::path::Path;

/// Why running a model failed.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("input {index} ('{name}'): {message}")]
    Input { index: usize, name: String, message: String },
    #[error("the model takes {expected} inputs, got {found}")]
    InputCount { expected: usize, found: usize },
    #[error("{0}")]
    Data(String),
    #[error("{0}")]
    Npy(String),
    #[error("{0}")]
    Load(String),
    #[error("CUDA: {0}")]
    Cuda(String),
    /// What running needs is not on this machine: a GPU and its driver, the OpenMP runtime.
    #[error("{0}")]
    Unavailable(String),
    /// A run-time check of the compiled code failed (status `code`): the outputs are not to
    /// be used.
    #[error("the model's run-time check failed: {message} (status {code}; the outputs are not valid)")]
    Check { code: i32, message: String },
}

impl strata_error::HasKind for RuntimeError {
    fn kind(&self) -> strata_error::ErrorKind {
        use strata_error::ErrorKind;
        match self {
            RuntimeError::Input { .. }
            | RuntimeError::InputCount { .. }
            | RuntimeError::Data(_)
            | RuntimeError::Check { .. } => ErrorKind::InvalidInput,
            RuntimeError::Npy(_) | RuntimeError::Load(_) => ErrorKind::Io,
            RuntimeError::Cuda(_) => ErrorKind::Internal,
            RuntimeError::Unavailable(_) => ErrorKind::Unavailable,
        }
    }
}

/// One input or output at the ABI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

impl TensorSpec {
    /// The buffer's size in bytes; `None` past the address space.
    pub fn bytes(&self) -> Option<usize> {
        self.shape.iter().try_fold(self.dtype.size(), |n, &d| n.checked_mul(d)).filter(|&n| n <= isize::MAX as usize)
    }
}

/// What a compiled model takes and returns, and the arena it needs.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    pub inputs: Vec<TensorSpec>,
    pub outputs: Vec<TensorSpec>,
    /// Arena size in bytes (0: the model has no intermediates).
    pub arena_bytes: usize,
    pub arena_alignment: usize,
    /// The compiled code's run-time checks (out-of-range indices, integer division by zero),
    /// by status code - 1: what a non-zero status from the entry point means.
    pub checks: Vec<String>,
}

/// The C entry point of DESIGN.md's ABI: `int strata_<name>_run(weights, arena, inputs,
/// outputs)`, returning 0, or the code of the run-time check that failed (1-based, see
/// [`Signature::checks`]).
pub type EntryFn = unsafe extern "C" fn(*const u8, *mut u8, *const *const u8, *const *mut u8) -> i32;

/// A compiled, runnable host model.
pub struct Model {
    entry: EntryFn,
    signature: Signature,
    arena: AlignedBytes,
    /// The blob passed as the ABI's `weights` (null when empty).
    weights: AlignedBytes,
    // Declared last: the code `entry` points into is freed when this drops.
    _code: Box<dyn std::any::Any>,
}

impl Model {
    /// The model whose entry point is `entry`, in code that `code` keeps alive (a JIT, a
    /// loaded library). `weights` is the blob passed as the ABI's `weights` (empty when the
    /// code holds its weights itself).
    ///
    /// # Safety
    /// `entry` must be a Strata entry point compiled for exactly `signature` (and for these
    /// weights), valid while `code` lives.
    pub unsafe fn from_entry(
        entry: EntryFn,
        code: Box<dyn std::any::Any>,
        signature: Signature,
        weights: &[u8],
    ) -> Result<Model, RuntimeError> {
        let mut blob = AlignedBytes::zeroed(weights.len());
        blob.as_mut_slice().copy_from_slice(weights);
        // Safety: the caller's contract.
        unsafe { Model::from_entry_owned(entry, code, signature, blob) }
    }

    /// As [`Model::from_entry`], the blob taken as it is (no copy: a compiler's own blob,
    /// written aligned).
    ///
    /// # Safety
    /// As [`Model::from_entry`].
    pub unsafe fn from_entry_owned(
        entry: EntryFn,
        code: Box<dyn std::any::Any>,
        signature: Signature,
        weights: AlignedBytes,
    ) -> Result<Model, RuntimeError> {
        if signature.arena_alignment > 64 {
            return Err(RuntimeError::Data(format!(
                "arena alignment {} is above the runtime's 64 bytes",
                signature.arena_alignment
            )));
        }
        Ok(Model { entry, arena: AlignedBytes::zeroed(signature.arena_bytes), weights, signature, _code: code })
    }

    /// Loads a host shared object compiled by `strata compile --target=host -o lib.so`,
    /// described by its manifest (`lib.json` beside it), or given itself (its manifest read
    /// from it: [`Manifest::of_library`]).
    pub fn load(manifest: &Path) -> Result<Model, RuntimeError> {
        let (manifest, dir, library) = Manifest::read_artifact(manifest)?;
        Model::from_read(&manifest, &dir, library)
    }

    /// The model of what [`Manifest::read_artifact`] read: from the library it hashed, when it
    /// read one as its own manifest ([`Model::from_written`]), else [`Model::from_manifest`].
    pub fn from_read(manifest: &Manifest, dir: &Path, library: Option<std::fs::File>) -> Result<Model, RuntimeError> {
        match library {
            Some(library) => Model::from_written(manifest, dir, library),
            None => Model::from_manifest(manifest, dir),
        }
    }

    /// Loads the host shared object `manifest` (read from `dir`) describes, after checking
    /// it: the library's SHA-256 must be the manifest's (checked on the open file, which is
    /// then the one loaded), and the signature compiled into it (`strata_<name>_signature`)
    /// must equal the manifest's; so must the weights file's digest.
    pub fn from_manifest(manifest: &Manifest, dir: &Path) -> Result<Model, RuntimeError> {
        Model::host_library(manifest)?;
        let (file, path) = manifest.open_code(dir)?;
        Model::from_checked(manifest, dir, file, path)
    }

    /// [`Model::from_manifest`] for a library its caller has checked itself: `code` is that
    /// library (the manifest's, in `dir`), open, whose bytes the caller hashed (just written
    /// for the manifest's SHA-256, or matched to a digest of its own: the compile cache's
    /// BLAKE3). It is not read again (a 100 MB library took a quarter of a second to hash),
    /// but the object loaded must still be that file (its device and inode) and its embedded
    /// signature must equal the manifest's, as for a library checked here.
    pub fn from_written(manifest: &Manifest, dir: &Path, mut code: std::fs::File) -> Result<Model, RuntimeError> {
        let path = dir.join(Model::host_library(manifest)?);
        std::io::Seek::rewind(&mut code)
            .map_err(|e| RuntimeError::Load(format!("cannot read {}: {e}", path.display())))?;
        Model::from_checked(manifest, dir, code, path)
    }

    /// The host library `manifest` names; an error if it names none.
    fn host_library(manifest: &Manifest) -> Result<&str, RuntimeError> {
        match &manifest.library {
            Some(library) => Ok(library),
            None => Err(RuntimeError::Load(format!(
                "manifest of '{}' names no host library (is it a GPU artifact? use the CUDA runtime)",
                manifest.name
            ))),
        }
    }

    /// Loads the library at `path`, open as `file` and hashed to the manifest's digest.
    fn from_checked(
        manifest: &Manifest,
        dir: &Path,
        mut file: std::fs::File,
        path: std::path::PathBuf,
    ) -> Result<Model, RuntimeError> {
        let symbol = manifest::signature_symbol(&manifest.name);
        let digest = manifest.sha256.as_ref().map(|d| d.code.as_str()).unwrap_or_default();
        let library = loader::load_checked(&mut file, &path, digest, &symbol)?;
        drop(file);
        // Safety: a Strata library's signature symbol is a NUL-terminated array of bytes; a
        // library without one has no such symbol.
        let embedded = unsafe {
            library
                .get::<*const std::ffi::c_char>(symbol.as_bytes())
                .ok()
                .map(|address| std::ffi::CStr::from_ptr(*address))
        };
        let embedded = embedded.map(|text| text.to_str().unwrap_or("(not UTF-8)"));
        manifest.check_embedded(embedded, &path)?;
        let entry: EntryFn = unsafe {
            *library
                .get::<EntryFn>(manifest.entry.as_bytes())
                .map_err(|e| RuntimeError::Load(format!("{} has no '{}': {e}", path.display(), manifest.entry)))?
        };
        let weights = manifest.read_weights(dir)?;
        // Safety: the library was compiled with this manifest's signature (checked above).
        unsafe { Model::from_entry(entry, Box::new(library), manifest.signature(), &weights) }
    }

    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Runs the model on `inputs` (in signature order) and returns its outputs.
    pub fn run(&mut self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RuntimeError> {
        let mut outputs: Vec<Tensor> =
            self.signature.outputs.iter().map(|o| Tensor::zeros(o.dtype, &o.shape)).collect();
        self.run_into(inputs, &mut outputs)?;
        Ok(outputs)
    }

    /// Runs the model writing into `outputs` (made with [`Model::run`] or matching the
    /// signature): no allocation, for benchmarks.
    pub fn run_into(&mut self, inputs: &[Tensor], outputs: &mut [Tensor]) -> Result<(), RuntimeError> {
        self.signature.check(inputs, outputs)?;
        let input_pointers: Vec<*const u8> = inputs.iter().map(|t| t.bytes().as_ptr()).collect();
        let output_pointers: Vec<*mut u8> = outputs.iter_mut().map(|t| t.as_mut_ptr()).collect();
        let arena = self.arena.as_mut_ptr();
        // Safety: every buffer has the size the compiled code expects (checked above) and the
        // arena is the model's own, planned size.
        unsafe { self.call(arena, &input_pointers, &output_pointers) }
    }

    /// A new arena for [`Model::run_raw`]: one per concurrent call.
    pub fn new_arena(&self) -> AlignedBytes {
        AlignedBytes::zeroed(self.signature.arena_bytes)
    }

    /// Runs the model on raw buffers with a caller-owned arena, so that several threads can
    /// run one model at once, each with its own arena (the code and weights are read-only):
    /// the entry point for bindings that hand over their own memory (NumPy arrays) without a
    /// copy.
    ///
    /// # Safety
    /// `inputs[i]` must point at `signature().inputs[i]`'s bytes (dtype and shape, row-major,
    /// aligned to its element) and stay unchanged during the call; `outputs[i]` likewise,
    /// writable, aliasing nothing else. `arena` must come from [`Model::new_arena`] of this
    /// model and not be in use by another call.
    pub unsafe fn run_raw(
        &self,
        arena: &mut AlignedBytes,
        inputs: &[*const u8],
        outputs: &[*mut u8],
    ) -> Result<(), RuntimeError> {
        if inputs.len() != self.signature.inputs.len() {
            return Err(RuntimeError::InputCount { expected: self.signature.inputs.len(), found: inputs.len() });
        }
        if outputs.len() != self.signature.outputs.len() || arena.len() != self.signature.arena_bytes {
            return Err(RuntimeError::Data("output buffers or arena do not match the model".into()));
        }
        // Safety: the caller's contract.
        unsafe { self.call(arena.as_mut_ptr(), inputs, outputs) }
    }

    /// Calls the entry point; a non-zero status is the failed check's error.
    ///
    /// # Safety
    /// As [`Model::run_raw`]; `arena` points at `signature().arena_bytes` bytes.
    unsafe fn call(&self, arena: *mut u8, inputs: &[*const u8], outputs: &[*mut u8]) -> Result<(), RuntimeError> {
        let weights = if self.weights.is_empty() { std::ptr::null() } else { self.weights.as_slice().as_ptr() };
        // Safety: the caller's contract; the code only touches these buffers.
        let status = unsafe { (self.entry)(weights, arena, inputs.as_ptr(), outputs.as_ptr()) };
        self.signature.status(status)
    }
}

// Safety: the model's code and weights are read-only after loading; the only state a run
// writes is the arena (`&mut self`, or the caller's own with `run_raw`) and the outputs (and,
// compiled with `--profile`, its cycle counters: those runs are single-threaded by
// `strata run`). The loaded code (a JIT or a library) is owned data without thread affinity.
unsafe impl Send for Model {}
unsafe impl Sync for Model {}

/// The status of a model compiled to use AMX tiles (quantized products on a host with them)
/// run where Linux does not grant the tiles' state (`arch_prctl(ARCH_REQ_XCOMP_PERM)`): another
/// machine, or a kernel without AMX support. Nothing ran.
pub const TILES_REFUSED: i32 = -18;

impl Signature {
    /// The entry point's status as a result: 0 is success, a check's code its error.
    pub fn status(&self, status: i32) -> Result<(), RuntimeError> {
        if status == 0 {
            return Ok(());
        }
        if status == TILES_REFUSED {
            let message = "the model was compiled to use AMX tiles and this machine's kernel does not grant them \
                           (compile it on this machine, or with `--disable amx-tiles`)";
            return Err(RuntimeError::Check { code: status, message: message.into() });
        }
        let message = usize::try_from(status - 1)
            .ok()
            .and_then(|k| self.checks.get(k))
            .cloned()
            .unwrap_or_else(|| format!("unknown status {status} (the model has {} checks)", self.checks.len()));
        Err(RuntimeError::Check { code: status, message })
    }

    /// Checks `inputs` and `outputs` against the signature (count, dtype, shape).
    pub fn check(&self, inputs: &[Tensor], outputs: &[Tensor]) -> Result<(), RuntimeError> {
        if inputs.len() != self.inputs.len() {
            return Err(RuntimeError::InputCount { expected: self.inputs.len(), found: inputs.len() });
        }
        for (index, (tensor, spec)) in inputs.iter().zip(&self.inputs).enumerate() {
            if tensor.dtype() != spec.dtype || tensor.shape() != spec.shape.as_slice() {
                return Err(RuntimeError::Input {
                    index,
                    name: spec.name.clone(),
                    message: format!(
                        "expected {} {:?}, got {} {:?}",
                        spec.dtype,
                        spec.shape,
                        tensor.dtype(),
                        tensor.shape()
                    ),
                });
            }
        }
        if outputs.len() != self.outputs.len() {
            return Err(RuntimeError::Data(format!(
                "the model has {} outputs, {} buffers were given",
                self.outputs.len(),
                outputs.len()
            )));
        }
        for (tensor, spec) in outputs.iter().zip(&self.outputs) {
            if tensor.dtype() != spec.dtype || tensor.shape() != spec.shape.as_slice() {
                return Err(RuntimeError::Data(format!(
                    "output '{}' must be {} {:?}",
                    spec.name, spec.dtype, spec.shape
                )));
            }
        }
        Ok(())
    }
}

/// LLVM's OpenMP runtime, which the parallel kernels of a model compiled for more than one
/// thread call (`__kmpc_fork_call`); Debian's `libomp5` package.
pub const OPENMP_LIBRARY: &str = "libomp.so.5";

/// Loads the OpenMP runtime ([`OPENMP_LIBRARY`]) once; it stays loaded. A clear error where it
/// is not installed.
/// Its symbols are global (`RTLD_GLOBAL`): the JIT resolves the compiled code's calls in them.
pub fn load_openmp() -> Result<&'static libloading::os::unix::Library, RuntimeError> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    static OPENMP: std::sync::OnceLock<Result<Library, String>> = std::sync::OnceLock::new();
    // Safety: loading LLVM's OpenMP runtime runs its initialisers, which only set up its state.
    OPENMP
        .get_or_init(|| {
            unsafe { Library::open(Some(OPENMP_LIBRARY), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| {
            RuntimeError::Unavailable(format!(
                "cannot load the OpenMP runtime that parallel kernels call ({e}): install Debian's libomp5 \
                 (`cargo xtask setup` does), or compile with --threads 1"
            ))
        })
}

/// Environment variables through which a user places OpenMP's threads.
const OPENMP_PLACEMENT: &[&str] = &["OMP_PROC_BIND", "OMP_PLACES", "KMP_AFFINITY", "GOMP_CPU_AFFINITY"];

/// Binds OpenMP's threads to cores (`OMP_PROC_BIND=true`) unless the user placed them. Left
/// to the OS, libomp's spinning worker sometimes shared a core with the thread that waits for
/// it: on this project's 2-core machine the same run took 0.47 ms or 1.6 ms (CRNN, 2 threads),
/// at random per process; bound, 0.47 ms every time. For programs (`strata`, `strata-exec`):
/// call first thing in `main`, before any thread starts and before libomp reads its
/// environment. Libraries leave their host's environment alone.
pub fn bind_openmp_threads_by_default() {
    if OPENMP_PLACEMENT.iter().all(|name| std::env::var_os(name).is_none()) {
        std::env::set_var("OMP_PROC_BIND", "true");
    }
}

/// Sets how many threads the parallel kernels of the models run from the calling thread on
/// use (`omp_set_num_threads`; by default `OMP_NUM_THREADS`, else every core).
pub fn set_threads(threads: usize) -> Result<(), RuntimeError> {
    let library = load_openmp()?;
    let threads = i32::try_from(threads.max(1)).unwrap_or(i32::MAX);
    // Safety: `omp_set_num_threads(int)` is OpenMP's C API.
    unsafe {
        let set = library
            .get::<unsafe extern "C" fn(i32)>(b"omp_set_num_threads")
            .map_err(|e| RuntimeError::Load(format!("{OPENMP_LIBRARY} has no omp_set_num_threads: {e}")))?;
        set(threads);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{AlignedBytes, Model, Signature};

    /// An entry point that reports the first weights byte it is given as its status.
    unsafe extern "C" fn first_weight(weights: *const u8, _: *mut u8, _: *const *const u8, _: *const *mut u8) -> i32 {
        if weights.is_null() {
            -1
        } else {
            // Safety: the tests give at least one byte.
            i32::from(unsafe { *weights })
        }
    }

    /// An owned blob is what the entry point reads, taken without a copy; a model without
    /// weights passes null.
    #[test]
    fn owned_weights_are_read_where_they_are() {
        let mut blob = AlignedBytes::zeroed(128);
        blob.as_mut_slice()[0] = 7;
        let at = blob.as_slice().as_ptr();
        let checks = (1..=9).map(|k| format!("check {k}")).collect();
        let signature = Signature { arena_alignment: 1, checks, ..Default::default() };
        // Safety: the entry point reads one byte of the blob, which the model keeps.
        let mut model =
            unsafe { Model::from_entry_owned(first_weight, Box::new(()), signature.clone(), blob) }.unwrap();
        assert_eq!(model.weights.as_slice().as_ptr(), at);
        let error = model.run(&[]).unwrap_err();
        assert!(matches!(error, crate::RuntimeError::Check { code: 7, .. }), "{error}");
        // Safety: as above, with no weights: the entry point sees null (status -1).
        let mut empty =
            unsafe { Model::from_entry_owned(first_weight, Box::new(()), signature, AlignedBytes::zeroed(0)) }.unwrap();
        let error = empty.run(&[]).unwrap_err();
        assert!(matches!(error, crate::RuntimeError::Check { code: -1, .. }), "{error}");
    }

    /// A model whose tiles the machine's kernel refuses reports so, and how to get around it.
    #[test]
    fn refused_tiles_say_what_to_do() {
        let signature = Signature { arena_alignment: 1, checks: vec!["check 1".into()], ..Default::default() };
        let error = signature.status(crate::TILES_REFUSED).unwrap_err().to_string();
        assert!(error.contains("AMX tiles") && error.contains("--disable amx-tiles"), "{error}");
    }
}
