//! Compiled models ready to run on the host: in memory ([`compile_model`]: a temporary shared
//! object of code only, its parts compiled on every core, or MLIR's ORC JIT) or through the
//! compile cache ([`compile_model_cached`]), and the kernel counters of a profiled one.

use crate::compile::{compile_deferred, CommandError, CompileOptions, Compiled};
use std::borrow::Cow;
use std::time::{Duration, Instant};
use strata_ir::StrataContext;
use strata_plan::report::PlanReport;

/// A model compiled in memory, ready to run.
pub struct JitModel {
    pub model: strata_runtime::Model,
    /// Wall time of each stage, the JIT's last.
    pub timings: Vec<(&'static str, Duration)>,
    /// The arena plan's lower bound in bytes.
    pub arena_lower_bound: Option<usize>,
    /// Rendered warnings of the passes (see [`Compiled::warnings`]).
    pub warnings: Vec<String>,
    /// With [`CompileOptions::profile`], the kernel counters.
    pub profile: Option<Profile>,
    /// Whether the code came from the compile cache ([`compile_model_cached`]).
    pub cache: Option<CacheUse>,
    /// The arena plan (see [`Compiled::plan`]).
    pub plan: Option<PlanReport>,
}

/// The kernel counters of a model compiled with [`CompileOptions::profile`]: ticks of the
/// cycle counter summed over every run, one counter per label.
pub struct Profile {
    pub labels: Vec<String>,
    /// The counters, in the JIT's memory (alive as long as the model that owns the JIT).
    ticks: *mut i64,
}

impl Profile {
    /// The counters' current values.
    pub fn read(&self) -> Vec<i64> {
        // Safety: `ticks` points at `labels.len()` counters in the JIT's data, which the model
        // keeps alive; the compiled code writes them only while it runs, not now.
        (0..self.labels.len()).map(|i| unsafe { self.ticks.add(i).read_volatile() }).collect()
    }

