//! `cargo xtask bench plan`: every strategy on every planner instance (the shared MiniMalloc,
//! OmniMalloc and TFLite sets), on perfect tilings of 100 to 600 buffers (guillotine and
//! pinwheel cuts, optimum known: `strata_plan::tiling`) and on synthetic 1k/10k/100k/1M-buffer
//! traces. Prints arena bytes, the ratio to the lower bound and the time per strategy, side by
//! side, so the strategies are compared within one run, then how many tilings the exact
//! solver proved optimal within the budget. Heuristic times are medians of up to five runs.
//!
//! Arguments: `[--dir DIR] [--budget-ms N] [--filter TEXT] [--seeds N]` (tilings per size and
//! cut kind, 3 by default).

use std::path::PathBuf;
use std::time::Duration;
use strata_plan::report::{plan, render_table, Strategy};
use strata_plan::tiling::{tiling, Cuts};
use strata_plan::{Budget, Buffer, Problem};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/planner");
    let mut budget_ms = 1000u64;
    let mut filter = String::new();
    let mut seeds = 3u64;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dir" => dir = PathBuf::from(args.next().expect("--dir DIR")),
            "--budget-ms" => budget_ms = args.next().and_then(|v| v.parse().ok()).expect("--budget-ms N"),
            "--filter" => filter = args.next().expect("--filter TEXT"),
            "--seeds" => seeds = args.next().and_then(|v| v.parse().ok()).expect("--seeds N"),
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
    // Perfect tilings: a 2n x 2^14 grid (64-byte units) cut into n buffers, `seeds` each.
    for n in TILINGS {
        for cuts in [Cuts::Guillotine, Cuts::Pinwheel] {
            for seed in 0..seeds {
                let name = format!("tiling/{}-{n}-s{seed}", format!("{cuts:?}").to_lowercase());
                instances.push((name, tiling(n, 2 * n as u64, 1 << 14, 64, cuts, seed).problem));
            }
        }
    }
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        instances.push((format!("synthetic-{}k", n / 1000), synthetic(n, 42)));
    }
    let budget = Budget { nodes: u64::MAX, time: Some(Duration::from_millis(budget_ms)) };
    // Per tiling size: (proved optimal, instances, slowest proof in ms).
    let mut tilings: Vec<(usize, usize, usize, f64)> = TILINGS.iter().map(|&n| (n, 0, 0, 0.0)).collect();
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
        if let Some(row) =
            tilings.iter_mut().find(|row| name.starts_with("tiling/") && name.contains(&format!("-{}-", row.0)))
        {
            row.2 += 1;
            if let Some(exact) = reports.iter().find(|r| r.strategy == Strategy::Exact.name() && r.optimal) {
                row.1 += 1;
                row.3 = row.3.max(exact.time_ms);
            }
        }
        print!("{}", render_table(&reports));
        for reason in skipped {
            println!("  skipped: {reason}");
        }
        println!();
    }
    println!("== perfect tilings: proved optimal by the exact solver within {budget_ms} ms");
    for (n, proved, total, slowest) in tilings.into_iter().filter(|row| row.2 > 0) {
        println!("  {n} buffers: {proved}/{total} (slowest proof {slowest:.0} ms)");
    }
}

/// The sizes of the perfect tilings benchmarked.
const TILINGS: [usize; 4] = [100, 200, 400, 600];

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
