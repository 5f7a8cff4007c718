//! `strata._strata`: the native half of the `strata` Python package (`python/strata/` is the
//! other half, which users import). It compiles ONNX bytes with the driver's pipeline through
//! the compile cache, loads artifacts, and runs models on NumPy arrays.
//!
//! - The GIL is released while compiling and while running.
//! - Inputs are NumPy arrays checked against the signature (dtype and shape, by name) and
//!   passed to the entry point without a copy when C-contiguous and aligned to their element
//!   (what the compiled code assumes); outputs are fresh NumPy arrays the code writes into.
//! - One compiled model serves concurrent calls: the code and weights are read-only, and every
//!   call takes an arena of its own from a pool (no lock held while running).
//! - A model always comes from a shared object (the user's compile cache, or a private one when
//!   the cache is off), so `save` copies the artifact; a model the cache could not store (no C
//!   compiler to link) runs from the JIT and cannot be saved.

use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyException, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use strata_driver::compile::{CacheUse, CommandError, CompileOptions, Target};
use strata_frontend::onnx::TensorProto;
use strata_runtime::manifest::{file_name, ArtifactPaths};
use strata_runtime::{AlignedBytes, Manifest, Model, TensorSpec};

pyo3::create_exception!(
    _strata,
    CompileError,
    PyException,
    "A model could not be compiled. Attributes: `message` (the compiler's message), `kind` \
     (`invalid-input`, `unsupported`, `verification`, `internal`, `io`), `node` (the ONNX node's \
     name or None), `node_index`, `op_type`, and `unsupported` (op type -> node names, every \
     unsupported operator at once)."
);

/// A compiled model, ready to run from any number of Python threads at once.
#[pyclass(frozen, module = "strata._strata")]
struct CompiledModel {
    model: Model,
    /// Arenas of finished calls, reused by the next ones.
    arenas: Mutex<Vec<AlignedBytes>>,
    /// Threads the parallel kernels run on (`omp_set_num_threads` before each call); `None`:
    /// OpenMP's default (`OMP_NUM_THREADS`, else every core).
    threads: Option<usize>,
    name: String,
    plan: Option<strata_plan::report::PlanReport>,
    lower_bound: Option<usize>,
    warnings: Vec<String>,
    timings: Vec<(String, f64)>,
    cache: String,
    /// The manifest of the shared object the model was loaded from (for `save`).
    manifest: Option<PathBuf>,
    /// The private cache of a `cache=False` compile: removed with the model.
    _scratch: Option<tempfile::TempDir>,
}

/// Raw pointers handed to the entry point while the GIL is released.
struct Buffers {
    inputs: Vec<*const u8>,
    outputs: Vec<*mut u8>,
}

// Safety: the pointers are only used by the call that made them, while their arrays are kept
// alive by that call's frame.
unsafe impl Send for Buffers {}

fn spec_tuple<'py>(py: Python<'py>, spec: &TensorSpec) -> PyResult<Bound<'py, PyTuple>> {
    let shape = PyTuple::new(py, &spec.shape)?;
    PyTuple::new(
        py,
        [
            spec.name.clone().into_pyobject(py)?.into_any(),
            spec.dtype.to_string().into_pyobject(py)?.into_any(),
            shape.into_any(),
        ],
    )
}

fn runtime_error(error: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(error.to_string())
}

