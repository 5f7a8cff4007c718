//! `strata-conformance DIR [FILTER]`: compiles and runs every ONNX node-test case under DIR (as
//! written by `cargo xtask onnx-tests`) and compares each output with the expected one, at
//! the case's own tolerance (`tolerance.txt`: rtol atol; ONNX's defaults are 1e-3 and 1e-7;
//! integers and booleans must match exactly). Prints, per op type, how many cases passed,
//! mismatched (with the largest error), ended with a clean "unsupported" error (import or
//! lowering), or failed; writes every non-passing case with its cause to
//! `DIR/../conformance-report.md`. Exit status 1 if any case panicked or failed (an internal
//! error, a compile or run that should have worked: CI gates on it; mismatches and clean
//! "unsupported" errors are reported, not fatal).
//!
//! With `--suite NAME` the directory is one of the data-carrying suites the onnx wheel ships
//! (`light`, `pytorch-converted`, ...; written in the same layout by `cargo xtask
//! onnx-tests`): the table has a row per case instead of per op type, and the report is
//! `DIR/../NAME-report.md`.
//!
//! With `--bundle OUT`, each case is compiled for the GPU instead (`--chip`, default sm_80) and
//! written with its first data set as a bundle under OUT for `strata-exec check OUT` on a
//! machine with a GPU; "passed" then means "bundled".
//!
//! `--threads N`, `--no-egraph`, `--no-schedule` and `--disable LIST` compile every case as
//! `strata run` does with those options (and run it on N threads): a sweep over them checks
//! that no optimisation, and no thread count the kernels are split for, changes a result.
//!
//! Shape operands (integer inputs such as Reshape's shape or Slice's starts, and inputs read in
//! a shape position such as Resize's scales; in node tests graph inputs with test data) are
//! frozen to the values of the case's first data set, as a static-shape compiler must; the
//! other inputs stay run-time arguments.

use prost::Message;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use strata_driver::compile::{compile, compile_model, CompileOptions, Optimization, Stage, Target};
use strata_frontend::onnx::{tensor_proto::DataType, GraphProto, ModelProto, TensorProto};
use strata_frontend::{inline_bytes, ImportOptions};
use strata_runtime::manifest::ArtifactPaths;
use strata_runtime::{compare, DType, Tensor};

#[path = "../allocator.rs"]
mod allocator;

/// The op types of the ONNX-import issue's list: "listed ops" in the report are these (a case
/// named after one of them that does not pass counts against the list).
const LISTED: &[&str] = &[
    "Conv",
    "ConvTranspose",
    "MatMul",
    "Gemm",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Max",
    "Min",
    "Sum",
    "Neg",
    "Abs",
    "Reciprocal",
    "Sqrt",
    "Exp",
    "Log",
    "Erf",
    "Tanh",
    "Sigmoid",
    "Relu",
    "LeakyRelu",
    "Clip",
    "HardSigmoid",
    "HardSwish",
    "Gelu",
    "Softmax",
    "LogSoftmax",
    "LayerNormalization",
    "BatchNormalization",
    "InstanceNormalization",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "ReduceMean",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL2",
    "Reshape",
    "Flatten",
    "Transpose",
    "Slice",
    "Squeeze",
    "Unsqueeze",
    "Concat",
    "Split",
    "Expand",
    "Gather",
    "Where",
    "Equal",
    "Less",
    "Greater",
    "Not",
    "Cast",
    "Identity",
    "Dropout",
    "Pad",
    "Resize",
    "Tile",
    "Shape",
    "Size",
    "ConstantOfShape",
    "Range",
];

#[derive(Default)]
struct Row {
    cases: usize,
    passed: usize,
    mismatched: usize,
    unsupported: usize,
    failed: usize,
    panicked: usize,
}

enum Outcome {
    Passed,
    Mismatch(String),
    Unsupported(String),
    Failed(String),
}

/// The graph inputs that are not initializers, in order.
fn runtime_inputs(graph: &GraphProto) -> Vec<String> {
    let initializers: Vec<&str> = graph.initializer.iter().map(|t| t.name()).collect();
    graph.input.iter().filter(|i| !initializers.contains(&i.name())).map(|i| i.name().to_owned()).collect()
}