    /// Sets every counter to zero.
    pub fn reset(&self) {
        // Safety: as in `read`.
        (0..self.labels.len()).for_each(|i| unsafe { self.ticks.add(i).write_volatile(0) });
    }
}

/// Compiles to a runnable model for the host. A module big enough to split
/// (`host::worth_splitting`) becomes a shared object of code only in a temporary directory,
/// its kernels compiled in parallel (`host::emit_objects`), loaded (the weights passed from
/// memory, where the compile wrote them) and deleted; otherwise, with `profile`
/// (its counters live in the JIT), or when the shared object cannot be made (no C compiler to
/// link it), MLIR's ORC JIT compiles it in memory (one module, one thread).
pub fn compile_model(
    strata: &StrataContext,
    bytes: Cow<'_, [u8]>,
    options: &CompileOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<JitModel, CommandError> {
    let mut compiled = compile_deferred(strata, bytes, options, progress)?;
    let jobs = strata_target_cpu::host::codegen_jobs();
    if compiled.profile_labels.is_empty() && strata_target_cpu::host::worth_splitting(&compiled.module, jobs) {
        progress("codegen");
        let start = Instant::now();
        if let Ok(model) = load_shared_object(strata, &mut compiled, options) {
            let mut timings = compiled.timings;
            timings.push(("codegen+link+load", start.elapsed()));
            return Ok(JitModel {
                model,
                timings,
                arena_lower_bound: compiled.arena_lower_bound,
                warnings: compiled.warnings,
                profile: None,
                cache: None,
                plan: compiled.plan,
            });
        }
    }
    // One module, lowered whole (the parts' copies, if a shared object failed, are gone).
    compiled.lower(strata, options)?;
    progress("jit");
    jit_compiled(strata, compiled)
}

/// Writes `compiled` as a shared object into a temporary directory and loads it (the loaded
/// library outlives its deleted files).
fn load_shared_object(
    strata: &StrataContext,
    compiled: &mut Compiled<'_>,
    options: &CompileOptions,
) -> Result<strata_runtime::Model, String> {
    let dir = tempfile::Builder::new().prefix("strata-").tempdir().map_err(|e| e.to_string())?;
    let paths = crate::cache::artifact_paths(dir.path());
    // Only the code: the weights stay in memory, in the aligned blob the compile wrote, and go
    // to the entry point from there, instead of through the assembler, the linker and the
    // library's digest (0.7 s of a 100 MB model), or through a file (written and mapped: a
    // quarter of a second more for the 100 MB). The library lives in a fresh private directory
    // and is loaded once, right after it is written, by this process alone: no manifest to
    // check it against.
    let entry = compiled.entry_symbol(&options.name);
    compiled.write_library(strata, options, &paths, false).map_err(|e| e.to_string())?;
    // Safety: the library is the one just compiled; its initialisers are the C runtime's.
    let library = unsafe {
        libloading::os::unix::Library::open(
            Some(&paths.main),
            libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
        )
    }
    .map_err(|e| format!("cannot load {}: {e}", paths.main.display()))?;
    // Safety: `entry` is the entry point `add_entry` generated for this signature; the library
    // moves into the model, which keeps it while the entry point can run, and the weights are
    // the blob the code was compiled against (taken only now: the JIT, should loading fail,
    // needs them).
    unsafe {
        let function = *library
            .get::<strata_runtime::EntryFn>(entry.as_bytes())
            .map_err(|e| format!("{} has no '{entry}': {e}", paths.main.display()))?;
        let weights = std::mem::replace(&mut compiled.weights, strata_runtime::AlignedBytes::zeroed(0));
        strata_runtime::Model::from_entry_owned(function, Box::new(library), compiled.signature.clone(), weights)
    }
    .map_err(|e| e.to_string())
}

/// JIT-compiles a module compiled to the LLVM dialect.
fn jit_compiled(strata: &StrataContext, compiled: Compiled<'_>) -> Result<JitModel, CommandError> {
    let start = Instant::now();
    let jit = strata_target_cpu::Jit::new(strata, &compiled.module, 3).map_err(|e| format!("error: {e}"))?;
    let entry = compiled.entry.clone().expect("set at the LLVM-dialect stage");
    let address = jit.lookup(&entry).map_err(|e| format!("error: {e}"))?;
    let profile = if compiled.profile_labels.is_empty() {
        None
    } else {
        let ticks = jit.lookup(strata_target_cpu::profile::TICKS_SYMBOL).map_err(|e| format!("error: {e}"))?;
        Some(Profile { labels: compiled.profile_labels.clone(), ticks: ticks.cast() })
    };
    // Safety: `entry` is the entry point `add_entry` generated for this signature, in code the
    // JIT keeps alive (moved into the model), reading the weights blob it is given.
    let model = unsafe {
        let entry = std::mem::transmute::<*mut (), strata_runtime::EntryFn>(address);
        strata_runtime::Model::from_entry_owned(entry, Box::new(jit), compiled.signature.clone(), compiled.weights)
    }
    .map_err(|e| format!("error: {e}"))?;
    let mut timings = compiled.timings;
    timings.push(("jit", start.elapsed()));
    Ok(JitModel {
        model,
        timings,
        arena_lower_bound: compiled.arena_lower_bound,
        warnings: compiled.warnings,
        profile,
        cache: None,
        plan: compiled.plan,
    })
}

/// How a run used the compile cache.
#[derive(Debug)]
pub enum CacheUse {
    /// Loaded from this entry: nothing compiled.
    Hit(std::path::PathBuf),
    /// Compiled, stored in this entry and loaded from it; `why` a previous entry was unusable.
    Stored { entry: std::path::PathBuf, replaced: Option<String> },
    /// Compiled and JIT-run: the entry could not be written (why).
    Failed(String),
}

/// A model's bytes: a file mapped read-only, so that a compile-cache hit never copies them
/// (the copy's page faults were most of reading a 100 MB model), or bytes already in memory.
pub enum ModelBytes<'a> {
    Mapped(memmap2::Mmap),
    Bytes(Cow<'a, [u8]>),
}

impl<'a> ModelBytes<'a> {
    /// Maps the file at `path`, or reads it where it cannot be mapped (an empty file, a pipe).
    /// A model file truncated by another process while it is mapped and hashed would fault
    /// this one (`SIGBUS`), as with any mapped input; one rewritten in place gives a key or an
    /// import that is wrong for both versions, which the compile reports or the cache's checks
    /// of the loaded library refuse.
    pub fn open(path: &std::path::Path) -> std::io::Result<ModelBytes<'static>> {
        let file = std::fs::File::open(path)?;
        // Safety: the mapping is read-only and private to this process; see above for a file
        // changed while mapped.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) if !map.is_empty() => Ok(ModelBytes::Mapped(map)),
            _ => std::fs::read(path).map(|bytes| ModelBytes::Bytes(Cow::Owned(bytes))),
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        match self {
            ModelBytes::Mapped(map) => map,
            ModelBytes::Bytes(bytes) => bytes,
        }
    }

    /// The bytes for the compiler: a mapping is copied into a buffer the compiler frees after
    /// import and unmapped, so a compile holds one copy of the model, as before.
    pub fn into_bytes(self) -> Cow<'a, [u8]> {
        match self {
            ModelBytes::Mapped(map) => Cow::Owned(map.to_vec()),
            ModelBytes::Bytes(bytes) => bytes,
        }
    }
}

