//! `strata-exec`: runs what `strata compile` wrote, with the runtime alone (no MLIR or LLVM
//! linked, so it is small enough to ship beside a model).
//!
//! - `strata-exec run model.json --input x=in.npy [--expect y=ref.npy] [--output-dir out]
//!   [--repeat N]`: loads the artifact its manifest describes (a host shared object, or PTX on
//!   the first CUDA GPU), runs it and prints a summary.
//! - `strata-exec probe`: whether a CUDA GPU can be used here (exit status 0) or why not (3).
//! - `strata-exec check DIR`: runs every case bundle under DIR (`<case>/model.json`, inputs
//!   `input_<i>.npy`, references `expected_<i>.npy`, `tolerance.txt` with rtol and atol, and
//!   `op.txt` naming the op), as written by `strata-conformance --bundle`, and prints the pass
//!   rate per op.

use clap::{Parser, Subcommand};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use strata_error::{Error, ErrorKind};
use strata_runtime::cuda::CudaModel;
use strata_runtime::{cli, compare, Manifest, Model, Signature, Tensor};

#[derive(Parser)]
#[command(name = "strata-exec", about = "Run compiled Strata artifacts (host .so or PTX) without the compiler")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one artifact.
    Run {
        /// The artifact's manifest (`<stem>.json` beside the .so or .ptx).
        manifest: PathBuf,
        #[arg(long = "input", value_name = "NAME=FILE.npy", value_parser = strata_runtime::cli::name_file)]
        inputs: Vec<String>,
        #[arg(long = "expect", value_name = "NAME=FILE.npy", value_parser = strata_runtime::cli::name_file)]
        expect: Vec<String>,
        #[arg(long, default_value_t = 1e-4)]
        rtol: f64,
        #[arg(long, default_value_t = 1e-5)]
        atol: f64,
        #[arg(long = "output-dir", value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Time this many runs and report the median.
        #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000), default_value_t = 10)]
        repeat: usize,
    },
    /// Say whether a CUDA GPU can be used here (exit status 0), or why not (exit status 3).
    Probe,
    /// Run every case bundle under a folder and report the pass rate per op.
    Check {
        dir: PathBuf,
        /// Also write the table and every failure as Markdown here.
        #[arg(long)]
        report: Option<PathBuf>,
    },
}

/// A loaded artifact of either kind.
enum Loaded {
    Host(Model),
    Cuda(Box<CudaModel>),
}

impl Loaded {
    fn load(manifest: &Path) -> Result<Loaded, Error> {
        let (parsed, dir, library) = Manifest::read_artifact(manifest).map_err(runtime)?;
        match parsed.target.as_str() {
            "host" => Model::from_read(&parsed, &dir, library).map(Loaded::Host),
            "nvptx" => CudaModel::load(manifest).map(|m| Loaded::Cuda(Box::new(m))),
            other => return Err(Error::invalid_input(format!("{}: unknown target '{other}'", manifest.display()))),
        }
        .map_err(runtime)
    }

    fn signature(&self) -> &Signature {
        match self {
            Loaded::Host(m) => m.signature(),
            Loaded::Cuda(m) => m.signature(),
        }
    }

    fn run(&mut self, inputs: &[Tensor]) -> Result<Vec<Tensor>, Error> {
        match self {
            Loaded::Host(m) => m.run(inputs),
            Loaded::Cuda(m) => m.run(inputs),
        }
        .map_err(runtime)
    }

    /// Median milliseconds per run: GPU time on CUDA, wall time on the host.
    fn time(&mut self, inputs: &[Tensor], repeats: usize) -> Result<(f64, &'static str), Error> {
        match self {
            Loaded::Cuda(m) => m.time(repeats).map(|ms| (ms, "GPU time")).map_err(runtime),
            Loaded::Host(m) => {
                let mut outputs = m.run(inputs).map_err(runtime)?;
                let mut times = Vec::new();
                for _ in 0..repeats.max(1) {
                    let start = Instant::now();
                    m.run_into(inputs, &mut outputs).map_err(runtime)?;
                    times.push(start.elapsed().as_secs_f64() * 1e3);
                }
                times.sort_by(f64::total_cmp);
                Ok((times[times.len() / 2], "wall time"))
            }
        }
    }
}

fn run(
    manifest: &Path,
    inputs: &[String],
    expect: &[String],
    rtol: f64,
    atol: f64,
    output_dir: Option<&Path>,
    repeat: usize,
) -> Result<(), Error> {
    let mut model = Loaded::load(manifest)?;
    let signature = model.signature().clone();
    let inputs = cli::read_inputs(&signature, inputs)?;
    let outputs = model.run(&inputs)?;
    let (ms, kind) = model.time(&inputs, repeat)?;
    cli::print_outputs(&signature, &outputs);
    if let Loaded::Cuda(m) = &model {
        println!("device: {}, {} kernel launches per run", m.device, m.launches());
    }
    println!("run: {ms:.3} ms ({kind}, median of {})", repeat.max(1));
    cli::check_expectations(&signature, &outputs, expect, rtol, atol)?;
    if let Some(dir) = output_dir {
        cli::write_outputs(&signature, &outputs, dir)?;
    }
    Ok(())
}

