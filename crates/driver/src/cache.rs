//! The compile cache of `strata run` (host): a second run of the same model with the same
//! options loads the shared object the first one built instead of compiling again.
//!
//! **Key.** BLAKE3 over a description of everything the code depends on: the cache format,
//! Strata's version and the running executable's identity (path, size, modification time: a
//! rebuilt compiler never reuses an old entry), the host's triple, CPU name and features, the
//! compile options that change the code (not `verify_each`), the model's bytes, and the bytes
//! of every external-data file the model names (hashed, or marked missing). BLAKE3, not the
//! manifest's SHA-256: the key is computed on every run, hit or not, and hashing a 100 MB model
//! takes a third of the time (the caller maps the file, `compile::ModelBytes`, so a hit never
//! copies it).
//!
//! **Entry.** A directory `<root>/<key>/` holding the shared object, its manifest (the
//! `strata compile -o x.so` artifact, so `strata-exec` runs it too) and `entry.json`: the key,
//! the library's BLAKE3 digest, the arena's lower bound and the compile's warnings. An entry is
//! used only when its `entry.json` names this key, the library's bytes have the recorded
//! digest (BLAKE3: a third of the manifest's SHA-256's time, 20 against 60 ms for a 100 MB
//! library, on every warm run) and the artifact loads from that open file, which checks the
//! signature compiled into it against the manifest (`Model::from_written`: the object loaded
//! must be the file hashed); anything else (a truncated or edited file, a half-deleted entry)
//! is removed and the model compiled again. The run that builds an entry loads it from the
//! library file it hashed, kept open.
//!
//! **Concurrency.** An entry is built in a fresh `.tmp-*` directory under the root and renamed
//! into place in one step (`rename(2)` of a directory): readers see a whole entry or none. Two
//! runs that miss together both compile; the second rename fails on the existing entry and that
//! run uses the first's. A corrupt entry is renamed aside before it is deleted.
//!
//! **Size.** After an insert, entries are evicted least recently used first (a hit touches
//! `entry.json`) until the cache is under its bound (`STRATA_CACHE_MAX_MB`, default 2048 MiB);
//! `.tmp-*` directories older than an hour (a crashed run's) go too.
//!
//! The root is `$STRATA_CACHE_DIR`, else `$XDG_CACHE_HOME/strata`, else `$HOME/.cache/strata`.
//! The cache guards against corruption, not against someone who can write the user's cache
//! directory (they could write both the library and its digest).

use crate::compile::CompileOptions;
use prost::Message;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use strata_frontend::onnx;
/// The hex BLAKE3 digest of `bytes` (a 100 MB model in about 20 ms on one core; SHA-256 took
/// 65 ms, most of a warm run).
fn digest(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The layout of an entry and the entry point's ABI; part of the key (2: the entry point
/// returns the run-time checks' status; 3: the manifest carries the digests and the library
/// its signature, and the record no digest of its own; 4: the key is a BLAKE3 digest; 5: the
/// record carries the library's BLAKE3 digest, checked instead of the manifest's SHA-256).
const FORMAT: u32 = 5;

/// Default size bound of the cache.
const DEFAULT_MAX_MB: u64 = 2048;

/// The library, manifest and record inside an entry.
const LIBRARY: &str = "model.so";
const MANIFEST: &str = "model.json";
const RECORD: &str = "entry.json";

/// A cache key: the hex digest and the text it digests (kept in the entry for debugging).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    pub hex: String,
    pub description: String,
}

/// What an entry records beside its artifact.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    pub format: u32,
    pub key: String,
    /// The hex BLAKE3 digest of the library.
    pub library: String,
    pub arena_lower_bound: Option<usize>,
    pub warnings: Vec<String>,
    pub description: String,
}

/// A model found in the cache.
pub struct Hit {
    pub model: strata_runtime::Model,
    pub record: Record,
    /// The arena plan the entry's manifest carries.
    pub plan: Option<strata_plan::report::PlanReport>,
}

/// The compile cache in one directory.
pub struct Cache {
    root: PathBuf,
    max_bytes: u64,
}

