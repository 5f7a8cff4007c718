//! The cache's key and entry checks, without compiling: entries are written by hand (a
//! library that is not a real shared object fails only the final load, which the corrupt-
//! entry tests do not reach; the round trip through a real artifact is `cargo xtask zoo`'s).

use super::*;
use crate::compile::{CompileOptions, Target};
use strata_frontend::ImportOptions;

/// Host options for tests: the defaults `strata run` would take, model name `m`, two threads.
pub(crate) fn options() -> CompileOptions {
    CompileOptions {
        import: ImportOptions::default(),
        name: "m".into(),
        strategy: "exact".into(),
        verify_each: true,
        timing: false,
        schedule: true,
        egraph: true,
        target: Target::Host,
        profile: false,
        threads: 2,
        disable: Vec::new(),
    }
}

fn model_with_external(location: &str) -> Vec<u8> {
    let tensor = onnx::TensorProto {
        name: Some("w".into()),
        data_location: Some(onnx::tensor_proto::DataLocation::External as i32),
        external_data: vec![onnx::StringStringEntryProto {
            key: Some("location".into()),
            value: Some(location.into()),
        }],
        ..Default::default()
    };
    let graph = onnx::GraphProto { initializer: vec![tensor], ..Default::default() };
    onnx::ModelProto { graph: Some(graph), ..Default::default() }.encode_to_vec()
}

#[test]
fn key_changes_with_everything_the_code_depends_on() {
    let model = model_with_external("weights.bin");
    let base = key(&model, &options(), "x86_64 znver4 +avx512f", "strata 0.1 exe a 1 2");
    let same = key(&model, &options(), "x86_64 znver4 +avx512f", "strata 0.1 exe a 1 2");
    assert_eq!(base, same);
    // Verification only checks: same code, same key.
    let mut unverified = options();
    unverified.verify_each = false;
    assert_eq!(key(&model, &unverified, "x86_64 znver4 +avx512f", "strata 0.1 exe a 1 2"), base);

    let mut differ = vec![
        key(&model_with_external("other.bin"), &options(), "x86_64 znver4 +avx512f", "strata 0.1 exe a 1 2"),
        key(&model, &options(), "x86_64 znver3 +avx2", "strata 0.1 exe a 1 2"),
        key(&model, &options(), "x86_64 znver4 +avx512f", "strata 0.1 exe a 1 3"),
    ];
    let changes: Vec<fn(&mut CompileOptions)> = vec![
        |o| o.threads = 1,
        |o| o.schedule = false,
        |o| o.egraph = false,
        |o| o.strategy = "greedy-by-size".into(),
        |o| o.name = "n".into(),
        |o| {
            o.import.input_shapes.insert("x".into(), vec![1, 3]);
        },
        |o| {
            o.import.frozen_inputs.insert("x".into(), onnx::TensorProto::default());
        },
    ];
    for change in changes {
        let mut changed = options();
        change(&mut changed);
        differ.push(key(&model, &changed, "x86_64 znver4 +avx512f", "strata 0.1 exe a 1 2"));
    }
    for (i, k) in differ.iter().enumerate() {
        assert_ne!(k.hex, base.hex, "change {i} kept the key");
    }
}

#[test]
fn external_data_bytes_are_part_of_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with_external("weights.bin");
    let mut opts = options();
    opts.import.base_dir = Some(dir.path().to_owned());
    let missing = key(&model, &opts, "h", "b");
    assert!(missing.description.contains("\"weights.bin\" missing"), "{}", missing.description);
    std::fs::write(dir.path().join("weights.bin"), [1u8, 2, 3]).unwrap();
    let first = key(&model, &opts, "h", "b");
    std::fs::write(dir.path().join("weights.bin"), [1u8, 2, 4]).unwrap();
    let second = key(&model, &opts, "h", "b");
    assert_ne!(first.hex, missing.hex);
    assert_ne!(first.hex, second.hex);
}

#[test]
fn external_locations_are_found_in_subgraphs_and_functions() {
    let external = |location: &str| onnx::TensorProto {
        external_data: vec![onnx::StringStringEntryProto {
            key: Some("location".into()),
            value: Some(location.into()),
        }],
        ..Default::default()
    };
    let inner = onnx::GraphProto { initializer: vec![external("then.bin")], ..Default::default() };
    let node = onnx::NodeProto {
        attribute: vec![
            onnx::AttributeProto { g: Some(inner), ..Default::default() },
            onnx::AttributeProto { t: Some(external("value.bin")), ..Default::default() },
        ],
        ..Default::default()
    };
    let function_node = onnx::NodeProto {
        attribute: vec![onnx::AttributeProto { tensors: vec![external("f.bin")], ..Default::default() }],
        ..Default::default()
    };
    let model = onnx::ModelProto {
        graph: Some(onnx::GraphProto { node: vec![node], ..Default::default() }),
        functions: vec![onnx::FunctionProto { node: vec![function_node], ..Default::default() }],
        ..Default::default()
    };
    assert_eq!(external_locations(&model), ["f.bin", "then.bin", "value.bin"]);
}

