//! Tidy checks, run as ordinary tests (`cargo test -p xtask`, part of `cargo xtask test`).
//!
//! - every crate's `lib.rs` (or `main.rs` for binary-only crates) opens with a `//!` paragraph;
//! - no Rust source file is longer than 1000 lines;
//! - no `HashMap`/`HashSet` in Rust sources: anything that may be printed or iterated must
//!   have a deterministic order (`BTreeMap`, `IndexMap`). A line that really needs a hash map
//!   (lookup only, never iterated) says so with `// tidy: hash-lookup-only`.
//!
//! The check that every registered pass has a lit test needs the pass registry (and so MLIR);
//! it lives in the lit harness (`crates/driver/tests/lit.rs`).

use crate::root;
use std::path::PathBuf;

const MAX_LINES: usize = 1000;

fn rust_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["crates", "dialects", "xtask"]
        .iter()
        .flat_map(|dir| {
            walkdir::WalkDir::new(root().join(dir)).into_iter().filter_entry(|e| e.file_name() != "target").flatten()
        })
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

fn crate_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("xtask")];
    for parent in ["crates", "dialects"] {
        if let Ok(entries) = std::fs::read_dir(root().join(parent)) {
            dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.join("Cargo.toml").exists()));
        }
    }
    dirs.sort();
    dirs
}

#[test]
fn every_crate_has_a_doc_paragraph() {
    let mut bad = Vec::new();
    for dir in crate_dirs() {
        let lib = dir.join("src/lib.rs");
        let entry = if lib.exists() { lib } else { dir.join("src/main.rs") };
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        if !text.trim_start().starts_with("//!") {
            bad.push(entry.display().to_string());
        }
    }
    assert!(bad.is_empty(), "crate roots without a `//!` paragraph: {bad:?}");
}

#[test]
fn no_file_is_too_long() {
    let long: Vec<String> = rust_files()
        .into_iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(&path).ok()?.lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines (split them): {long:?}");
}

#[test]
fn no_hash_collections_in_sources() {
    let mut hits = Vec::new();
    for path in rust_files() {
        if path.ends_with("xtask/src/tidy.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (index, line) in text.lines().enumerate() {
            if (line.contains("HashMap") || line.contains("HashSet")) && !line.contains("tidy: hash-lookup-only") {
                hits.push(format!("{}:{}: {}", path.display(), index + 1, line.trim()));
            }
        }
    }
    assert!(hits.is_empty(), "use BTreeMap/IndexMap (deterministic order) instead of:\n{}", hits.join("\n"));
}