#[pymethods]
impl CompiledModel {
    /// Runs the model on `inputs` (NumPy arrays in signature order) and returns the outputs.
    fn run<'py>(&self, py: Python<'py>, inputs: Vec<Bound<'py, PyAny>>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let signature = self.model.signature();
        if inputs.len() != signature.inputs.len() {
            return Err(PyValueError::new_err(format!(
                "{} takes {} inputs ({}), got {}",
                self.name,
                signature.inputs.len(),
                names(&signature.inputs),
                inputs.len()
            )));
        }
        let numpy = py.import("numpy")?;
        let mut held = Vec::with_capacity(inputs.len());
        let mut buffers = Buffers { inputs: Vec::new(), outputs: Vec::new() };
        for (index, (value, spec)) in inputs.iter().zip(&signature.inputs).enumerate() {
            let array = value.cast::<PyUntypedArray>().map_err(|_| {
                PyValueError::new_err(format!(
                    "input '{}' (#{index}) must be a numpy.ndarray, got {}",
                    spec.name,
                    value.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string())
                ))
            })?;
            let dtype = array.dtype().getattr("name")?.extract::<String>()?;
            let shape: Vec<usize> = array.shape().to_vec();
            if dtype != spec.dtype.to_string() || shape != spec.shape {
                return Err(PyValueError::new_err(format!(
                    "input '{}' (#{index}) must be {} {:?}, got {dtype} {shape:?}",
                    spec.name, spec.dtype, spec.shape
                )));
            }
            // A copy only where the layout is not the ABI's (C order, element-aligned).
            let requirements = PyDict::new(py);
            requirements.set_item("requirements", PyList::new(py, ["C", "A"])?)?;
            let array = numpy.call_method("require", (array,), Some(&requirements))?;
            let array = array.cast_into::<PyUntypedArray>().map_err(|e| runtime_error(e.to_string()))?;
            // Safety: a live ndarray's data pointer.
            buffers.inputs.push(unsafe { (*array.as_array_ptr()).fields.data as *const u8 });
            held.push(array);
        }
        let mut outputs = Vec::with_capacity(signature.outputs.len());
        for spec in &signature.outputs {
            let shape = PyTuple::new(py, &spec.shape)?;
            let array = numpy.call_method1("empty", (shape, spec.dtype.to_string())).map_err(|e| {
                PyValueError::new_err(format!(
                    "output '{}' has dtype {}, which NumPy cannot hold: {e}",
                    spec.name, spec.dtype
                ))
            })?;
            let array = array.cast_into::<PyUntypedArray>().map_err(|e| runtime_error(e.to_string()))?;
            // Safety: a fresh, C-contiguous, aligned, writable ndarray.
            buffers.outputs.push(unsafe { (*array.as_array_ptr()).fields.data as *mut u8 });
            outputs.push(array.into_any());
        }
        let mut arena = self.arenas.lock().map_err(runtime_error)?.pop().unwrap_or_else(|| self.model.new_arena());
        let threads = self.threads;
        let result = py.detach(|| {
            let buffers = buffers;
            if let Some(threads) = threads {
                // A model whose code uses OpenMP could only be loaded with the runtime present;
                // where it is missing, the code is sequential and the setting moot.
                let _ = strata_runtime::set_threads(threads);
            }
            // Safety: every pointer is an array of its spec's dtype and shape, C-contiguous
            // and aligned (checked or made so above), alive in this frame; the outputs are
            // fresh; the arena is this call's alone.
            unsafe { self.model.run_raw(&mut arena, &buffers.inputs, &buffers.outputs) }
        });
        self.arenas.lock().map_err(runtime_error)?.push(arena);
        drop(held);
        result.map_err(runtime_error)?;
        Ok(outputs)
    }

    /// `(name, dtype, shape)` of every input, in order.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        self.model.signature().inputs.iter().map(|s| spec_tuple(py, s)).collect()
    }

    /// `(name, dtype, shape)` of every output, in order.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        self.model.signature().outputs.iter().map(|s| spec_tuple(py, s)).collect()
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    #[getter]
    fn arena_bytes(&self) -> usize {
        self.model.signature().arena_bytes
    }

    #[getter]
    fn arena_alignment(&self) -> usize {
        self.model.signature().arena_alignment
    }

    #[getter]
    fn lower_bound(&self) -> Option<usize> {
        self.lower_bound.or_else(|| self.plan.as_ref().map(|p| p.lower_bound as usize))
    }

    /// The arena plan as JSON (`strata_plan::report::PlanReport`), or None.
    #[getter]
    fn plan_json(&self) -> PyResult<Option<String>> {
        self.plan.as_ref().map(|p| serde_json::to_string(p).map_err(runtime_error)).transpose()
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// `(stage, seconds)` of the compile (`cache` alone for a cache hit).
    #[getter]
    fn timings(&self) -> Vec<(String, f64)> {
        self.timings.clone()
    }

    /// How the compile cache served this model: `hit`, `stored`, `private` (cache off),
    /// `loaded` (an artifact), or `unavailable: <why>` (compiled in memory).
    #[getter]
    fn cache(&self) -> &str {
        &self.cache
    }

    /// Writes the shared object to `path`, with its manifest (`<stem>.json`) and C header
    /// (`<stem>.h`) beside it; returns the three paths.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<(PathBuf, PathBuf, PathBuf)> {
        let Some(source) = &self.manifest else {
            return Err(PyRuntimeError::new_err(format!(
                "{} was compiled in memory (the compile cache could not link a shared object: {}); \
                 it cannot be saved: install a C compiler (cc) or use `strata compile -o`",
                self.name, self.cache
            )));
        };
        py.detach(|| save(source, &path)).map_err(PyOSError::new_err)
    }
}