fn read_proto(path: &Path) -> Option<TensorProto> {
    std::fs::read(path).ok().and_then(|b| TensorProto::decode(b.as_slice()).ok())
}

/// The graph inputs of a case that a static-shape compiler needs as constants, with their
/// values from `test_data_set_0`: integer inputs (shape operands in node tests) and inputs
/// that a shape position depends on (`strata_frontend::shape_operands`: Resize's scales,
/// Range's bounds, a Loop's trip count ...), directly or through the nodes that compute it
/// (ONNX's function expansions compute a trip count from the inputs).
fn shape_inputs(case: &Path, graph: &GraphProto) -> BTreeMap<String, TensorProto> {
    let mut needed: BTreeSet<&str> = BTreeSet::new();
    // Nodes are in topological order: walking them backwards sees every consumer first.
    for n in graph.node.iter().rev() {
        let positions = strata_frontend::shape_operands(n.op_type());
        needed.extend(positions.iter().filter_map(|&k| n.input.get(k)).map(String::as_str));
        if n.output.iter().any(|o| needed.contains(o.as_str())) {
            needed.extend(n.input.iter().map(String::as_str));
        }
    }
    let in_shape_position = |name: &str| needed.contains(name);
    let mut frozen = BTreeMap::new();
    for (index, name) in runtime_inputs(graph).into_iter().enumerate() {
        // A sequence's or an optional's data is not a TensorProto.
        let tensor_typed = graph.input.iter().find(|i| i.name() == name).is_some_and(|i| {
            matches!(
                i.r#type.as_ref().and_then(|t| t.value.as_ref()),
                Some(strata_frontend::onnx::type_proto::Value::TensorType(_))
            )
        });
        if !tensor_typed {
            continue;
        }
        let Some(tensor) = read_proto(&case.join("test_data_set_0").join(format!("input_{index}.pb"))) else {
            continue;
        };
        if matches!(DataType::try_from(tensor.data_type()), Ok(DataType::Int64 | DataType::Int32))
            || in_shape_position(&name)
        {
            frozen.insert(name, tensor);
        }
    }
    frozen
}

