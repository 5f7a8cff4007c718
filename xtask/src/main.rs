//! `cargo xtask`: Strata's only build script. `setup` installs the toolchain (LLVM/MLIR 22
//! from Debian), `test` runs every test (unit, lit, tidy), `lit` runs the lit tests (one file
//! by name, or bless snapshots), `demo` runs the main job on a bundled example. Tidy checks
//! live in `tidy.rs` and run as ordinary tests.

mod bench;
mod bench_compile;
mod bench_memory;
mod bench_profile;
mod memcheck;
mod probe;
mod python;
mod setup;
#[cfg(test)]
mod tidy;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Strata developer tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install (as root) or list (otherwise) the system packages Strata needs, then check them.
    Setup,
    /// Set up, then run every test: `cargo fmt --check`, clippy with `-D warnings`, unit
    /// tests, lit tests, tidy checks, every ONNX node-test case and data suite (fails on any
    /// failed or panicking case), the zoo, the probe suite of hostile inputs, and the Python package's pytest
    /// suite.
    Test {
        /// Extra arguments for `cargo test` (after `--`).
        #[arg(last = true)]
        rest: Vec<String>,
    },
    /// Set up, then run the lit tests (all, or those whose name contains FILTER).
    Lit {
        filter: Option<String>,
        /// Accept the current output of `// SNAPSHOT:` commands as the new snapshots.
        #[arg(long)]
        bless: bool,
    },
    /// Set up, then the main job on a real model: MobileNetV2 (generated once by a pinned step)
    /// planned (every strategy against the lower bound), compiled, run on its fixed input and
    /// checked against ONNX Runtime, with the output summary and timings.
    Demo,
    /// Generate ONNX's node tests once (pinned onnx, into target/onnx-node-tests) and import
    /// every case: a table per op type of imported / unsupported / failed.
    OnnxTests {
        /// Only cases whose directory name contains this.
        filter: Option<String>,
    },
    /// Generate the model zoo once (pinned onnx, into target/zoo), then import every model
    /// and check that its sg text re-parses to the same text.
    Zoo,
    /// Regenerate the importer's table of operator attributes
    /// (`crates/frontend/src/schemas.rs`) from the pinned onnx package; `--check` only
    /// compares (run by `onnx-tests`).
    OnnxSchemas {
        #[arg(long)]
        check: bool,
    },
    /// Generate the probe suite of hostile inputs (`xtask/scripts/probe.py`: malformed and
    /// adversarial models, inputs, MLIR, planner CSVs, edited artifacts, parallel runs) and
    /// check that each gives a clean error or the right answer; a table per family.
    Probe {
        /// Only cases whose `family/name` contains this.
        filter: Option<String>,
    },
    /// Run every `strata-opt` command of the lit tests whose path contains FILTER under
    /// valgrind's memcheck (a debug `strata-opt`): invalid reads and writes, uninitialised
    /// values. Slow (seconds to a minute a command): pass a filter.
    Memcheck { filter: Option<String> },
    /// Build the Python package's native module and run its pytest suite (`python/tests`).
    Python {
        /// Only tests matching this pytest `-k` expression.
        filter: Option<String>,
    },
    /// Run a benchmark (release build) and print its comparison table.
    Bench {
        #[command(subcommand)]
        which: Bench,
    },
}

