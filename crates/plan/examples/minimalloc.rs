//! The exact solver on the MiniMalloc challenging instances, one line each:
//! `cargo run --release -p strata-plan --example minimalloc -- [BUDGET_MS] [NAMES]`.
use std::time::{Duration, Instant};
fn main() {
    let budget_ms: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let only = std::env::args().nth(2).unwrap_or_default();
    for name in ["A", "B", "C", "D", "E", "F"].into_iter().filter(|n| only.is_empty() || only.contains(n)) {
        let path =
            format!("{}/../../../shared/bench/planner/minimalloc/{name}.1048576.csv", env!("CARGO_MANIFEST_DIR"));
        let problem = match strata_plan::Problem::from_csv_path(std::path::Path::new(&path)) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{name}: {e}");
                continue;
            }
        };
        let start = Instant::now();
        let r = strata_plan::exact::solve(
            &problem,
            strata_plan::Budget { nodes: u64::MAX, time: Some(Duration::from_millis(budget_ms)) },
        );
        println!(
            "{name}: arena {} bound {} gap {:.2}% {} nodes {} in {:.3} s",
            r.plan.arena,
            r.lower_bound,
            100.0 * (r.plan.arena as f64 / r.lower_bound as f64 - 1.0),
            if r.optimal { "proved" } else { "open" },
            r.nodes,
            start.elapsed().as_secs_f64()
        );
    }
}
