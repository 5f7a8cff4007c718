//! Loading a host library that was checked: the library the process ends up running is the
//! file whose digest matched the manifest.
//!
//! `dlopen` returns an object already loaded under the same name (or the same file) without
//! reading the path again, so a library recompiled to a path that a live model of this process
//! loaded before, or a file replaced between hashing and loading, would run other code than
//! the one checked. After loading, the file mapped at the library's signature symbol (from
//! `/proc/self/maps`: device and inode) is compared with the file that was hashed; when they
//! differ, the checked bytes are copied to a fresh private file (a new name and inode, so the
//! loader cannot reuse anything), hashed again while copying, and that copy is loaded.

use crate::RuntimeError;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A device and inode: which file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    major: u64,
    minor: u64,
    inode: u64,
}

impl FileId {
    fn of(file: &File) -> Option<FileId> {
        let meta = file.metadata().ok()?;
        let dev = meta.dev();
        // glibc's encoding of `dev_t` (gnu_dev_major / gnu_dev_minor).
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
        let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
        Some(FileId { major, minor, inode: meta.ino() })
    }
}

/// The file mapped at `address` in this process, from `/proc/self/maps`; `None` when that
/// cannot be read (no `/proc`) or nothing file-backed is mapped there.
fn mapped_at(address: usize) -> Option<FileId> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_ascii_whitespace();
        let (start, end) = fields.next()?.split_once('-')?;
        let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
        if !(start..end).contains(&address) {
            return None;
        }
        let (_perms, _offset) = (fields.next()?, fields.next()?);
        let (major, minor) = fields.next()?.split_once(':')?;
        let inode = fields.next()?.parse().ok()?;
        Some(FileId { major: u64::from_str_radix(major, 16).ok()?, minor: u64::from_str_radix(minor, 16).ok()?, inode })
    })
}

fn open(path: &Path) -> Result<libloading::Library, RuntimeError> {
    // Safety: loading a library runs its initialisers; a Strata-compiled object has none
    // beyond the C runtime's. Every symbol is bound now (RTLD_NOW): a library missing one
    // fails to load with an error instead of ending the process at its first call.
    unsafe {
        libloading::os::unix::Library::open(
            Some(path),
            libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
        )
    }
    .map(Into::into)
    .map_err(|e| RuntimeError::Load(format!("cannot load {}: {e}", path.display())))
}

/// The address of `symbol` in `library`, if it has one.
fn address(library: &libloading::Library, symbol: &str) -> Option<usize> {
    // Safety: only the symbol's address is read, not what it points to.
    unsafe { library.get::<*const u8>(symbol.as_bytes()).ok().map(|s| *s as usize) }
}

/// Loads the library at `path`, whose open `file` hashed to `digest`, making sure the object
/// loaded is that file (see the module documentation); `symbol` is one it exports (its
/// signature). A library without `symbol` is returned as loaded: the caller's signature check
/// refuses it.
pub(crate) fn load_checked(
    file: &mut File,
    path: &Path,
    digest: &str,
    symbol: &str,
) -> Result<libloading::Library, RuntimeError> {
    let library = open(path)?;
    let Some(at) = address(&library, symbol) else { return Ok(library) };
    let (Some(loaded), Some(checked)) = (mapped_at(at), FileId::of(file)) else { return Ok(library) };
    if loaded == checked {
        return Ok(library);
    }
    // Another object answered to this name: load a private copy of the checked bytes.
    drop(library);
    let error = |e: std::io::Error| RuntimeError::Load(format!("cannot copy {} to load it: {e}", path.display()));
    let copy = tempfile::Builder::new()
        .prefix(".strata-load-")
        .suffix(".so")
        .tempfile_in(crate::files::parent_dir(path))
        .or_else(|_| tempfile::Builder::new().prefix("strata-load-").suffix(".so").tempfile())
        .map_err(error)?;
    std::io::Seek::rewind(file).map_err(error)?;
    let mut hashing = HashingReader { inner: &mut *file, hasher: <sha2::Sha256 as sha2::Digest>::new() };
    std::io::copy(&mut hashing, &mut copy.as_file()).map_err(error)?;
    let copied = crate::manifest::hex(&sha2::Digest::finalize(hashing.hasher));
    if copied != digest {
        return Err(RuntimeError::Load(format!(
            "{} changed while it was being loaded (SHA-256 {copied}, its manifest says {digest})",
            path.display()
        )));
    }
    let library = open(copy.path())?;
    let fresh = address(&library, symbol).and_then(mapped_at);
    if fresh.is_some() && fresh != FileId::of(copy.as_file()) {
        return Err(RuntimeError::Load(format!(
            "{}: the dynamic loader did not load the checked copy of the library",
            path.display()
        )));
    }
    // The copy's name goes now; its mapping stays.
    drop(copy);
    Ok(library)
}