#[derive(Subcommand)]
enum Bench {
    /// Every planning strategy on every instance of ../shared/bench/planner and on synthetic
    /// 1k/10k/100k/1M-buffer traces: bytes, ratio to the bound, time (strategies beyond their
    /// size limit are skipped, and the table says so).
    Plan {
        /// Exact-solver budget per instance, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        budget_ms: u64,
        /// Only instances whose name contains this.
        #[arg(long)]
        filter: Option<String>,
        /// Perfect tilings per size and cut kind (seeds 0..N).
        #[arg(long, default_value_t = 3)]
        seeds: u64,
    },
    /// The e-graph optimiser on the zoo models' graphs (written by `strata compile
    /// --emit=rewrite-report --graph-json`) and a 200-op chain: e-nodes, growth, saturation and
    /// extraction time, time per 1000 graph nodes, allocations and launches saved.
    Egraph {
        /// Runs per graph (medians reported).
        #[arg(long, default_value_t = 20)]
        repeats: usize,
    },
    /// Latency of every zoo model and focused kernel compiled by Strata against ONNX Runtime
    /// (pinned; one thread and its default threads), measured in the same run on the same
    /// inputs, outputs checked: medians and their ratios, Strata and ONNX Runtime alternating
    /// over several rounds.
    Run {
        /// Least timed runs per model and runtime, each round (and at least 200 ms of runs).
        #[arg(long, default_value_t = 20)]
        repeats: usize,
        /// Rounds of alternating ONNX Runtime and Strata runs per model (at least 1): the table
        /// gives the median over the rounds, each ratio the median of its rounds' ratios (one
        /// round's runtimes share this machine's phase, which moved single medians 20-30%).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
        rounds: u64,
        /// Only models and kernels whose name contains this.
        #[arg(long)]
        filter: Option<String>,
        /// Also print each model's hottest kernels (`strata run --profile`, one thread) beside
        /// ONNX Runtime's time for the same nodes, and the kernels slower than its nodes.
        #[arg(long)]
        profile: bool,
        /// Instead of the zoo and the focused kernels, the class sweep
        /// (`xtask/scripts/bench_sweep.py`): one or two ops at a time over the shapes of the
        /// model classes users bring, to find cliffs between the zoo's models.
        #[arg(long)]
        sweep: bool,
    },
    /// Compile time of every zoo model (release `strata run`): per stage, in memory (JIT),
    /// cold and warm through the compile cache, peak RSS, beside IREE's (peers.md).
    Compile {
        /// Only models whose name contains this.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Every zoo model's arena against running its ONNX nodes one by one in file order
    /// (plain, and with views and in-place writes) and against ONNX Runtime's and IREE's
    /// (peers.md); then what each optimisation saves on its own (`--disable`, `--no-egraph`,
    /// a greedy planner).
    Memory {
        /// Only models whose name contains this.
        #[arg(long)]
        filter: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The tasks' `strata run`s share a compile cache inside the repository, not the user's.
    if std::env::var_os("STRATA_CACHE_DIR").is_none() {
        std::env::set_var("STRATA_CACHE_DIR", root().join("target/strata-cache"));
    }
    let result = match cli.task {
        Task::Setup => setup::run(),
        Task::Test { rest } => setup::run().and_then(|()| {
            // House style first: one formatting, and clippy with warnings as errors.
            cargo(&["fmt", "--all", "--check"], &[])?;
            cargo(&["clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"], &[])?;
            // The lit tests run strata-exec, a binary of another package, and compile kernels
            // that need libdevice.
            cargo(&["build", "--quiet", "-p", "strata-exec"], &[])?;
            ensure_libdevice()?;
            let mut args = vec!["test", "--workspace"];
            if !rest.is_empty() {
                args.push("--");
                args.extend(rest.iter().map(String::as_str));
            }
            cargo(&args, &[])?;
            // `cargo test` left the driver's binaries in target/debug: the later steps run
            // those instead of building them again under the feature set of one package (the
            // MLIR-linking crates a second time: minutes, and gigabytes that filled CI's disk).
            BINARIES_BUILT.store(true, std::sync::atomic::Ordering::Relaxed);
            onnx_tests(None)?;
            zoo()?;
            probe::run(None)?;
            python::run(None)
        }),
        Task::Lit { filter, bless } => setup::run().and_then(|()| {
            cargo(&["build", "--quiet", "-p", "strata-exec"], &[])?;
            ensure_libdevice()?;
            let mut args = vec!["test", "-p", "strata-driver", "--test", "lit"];
            if let Some(filter) = &filter {
                args.extend(["--", filter.as_str()]);
            }
            let env: &[(&str, &str)] = if bless { &[("INSTA_UPDATE", "always")] } else { &[] };
            cargo(&args, env)
        }),
        Task::Demo => setup::run().and_then(|()| demo()),
        Task::Zoo => setup::run().and_then(|()| zoo()),
        Task::Probe { filter } => setup::run().and_then(|()| probe::run(filter.as_deref())),
        Task::Python { filter } => setup::run().and_then(|()| python::run(filter.as_deref())),
        Task::Memcheck { filter } => setup::run().and_then(|()| memcheck::run(filter.as_deref())),
        Task::OnnxTests { filter } => setup::run().and_then(|()| onnx_tests(filter.as_deref())),
        Task::OnnxSchemas { check } => onnx_schemas(check),
        Task::Bench { which: Bench::Plan { budget_ms, filter, seeds } } => {
            let (budget, seeds) = (budget_ms.to_string(), seeds.to_string());
            let mut args = vec![
                "bench",
                "-p",
                "strata-plan",
                "--bench",
                "plan",
                "--",
                "--budget-ms",
                budget.as_str(),
                "--seeds",
                seeds.as_str(),
            ];
            if let Some(filter) = &filter {
                args.extend(["--filter", filter.as_str()]);
            }
            cargo(&args, &[])
        }
        Task::Bench { which: Bench::Run { repeats, rounds, filter, profile, sweep } } => {
            setup::run().and_then(|()| bench::run(repeats, rounds as usize, filter.as_deref(), profile, sweep))
        }
        Task::Bench { which: Bench::Egraph { repeats } } => setup::run().and_then(|()| bench_egraph(repeats)),
        Task::Bench { which: Bench::Compile { filter } } => {
            setup::run().and_then(|()| bench_compile::run_all(filter.as_deref()))
        }
        Task::Bench { which: Bench::Memory { filter } } => {
            setup::run().and_then(|()| bench_memory::run_all(filter.as_deref()))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root (xtask lives one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask has a parent").to_path_buf()
}

/// Set once `cargo xtask test` has run `cargo test --workspace`, which builds the binaries of
/// `strata-driver` and `strata-exec` into target/debug.
static BINARIES_BUILT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `cargo build --quiet <args>` for a task's binaries of `strata-driver` or `strata-exec`,
/// unless `cargo test --workspace` already built them: building one package resolves other
/// dependency features than the workspace does, so cargo would rebuild the MLIR-linking crates
/// for binaries that are already there.
pub fn build(args: &[&str]) -> Result<(), String> {
    if BINARIES_BUILT.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    let mut all = vec!["build", "--quiet"];
    all.extend_from_slice(args);
    cargo(&all, &[])
}

pub fn cargo(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("xtask: running cargo {}", args.join(" "));
    let status = Command::new(&cargo)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

fn demo() -> Result<(), String> {
    let dir = ensure_zoo()?;
    build(&["-p", "strata-driver", "--bin", "strata", "--bin", "strata-opt"])?;
    let strata = root().join("target/debug/strata");
    let model = dir.join("mobilenetv2.onnx");
    let run = |args: &[&std::ffi::OsStr]| -> Result<(), String> {
        let shown: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        eprintln!("\nxtask: strata {}", shown.join(" "));
        let status =
            Command::new(&strata).args(args).status().map_err(|e| format!("cannot run {}: {e}", strata.display()))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("strata {} failed ({status})", shown.join(" ")))
        }
    };
    // The memory plan: every strategy on the model's buffers (linalg, bufferized by
    // strata-opt with the compiler's own pipeline, not yet planned), against the lower bound.
    let linalg = dir.join("mobilenetv2.linalg.mlir");
    let memref = dir.join("mobilenetv2.buffers.mlir");
    run(&["compile".as_ref(), model.as_os_str(), "--emit=linalg".as_ref(), "-o".as_ref(), linalg.as_os_str()])?;
    let pipeline = "builtin.module(strata-bufferize,func.func(memref-copy-to-linalg))";
    eprintln!("\nxtask: strata-opt {} -p '{pipeline}' -o {}", linalg.display(), memref.display());
    let status = Command::new(root().join("target/debug/strata-opt"))
        .arg(&linalg)
        .args(["-p", pipeline, "-o"])
        .arg(&memref)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("strata-opt failed ({status})"));
    }
    run(&["plan".as_ref(), memref.as_os_str()])?;
    // Compile in memory, run on the fixed input, check against ONNX Runtime's output.
    let input = format!("input={}", dir.join("mobilenetv2.inputs/input.npy").display());
    let expect = format!("fc_276={}", root().join("xtask/zoo-reference/mobilenetv2.fc_276.npy").display());
    let out = dir.join("mobilenetv2.out");
    run(&[
        "run".as_ref(),
        model.as_os_str(),
        "--input".as_ref(),
        input.as_ref(),
        "--expect".as_ref(),
        expect.as_ref(),
        "--repeat".as_ref(),
        "5".as_ref(),
        "--output-dir".as_ref(),
        out.as_os_str(),
    ])
}

/// The onnx release whose node tests are the conformance suite (1884 cases).
const ONNX_VERSION: &str = "1.23.2";

/// The ml_dtypes release the node tests' references are computed with. The onnx reference
/// casts to 4- and 2-bit integers through it, and its releases disagree on values out of
/// range: 0.6.0 wraps them (-9 -> 7 for int4), 0.7.0 gives 0; unpinned, a fresh checkout got
/// 0.7.0 and 24 Cast/CastLike cases changed their expected outputs.
const ML_DTYPES_VERSION: &str = "0.6.0";

/// A directory with the pinned onnx package (installed on first use), for PYTHONPATH.
pub fn onnx_python() -> Result<PathBuf, String> {
    pip_site_with("target/python-onnx", &[("onnx", ONNX_VERSION), ("ml_dtypes", ML_DTYPES_VERSION)])
}

/// `package==version` pip-installed once into `dir` (under the repository root), for PYTHONPATH.
pub fn pip_site(dir: &str, package: &str, version: &str) -> Result<PathBuf, String> {
    pip_site_with(dir, &[(package, version)])
}

/// Every `package==version` of `pins` pip-installed once, together, into `dir`.
pub fn pip_site_with(dir: &str, pins: &[(&str, &str)]) -> Result<PathBuf, String> {
    let site = root().join(dir);
    let name: Vec<String> = pins.iter().map(|(package, version)| format!("{package}-{version}")).collect();
    let stamp = site.join(format!("STRATA-{}", name.join("-")));
    if stamp.exists() {
        return Ok(site);
    }
    let requirements: Vec<String> = pins.iter().map(|(package, version)| format!("{package}=={version}")).collect();
    eprintln!("xtask: installing {} into {}", requirements.join(" "), site.display());
    let status = Command::new("python3")
        .args(["-m", "pip", "install", "--quiet", "--upgrade", "--target"])
        .arg(&site)
        .args(&requirements)
        .status()
        .map_err(|e| format!("cannot run python3 -m pip: {e} (install python3 and pip)"))?;
    if !status.success() {
        return Err(format!("pip install {} failed ({status})", requirements.join(" ")));
    }
    std::fs::write(&stamp, "").map_err(|e| e.to_string())?;
    Ok(site)
}

/// The data-carrying suites of the onnx wheel (`onnx/backend/test/data/`), run after the node
/// tests.
const DATA_SUITES: &[&str] = &["light", "pytorch-converted", "pytorch-operator", "simple"];

/// Writes (or, with `check`, compares) the attribute table the importer validates nodes with.
fn onnx_schemas(check: bool) -> Result<(), String> {
    let site = onnx_python()?;
    let mut command = Command::new("python3");
    command
        .arg(root().join("xtask/scripts/onnx_schemas.py"))
        .arg(root().join("crates/frontend/src/schemas.rs"))
        .env("PYTHONPATH", &site);
    if check {
        command.arg("--check");
    }
    let status = command.status().map_err(|e| format!("cannot run python3: {e}"))?;
    if !status.success() {
        return Err(format!("the onnx schema table step failed ({status})"));
    }
    Ok(())
}

fn onnx_tests(filter: Option<&str>) -> Result<(), String> {
    if filter.is_none() {
        onnx_schemas(true)?;
    }
    let cache = root().join("target/onnx-node-tests");
    let cases = cache.join("cases");
    let stamp = cases.join("COMPLETE");
    if !std::fs::read_to_string(&stamp)
        .is_ok_and(|s| s.contains(ONNX_VERSION) && s.contains(ML_DTYPES_VERSION) && s.contains("format 4"))
    {
        let site = onnx_python()?;
        let _ = std::fs::remove_dir_all(&cases);
        let status = Command::new("python3")
            .arg(root().join("xtask/scripts/onnx_node_tests.py"))
            .arg(&cases)
            .env("PYTHONPATH", &site)
            .status()
            .map_err(|e| format!("cannot run python3: {e}"))?;
        if !status.success() {
            return Err(format!("generating the node tests failed ({status})"));
        }
    }
    let suites = cache.join("suites");
    let complete = |suite: &str| {
        std::fs::read_to_string(suites.join(suite).join("COMPLETE"))
            .is_ok_and(|s| s.contains(ONNX_VERSION) && s.contains("format 1"))
    };
    if !DATA_SUITES.iter().all(|suite| complete(suite)) {
        let site = onnx_python()?;
        let status = Command::new("python3")
            .arg(root().join("xtask/scripts/onnx_data_suites.py"))
            .arg(&suites)
            .env("PYTHONPATH", &site)
            .status()
            .map_err(|e| format!("cannot run python3: {e}"))?;
        if !status.success() {
            return Err(format!("writing the onnx data suites failed ({status})"));
        }
    }
    build(&["-p", "strata-driver", "--bin", "strata-conformance"])?;
    let conformance = |dir: &Path, suite: Option<&str>| {
        let mut command = Command::new(root().join("target/debug/strata-conformance"));
        command.arg(dir);
        if let Some(filter) = filter {
            command.arg(filter);
        }
        if let Some(suite) = suite {
            command.args(["--suite", suite]);
        }
        let status = command.status().map_err(|e| format!("cannot run strata-conformance: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("strata-conformance {} failed ({status})", dir.display()))
        }
    };
    // Every suite runs (and prints its table) before a failure in any is reported.
    let mut failures = Vec::new();
    failures.extend(conformance(&cases, None).err());
    for suite in DATA_SUITES {
        eprintln!("\nxtask: onnx test suite `{suite}`");
        failures.extend(conformance(&suites.join(suite), Some(suite)).err());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} (a case failed or panicked: see the table and the report)", failures.join("; ")))
    }
}

/// The CUDA release whose libdevice (NVIDIA's math library as LLVM bitcode) kernels link:
/// taken from the `nvidia-cuda-nvcc-cu12` wheel on PyPI, so no CUDA install is needed.
const LIBDEVICE_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";

/// `target/cuda-libdevice/libdevice.10.bc`, fetched once (what `STRATA_LIBDEVICE` points to).
pub fn ensure_libdevice() -> Result<PathBuf, String> {
    let dir = root().join("target/cuda-libdevice");
    let bitcode = dir.join("libdevice.10.bc");
    let stamp = dir.join(format!("STRATA-{LIBDEVICE_WHEEL}"));
    if bitcode.is_file() && stamp.exists() {
        return Ok(bitcode);
    }
    eprintln!("xtask: fetching libdevice from {LIBDEVICE_WHEEL} into {}", dir.display());
    let wheels = dir.join("wheel");
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "--platform",
            "manylinux2014_x86_64",
            "--platform",
            "manylinux_2_17_x86_64",
            "-d",
        ])
        .arg(&wheels)
        .arg(LIBDEVICE_WHEEL)
        .status()
        .map_err(|e| format!("cannot run python3 -m pip: {e} (install python3 and pip)"))?;
    if !status.success() {
        return Err(format!("pip download {LIBDEVICE_WHEEL} failed ({status})"));
    }
    let extract = "import sys, zipfile, glob\nz = zipfile.ZipFile(glob.glob(sys.argv[1] + '/*.whl')[0])\nopen(sys.argv[2], 'wb').write(z.read('nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc'))\n";
    let status = Command::new("python3")
        .args(["-c", extract])
        .arg(&wheels)
        .arg(&bitcode)
        .status()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !status.success() {
        return Err(format!("extracting libdevice from the wheel failed ({status})"));
    }
    let _ = std::fs::remove_dir_all(&wheels);
    std::fs::write(&stamp, "").map_err(|e| e.to_string())?;
    Ok(bitcode)
}

