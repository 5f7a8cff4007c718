//! `strata compile model.onnx --emit=STAGE [-o out]` and
//! `strata run model.onnx --input name=x.npy ... --output-dir out/`.

use crate::compile::{
    compile, compile_model, compile_model_cached, CacheUse, CommandError, CompileOptions, ModelBytes, Optimization,
    Stage, Target,
};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use strata_frontend::ImportOptions;
use strata_ir::Error;
use strata_runtime::manifest::ArtifactPaths;
use strata_runtime::Tensor;
use strata_target_cpu::Emit;

/// What both subcommands take to compile a model.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The ONNX model.
    pub model: PathBuf,
    /// Arena planning strategy (`exact`, `offsets-greedy-by-size`, `greedy-by-size`, ...).
    #[arg(long, default_value = "exact")]
    pub strategy: String,
    #[command(flatten)]
    pub settings: ModelSettings,
}

/// How a model is compiled, but for its path and the planning strategy (`strata plan` takes
/// these too, with a strategy of its own).
#[derive(Debug, Args)]
pub struct ModelSettings {
    /// Static shape for an input with symbolic dimensions: `name=1x3x224x224` (repeatable).
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = crate::import_cmd::parse_input_shape)]
    pub input_shapes: Vec<(String, Vec<i64>)>,
    /// Fix an input's value at compile time from a serialized ONNX TensorProto (`.pb`):
    /// `name=path.pb` (repeatable). The input becomes a constant, so what depends on it folds
    /// (an `If` on a frozen sample rate keeps only its taken branch).
    #[arg(long = "freeze-input", value_name = "NAME=FILE.pb")]
    pub frozen_inputs: Vec<String>,
    /// Budget in bytes for the constants computed at import (folded values, operator tables):
    /// a small model cannot make the compiler allocate without bound. Default 1 GiB.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_constant_bytes: Option<u64>,
    /// Name used in symbols (`strata_<name>_run`); default: the file stem.
    #[arg(long)]
    pub name: Option<String>,
    /// Verify the IR after every pass, not only each stage's output (the default of debug
    /// builds; release builds verify once per stage, as clang and rustc verify LLVM IR).
    #[arg(long, conflicts_with = "no_verify_each")]
    pub verify_each: bool,
    /// Verify each stage's output only, not the IR after every pass (the release default).
    #[arg(long)]
    pub no_verify_each: bool,
    /// Print each stage's per-pass wall-time tree to standard error, in the layout of
    /// `strata-opt --mlir-timing` (when the model is compiled, not loaded from the cache).
    #[arg(long)]
    pub timing: bool,
    /// Skip the host loop schedule (MLIR's default loop order; a baseline for benchmarks).
    #[arg(long)]
    pub no_schedule: bool,
    /// Skip the e-graph optimiser (`sg-egraph-optimize`: fused elementwise kernels reading
    /// strided views instead of copies, in-place writes), lowering one kernel per op.
    #[arg(long)]
    pub no_egraph: bool,
    /// Leave out these optimisations, the others kept (comma-separated or repeated): to see
    /// what one saves, or to get around a problem in it.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "OPTIMISATION")]
    pub disable: Vec<Optimization>,
    /// Threads to split the host kernels across (OpenMP; default: every core). 1 compiles
    /// sequential code that needs no OpenMP runtime. `strata run` also runs on this many.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

impl ModelSettings {
    /// The compile options for the model at `model`, planned with `strategy`.
    pub fn options(&self, model: &Path, strategy: &str) -> Result<CompileOptions, CommandError> {
        let stem = model.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let name: String = self
            .name
            .clone()
            .unwrap_or_else(|| stem.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect());
        Ok(CompileOptions {
            import: ImportOptions {
                file_name: model.display().to_string(),
                base_dir: model.parent().map(PathBuf::from),
                input_shapes: crate::import_cmd::unique_shapes(&self.input_shapes)?,
                frozen_inputs: crate::import_cmd::read_frozen_inputs(&self.frozen_inputs)?,
                run_shapes: Default::default(),
                max_constant_bytes: self.max_constant_bytes,
                whole_rows: false,
                integer_products: false,
                half_in_f32: false,
            },
            name,
            strategy: strategy.to_owned(),
            verify_each: self.verify_each || (!self.no_verify_each && cfg!(debug_assertions)),
            timing: self.timing,
            schedule: !self.no_schedule,
            target: Target::Host,
            egraph: !self.no_egraph,
            profile: false,
            threads: self.threads.map_or_else(crate::compile::default_threads, |n| n as usize),
            disable: Optimization::canonical(self.disable.clone()),
        })
    }
}

