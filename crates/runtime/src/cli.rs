//! What the command lines that run models share (`strata run`, `strata-exec run`): inputs
//! given as `name=file.npy` in any order, outputs compared with `name=ref.npy` references,
//! outputs written as `<dir>/<name>.npy`, and a one-line summary per output.

use crate::{compare, Signature, Tensor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use strata_error::Error;

/// Makes a write to a closed pipe end the process as it ends `cat` or `grep`: quietly, by
/// SIGPIPE. Rust starts programs with SIGPIPE ignored, so `strata run model.onnx | head -1`
/// got `EPIPE` from its next line and `println!` panicked. (A closed standard output, `>&-`,
/// is already no error: Rust's standard streams drop writes to a missing descriptor.) For
/// programs (`strata`, `strata-opt`, `strata-exec`): call first thing in `main`.
pub fn die_quietly_on_closed_pipes() {
    // Safety: sets the disposition of one signal to its default before any thread starts; no
    // handler runs.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Checks a `name=file.npy` argument (`--input`, `--expect`) when the command line is parsed,
/// before anything is compiled or loaded: a model that takes seconds to compile should not be
/// compiled to report a typo. Returns it unchanged.
pub fn name_file(spec: &str) -> Result<String, String> {
    match spec.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => Ok(spec.to_owned()),
        _ => Err("expected NAME=FILE.npy (like input=x.npy)".to_owned()),
    }
}

/// The inputs in signature order from `name=file.npy` specs; every input is required.
pub fn read_inputs(signature: &Signature, specs: &[String]) -> Result<Vec<Tensor>, Error> {
    let mut given = BTreeMap::new();
    for spec in specs {
        let (name, path) = spec
            .split_once('=')
            .ok_or_else(|| Error::invalid_input(format!("--input expects NAME=FILE.npy, got '{spec}'")))?;
        if given.insert(name.to_owned(), PathBuf::from(path)).is_some() {
            return Err(Error::invalid_input(format!("--input names input '{name}' twice")));
        }
    }
    let mut inputs = Vec::new();
    for spec in &signature.inputs {
        let path = given.remove(&spec.name).ok_or_else(|| {
            Error::invalid_input(format!(
                "input '{}' ({} {:?}) is missing: pass --input {}=FILE.npy",
                spec.name, spec.dtype, spec.shape, spec.name
            ))
        })?;
        inputs.push(Tensor::read_npy(&path).map_err(|e| Error::io(e.to_string()))?);
    }
    if let Some(extra) = given.keys().next() {
        let known: Vec<&str> = signature.inputs.iter().map(|s| s.name.as_str()).collect();
        return Err(Error::invalid_input(format!(
            "the model has no input '{extra}' (its inputs: {})",
            known.join(", ")
        )));
    }
    Ok(inputs)
}

/// Compares outputs with `name=ref.npy` references, printing one line each; an error names
/// the outputs outside `atol + rtol * |ref|`.
pub fn check_expectations(
    signature: &Signature,
    outputs: &[Tensor],
    specs: &[String],
    rtol: f64,
    atol: f64,
) -> Result<(), Error> {
    let mut mismatches = Vec::new();
    let mut seen = Vec::new();
    for spec in specs {
        let (name, path) = spec
            .split_once('=')
            .ok_or_else(|| Error::invalid_input(format!("--expect expects NAME=FILE.npy, got '{spec}'")))?;
        if seen.contains(&name) {
            return Err(Error::invalid_input(format!("--expect names output '{name}' twice")));
        }
        seen.push(name);
        let index = signature
            .outputs
            .iter()
            .position(|o| o.name == name)
            .ok_or_else(|| Error::invalid_input(format!("the model has no output '{name}'")))?;
        let reference = Tensor::read_npy(Path::new(path)).map_err(|e| Error::io(e.to_string()))?;
        let comparison = compare(&outputs[index], &reference, rtol, atol);
        println!("expect '{name}': {}", comparison.describe(rtol, atol));
        if !comparison.passed() {
            mismatches.push(name.to_owned());
        }
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(Error::new(
            strata_error::ErrorKind::Verification,
            format!("outputs differ from their references: {}", mismatches.join(", ")),
        ))
    }
}

/// Writes each output as `<dir>/<name>.npy` (the name made file-safe), each atomically; refuses
/// before writing anything when two outputs' names would make the same file.
pub fn write_outputs(signature: &Signature, outputs: &[Tensor], dir: &Path) -> Result<(), Error> {
    let files: Vec<String> = signature
        .outputs
        .iter()
        .map(|spec| {
            spec.name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
        })
        .collect();
    for (i, file) in files.iter().enumerate() {
        if let Some(j) = files[..i].iter().position(|f| f == file) {
            return Err(Error::invalid_input(format!(
                "outputs '{}' and '{}' would both be written to {file}.npy: rename one of them in the model",
                signature.outputs[j].name, signature.outputs[i].name
            )));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("cannot create {}: {e}", dir.display())))?;
    for (file, tensor) in files.iter().zip(outputs) {
        tensor.write_npy(&dir.join(format!("{file}.npy"))).map_err(|e| Error::io(e.to_string()))?;
    }
    Ok(())
}

/// One line per output: dtype, shape, min, max, mean, argmax.
pub fn print_outputs(signature: &Signature, outputs: &[Tensor]) {
    for (spec, tensor) in signature.outputs.iter().zip(outputs) {
        let values = tensor.to_f64();
        let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
        let argmax = values
            .iter()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |best, (i, &v)| if v > best.1 { (i, v) } else { best })
            .0;
        println!(
            "output '{}': {} {:?}  min {min:.6}  max {max:.6}  mean {mean:.6}  argmax {argmax}",
            spec.name, spec.dtype, spec.shape
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, TensorSpec};

    #[test]
    fn outputs_whose_file_names_collide_are_refused_before_writing() {
        let spec = |name: &str| TensorSpec { name: name.into(), dtype: DType::F32, shape: vec![1] };
        let signature = Signature {
            inputs: vec![],
            outputs: vec![spec("y.1"), spec("y_1")],
            arena_bytes: 0,
            arena_alignment: 1,
            checks: vec![],
        };
        let one = Tensor::from_bytes(DType::F32, &[1], &[0, 0, 128, 63]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let error = write_outputs(&signature, &[one.clone(), one], dir.path()).unwrap_err();
        assert!(error.to_string().contains("outputs 'y.1' and 'y_1' would both be written to y_1.npy"), "{error}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