/// Generates the zoo (models and their fixed inputs) once per version of `zoo.py`.
pub fn ensure_zoo() -> Result<PathBuf, String> {
    ensure_generated("xtask/scripts/zoo.py", "target/zoo", "the zoo")
}

/// `script` (under the repository root) run with the pinned onnx into `dir`, once per version
/// of the script (its text is the stamp `dir/COMPLETE`); `dir`.
fn ensure_generated(script: &str, dir: &str, what: &str) -> Result<PathBuf, String> {
    let (script, dir) = (root().join(script), root().join(dir));
    let stamp = dir.join("COMPLETE");
    let current = std::fs::read_to_string(&script).map_err(|e| e.to_string())?;
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(current.as_str()) {
        let site = onnx_python()?;
        let status = Command::new("python3")
            .arg(&script)
            .arg(&dir)
            .env("PYTHONPATH", &site)
            .status()
            .map_err(|e| format!("cannot run python3: {e}"))?;
        if !status.success() {
            return Err(format!("generating {what} failed ({status})"));
        }
        std::fs::write(&stamp, current).map_err(|e| e.to_string())?;
    }
    Ok(dir)
}

/// The zoo (`xtask/scripts/zoo.py`), one model per class of models users bring.
const ZOO_MODELS: &[&str] = &[
    "mobilenetv2",
    "resnet18",
    "bert_tiny",
    "yolo_detector",
    "densenet_block",
    "opset11_cnn",
    "nested_if",
    "int8_qdq_cnn",
    "crnn_ocr",
    "crnn_cjk",
    "speech_kws",
    "text_detector",
    "fp16_text_detector",
    "bf16_mobilenetv2",
    "inception_cell",
    "resnext_block",
    "audio_tcn",
    "conformer_block",
    "gpt2_block",
    "mobilenetv3_small",
    "gated_deltanet_block",
    "vit_tiny",
    "llama_block",
    "unet_segmenter",
    "deeplab_segmenter",
    "convnext_classifier",
    "yolov8n_detector",
    "espcn_superres",
    "style_transfer",
    "istft_vocoder",
    "qdq_speech_encoder",
    "qdq_mobilenet",
    "qdq_mobilenet_u8",
    "dynamic_int8_bert",
    "tabular_gbm",
    "tabular_linear",
    "tabular_svm",
    "tabular_anomaly",
    "tabular_knn",
    "streaming_vad",
    "whisper_encoder",
];