impl ModelArgs {
    fn options(&self) -> Result<CompileOptions, CommandError> {
        self.settings.options(&self.model, &self.strategy)
    }

    fn read(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.model).map_err(|e| format!("error: cannot read {}: {e}", self.model.display()))
    }
}

#[derive(Debug, Args)]
pub struct CompileArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// What to produce (default: from the output's extension: .so, .o, .s, .ll, .ptx;
    /// otherwise `obj` for the host and `ptx` for nvptx).
    #[arg(long, value_enum)]
    pub emit: Option<Stage>,
    /// What the code runs on.
    #[arg(long, value_enum, default_value = "host")]
    pub target: Target,
    /// The NVIDIA architecture for `--target=nvptx` (`sm_80`, `sm_90`, ...).
    #[arg(long, default_value = "sm_80")]
    pub chip: String,
    /// Output file (default: standard output for text, `<model>.o` / `<model>.ptx` /
    /// `lib<model>.so` for binaries). Artifacts that run (`so`, `ptx`) get a manifest
    /// `<stem>.json` beside them, and a C header `<stem>.h` (so) or a weights blob
    /// `<stem>.weights.bin` (ptx).
    #[arg(short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// With `--emit=rewrite-report`: also write the report as JSON here.
    #[arg(long = "report-json", value_name = "PATH")]
    pub report_json: Option<PathBuf>,
    /// With `--emit=rewrite-report`: also write the graph the optimiser read, as JSON (input
    /// of the `egraph` benchmark, which needs no MLIR).
    #[arg(long = "graph-json", value_name = "PATH")]
    pub graph_json: Option<PathBuf>,
}

impl CompileArgs {
    /// The stage to stop at: `--emit`, else the output's extension, else the target's binary.
    fn stage(&self) -> Stage {
        if let Some(stage) = self.emit {
            return stage;
        }
        let extension = self.output.as_ref().and_then(|p| p.extension()).and_then(|e| e.to_str()).unwrap_or("");
        match (self.target, extension) {
            (Target::Host, "so") => Stage::So,
            (Target::Host, "s") => Stage::Asm,
            (Target::Host, "ll") => Stage::LlvmIr,
            (Target::Host, _) => Stage::Obj,
            (Target::Nvptx, _) => Stage::Ptx,
        }
    }
}

/// A progress bar on standard error that appears once a compile has taken a second.
struct Progress {
    bar: ProgressBar,
    start: Instant,
}

