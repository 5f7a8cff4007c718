//! `cargo xtask memcheck [FILTER]`: every `strata-opt` command of the lit tests (those whose
//! path contains FILTER) under valgrind's memcheck, reporting invalid reads and writes and
//! uses of uninitialised values.
//!
//! A pass that keeps a handle to an op it (or an earlier step) erased reads freed memory: most
//! of the time the memory still looks like the op and nothing shows, sometimes the compile
//! crashes far from the cause (the depthwise kernels' epilogues, 2026-11-30: a SIGSEGV in 2 of
//! 4 CI runs, in none of 9 reruns). Memcheck reports the first read of the freed op on every
//! run. The lit commands are the passes' own small inputs, so each takes seconds to a minute
//! under valgrind; the whole suite takes hours on two cores: pass a filter.
//!
//! The binary is the debug `strata-opt` with its debug info stripped (valgrind 3.19 cannot read
//! Rust's DWARF 5 and gives up): the reports name functions, not lines. The global allocator
//! (mimalloc) frees memory valgrind did not see allocated, and LLVM's `new[]` meets mimalloc's
//! `free`: valgrind reports those as invalid and mismatched frees, which are not counted.

use crate::{cargo, root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What valgrind reports that counts as a memory error here.
const ERRORS: &[&str] = &["Invalid read", "Invalid write", "uninitialised"];

pub fn run(filter: Option<&str>) -> Result<(), String> {
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Err("valgrind is not installed (apt-get install valgrind, or `cargo xtask setup` as root)".into());
    }
    cargo(&["build", "--quiet", "-p", "strata-driver", "--bin", "strata-opt"], &[])?;
    let dir = root().join("target/memcheck");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let binary = dir.join("strata-opt");
    let status = Command::new("objcopy")
        .arg("--strip-debug")
        .arg(root().join("target/debug/strata-opt"))
        .arg(&binary)
        .status()
        .map_err(|e| format!("cannot run objcopy: {e}"))?;
    if !status.success() {
        return Err(format!("objcopy --strip-debug failed ({status})"));
    }
    let mut files = Vec::new();
    collect_lit_files(&root().join("lit-tests"), &mut files)?;
    files.retain(|f| filter.is_none_or(|needle| f.to_string_lossy().contains(needle)));
    files.sort();
    let commands: Vec<(PathBuf, String)> =
        files.iter().flat_map(|f| opt_commands(f).into_iter().map(move |c| (f.clone(), c))).collect();
    if commands.is_empty() {
        return Err(format!("no strata-opt command in the lit tests matching {filter:?}"));
    }
    eprintln!("xtask: memcheck: {} strata-opt commands of {} lit files", commands.len(), files.len());
    let mut failures = 0usize;
    for (file, command) in &commands {
        let started = std::time::Instant::now();
        let shown = file.strip_prefix(root()).unwrap_or(file).display().to_string();
        let valgrind = format!("valgrind -q --num-callers=24 {}", binary.display());
        // Valgrind reports on standard error: a command's own `2>&1` would send it away.
        let line = command.replacen("strata-opt", &valgrind, 1).replace("2>&1", "");
        let output = Command::new("bash")
            .args(["-c", &format!("{line} > /dev/null")])
            .current_dir(root())
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        let report = String::from_utf8_lossy(&output.stderr);
        let errors = report.lines().filter(|l| ERRORS.iter().any(|e| l.contains(e))).count();
        println!("{errors:>3} errors  {:>5.1} s  {shown}: {command}", started.elapsed().as_secs_f64());
        if errors > 0 {
            failures += 1;
            let log = dir.join(format!("{}.{failures}.txt", file.file_stem().unwrap_or_default().to_string_lossy()));
            let _ = std::fs::write(&log, report.as_bytes());
            println!("         valgrind's report: {}", log.display());
        }
    }
    if failures == 0 {
        println!("memcheck: no memory errors in {} commands", commands.len());
        Ok(())
    } else {
        Err(format!("memcheck: memory errors in {failures} of {} commands", commands.len()))
    }
}

fn collect_lit_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_lit_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
    Ok(())
}

/// The `strata-opt` command at the head of each `// RUN:` pipeline of `file` (continued
/// lines joined), `%s` replaced by the file; commands with other substitutions are skipped.
fn opt_commands(file: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(file) else { return Vec::new() };
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let Some(run) = line.trim_start().strip_prefix("// RUN:") else { continue };
        let run = run.trim();
        if let Some(head) = run.strip_suffix('\\') {
            pending += head;
            pending.push(' ');
            continue;
        }
        let command = std::mem::take(&mut pending) + run;
        let head = command.split('|').next().unwrap_or_default().trim().to_owned();
        if head.starts_with("strata-opt ") {
            let head = head.replace("%s", &file.display().to_string());
            if !head.contains('%') {
                commands.push(head);
            }
        }
    }
    commands
}