/// How far a zoo model's outputs may be from ONNX Runtime's (`--rtol` and `--atol`) where that
/// is not the zoo's 1e-4: what `zoo.py` writes to `<model>.tolerance` in the zoo `dir` (a QDQ
/// model agrees to whole quantization steps; the reason is there).
pub(crate) fn zoo_tolerance(dir: &std::path::Path, model: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(format!("{model}.tolerance")))
        .ok()
        .map(|text| text.trim().to_owned())
        .filter(|text| text.parse::<f64>().is_ok())
}

/// `--rtol` and `--atol` for zoo model `model` in `dir`: its [`zoo_tolerance`], else 1e-4.
pub(crate) fn zoo_tolerance_args(dir: &std::path::Path, model: &str) -> [String; 4] {
    let tolerance = zoo_tolerance(dir, model).unwrap_or_else(|| "1e-4".to_owned());
    ["--rtol".to_owned(), tolerance.clone(), "--atol".to_owned(), tolerance]
}

/// Zoo models the GPU path does not compile yet, and why: it refuses them with a clean error.
const HOST_ONLY_MODELS: &[(&str, &str)] = &[(
    "streaming_vad",
    "an If on a condition computed at run time: the GPU path has no host control flow on device values yet",
)];

/// Zoo models only the benchmarks measure (`zoo.py` generates them too): ResNet-50, too big
/// (~100 MB) for every CI run to compile.
const BENCH_ONLY_MODELS: &[&str] = &["resnet50"];