impl Progress {
    fn new() -> Self {
        let bar = ProgressBar::with_draw_target(Some(6), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} compiling [{bar:20}] {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Progress { bar, start: Instant::now() }
    }
    fn stage(&mut self, name: &str) {
        if self.bar.is_hidden()
            && self.start.elapsed() > Duration::from_secs(1)
            && std::io::IsTerminal::is_terminal(&std::io::stderr())
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_message(name.to_owned());
        self.bar.inc(1);
    }

    /// Prints the compile's warnings above the bar.
    fn warn(&self, warnings: &[String]) {
        self.bar.suspend(|| warnings.iter().for_each(|w| eprint!("{w}")));
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

pub fn run_compile(args: &CompileArgs) -> Result<(), CommandError> {
    let strata = crate::context().map_err(|e| e.to_string())?;
    let bytes = args.model.read()?;
    let mut options = args.model.options()?;
    options.target = args.target;
    let stage = args.stage();
    // A compile that cannot write its result fails before it starts, not after.
    if let Some(dir) = args.output.as_ref().and_then(|p| p.parent()).filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(CommandError::io(format!(
                "error: cannot write {}: the directory {} does not exist",
                args.output.as_ref().expect("checked").display(),
                dir.display()
            )));
        }
    }
    let mut progress = Progress::new();
    // A shared object lowers its kernels where it compiles them, part by part.
    let mut compiled = if stage == Stage::So {
        crate::compile::compile_deferred(&strata, bytes.into(), &options, &mut |s| progress.stage(s))?
    } else {
        compile(&strata, bytes.into(), &options, stage, &mut |s| progress.stage(s))?
    };
    progress.warn(&compiled.warnings);
    let default_path = |extension: &str| {
        let stem = args.model.model.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let file = if extension == "so" { format!("lib{stem}.so") } else { format!("{stem}.{extension}") };
        args.model.model.with_file_name(file)
    };
    let output: Vec<u8> = match stage {
        Stage::Sg | Stage::SgOpt | Stage::Linalg | Stage::Memref | Stage::LlvmDialect | Stage::Gpu => {
            let mut text = compiled.module.as_operation().to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.into_bytes()
        }
        Stage::RewriteReport => {
            progress.stage("rewrite");
            let main = strata_ir::rewrite::find_symbol(&compiled.module, "main")
                .ok_or("error: the module has no @main function")?;
            let target = crate::compile::egraph_target(options.target);
            let graph =
                strata_egraph_mlir::graph_of(main, target).map_err(|e| format!("error: rewrite-report: {e}"))?;
            let start = Instant::now();
            let limits = strata_egraph::Limits::for_graph(graph.nodes.len());
            let outcome = strata_egraph::optimize(&graph, &limits, &strata_egraph::Weights::default())
                .map_err(|e| format!("error: rewrite-report: {e}"))?;
            let (text, json) = strata_egraph_mlir::report(&graph, &outcome, start.elapsed());
            if let Some(path) = &args.graph_json {
                strata_runtime::write_atomic(path, (graph.to_json() + "\n").as_bytes())
                    .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
            }
            if let Some(path) = &args.report_json {
                let pretty = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
                strata_runtime::write_atomic(path, (pretty + "\n").as_bytes())
                    .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
            }
            text.into_bytes()
        }
        Stage::LlvmIr | Stage::Asm | Stage::Obj => {
            progress.stage("codegen");
            let what = match stage {
                Stage::LlvmIr => Emit::LlvmIr,
                Stage::Asm => Emit::Assembly,
                _ => Emit::Object,
            };
            let entry = compiled.entry_symbol(&options.name);
            let symbol = strata_target_cpu::weights_symbol(&options.name);
            let weights = strata_target_cpu::EmbeddedWeights {
                entry: &entry,
                symbol: &symbol,
                bytes: compiled.weights.as_slice(),
                alignment: strata_target_cpu::artifact::WEIGHTS_ALIGNMENT,
                signature: "",
                signature_symbol: "",
            };
            strata_target_cpu::emit(&compiled.module, what, Some(weights)).map_err(|e| format!("error: {e}"))?
        }
        Stage::So | Stage::Ptx => {
            progress.stage("codegen");
            let main =
                args.output.clone().unwrap_or_else(|| default_path(if stage == Stage::So { "so" } else { "ptx" }));
            let paths = ArtifactPaths::for_output(&main);
            if let Some(why) = paths.collision() {
                return Err(Error::invalid_input(why).into());
            }
            let manifest = if stage == Stage::So {
                let warned = compiled.warnings.len();
                let manifest = compiled.write_shared_object(&strata, &options, &paths)?.manifest;
                progress.warn(&compiled.warnings[warned..]);
                manifest
            } else {
                strata_target_nvptx::artifact::write(
                    &strata,
                    &compiled.module,
                    &compiled.signature,
                    &options.name,
                    &args.chip,
                    &paths,
                )?
            };
            drop(progress);
            let extra = if stage == Stage::So {
                format!(", header {}", paths.header.display())
            } else {
                format!(", {} kernels, weights {} B", manifest.kernels.len(), manifest.weights_bytes)
            };
            eprintln!("wrote {} (manifest {}{extra})", paths.main.display(), paths.manifest.display());
            return Ok(());
        }
    };
    drop(progress);
    let path = match (&args.output, stage) {
        (Some(path), _) => Some(path.clone()),
        (None, Stage::Obj) => Some(default_path("o")),
        (None, _) => None,
    };
    match path {
        Some(path) => strata_runtime::write_atomic(&path, &output)
            .map_err(|e| CommandError::io(format!("error: cannot write {}: {e}", path.display()))),
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(&output)
                .map_err(|e| CommandError::io(format!("error: cannot write to standard output: {e}")))
        }
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// An input as a `.npy` file: `name=path.npy` (repeatable; every input is required).
    #[arg(long = "input", value_name = "NAME=FILE.npy", value_parser = strata_runtime::cli::name_file)]
    pub inputs: Vec<String>,
    /// Where to write each output as `<name>.npy` (default: only print the summary).
    #[arg(long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Compare an output with a reference `.npy`: `name=ref.npy` (repeatable); exits with an
    /// error when any element differs by more than `atol + rtol * |ref|`.
    #[arg(long = "expect", value_name = "NAME=FILE.npy", value_parser = strata_runtime::cli::name_file)]
    pub expect: Vec<String>,
    #[arg(long, default_value_t = 1e-4)]
    pub rtol: f64,
    #[arg(long, default_value_t = 1e-5)]
    pub atol: f64,
    /// Run this many times and report the median latency.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000), default_value_t = 1)]
    pub repeat: usize,
    /// Where to run: the host CPU (JIT), or the first CUDA GPU (PTX, through the CUDA driver).
    #[arg(long, value_enum, default_value = "host")]
    pub device: Device,
    /// The NVIDIA architecture to compile for with `--device=cuda`.
    #[arg(long, default_value = "sm_80")]
    pub chip: String,
    /// Time every kernel of the compiled code (cycle counters around each; x86-64 hosts) and
    /// print the time per run of each ONNX node's kernels, the hottest first.
    #[arg(long)]
    pub profile: bool,
    /// Compile without the compile cache (a big model into a temporary shared object, its
    /// kernels compiled on every core; a small one in memory with the JIT). By default a host
    /// run loads the shared object an earlier run with the same model, options, compiler and CPU stored in
    /// `$STRATA_CACHE_DIR` (else `$XDG_CACHE_HOME/strata`, else `~/.cache/strata`; bounded by
    /// `STRATA_CACHE_MAX_MB`, default 2048), or compiles one and stores it there.
    #[arg(long)]
    pub no_cache: bool,
}

/// Where `strata run` runs a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Device {
    Host,
    Cuda,
}

