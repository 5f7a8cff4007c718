//! `cargo xtask bench run`: every zoo model and the focused kernels of
//! `scripts/bench_kernels.py`, compiled by Strata and run against ONNX Runtime (pinned; one
//! intra-op thread, and its default of one per core) in the same run, on the same inputs, on
//! the same machine. Strata's outputs are checked against ONNX Runtime's before its time
//! counts; `--profile` adds each model's hottest kernels (`strata run --profile`, one thread)
//! beside ONNX Runtime's time for the same ONNX nodes ([`crate::bench_profile`]).

use crate::{
    ensure_generated, ensure_zoo, input_args, number_after, onnx_python, ort_python, root, zoo_frozen, ZOO_MODELS,
};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The focused kernels (`scripts/bench_kernels.py`), one operator each.
const KERNELS: &[&str] = &[
    "dw3x3_s1",
    "dw3x3_s2",
    "dw3x3_s21",
    "grouped_conv",
    "grouped_conv_s2",
    "conv_transpose_k2s2",
    "attention_matmul",
    "softmax",
    "masked_softmax",
    "layernorm",
    "hardswish_chain",
    "dilated_conv",
    "qdq_matmul",
    "deep_conv_chain",
    "wide_projection",
    "detector_topk",
];

/// How far Strata's outputs may be from ONNX Runtime's for its time to count (both run f32;
/// the difference is summation order and approximations of `exp`/`erf`).
const TOLERANCE: &str = "1e-3";

/// The least milliseconds of timed runs per model, runtime and round (see [`measure`]).
const ROUND_MS: f64 = 200.0;

/// The most timed runs per model, runtime and round.
const MAX_RUNS: usize = 5000;

/// One measured model or kernel. Times are medians over the rounds of each round's median;
/// ratios are medians of the rounds' ratios (both runtimes of one round ran in the same
/// minute, so a ratio cancels this machine's phase).
struct Row {
    name: String,
    strata_ms: f64,
    /// Strata with its default threads (every core).
    strata_all_ms: f64,
    /// Strata 1T over ONNX Runtime 1T, Strata nT over ONNX Runtime nT, Strata 1T over nT.
    one_ratio: f64,
    all_ratio: f64,
    threads_ratio: f64,
    unscheduled_ms: f64,
    unfused_ms: f64,
    ort_one_ms: f64,
    ort_all_ms: f64,
    /// [`effective_cores`] just before each of Strata's nT runs, the median over the rounds.
    cores: f64,
    arena_bytes: f64,
    /// Whether Strata's outputs matched ONNX Runtime's.
    matches: bool,
    /// When they did not: whether they match the zoo's checked-in ONNX Runtime references
    /// (`xtask/zoo-reference`), which this machine's ONNX Runtime then differs from (its AVX2
    /// int8 kernels saturate where the references' AVX-512 VNNI ones do not).
    matches_reference: bool,
    /// Strata's kernels against ONNX Runtime's nodes (with `--profile`).
    profile: Option<String>,
}

/// What to run: a model file, its inputs, its frozen inputs.
struct Case {
    name: String,
    model: PathBuf,
    inputs: PathBuf,
    frozen: Vec<String>,
}

/// Runs `scripts/bench_ort.py` on `case` with `threads` intra-op threads (0: its default) and
/// `last` as its last argument (a directory for the outputs, or `--nodes`). What ONNX Runtime
/// can run of the model: the `.ort.onnx` twin zoo.py writes beside a model its CPU provider has
/// no kernels for (bf16: the ops on f32, rounded through bf16).
fn bench_ort(case: &Case, repeats: usize, threads: usize, last: Option<&OsStr>) -> Result<Output, String> {
    let twin = case.model.with_extension("ort.onnx");
    let mut command = Command::new("python3");
    command
        .arg(root().join("xtask/scripts/bench_ort.py"))
        .arg(if twin.exists() { &twin } else { &case.model })
        .arg(&case.inputs)
        .arg(repeats.to_string())
        .arg(threads.to_string())
        .args(last)
        .env("PYTHONPATH", std::env::join_paths([ort_python()?, onnx_python()?]).map_err(|e| e.to_string())?);
    command.output().map_err(|e| e.to_string())
}