/// The zoo models the benchmarks measure: the tested ones, then [`BENCH_ONLY_MODELS`].
pub fn bench_models() -> impl Iterator<Item = &'static str> {
    ZOO_MODELS.iter().chain(BENCH_ONLY_MODELS).copied()
}

/// What a zoo model fixes at compile time: `--freeze-input name=file.pb` for every input it
/// freezes (`<model>.frozen/<input>.pb`) and `--input-shape name=DIMS` for every input it
/// declares with symbolic dimensions (`<model>.shapes`, a `name=1x576` a line), both written
/// by zoo.py.
fn zoo_frozen(dir: &std::path::Path, model: &str) -> Vec<String> {
    let mut frozen: Vec<_> = std::fs::read_dir(dir.join(format!("{model}.frozen")))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    frozen.sort();
    let shapes = std::fs::read_to_string(dir.join(format!("{model}.shapes"))).unwrap_or_default();
    frozen
        .into_iter()
        .flat_map(|path| {
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
            ["--freeze-input".to_owned(), format!("{name}={}", path.display())]
        })
        .chain(shapes.lines().flat_map(|line| ["--input-shape".to_owned(), line.to_owned()]))
        .collect()
}

/// Generates the zoo once, then imports every model and checks the round trip
/// `strata import` -> `strata-opt` is byte-identical.
fn zoo() -> Result<(), String> {
    let dir = ensure_zoo()?;
    let models = ZOO_MODELS;
    build(&["-p", "strata-driver", "--bin", "strata", "--bin", "strata-opt"])?;
    build(&["-p", "strata-exec"])?;
    let bin = root().join("target/debug");
    let libdevice = ensure_libdevice()?;
    let gpu = Command::new(bin.join("strata-exec")).arg("probe").output().map_err(|e| e.to_string())?;
    let gpu_missing = match gpu.status.code() {
        Some(0) => None,
        Some(3) => Some(String::from_utf8_lossy(&gpu.stdout).trim().to_owned()),
        _ => return Err(format!("strata-exec probe failed: {}", String::from_utf8_lossy(&gpu.stderr))),
    };
    // A fresh compile cache for the runs below (each model runs cold, then cached).
    let _ = std::fs::remove_dir_all(dir.join("cache"));
    for model in models {
        let onnx = dir.join(format!("{model}.onnx"));
        let (sg, again) = (dir.join(format!("{model}.sg.mlir")), dir.join(format!("{model}.rt.mlir")));
        let start = std::time::Instant::now();
        let imported = Command::new(bin.join("strata"))
            .arg("import")
            .arg(&onnx)
            .args(zoo_frozen(&dir, model))
            .arg("-o")
            .arg(&sg)
            .status()
            .map_err(|e| e.to_string())?;
        let import_time = start.elapsed();
        let reparsed =
            Command::new(bin.join("strata-opt")).arg(&sg).arg("-o").arg(&again).status().map_err(|e| e.to_string())?;
        if !imported.success() || !reparsed.success() {
            return Err(format!("{model}: import ({imported}) or re-parse ({reparsed}) failed"));
        }
        let (a, b) =
            (std::fs::read(&sg).map_err(|e| e.to_string())?, std::fs::read(&again).map_err(|e| e.to_string())?);
        if a != b {
            return Err(format!(
                "{model}: the sg text does not round-trip through strata-opt ({} vs {} bytes)",
                a.len(),
                b.len()
            ));
        }
        let ops = String::from_utf8_lossy(&a).matches("\"sg.").count();
        println!(
            "zoo: {model}: imported in {:.2} s, {ops} sg ops, {} MB of text, round trip identical",
            import_time.as_secs_f64(),
            a.len() / 1_000_000
        );
        run_against_reference(&bin, &dir, model)?;
        gpu_artifact(&bin, &dir, model, &libdevice, gpu_missing.as_deref())?;
    }
    aot_example(&bin, &dir)
}