fn names(specs: &[TensorSpec]) -> String {
    specs.iter().map(|s| format!("'{}'", s.name)).collect::<Vec<_>>().join(", ")
}

/// Copies the artifact `source` describes to `path` (+ manifest and header); every file is
/// written to a temporary beside its target and renamed into place.
fn save(source: &Path, path: &Path) -> Result<(PathBuf, PathBuf, PathBuf), String> {
    let (mut manifest, dir) = Manifest::read(source).map_err(|e| e.to_string())?;
    let library = manifest.library.clone().ok_or("the artifact has no host library")?;
    let from = ArtifactPaths::for_output(&dir.join(&library));
    let to = ArtifactPaths::for_output(path);
    if let Some(why) = to.collision() {
        return Err(why);
    }
    let copy = |from: &Path, to: &Path, bytes: Option<Vec<u8>>| -> Result<(), String> {
        let directory = to.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let temp = tempfile::NamedTempFile::new_in(directory)
            .map_err(|e| format!("cannot write in {}: {e}", directory.display()))?;
        match bytes {
            Some(bytes) => std::fs::write(temp.path(), bytes),
            None => std::fs::copy(from, temp.path()).map(|_| ()),
        }
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
        temp.persist(to).map_err(|e| format!("cannot write {}: {e}", to.display()))?;
        Ok(())
    };
    copy(&from.main, &to.main, None)?;
    copy(&from.header, &to.header, None)?;
    manifest.library = Some(file_name(&to.main));
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())? + "\n";
    copy(source, &to.manifest, Some(text.into_bytes()))?;
    Ok((to.main, to.manifest, to.header))
}

fn kind_name(kind: strata_driver::compile::ErrorKind) -> &'static str {
    use strata_driver::compile::ErrorKind;
    match kind {
        ErrorKind::InvalidInput => "invalid-input",
        ErrorKind::Unsupported => "unsupported",
        ErrorKind::Verification => "verification",
        ErrorKind::Io => "io",
        ErrorKind::Internal => "internal",
        ErrorKind::Unavailable => "unavailable",
    }
}

