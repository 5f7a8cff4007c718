//! `strata plan FILE`: plan buffers into one arena and report the plan.
//!
//! FILE is a MiniMalloc CSV (`id,lower,upper,size`) or memref-level MLIR (the buffers of the
//! `memref.alloc`s of each function, with the `plan-arena` pass's liveness): every strategy
//! side by side. Or an ONNX model: compiled as `strata compile` would to the memref stage,
//! its final plan reported beside what its activations need run node by node in file order
//! (`strata_plan::in_order`).

use crate::compile::{CommandError, Stage};
use crate::compile_cmd::ModelSettings;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;
use strata_plan::report::{plan, render_buffers, render_svg, render_table, PlanReport, Strategy};
use strata_plan::{Budget, Problem};

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// A MiniMalloc CSV file, a memref-level `.mlir` file or an ONNX model (`.onnx`).
    #[arg(required_unless_present = "list_strategies")]
    pub file: Option<PathBuf>,
    /// Strategy to run (default: every strategy, side by side; for a model, `exact`). See
    /// `--list-strategies`.
    #[arg(long)]
    pub strategy: Option<String>,
    /// Time budget of the exact solver, in milliseconds (CSV and MLIR input; a model is
    /// planned as `strata compile` plans it).
    #[arg(long, default_value_t = 1000)]
    pub budget_ms: u64,
    /// Write the plan of the chosen (or best) strategy as JSON.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Draw the memory timeline of the chosen (or best) strategy as SVG.
    #[arg(long, value_name = "PATH")]
    pub svg: Option<PathBuf>,
    /// Byte alignment of every buffer, for `.mlir` input.
    #[arg(long, default_value_t = 64)]
    pub alignment: u64,
    /// List the strategies and exit.
    #[arg(long)]
    pub list_strategies: bool,
    /// For a model: also print every buffer (offset, size, lifetime, class, ONNX ops, nodes).
    #[arg(long)]
    pub buffers: bool,
    /// For a model: how it is compiled (as `strata compile` takes them).
    #[command(flatten)]
    pub model: ModelSettings,
}

pub fn run(args: &PlanArgs) -> Result<(), CommandError> {
    if args.list_strategies {
        for name in Strategy::names() {
            println!("{name}");
        }
        return Ok(());
    }
    if !args.alignment.is_power_of_two() {
        return Err(format!("error: --alignment {} is not a power of two", args.alignment).into());
    }
    let Some(file) = &args.file else { return Err("error: no input file".into()) };
    if file.extension().and_then(|e| e.to_str()) == Some("onnx") {
        return plan_model(args, file);
    }
    let problems = load(file, args.alignment)?;
    let strategies = match &args.strategy {
        Some(name) => vec![Strategy::parse(name).map_err(|e| format!("error: {e}"))?],
        None => Strategy::all(),
    };
    let budget = Budget { nodes: u64::MAX, time: Some(Duration::from_millis(args.budget_ms)) };
    for (name, problem) in &problems {
        let classes = problem.buffers.iter().filter(|b| b.class.in_arena()).count();
        println!("{name}: {} buffers ({classes} in the arena)", problem.buffers.len());
        let mut reports: Vec<PlanReport> = Vec::new();
        let mut skipped = Vec::new();
        let mut best = 0;
        for &strategy in &strategies {
            // The side-by-side table leaves out what is beyond its size limit, and says so; a
            // strategy asked for by name is refused with the same reason.
            if let Some(reason) = strategy.beyond_limit(problem).filter(|_| args.strategy.is_none()) {
                skipped.push(reason);
                continue;
            }
            let mut report = plan(problem, strategy, budget).map_err(|e| format!("error: {name}: {e}"))?;
            // Only the best plan (the first of the smallest, proved first) is written out: the
            // others keep their table row, not a placement per buffer.
            let key = |r: &PlanReport| (r.arena_bytes, !r.optimal);
            if reports.is_empty() || key(&report) < key(&reports[best]) {
                if let Some(previous) = reports.get_mut(best) {
                    previous.buffers = Vec::new();
                }
                best = reports.len();
            } else {
                report.buffers = Vec::new();
            }
            reports.push(report);
        }
        print!("{}", render_table(&reports));
        for reason in skipped {
            println!("  skipped: {reason}");
        }
        for report in reports.iter().filter(|r| r.note.is_some()) {
            println!("  note: {}: {}", report.strategy, report.note.as_deref().unwrap_or_default());
        }
        print_classes(&reports[0]);
        if problems.len() > 1 && (args.json.is_some() || args.svg.is_some()) {
            return Err("error: --json/--svg need an input with one function".into());
        }
        write_outputs(args, &reports[best])?;
    }
    Ok(())
}

