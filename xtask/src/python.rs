//! `cargo xtask python`: the `strata` Python package's pytest suite, run by `cargo xtask test`.
//!
//! Builds the native module (`python/`, debug, sharing the workspace's artifacts), lays the
//! package out under `target/python-pkg/strata/` as maturin would install it (the Python
//! sources, the stubs, and the module as `_strata.abi3.so`), and runs `python/tests` with the
//! pinned pytest, onnx (which brings NumPy) and the zoo the other tasks generate.

use crate::{cargo, root};
use std::process::Command;

/// The pytest release the suite runs under.
const PYTEST_VERSION: &str = "9.2.0";

pub fn run(filter: Option<&str>) -> Result<(), String> {
    let zoo = crate::ensure_zoo()?;
    cargo(&["build", "--quiet", "-p", "strata-python"], &[])?;
    let package = root().join("target/python-pkg/strata");
    std::fs::create_dir_all(&package).map_err(|e| format!("cannot create {}: {e}", package.display()))?;
    let sources = root().join("python/strata");
    for entry in std::fs::read_dir(&sources).map_err(|e| format!("{}: {e}", sources.display()))?.flatten() {
        let path = entry.path();
        if path.is_file() {
            std::fs::copy(&path, package.join(entry.file_name()))
                .map_err(|e| format!("cannot copy {}: {e}", path.display()))?;
        }
    }
    // A link, not a copy: the module links MLIR and LLVM (hundreds of MB in a debug build).
    let module = package.join("_strata.abi3.so");
    let _ = std::fs::remove_file(&module);
    std::os::unix::fs::symlink(root().join("target/debug/lib_strata.so"), &module)
        .map_err(|e| format!("cannot link {}: {e}", module.display()))?;
    let pytest = crate::pip_site("target/python-test", "pytest", PYTEST_VERSION)?;
    let onnx = crate::onnx_python()?;
    let path = std::env::join_paths([package.parent().expect("target/python-pkg"), &onnx, &pytest])
        .map_err(|e| e.to_string())?;
    let mut command = Command::new("python3");
    command.args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests"]);
    if let Some(filter) = filter {
        command.args(["-k", filter]);
    }
    eprintln!("xtask: running python3 -m pytest python/tests");
    let status = command
        .current_dir(root())
        .env("PYTHONPATH", path)
        .env("STRATA_ZOO", &zoo)
        .status()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the Python package's tests failed ({status})"))
    }
}