/// `--input name=file.npy` for every fixed input of a zoo model, and `--expect` for every ONNX
/// Runtime reference output.
fn zoo_io(dir: &std::path::Path, model: &str) -> Result<Vec<String>, String> {
    let mut args = input_args(&dir.join(format!("{model}.inputs"))).map_err(|e| format!("{model}: no inputs: {e}"))?;
    let expects = reference_expects(model)?;
    if expects.is_empty() {
        return Err(format!("{model}: no reference outputs in {}", root().join("xtask/zoo-reference").display()));
    }
    args.extend(expects);
    Ok(args)
}

/// `--expect output=file.npy` for every ONNX Runtime reference output of `model` checked in
/// under `xtask/zoo-reference` (`<model>.<output>.npy`); empty when it has none.
pub(crate) fn reference_expects(model: &str) -> Result<Vec<String>, String> {
    let references = root().join("xtask/zoo-reference");
    let mut args = Vec::new();
    for entry in std::fs::read_dir(&references).map_err(|e| format!("{}: {e}", references.display()))?.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if let Some(output) = file.strip_prefix(&format!("{model}.")).and_then(|f| f.strip_suffix(".npy")) {
            args.extend(["--expect".to_owned(), format!("{output}={}", entry.path().display())]);
        }
    }
    Ok(args)
}

/// `--input name=dir/name.npy` for every file in `dir`, in name order.
fn input_args(dir: &std::path::Path) -> Result<Vec<String>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten().map(|e| e.path()).collect();
    files.sort();
    Ok(files
        .iter()
        .flat_map(|path| {
            let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            ["--input".to_owned(), format!("{name}={}", path.display())]
        })
        .collect())
}

