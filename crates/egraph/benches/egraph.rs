//! `cargo xtask bench egraph`: the e-graph optimiser's time and growth on real graphs (the
//! zoo models' graphs, written by `strata compile --emit=rewrite-report --graph-json`) and on
//! a synthetic 200-op elementwise chain. Per graph: nodes, e-nodes (and the growth over the
//! input's e-graph), saturation and extraction time (medians of repeated runs), time per
//! 1000 graph nodes (median, and the fastest run: this machine's timings are noisy), and what
//! the choice saves (allocations, launches).
//!
//! Arguments: graph JSON files; `--repeats N` (default 20); `--no-chain` leaves the chain out
//! (to count one graph's instructions under callgrind).

use std::time::{Duration, Instant};
use strata_egraph::{optimize, Elementwise, Graph, Limits, Op, ScalarOp, Weights};

fn chain(length: usize) -> Graph {
    let mut g = Graph::default();
    let mut x = g.add(Op::Input(0), &[], &[32, 32], 4);
    x = g.add(Op::Kernel("k".into()), &[x], &[32, 32], 4);
    let ops = [
        ScalarOp::new(Elementwise::Relu),
        ScalarOp::new(Elementwise::Exp),
        ScalarOp::new(Elementwise::Neg),
        ScalarOp::new(Elementwise::Tanh),
    ];
    for i in 0..length {
        x = g.add(Op::Elementwise(ops[i % ops.len()]), &[x], &[32, 32], 4);
    }
    g.outputs = vec![x];
    g
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut repeats = 20usize;
    let mut graphs: Vec<(String, Graph)> = Vec::new();
    let mut with_chain = true;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeats" => repeats = args.next().and_then(|v| v.parse().ok()).expect("--repeats N"),
            "--bench" => {}
            "--no-chain" => with_chain = false,
            path => {
                let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
                let name = std::path::Path::new(path)
                    .file_name()
                    .map_or(path.to_owned(), |n| n.to_string_lossy().trim_end_matches(".graph.json").to_owned());
                graphs.push((name, Graph::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"))));
            }
        }
    }
    if with_chain {
        graphs.push(("chain-200".into(), chain(200)));
    }
    println!(
        "{:<14} {:>6} {:>8} {:>7} {:>12} {:>12} {:>16} {:>15} {:>15}",
        "graph", "nodes", "e-nodes", "growth", "saturate ms", "extract ms", "ms/1000 (best)", "allocations", "launches"
    );
    for (name, graph) in &graphs {
        let limits = Limits::for_graph(graph.nodes.len());
        let (mut saturate, mut extract, mut total) = (Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..repeats.max(1) {
            let start = Instant::now();
            let outcome = optimize(graph, &limits, &Weights::default()).expect("optimises");
            total.push(start.elapsed());
            saturate.push(outcome.saturate_time);
            extract.push(outcome.extract_time);
            last = Some(outcome);
        }
        let outcome = last.expect("one run");
        let per_1000 = |t: Duration| t.as_secs_f64() * 1e3 * 1000.0 / graph.nodes.len() as f64;
        let fastest = *total.iter().min().expect("one run");
        println!(
            "{:<14} {:>6} {:>8} {:>6.1}x {:>12.2} {:>12.2} {:>8.1} ({:>5.1}) {:>7} -> {:<5} {:>7} -> {:<5}",
            name,
            graph.nodes.len(),
            outcome.enodes,
            outcome.enodes as f64 / outcome.initial_enodes.max(1) as f64,
            median(saturate).as_secs_f64() * 1e3,
            median(extract).as_secs_f64() * 1e3,
            per_1000(median(total)),
            per_1000(fastest),
            outcome.before.allocations,
            outcome.after.allocations,
            outcome.before.launches,
            outcome.after.launches
        );
    }
    println!("(medians of {repeats} runs, best in parentheses; release build, one thread)");
}