/// The model of the entry in `dir` and the plan its manifest carries, from `library`: the
/// entry's library, open, whose bytes were checked (not read again).
fn load(
    dir: &Path,
    library: std::fs::File,
) -> Result<(strata_runtime::Model, Option<strata_plan::report::PlanReport>), String> {
    let (manifest, dir) = strata_runtime::Manifest::read(&dir.join(MANIFEST)).map_err(|e| e.to_string())?;
    let model = strata_runtime::Model::from_written(&manifest, &dir, library).map_err(|e| e.to_string())?;
    Ok((model, manifest.plan))
}

/// The hex BLAKE3 digest of the bytes of `file` (mapped: nothing copied).
fn library_digest(file: &std::fs::File) -> std::io::Result<String> {
    if file.metadata()?.len() == 0 {
        return Ok(blake3::hash(&[]).to_hex().to_string());
    }
    // Safety: a read-only map, read once; a process changing the file meanwhile makes the
    // digest differ (the entry is rebuilt), and the loader checks the file it maps again.
    let map = unsafe { memmap2::Mmap::map(file)? };
    Ok(blake3::hash(&map).to_hex().to_string())
}

/// The library of the entry in `dir`, open, if it is a regular file with the digest `recorded`.
fn checked_library(dir: &Path, recorded: &str) -> Result<std::fs::File, String> {
    let (file, _) = strata_runtime::manifest::open_regular(&dir.join(LIBRARY), false).map_err(|e| e.to_string())?;
    let digest = library_digest(&file).map_err(|e| format!("cannot read {LIBRARY}: {e}"))?;
    if digest != recorded {
        return Err(format!("{LIBRARY} has BLAKE3 {digest}, its record says {recorded}"));
    }
    Ok(file)
}

/// The identity of the running compiler: version, and the path, size and modification time
/// of the binary that holds this code (the `strata` executable, or the Python extension
/// module inside a Python process).
pub fn build_identity() -> String {
    let exe = compiler_binary().or_else(|| std::env::current_exe().ok());
    let meta = exe.as_ref().and_then(|path| std::fs::metadata(path).ok());
    let modified = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!(
        "strata {} exe {} {} {modified}",
        env!("CARGO_PKG_VERSION"),
        exe.map_or_else(|| "?".into(), |p| p.display().to_string()),
        meta.map_or(0, |m| m.len())
    )
}

/// The file of the loaded object that contains this function (`dladdr`).
fn compiler_binary() -> Option<PathBuf> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    let address = compiler_binary as *const libc::c_void;
    // Safety: `dladdr` fills `info` for an address inside a loaded object and returns non-zero;
    // `dli_fname` then points at a NUL-terminated path owned by the loader.
    unsafe {
        if libc::dladdr(address, info.as_mut_ptr()) == 0 {
            return None;
        }
        let info = info.assume_init();
        if info.dli_fname.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(info.dli_fname);
        let path = PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.to_bytes()));
        // The main program may be reported by its argv[0]: resolve it.
        std::fs::canonicalize(&path).ok()
    }
}

