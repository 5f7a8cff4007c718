//! `strata-opt`: an `mlir-opt`-like tool over Strata's context and pass manager.

use crate::expect;
use clap::Parser;
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::time::Instant;
use strata_ir::{render_report, IrError, PassManager, PassManagerOptions, SourceMap, StrataContext, TimingNode};

/// Parse MLIR, run a pass pipeline (upstream MLIR passes and Strata's Rust passes), print the
/// result.
#[derive(Debug, Parser)]
#[command(name = "strata-opt", version, about)]
pub struct OptArgs {
    /// Input file; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    pub input: String,

    /// Output file; `-` (the default) writes standard output.
    #[arg(short = 'o', default_value = "-")]
    pub output: String,

    /// The pipeline to run, e.g. `builtin.module(func.func(cse),canonicalize)`.
    #[arg(long = "pass-pipeline", short = 'p', value_name = "PIPELINE")]
    pub pass_pipeline: Option<String>,

    /// Split the input at `// -----` lines and process each chunk on its own.
    #[arg(long)]
    pub split_input_file: bool,

    /// Check diagnostics against `expected-*` comments instead of reporting them.
    #[arg(long)]
    pub verify_diagnostics: bool,

    /// Print operations in the generic form.
    #[arg(long = "mlir-print-op-generic")]
    pub print_op_generic: bool,

    /// Print locations.
    #[arg(long = "mlir-print-debuginfo")]
    pub print_debuginfo: bool,

    /// Print the pipeline in canonical form (and with named pipelines expanded) to standard
    /// error.
    #[arg(long)]
    pub dump_pass_pipeline: bool,

    /// List the available passes (Strata's and upstream MLIR's) and exit.
    #[arg(long)]
    pub list_passes: bool,

    /// Load more IRDL dialects from this file (repeatable).
    #[arg(long = "irdl-file", value_name = "FILE")]
    pub irdl_files: Vec<PathBuf>,

    /// Do not run Strata's dialect verifiers after parsing (MLIR's verifier still runs).
    /// Unsafe: passes may then see invalid IR. For testing verifier passes.
    #[arg(long = "mlir-very-unsafe-disable-verifier-on-parsing")]
    pub no_verify_on_parse: bool,

    /// Allow operations of unregistered dialects.
    #[arg(long = "allow-unregistered-dialect")]
    pub allow_unregistered: bool,

    /// Verify the IR after every pass.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub verify_each: bool,

    /// Print the IR before every pass (to standard error).
    #[arg(long = "mlir-print-ir-before-all", alias = "print-ir-before-all")]
    pub print_ir_before_all: bool,

    /// Print the IR after every pass (to standard error).
    #[arg(long = "mlir-print-ir-after-all", alias = "print-ir-after-all")]
    pub print_ir_after_all: bool,

    /// Print the IR after a pass that failed (to standard error).
    #[arg(long = "mlir-print-ir-after-failure", alias = "print-ir-after-failure")]
    pub print_ir_after_failure: bool,

    /// Print a per-pass wall-time tree (to standard error).
    #[arg(long = "mlir-timing", alias = "timing")]
    pub timing: bool,

    /// Print the statistics of Strata's passes (to standard error).
    #[arg(long = "mlir-pass-statistics", alias = "pass-statistics")]
    pub pass_statistics: bool,

    /// `tracing` filter for logs on standard error, e.g. `strata_ir=debug`.
    #[arg(long, value_name = "FILTER")]
    pub log: Option<String>,
}

/// Runs `strata-opt`; returns the process exit code.
pub fn run(args: &OptArgs) -> i32 {
    crate::init_logging(args.log.as_deref());
    match run_inner(args) {
        Ok(code) => code,
        Err(message) => {
            eprint!("{message}");
            1
        }
    }
}

