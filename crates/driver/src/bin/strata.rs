//! `strata`: the compiler driver. Subcommands: `import`, `compile`, `run`, `plan`.

use clap::{Parser, Subcommand};

#[path = "../allocator.rs"]
mod allocator;

#[derive(Parser)]
#[command(name = "strata", version, about = "The Strata deep-learning compiler")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import an ONNX model into the sg dialect and print it.
    Import(strata_driver::import_cmd::ImportArgs),
    /// Compile an ONNX model and print or write a stage (`--emit`).
    Compile(strata_driver::compile_cmd::CompileArgs),
    /// Compile an ONNX model in memory, run it on `.npy` inputs, write `.npy` outputs.
    Run(strata_driver::compile_cmd::RunArgs),
    /// Plan buffers into one arena at static offsets and report the plan.
    Plan(strata_driver::plan_cmd::PlanArgs),
}

fn main() {
    strata_driver::mark_start();
    strata_runtime::cli::die_quietly_on_closed_pipes();
    allocator::configure();
    strata_runtime::bind_openmp_threads_by_default();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Import(args) => strata_driver::import_cmd::run(args),
        Command::Plan(args) => strata_driver::plan_cmd::run(args),
        Command::Compile(args) => strata_driver::compile_cmd::run_compile(args),
        Command::Run(args) => strata_driver::compile_cmd::run_run(args),
    };
    if let Err(error) = result {
        eprintln!("{}", error.message.trim_end());
        // 1 invalid input, 3 unsupported, 4 verification failed, 70 internal, 74 I/O.
        std::process::exit(error.kind.exit_code());
    }
}