/// Static shapes, from `test_data_set_0`, for the runtime inputs whose declared shape has a
/// symbolic or unknown dimension (as a user passes `--input-shape`).
fn data_shapes(case: &Path, graph: &GraphProto) -> BTreeMap<String, Vec<i64>> {
    let mut shapes = BTreeMap::new();
    for (index, name) in runtime_inputs(graph).into_iter().enumerate() {
        let declared = graph.input.iter().find(|i| i.name() == name).and_then(|i| i.r#type.as_ref());
        let tensor_type = declared.and_then(|t| match &t.value {
            Some(strata_frontend::onnx::type_proto::Value::TensorType(t)) => Some(t),
            _ => None,
        });
        let symbolic = tensor_type.is_some_and(|t| {
            t.shape.as_ref().is_none_or(|s| {
                s.dim.iter().any(|d| {
                    !matches!(d.value, Some(strata_frontend::onnx::tensor_shape_proto::dimension::Value::DimValue(_)))
                })
            })
        });
        if !symbolic {
            continue;
        }
        if let Some(tensor) = read_proto(&case.join("test_data_set_0").join(format!("input_{index}.pb"))) {
            shapes.insert(name, tensor.dims.clone());
        }
    }
    shapes
}

fn to_tensor(proto: &TensorProto) -> Result<Tensor, String> {
    let data_type = DataType::try_from(proto.data_type()).map_err(|_| "unknown data type".to_string())?;
    let dtype = match data_type {
        DataType::Float => DType::F32,
        DataType::Double => DType::F64,
        DataType::Float16 => DType::F16,
        DataType::Bfloat16 => DType::BF16,
        DataType::Int8 => DType::I8,
        DataType::Int16 => DType::I16,
        DataType::Int32 => DType::I32,
        DataType::Int64 => DType::I64,
        DataType::Uint8 => DType::U8,
        DataType::Uint16 => DType::U16,
        DataType::Uint32 => DType::U32,
        DataType::Uint64 => DType::U64,
        DataType::Bool => DType::Bool,
        DataType::Int4 => DType::I4,
        DataType::Uint4 => DType::U4,
        DataType::Int2 => DType::I2,
        DataType::Uint2 => DType::U2,
        DataType::Float8e4m3fn => DType::F8E4M3FN,
        DataType::Float8e4m3fnuz => DType::F8E4M3FNUZ,
        DataType::Float8e5m2 => DType::F8E5M2,
        DataType::Float8e5m2fnuz => DType::F8E5M2FNUZ,
        DataType::Float4e2m1 => DType::F4E2M1,
        DataType::Float8e8m0 => DType::F8E8M0,
        other => return Err(format!("unsupported: test data of type {}", other.as_str_name())),
    };
    let bytes = inline_bytes(proto, data_type).map_err(|e| e.to_string())?;
    let shape: Vec<usize> = proto.dims.iter().map(|&d| d as usize).collect();
    Tensor::from_bytes(dtype, &shape, &bytes).map_err(|e| e.to_string())
}

/// `None` when `actual` matches `expected`; otherwise what differs.
/// The case's tolerance (`tolerance.txt`: rtol atol), or ONNX's defaults.
fn tolerance(case: &Path) -> (f64, f64) {
    std::fs::read_to_string(case.join("tolerance.txt"))
        .ok()
        .and_then(|t| {
            let mut parts = t.split_whitespace().map(|p| p.parse::<f64>().ok());
            Some((parts.next()??, parts.next()??))
        })
        .unwrap_or((1e-3, 1e-7))
}

/// The data sets (`test_data_set_*`) of a case, in order.
fn data_sets(case: &Path) -> Vec<PathBuf> {
    let mut sets: Vec<PathBuf> =
        std::fs::read_dir(case).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    sets.sort();
    sets
}

/// The run-time inputs of a data set, in the order of `signature`.
fn read_inputs(set: &Path, signature: &strata_runtime::Signature, graph: &GraphProto) -> Result<Vec<Tensor>, Outcome> {
    let names = runtime_inputs(graph);
    let mut inputs = Vec::new();
    for spec in &signature.inputs {
        let Some(index) = names.iter().position(|n| *n == spec.name) else {
            return Err(Outcome::Failed(format!("input '{}' is not a graph input", spec.name)));
        };
        let Some(proto) = read_proto(&set.join(format!("input_{index}.pb"))) else {
            return Err(Outcome::Unsupported(format!(
                "unsupported: input {index} of {} is not a tensor",
                set.display()
            )));
        };
        inputs.push(to_tensor(&proto).map_err(Outcome::Unsupported)?);
    }
    Ok(inputs)
}

/// The expected outputs of a data set.
fn read_expected(set: &Path, count: usize) -> Result<Vec<Tensor>, Outcome> {
    (0..count)
        .map(|index| {
            let proto = read_proto(&set.join(format!("output_{index}.pb"))).ok_or_else(|| {
                Outcome::Unsupported(format!("unsupported: output {index} of {} is not a tensor", set.display()))
            })?;
            to_tensor(&proto).map_err(Outcome::Unsupported)
        })
        .collect()
}

/// The flags followed by a value (the other arguments are the directory and the filter).
const VALUE_FLAGS: &[&str] = &["--suite", "--bundle", "--chip", "--threads", "--disable"];

/// The compile options a sweep varies (`--threads`, `--no-egraph`, `--no-schedule`,
/// `--disable`); the defaults are `strata run`'s.
struct Variant {
    threads: usize,
    egraph: bool,
    schedule: bool,
    disable: Vec<Optimization>,
}

impl Variant {
    /// The variant the command line asks for, or why it is not one.
    fn from_args(args: &[String], flag: impl Fn(&str) -> Option<String>) -> Result<Variant, String> {
        let threads = match flag("--threads") {
            None => strata_driver::compile::default_threads(),
            Some(n) => n
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("--threads takes a positive count, not '{n}'"))?,
        };
        let disable = match flag("--disable") {
            None => Vec::new(),
            Some(list) => {
                list.split(',').filter(|w| !w.is_empty()).map(Optimization::parse).collect::<Result<_, _>>()?
            }
        };
        Ok(Variant {
            threads,
            egraph: !args.iter().any(|a| a == "--no-egraph"),
            schedule: !args.iter().any(|a| a == "--no-schedule"),
            disable: Optimization::canonical(disable),
        })
    }
}

