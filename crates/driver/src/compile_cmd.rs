//! `strata compile model.onnx --emit=STAGE [-o out]` and
//! `strata run model.onnx --input name=x.npy ... --output-dir out/`.

use crate::compile::{compile, compile_model, CompileOptions, Stage};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use strata_codegen::Emit;
use strata_frontend::ImportOptions;
use strata_runtime::Tensor;

/// What both subcommands take to compile a model.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The ONNX model.
    pub model: PathBuf,
    /// Static shape for an input with symbolic dimensions: `name=1x3x224x224` (repeatable).
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = crate::import_cmd::parse_input_shape)]
    pub input_shapes: Vec<(String, Vec<i64>)>,
    /// Arena planning strategy (`exact`, `offsets-greedy-by-size`, `greedy-by-size`, ...).
    #[arg(long, default_value = "exact")]
    pub strategy: String,
    /// Name used in symbols (`strata_<name>_run`); default: the file stem.
    #[arg(long)]
    pub name: Option<String>,
    /// Skip verifying the IR after every pass (faster compiles).
    #[arg(long)]
    pub no_verify_each: bool,
    /// Skip the host loop schedule (MLIR's default loop order; a baseline for benchmarks).
    #[arg(long)]
    pub no_schedule: bool,
}

impl ModelArgs {
    fn options(&self) -> CompileOptions {
        let stem = self.model.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let name: String = self.name.clone().unwrap_or_else(|| stem.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect());
        CompileOptions {
            import: ImportOptions {
                file_name: self.model.display().to_string(),
                base_dir: self.model.parent().map(PathBuf::from),
                input_shapes: self.input_shapes.iter().cloned().collect::<BTreeMap<_, _>>(),
                frozen_inputs: BTreeMap::new(),
            },
            name,
            strategy: self.strategy.clone(),
            verify_each: !self.no_verify_each,
            schedule: !self.no_schedule,
        }
    }

    fn read(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.model).map_err(|e| format!("error: cannot read {}: {e}", self.model.display()))
    }
}

#[derive(Debug, Args)]
pub struct CompileArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// What to produce.
    #[arg(long, value_enum, default_value = "obj")]
    pub emit: Stage,
    /// Output file (default: standard output for text, `<model>.o` for objects).
    #[arg(short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// A progress bar on standard error that appears once a compile has taken a second.
struct Progress {
    bar: ProgressBar,
    start: Instant,
}

