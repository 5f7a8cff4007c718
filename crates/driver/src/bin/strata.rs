//! `strata`: the compiler driver. Subcommands grow with the pipeline; today: `import`, `plan`.

use clap::{Parser, Subcommand};

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
    /// Plan buffers into one arena at static offsets and report the plan.
    Plan(strata_driver::plan_cmd::PlanArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Import(args) => strata_driver::import_cmd::run(args),
        Command::Plan(args) => strata_driver::plan_cmd::run(args),
    };
    if let Err(message) = result {
        eprintln!("{message}");
        std::process::exit(1);
    }
}