/// Writes an entry for `key` by hand: a "library", a manifest naming its SHA-256, a record
/// naming the BLAKE3 digest of `recorded`.
fn write_entry(root: &Path, key: &Key, library: &[u8], recorded: &[u8]) {
    let dir = root.join(&key.hex);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(LIBRARY), library).unwrap();
    let manifest = serde_json::json!({
        "name": "model", "target": "host", "entry": "strata_model_run", "library": LIBRARY,
        "inputs": [], "outputs": [], "arena_bytes": 0, "arena_alignment": 64,
        "sha256": { "code": strata_runtime::manifest::sha256_hex(library) },
    });
    std::fs::write(dir.join(MANIFEST), manifest.to_string()).unwrap();
    let record = Record {
        format: FORMAT,
        key: key.hex.clone(),
        library: blake3::hash(recorded).to_hex().to_string(),
        arena_lower_bound: None,
        warnings: vec![],
        description: key.description.clone(),
    };
    std::fs::write(dir.join(RECORD), serde_json::to_string(&record).unwrap()).unwrap();
}

#[test]
fn corrupt_entries_are_detected_and_removed() {
    let root = tempfile::tempdir().unwrap();
    let cache = Cache::open(Some(root.path().to_owned())).unwrap();
    let k = key(b"model", &options(), "h", "b");
    assert_eq!(cache.lookup(&k).err(), Some(Miss::Absent));

    // A library that does not match its recorded digest (truncated, edited).
    write_entry(root.path(), &k, b"library", b"the library as written");
    assert!(matches!(cache.lookup(&k), Err(Miss::Corrupt(why)) if why.contains("BLAKE3")));
    assert!(!root.path().join(&k.hex).exists(), "the corrupt entry is removed");
    // A library replaced by a link (even to the right bytes) is not followed.
    write_entry(root.path(), &k, b"lib", b"lib");
    let elsewhere = root.path().join("elsewhere.so");
    std::fs::rename(root.path().join(&k.hex).join(LIBRARY), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.path().join(&k.hex).join(LIBRARY)).unwrap();
    assert!(matches!(cache.lookup(&k), Err(Miss::Corrupt(why)) if why.contains("it is a symbolic link")));

    // A record naming another key (an entry copied under the wrong name).
    let other = key(b"other model", &options(), "h", "b");
    write_entry(root.path(), &other, b"lib", b"lib");
    std::fs::rename(root.path().join(&other.hex), root.path().join(&k.hex)).unwrap();
    assert!(matches!(cache.lookup(&k), Err(Miss::Corrupt(why)) if why.contains("another key")));

    // A record that does not parse, and an entry without a record.
    write_entry(root.path(), &k, b"lib", b"lib");
    std::fs::write(root.path().join(&k.hex).join(RECORD), "{").unwrap();
    assert!(matches!(cache.lookup(&k), Err(Miss::Corrupt(_))));
    write_entry(root.path(), &k, b"lib", b"lib");
    std::fs::remove_file(root.path().join(&k.hex).join(RECORD)).unwrap();
    assert!(matches!(cache.lookup(&k), Err(Miss::Corrupt(_))));

    // A matching digest but no loadable artifact (the library is not a shared object).
    write_entry(root.path(), &k, b"lib", b"lib");
    assert!(matches!(cache.lookup(&k), Err(Miss::Corrupt(why)) if why.contains("does not load")));
    assert!(!root.path().join(&k.hex).exists());
}

#[test]
fn eviction_keeps_the_cache_under_its_bound_least_recently_used_first() {
    let root = tempfile::tempdir().unwrap();
    let keys: Vec<Key> = (0..3).map(|i| key(format!("model {i}").as_bytes(), &options(), "h", "b")).collect();
    for (i, k) in keys.iter().enumerate() {
        write_entry(root.path(), k, &[0u8; 1000], &[0u8; 1000]);
        let used = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + i as u64);
        std::fs::File::options()
            .append(true)
            .open(root.path().join(&k.hex).join(RECORD))
            .unwrap()
            .set_modified(used)
            .unwrap();
    }
    // Room for two of the three entries.
    let size: Vec<u64> = keys.iter().map(|k| dir_size(&root.path().join(&k.hex))).collect();
    let cache = Cache { root: root.path().to_owned(), max_bytes: size[0] + size[2] + 10 };
    // A crashed run's temporary directory, two hours old.
    let stale = root.path().join(".tmp-crashed");
    std::fs::create_dir(&stale).unwrap();
    std::fs::File::options()
        .read(true)
        .open(&stale)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(7200))
        .unwrap();
    cache.evict(&root.path().join(&keys[0].hex));
    // The least recently used entry that is not being kept (entry 1) goes; that is enough.
    assert!(root.path().join(&keys[0].hex).exists(), "the entry being inserted is kept");
    assert!(!root.path().join(&keys[1].hex).exists());
    assert!(root.path().join(&keys[2].hex).exists());
    assert!(!stale.exists());
}

/// The cache's callers map the model file: the bytes are the file's, an empty file (which
/// cannot be mapped) reads as empty, and the owned copy for a compile equals the mapping.
#[test]
fn model_bytes_map_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.onnx");
    std::fs::write(&path, b"model bytes").unwrap();
    let bytes = crate::compile::ModelBytes::open(&path).unwrap();
    assert!(matches!(bytes, crate::compile::ModelBytes::Mapped(_)));
    assert_eq!(bytes.as_slice(), b"model bytes");
    let k = key(bytes.as_slice(), &options(), "host", "build");
    assert_eq!(k, key(b"model bytes", &options(), "host", "build"));
    assert_eq!(&*bytes.into_bytes(), b"model bytes");
    let empty = dir.path().join("empty.onnx");
    std::fs::write(&empty, b"").unwrap();
    assert!(crate::compile::ModelBytes::open(&empty).unwrap().as_slice().is_empty());
    assert!(crate::compile::ModelBytes::open(&dir.path().join("absent.onnx")).is_err());
}
