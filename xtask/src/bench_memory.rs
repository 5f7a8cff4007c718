//! `cargo xtask bench memory`: every zoo model's arena (ResNet-50 included) (release `strata plan model.onnx`,
//! default options, one thread) against what its activations need run node by node in the
//! file's order, (a) plain and (b) with views and in-place writes (Strata computes both from
//! the ONNX graph, `strata_plan::in_order`), and against ONNX Runtime's and IREE's arenas on
//! this machine (`../shared/notes/peers.md`). Then what each optimisation saves on its own:
//! the arena with it turned off (`--disable`), the e-graph off, and TFLite's greedy-by-size
//! offsets planner instead of the exact solver.

use crate::{bench_models, cargo, ensure_zoo, root, zoo_frozen};
use std::path::Path;
use std::process::Command;

/// Activation MiB of ONNX Runtime's memory pattern and IREE's transient memory (default
/// flags) on this machine, from peers.md.
const PEERS: &[(&str, f64, f64)] =
    &[("mobilenetv2", 6.51, 8.47), ("resnet18", 3.83, 5.37), ("resnet50", 6.12, 8.54), ("bert_tiny", 1.19, 0.56)];

/// The variants measured beside the default compile: a label and the extra arguments.
const VARIANTS: &[(&str, &[&str])] = &[
    ("views", &["--disable", "views"]),
    ("fusion", &["--disable", "fusion"]),
    ("epilogues", &["--disable", "epilogues"]),
    ("in-place", &["--disable", "in-place"]),
    ("pads in place", &["--disable", "pads-in-place"]),
    ("conv borders", &["--disable", "conv-borders"]),
    ("bands", &["--disable", "bands"]),
    ("concat convs", &["--disable", "concat-convs"]),
    ("residuals", &["--disable", "residuals"]),
    ("sink to use", &["--disable", "sink-to-use"]),
    ("schedule order", &["--disable", "order"]),
    ("e-graph", &["--no-egraph"]),
    ("exact planner", &["--strategy", "offsets-greedy-by-size"]),
];

/// What one `strata plan` reported.
struct Planned {
    arena: u64,
    /// Buffers in the arena.
    buffers: usize,
    peaks: serde_json::Value,
}

fn plan(bin: &Path, zoo: &Path, model: &str, extra: &[&str]) -> Result<Planned, String> {
    let json = root().join(format!("target/bench-memory/{model}.json"));
    let output = Command::new(bin)
        .arg("plan")
        .arg(zoo.join(format!("{model}.onnx")))
        .args(zoo_frozen(zoo, model))
        .args(["--threads", "1", "--no-verify-each", "--json"])
        .arg(&json)
        .args(extra)
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "{model} {}: strata plan failed: {}",
            extra.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = std::fs::read_to_string(&json).map_err(|e| format!("{}: {e}", json.display()))?;
    let report: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
    let buffers = report["buffers"].as_array().map_or(0, |b| {
        b.iter().filter(|b| b["class"].as_str().is_some_and(|c| c == "activation" || c == "workspace")).count()
    });
    Ok(Planned { arena: report["arena_bytes"].as_u64().unwrap_or(0), buffers, peaks: report["in_order"].clone() })
}

fn mib(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / f64::from(1 << 20))
}

pub fn run_all(filter: Option<&str>) -> Result<(), String> {
    cargo(&["build", "--quiet", "--release", "-p", "strata-driver", "--bin", "strata"], &[])?;
    let zoo = ensure_zoo()?;
    std::fs::create_dir_all(root().join("target/bench-memory")).map_err(|e| e.to_string())?;
    let bin = root().join("target/release/strata");
    let models: Vec<&str> = bench_models().filter(|m| filter.is_none_or(|f| m.contains(f))).collect();
    let mut rows = Vec::new();
    for &model in &models {
        eprintln!("xtask: bench memory: {model}");
        let base = plan(&bin, &zoo, model, &[])?;
        let mut variants = Vec::new();
        for (label, extra) in VARIANTS {
            variants.push((*label, plan(&bin, &zoo, model, extra)?));
        }
        rows.push((model, base, variants));
    }
    println!("Arena against running the ONNX nodes one by one in file order (MiB; activations only: no weights, inputs or outputs):\n");
    println!(
        "| model | tensors | naive | (a) in order | (b) + views, in-place | Strata arena | buffers | Strata / (b) | Strata - (b), bytes | ONNX Runtime | IREE | Strata / best peer |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (model, base, _) in &rows {
        let peak = |key: &str| base.peaks[key].as_u64().unwrap_or(0);
        let b = peak("views_in_place");
        let ratio = |over: f64| if over > 0.0 { format!("{:.2}x", base.arena as f64 / over) } else { "-".into() };
        let (ort, iree, best) = match PEERS.iter().find(|(m, _, _)| m == model) {
            Some(&(_, ort, iree)) => {
                let best = ort.min(iree) * f64::from(1 << 20);
                (format!("{ort:.2}"), format!("{iree:.2}"), ratio(best))
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "| {model} | {} | {} | {} | {} | {} | {} | {} | {:+} | {ort} | {iree} | {best} |",
            peak("tensors"),
            mib(peak("naive")),
            mib(peak("plain")),
            mib(b),
            mib(base.arena),
            base.buffers,
            ratio(b as f64),
            base.arena as i64 - b as i64,
        );
    }
    println!("\nWhat each idea saves on its own: the arena with it left out, against the default (KiB, and % of the default arena):\n");
    let labels: Vec<&str> = VARIANTS.iter().map(|(label, _)| *label).collect();
    println!("| model | Strata KiB | {} |", labels.join(" | "));
    println!("|---|---|{}", "---|".repeat(labels.len()));
    for (model, base, variants) in &rows {
        let cells: Vec<String> = variants
            .iter()
            .map(|(_, v)| {
                let saved = v.arena as i64 - base.arena as i64;
                let percent = if base.arena > 0 { 100.0 * saved as f64 / base.arena as f64 } else { 0.0 };
                format!("{:+.0} ({percent:+.0}%)", saved as f64 / 1024.0)
            })
            .collect();
        println!("| {model} | {:.0} | {} |", base.arena as f64 / 1024.0, cells.join(" | "));
    }
    println!("\nArena buffers with everything on, and with the e-graph off (views, fusion and in-place writes save allocations):\n");
    println!("| model | buffers | buffers without the e-graph |");
    println!("|---|---|---|");
    for (model, base, variants) in &rows {
        let off = variants.iter().find(|(label, _)| *label == "e-graph").map_or(0, |(_, v)| v.buffers);
        println!("| {model} | {} | {off} |", base.buffers);
    }
    println!(
        "\nA positive saving is what the idea saves; a negative one means the arena is smaller without it (the idea lengthens some lifetime more than it saves)."
    );
    Ok(())
}
