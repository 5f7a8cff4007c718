//! `cargo xtask bench compile`: how long `strata run` (release, default options) takes to
//! get each zoo model ready, per stage, three ways: without the cache (a temporary shared
//! object, its kernels compiled in parallel), cold
//! through the compile cache (a shared object built and stored), and warm (loaded from the
//! cache); with the process's wall time and peak RSS, beside IREE's compile times measured on
//! this machine (`../shared/notes/peers.md`). Then the scaling series
//! (`xtask/scripts/scaling.py`: chains, fan-outs, residual ladders and matmul ladders of 1k to
//! 10k ONNX nodes), each stage's time per 1000 nodes: flat columns mean linear stages.

use crate::{bench_models, cargo, ensure_generated, ensure_zoo, input_args, number_after, root, zoo_frozen};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// IREE's compile seconds on this machine (peers.md: default / tuned flags).
const IREE: &[(&str, &str)] = &[
    ("mobilenetv2", "16.4 / 10.5"),
    ("resnet18", "10.3 / 10.0"),
    ("resnet50", "19.2 / 14.5"),
    ("bert_tiny", "4.5 / 4.9"),
];

/// The stages `strata run` reports on its `compile:` line, in order.
const STAGES: &[&str] = &["import", "sg-opt", "lower", "bufferize+plan", "to-llvm", "codegen+link+load"];

/// The scaling series' shapes and sizes (ONNX nodes), as `scaling.py` writes them.
const SCALING_SHAPES: &[&str] = &["chain", "fanout", "ladder", "matmuls"];
const SCALING_SIZES: &[usize] = &[1000, 2000, 5000, 10000];

