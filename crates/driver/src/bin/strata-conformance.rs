//! `strata-conformance DIR`: imports every ONNX node-test case under DIR (as written by
//! `cargo xtask onnx-tests`) and prints, per op type, how many cases imported and verified,
//! ended with a clean "unsupported" error, or failed. Writes the failures to
//! `DIR/../import-report.md`. Exit status 1 if any case panicked.
//!
//! Integer inputs (shape operands such as Reshape's shape or Slice's starts, in node tests
//! graph inputs with test data) are frozen to the values of the case's first data set, as a
//! static-shape compiler must; floating-point inputs stay run-time arguments. Import is the
//! bar for now; execution joins when lowering exists.

use prost::Message;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use strata_frontend::onnx::{tensor_proto::DataType, GraphProto, ModelProto, TensorProto};
use strata_frontend::{import, ImportOptions};

#[derive(Default)]
struct Row {
    cases: usize,
    imported: usize,
    unsupported: usize,
    failed: usize,
    panicked: usize,
}

/// The integer-typed graph inputs of a case with their values from `test_data_set_0`.
fn integer_inputs(case: &Path, graph: &GraphProto) -> BTreeMap<String, TensorProto> {
    let initializers: Vec<&str> = graph.initializer.iter().map(|t| t.name()).collect();
    let inputs = graph.input.iter().filter(|i| !initializers.contains(&i.name()));
    let mut frozen = BTreeMap::new();
    for (index, input) in inputs.enumerate() {
        let path = case.join("test_data_set_0").join(format!("input_{index}.pb"));
        let Some(tensor) = std::fs::read(&path).ok().and_then(|b| TensorProto::decode(b.as_slice()).ok()) else { continue };
        let integer = matches!(DataType::try_from(tensor.data_type()), Ok(DataType::Int64 | DataType::Int32));
        if integer {
            frozen.insert(input.name().to_owned(), tensor);
        }
    }
    frozen
}

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).expect("usage: strata-conformance DIR [FILTER]"));
    let filter = std::env::args().nth(2).unwrap_or_default();
    let strata = strata_driver::context().unwrap_or_else(|e| panic!("{e}"));
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("model.onnx").exists() && p.display().to_string().contains(&filter))
        .collect();
    cases.sort();
    // The op a case tests: its single node's type; an `_expanded` case counts for the op of
    // the case it expands, which sorts (and so is seen) before it.
    let mut op_of: BTreeMap<String, String> = BTreeMap::new();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let bytes = std::fs::read(case.join("model.onnx")).unwrap_or_default();
        let graph = ModelProto::decode(bytes.as_slice()).ok().and_then(|m| m.graph);
        let single = graph.as_ref().filter(|g| g.node.len() == 1).map(|g| g.node[0].op_type().to_owned());
        op_of.insert(name.clone(), single.clone().unwrap_or_default());
        let base = name.trim_end_matches("_expanded").trim_end_matches("_expanded_ver18");
        let op = match single {
            Some(op) => op,
            None => op_of.get(base).filter(|o| !o.is_empty()).cloned().unwrap_or_else(|| "(multi-node)".into()),
        };
        let row = rows.entry(op).or_default();
        row.cases += 1;
        let options = ImportOptions {
            file_name: format!("{name}/model.onnx"),
            base_dir: Some(case.clone()),
            frozen_inputs: graph.as_ref().map(|g| integer_inputs(case, g)).unwrap_or_default(),
            ..Default::default()
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| import(&strata, &bytes, &options).map(|_| ())));
        match outcome {
            Ok(Ok(())) => row.imported += 1,
            Ok(Err(e)) if e.is_unsupported() => row.unsupported += 1,
            Ok(Err(e)) => {
                row.failed += 1;
                failures.push(format!("- `{name}`: {}", e.to_string().replace('\n', " ")));
            }
            Err(_) => {
                row.panicked += 1;
                failures.push(format!("- `{name}`: PANIC"));
            }
        }
    }
    let mut table = format!("{:<28} {:>6} {:>9} {:>12} {:>7} {:>8}\n", "op", "cases", "imported", "unsupported", "failed", "panics");
    let mut total = Row::default();
    for (op, row) in &rows {
        if row.imported + row.failed + row.panicked > 0 {
            table.push_str(&format!("{op:<28} {:>6} {:>9} {:>12} {:>7} {:>8}\n", row.cases, row.imported, row.unsupported, row.failed, row.panicked));
        }
        total.cases += row.cases;
        total.imported += row.imported;
        total.unsupported += row.unsupported;
        total.failed += row.failed;
        total.panicked += row.panicked;
    }
    let others = rows.values().filter(|r| r.imported + r.failed + r.panicked == 0).count();
    table.push_str(&format!("({others} more op types: every case a clean unsupported error)\n"));
    table.push_str(&format!(
        "{:<28} {:>6} {:>9} {:>12} {:>7} {:>8}\n",
        "total", total.cases, total.imported, total.unsupported, total.failed, total.panicked
    ));
    print!("{table}");
    let report = dir.parent().unwrap_or(Path::new(".")).join("import-report.md");
    let text = format!("# ONNX node tests: import\n\n```\n{table}```\n\n## Failures\n\n{}\n", failures.join("\n"));
    if let Err(e) = std::fs::write(&report, text) {
        eprintln!("cannot write {}: {e}", report.display());
    } else {
        println!("report: {}", report.display());
    }
    std::process::exit(i32::from(total.panicked > 0));
}