/// Times ONNX Runtime on `case` with `threads` intra-op threads (0: its default), writing the
/// outputs to `outputs` when given.
fn ort(case: &Case, repeats: usize, threads: usize, outputs: Option<&Path>) -> Result<f64, String> {
    let output = bench_ort(case, repeats, threads, outputs.map(Path::as_os_str))?;
    number_after(&String::from_utf8_lossy(&output.stdout), "median_ms ")
        .ok_or_else(|| format!("{}: ONNX Runtime failed: {}", case.name, String::from_utf8_lossy(&output.stderr)))
}

/// Strata's kernels on `case` (one thread, `strata run --profile`'s every kernel) beside ONNX
/// Runtime's profiler's times for the same nodes (one intra-op thread).
fn kernel_table(case: &Case, repeats: usize) -> Result<String, String> {
    let dir = root().join("target/bench-profile").join(&case.name);
    let _ = std::fs::remove_dir_all(&dir);
    let extra = ["--profile", "--threads", "1", "--output-dir"].map(str::to_owned);
    strata(case, repeats, &[&extra[..], &[dir.display().to_string()]].concat())?;
    let csv = std::fs::read_to_string(dir.join("profile.csv")).map_err(|e| format!("{}: {e}", case.name))?;
    let kernels = crate::bench_profile::strata_kernels(&csv)?;
    // A twin ONNX Runtime runs in the model's place (bf16 on f32) has other nodes.
    if case.model.with_extension("ort.onnx").exists() {
        let table = crate::bench_profile::table(&kernels, Default::default(), 12);
        return Ok(format!(
            "(ONNX Runtime runs a twin of this model with other nodes: Strata's kernels only)\n{table}"
        ));
    }
    let output = bench_ort(case, repeats, 1, Some(OsStr::new("--nodes")))?;
    if !output.status.success() {
        return Err(format!(
            "{}: ONNX Runtime's profile failed: {}",
            case.name,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let ort = crate::bench_profile::ort_nodes(&String::from_utf8_lossy(&output.stdout));
    Ok(crate::bench_profile::table(&kernels, ort, 12))
}

/// `strata run` on `case` with `extra` flags: its stdout and whether it succeeded.
fn strata(case: &Case, repeats: usize, extra: &[String]) -> Result<(String, bool), String> {
    let output = Command::new(root().join("target/release/strata"))
        .arg("run")
        .arg(&case.model)
        .args(["--repeat", &repeats.to_string(), "--no-verify-each"])
        .args(&case.frozen)
        .args(input_args(&case.inputs).map_err(|e| format!("{}: {e}", case.name))?)
        .args(extra)
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if number_after(&text, "run: ").is_none() {
        return Err(format!("{}: strata run failed: {}", case.name, String::from_utf8_lossy(&output.stderr)));
    }
    Ok((text, output.status.success()))
}

/// The median of `values` (not empty; NaN sorts last).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

fn measure(case: &Case, repeats: usize, rounds: usize, profile: bool) -> Result<Row, String> {
    let references = root().join("target/bench-outputs").join(&case.name);
    let _ = std::fs::remove_dir_all(&references);
    // A first run writes the references and sizes the timed runs: at least `repeats` and
    // [`ROUND_MS`] of runs, so that a model of 0.1 ms is timed after as many runs as one of
    // 10 ms (20 runs of the text detector gave medians 0.133-0.171 ms, 2000 runs 0.134-0.135).
    let calibration = ort(case, repeats, 1, Some(&references))?;
    let repeats = repeats.max(((ROUND_MS / calibration).ceil() as usize).min(MAX_RUNS));
    let ort_one_ms = ort(case, repeats, 1, None)?;
    let ort_all_ms = ort(case, repeats, 0, None)?;
    // A QDQ model's requantized activations differ by whole steps (`zoo_tolerance`).
    let tolerance = crate::zoo_tolerance(case.model.parent().unwrap_or(Path::new(".")), &case.name)
        .unwrap_or_else(|| TOLERANCE.to_owned());
    let mut expect = vec!["--rtol".to_owned(), tolerance.clone(), "--atol".to_owned(), tolerance];
    let mut outputs: Vec<_> =
        std::fs::read_dir(&references).map_err(|e| e.to_string())?.flatten().map(|e| e.path()).collect();
    outputs.sort();
    for path in outputs {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        expect.extend(["--expect".to_owned(), format!("{name}={}", path.display())]);
    }
    let one = ["--threads".to_owned(), "1".to_owned()];
    let (text, matches) = strata(case, repeats, &[&expect[..], &one[..]].concat())?;
    let mut cores = vec![effective_cores()];
    let (all, all_match) = strata(case, repeats, &expect)?;
    let matches_reference = !(matches && all_match) && matches_checked_in(case, repeats)?;
    let ms = |text: &str| number_after(text, "run: ").unwrap_or(f64::NAN);
    // Round 1 is the checked runs above; the others alternate the runtimes again (Strata's
    // compile comes from its cache).
    let (mut ort_one, mut ort_all) = (vec![ort_one_ms], vec![ort_all_ms]);
    let (mut strata_one, mut strata_all) = (vec![ms(&text)], vec![ms(&all)]);
    for _ in 1..rounds {
        ort_one.push(ort(case, repeats, 1, None)?);
        strata_one.push(ms(&strata(case, repeats, &one)?.0));
        ort_all.push(ort(case, repeats, 0, None)?);
        cores.push(effective_cores());
        strata_all.push(ms(&strata(case, repeats, &[])?.0));
    }
    let ratios = |a: &[f64], b: &[f64]| median(&a.iter().zip(b).map(|(x, y)| x / y).collect::<Vec<_>>());
    let unscheduled = strata(case, repeats, &[&["--no-schedule".to_owned()][..], &one[..]].concat())?.0;
    let unfused = strata(case, repeats, &[&["--no-egraph".to_owned()][..], &one[..]].concat())?.0;
    let profile = if profile { Some(kernel_table(case, repeats)?) } else { None };
    Ok(Row {
        name: case.name.clone(),
        strata_ms: median(&strata_one),
        strata_all_ms: median(&strata_all),
        one_ratio: ratios(&strata_one, &ort_one),
        all_ratio: ratios(&strata_all, &ort_all),
        threads_ratio: ratios(&strata_one, &strata_all),
        unscheduled_ms: ms(&unscheduled),
        unfused_ms: ms(&unfused),
        ort_one_ms: median(&ort_one),
        ort_all_ms: median(&ort_all),
        cores: median(&cores),
        arena_bytes: number_after(&text, "arena: ").unwrap_or(0.0),
        matches: matches && all_match,
        matches_reference,
        profile,
    })
}

/// Whether Strata's outputs on `case` (one thread) match the zoo's checked-in references for
/// it (`xtask/zoo-reference/<case>.<output>.npy`, within the zoo's 1e-4); false without any.
fn matches_checked_in(case: &Case, repeats: usize) -> Result<bool, String> {
    let mut expect = crate::reference_expects(&case.name).unwrap_or_default();
    if expect.is_empty() {
        return Ok(false);
    }
    expect.extend(["--threads".to_owned(), "1".to_owned()]);
    expect.extend(crate::zoo_tolerance_args(case.model.parent().unwrap_or(Path::new(".")), &case.name));
    Ok(strata(case, repeats.min(2), &expect)?.1)
}

pub fn run(repeats: usize, rounds: usize, filter: Option<&str>, profile: bool, sweep: bool) -> Result<(), String> {
    // The release driver, as `bench compile` uses: the compiled code is the same from a debug
    // one, but a debug driver spends seconds compiling each model and is built for nothing
    // else here.
    crate::cargo(&["build", "--quiet", "--release", "-p", "strata-driver", "--bin", "strata"], &[])?;
    let case = |dir: &Path, name: &str, frozen: Vec<String>| Case {
        name: name.to_owned(),
        model: dir.join(format!("{name}.onnx")),
        inputs: dir.join(format!("{name}.inputs")),
        frozen,
    };
    let cases: Vec<Case> = if sweep {
        let dir = ensure_generated("xtask/scripts/bench_sweep.py", "target/bench-sweep", "the class sweep")?;
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".onnx").map(str::to_owned))
            .collect();
        names.sort();
        names.iter().map(|n| case(&dir, n, Vec::new())).collect()
    } else {
        let (zoo, kernels) = (
            ensure_zoo()?,
            ensure_generated("xtask/scripts/bench_kernels.py", "target/bench-kernels", "the benchmark kernels")?,
        );
        ZOO_MODELS
            .iter()
            .map(|m| case(&zoo, m, zoo_frozen(&zoo, m)))
            .chain(KERNELS.iter().map(|k| case(&kernels, k, Vec::new())))
            .collect()
    };
    let cases = cases.into_iter().filter(|c| filter.is_none_or(|f| c.name.contains(f)));
    print_header();
    let mut rows = Vec::new();
    for case in cases {
        eprintln!("xtask: bench {}", case.name);
        match measure(&case, repeats, rounds.max(1), profile) {
            Ok(row) => {
                print_row(&row);
                rows.push(row);
            }
            // One case failing does not lose the others' measurements.
            Err(error) => println!("{:<20} failed: {}", case.name, error.lines().next().unwrap_or_default()),
        }
    }
    print_footer(&rows, repeats, rounds.max(1));
    Ok(())
}

/// How many of the machine's cores a CPU-bound test gets at once now: the time of one thread's
/// chain of multiply-adds, alone and on every core at once, scaled to the core count. On this
/// project's 2-core VM two threads are bimodal by the minute: for minutes at a time a second
/// thread gains nothing (MobileNetV2 6.0-6.8 ms on two threads, 3.5-4.2 otherwise, 6.3-6.6 on
/// one), which this shows as 1.0 instead of 2.0, so that a row's two-thread columns can be read.
fn effective_cores() -> f64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        return 1.0;
    }
    // About 10 ms of dependent multiply-adds a thread.
    let chain = || {
        let mut x = 1u64;
        for i in 0..10_000_000u64 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
        }
        std::hint::black_box(x)
    };
    let timed = |f: &dyn Fn()| {
        let start = std::time::Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let alone = timed(&|| {
        chain();
    });
    let together = timed(&|| {
        std::thread::scope(|scope| {
            for _ in 0..cores {
                scope.spawn(chain);
            }
        })
    });
    (cores as f64 * alone / together).clamp(0.0, cores as f64)
}