fn compile_error(py: Python<'_>, error: CommandError) -> PyErr {
    let message = error.message.trim_end().to_owned();
    let err = CompileError::new_err(message.clone());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("message", &message)?;
        value.setattr("kind", kind_name(error.kind))?;
        value.setattr("node", error.node.as_ref().map(|n| n.name.clone()))?;
        value.setattr("node_index", error.node.as_ref().map(|n| n.index))?;
        value.setattr("op_type", error.node.as_ref().map(|n| n.op_type.clone()))?;
        let unsupported = PyDict::new(py);
        for (op, nodes) in &error.unsupported {
            unsupported.set_item(op, nodes)?;
        }
        value.setattr("unsupported", unsupported)
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The ONNX `TensorProto.DataType` of a NumPy dtype name.
fn onnx_data_type(dtype: &str) -> Option<i32> {
    Some(match dtype {
        "float32" => 1,
        "uint8" => 2,
        "int8" => 3,
        "uint16" => 4,
        "int16" => 5,
        "int32" => 6,
        "int64" => 7,
        "bool" => 9,
        "float16" => 10,
        "float64" => 11,
        "uint32" => 12,
        "uint64" => 13,
        "bfloat16" => 16,
        _ => return None,
    })
}

/// What a compile hands back across the released GIL.
struct Compiled {
    model: Model,
    timings: Vec<(&'static str, std::time::Duration)>,
    arena_lower_bound: Option<usize>,
    warnings: Vec<String>,
    cache: Option<CacheUse>,
    plan: Option<strata_plan::report::PlanReport>,
}

/// Compiles ONNX model bytes; see `strata.compile` for the arguments.
#[pyfunction]
#[pyo3(signature = (model, *, name, file_name, base_dir=None, input_shapes=BTreeMap::new(), frozen_protos=BTreeMap::new(), frozen_arrays=BTreeMap::new(), threads=None, optimize=true, strategy="exact".to_owned(), cache=true, verify=false, max_constant_bytes=None, disable=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn compile(
    py: Python<'_>,
    model: &Bound<'_, PyBytes>,
    name: String,
    file_name: String,
    base_dir: Option<PathBuf>,
    input_shapes: BTreeMap<String, Vec<i64>>,
    frozen_protos: BTreeMap<String, Vec<u8>>,
    frozen_arrays: BTreeMap<String, (String, Vec<i64>, Vec<u8>)>,
    threads: Option<usize>,
    optimize: bool,
    strategy: String,
    cache: bool,
    verify: bool,
    max_constant_bytes: Option<u64>,
    disable: Vec<String>,
) -> PyResult<CompiledModel> {
    if max_constant_bytes == Some(0) {
        return Err(PyValueError::new_err("max_constant_bytes must be at least 1 (or None: 1 GiB)"));
    }
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1 (or None: every core)"));
    }
    if !strata_plan::report::Strategy::names().contains(&strategy) {
        return Err(PyValueError::new_err(format!(
            "unknown strategy '{strategy}'; one of: {}",
            strata_plan::report::Strategy::names().join(", ")
        )));
    }
    let mut disabled = Vec::new();
    for word in &disable {
        let optimization = strata_driver::compile::Optimization::parse(word)
            .map_err(|why| PyValueError::new_err(format!("disable: {why}")))?;
        disabled.push(optimization);
    }
    let mut frozen_inputs = BTreeMap::new();
    for (input, bytes) in frozen_protos {
        let tensor = <TensorProto as prost::Message>::decode(bytes.as_slice()).map_err(|e| {
            PyValueError::new_err(format!("freeze['{input}'] is not a serialized ONNX TensorProto: {e}"))
        })?;
        frozen_inputs.insert(input, tensor);
    }
    for (input, (dtype, dims, raw)) in frozen_arrays {
        let data_type = onnx_data_type(&dtype).ok_or_else(|| {
            PyValueError::new_err(format!("freeze['{input}'] has dtype {dtype}, which ONNX tensors cannot hold"))
        })?;
        let tensor = TensorProto { dims, data_type: Some(data_type), raw_data: Some(raw), ..Default::default() };
        frozen_inputs.insert(input, tensor);
    }
    let options = CompileOptions {
        import: strata_frontend::ImportOptions {
            file_name,
            base_dir,
            input_shapes,
            run_shapes: Default::default(),
            frozen_inputs,
            max_constant_bytes,
            whole_rows: false,
            integer_products: false,
            half_in_f32: false,
        },
        name: name.clone(),
        strategy,
        verify_each: verify,
        timing: false,
        schedule: true,
        egraph: optimize,
        target: Target::Host,
        profile: false,
        threads: threads.unwrap_or_else(strata_driver::compile::default_threads),
        disable: strata_driver::compile::Optimization::canonical(disabled),
    };
    let bytes = model.as_bytes();
    let compiled = py.detach(|| -> Result<_, CommandError> {
        let strata = strata_driver::context().map_err(|e| CommandError::from(e.to_string()))?;
        let (store, scratch) = match cache.then(|| strata_driver::cache::Cache::open(None)) {
            Some(Ok(store)) => (store, None),
            // No usable user cache, or none wanted: a private one, removed with the model.
            _ => {
                let scratch = tempfile::Builder::new()
                    .prefix("strata-")
                    .tempdir()
                    .map_err(|e| CommandError::io(format!("error: cannot create a temporary directory: {e}")))?;
                let store =
                    strata_driver::cache::Cache::open(Some(scratch.path().to_path_buf())).map_err(CommandError::io)?;
                (store, Some(scratch))
            }
        };
        let compiled = strata_driver::compile::compile_model_cached(
            &strata,
            strata_driver::compile::ModelBytes::Bytes(bytes.into()),
            &options,
            &store,
            &mut |_| {},
        )?;
        // Without `profile`, a model has no counters (whose pointer is not `Send`).
        let strata_driver::compile::JitModel { model, timings, arena_lower_bound, warnings, profile: _, cache, plan } =
            compiled;
        Ok((Compiled { model, timings, arena_lower_bound, warnings, cache, plan }, scratch))
    });
    let (compiled, scratch) = compiled.map_err(|e| compile_error(py, e))?;
    let (cache_use, manifest) = match &compiled.cache {
        Some(CacheUse::Hit(entry)) => ("hit".to_owned(), Some(entry.join("model.json"))),
        Some(CacheUse::Stored { entry, .. }) => {
            (if scratch.is_some() { "private" } else { "stored" }.to_owned(), Some(entry.join("model.json")))
        }
        Some(CacheUse::Failed(why)) => (format!("unavailable: {why}"), None),
        None => ("unavailable".to_owned(), None),
    };
    Ok(CompiledModel {
        model: compiled.model,
        arenas: Mutex::new(Vec::new()),
        threads,
        name,
        plan: compiled.plan,
        lower_bound: compiled.arena_lower_bound,
        warnings: compiled.warnings,
        timings: compiled.timings.iter().map(|(stage, d)| (stage.to_string(), d.as_secs_f64())).collect(),
        cache: cache_use,
        manifest,
        _scratch: scratch,
    })
}