/// The shapes of the `--input name=file.npy` arrays (their headers): an input the model
/// declares with symbolic dimensions takes its array's shape unless `--input-shape` gives one.
fn array_shapes(specs: &[String]) -> Result<std::collections::BTreeMap<String, Vec<i64>>, CommandError> {
    let mut shapes = std::collections::BTreeMap::new();
    for spec in specs {
        let Some((name, path)) = spec.split_once('=') else { continue };
        // The errors `read_inputs` would give for the file later (the same kinds).
        let shape = Tensor::npy_shape(Path::new(path)).map_err(|e| Error::io(e.to_string()))?;
        let dims = shape.iter().map(|&d| i64::try_from(d)).collect::<Result<Vec<_>, _>>();
        let dims = dims.map_err(|_| Error::invalid_input(format!("{path}: shape {shape:?} is larger than memory")))?;
        shapes.insert(name.to_owned(), dims);
    }
    Ok(shapes)
}

/// `strata run --device=cuda`: compiles to PTX in a scratch folder, loads it on the GPU and
/// runs it; the latency is GPU time (CUDA events) per run.
fn run_cuda(args: &RunArgs) -> Result<(), CommandError> {
    let strata = crate::context().map_err(|e| e.to_string())?;
    let bytes = args.model.read()?;
    let mut options = args.model.options()?;
    options.import.run_shapes = array_shapes(&args.inputs)?;
    options.target = Target::Nvptx;
    let mut progress = Progress::new();
    let compiled = compile(&strata, bytes.into(), &options, Stage::Gpu, &mut |s| progress.stage(s))?;
    progress.warn(&compiled.warnings);
    progress.stage("ptx");
    let dir = std::env::temp_dir().join(format!("strata-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
    let paths = ArtifactPaths::for_output(&dir.join(format!("{}.ptx", options.name)));
    let written = strata_target_nvptx::artifact::write(
        &strata,
        &compiled.module,
        &compiled.signature,
        &options.name,
        &args.chip,
        &paths,
    );
    drop(progress);
    let loaded =
        written.and_then(|_| strata_runtime::cuda::CudaModel::load(&paths.manifest).map_err(|e| Error::of(&e)));
    let _ = std::fs::remove_dir_all(&dir);
    let mut model = loaded?;
    let signature = model.signature().clone();
    let inputs = strata_runtime::cli::read_inputs(&signature, &args.inputs)?;
    let outputs = model.run(&inputs).map_err(|e| format!("error: {e}"))?;
    let gpu_ms = model.time(args.repeat).map_err(|e| format!("error: {e}"))?;
    strata_runtime::cli::print_outputs(&signature, &outputs);
    println!("device: {}, {} kernel launches per run", model.device, model.launches());
    println!("arena: {} B, alignment {}", signature.arena_bytes, signature.arena_alignment);
    let stages: Vec<String> =
        compiled.timings.iter().map(|(name, d)| format!("{name} {:.1} ms", d.as_secs_f64() * 1e3)).collect();
    println!("compile: {}", stages.join(", "));
    println!("run: {gpu_ms:.3} ms (GPU time, median of {})", args.repeat.max(1));
    strata_runtime::cli::check_expectations(&signature, &outputs, &args.expect, args.rtol, args.atol)?;
    if let Some(dir) = &args.output_dir {
        strata_runtime::cli::write_outputs(&signature, &outputs, dir)?;
    }
    Ok(())
}

pub fn run_run(args: &RunArgs) -> Result<(), CommandError> {
    if args.device == Device::Cuda {
        if args.profile {
            return Err("error: --profile times host code; it does not apply to --device=cuda".into());
        }
        return run_cuda(args);
    }
    if args.profile && !cfg!(target_arch = "x86_64") {
        return Err(CommandError::new(
            strata_ir::ErrorKind::Unsupported,
            "error: --profile reads the x86 time-stamp counter; this host is not x86-64",
        ));
    }
    let strata = crate::context().map_err(|e| e.to_string())?;
    let mut options = args.model.options()?;
    options.import.run_shapes = array_shapes(&args.inputs)?;
    options.profile = args.profile;
    let mut progress = Progress::new();
    // The profile's counters are read from the JIT: no cache with --profile.
    let cache = if args.no_cache || args.profile {
        None
    } else {
        match crate::cache::Cache::open(None) {
            Ok(cache) => Some(cache),
            Err(why) => {
                progress.warn(&[format!("warning: compile cache not used: {why}\n")]);
                None
            }
        }
    };
    let compiled = match &cache {
        Some(cache) => {
            let bytes = ModelBytes::open(&args.model.model)
                .map_err(|e| format!("error: cannot read {}: {e}", args.model.model.display()))?;
            compile_model_cached(&strata, bytes, &options, cache, &mut |s| progress.stage(s))?
        }
        None => compile_model(&strata, args.model.read()?.into(), &options, &mut |s| progress.stage(s))?,
    };
    progress.warn(&compiled.warnings);
    if let Some(CacheUse::Failed(why)) = &compiled.cache {
        progress.warn(&[format!("warning: compile cache not used ({why}); compiled in memory\n")]);
    }
    if let Some(CacheUse::Stored { replaced: Some(why), .. }) = &compiled.cache {
        progress.warn(&[format!("warning: compile cache entry was unusable ({why}); compiled again\n")]);
    }
    let (mut model, timings, lower_bound) = (compiled.model, compiled.timings, compiled.arena_lower_bound);
    let ready = crate::since_start();
    drop(progress);
    if options.threads > 1 {
        strata_runtime::set_threads(options.threads).map_err(|e| format!("error: {e}"))?;
    }
    let signature = model.signature().clone();
    let inputs = strata_runtime::cli::read_inputs(&signature, &args.inputs)?;
    let mut outputs = model.run(&inputs).map_err(|e| format!("error: {e}"))?;
    if let Some(profile) = &compiled.profile {
        profile.reset();
    }
    let mut latencies = Vec::new();
    let (wall, ticks) = (Instant::now(), time_stamp());
    // At least one timed run (`--repeat 0` would leave no median).
    let runs = args.repeat.max(1);
    for _ in 0..runs {
        let start = Instant::now();
        model.run_into(&inputs, &mut outputs).map_err(|e| format!("error: {e}"))?;
        latencies.push(start.elapsed());
    }
    let elapsed = wall.elapsed();
    let ticks_per_ms = (time_stamp() - ticks) as f64 / (elapsed.as_secs_f64() * 1e3);
    // The kernels' counters are summed over every run: their means are against the mean run.
    let mean = elapsed.div_f64(runs as f64);
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    print_summary(&signature, &outputs, &timings, lower_bound, median);
    if let Some(ready) = ready {
        println!("ready: {:.1} ms after start (model loaded, before its first run)", ready.as_secs_f64() * 1e3);
    }
    match &compiled.cache {
        Some(CacheUse::Hit(entry)) => println!("cache: hit {}", entry.display()),
        Some(CacheUse::Stored { entry, .. }) => println!("cache: stored {}", entry.display()),
        _ => {}
    }
    if let Some(profile) = &compiled.profile {
        let rows = print_profile(profile, runs, ticks_per_ms, mean, median);
        if let Some(dir) = &args.output_dir {
            let path = dir.join("profile.csv");
            std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(&path, profile_csv(&rows)))
                .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
            println!("profile: every kernel in {}", path.display());
        }
    }
    strata_runtime::cli::check_expectations(&signature, &outputs, &args.expect, args.rtol, args.atol)?;
    if let Some(dir) = &args.output_dir {
        strata_runtime::cli::write_outputs(&signature, &outputs, dir)?;
    }
    Ok(())
}

/// The x86 time-stamp counter, which the profile's counters read too (0 elsewhere).
fn time_stamp() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // Safety: every x86-64 CPU has RDTSC.
    return unsafe { std::arch::x86_64::_rdtsc() };
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// Every kernel's time per run as CSV, the hottest first: `ms,percent,nodes,ops` (the nodes
/// and ops quoted, `"` doubled).
fn profile_csv(rows: &[(f64, &str)]) -> String {
    let total: f64 = rows.iter().map(|r| r.0).sum();
    let quote = |text: &str| format!("\"{}\"", text.replace('"', "\"\""));
    let mut csv = String::from("ms_per_run,percent,nodes,ops\n");
    for (ms, label) in rows {
        let (nodes, ops) = label.split_once('\t').unwrap_or((label, ""));
        let percent = 100.0 * ms / total.max(f64::MIN_POSITIVE);
        csv += &format!("{ms:.6},{percent:.3},{},{}\n", quote(nodes), quote(ops));
    }
    csv
}

/// Prints kernel times per run, the hottest first: the first 25 and what the rest add up to.
/// Returns every kernel's row (ms per run, label).
fn print_profile(
    profile: &crate::compile::Profile,
    runs: usize,
    ticks_per_ms: f64,
    mean: Duration,
    median: Duration,
) -> Vec<(f64, &str)> {
    let ticks = profile.read();
    let mut rows: Vec<(f64, &str)> = ticks
        .iter()
        .zip(&profile.labels)
        .map(|(&t, label)| (t as f64 / ticks_per_ms / runs.max(1) as f64, label.as_str()))
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f64 = rows.iter().map(|r| r.0).sum();
    // Means, as the counters sum every run: on a loaded machine a few slow runs put the mean
    // well above the median (a sum of kernel means above the median run read as a contradiction).
    println!(
        "profile: {} kernels, {total:.3} ms per run in kernels of {:.3} ms per run (means of {runs} runs, the median run \
         {:.3} ms; the rest is the entry point and the timers)",
        rows.len(),
        mean.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3
    );
    println!("{:>10} {:>7} {:>7}  kernel (ONNX nodes)  [ops]", "ms", "%", "cum %");
    let mut cumulative = 0.0;
    for (ms, label) in rows.iter().take(25) {
        cumulative += ms;
        let (nodes, ops) = label.split_once('\t').unwrap_or((label, ""));
        println!(
            "{ms:>10.4} {:>6.1}% {:>6.1}%  {nodes}  [{ops}]",
            100.0 * ms / total.max(f64::MIN_POSITIVE),
            100.0 * cumulative / total.max(f64::MIN_POSITIVE)
        );
    }
    if rows.len() > 25 {
        let rest: f64 = rows[25..].iter().map(|r| r.0).sum();
        println!(
            "{rest:>10.4} {:>6.1}%          {} more kernels",
            100.0 * rest / total.max(f64::MIN_POSITIVE),
            rows.len() - 25
        );
    }
    rows
}

fn print_summary(
    signature: &strata_runtime::Signature,
    outputs: &[Tensor],
    timings: &[(&str, Duration)],
    lower_bound: Option<usize>,
    latency: Duration,
) {
    strata_runtime::cli::print_outputs(signature, outputs);
    let bound = lower_bound.map_or(String::new(), |b| format!(" (lower bound {b} B)"));
    println!("arena: {} B, alignment {}{bound}", signature.arena_bytes, signature.arena_alignment);
    let stages: Vec<String> =
        timings.iter().map(|(name, d)| format!("{name} {:.1} ms", d.as_secs_f64() * 1e3)).collect();
    println!("compile: {}", stages.join(", "));
    if let Some(bytes) = peak_rss() {
        println!("memory: peak RSS {:.1} MB (compiler and run)", bytes as f64 / 1e6);
    }
    println!("run: {:.3} ms (median)", latency.as_secs_f64() * 1e3);
}

/// The process's peak resident set in bytes (Linux's `VmHWM`; `None` elsewhere).
pub(crate) fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}