/// Runs one case bundle: `Ok(None)` passed, `Ok(Some(why))` mismatched, `Err` failed.
fn check_case(case: &Path) -> Result<Option<String>, Error> {
    let mut model = Loaded::load(&case.join("model.json"))?;
    let signature = model.signature().clone();
    let inputs = (0..signature.inputs.len())
        .map(|i| Tensor::read_npy(&case.join(format!("input_{i}.npy"))))
        .collect::<Result<Vec<_>, _>>()
        .map_err(runtime)?;
    let outputs = model.run(&inputs)?;
    let tolerance = std::fs::read_to_string(case.join("tolerance.txt")).unwrap_or_default();
    let mut parts = tolerance.split_whitespace().filter_map(|p| p.parse::<f64>().ok());
    let (rtol, atol) = (parts.next().unwrap_or(1e-3), parts.next().unwrap_or(1e-7));
    for (i, actual) in outputs.iter().enumerate() {
        let expected = Tensor::read_npy(&case.join(format!("expected_{i}.npy"))).map_err(runtime)?;
        let comparison = compare(actual, &expected, rtol, atol);
        if !comparison.passed() {
            return Ok(Some(format!("output {i}: {}", comparison.describe(rtol, atol))));
        }
    }
    Ok(None)
}

fn check(dir: &Path, report: Option<&Path>) -> Result<bool, Error> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("cannot read {}: {e}", dir.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("model.json").is_file())
        .collect();
    cases.sort();
    let mut rows: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut problems = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let op =
            std::fs::read_to_string(case.join("op.txt")).map(|s| s.trim().to_owned()).unwrap_or_else(|_| "?".into());
        let row = rows.entry(op.clone()).or_default();
        row[0] += 1;
        match check_case(case) {
            Ok(None) => row[1] += 1,
            Ok(Some(why)) => {
                row[2] += 1;
                problems.push(format!("- {op} `{name}`: MISMATCH {why}"));
            }
            Err(why) => {
                row[3] += 1;
                problems.push(format!("- {op} `{name}`: FAILED {}", why.to_string().replace('\n', " ")));
            }
        }
    }
    let mut table = format!("{:<24} {:>6} {:>7} {:>9} {:>7}\n", "op", "cases", "passed", "mismatch", "failed");
    let mut total = [0usize; 4];
    for (op, row) in &rows {
        table += &format!("{op:<24} {:>6} {:>7} {:>9} {:>7}\n", row[0], row[1], row[2], row[3]);
        for k in 0..4 {
            total[k] += row[k];
        }
    }
    table += &format!("{:<24} {:>6} {:>7} {:>9} {:>7}\n", "total", total[0], total[1], total[2], total[3]);
    table += &format!("{:.1}% of cases pass\n", 100.0 * total[1] as f64 / total[0].max(1) as f64);
    print!("{table}");
    for line in &problems {
        println!("{line}");
    }
    if let Some(path) = report {
        let text = format!("# Case bundles run by strata-exec\n\n```\n{table}```\n\n{}\n", problems.join("\n"));
        strata_runtime::write_atomic(path, text.as_bytes())
            .map_err(|e| Error::io(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(total[1] == total[0])
}

fn main() {
    strata_runtime::cli::die_quietly_on_closed_pipes();
    strata_runtime::bind_openmp_threads_by_default();
    let args = Args::parse();
    let result = match &args.command {
        Command::Run { manifest, inputs, expect, rtol, atol, output_dir, repeat } => {
            run(manifest, inputs, expect, *rtol, *atol, output_dir.as_deref(), *repeat)
        }
        Command::Probe => match strata_runtime::cuda::unavailable() {
            None => {
                println!("CUDA GPU available");
                Ok(())
            }
            Some(why) => {
                println!("no CUDA GPU: {why}");
                std::process::exit(3);
            }
        },
        Command::Check { dir, report } => check(dir, report.as_deref()).and_then(|all| {
            if all {
                Ok(())
            } else {
                Err(Error::new(ErrorKind::Verification, "some cases did not pass"))
            }
        }),
    };
    if let Err(error) = result {
        eprintln!("error: {error}");
        // 1 invalid input, 3 unsupported, 4 verification (outputs differ), 70 internal, 74 I/O.
        std::process::exit(error.kind.exit_code());
    }
}

/// A runtime error with its kind.
fn runtime(error: strata_runtime::RuntimeError) -> Error {
    use strata_error::HasKind;
    Error::new(error.kind(), error.to_string())
}