/// Compiles a zoo model to PTX (LLVM's NVPTX backend must accept every kernel module), and runs
/// it on the GPU against ONNX Runtime's outputs when one is present (skipped, saying why,
/// otherwise).
fn gpu_artifact(
    bin: &std::path::Path,
    dir: &std::path::Path,
    model: &str,
    libdevice: &std::path::Path,
    gpu_missing: Option<&str>,
) -> Result<(), String> {
    let out = dir.join("gpu");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let ptx = out.join(format!("{model}.ptx"));
    let start = std::time::Instant::now();
    let status = Command::new(bin.join("strata"))
        .args(["compile", "--target=nvptx", "--no-verify-each"])
        .arg(dir.join(format!("{model}.onnx")))
        .args(zoo_frozen(dir, model))
        .arg("-o")
        .arg(&ptx)
        .env("STRATA_LIBDEVICE", libdevice)
        .status()
        .map_err(|e| e.to_string())?;
    if let Some((_, why)) = HOST_ONLY_MODELS.iter().find(|(name, _)| *name == model) {
        // Refused with a clean error (invalid input, unsupported, a pass refusing it), never a
        // crash.
        if !matches!(status.code(), Some(1 | 3 | 4)) {
            return Err(format!("{model}: the GPU path must refuse it cleanly ({status})"));
        }
        println!("zoo: {model}: no PTX ({why})");
        return Ok(());
    }
    if !status.success() {
        return Err(format!("{model}: compiling to PTX failed ({status})"));
    }
    let text = std::fs::read_to_string(&ptx).map_err(|e| e.to_string())?;
    println!(
        "zoo: {model}: PTX in {:.1} s, {} kernels, {} KB",
        start.elapsed().as_secs_f64(),
        text.matches(".entry ").count(),
        text.len() / 1000
    );
    match gpu_missing {
        Some(why) => println!("zoo: {model}: GPU run skipped ({why})"),
        None => {
            let status = Command::new(bin.join("strata-exec"))
                .arg("run")
                .arg(out.join(format!("{model}.json")))
                .args(zoo_io(dir, model)?)
                .args(zoo_tolerance_args(dir, model))
                .args(["--repeat", "20"])
                .status()
                .map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("{model}: on the GPU, the model does not match ONNX Runtime ({status})"));
            }
        }
    }
    Ok(())
}

/// The ahead-of-time path: MobileNetV2 as a shared object, called from the C program in
/// docs/examples, must give exactly what `strata run` gives.
fn aot_example(bin: &std::path::Path, dir: &std::path::Path) -> Result<(), String> {
    let out = dir.join("aot");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let library = out.join("libmobilenetv2.so");
    let run = |command: &mut Command, what: &str| -> Result<(), String> {
        let status = command.status().map_err(|e| format!("{what}: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{what} failed ({status})"))
        }
    };
    run(
        Command::new(bin.join("strata"))
            .args(["compile", "--no-verify-each"])
            .arg(dir.join("mobilenetv2.onnx"))
            .arg("-o")
            .arg(&library),
        "strata compile -o libmobilenetv2.so",
    )?;
    let program = out.join("mobilenetv2");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    run(
        Command::new(&compiler)
            .args(["-O2", "-Wall", "-Werror"])
            .arg(root().join("docs/examples/mobilenetv2.c"))
            .arg("-I")
            .arg(&out)
            .arg("-L")
            .arg(&out)
            .args(["-lmobilenetv2", "-Wl,-rpath,$ORIGIN", "-o"])
            .arg(&program),
        "compiling docs/examples/mobilenetv2.c",
    )?;
    let logits = out.join("logits.npy");
    run(Command::new(&program).arg(dir.join("mobilenetv2.inputs/input.npy")).arg(&logits), "the C example")?;
    // The C program's output must equal the JIT's bit for bit (`--no-cache`: the JIT, not the
    // cached shared object of the zoo run), and the shared object loaded by strata-exec must
    // give it too.
    run(
        Command::new(bin.join("strata"))
            .args(["run", "--no-cache", "--no-verify-each", "--rtol", "0", "--atol", "0"])
            .arg(dir.join("mobilenetv2.onnx"))
            .arg(format!("--input=input={}", dir.join("mobilenetv2.inputs/input.npy").display()))
            .arg(format!("--expect=fc_276={}", logits.display())),
        "strata run against the C example's output",
    )?;
    run(
        Command::new(bin.join("strata-exec"))
            .arg("run")
            .arg(out.join("mobilenetv2.json"))
            .arg(format!("--input=input={}", dir.join("mobilenetv2.inputs/input.npy").display()))
            .arg(format!("--expect=fc_276={}", logits.display()))
            .args(["--rtol", "0", "--atol", "0", "--repeat", "1"]),
        "strata-exec on the shared object",
    )?;
    println!("zoo: mobilenetv2: shared object + C header, called from C: identical to strata run");
    Ok(())
}