fn options(case: &Path, name: &str, graph: &GraphProto, target: Target, variant: &Variant) -> CompileOptions {
    CompileOptions {
        import: ImportOptions {
            file_name: format!("{name}/model.onnx"),
            base_dir: Some(case.to_path_buf()),
            frozen_inputs: shape_inputs(case, graph),
            input_shapes: data_shapes(case, graph),
            run_shapes: Default::default(),
            max_constant_bytes: None,
            whole_rows: false,
            integer_products: false,
            half_in_f32: false,
        },
        name: "case".into(),
        strategy: "exact".into(),
        verify_each: true,
        timing: false,
        schedule: variant.schedule,
        target,
        egraph: variant.egraph,
        profile: false,
        threads: variant.threads,
        disable: variant.disable.clone(),
    }
}

/// One node-test case: its directory, name, model bytes and graph.
struct Case<'a> {
    path: &'a Path,
    name: &'a str,
    bytes: &'a [u8],
    graph: &'a GraphProto,
}

fn run_case(strata: &strata_ir::StrataContext, case: &Case, variant: &Variant) -> Outcome {
    let Case { path: case, name, bytes, graph } = *case;
    let options = options(case, name, graph, Target::Host, variant);
    let mut model = match compile_model(strata, bytes.into(), &options, &mut |_| {}) {
        Ok(compiled) => compiled.model,
        Err(error) if error.is_unsupported() => return Outcome::Unsupported(error.message),
        Err(error) => return Outcome::Failed(error.message),
    };
    let (rtol, atol) = tolerance(case);
    for set in &data_sets(case) {
        let inputs = match read_inputs(set, model.signature(), graph) {
            Ok(inputs) => inputs,
            Err(outcome) => return outcome,
        };
        let outputs = match model.run(&inputs) {
            Ok(outputs) => outputs,
            Err(e) => return Outcome::Failed(e.to_string()),
        };
        let expected = match read_expected(set, outputs.len()) {
            Ok(expected) => expected,
            Err(outcome) => return outcome,
        };
        for (index, (actual, expected)) in outputs.iter().zip(&expected).enumerate() {
            let comparison = compare(actual, expected, rtol, atol);
            if !comparison.passed() {
                return Outcome::Mismatch(format!("output {index}: {}", comparison.describe(rtol, atol)));
            }
        }
    }
    Outcome::Passed
}

/// Compiles a case for the GPU and writes it as a bundle for `strata-exec check`:
/// `<out>/<case>/model.{ptx,json,weights.bin}`, the first data set's inputs and expected
/// outputs as `.npy`, `tolerance.txt` and `op.txt`. `Passed` means "bundled".
fn bundle_case(
    strata: &strata_ir::StrataContext,
    case: &Case,
    variant: &Variant,
    (out, chip, op): (&Path, &str, &str),
) -> Outcome {
    let Case { path: case, name, bytes, graph } = *case;
    let options = options(case, name, graph, Target::Nvptx, variant);
    let compiled = match compile(strata, bytes.into(), &options, Stage::Gpu, &mut |_| {}) {
        Ok(compiled) => compiled,
        Err(error) if error.is_unsupported() => return Outcome::Unsupported(error.message),
        Err(error) => return Outcome::Failed(error.message),
    };
    let Some(set) = data_sets(case).into_iter().next() else {
        return Outcome::Unsupported("unsupported: the case has no data set".into());
    };
    let inputs = match read_inputs(&set, &compiled.signature, graph) {
        Ok(inputs) => inputs,
        Err(outcome) => return outcome,
    };
    let expected = match read_expected(&set, compiled.signature.outputs.len()) {
        Ok(expected) => expected,
        Err(outcome) => return outcome,
    };
    let dir = out.join(name);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Outcome::Failed(format!("cannot create {}: {e}", dir.display()));
    }
    let paths = ArtifactPaths::for_output(&dir.join("model.ptx"));
    if let Err(e) =
        strata_target_nvptx::artifact::write(strata, &compiled.module, &compiled.signature, "case", chip, &paths)
    {
        let _ = std::fs::remove_dir_all(&dir);
        return Outcome::Failed(e.to_string());
    }
    let (rtol, atol) = tolerance(case);
    let mut written = std::fs::write(dir.join("tolerance.txt"), format!("{rtol} {atol}\n")).map_err(|e| e.to_string());
    written = written.and_then(|_| std::fs::write(dir.join("op.txt"), format!("{op}\n")).map_err(|e| e.to_string()));
    for (i, tensor) in inputs.iter().enumerate() {
        written =
            written.and_then(|_| tensor.write_npy(&dir.join(format!("input_{i}.npy"))).map_err(|e| e.to_string()));
    }
    for (i, tensor) in expected.iter().enumerate() {
        written =
            written.and_then(|_| tensor.write_npy(&dir.join(format!("expected_{i}.npy"))).map_err(|e| e.to_string()));
    }
    match written {
        Ok(()) => Outcome::Passed,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Outcome::Unsupported(format!("unsupported: the case's data cannot be written as .npy: {e}"))
        }
    }
}