impl Progress {
    fn new() -> Self {
        let bar = ProgressBar::with_draw_target(Some(6), ProgressDrawTarget::hidden());
        bar.set_style(ProgressStyle::with_template("{spinner} compiling [{bar:20}] {msg} ({elapsed})").unwrap_or_else(|_| ProgressStyle::default_bar()));
        Progress { bar, start: Instant::now() }
    }
    fn stage(&mut self, name: &str) {
        if self.bar.is_hidden() && self.start.elapsed() > Duration::from_secs(1) && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_message(name.to_owned());
        self.bar.inc(1);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

pub fn run_compile(args: &CompileArgs) -> Result<(), String> {
    let strata = crate::context().map_err(|e| e.to_string())?;
    let bytes = args.model.read()?;
    let options = args.model.options();
    let mut progress = Progress::new();
    let compiled = compile(&strata, &bytes, &options, args.emit, &mut |s| progress.stage(s)).map_err(|e| e.message)?;
    let output: Vec<u8> = match args.emit {
        Stage::Sg | Stage::SgOpt | Stage::Linalg | Stage::Memref | Stage::LlvmDialect => {
            let mut text = compiled.module.as_operation().to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.into_bytes()
        }
        Stage::LlvmIr | Stage::Asm | Stage::Obj => {
            progress.stage("codegen");
            let what = match args.emit {
                Stage::LlvmIr => Emit::LlvmIr,
                Stage::Asm => Emit::Assembly,
                _ => Emit::Object,
            };
            strata_codegen::emit(&compiled.module, what).map_err(|e| format!("error: {e}"))?
        }
    };
    drop(progress);
    let path = match (&args.output, args.emit) {
        (Some(path), _) => Some(path.clone()),
        (None, Stage::Obj) => Some(args.model.model.with_extension("o")),
        (None, _) => None,
    };
    match path {
        Some(path) => std::fs::write(&path, output).map_err(|e| format!("error: cannot write {}: {e}", path.display())),
        None => {
            use std::io::Write;
            std::io::stdout().write_all(&output).map_err(|e| format!("error: cannot write to standard output: {e}"))
        }
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// An input as a `.npy` file: `name=path.npy` (repeatable; every input is required).
    #[arg(long = "input", value_name = "NAME=FILE.npy")]
    pub inputs: Vec<String>,
    /// Where to write each output as `<name>.npy` (default: only print the summary).
    #[arg(long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Compare an output with a reference `.npy`: `name=ref.npy` (repeatable); exits with an
    /// error when any element differs by more than `atol + rtol * |ref|`.
    #[arg(long = "expect", value_name = "NAME=FILE.npy")]
    pub expect: Vec<String>,
    #[arg(long, default_value_t = 1e-4)]
    pub rtol: f64,
    #[arg(long, default_value_t = 1e-5)]
    pub atol: f64,
    /// Run this many times and report the median latency.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
}

pub fn run_run(args: &RunArgs) -> Result<(), String> {
    let strata = crate::context().map_err(|e| e.to_string())?;
    let bytes = args.model.read()?;
    let options = args.model.options();
    let mut progress = Progress::new();
    let (mut model, timings, lower_bound) = compile_model(&strata, &bytes, &options, &mut |s| progress.stage(s)).map_err(|e| e.message)?;
    drop(progress);
    let mut given = BTreeMap::new();
    for spec in &args.inputs {
        let (name, path) = spec.split_once('=').ok_or_else(|| format!("error: --input expects NAME=FILE.npy, got '{spec}'"))?;
        given.insert(name.to_owned(), PathBuf::from(path));
    }
    let signature = model.signature().clone();
    let mut inputs = Vec::new();
    for spec in &signature.inputs {
        let path = given.remove(&spec.name).ok_or_else(|| {
            format!("error: input '{}' ({} {:?}) is missing: pass --input {}=FILE.npy", spec.name, spec.dtype, spec.shape, spec.name)
        })?;
        inputs.push(Tensor::read_npy(&path).map_err(|e| format!("error: {e}"))?);
    }
    if let Some(extra) = given.keys().next() {
        let known: Vec<&str> = signature.inputs.iter().map(|s| s.name.as_str()).collect();
        return Err(format!("error: the model has no input '{extra}' (its inputs: {})", known.join(", ")));
    }
    let mut outputs = model.run(&inputs).map_err(|e| format!("error: {e}"))?;
    let mut latencies = Vec::new();
    for _ in 0..args.repeat {
        let start = Instant::now();
        model.run_into(&inputs, &mut outputs).map_err(|e| format!("error: {e}"))?;
        latencies.push(start.elapsed());
    }
    latencies.sort();
    print_summary(&signature, &outputs, &timings, lower_bound, latencies[latencies.len() / 2]);
    let mut mismatches = Vec::new();
    for spec in &args.expect {
        let (name, path) = spec.split_once('=').ok_or_else(|| format!("error: --expect expects NAME=FILE.npy, got '{spec}'"))?;
        let index = signature.outputs.iter().position(|o| o.name == name).ok_or_else(|| format!("error: the model has no output '{name}'"))?;
        let reference = Tensor::read_npy(Path::new(path)).map_err(|e| format!("error: {e}"))?;
        let actual = &outputs[index];
        if reference.shape() != actual.shape() {
            return Err(format!("error: output '{name}' has shape {:?}, the reference {:?}", actual.shape(), reference.shape()));
        }
        let (mut worst, mut largest, mut bad) = (0.0f64, 0.0f64, 0usize);
        for (a, e) in actual.to_f64().into_iter().zip(reference.to_f64()) {
            let error = (a - e).abs();
            if !(error <= args.atol + args.rtol * e.abs()) {
                bad += 1;
            }
            worst = worst.max(error);
            largest = largest.max(e.abs());
        }
        let relative = worst / largest.max(f64::MIN_POSITIVE);
        println!(
            "expect '{name}': max |error| {worst:.3e} ({relative:.3e} of max |ref|), {bad} of {} outside atol {} + rtol {}",
            actual.len(),
            args.atol,
            args.rtol
        );
        if bad > 0 {
            mismatches.push(name.to_owned());
        }
    }
    if !mismatches.is_empty() {
        return Err(format!("error: outputs differ from their references: {}", mismatches.join(", ")));
    }
    if let Some(dir) = &args.output_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
        for (spec, tensor) in signature.outputs.iter().zip(&outputs) {
            let file: String = spec.name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
            tensor.write_npy(&Path::new(dir).join(format!("{file}.npy"))).map_err(|e| format!("error: {e}"))?;
        }
    }
    Ok(())
}

fn print_summary(signature: &strata_runtime::Signature, outputs: &[Tensor], timings: &[(&str, Duration)], lower_bound: Option<usize>, latency: Duration) {
    for (spec, tensor) in signature.outputs.iter().zip(outputs) {
        let values = tensor.to_f64();
        let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
        let argmax = values.iter().enumerate().fold((0, f64::NEG_INFINITY), |best, (i, &v)| if v > best.1 { (i, v) } else { best }).0;
        println!("output '{}': {} {:?}  min {min:.6}  max {max:.6}  mean {mean:.6}  argmax {argmax}", spec.name, spec.dtype, spec.shape);
    }
    let bound = lower_bound.map_or(String::new(), |b| format!(" (lower bound {b} B)"));
    println!("arena: {} B, alignment {}{bound}", signature.arena_bytes, signature.arena_alignment);
    let stages: Vec<String> = timings.iter().map(|(name, d)| format!("{name} {:.1} ms", d.as_secs_f64() * 1e3)).collect();
    println!("compile: {}", stages.join(", "));
    println!("run: {:.3} ms (median)", latency.as_secs_f64() * 1e3);
}
