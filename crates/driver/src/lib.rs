//! `strata-driver` holds Strata's command-line tools: `strata-opt` (parse MLIR, run a textual
//! pipeline of upstream and Rust passes, print the result, check diagnostics) and, as the
//! pipeline grows, `strata` (import, compile, run, plan). It is the only crate that knows
//! every dialect and pass: [`context`] assembles them. It holds no compiler logic of its own.

// The binaries' allocator: compiled into each binary (`#[path]`), never into this library.
#[cfg(test)]
#[path = "allocator.rs"]
mod allocator;
pub mod cache;
pub mod compile;
pub mod compile_cmd;
pub mod expect;
pub mod import_cmd;
pub mod model;
pub mod opt;
pub mod plan_cmd;

use strata_ir::{Result, StrataContext};

/// Every Strata dialect, in load order.
pub const DIALECTS: &[strata_ir::DialectDef] = &[strata_dialect_sg::DIALECT];

/// When `main` began (set by [`mark_start`]): `strata run` reports how long after it the model
/// was ready to run.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Records the start of the process's own work (the first thing `main` does).
pub fn mark_start() {
    let _ = STARTED.set(std::time::Instant::now());
}

/// The time since [`mark_start`], if it was called.
pub fn since_start() -> Option<std::time::Duration> {
    STARTED.get().map(|start| start.elapsed())
}

/// A context with every upstream dialect and pass and every Strata dialect and pass.
pub fn context() -> Result<StrataContext> {
    let mut strata = StrataContext::new(DIALECTS)?;
    let passes = strata.passes_mut();
    strata_egraph_mlir::register(passes);
    strata_lower::register(passes);
    strata_plan_mlir::register(passes);
    strata_target_cpu::register(passes);
    strata_target_nvptx::register(passes);
    Ok(strata)
}

/// Prints Strata's passes, then every upstream MLIR pass, to standard output.
pub fn list_passes(strata: &StrataContext) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "Strata passes:\n{}", strata.passes().describe());
    let _ = writeln!(stdout, "Upstream MLIR passes:");
    let _ = stdout.flush();
    drop(stdout);
    strata_ir::pass::print_upstream_passes();
}

/// Sends `tracing` output to standard error, filtered by `filter` (default: warnings).
pub fn init_logging(filter: Option<&str>) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter.unwrap_or("warn"))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).without_time().try_init();
}