fn print_header() {
    println!(
        "{:<20} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>6} {:>8} {:>11} {:>10} {:>9} {:>6}",
        "model",
        "1T ms",
        "ORT 1T ms",
        "nT ms",
        "ORT nT ms",
        "1T/ORT",
        "nT/ORT",
        "1T/nT",
        "cores",
        "no sched",
        "no e-graph",
        "unsched ms",
        "arena MB",
        "check"
    );
}

fn print_row(row: &Row) {
    println!(
        "{:<20} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>7.2}x {:>7.2}x {:>7.2}x {:>6.2} {:>7.2}x {:>10.2}x {:>10.3} {:>9.2} {:>6}",
        row.name,
        row.strata_ms,
        row.ort_one_ms,
        row.strata_all_ms,
        row.ort_all_ms,
        row.one_ratio,
        row.all_ratio,
        row.threads_ratio,
        row.cores,
        row.unscheduled_ms / row.ort_one_ms,
        row.unfused_ms / row.ort_one_ms,
        row.unscheduled_ms,
        row.arena_bytes / 1e6,
        match (row.matches, row.matches_reference) {
            (true, _) => "ok",
            (false, true) => "ok/ref",
            (false, false) => "WRONG",
        }
    );
}

fn print_footer(rows: &[Row], repeats: usize, rounds: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "(medians of at least {repeats} runs and {ROUND_MS} ms of runs each, in {rounds} rounds alternating the runtimes: times are the median \
         over the rounds, each ratio the median of the rounds' ratios; same inputs, same machine; 1T: Strata \
         with --threads 1 and ONNX Runtime with one intra-op thread; nT: both with their default threads, every \
         core ({cores} here); 1T/nT: Strata's speed-up from threads; cores: how many cores a CPU-bound test got \
         at once just before each of Strata's nT runs (median over the rounds; below {cores}, the machine's \
         virtual CPUs shared a core then, and nT and 1T/nT understate what threads gain); no sched / no e-graph: Strata (1T) without \
         its loop schedule / e-graph optimiser, over ORT 1T; check: Strata's outputs within \
         {TOLERANCE} of ONNX Runtime's, ok/ref: not of this machine's ONNX Runtime but of the zoo's checked-in \
         references)"
    );
    for row in rows.iter().filter(|r| r.profile.is_some()) {
        println!("\n{}\n{}", row.name, row.profile.as_deref().unwrap_or_default());
    }
}
