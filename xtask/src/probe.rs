//! `cargo xtask probe`: the suite of hostile inputs (issue #22's families), run by `cargo xtask
//! test`. `xtask/scripts/probe.py` generates the cases afresh into `target/probe` (ONNX models,
//! `.npy` inputs, MLIR, planner CSVs, artifact edits, parallel runs) with `cases.json`; each case
//! is a list of steps whose last must fail with a clean error naming the problem, or succeed
//! with the right answer. A case fails on a panic, a signal, a time-out, an internal error, a
//! success where an error was due, or an error message without the expected words. Prints the
//! count per family; any failure fails the task.

use crate::root;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

/// Seconds one step may take (the slowest, parallel compiles, take a few).
const STEP_TIMEOUT_S: u32 = 180;

/// Exit statuses of a clean error: invalid input, unsupported, verification, I/O (and clap's 2).
const CLEAN_ERRORS: &[i32] = &[1, 2, 3, 4, 74];

struct Case {
    family: String,
    name: String,
    steps: Vec<Vec<String>>,
    expect_error: bool,
    contains: Vec<String>,
}

fn parse_cases(text: &str) -> Result<Vec<Case>, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("cases.json: {e}"))?;
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()).unwrap_or_default()
    };
    let cases = value.as_array().ok_or("cases.json is not a list")?;
    Ok(cases
        .iter()
        .map(|c| Case {
            family: c["family"].as_str().unwrap_or("?").to_owned(),
            name: c["name"].as_str().unwrap_or("?").to_owned(),
            steps: c["steps"].as_array().map(|s| s.iter().map(strings).collect()).unwrap_or_default(),
            expect_error: c["expect"] == "error",
            contains: strings(&c["contains"]),
        })
        .collect())
}

/// What one step did.
struct Outcome {
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
}

fn run_step(argv: &[String], env_path: &std::ffi::OsStr) -> Result<Outcome, String> {
    let output = Command::new("timeout")
        .args(["--kill-after=5", &STEP_TIMEOUT_S.to_string()])
        .args(argv)
        .env("PYTHONPATH", env_path)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", argv.join(" ")))?;
    Ok(Outcome {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// Why the case failed, or `None` when it passed.
fn check(case: &Case, env_path: &std::ffi::OsStr, binaries: &BTreeMap<&str, String>, dir: &Path) -> Option<String> {
    let case_dir = dir.join(&case.family).join(&case.name);
    let substitute = |arg: &String| {
        let mut arg = arg.replace("{case}", &case_dir.to_string_lossy());
        for (name, path) in binaries {
            arg = arg.replace(&format!("{{{name}}}"), path);
        }
        arg
    };
    let mut last = None;
    for (i, step) in case.steps.iter().enumerate() {
        let argv: Vec<String> = step.iter().map(substitute).collect();
        let outcome = match run_step(&argv, env_path) {
            Ok(outcome) => outcome,
            Err(e) => return Some(e),
        };
        let shown = argv.join(" ");
        if outcome.stderr.contains("panicked at") {
            return Some(format!("step {i} panicked: {shown}\n{}", tail(&outcome.stderr)));
        }
        if let Some(signal) = outcome.status.signal() {
            return Some(format!("step {i} died of signal {signal}: {shown}\n{}", tail(&outcome.stderr)));
        }
        if matches!(outcome.status.code(), Some(124 | 137)) {
            return Some(format!("step {i} timed out after {STEP_TIMEOUT_S} s: {shown}"));
        }
        if i + 1 < case.steps.len() && !outcome.status.success() {
            return Some(format!("setup step {i} failed ({}): {shown}\n{}", outcome.status, tail(&outcome.stderr)));
        }
        last = Some((shown, outcome));
    }
    let (shown, outcome) = last?;
    let code = outcome.status.code().unwrap_or(-1);
    if case.expect_error {
        if outcome.status.success() {
            return Some(format!("succeeded where an error was due: {shown}\n{}", tail(&outcome.stdout)));
        }
        if !CLEAN_ERRORS.contains(&code) {
            return Some(format!("exit status {code} is not a clean error's: {shown}\n{}", tail(&outcome.stderr)));
        }
        let missing: Vec<&String> = case.contains.iter().filter(|n| !outcome.stderr.contains(n.as_str())).collect();
        if !outcome.stderr.contains("error") || !missing.is_empty() {
            return Some(format!("the error does not say {missing:?}: {shown}\n{}", tail(&outcome.stderr)));
        }
    } else {
        if !outcome.status.success() {
            return Some(format!("failed ({code}) on a valid input: {shown}\n{}", tail(&outcome.stderr)));
        }
        let missing: Vec<&String> = case.contains.iter().filter(|n| !outcome.stdout.contains(n.as_str())).collect();
        if !missing.is_empty() {
            return Some(format!("the output does not say {missing:?}: {shown}\n{}", tail(&outcome.stdout)));
        }
    }
    None
}

/// The last lines of `text`, indented.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].iter().map(|l| format!("    {l}\n")).collect()
}

pub fn run(filter: Option<&str>) -> Result<(), String> {
    crate::build(&["-p", "strata-driver", "--bin", "strata", "--bin", "strata-opt"])?;
    crate::build(&["-p", "strata-exec"])?;
    let dir = root().join("target/probe");
    // Cases write into their folders (artifacts, outputs): generated afresh every run.
    let _ = std::fs::remove_dir_all(&dir);
    let site = crate::onnx_python()?;
    let status = Command::new("python3")
        .arg(root().join("xtask/scripts/probe.py"))
        .arg(&dir)
        .env("PYTHONPATH", &site)
        .status()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !status.success() {
        return Err(format!("generating the probe suite failed ({status})"));
    }
    let text = std::fs::read_to_string(dir.join("cases.json")).map_err(|e| format!("cases.json: {e}"))?;
    let cases = parse_cases(&text)?;
    let bin = root().join("target/debug");
    let binaries: BTreeMap<&str, String> = ["strata", "strata-exec", "strata-opt"]
        .into_iter()
        .map(|b| (b, bin.join(b).to_string_lossy().into_owned()))
        .collect();
    let mut table: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in &cases {
        let id = format!("{}/{}", case.family, case.name);
        if filter.is_some_and(|f| !id.contains(f)) {
            continue;
        }
        let row = table.entry(&case.family).or_default();
        row.0 += 1;
        match check(case, site.as_os_str(), &binaries, &dir) {
            None => row.1 += 1,
            Some(why) => failures.push(format!("FAILED {id}: {why}")),
        }
    }
    println!("{:<20} {:>6} {:>7}", "family", "cases", "passed");
    let mut total = (0, 0);
    for (family, (cases, passed)) in &table {
        println!("{family:<20} {cases:>6} {passed:>7}");
        total = (total.0 + cases, total.1 + passed);
    }
    println!("{:<20} {:>6} {:>7}", "total", total.0, total.1);
    for failure in &failures {
        println!("{failure}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} of {} probe cases failed", failures.len(), total.0))
    }
}
