//! `cargo xtask setup`: make sure LLVM/MLIR 22 and the libraries the link needs are present.
//!
//! Idempotent: packages already installed are left alone. As root it installs what is missing
//! with apt-get; otherwise it prints the exact command to run and fails.

use std::path::Path;
use std::process::Command;

/// Debian packages Strata builds and tests with. LLVM/MLIR 22 (libraries, headers, tools
/// such as FileCheck and `not`), libclang for bindgen (mlir-sys), LLVM's OpenMP runtime (the
/// parallel kernels call it), and the compression and XML libraries LLVM's static libraries
/// link against.
pub const PACKAGES: &[&str] = &[
    "llvm-22-dev",
    "libmlir-22-dev",
    "mlir-22-tools",
    "llvm-22-tools",
    "libclang-22-dev",
    "libpolly-22-dev",
    "libomp-22-dev",
    "zlib1g-dev",
    "libzstd-dev",
    "libxml2-dev",
    "libffi-dev",
    "libncurses-dev",
];

/// Where Debian installs LLVM 22 (also set as `*_PREFIX` in `.cargo/config.toml`).
pub const LLVM_PREFIX: &str = "/usr/lib/llvm-22";

pub fn run() -> Result<(), String> {
    let missing: Vec<&str> = PACKAGES.iter().copied().filter(|p| !installed(p)).collect();
    if !missing.is_empty() {
        let command = format!("apt-get update && apt-get install -y --no-install-recommends {}", missing.join(" "));
        if !is_root() {
            return Err(format!(
                "missing Debian packages: {}\nrun as root:\n  {command}\n(then run this command again)",
                missing.join(" ")
            ));
        }
        eprintln!("xtask setup: installing {}", missing.join(" "));
        let status = Command::new("sh")
            .args(["-c", &command])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| format!("cannot run apt-get: {e}"))?;
        if !status.success() {
            return Err(format!("`{command}` failed ({status})"));
        }
    }
    check()
}

fn check() -> Result<(), String> {
    let llvm_config = Path::new(LLVM_PREFIX).join("bin/llvm-config");
    let output = Command::new(&llvm_config)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", llvm_config.display()))?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !version.starts_with("22.") {
        return Err(format!("{} reports version '{version}', Strata needs LLVM 22.x", llvm_config.display()));
    }
    let required =
        ["bin/FileCheck", "bin/not", "bin/mlir-opt", "lib/libMLIRIR.a", "lib/libMLIRCAPIIR.a", "include/mlir-c/IR.h"];
    let absent: Vec<String> = required
        .iter()
        .map(|p| Path::new(LLVM_PREFIX).join(p))
        .filter(|p| !p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if !absent.is_empty() {
        return Err(format!("LLVM {version} is installed but these are missing: {}", absent.join(", ")));
    }
    eprintln!("xtask setup: LLVM/MLIR {version} at {LLVM_PREFIX} (FileCheck, not, mlir-opt, MLIR C API present)");
    Ok(())
}

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}