/// Every external-data location named by a tensor of `model` (graphs, subgraphs, functions).
pub fn external_locations(model: &onnx::ModelProto) -> Vec<String> {
    fn tensor(t: &onnx::TensorProto, out: &mut Vec<String>) {
        for entry in &t.external_data {
            if entry.key.as_deref() == Some("location") {
                out.push(entry.value.clone().unwrap_or_default());
            }
        }
    }
    fn sparse(s: &onnx::SparseTensorProto, out: &mut Vec<String>) {
        s.values.iter().chain(&s.indices).for_each(|t| tensor(t, out));
    }
    fn nodes(nodes: &[onnx::NodeProto], out: &mut Vec<String>) {
        for node in nodes {
            for a in &node.attribute {
                a.t.iter().chain(&a.tensors).for_each(|t| tensor(t, out));
                a.sparse_tensor.iter().chain(&a.sparse_tensors).for_each(|s| sparse(s, out));
                a.g.iter().chain(&a.graphs).for_each(|g| graph(g, out));
            }
        }
    }
    fn graph(g: &onnx::GraphProto, out: &mut Vec<String>) {
        g.initializer.iter().for_each(|t| tensor(t, out));
        g.sparse_initializer.iter().for_each(|s| sparse(s, out));
        nodes(&g.node, out);
    }
    let mut out = Vec::new();
    if let Some(g) = &model.graph {
        graph(g, &mut out);
    }
    for function in &model.functions {
        nodes(&function.node, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// The key of compiling `model` (its bytes) with `options` on `host` by `build`. External
/// data is read from `options.import.base_dir` (hashed; a file that cannot be read is part of
/// the key as missing: the compile reports it).
pub fn key(model: &[u8], options: &CompileOptions, host: &str, build: &str) -> Key {
    let mut normalized = options.clone();
    // Checks and limits only: the code is the same.
    normalized.verify_each = false;
    normalized.timing = false;
    normalized.import.max_constant_bytes = None;
    let mut description =
        format!("format {FORMAT}\nbuild {build}\nhost {host}\noptions {normalized:?}\nmodel {}\n", digest(model));
    // Every external tensor names its file under the key "location": a model without those
    // bytes has none, and is not decoded (a warm run's key stays a hash of the bytes).
    let external = memchr::memmem::find(model, b"location").is_some();
    if let Some(proto) = external.then(|| onnx::ModelProto::decode(model).ok()).flatten() {
        let base = options.import.base_dir.clone().unwrap_or_default();
        for location in external_locations(&proto) {
            let mut hasher = blake3::Hasher::new();
            let digest = hasher
                .update_mmap(base.join(&location))
                .map_or_else(|_| "missing".into(), |hasher| hasher.finalize().to_hex().to_string());
            description += &format!("external {location:?} {digest}\n");
        }
    }
    Key { hex: digest(description.as_bytes()), description }
}

/// Why an entry was not used.
#[derive(Debug, PartialEq, Eq)]
pub enum Miss {
    /// No entry for the key.
    Absent,
    /// An entry that failed its checks (removed).
    Corrupt(String),
}

impl Cache {
    /// The cache under `root`, or the default root (see the module documentation).
    pub fn open(root: Option<PathBuf>) -> Result<Cache, String> {
        let root = root.or_else(default_root).ok_or("no cache directory (set STRATA_CACHE_DIR or HOME)")?;
        std::fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
        let max_bytes = std::env::var("STRATA_CACHE_MAX_MB")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(DEFAULT_MAX_MB)
            .saturating_mul(1 << 20);
        Ok(Cache { root, max_bytes })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn entry(&self, key: &Key) -> PathBuf {
        self.root.join(&key.hex)
    }

    /// The model cached for `key`, checked (see the module documentation).
    pub fn lookup(&self, key: &Key) -> Result<Hit, Miss> {
        let dir = self.entry(key);
        let record = match std::fs::read(dir.join(RECORD)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !dir.exists() => return Err(Miss::Absent),
            Err(e) => return Err(self.discard(&dir, format!("cannot read {RECORD}: {e}"))),
        };
        let record: Record = match serde_json::from_slice(&record) {
            Ok(record) => record,
            Err(e) => return Err(self.discard(&dir, format!("{RECORD} does not parse: {e}"))),
        };
        if record.format != FORMAT || record.key != key.hex {
            return Err(self.discard(&dir, format!("{RECORD} names another key or format")));
        }
        let library = match checked_library(&dir, &record.library) {
            Ok(library) => library,
            Err(why) => return Err(self.discard(&dir, why)),
        };
        let (model, plan) = match load(&dir, library) {
            Ok(loaded) => loaded,
            Err(e) => return Err(self.discard(&dir, format!("the artifact does not load: {e}"))),
        };
        // Most recently used: the eviction order.
        if let Ok(file) = std::fs::File::options().append(true).open(dir.join(RECORD)) {
            let _ = file.set_modified(SystemTime::now());
        }
        Ok(Hit { model, record, plan })
    }

    /// Moves a failed entry aside and deletes it; returns the reason as a miss.
    fn discard(&self, dir: &Path, why: String) -> Miss {
        let aside = self.root.join(format!(".tmp-discard-{}-{}", std::process::id(), unique()));
        if std::fs::rename(dir, &aside).is_ok() {
            let _ = std::fs::remove_dir_all(&aside);
        }
        Miss::Corrupt(why)
    }

    /// Builds an entry for `key` with `write` (which writes the artifact, `model.so` and its
    /// manifest at [`artifact_paths`], into the directory it is given, and returns the library
    /// open as it hashed it for the manifest), moves it into place and loads it. When another run inserted the key first, its entry is used.
    pub fn insert(
        &self,
        key: &Key,
        arena_lower_bound: Option<usize>,
        warnings: &[String],
        write: impl FnOnce(&Path) -> Result<std::fs::File, String>,
    ) -> Result<Hit, String> {
        let temp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempdir_in(&self.root)
            .map_err(|e| format!("cannot create a directory in {}: {e}", self.root.display()))?;
        let library = write(temp.path())?;
        let record = Record {
            format: FORMAT,
            key: key.hex.clone(),
            library: library_digest(&library).map_err(|e| format!("cannot read the library just written: {e}"))?,
            arena_lower_bound,
            warnings: warnings.to_vec(),
            description: key.description.clone(),
        };
        let text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
        std::fs::write(temp.path().join(RECORD), text + "\n").map_err(|e| format!("cannot write {RECORD}: {e}"))?;
        let dir = self.entry(key);
        // One step: a reader sees the whole entry or none. A failed rename means another run
        // put the entry there first (the temporary directory is removed when `temp` drops):
        // that entry is checked like any other.
        if std::fs::rename(temp.path(), &dir).is_err() {
            self.evict(&dir);
            return self.lookup(key).map_err(|miss| format!("the entry another run wrote does not load: {miss:?}"));
        }
        let _ = temp.keep();
        self.evict(&dir);
        // The library was just hashed from these bytes: load it without reading it again.
        match load(&dir, library) {
            Ok((model, plan)) => Ok(Hit { model, record, plan }),
            Err(e) => Err(format!("the entry just written does not load: {:?}", self.discard(&dir, e.to_string()))),
        }
    }

    /// Removes least recently used entries (never `keep`) until the cache fits its bound, and
    /// stale temporary directories.
    fn evict(&self, keep: &Path) {
        let Ok(read) = std::fs::read_dir(&self.root) else { return };
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let mut total = 0u64;
        for item in read.flatten() {
            let path = item.path();
            let name = item.file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp-") {
                let old = item
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > Duration::from_secs(3600));
                if old {
                    let _ = std::fs::remove_dir_all(&path);
                }
                continue;
            }
            if !path.is_dir() {
                continue;
            }
            let size = dir_size(&path);
            total += size;
            let used =
                std::fs::metadata(path.join(RECORD)).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
            if path != keep {
                entries.push((used, size, path));
            }
        }
        entries.sort();
        for (_, size, path) in entries {
            if total <= self.max_bytes {
                break;
            }
            let aside = self.root.join(format!(".tmp-evict-{}-{}", std::process::id(), unique()));
            if std::fs::rename(&path, &aside).is_ok() {
                let _ = std::fs::remove_dir_all(&aside);
                total = total.saturating_sub(size);
            }
        }
    }
}

/// Bytes of the files directly in `dir`.
fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|read| read.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

/// A number unique within this process.
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// `$STRATA_CACHE_DIR`, else `$XDG_CACHE_HOME/strata`, else `$HOME/.cache/strata`.
pub fn default_root() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    non_empty("STRATA_CACHE_DIR")
        .or_else(|| non_empty("XDG_CACHE_HOME").map(|d| d.join("strata")))
        .or_else(|| non_empty("HOME").map(|d| d.join(".cache").join("strata")))
}

/// The artifact file names inside an entry (for the writer).
pub fn artifact_paths(dir: &Path) -> strata_runtime::manifest::ArtifactPaths {
    strata_runtime::manifest::ArtifactPaths::for_output(&dir.join(LIBRARY))
}

#[cfg(test)]
pub(crate) mod tests;