/// The ONNX Runtime used as the latency baseline (dev tooling only, never a dependency).
const ORT_VERSION: &str = "1.32.0";

fn ort_python() -> Result<PathBuf, String> {
    pip_site("target/python-ort", "onnxruntime", ORT_VERSION)
}

/// The number after `prefix` on the line of `text` that starts with it.
fn number_after(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

fn bench_egraph(repeats: usize) -> Result<(), String> {
    let dir = ensure_zoo()?;
    build(&["-p", "strata-driver", "--bin", "strata"])?;
    let mut graphs = Vec::new();
    for model in ["mobilenetv2", "resnet18", "bert_tiny"] {
        let graph = dir.join(format!("{model}.graph.json"));
        let status = Command::new(root().join("target/debug/strata"))
            .arg("compile")
            .arg(dir.join(format!("{model}.onnx")))
            .args(["--emit=rewrite-report", "-o", "/dev/null", "--graph-json"])
            .arg(&graph)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("{model}: strata compile --emit=rewrite-report failed ({status})"));
        }
        graphs.push(graph.display().to_string());
    }
    let repeats = repeats.to_string();
    let mut args = vec!["bench", "-p", "strata-egraph", "--bench", "egraph", "--", "--repeats", repeats.as_str()];
    args.extend(graphs.iter().map(String::as_str));
    cargo(&args, &[])
}

/// Compiles and runs `model` on its fixed inputs and compares every output with ONNX
/// Runtime's, checked in under `xtask/zoo-reference` (made by `scripts/zoo_reference.py`).
/// Runs a zoo model twice through the compile cache (a scratch one under `dir`): the first run
/// compiles and stores a shared object, the second must load it (`cache: hit`); both must match
/// ONNX Runtime.
fn run_against_reference(bin: &std::path::Path, dir: &std::path::Path, model: &str) -> Result<(), String> {
    for (run, must_hit) in [("cold", false), ("cached", true)] {
        let output = Command::new(bin.join("strata"))
            .arg("run")
            .arg(dir.join(format!("{model}.onnx")))
            .args(zoo_tolerance_args(dir, model))
            .args(zoo_frozen(dir, model))
            .args(zoo_io(dir, model)?)
            .env("STRATA_CACHE_DIR", dir.join("cache"))
            .output()
            .map_err(|e| e.to_string())?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        print!("{stdout}");
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        if !output.status.success() {
            return Err(format!("{model} ({run}): the compiled model does not match ONNX Runtime ({})", output.status));
        }
        if must_hit != stdout.contains("cache: hit") {
            return Err(format!(
                "{model} ({run}): expected the compile cache to {}",
                if must_hit { "hit" } else { "miss" }
            ));
        }
    }
    same_for_any_thread_count(bin, dir, model)
}

/// The outputs of `model` on one thread and on two, byte for byte: no kernel's sums may depend
/// on the thread count (the README's promise; a Winograd tile size chosen per thread count
/// broke it once). Two threads run three times (from the cache after the first): a race
/// between them shows as outputs that differ from run to run (two kernels sharing a loop
/// over memory the plan had reused did, one run in four).
fn same_for_any_thread_count(bin: &std::path::Path, dir: &std::path::Path, model: &str) -> Result<(), String> {
    let mut outputs = Vec::new();
    for (run, threads) in ["1", "2", "2", "2"].into_iter().enumerate() {
        let out = dir.join("threads").join(model).join(run.to_string());
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
        let status = Command::new(bin.join("strata"))
            .arg("run")
            .arg(dir.join(format!("{model}.onnx")))
            .args(["--threads", threads, "--output-dir"])
            .arg(&out)
            // A small model runs on one thread by default: its parallel kernels checked all the same.
            .args(["--disable", "small-models"])
            .args(zoo_frozen(dir, model))
            .args(input_args(&dir.join(format!("{model}.inputs")))?)
            .env("STRATA_CACHE_DIR", dir.join("cache"))
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("{model} on {threads} thread(s): {status}"));
        }
        outputs.push(out);
    }
    let mut files: Vec<_> =
        std::fs::read_dir(&outputs[0]).map_err(|e| e.to_string())?.flatten().map(|e| e.file_name()).collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{model}: no outputs written"));
    }
    for file in &files {
        let one = std::fs::read(outputs[0].join(file)).map_err(|e| e.to_string())?;
        for (run, two) in outputs[1..].iter().enumerate() {
            if one != std::fs::read(two.join(file)).map_err(|e| e.to_string())? {
                return Err(format!(
                    "{model}: output {} differs between one and two threads (two threads' run {})",
                    file.to_string_lossy(),
                    run + 1
                ));
            }
        }
    }
    println!("zoo: {model}: outputs byte-identical on one and two threads (two: three runs)");
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The benchmark-only models are not tested ones too (they would be measured twice).
    #[test]
    fn bench_only_models_are_not_in_the_zoo_tests() {
        for model in super::BENCH_ONLY_MODELS {
            assert!(!super::ZOO_MODELS.contains(model), "{model} is in both lists");
        }
    }
}