/// [`compile_model`] through the compile cache (`crate::cache`): a hit loads the cached
/// shared object; a miss compiles to a shared object in a new entry and loads that. When the
/// entry cannot be written (no C compiler to link, a read-only cache), the model is JIT-compiled
/// as without the cache: the cache never fails a run. Not for `profile` (its counters live in
/// the JIT).
pub fn compile_model_cached(
    strata: &StrataContext,
    bytes: ModelBytes<'_>,
    options: &CompileOptions,
    cache: &crate::cache::Cache,
    progress: &mut dyn FnMut(&str),
) -> Result<JitModel, CommandError> {
    let start = Instant::now();
    let host = strata_target_cpu::host::identity();
    let key = crate::cache::key(bytes.as_slice(), options, &host, &crate::cache::build_identity());
    let replaced = match cache.lookup(&key) {
        Ok(hit) => {
            return Ok(JitModel {
                model: hit.model,
                timings: vec![("cache", start.elapsed())],
                arena_lower_bound: hit.record.arena_lower_bound,
                warnings: hit.record.warnings,
                profile: None,
                cache: Some(CacheUse::Hit(cache.root().join(&key.hex))),
                plan: hit.plan,
            });
        }
        Err(crate::cache::Miss::Absent) => None,
        Err(crate::cache::Miss::Corrupt(why)) => Some(why),
    };
    let keyed = start.elapsed();
    let mut compiled = compile_deferred(strata, bytes.into_bytes(), options, progress)?;
    progress("codegen");
    let codegen = Instant::now();
    let warnings = compiled.warnings.clone();
    let inserted = cache.insert(&key, compiled.arena_lower_bound, &warnings, |dir| {
        compiled
            .write_shared_object(strata, options, &crate::cache::artifact_paths(dir))
            .map(|written| written.library)
            .map_err(|e| e.to_string())
    });
    match inserted {
        Ok(hit) => {
            let mut timings = vec![("cache key", keyed)];
            timings.extend(compiled.timings.iter().copied());
            timings.push(("codegen+link+load", codegen.elapsed()));
            Ok(JitModel {
                model: hit.model,
                timings,
                arena_lower_bound: compiled.arena_lower_bound,
                warnings: compiled.warnings,
                profile: None,
                cache: Some(CacheUse::Stored { entry: cache.root().join(&key.hex), replaced }),
                plan: hit.plan,
            })
        }
        Err(why) => {
            compiled.lower(strata, options)?;
            progress("jit");
            let mut model = jit_compiled(strata, compiled)?;
            model.cache = Some(CacheUse::Failed(why));
            Ok(model)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_frontend::ImportOptions;

    /// The symbols `path` (an ELF object) defines.
    fn defined(path: &std::path::Path) -> Vec<String> {
        use object::{Object, ObjectSymbol};
        let data = std::fs::read(path).unwrap();
        let file = object::File::parse(&*data).unwrap();
        file.symbols().filter(|s| s.is_definition()).filter_map(|s| s.name().ok().map(str::to_owned)).collect()
    }

    /// A module left on buffers (`compile_deferred`) splits into parts that are lowered where
    /// they are compiled: every kernel defined in exactly one object, the entry point in the
    /// first, and the module itself untouched (still lowered whole afterwards, as the JIT
    /// does when a shared object fails).
    #[test]
    fn parts_are_lowered_apart_and_the_first_has_the_entry_point() {
        let strata = crate::context().unwrap();
        let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../lit-tests/frontend/inputs/dense_block.onnx");
        let options = CompileOptions {
            import: ImportOptions { file_name: model.to_owned(), ..Default::default() },
            verify_each: false,
            ..crate::cache::tests::options()
        };
        let bytes = std::fs::read(model).unwrap();
        let mut compiled = compile_deferred(&strata, bytes.into(), &options, &mut |_| {}).unwrap();
        let kernels: Vec<String> = strata_target_cpu::outline_kernels::kernels(&compiled.module)
            .into_iter()
            .map(|k| k.symbol_name().unwrap())
            .collect();
        assert!(kernels.len() > 2, "{kernels:?}");
        let lowering = compiled.lowering(&strata, &options).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let objects =
            strata_target_cpu::host::emit_objects(&compiled.module, None, 2, dir.path(), Some(&lowering)).unwrap();
        // Two parts, each of up to two groups (one per LLVM pipeline); the first has the entry.
        assert!((2..=4).contains(&objects.len()), "{objects:?}");
        let parts: Vec<Vec<String>> = objects.iter().map(|o| defined(o)).collect();
        assert!(parts[0].iter().any(|s| s == "strata_m_run"));
        assert!(parts[1..].iter().all(|p| !p.iter().any(|s| s == "strata_m_run" || s == "strata_m_main")));
        for kernel in &kernels {
            let homes = parts.iter().filter(|p| p.contains(kernel)).count();
            assert_eq!(homes, 1, "{kernel} is defined in {homes} parts");
        }
        assert!(parts.iter().all(|p| p.iter().any(|s| strata_target_cpu::outline_kernels::is_kernel(s))));
        // The parts were copies: the module is still on buffers, and lowers whole.
        assert!(compiled.pending.is_some());
        compiled.lower(&strata, &options).unwrap();
        assert_eq!(compiled.entry.as_deref(), Some("strata_m_run"));
        assert!(compiled.lowering(&strata, &options).is_none());
    }
}