/// One `strata run`: its stdout, wall seconds.
fn run(bin: &Path, zoo: &Path, model: &str, cache: &Path, extra: &[&str]) -> Result<(String, f64), String> {
    let start = Instant::now();
    let output = Command::new(bin)
        .arg("run")
        .arg(zoo.join(format!("{model}.onnx")))
        .args(zoo_frozen(zoo, model))
        .args(input_args(&zoo.join(format!("{model}.inputs"))).map_err(|e| format!("{model}: {e}"))?)
        .args(extra)
        .env("STRATA_CACHE_DIR", cache)
        .output()
        .map_err(|e| e.to_string())?;
    let wall = start.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(format!("{model}: strata run failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok((String::from_utf8_lossy(&output.stdout).into_owned(), wall))
}

/// One table cell per stage of [`STAGES`] from a `compile:` line, its milliseconds times
/// `scale`. Code generation is `codegen+link+load` (kernels in parallel, a shared object) or
/// `jit` (a module too small to split: MLIR's ORC JIT in memory, marked `j`).
fn stage_cells(text: &str, scale: f64) -> Vec<String> {
    STAGES
        .iter()
        .map(|s| match stage_ms(text, s) {
            Some(ms) => format!("{:.0}", ms * scale),
            None if *s == "codegen+link+load" => {
                stage_ms(text, "jit").map_or("-".into(), |ms| format!("{:.0} j", ms * scale))
            }
            None => "-".into(),
        })
        .collect()
}

/// The peak RSS `strata run` printed, in MB, as a table cell.
fn peak_rss(text: &str) -> String {
    number_after(text, "memory: peak RSS ").map_or("-".into(), |mb| format!("{mb:.0}"))
}

/// Milliseconds of `stage` on the `compile:` line (`stage 12.3 ms`).
fn stage_ms(text: &str, stage: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("compile: "))?;
    line.trim_start_matches("compile: ")
        .split(", ")
        .find_map(|part| part.strip_suffix(" ms")?.strip_prefix(stage)?.strip_prefix(' ')?.parse().ok())
}

pub fn run_all(filter: Option<&str>) -> Result<(), String> {
    cargo(&["build", "--quiet", "--release", "-p", "strata-driver", "--bin", "strata"], &[])?;
    let zoo = ensure_zoo()?;
    let bin = root().join("target/release/strata");
    let cache = root().join("target/bench-compile-cache");
    println!(
        "| model | ONNX MB | {} | no-cache total s | peak RSS MB | cold .so total s | warm total s | warm lookup ms | warm ready s | IREE s (peers.md) |",
        STAGES.iter().map(|s| format!("{s} ms")).collect::<Vec<_>>().join(" | ")
    );
    println!("|{}", " --- |".repeat(STAGES.len() + 9));
    for model in bench_models().filter(|m| filter.is_none_or(|f| m.contains(f))) {
        eprintln!("xtask: bench compile {model}");
        let size = std::fs::metadata(zoo.join(format!("{model}.onnx"))).map_or(0, |m| m.len()) as f64 / 1e6;
        let measured = (|| -> Result<String, String> {
            let (jit, jit_wall) = run(&bin, &zoo, model, &cache, &["--no-cache"])?;
            let _ = std::fs::remove_dir_all(&cache);
            let (_, cold_wall) = run(&bin, &zoo, model, &cache, &[])?;
            let (warm, warm_wall) = run(&bin, &zoo, model, &cache, &[])?;
            let stages = stage_cells(&jit, 1.0);
            let rss = peak_rss(&jit);
            let lookup = stage_ms(&warm, "cache").map_or("-".into(), |ms| format!("{ms:.1}"));
            let ready = number_after(&warm, "ready: ").map_or("-".into(), |ms| format!("{:.2}", ms / 1e3));
            let iree = IREE.iter().find(|(m, _)| *m == model).map_or("-", |(_, s)| s);
            Ok(format!(
                "| {model} | {size:.1} | {} | {jit_wall:.2} | {rss} | {cold_wall:.2} | {warm_wall:.2} | {lookup} | {ready} | {iree} |",
                stages.join(" | ")
            ))
        })();
        match measured {
            Ok(row) => println!("{row}"),
            Err(error) => println!("| {model} | failed: {} |", error.lines().next().unwrap_or_default()),
        }
    }
    println!(
        "\nNo cache: `strata run --no-cache` (stages from its `compile:` line, codegen on every core; total = \
         the whole process, one inference included). Cold .so: an empty cache, the artifact built, stored and loaded. Warm: the \
         same command again (`cache` lookup: key, digest check, dlopen; ready: from `main` to the model loaded, \
         before its first inference: #19's \"runnable\"). Release build, default options."
    );
    scaling(&bin, filter)
}

/// The scaling series: `strata run --no-cache` on each graph, every stage in ms per 1000 ONNX
/// nodes, and the whole process in seconds and seconds per 1000 nodes.
fn scaling(bin: &Path, filter: Option<&str>) -> Result<(), String> {
    let dir = ensure_generated("xtask/scripts/scaling.py", "target/scaling", "the scaling series")?;
    let cache = root().join("target/bench-compile-cache");
    let codegen = "codegen ms/1k (j: JIT)";
    println!(
        "\n| graph | nodes | {} ms/1k | {codegen} | total s | s/1k | s per added 1k | peak RSS MB |",
        STAGES[..STAGES.len() - 1].join(" ms/1k | ")
    );
    println!("|{}", " --- |".repeat(STAGES.len() + 6));
    for shape in SCALING_SHAPES {
        // The previous size's node count and total: the cost of the nodes added since (what
        // stays flat when every stage is linear, the process's fixed costs left out).
        let mut previous: Option<(usize, f64)> = None;
        for &nodes in SCALING_SIZES {
            let model = format!("{shape}{nodes}");
            if filter.is_some_and(|f| !model.contains(f)) {
                continue;
            }
            eprintln!("xtask: bench compile {model}");
            match run(bin, &dir, &model, &cache, &["--no-cache"]) {
                Ok((text, wall)) => {
                    let stages = stage_cells(&text, 1000.0 / nodes as f64);
                    let rss = peak_rss(&text);
                    let added =
                        previous.filter(|&(before, _)| nodes > before).map_or("-".to_string(), |(before, t)| {
                            format!("{:.2}", (wall - t) * 1000.0 / (nodes - before) as f64)
                        });
                    previous = Some((nodes, wall));
                    println!(
                        "| {model} | {nodes} | {} | {wall:.2} | {:.2} | {added} | {rss} |",
                        stages.join(" | "),
                        wall * 1000.0 / nodes as f64
                    );
                }
                Err(error) => {
                    previous = None;
                    println!("| {model} | {nodes} | failed: {} |", error.lines().next().unwrap_or_default());
                }
            }
        }
    }
    println!(
        "\nScaling: `strata run --no-cache` (release, default options, the e-graph on); ms per 1000 ONNX nodes per \
         stage, total = the whole process; s per added 1k = the total's growth from the size above, per 1000 \
         nodes (the process's fixed costs left out). Flat columns down a shape mean the stage is linear in the graph."
    );
    Ok(())
}
