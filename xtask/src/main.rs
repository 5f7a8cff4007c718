//! `cargo xtask`: Strata's only build script. `setup` installs the toolchain (LLVM/MLIR 22
//! from Debian), `test` runs every test (unit, lit, tidy), `lit` runs the lit tests (one file
//! by name, or bless snapshots), `demo` runs the main job on a bundled example. Tidy checks
//! live in `tidy.rs` and run as ordinary tests.

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
    /// Set up, then run every test: unit tests, lit tests, tidy checks.
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
    /// Set up, then lower the bundled example to the LLVM dialect with `strata-opt`.
    Demo,
    /// Run a benchmark (release build) and print its comparison table.
    Bench {
        #[command(subcommand)]
        which: Bench,
    },
}

#[derive(Subcommand)]
enum Bench {
    /// Every planning strategy on every instance of ../shared/bench/planner and on synthetic
    /// 1k/10k/100k-buffer traces: bytes, ratio to the bound, time.
    Plan {
        /// Exact-solver budget per instance, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        budget_ms: u64,
        /// Only instances whose name contains this.
        #[arg(long)]
        filter: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.task {
        Task::Setup => setup::run(),
        Task::Test { rest } => setup::run().and_then(|()| {
            let mut args = vec!["test", "--workspace"];
            if !rest.is_empty() {
                args.push("--");
                args.extend(rest.iter().map(String::as_str));
            }
            cargo(&args, &[])
        }),
        Task::Lit { filter, bless } => setup::run().and_then(|()| {
            let mut args = vec!["test", "-p", "strata-driver", "--test", "lit"];
            if let Some(filter) = &filter {
                args.extend(["--", filter.as_str()]);
            }
            let env: &[(&str, &str)] = if bless { &[("INSTA_UPDATE", "always")] } else { &[] };
            cargo(&args, env)
        }),
        Task::Demo => setup::run().and_then(|()| demo()),
        Task::Bench { which: Bench::Plan { budget_ms, filter } } => {
            let budget = budget_ms.to_string();
            let mut args = vec!["bench", "-p", "strata-plan", "--bench", "plan", "--", "--budget-ms", budget.as_str()];
            if let Some(filter) = &filter {
                args.extend(["--filter", filter.as_str()]);
            }
            cargo(&args, &[])
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

fn cargo(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
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

/// The pipeline the demo runs: a Strata Rust pass between upstream passes, then the named
/// lowering pipelines.
const DEMO_PIPELINE: &str = "builtin.module(canonicalize,sg-verify,strata-bufferize,strata-lower-to-llvm)";

fn demo() -> Result<(), String> {
    cargo(&["build", "-p", "strata-driver", "--bin", "strata-opt"], &[])?;
    let example = root().join("docs/examples/mlp.mlir");
    let binary = root().join("target/debug/strata-opt");
    eprintln!("xtask: strata-opt {} --pass-pipeline='{DEMO_PIPELINE}' --mlir-timing", example.display());
    let status = Command::new(&binary)
        .arg(&example)
        .arg(format!("--pass-pipeline={DEMO_PIPELINE}"))
        .arg("--mlir-timing")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("strata-opt failed ({status})"))
    }
}