/// The cause in an unsupported error: the text after its `unsupported:` label (the location
/// before it is the case's own model).
fn unsupported_cause(message: &str) -> &str {
    message.split("unsupported:").nth(1).unwrap_or(message).trim()
}

fn main() {
    allocator::configure();
    let usage = "usage: strata-conformance DIR [FILTER] [--suite NAME] [--bundle OUT [--chip sm_80]] [--threads N] [--no-egraph] [--no-schedule] [--disable LIST]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!("{usage}");
        std::process::exit(if args.is_empty() { 2 } else { 0 });
    }
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let bundle = flag("--bundle").map(PathBuf::from);
    let chip = flag("--chip").unwrap_or_else(|| "sm_80".into());
    let suite = flag("--suite");
    let variant = Variant::from_args(&args, flag).unwrap_or_else(|e| {
        eprintln!("strata-conformance: {e}\n{usage}");
        std::process::exit(2)
    });
    // As `strata run`: OpenMP is loaded only for host code compiled for several threads (one
    // thread, and the GPU bundles, need no OpenMP runtime).
    if bundle.is_none() && variant.threads > 1 {
        if let Err(e) = strata_runtime::set_threads(variant.threads) {
            eprintln!("strata-conformance: {e}");
            std::process::exit(1);
        }
    }
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !VALUE_FLAGS.contains(&args[i - 1].as_str())))
        .map(|(_, a)| a)
        .collect();
    let dir = PathBuf::from(positional.first().expect(usage));
    let filter = positional.get(1).map(|s| s.to_string()).unwrap_or_default();
    // STRATA_CONFORMANCE_TRACE=1 names each case before running it (to find a crashing one).
    let trace = std::env::var_os("STRATA_CONFORMANCE_TRACE").is_some();
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
    let mut problems: Vec<String> = Vec::new();
    // The causes of the other ops' unsupported cases.
    let mut unsupported: Vec<String> = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let bytes = std::fs::read(case.join("model.onnx")).unwrap_or_default();
        let graph = ModelProto::decode(bytes.as_slice()).ok().and_then(|m| m.graph).unwrap_or_default();
        let single = (graph.node.len() == 1).then(|| graph.node[0].op_type().to_owned());
        op_of.insert(name.clone(), single.clone().unwrap_or_default());
        let base = name.trim_end_matches("_expanded").trim_end_matches("_expanded_ver18");
        let op = match (&suite, single) {
            (Some(_), _) => name.trim_start_matches("test_").to_owned(),
            (None, Some(op)) => op,
            (None, None) => op_of.get(base).filter(|o| !o.is_empty()).cloned().unwrap_or_else(|| "(multi-node)".into()),
        };
        if trace {
            eprintln!("case {name}");
        }
        let row = rows.entry(op.clone()).or_default();
        row.cases += 1;
        let this = Case { path: case, name: &name, bytes: &bytes, graph: &graph };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &bundle {
            None => run_case(&strata, &this, &variant),
            Some(out) => bundle_case(&strata, &this, &variant, (out, &chip, &op)),
        }));
        let one_line = |s: &str| s.replace('\n', " ").chars().take(400).collect::<String>();
        match outcome {
            Ok(Outcome::Passed) => row.passed += 1,
            Ok(Outcome::Mismatch(m)) => {
                row.mismatched += 1;
                problems.push(format!("- {op} `{name}`: MISMATCH {}", one_line(&m)));
            }
            Ok(Outcome::Unsupported(m)) => {
                row.unsupported += 1;
                let cause = format!("- {op} `{name}`: unsupported: {}", one_line(unsupported_cause(&m)));
                if LISTED.contains(&op.as_str()) || suite.is_some() {
                    problems.push(cause);
                } else {
                    unsupported.push(cause);
                }
            }
            Ok(Outcome::Failed(m)) => {
                row.failed += 1;
                problems.push(format!("- {op} `{name}`: FAILED {}", one_line(&m)));
            }
            Err(_) => {
                row.panicked += 1;
                problems.push(format!("- {op} `{name}`: PANIC"));
            }
        }
    }
    let header = format!(
        "{:<24} {:>6} {:>7} {:>9} {:>12} {:>7} {:>7}\n",
        "op", "cases", "passed", "mismatch", "unsupported", "failed", "panics"
    );
    let mut table = header.clone();
    let (mut total, mut listed) = (Row::default(), Row::default());
    for (op, row) in &rows {
        if row.unsupported < row.cases || suite.is_some() {
            table.push_str(&format!(
                "{op:<24} {:>6} {:>7} {:>9} {:>12} {:>7} {:>7}\n",
                row.cases, row.passed, row.mismatched, row.unsupported, row.failed, row.panicked
            ));
        }
        for sum in [&mut total].into_iter().chain(LISTED.contains(&op.as_str()).then_some(&mut listed)) {
            sum.cases += row.cases;
            sum.passed += row.passed;
            sum.mismatched += row.mismatched;
            sum.unsupported += row.unsupported;
            sum.failed += row.failed;
            sum.panicked += row.panicked;
        }
    }
    let others = rows.values().filter(|r| r.unsupported == r.cases).count();
    if suite.is_none() {
        table.push_str(&format!("({others} more op types: every case a clean unsupported error)\n"));
    }
    let sums: &[(&str, &Row)] =
        if suite.is_some() { &[("total", &total)] } else { &[("listed ops", &listed), ("total", &total)] };
    for &(label, sum) in sums {
        table.push_str(&format!(
            "{label:<24} {:>6} {:>7} {:>9} {:>12} {:>7} {:>7}\n",
            sum.cases, sum.passed, sum.mismatched, sum.unsupported, sum.failed, sum.panicked
        ));
    }
    if suite.is_none() {
        let rate = 100.0 * listed.passed as f64 / listed.cases.max(1) as f64;
        table.push_str(&format!("listed ops (the ONNX-import issue's list): {rate:.1}% of cases pass numerically\n"));
    }
    print!("{table}");
    // In bundle mode "passed" means compiled and written for `strata-exec check`.
    let report = match &bundle {
        Some(out) => out.join("bundle-report.md"),
        None => dir
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!("{}-report.md", suite.as_deref().unwrap_or("conformance"))),
    };
    let text = match &suite {
        Some(suite) => format!(
            "# ONNX test suite `{suite}`: compile, run, compare\n\n```\n{table}```\n\n## Every case that does not pass, with its cause\n\n{}\n",
            problems.join("\n")
        ),
        None => format!(
            "# ONNX node tests: compile, run, compare\n\n```\n{table}```\n\n## Cases of listed ops that do not pass, and every mismatch or failure\n\n{}\n\n## Every other unsupported case, with its cause\n\n{}\n",
            problems.join("\n"),
            unsupported.join("\n")
        ),
    };
    if let Err(e) = std::fs::write(&report, text) {
        eprintln!("cannot write {}: {e}", report.display());
    } else {
        println!("report: {}", report.display());
    }
    // A failed case is a bug (an internal error, an artifact that does not run); in bundle
    // mode a failure may be the missing GPU toolchain's, and the bundle's check decides.
    std::process::exit(i32::from(total.panicked > 0 || (bundle.is_none() && total.failed > 0)));
}