/// Loads a shared object written by `strata compile -o lib.so` or `CompiledModel.save`, from its
/// manifest (`lib.json`).
#[pyfunction]
#[pyo3(signature = (manifest, *, threads=None))]
fn load(py: Python<'_>, manifest: PathBuf, threads: Option<usize>) -> PyResult<CompiledModel> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1 (or None: every core)"));
    }
    let loaded = py.detach(|| -> Result<(Model, Manifest), String> {
        let (read, dir, library) = Manifest::read_artifact(&manifest).map_err(|e| e.to_string())?;
        let model = Model::from_read(&read, &dir, library).map_err(|e| e.to_string())?;
        Ok((model, read))
    });
    let (model, read) = loaded.map_err(PyOSError::new_err)?;
    Ok(CompiledModel {
        model,
        arenas: Mutex::new(Vec::new()),
        threads,
        name: read.name.clone(),
        lower_bound: read.plan.as_ref().map(|p| p.lower_bound as usize),
        plan: read.plan,
        warnings: Vec::new(),
        timings: Vec::new(),
        cache: "loaded".to_owned(),
        manifest: Some(manifest),
        _scratch: None,
    })
}

/// The memory-timeline picture (SVG text) of a plan given as JSON.
#[pyfunction]
fn render_svg(plan_json: &str) -> PyResult<String> {
    let plan: strata_plan::report::PlanReport =
        serde_json::from_str(plan_json).map_err(|e| PyValueError::new_err(format!("not a plan: {e}")))?;
    Ok(strata_plan::report::render_svg(&plan))
}

/// Every core of this machine: the threads a model is compiled for by default.
#[pyfunction]
fn default_threads() -> usize {
    strata_driver::compile::default_threads()
}

#[pymodule]
fn _strata(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CompileError", m.py().get_type::<CompileError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<CompiledModel>()?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(render_svg, m)?)?;
    m.add_function(wrap_pyfunction!(default_threads, m)?)?;
    Ok(())
}