/// Hashes what it reads.
struct HashingReader<'a> {
    inner: &'a mut File,
    hasher: sha2::Sha256,
}

impl std::io::Read for HashingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        sha2::Digest::update(&mut self.hasher, &buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use crate::manifest::{sha256_hex, Digests};
    use crate::{DType, Manifest, Model};
    use std::path::Path;

    /// Compiles C `source` into the shared object `dir/file`.
    fn compile(dir: &Path, file: &str, source: &str) {
        let c = dir.join(format!("{file}.c"));
        std::fs::write(&c, source).unwrap();
        let status = std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
            .args(["-shared", "-fPIC", "-o"])
            .arg(dir.join(file))
            .arg(&c)
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// C source defining model `name`'s signature symbol as the text `json`.
    fn signature_source(name: &str, json: &str) -> String {
        let quoted = json.replace('\\', "\\\\").replace('"', "\\\"");
        format!("const char strata_{name}_signature[] = \"{quoted}\";\n")
    }

    /// Builds `dir/libm.so`, a hand-written model `m` whose entry point writes `value` to its one
    /// float output, with the manifest `dir/m.json`.
    fn build(dir: &Path, value: f32) {
        let mut manifest = Manifest::parse(
            &serde_json::json!({
                "name": "m", "target": "host", "entry": "strata_m_run", "library": "libm.so",
                "inputs": [], "outputs": [{"name": "y", "dtype": "float32", "shape": [1]}],
                "arena_bytes": 0, "arena_alignment": 64, "sha256": {"code": "0".repeat(64)},
            })
            .to_string(),
        )
        .unwrap();
        let source = format!(
            "{}int strata_m_run(const void *w, void *a, const void *const *in, void *const *out) {{\n\
             *(float *)out[0] = {value:?}f; return 0; }}\n",
            signature_source("m", &manifest.embedded().to_json())
        );
        compile(dir, "libm.so.tmp", &source);
        // Replaced by a rename, as `strata compile` writes it.
        std::fs::rename(dir.join("libm.so.tmp"), dir.join("libm.so")).unwrap();
        manifest.sha256 =
            Some(Digests { code: sha256_hex(&std::fs::read(dir.join("libm.so")).unwrap()), weights: None });
        manifest.write(&dir.join("m.json")).unwrap();
    }

    fn output(model: &mut Model) -> f32 {
        let y = model.run(&[]).unwrap();
        assert_eq!(y[0].dtype(), DType::F32);
        f32::from_ne_bytes(y[0].bytes().try_into().unwrap())
    }

    #[test]
    fn a_library_recompiled_to_a_loaded_path_runs_its_new_code() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 1.0);
        let mut first = Model::load(&dir.path().join("m.json")).unwrap();
        assert_eq!(output(&mut first), 1.0);
        // Same path, same signature, other code, while the first is still loaded: the dynamic
        // loader would hand back the first object for this name.
        build(dir.path(), 2.0);
        let mut second = Model::load(&dir.path().join("m.json")).unwrap();
        assert_eq!(output(&mut second), 2.0);
        assert_eq!(output(&mut first), 1.0);
        // No private copy is left behind.
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        assert!(!names.iter().any(|n| n.starts_with(".strata-load-")), "{names:?}");
    }

    #[test]
    fn a_library_loads_without_its_manifest() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 3.0);
        std::fs::remove_file(dir.path().join("m.json")).unwrap();
        let library = dir.path().join("libm.so");
        let (manifest, _) = Manifest::read(&library).unwrap();
        assert_eq!((manifest.name.as_str(), manifest.library.as_deref()), ("m", Some("libm.so")));
        assert_eq!(manifest.sha256.unwrap().code, sha256_hex(&std::fs::read(&library).unwrap()));
        let mut model = Model::load(&library).unwrap();
        assert_eq!(output(&mut model), 3.0);
        // The library read as its manifest comes back open as hashed (a loader does not read it
        // again); a manifest brings no file.
        let (_, _, hashed) = Manifest::read_artifact(&library).unwrap();
        assert!(hashed.is_some());
        build(dir.path(), 4.0);
        let (manifest, dir, none) = Manifest::read_artifact(&dir.path().join("m.json")).unwrap();
        assert!(none.is_none());
        assert_eq!(output(&mut Model::from_read(&manifest, &dir, none).unwrap()), 4.0);
    }

    #[test]
    fn a_library_without_one_signature_of_its_own_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let read = |file: &str| Manifest::read(&dir.path().join(file)).unwrap_err().to_string();
        compile(dir.path(), "libplain.so", "int answer(void) { return 42; }\n");
        let error = read("libplain.so");
        assert!(
            error.contains("libplain.so: not a Strata library: it exports no 'strata_<name>_signature'"),
            "{error}"
        );
        compile(
            dir.path(),
            "libtwo.so",
            "const char strata_a_signature[] = \"{}\";\nconst char strata_b_signature[] = \"{}\";\n",
        );
        let error = read("libtwo.so");
        assert!(error.contains("exports several model signatures (strata_a_signature, strata_b_signature)"), "{error}");
        compile(dir.path(), "libjunk.so", "const char strata_a_signature[] = \"{\";\n");
        let error = read("libjunk.so");
        assert!(error.contains("its signature 'strata_a_signature' does not parse"), "{error}");
        // Another model's signature under this name.
        let mut other = Manifest::parse(
            &serde_json::json!({
                "name": "b", "target": "host", "entry": "strata_b_run", "library": "libb.so",
                "inputs": [], "outputs": [], "arena_bytes": 0, "arena_alignment": 64,
                "sha256": {"code": "0".repeat(64)},
            })
            .to_string(),
        )
        .unwrap();
        compile(dir.path(), "libother.so", &signature_source("a", &other.embedded().to_json()));
        let error = read("libother.so");
        assert!(error.contains("describes the host model 'b', not this host library's 'a'"), "{error}");
        // A signature of another format, and one that is not text.
        let mut future = serde_json::to_value(other.embedded()).unwrap();
        future["format"] = 2.into();
        future["name"] = "a".into();
        compile(dir.path(), "libfuture.so", &signature_source("a", &future.to_string()));
        let error = read("libfuture.so");
        assert!(error.contains("its signature 'strata_a_signature' has format 2 (this runtime reads 1)"), "{error}");
        compile(dir.path(), "libbinary.so", "const char strata_a_signature[] = \"\\xff\\xfe\";\n");
        let error = read("libbinary.so");
        assert!(error.contains("its signature 'strata_a_signature' is not UTF-8 text"), "{error}");
        // A signature that parses but fails the manifest's checks (an entry point of another name).
        other.entry = "strata_a_run".into();
        other.name = "a".into();
        other.arena_alignment = 3;
        compile(dir.path(), "libodd.so", &signature_source("a", &other.embedded().to_json()));
        let error = read("libodd.so");
        assert!(error.contains("is not one this runtime can load: arena alignment 3"), "{error}");
    }

    #[test]
    fn a_written_library_loads_from_its_open_file_even_when_its_path_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 1.0);
        let (manifest, _) = Manifest::read(&dir.path().join("m.json")).unwrap();
        let written = std::fs::File::open(dir.path().join("libm.so")).unwrap();
        let mut model = Model::from_written(&manifest, dir.path(), written).unwrap();
        assert_eq!(output(&mut model), 1.0);
        drop(model);
        // Another library renamed onto the path after the digest was taken: the bytes that
        // were hashed (the open file) are the ones loaded, not what the path names now.
        let (manifest, _) = Manifest::read(&dir.path().join("m.json")).unwrap();
        let written = std::fs::File::open(dir.path().join("libm.so")).unwrap();
        build(dir.path(), 2.0);
        let mut model = Model::from_written(&manifest, dir.path(), written).unwrap();
        assert_eq!(output(&mut model), 1.0);
    }
}