fn run_inner(args: &OptArgs) -> Result<i32, String> {
    let strata = crate::context().map_err(|e| e.render(&SourceMap::default()))?;
    strata.mlir().set_allow_unregistered_dialects(args.allow_unregistered);
    for file in &args.irdl_files {
        let text =
            std::fs::read_to_string(file).map_err(|e| format!("error: cannot read {}: {e}\n", file.display()))?;
        let name = file.display().to_string();
        let mut sources = SourceMap::default();
        sources.add(&name, &text);
        strata.load_irdl(&name, &text, &name).map_err(|e| e.render(&sources))?;
    }
    if args.list_passes {
        crate::list_passes(&strata);
        return Ok(0);
    }
    let strata = &strata;
    let options = PassManagerOptions {
        verify_each: args.verify_each,
        print_ir_before_all: args.print_ir_before_all,
        print_ir_after_all: args.print_ir_after_all,
        print_ir_after_failure: args.print_ir_after_failure,
    };
    let mut pass_manager = match &args.pass_pipeline {
        Some(text) => Some(PassManager::parse(strata, text, options).map_err(|e| e.render(&SourceMap::default()))?),
        None => None,
    };

    if let (true, Some(pm)) = (args.dump_pass_pipeline, &pass_manager) {
        eprintln!("{}", pm.pipeline());
        if pm.expanded() != pm.pipeline() {
            eprintln!("expanded: {}", pm.expanded());
        }
    }
    let (name, text) = read_input(&args.input)?;
    let mut sources = SourceMap::default();
    sources.add(&name, &text);
    let chunks = if args.split_input_file { split(&text) } else { vec![text.clone()] };

    let mut outputs = Vec::new();
    // The most severe kind of failure seen (it decides the exit status).
    let mut failed: Option<strata_ir::ErrorKind> = None;
    let mut fail =
        |kind: strata_ir::ErrorKind| failed = Some(failed.map_or(kind, |k: strata_ir::ErrorKind| k.max(kind)));
    let mut timing = Vec::new();
    let mut statistics = strata_ir::RunReport::default();
    for chunk in &chunks {
        // This chunk's timing, statistics and warnings.
        let mut report = strata_ir::RunReport::default();
        let result = process(strata, args, &name, chunk, pass_manager.as_mut(), &mut report);
        timing.append(&mut report.timing);
        statistics.absorb_statistics(&report);
        let warnings = report.warnings;
        if args.verify_diagnostics {
            let expectations = expect::parse_expectations(chunk).map_err(|errors| {
                errors
                    .iter()
                    .map(|(line, m)| format!("{name}:{line}: error: malformed directive: {m}\n"))
                    .collect::<String>()
            })?;
            let mut diagnostics = warnings;
            if let Err(error) = &result {
                diagnostics.extend(error.diagnostics().iter().cloned());
            }
            // Errors that are not diagnostics of the input cannot be expected: report them.
            if let Err(error @ (IrError::Pipeline(_) | IrError::Internal(_))) = &result {
                eprint!("{}", error.render(&sources));
                fail(error.kind());
            }
            let failures = expect::check(&name, &expectations, &diagnostics);
            for failure in &failures {
                eprintln!("{failure}");
            }
            if !failures.is_empty() {
                fail(strata_ir::ErrorKind::Verification);
            }
            if let Ok(output) = result {
                outputs.push(output);
            }
        } else {
            eprint!("{}", strata_ir::render_all(&warnings, &sources));
            match result {
                Ok(output) => outputs.push(output),
                Err(error) => {
                    eprint!("{}", error.render(&sources));
                    fail(error.kind());
                }
            }
        }
    }

    let start = Instant::now();
    let joined = outputs.join("// -----\n");
    write_output(&args.output, &joined)?;
    timing.push(TimingNode::leaf("Output", start.elapsed()));
    if args.timing {
        eprint!("{}", render_report(&timing));
    }
    if args.pass_statistics && !statistics.statistics.is_empty() {
        eprint!("{}", statistics.render_statistics());
    }
    Ok(failed.map_or(0, |kind| kind.exit_code()))
}

fn process<'c>(
    strata: &'c StrataContext,
    args: &OptArgs,
    name: &str,
    chunk: &str,
    pass_manager: Option<&mut PassManager<'c>>,
    report: &mut strata_ir::RunReport,
) -> Result<String, IrError> {
    let start = Instant::now();
    let parsed = if args.no_verify_on_parse {
        strata.parse_without_dialect_verifiers(chunk, name)
    } else {
        strata.parse(chunk, name)
    };
    report.timing.push(TimingNode::leaf("Parser", start.elapsed()));
    let mut module = parsed?;
    if let Some(pm) = pass_manager {
        let run = pm.run(&mut module, &mut io::stderr())?;
        report.timing.extend(run.timing);
        report.statistics = run.statistics;
        report.warnings = run.warnings;
    }
    let mut flags = OperationPrintingFlags::new();
    if args.print_op_generic {
        flags = flags.print_generic_operation_form();
    }
    if args.print_debuginfo {
        flags = flags.enable_debug_info(true, false);
    }
    let mut text = module
        .as_operation()
        .to_string_with_flags(flags)
        .map_err(|e| IrError::Internal(format!("cannot print the module: {e}")))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Splits at lines holding `// -----`. Each chunk is padded with empty lines so that line
/// numbers in diagnostics are those of the whole file.
pub fn split(text: &str) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if line.trim_end() == "// -----" {
            chunks.push(std::mem::take(&mut current));
            current = "\n".repeat(index + 1);
        } else {
            current.push_str(line);
        }
    }
    chunks.push(current);
    chunks
}

fn read_input(input: &str) -> Result<(String, String), String> {
    if input == "-" {
        let mut text = String::new();
        io::stdin().read_to_string(&mut text).map_err(|e| format!("error: cannot read standard input: {e}\n"))?;
        Ok(("<stdin>".to_owned(), text))
    } else {
        let text = std::fs::read_to_string(input).map_err(|e| format!("error: cannot read '{input}': {e}\n"))?;
        Ok((input.to_owned(), text))
    }
}

fn write_output(output: &str, text: &str) -> Result<(), String> {
    if output == "-" {
        let mut stdout = io::stdout().lock();
        stdout
            .write_all(text.as_bytes())
            .and_then(|_| stdout.flush())
            .map_err(|e| format!("error: cannot write output: {e}\n"))
    } else {
        strata_runtime::write_atomic(std::path::Path::new(output), text.as_bytes())
            .map_err(|e| format!("error: cannot write '{output}': {e}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_keeps_line_numbers() {
        let chunks = split("a\nb\n// -----\nc\n// -----\nd\n");
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[0], "a\nb\n");
        assert_eq!(chunks[1].lines().nth(3), Some("c"));
        assert_eq!(chunks[2].lines().nth(5), Some("d"));
    }
}