/// Bytes per memory class, one line each.
fn print_classes(report: &PlanReport) {
    for class in &report.classes {
        println!(
            "  {:<10} {:>6} buffers {:>12} bytes{}",
            class.class.as_str(),
            class.buffers,
            class.bytes,
            if class.class.in_arena() { " (arena)" } else { "" }
        );
    }
}

/// `--json` and `--svg` of `report`.
fn write_outputs(args: &PlanArgs, report: &PlanReport) -> Result<(), String> {
    if let Some(path) = &args.json {
        strata_runtime::write_atomic(path, report.to_json().as_bytes())
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.svg {
        strata_runtime::write_atomic(path, render_svg(report).as_bytes())
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// `strata plan model.onnx`: the model compiled to the memref stage, its plan reported.
fn plan_model(args: &PlanArgs, file: &Path) -> Result<(), CommandError> {
    let strategy = args.strategy.as_deref().unwrap_or("exact");
    Strategy::parse(strategy).map_err(|e| format!("error: {e}"))?;
    let options = args.model.options(file, strategy)?;
    let bytes =
        std::fs::read(file).map_err(|e| CommandError::io(format!("error: cannot read {}: {e}", file.display())))?;
    let strata = crate::context().map_err(|e| e.to_string())?;
    let compiled = crate::compile::compile(&strata, bytes.into(), &options, Stage::Memref, &mut |_| {})?;
    compiled.warnings.iter().for_each(|w| eprint!("{w}"));
    let Some(report) = &compiled.plan else {
        return Err(format!("error: {}: the compile recorded no arena plan", file.display()).into());
    };
    let in_arena = report.buffers.iter().filter(|b| b.class.in_arena()).count();
    println!("{}: {} buffers ({in_arena} in the arena)", file.display(), report.buffers.len());
    print!("{}", render_table(std::slice::from_ref(report)));
    print_classes(report);
    if let Some(peaks) = &report.in_order {
        println!(
            "  the ONNX nodes run one by one in file order ({} activations): naive {} bytes, plain {} bytes, with views and in-place writes {} bytes",
            peaks.tensors, peaks.naive, peaks.plain, peaks.views_in_place
        );
        if peaks.views_in_place > 0 {
            println!(
                "  arena / (with views and in-place writes): {:.2}x",
                report.arena_bytes as f64 / peaks.views_in_place as f64
            );
        }
    }
    if args.buffers {
        print!("{}", render_buffers(report));
    }
    write_outputs(args, report)?;
    Ok(())
}

fn load(path: &std::path::Path, alignment: u64) -> Result<Vec<(String, Problem)>, String> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("mlir") => {
            use melior::ir::operation::OperationLike;
            use melior::ir::BlockLike;
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
            let strata = crate::context().map_err(|e| e.to_string())?;
            let name = path.display().to_string();
            let mut sources = strata_ir::SourceMap::default();
            sources.add(&name, &text);
            let module = strata.parse(&text, &name).map_err(|e| e.render(&sources))?;
            let mut problems = Vec::new();
            let mut op = module.body().first_operation();
            while let Some(func) = op {
                if strata_ir::ods::op_name(func) == "func.func" {
                    let symbol = strata_ir::Op::of(&func).symbol_name().unwrap_or_default();
                    let analysis =
                        strata_plan_mlir::analyze(func, alignment, false).map_err(|e| format!("error: {e}"))?;
                    for reason in &analysis.skipped {
                        eprintln!("note: {symbol}: not planned: {reason}");
                    }
                    if !analysis.problem.buffers.is_empty() {
                        problems.push((format!("{name} @{symbol}"), analysis.problem));
                    }
                }
                op = func.next_in_block();
            }
            if problems.is_empty() {
                return Err(format!(
                    "error: {name}: no function with static memref.alloc buffers to plan (bufferize first)"
                ));
            }
            Ok(problems)
        }
        Some("csv") => {
            let problem = Problem::from_csv_path(path).map_err(|e| format!("error: {e}"))?;
            Ok(vec![(path.display().to_string(), problem)])
        }
        _ => Err(format!(
            "error: {}: expected a .csv (MiniMalloc), .mlir (memref-level) or .onnx (model) file",
            path.display()
        )),
    }
}
