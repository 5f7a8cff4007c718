//! `strata import model.onnx [-o out.mlir] [--input-shape name=1x3x224x224]`: ONNX to `sg`.

use crate::compile::CommandError;
use clap::Args;
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use std::collections::BTreeMap;
use std::path::PathBuf;
use strata_frontend::{import, ImportOptions};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The ONNX model.
    pub model: PathBuf,
    /// Output file (default: standard output).
    #[arg(short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Static shape for an input with symbolic dimensions: `name=1x3x224x224` (repeatable).
    #[arg(long = "input-shape", value_name = "NAME=DIMS", value_parser = parse_input_shape)]
    pub input_shapes: Vec<(String, Vec<i64>)>,
    /// Fix an input's value at compile time from a serialized ONNX TensorProto (`.pb`, as in
    /// ONNX test data): `name=path.pb` (repeatable). The input becomes a constant.
    #[arg(long = "freeze-input", value_name = "NAME=FILE.pb")]
    pub frozen_inputs: Vec<String>,
    /// Budget in bytes for the constants computed at import (folded values, operator tables):
    /// a small model cannot make the compiler allocate without bound. Default 1 GiB.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_constant_bytes: Option<u64>,
    /// Print locations (each op's ONNX node name and index).
    #[arg(long = "mlir-print-debuginfo")]
    pub print_debuginfo: bool,
    /// Import a QDQ model's products of a uint8 activation and a constant 8-bit weight as
    /// `sg.quantized_matmul` (its 1x1 convolutions as `sg.quantized_conv`), as `strata compile`
    /// does for hosts with AVX-512 VNNI.
    #[arg(long)]
    pub integer_products: bool,
    /// Keep a float16 model's ops on f16 values, as `strata compile --disable half-in-f32`
    /// does (by default it computes in f32 between casts at its inputs and outputs).
    #[arg(long)]
    pub keep_half: bool,
}

/// Parses `name=1x3x224x224`.
pub fn parse_input_shape(text: &str) -> Result<(String, Vec<i64>), String> {
    let (name, dims) =
        text.split_once('=').ok_or_else(|| format!("expected NAME=DIMS (like x=1x3x224x224), got '{text}'"))?;
    let dims = dims
        .split('x')
        .map(|d| {
            d.parse::<i64>().ok().filter(|&d| d >= 0).ok_or_else(|| format!("'{d}' in '{text}' is not a dimension"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((name.to_owned(), dims))
}

/// `--input-shape` arguments by input name; an input named twice is an error (which shape
/// was meant?).
pub fn unique_shapes(shapes: &[(String, Vec<i64>)]) -> Result<BTreeMap<String, Vec<i64>>, CommandError> {
    let mut unique = BTreeMap::new();
    for (name, dims) in shapes {
        if unique.insert(name.clone(), dims.clone()).is_some() {
            return Err(CommandError::new(
                strata_ir::ErrorKind::InvalidInput,
                format!("error: --input-shape names input '{name}' twice"),
            ));
        }
    }
    Ok(unique)
}

/// The tensors of `--freeze-input NAME=FILE.pb` arguments, by input name.
pub fn read_frozen_inputs(
    specs: &[String],
) -> Result<BTreeMap<String, strata_frontend::onnx::TensorProto>, CommandError> {
    let mut frozen_inputs = BTreeMap::new();
    for spec in specs {
        let (name, path) =
            spec.split_once('=').ok_or_else(|| format!("error: --freeze-input expects NAME=FILE.pb, got '{spec}'"))?;
        let bytes = std::fs::read(path).map_err(|e| CommandError::io(format!("error: cannot read {path}: {e}")))?;
        let tensor = <strata_frontend::onnx::TensorProto as prost::Message>::decode(bytes.as_slice())
            .map_err(|e| format!("error: {path} is not a serialized ONNX TensorProto: {e}"))?;
        if frozen_inputs.insert(name.to_owned(), tensor).is_some() {
            return Err(CommandError::new(
                strata_ir::ErrorKind::InvalidInput,
                format!("error: --freeze-input names input '{name}' twice"),
            ));
        }
    }
    Ok(frozen_inputs)
}

pub fn run(args: &ImportArgs) -> Result<(), CommandError> {
    let file = args.model.display().to_string();
    let bytes = std::fs::read(&args.model).map_err(|e| format!("error: cannot read {file}: {e}"))?;
    let strata = crate::context().map_err(|e| e.to_string())?;
    let frozen_inputs = read_frozen_inputs(&args.frozen_inputs)?;
    let options = ImportOptions {
        file_name: file,
        base_dir: args.model.parent().map(PathBuf::from),
        input_shapes: unique_shapes(&args.input_shapes)?,
        frozen_inputs,
        run_shapes: Default::default(),
        max_constant_bytes: args.max_constant_bytes,
        whole_rows: false,
        integer_products: args.integer_products,
        half_in_f32: !args.keep_half,
    };
    let module = import(&strata, &bytes, &options).map_err(|e| format!("error: {e}"))?.module;
    let flags = OperationPrintingFlags::new().enable_debug_info(args.print_debuginfo, false);
    let mut text = module
        .as_operation()
        .to_string_with_flags(flags)
        .map_err(|e| format!("error: cannot print the module: {e}"))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match &args.output {
        Some(path) => strata_runtime::write_atomic(path, text.as_bytes())
            .map_err(|e| CommandError::io(format!("error: cannot write {}: {e}", path.display()))),
        // A closed pipe (`| head`) is an error to report, not a panic (`print!` panics).
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(text.as_bytes())
                .map_err(|e| CommandError::io(format!("error: cannot write to standard output: {e}")))
        }
    }
}
