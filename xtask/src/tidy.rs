//! Tidy checks, run as ordinary tests (`cargo test -p xtask`, part of `cargo xtask test`).
//!
//! - every crate's `lib.rs` (or `main.rs` for binary-only crates) opens with a `//!` paragraph;
//! - no Rust source file is longer than 1000 lines;
//! - no `HashMap`/`HashSet` in Rust sources: anything that may be printed or iterated must
//!   have a deterministic order (`BTreeMap`, `IndexMap`). A line that really needs a hash map
//!   (lookup only, never iterated) says so with `// tidy: hash-lookup-only`.
//!
//! - the crate graph: every dependency edge between workspace crates is exactly the one that
//!   `docs/architecture.md` documents (its `crate-graph` block), crates marked `[no-mlir]`
//!   depend on no MLIR or LLVM binding (directly or through another crate), and only
//!   `strata-ir` depends on `mlir-sys` or names `mlir_sys` (the C API stays behind its facade);
//! - no `ContextRef::to_ref()` on a temporary (`x.context().to_ref()`): melior's `to_ref` returns
//!   a reference into the `ContextRef` itself, so it dangles when the temporary is dropped (a
//!   release-only crash in `mlirStringAttrGet`). Bind the `ContextRef` to a local first.
//! - no sg op is matched by its name string (`"sg.`) below the dialect: the lowering and the
//!   adapters match the generated `SgOp` enum.
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

/// Every line of the Rust sources (this file aside) that `select` picks, as `path:line: text`.
fn source_lines_where(select: impl Fn(&str) -> bool) -> Vec<String> {
    let mut hits = Vec::new();
    for path in rust_files() {
        if path.ends_with("xtask/src/tidy.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (index, line) in text.lines().enumerate() {
            if select(line) {
                hits.push(format!("{}:{}: {}", path.display(), index + 1, line.trim()));
            }
        }
    }
    hits
}

#[test]
fn no_hash_collections_in_sources() {
    let hits = source_lines_where(|line| {
        (line.contains("HashMap") || line.contains("HashSet")) && !line.contains("tidy: hash-lookup-only")
    });
    assert!(hits.is_empty(), "use BTreeMap/IndexMap (deterministic order) instead of:\n{}", hits.join("\n"));
}

#[test]
fn no_to_ref_on_a_temporary_context() {
    let hits = source_lines_where(|line| line.contains(".context().to_ref()"));
    assert!(
        hits.is_empty(),
        "bind the ContextRef to a local before `to_ref()` (it would dangle):\n{}",
        hits.join("\n")
    );
}

/// Crates that may link MLIR or LLVM bindings only through a workspace crate that is allowed to.
const BINDINGS: &[&str] = &["melior", "mlir-sys", "inkwell", "llvm-sys"];

/// One crate of the documented graph.
#[derive(Debug)]
struct Documented {
    deps: std::collections::BTreeSet<String>,
    no_mlir: bool,
}

/// The `crate-graph` block of `docs/architecture.md`: `name [no-mlir] -> dep, dep`.
fn documented_graph() -> std::collections::BTreeMap<String, Documented> {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md");
    let start = text.find("```crate-graph\n").expect("docs/architecture.md has a ```crate-graph block");
    let block = &text[start + "```crate-graph\n".len()..];
    let block = &block[..block.find("```").expect("the crate-graph block is closed")];
    let mut graph = std::collections::BTreeMap::new();
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (left, right) = line.split_once("->").unwrap_or((line, ""));
        let no_mlir = left.contains("[no-mlir]");
        let name = left.replace("[no-mlir]", "").trim().to_owned();
        let deps = right.split(',').map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned).collect();
        assert!(graph.insert(name.clone(), Documented { deps, no_mlir }).is_none(), "{name} is listed twice");
    }
    graph
}

/// Every workspace package with its dependencies (any kind), from `cargo metadata`.
fn workspace_graph() -> std::collections::BTreeMap<String, Vec<String>> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let mut graph = std::collections::BTreeMap::new();
    for package in metadata["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("a package name").to_owned();
        let deps = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .map(|d| d["name"].as_str().expect("a dependency name").to_owned())
            .collect();
        graph.insert(name, deps);
    }
    graph
}

#[test]
fn crate_graph_is_the_documented_one() {
    let documented = documented_graph();
    let actual = workspace_graph();
    let mut problems = Vec::new();
    for (name, deps) in &actual {
        let Some(doc) = documented.get(name) else {
            problems.push(format!("{name} is not in the crate-graph block of docs/architecture.md"));
            continue;
        };
        let internal: std::collections::BTreeSet<String> =
            deps.iter().filter(|d| actual.contains_key(*d)).cloned().collect();
        for extra in internal.difference(&doc.deps) {
            problems.push(format!("{name} -> {extra} is not a documented edge"));
        }
        for missing in doc.deps.difference(&internal) {
            problems.push(format!("{name} -> {missing} is documented but {name} does not depend on it"));
        }
        if doc.no_mlir {
            for dep in deps.iter().filter(|d| BINDINGS.contains(&d.as_str())) {
                problems.push(format!("{name} is [no-mlir] but depends on {dep}"));
            }
            for dep in internal.iter().filter(|d| documented.get(*d).is_some_and(|d| !d.no_mlir)) {
                problems.push(format!("{name} is [no-mlir] but depends on {dep}, which links MLIR or LLVM"));
            }
        }
        if deps.iter().any(|d| d == "mlir-sys") && name != "strata-ir" {
            problems.push(format!("{name} depends on mlir-sys; only strata-ir may (add what it needs to its facade)"));
        }
    }
    for name in documented.keys().filter(|n| !actual.contains_key(*n)) {
        problems.push(format!("{name} is documented but is not a workspace crate"));
    }
    assert!(problems.is_empty(), "the crate graph differs from docs/architecture.md:\n{}", problems.join("\n"));
}

#[test]
fn only_strata_ir_calls_the_c_api() {
    let ir = root().join("crates/ir");
    let hits: Vec<String> = rust_files()
        .into_iter()
        .filter(|p| !p.starts_with(&ir) && !p.ends_with("xtask/src/tidy.rs"))
        .flat_map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            text.lines()
                .enumerate()
                .filter(|(_, line)| line.contains("mlir_sys"))
                .map(|(i, line)| format!("{}:{}: {}", path.display(), i + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        hits.is_empty(),
        "MLIR's C API outside strata-ir (use strata_ir::handle, llvm, resource):\n{}",
        hits.join("\n")
    );
}

#[test]
fn no_sg_op_name_matching_below_the_dialect() {
    let below: Vec<PathBuf> = ["lower", "egraph-mlir", "plan-mlir", "target-cpu", "target-nvptx"]
        .iter()
        .map(|c| root().join("crates").join(c))
        .collect();
    let hits: Vec<String> = rust_files()
        .into_iter()
        .filter(|p| below.iter().any(|b| p.starts_with(b)))
        .flat_map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            text.lines()
                .enumerate()
                .filter(|(_, line)| line.contains("\"sg."))
                .map(|(i, line)| format!("{}:{}: {}", path.display(), i + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(hits.is_empty(), "match sg ops through strata_dialect_sg::SgOp, not by name:\n{}", hits.join("\n"));
}
