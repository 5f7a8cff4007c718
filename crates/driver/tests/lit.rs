//! The lit-style test harness: one named test per file under `lit-tests/`.
//!
//! A test file carries its own commands:
//! - `// RUN: <shell command>` — run with `bash -o pipefail`; a trailing `\` continues the
//!   command on the next RUN line. Substitutions: `%s` (this file), `%S` (its directory),
//!   `%t` (a scratch path for this file). `strata-opt`, `FileCheck` and `not` resolve to this
//!   build's binary and LLVM 22's tools.
//! - `// SNAPSHOT: <shell command>` — run the command and compare its whole standard output
//!   with the insta snapshot `snapshots/<file>.snap` beside the file. Bless with
//!   `cargo xtask lit --bless` (or `cargo insta review`).
//!
//! A file must have at least one command. Run one file by name:
//! `cargo xtask lit dialects/sg/ops` (or `cargo test -p strata-driver --test lit -- NAME`).
//! The harness also holds the tidy check that every registered Strata pass has a lit test.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

fn llvm_bin() -> PathBuf {
    let prefix = option_env!("LLVM_SYS_221_PREFIX").unwrap_or("/usr/lib/llvm-22");
    Path::new(prefix).join("bin")
}

fn main() {
    let args = Arguments::from_args();
    let root = repo_root();
    let lit_dir = root.join("lit-tests");
    let mut files = Vec::new();
    collect(&lit_dir, &mut files);
    files.sort();
    let mut trials: Vec<Trial> = files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&lit_dir).expect("under lit-tests").to_string_lossy().into_owned();
            Trial::test(name, move || run_file(&path))
        })
        .collect();
    trials.push(Trial::test("tidy::every-pass-has-a-lit-test", move || every_pass_has_a_lit_test(&lit_dir)));
    libtest_mimic::run(&args, trials).exit();
}

/// Every `.mlir` file under `dir`, skipping `snapshots/` and `inputs/` folders.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let walk = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && matches!(e.file_name().to_str(), Some("snapshots" | "inputs"))));
    out.extend(walk.flatten().map(|e| e.into_path()).filter(|p| p.extension().is_some_and(|e| e == "mlir")));
}

enum Command_ {
    Run(String),
    Snapshot(String),
}

fn parse_commands(text: &str) -> Vec<Command_> {
    let mut commands = Vec::new();
    let mut pending: Option<(bool, String)> = None;
    for line in text.lines() {
        let line = line.trim_start();
        let (is_snapshot, body) = if let Some(body) = line.strip_prefix("// RUN:") {
            (false, body)
        } else if let Some(body) = line.strip_prefix("// SNAPSHOT:") {
            (true, body)
        } else {
            continue;
        };
        let body = body.trim();
        let (continues, body) = match body.strip_suffix('\\') {
            Some(rest) => (true, rest.trim_end()),
            None => (false, body),
        };
        let (snapshot, mut command) = pending.take().unwrap_or((is_snapshot, String::new()));
        if !command.is_empty() {
            command.push(' ');
        }
        command.push_str(body);
        if continues {
            pending = Some((snapshot, command));
        } else {
            commands.push(if snapshot { Command_::Snapshot(command) } else { Command_::Run(command) });
        }
    }
    if let Some((snapshot, command)) = pending {
        commands.push(if snapshot { Command_::Snapshot(command) } else { Command_::Run(command) });
    }
    commands
}

fn run_file(path: &Path) -> Result<(), Failed> {
    let filecheck = llvm_bin().join("FileCheck");
    if !filecheck.exists() {
        return Err(format!(
            "FileCheck not found at {}: run `cargo xtask setup` (it installs llvm-22-tools)",
            filecheck.display()
        )
        .into());
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let commands = parse_commands(&text);
    if commands.is_empty() {
        return Err(format!("{}: no `// RUN:` or `// SNAPSHOT:` line", path.display()).into());
    }
    let scratch = repo_root().join("target/lit-scratch");
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let stem = path.file_stem().expect("file name").to_string_lossy().into_owned();
    let dir = path.parent().expect("in a directory");
    let subst = |command: &str| {
        command.replace("%s", &path.display().to_string()).replace("%S", &dir.display().to_string()).replace(
            "%t",
            &scratch.join(format!("{}.tmp", path.display().to_string().replace('/', "_"))).display().to_string(),
        )
    };
    for command in commands {
        match command {
            Command_::Run(command) => {
                let output = shell(&subst(&command))?;
                if !output.status.success() {
                    return Err(failure("RUN", &command, &output).into());
                }
            }
            Command_::Snapshot(command) => {
                let output = shell(&subst(&command))?;
                if !output.status.success() {
                    return Err(failure("SNAPSHOT", &command, &output).into());
                }
                let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
                let mut settings = insta::Settings::clone_current();
                settings.set_snapshot_path(dir.join("snapshots"));
                settings.set_prepend_module_to_snapshot(false);
                settings.set_input_file(path);
                settings.set_description(command.clone());
                settings.bind(|| insta::assert_snapshot!(stem.as_str(), stdout));
            }
        }
    }
    Ok(())
}

fn shell(command: &str) -> Result<std::process::Output, Failed> {
    let strata_opt = Path::new(env!("CARGO_BIN_EXE_strata-opt"));
    let path = format!(
        "{}:{}:{}",
        strata_opt.parent().expect("binary directory").display(),
        llvm_bin().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut bash = Command::new("bash");
    bash.args(["-o", "pipefail", "-c", command]).env("PATH", path).current_dir(repo_root());
    // NVIDIA's libdevice for kernels that call math functions, as `cargo xtask` fetches it
    // (unless the environment names one already).
    let libdevice = repo_root().join("target/cuda-libdevice/libdevice.10.bc");
    if std::env::var_os("STRATA_LIBDEVICE").is_none() && libdevice.is_file() {
        bash.env("STRATA_LIBDEVICE", libdevice);
    }
    bash.output().map_err(|e| format!("cannot run bash: {e}").into())
}

fn failure(kind: &str, command: &str, output: &std::process::Output) -> String {
    format!(
        "{kind} line failed ({}):\n  {command}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn every_pass_has_a_lit_test(lit_dir: &Path) -> Result<(), Failed> {
    let strata = strata_driver::context().map_err(|e| e.to_string())?;
    let missing: Vec<String> = strata
        .passes()
        .iter()
        .map(|entry| entry.info.name)
        .filter(|name| !lit_dir.join("passes").join(format!("{name}.mlir")).exists())
        .map(|name| format!("lit-tests/passes/{name}.mlir"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("registered passes without a lit test: {}", missing.join(", ")).into())
    }
}
