//! `cargo xtask bench plan`: every strategy on every planner instance (the shared MiniMalloc,
//! OmniMalloc and TFLite sets) and on synthetic 1k/10k/100k/1M-buffer traces. Prints arena
//! bytes, the ratio to the lower bound and the time per strategy, side by side, so the
//! strategies are compared within one run. Heuristic times are medians of up to five runs.
//!
//! Arguments: `[--dir DIR] [--budget-ms N] [--filter TEXT]`.

use std::path::PathBuf;
use std::time::Duration;
use strata_plan::report::{plan, render_table, Strategy};
use strata_plan::{Budget, Buffer, Problem};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/planner");
    let mut budget_ms = 1000u64;
    let mut filter = String::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dir" => dir = PathBuf::from(args.next().expect("--dir DIR")),
            "--budget-ms" => budget_ms = args.next().and_then(|v| v.parse().ok()).expect("--budget-ms N"),
            "--filter" => filter = args.next().expect("--filter TEXT"),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let mut instances: Vec<(String, Problem)> = Vec::new();
    let mut files: Vec<PathBuf> = ["minimalloc", "omnimalloc", "tflite"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(dir.join(sub)).into_iter().flatten().flatten().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    for path in files {
        let name = path.strip_prefix(&dir).unwrap_or(&path).display().to_string();
        match Problem::from_csv_path(&path) {
            Ok(problem) => instances.push((name, problem)),
            Err(e) => eprintln!("skipping {name}: {e}"),
        }
    }
    if instances.is_empty() {
        eprintln!("no instances under {} (pass --dir)", dir.display());
    }
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        instances.push((format!("synthetic-{}k", n / 1000), synthetic(n, 42)));
    }
    let budget = Budget { nodes: u64::MAX, time: Some(Duration::from_millis(budget_ms)) };
    for (name, problem) in instances.iter().filter(|(n, _)| n.contains(&filter)) {
        println!("== {name}: {} buffers, capacity {:?}", problem.buffers.len(), problem.capacity);
        let mut reports = Vec::new();
        let mut skipped = Vec::new();
        for strategy in Strategy::all() {
            // What `strata plan` skips (beyond the strategy's documented size limit).
            if let Some(reason) = strategy.beyond_limit(problem) {
                skipped.push(reason);
                continue;
            }
            match plan(problem, strategy, budget) {
                Ok(mut report) => {
                    // Heuristics are deterministic and fast: report the median of up to five
                    // runs (this machine's timings are noisy). The exact solver runs once,
                    // against its time budget.
                    if strategy != Strategy::Exact {
                        let mut times = vec![report.time_ms];
                        while times.len() < 5 && times.iter().sum::<f64>() < 2000.0 {
                            times.extend(plan(problem, strategy, budget).map(|r| r.time_ms));
                        }
                        times.sort_by(f64::total_cmp);
                        report.time_ms = times[times.len() / 2];
                    }
                    reports.push(report)
                }
                Err(e) => println!("{}: {e}", strategy.name()),
            }
        }
        print!("{}", render_table(&reports));
        for reason in skipped {
            println!("  skipped: {reason}");
        }
        println!();
    }
}

/// A DL-like trace: a chain of ops, each producing one buffer that lives a few ops, with
/// occasional long skip connections and sizes from a small set of tensor shapes.
fn synthetic(n: usize, seed: u64) -> Problem {
    let mut state = seed;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let sizes = [4096u64, 16384, 65536, 262144, 1 << 20];
    let buffers = (0..n)
        .map(|i| {
            let r = next();
            let life = if r % 10 == 0 { 2 + r % 64 } else { 1 + r % 4 };
            Buffer::new(i.to_string(), i as u64, i as u64 + life, sizes[(r >> 8) as usize % sizes.len()])
        })
        .collect();
    Problem::new(buffers)
}
