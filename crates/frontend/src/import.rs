//! ONNX `ModelProto` → `sg` module.

use crate::error::FrontendError;
use crate::fold::Folded;
use crate::onnx::{self, tensor_proto::DataType, AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use crate::shapes;
use melior::ir::attribute::TypeAttribute;
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::FunctionType;
use melior::ir::{Block, BlockLike, Identifier, Location, Module, Region, RegionLike, Value, ValueLike};
use prost::Message;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use strata_dialect_sg as sg;
use strata_ir::Error;
use strata_ir::StrataContext;
use strata_ir::Val;

pub use crate::tensor::inline_bytes;
pub(crate) use crate::tensor::tensor_type;

/// How to import.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The model's file name, used in locations and messages.
    pub file_name: String,
    /// Directory of the model, for external tensor data.
    pub base_dir: Option<PathBuf>,
    /// Shapes for inputs with symbolic or unknown dimensions.
    pub input_shapes: BTreeMap<String, Vec<i64>>,
    /// The shapes of the arrays a run is given (`strata run --input name=x.npy`): an input
    /// whose declared shape has symbolic or unknown dimensions and no `input_shapes` entry
    /// takes its array's shape (checked against the dimensions the model fixes).
    pub run_shapes: BTreeMap<String, Vec<i64>>,
    /// Inputs whose values are fixed at compile time (shape operands, say): they become
    /// constants and are no longer arguments of `@main`.
    pub frozen_inputs: BTreeMap<String, TensorProto>,
    /// The budget for the constants the importer computes itself (folded values, operator
    /// decompositions' tables, constant masks), in bytes; `None` is
    /// [`DEFAULT_MAX_CONSTANT_BYTES`]. The model's own initializers are bounded by its files.
    pub max_constant_bytes: Option<u64>,
    /// Import every ml operator over all rows at once, none in row bands (`crate::ml`'s
    /// bands: a loop over bands of rows). The GPU path sets it: a loop of its own runs its
    /// kernels from one thread, where all rows at once is one launch per kernel.
    pub whole_rows: bool,
    /// Import a QDQ model's `MatMul` of a `uint8` activation and a constant 8-bit weight as
    /// `sg.quantized_matmul` (integer products, the weight packed for dot-product
    /// instructions; `crate::quant`), and its 1x1 `Conv`s as `sg.quantized_conv`, where the
    /// products of the dequantized values in f32 would otherwise run. The driver sets it for
    /// hosts with AVX-512 VNNI.
    pub integer_products: bool,
    /// Compute a half-precision (f16) model in f32 between casts at its inputs and
    /// outputs (`crate::half`), for the host's vectorised f32 kernels (the GPU's kernels are
    /// f32 too). The driver and `strata import` set it unless told otherwise.
    pub half_in_f32: bool,
}

/// The default budget for constants computed at import: 1 GiB. A small model cannot make
/// the compiler allocate more than this by folding (`Expand`/`Tile`/`ConstantOfShape` of
/// constants, say); a trusted model that needs more raises it (`--max-constant-bytes`).
pub const DEFAULT_MAX_CONSTANT_BYTES: u64 = 1 << 30;

/// A constant known at import time (initializer or `Constant` node).
pub(crate) struct Constant {
    pub(crate) shape: Vec<i64>,
    pub(crate) dtype: DataType,
    /// Little-endian element bytes.
    pub(crate) bytes: Vec<u8>,
    /// The materialised `arith.constant`, once an op needs it as a value.
    pub(crate) value: Option<Val>,
}

pub(crate) enum Entry {
    Value { value: Val, shape: Vec<i64>, dtype: DataType },
    Constant(Constant),
}

pub(crate) struct Importer<'c> {
    pub(crate) strata: &'c StrataContext,
    pub(crate) file: String,
    pub(crate) base_dir: Option<PathBuf>,
    pub(crate) values: BTreeMap<String, Entry>,
    resources: usize,
    /// Body nodes imported by unrolled Loops so far (bounded: nested loops multiply).
    pub(crate) unrolled_nodes: usize,
    /// The model's default-domain opset: which definition of each operator its nodes use.
    pub(crate) opset: i64,
    /// The subgraphs being imported, innermost last (see `crate::control`).
    pub(crate) scopes: Vec<crate::control::Scope>,
    /// Sequences of tensors: their elements' names (see `crate::sequence`).
    pub(crate) sequences: BTreeMap<String, Vec<String>>,
    /// Optionals made without a value (`Optional` with no input; see `crate::sequence`). An
    /// optional with a value is that value's name.
    pub(crate) empty_optionals: std::collections::BTreeSet<String>,
    /// f32 values cast to bf16 or f16 (the cast's result -> its f32 source and that type),
    /// while `round_half`: a cast back to f32 is the source rounded in f32
    /// (`Importer::rounded_half`).
    pub(crate) half_sources: BTreeMap<String, (String, DataType)>,
    /// While `round_half`: f32 values known to hold only values of a half type (a rounding,
    /// a cast from it, and what `Importer::track_half_exact` follows), whose rounding to that
    /// type is the value itself (`Importer::rounded_half`).
    pub(crate) half_exact: BTreeMap<String, DataType>,
    /// While `round_half`: the first rounding made of each (f32 value, half type), which every
    /// later cast back of the same half value reuses (`Importer::rounded_half`).
    pub(crate) roundings: BTreeMap<(String, DataType), String>,
    /// Whether casts f32 -> bf16 or f16 -> f32 round in f32 (`ImportOptions::half_in_f32`).
    pub(crate) round_half: bool,
    /// How deep the importer is in an `Expansion` (operators it builds itself).
    pub(crate) expanding: usize,
    /// The run-time checks' messages (`crate::checks`), in code order.
    pub(crate) checks: Vec<String>,
    /// The blocks run-time checks are made in, innermost last: `@main`'s body, then the
    /// branch of each `scf.if` being imported. Each has the status values (the failed check's
    /// code, else 0) made in it, which its region yields (`crate::checks`).
    pub(crate) check_frames: Vec<crate::checks::CheckFrame>,
    /// Bytes of the constants computed at import so far, and their budget.
    computed_bytes: u64,
    max_computed_bytes: u64,
    /// The in-order steps of each `If` taken at import (a constant condition), by the If's
    /// first output: the taken branch's nodes, named as the If's outputs (see [`graph_steps`]).
    pub(crate) taken_branches: BTreeMap<String, Vec<strata_plan::in_order::GraphStep>>,
    /// The `QuantizeLinear` nodes to integers imported so far, by output (`crate::quant`).
    pub(crate) quantized: BTreeMap<String, crate::quant::Quantized>,
    /// The `DequantizeLinear`s of a `QuantizeLinear` computed in floats, by output, with the
    /// quantization they undo (`crate::quant`).
    pub(crate) fake_quantized: BTreeMap<String, crate::quant::Quantized>,
    /// The `DequantizeLinear`s of constant 8-bit integers, by output (`crate::quant`).
    pub(crate) dequantized_constants: BTreeMap<String, crate::quant::Dequantized>,
    /// [`ImportOptions::integer_products`].
    pub(crate) integer_products: bool,
    /// The `Scaler`s over f32 rows imported so far, by output (`crate::ml::unscale`).
    pub(crate) scalers: BTreeMap<String, crate::ml::Scaled>,
    /// [`ImportOptions::whole_rows`].
    pub(crate) whole_rows: bool,
    /// The tree-ensemble nodes of the main graph (`crate::ml`: many of them share walk shapes).
    pub(crate) tree_ensembles: usize,
}

/// One input or output of the imported model, in `@main`'s order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// The ONNX name.
    pub name: String,
    pub shape: Vec<i64>,
    /// The MLIR element type (`f32`, `ui8`, `i1`, `f8E4M3FN`, ...).
    pub element: String,
}

/// What the imported `@main` takes and returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    /// The run-time checks (`crate::checks`), by code - 1. With any, `@main` returns one more
    /// result after the outputs: an `i32` status, 0 or the code of a failed check.
    pub checks: Vec<String>,
}

/// A model imported into `sg`.
pub struct Imported<'c> {
    /// A verified module with one function, `@main`.
    pub module: Module<'c>,
    pub interface: Interface,
    /// The op type of each top-level node, by the name its ops' locations carry (reports name
    /// kernels and buffers by location: `Conv`, `Relu`, ...).
    pub node_ops: std::collections::BTreeMap<String, String>,
    /// The top-level nodes in file order with their activations' bytes: what the model needs
    /// run node by node ([`strata_plan::in_order::peaks`]).
    pub steps: Vec<strata_plan::in_order::GraphStep>,
    /// What the import could not do as asked and did otherwise (a half-precision model left
    /// in half precision, say), for the driver to print as warnings.
    pub warnings: Vec<String>,
}

/// Imports ONNX model bytes into a verified module with one function, `@main`, and its
/// interface.
pub fn import<'c>(
    strata: &'c StrataContext,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<Imported<'c>, FrontendError> {
    import_model(strata, decode(bytes, options)?, options)
}

/// [`import`] of bytes the importer owns: they are freed once decoded, before the constants are
/// made (the decoded message holds the weights; ResNet-50's import held the file's 100 MB
/// besides the message's and the constants').
pub fn import_owned<'c>(
    strata: &'c StrataContext,
    bytes: std::borrow::Cow<'_, [u8]>,
    options: &ImportOptions,
) -> Result<Imported<'c>, FrontendError> {
    let model = decode(&bytes, options)?;
    drop(bytes);
    import_model(strata, model, options)
}

fn decode(bytes: &[u8], options: &ImportOptions) -> Result<ModelProto, FrontendError> {
    ModelProto::decode(bytes)
        .map_err(|e| FrontendError::Malformed { file: options.file_name.clone(), message: e.to_string() })
}

fn import_model<'c>(
    strata: &'c StrataContext,
    mut model: ModelProto,
    options: &ImportOptions,
) -> Result<Imported<'c>, FrontendError> {
    let file = options.file_name.clone();
    let no_graph = || FrontendError::Malformed { file: file.clone(), message: "the model has no graph".into() };
    let graph = model.graph.as_ref().ok_or_else(no_graph)?;
    let opset = crate::support::check_opsets(&model, &file)?;
    crate::validate::check(graph, opset, &file)?;
    let mut unsupported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    crate::support::collect_unsupported(graph, "", &mut unsupported);
    if !unsupported.is_empty() {
        return Err(FrontendError::Unsupported { file, ops: unsupported });
    }
    let mut warnings = Vec::new();
    if options.half_in_f32 {
        match crate::half::widen(&mut model, opset) {
            crate::half::Widened::Refused(why) => {
                // Rendered as the passes' warnings are (`location: warning: message`, a line).
                warnings.push(format!("{file}: warning: computed in half precision, not in f32: {why}\n"))
            }
            crate::half::Widened::Rewritten | crate::half::Widened::NoHalf => {}
        }
        crate::half::bf16_products(&mut model, opset);
    }
    // The initializers leave the decoded model: each one's raw bytes move into its constant
    // instead of being copied (a 100 MB model held them three times during import: the file,
    // the decoded message, the constants).
    let initializers = model.graph.as_mut().map(|g| std::mem::take(&mut g.initializer)).unwrap_or_default();
    let graph = model.graph.as_ref().ok_or_else(no_graph)?;
    let mut importer = Importer {
        strata,
        file: file.clone(),
        base_dir: options.base_dir.clone(),
        values: BTreeMap::new(),
        resources: 0,
        unrolled_nodes: 0,
        opset,
        scopes: Vec::new(),
        sequences: BTreeMap::new(),
        empty_optionals: Default::default(),
        half_sources: BTreeMap::new(),
        half_exact: BTreeMap::new(),
        roundings: BTreeMap::new(),
        round_half: options.half_in_f32,
        expanding: 0,
        checks: Vec::new(),
        check_frames: Vec::new(),
        computed_bytes: 0,
        max_computed_bytes: options.max_constant_bytes.unwrap_or(DEFAULT_MAX_CONSTANT_BYTES),
        taken_branches: BTreeMap::new(),
        quantized: BTreeMap::new(),
        fake_quantized: BTreeMap::new(),
        dequantized_constants: BTreeMap::new(),
        integer_products: options.integer_products,
        scalers: BTreeMap::new(),
        whole_rows: options.whole_rows,
        tree_ensembles: graph.node.iter().filter(|n| n.op_type().starts_with("TreeEnsemble")).count(),
    };
    let context = strata.mlir();
    for tensor in initializers {
        let name = tensor.name().to_owned();
        let constant = importer
            .constant_owned(tensor)
            .map_err(|error| FrontendError::Graph { file: file.clone(), error: Box::new(error) })?;
        importer.values.insert(name, Entry::Constant(constant));
    }
    for (name, tensor) in &options.frozen_inputs {
        let constant = importer
            .constant(tensor)
            .map_err(|error| FrontendError::Graph { file: file.clone(), error: Box::new(error) })?;
        importer.values.insert(name.clone(), Entry::Constant(constant));
    }
    for (name, tensor) in &options.frozen_inputs {
        let refuse = |why: String| FrontendError::Graph {
            file: file.clone(),
            error: Box::new(Error::invalid_input(format!("cannot freeze '{name}': {why}"))),
        };
        let Some(input) = graph.input.iter().find(|i| i.name() == name.as_str()) else {
            return Err(refuse("the graph has no input of that name".into()));
        };
        if let Some(onnx::type_proto::Value::TensorType(declared)) =
            input.r#type.as_ref().and_then(|t| t.value.as_ref())
        {
            let name_of = |v: i32| DataType::try_from(v).map_or_else(|_| v.to_string(), |d| d.as_str_name().to_owned());
            if declared.elem_type() != 0 && declared.elem_type() != tensor.data_type() {
                return Err(refuse(format!(
                    "the value has element type {}, the input is declared {}",
                    name_of(tensor.data_type()),
                    name_of(declared.elem_type())
                )));
            }
        }
        agrees_with_declared(input, &tensor.dims).map_err(|why| refuse(format!("the value's {why}")))?;
    }
    // Graph inputs (those that are not initializers) become function arguments.
    let mut argument_types = Vec::new();
    let mut argument_names = Vec::new();
    let mut input_names = Vec::new();
    for input in &graph.input {
        if importer.values.contains_key(input.name()) {
            continue;
        }
        let (shape, dtype) = input_shape(input, options, &file)?;
        if shape.contains(&0) {
            // An input without elements carries no data: it is a constant (only its type and
            // shape can matter), not an argument.
            importer.values.insert(
                input.name().to_owned(),
                Entry::Constant(Constant { shape, dtype, bytes: Vec::new(), value: None }),
            );
            continue;
        }
        argument_types.push(
            tensor_type(context, &shape, dtype)
                .map_err(|error| FrontendError::Graph { file: file.clone(), error: Box::new(error) })?,
        );
        argument_names.push((input.name().to_owned(), shape, dtype));
        input_names.push(input.name().to_owned());
    }
    let location = Location::new(context, &file, 0, 0);
    let block = Block::new(&argument_types.iter().map(|&t| (t, location)).collect::<Vec<_>>());
    importer.check_frames.push(crate::checks::CheckFrame::of(&block));
    for (index, (name, shape, dtype)) in argument_names.into_iter().enumerate() {
        let value: Value = block.argument(index).expect("one argument per input").into();
        importer.values.insert(name, Entry::Value { value: value.into(), shape, dtype });
    }
    for (index, node) in graph.node.iter().enumerate() {
        importer.node(&block, node, index).map_err(|error| FrontendError::Node {
            file: file.clone(),
            index,
            name: node_name(node, index),
            op_type: node.op_type().to_owned(),
            error: Box::new(error),
        })?;
    }
    let graph_error = |error: Error| FrontendError::Graph { file: file.clone(), error: Box::new(error) };
    let port = |name: &str, shape: Vec<i64>, dtype: DataType| -> Result<Port, FrontendError> {
        let element = crate::tensor::element(context, dtype).map_err(graph_error)?.to_string();
        Ok(Port { name: name.to_owned(), shape, element })
    };
    let mut interface = Interface::default();
    for name in &input_names {
        let (shape, dtype) = importer.shape_of(name).map_err(graph_error)?;
        interface.inputs.push(port(name, shape, dtype)?);
    }
    let mut results = Vec::new();
    let mut result_types = Vec::new();
    for output in &graph.output {
        let (shape, dtype) = importer.shape_of(output.name()).map_err(graph_error)?;
        interface.outputs.push(port(output.name(), shape, dtype)?);
        let value = importer.use_value(&block, output.name(), location).map_err(|error| FrontendError::Graph {
            file: file.clone(),
            error: Box::new(error.context(format!("graph output '{}'", output.name()))),
        })?;
        result_types.push(value.get().r#type());
        results.push(value);
    }
    if !importer.checks.is_empty() {
        let status = importer.status(&block, location).map_err(|error| FrontendError::Graph {
            file: file.clone(),
            error: Box::new(error.context("the run-time checks' status")),
        })?;
        result_types.push(status.get().r#type());
        results.push(status);
        interface.checks = importer.checks.clone();
    }
    let returned: Vec<Value> = results.iter().map(|&v| v.get()).collect();
    block.append_operation(melior::dialect::func::r#return(&returned, location));
    erase_unread(&block);
    let region = Region::new();
    region.append_block(block);
    let function = melior::dialect::func::func(
        context,
        melior::ir::attribute::StringAttribute::new(context, "main"),
        TypeAttribute::new(FunctionType::new(context, &argument_types, &result_types).into()),
        region,
        &[],
        location,
    );
    let module = Module::new(location);
    let function = module.body().append_operation(function);
    // The ONNX names, for readers of the IR and tools that start from sg text.
    strata_ir::attrs::INPUT_NAMES.set(function, &input_names);
    let output_names: Vec<String> = interface.outputs.iter().map(|p| p.name.clone()).collect();
    strata_ir::attrs::OUTPUT_NAMES.set(function, &output_names);
    if !interface.checks.is_empty() {
        strata_ir::attrs::STATUS_CHECKS.set(function, &interface.checks);
    }
    strata.verify(module.as_operation()).map_err(|diagnostics| FrontendError::Invalid {
        file,
        source: strata_ir::IrError::Verification { after: "import".into(), diagnostics },
    })?;
    let node_ops = graph
        .node
        .iter()
        .enumerate()
        .map(|(index, node)| (node_name(node, index), node.op_type().to_owned()))
        .collect();
    let outputs: BTreeSet<&str> = graph.output.iter().map(|o| o.name()).collect();
    let steps = graph_steps(graph, &importer, &outputs);
    Ok(Imported { module, interface, node_ops, steps, warnings })
}

/// Erases the ops of `block` whose results nothing reads (`sg` ops and constants: values, no
/// effects), the last first, so that a dead chain goes whole. A QDQ pair imported as one float
/// chain leaves its `QuantizeLinear`'s integer steps unread; a value read by them looked shared
/// to the e-graph, which then kept its live reader's elementwise program apart from its
/// producer's (a quantized MobileNet's bias + Clip and the fake quantization after it: one
/// kernel more a block).
fn erase_unread(block: &Block) {
    for op in strata_ir::Blk::of(block).ops().into_iter().rev() {
        let removable = op.name().starts_with("sg.") || op.is("arith.constant");
        if removable && op.result_count() > 0 && op.results().iter().all(|r| !r.has_uses()) {
            // Safety: nothing reads its results, and nothing else refers to it.
            unsafe { op.erase() };
        }
    }
}

/// `graph`'s nodes as [`strata_plan::in_order::GraphStep`]s: the bytes of each output that is
/// an activation (neither one of `outputs`, the model's outputs, nor a constant, folded ones
/// included). An `If` whose branch was taken at import is that branch's steps (the If does not
/// run: its branch's nodes do, one by one, as an executor that folds the condition runs them);
/// one on a condition computed at run time, the steps of its branch with the larger peak.
pub(crate) fn graph_steps(
    graph: &GraphProto,
    importer: &Importer,
    outputs: &BTreeSet<&str>,
) -> Vec<strata_plan::in_order::GraphStep> {
    /// The names `node` reads, its subgraphs' nodes' included.
    fn reads(node: &NodeProto, into: &mut Vec<String>) {
        into.extend(node.input.iter().filter(|i| !i.is_empty()).cloned());
        for body in subgraphs(node) {
            body.node.iter().for_each(|inner| reads(inner, into));
        }
    }
    // Names as the importer knows them (a subgraph's are bound in its scope while it is open).
    let bytes = |name: &str| activation_bytes(importer, name).filter(|_| !outputs.contains(name));
    let mut steps = Vec::new();
    for node in &graph.node {
        let taken = node.output.first().filter(|_| node.op_type() == "If");
        if let Some(branch) = taken.and_then(|o| importer.taken_branches.get(importer.resolve(o).as_ref())) {
            for step in branch {
                let mut step = step.clone();
                for (name, size) in &mut step.outputs {
                    if outputs.contains(name.as_str()) {
                        *size = None;
                    }
                }
                steps.push(step);
            }
            continue;
        }
        let mut inputs = Vec::new();
        reads(node, &mut inputs);
        let inputs = inputs.iter().map(|i| importer.resolve(i).into_owned()).collect();
        let outputs = node
            .output
            .iter()
            .filter(|o| !o.is_empty())
            .map(|o| {
                let name = importer.resolve(o).into_owned();
                let size = bytes(&name);
                (name, size)
            })
            .collect();
        steps.push(strata_plan::in_order::GraphStep { op: node.op_type().to_owned(), inputs, outputs });
    }
    steps
}

/// The bytes of `name` when it is a computed value of static shape (not a constant).
pub(crate) fn activation_bytes(importer: &Importer, name: &str) -> Option<u64> {
    match importer.values.get(name) {
        Some(Entry::Value { shape, dtype, .. }) if shape.iter().all(|&d| d >= 0) => {
            let elements: u64 = shape.iter().map(|&d| d as u64).product();
            Some(elements.saturating_mul(crate::fold::width(*dtype) as u64))
        }
        _ => None,
    }
}

pub(crate) fn node_name(node: &NodeProto, index: usize) -> String {
    if node.name().is_empty() {
        format!("{}#{index}", node.op_type())
    } else {
        node.name().to_owned()
    }
}

fn input_shape(
    input: &onnx::ValueInfoProto,
    options: &ImportOptions,
    file: &str,
) -> Result<(Vec<i64>, DataType), FrontendError> {
    let graph_error = |error: Error| FrontendError::Graph { file: file.to_owned(), error: Box::new(error) };
    let tensor = match input.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(onnx::type_proto::Value::TensorType(tensor)) => tensor,
        _ => {
            return Err(graph_error(Error::unsupported(format!(
                "input '{}' is not a tensor (sequence, map and optional inputs are not imported)",
                input.name()
            ))))
        }
    };
    let dtype = DataType::try_from(tensor.elem_type())
        .map_err(|_| graph_error(format!("input '{}' has an unknown element type", input.name()).into()))?;
    if let Some(shape) = options.input_shapes.get(input.name()) {
        shapes::numel(shape).map_err(|e| graph_error(e.context(format!("--input-shape {}", input.name()))))?;
        agrees_with_declared(input, shape)
            .map_err(|why| graph_error(Error::invalid_input(format!("--input-shape {}: {why}", input.name()))))?;
        return Ok((shape.clone(), dtype));
    }
    let dims = tensor.shape.as_ref().map(|s| s.dim.as_slice()).unwrap_or_default();
    let fixed = |d: &onnx::tensor_shape_proto::Dimension| matches!(d.value, Some(onnx::tensor_shape_proto::dimension::Value::DimValue(v)) if v >= 0);
    if let Some(shape) =
        options.run_shapes.get(input.name()).filter(|_| tensor.shape.is_none() || !dims.iter().all(fixed))
    {
        agrees_with_declared(input, shape).map_err(|why| {
            graph_error(Error::invalid_input(format!(
                "input '{}': the array given for it does not fit: {why}",
                input.name()
            )))
        })?;
        shapes::numel(shape).map_err(|e| graph_error(e.context(format!("input '{}'", input.name()))))?;
        return Ok((shape.clone(), dtype));
    }
    if tensor.shape.is_none() {
        return Err(FrontendError::SymbolicShape {
            file: file.to_owned(),
            input: input.name().to_owned(),
            dim: "(no shape)".into(),
        });
    }
    dims.iter()
        .map(|d| match &d.value {
            Some(onnx::tensor_shape_proto::dimension::Value::DimValue(v)) if *v >= 0 => Ok(*v),
            Some(onnx::tensor_shape_proto::dimension::Value::DimParam(p)) => Err(FrontendError::SymbolicShape {
                file: file.to_owned(),
                input: input.name().to_owned(),
                dim: format!("'{p}'"),
            }),
            _ => Err(FrontendError::SymbolicShape {
                file: file.to_owned(),
                input: input.name().to_owned(),
                dim: "(unknown)".into(),
            }),
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|shape| {
            shapes::numel(&shape).map_err(|e| graph_error(e.context(format!("input '{}'", input.name()))))?;
            Ok((shape, dtype))
        })
}

/// Whether `shape` (given for `input` on the command line) fits the shape the model declares:
/// the same rank, and every fixed dimension equal (symbolic ones take any size). The error
/// says where they differ.
fn agrees_with_declared(input: &onnx::ValueInfoProto, shape: &[i64]) -> Result<(), String> {
    let Some(onnx::type_proto::Value::TensorType(tensor)) = input.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
        return Ok(());
    };
    let Some(declared) = tensor.shape.as_ref() else { return Ok(()) };
    let dims: Vec<Option<i64>> = declared
        .dim
        .iter()
        .map(|d| match &d.value {
            // paddle2onnx writes -1 for a dimension it leaves open.
            Some(onnx::tensor_shape_proto::dimension::Value::DimValue(v)) if *v >= 0 => Some(*v),
            _ => None,
        })
        .collect();
    let shown: Vec<String> = dims.iter().map(|d| d.map_or_else(|| "?".to_owned(), |v| v.to_string())).collect();
    if dims.len() != shape.len() {
        return Err(format!(
            "shape {shape:?} has rank {}, the model declares rank {} ([{}])",
            shape.len(),
            dims.len(),
            shown.join(", ")
        ));
    }
    if let Some(k) = (0..dims.len()).find(|&k| dims[k].is_some_and(|d| d != shape[k])) {
        return Err(format!(
            "shape {shape:?} has {} at dimension {k}, where the model declares [{}]",
            shape[k],
            shown.join(", ")
        ));
    }
    Ok(())
}

/// The graphs `node` holds in its attributes (If's branches, Loop's and Scan's bodies).
pub(crate) fn subgraphs(node: &NodeProto) -> impl Iterator<Item = &GraphProto> {
    node.attribute.iter().flat_map(|a| a.g.iter().chain(&a.graphs))
}

/// Input `k` of `node`, if given (ONNX writes an omitted optional input as "").
pub(crate) fn operand(node: &NodeProto, k: usize) -> Option<&str> {
    node.input.get(k).filter(|n| !n.is_empty()).map(String::as_str)
}

/// Input `k` of `node`, which the operator requires.
pub(crate) fn required(node: &NodeProto, k: usize) -> Result<&str, Error> {
    operand(node, k).ok_or_else(|| Error::invalid_input(format!("input #{k} is missing")))
}

pub(crate) fn attribute<'n>(node: &'n NodeProto, name: &str) -> Option<&'n AttributeProto> {
    node.attribute.iter().find(|a| a.name() == name)
}

pub(crate) fn ints(node: &NodeProto, name: &str) -> Option<Vec<i64>> {
    attribute(node, name).map(|a| a.ints.clone())
}

/// The ints attribute `name` of `node`, which must have `len` values; `len` times `default`
/// when absent.
pub(crate) fn ints_of_len(node: &NodeProto, name: &str, default: i64, len: usize) -> Result<Vec<i64>, Error> {
    let v = ints(node, name).unwrap_or_else(|| vec![default; len]);
    if v.len() != len {
        return Err(format!("{name} {v:?} must have {len} values").into());
    }
    Ok(v)
}

pub(crate) fn int(node: &NodeProto, name: &str, default: i64) -> i64 {
    attribute(node, name).map_or(default, |a| a.i())
}

impl Importer<'_> {
    /// Whether a Clip has a bound computed at run time or integer elements: then it is
    /// `max(x, min)` and `min(., max)` on tensors instead of `sg.clip` with float attributes.
    pub(crate) fn clip_needs_tensors(&self, node: &NodeProto) -> Result<bool, Error> {
        let (_, dtype) = self.shape_of(required(node, 0)?)?;
        let float = matches!(dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16);
        Ok(!float || [1, 2].iter().any(|&k| operand(node, k).is_some_and(|name| self.folded(name).is_none())))
    }

    pub(crate) fn clip_with_tensors(
        &mut self,
        block: &Block,
        node: &NodeProto,
        location: Location,
    ) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let ty = tensor_type(context, &shape, dtype)?;
        let mut y = self.use_value(block, required(node, 0)?, location)?;
        for k in [1, 2] {
            let Some(name) = operand(node, k) else { continue };
            let (bound, bound_type) = self.shape_of(name)?;
            if bound_type != dtype || !bound.is_empty() {
                return Err(format!(
                    "Clip bound '{name}' must be a scalar of the input's type, got {} {bound:?}",
                    bound_type.as_str_name()
                )
                .into());
            }
            let b = self.use_value(block, name, location)?.get();
            let x = y.get();
            let op = if k == 1 {
                sg::Max::build(context, location, x, b, ty)
            } else {
                sg::Min::build(context, location, x, b, ty)
            };
            let value: Value = block.append_operation(op).result(0).expect("one result").into();
            y = value.into();
        }
        self.values.insert(node.output[0].clone(), Entry::Value { value: y, shape, dtype });
        Ok(())
    }

    /// The element type a Cast (attribute `to`) or CastLike (the second input's type) makes.
    pub(crate) fn cast_target(&self, node: &NodeProto) -> Result<DataType, Error> {
        if node.op_type() == "CastLike" {
            return Ok(self.shape_of(required(node, 1)?)?.1);
        }
        DataType::try_from(int(node, "to", 0) as i32)
            .map_err(|_| Error::unsupported("Cast to a data type unknown to this importer"))
    }

    /// The integer values of a constant operand (shape arguments are folded at import).
    pub(crate) fn constant_ints(&self, name: &str) -> Result<Vec<i64>, Error> {
        match (self.values.get(name), self.folded(name)) {
            (_, Some(c)) if matches!(c.dtype, DataType::Int64 | DataType::Int32) => c.ints(),
            (Some(_), _) => Err(Error::unsupported(format!(
                "'{name}' must be a constant integer tensor (computed shapes are not folded yet)"
            ))),
            (None, _) => Err(format!("'{name}' is not defined before its use").into()),
        }
    }

    /// The constant `name`, which decides a shape or a position (`what` it is, for the
    /// error): a value computed at run time is an error that says how to fix it.
    pub(crate) fn known(&self, name: &str, what: &str) -> Result<Folded, Error> {
        self.folded(name).ok_or_else(|| {
            Error::unsupported(format!(
                "{what} '{name}' is computed at run time; a static-shape compiler needs it at import (freeze the inputs it depends on with --freeze-input)"
            ))
        })
    }

    /// The constant `name` (an initializer, a `Constant` node or a folded result), if it is one.
    pub(crate) fn folded(&self, name: &str) -> Option<Folded> {
        match self.values.get(name) {
            Some(Entry::Constant(c)) => Some(Folded { shape: c.shape.clone(), dtype: c.dtype, bytes: c.bytes.clone() }),
            _ => None,
        }
    }

    pub(crate) fn define_constant(&mut self, node: &NodeProto, folded: Folded) -> Result<(), Error> {
        self.insert_computed(node.output[0].clone(), folded)
    }

    /// The bytes of computed constants with `bytes` more for `name`, or the error that they
    /// pass the budget (checked before a large constant is allocated, too).
    pub(crate) fn within_constant_budget(&self, name: &str, bytes: u64) -> Result<u64, Error> {
        let total = self.computed_bytes.saturating_add(bytes);
        if total > self.max_computed_bytes {
            return Err(Error::invalid_input(format!(
                "the constants computed at import would reach {total} bytes with '{name}' ({bytes} bytes), over \
                 the budget of {} bytes: raise --max-constant-bytes if the model is trusted",
                self.max_computed_bytes
            )));
        }
        Ok(total)
    }

    /// Defines `name` as a constant the importer computed, within the budget for them
    /// (`ImportOptions::max_constant_bytes`).
    pub(crate) fn insert_computed(&mut self, name: String, folded: Folded) -> Result<(), Error> {
        self.computed_bytes = self.within_constant_budget(&name, folded.bytes.len() as u64)?;
        let Folded { shape, dtype, bytes } = folded;
        self.values.insert(name, Entry::Constant(Constant { shape, dtype, bytes, value: None }));
        Ok(())
    }

    pub(crate) fn shape_of(&self, name: &str) -> Result<(Vec<i64>, DataType), Error> {
        match self.values.get(name) {
            Some(Entry::Value { shape, dtype, .. }) => Ok((shape.clone(), *dtype)),
            Some(Entry::Constant(c)) => Ok((c.shape.clone(), c.dtype)),
            None if self.sequences.contains_key(name) => Err(Error::unsupported(format!(
                "'{name}' is a sequence, used here as a tensor (sequences are resolved at import: they cannot be graph outputs, If results or run-time loop values)"
            ))),
            None if self.empty_optionals.contains(name) => Err(Error::unsupported(format!(
                "'{name}' is an empty optional, used here as a tensor (optionals are resolved at import: they cannot be graph outputs, If results or run-time loop values)"
            ))),
            None => Err(format!("operand '{name}' is not defined before its use").into()),
        }
    }

    /// The SSA value of `name`, materialising a constant as `arith.constant dense_resource`.
    pub(crate) fn use_value(&mut self, block: &Block, name: &str, location: Location) -> Result<Val, Error> {
        let context = self.strata.mlir();
        let resources = self.resources;
        let entry = self.values.get_mut(name).ok_or_else(|| format!("'{name}' is not defined before its use"))?;
        match entry {
            Entry::Value { value, .. } => Ok(*value),
            Entry::Constant(constant) => {
                if let Some(value) = constant.value {
                    return Ok(value);
                }
                let ty = tensor_type(context, &constant.shape, constant.dtype)?;
                let resource: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
                let resource = format!("{resource}_{resources}");
                // Empty, one-element and boolean tensors are plain `dense<...>`: MLIR 22's LLVM
                // translation divides by zero on an empty dense_resource, and lowering a
                // rank-0 memref.global asks a dense_resource for elements it cannot iterate.
                let count: i64 = constant.shape.iter().product();
                // Booleans too: LLVM translation has no conversion for an i1 dense_resource.
                let attribute = if constant.dtype == DataType::Bool {
                    let flags: Vec<bool> = constant.bytes.iter().map(|&b| b != 0).collect();
                    strata_ir::resource::dense_bools(ty, &flags)
                } else if count <= 1 {
                    strata_ir::resource::dense_bytes(ty, &constant.bytes)
                } else {
                    strata_ir::resource::dense_resource(ty, &resource, &constant.bytes)
                };
                let op = OperationBuilder::new("arith.constant", location)
                    .add_attributes(&[(Identifier::new(context, "value"), attribute)])
                    .add_results(&[ty])
                    .build()
                    .map_err(|e| e.to_string())?;
                let op = block.append_operation(op);
                let value: Value = op.result(0).expect("one result").into();
                constant.value = Some(value.into());
                self.resources += 1;
                Ok(value.into())
            }
        }
    }

    /// A new constant named `label.<n>` (unique) from little-endian element `bytes`, as an SSA
    /// value (the constants an operator's decomposition computes at import).
    pub(crate) fn new_constant(
        &mut self,
        block: &Block,
        label: &str,
        shape: Vec<i64>,
        dtype: DataType,
        bytes: Vec<u8>,
        location: Location,
    ) -> Result<Val, Error> {
        let name = format!("{label}.{}", self.values.len());
        self.insert_computed(name.clone(), Folded { shape, dtype, bytes })?;
        self.use_value(block, &name, location)
    }

    /// Defines `name` as a 1-D int64 constant of `values`, a list as long as a rank (outside
    /// the budget of computed constants).
    pub(crate) fn define_shape_list(&mut self, name: &str, values: &[i64]) {
        let Folded { shape, dtype, bytes } = Folded::from_i64(vec![values.len() as i64], values);
        self.values.insert(name.to_owned(), Entry::Constant(Constant { shape, dtype, bytes, value: None }));
    }

    /// A new constant `folded` materialised in `block`, as a typed value.
    pub(crate) fn new_constant_typed(
        &mut self,
        block: &Block,
        label: &str,
        folded: crate::fold::Folded,
        location: Location,
    ) -> Result<crate::ops::Typed, Error> {
        let (shape, dtype) = (folded.shape.clone(), folded.dtype);
        let value = self.new_constant(block, label, folded.shape, folded.dtype, folded.bytes, location)?;
        Ok((value, shape, dtype))
    }

    pub(crate) fn define(
        &mut self,
        node: &NodeProto,
        op: melior::ir::operation::OperationRef<'_, '_>,
        shape: Vec<i64>,
        dtype: DataType,
    ) {
        let value: Value = op.result(0).expect("one result").into();
        self.values.insert(node.output[0].clone(), Entry::Value { value: value.into(), shape, dtype });
    }

    /// `to` names the same value (or constant) as `from`.
    pub(crate) fn alias(&mut self, from: &str, to: String) -> Result<(), Error> {
        if let Some(elements) = self.sequences.get(from) {
            let elements = elements.clone();
            self.sequences.insert(to, elements);
            return Ok(());
        }
        let entry = match self.values.get(from).ok_or_else(|| format!("'{from}' is not defined before its use"))? {
            Entry::Value { value, shape, dtype } => Entry::Value { value: *value, shape: shape.clone(), dtype: *dtype },
            Entry::Constant(c) => Entry::Constant(Constant {
                shape: c.shape.clone(),
                dtype: c.dtype,
                bytes: c.bytes.clone(),
                value: c.value,
            }),
        };
        self.values.insert(to, entry);
        Ok(())
    }

    /// `value` cast to `to` (an `sg.cast`).
    pub(crate) fn cast_value(
        &mut self,
        block: &Block,
        value: Val,
        shape: &[i64],
        to: DataType,
        location: Location,
    ) -> Result<Val, Error> {
        let context = self.strata.mlir();
        let x = value.get();
        let op =
            block.append_operation(sg::Cast::build(context, location, x, None, None, tensor_type(context, shape, to)?));
        let result: Value = op.result(0).expect("one result").into();
        Ok(result.into())
    }

    /// `value` reshaped to `shape` (an `sg.reshape`).
    pub(crate) fn reshape_value(
        &mut self,
        block: &Block,
        value: Val,
        shape: &[i64],
        dtype: DataType,
        location: Location,
    ) -> Result<Val, Error> {
        let context = self.strata.mlir();
        let x = value.get();
        let op = block.append_operation(sg::Reshape::build(context, location, x, tensor_type(context, shape, dtype)?));
        let result: Value = op.result(0).expect("one result").into();
        Ok(result.into())
    }

    /// `input` reshaped to `out`: a constant is folded (same bytes, new shape), a value gets
    /// an `sg.reshape`.
    pub(crate) fn reshape_to(
        &mut self,
        block: &Block,
        node: &NodeProto,
        input: &str,
        out: Vec<i64>,
        dtype: DataType,
        location: Location,
    ) -> Result<(), Error> {
        if let Some(mut folded) = self.folded(input) {
            folded.shape = out;
            self.define_constant(node, folded)?;
            return Ok(());
        }
        let context = self.strata.mlir();
        let x = self.use_value(block, input, location)?.get();
        let op = block.append_operation(sg::Reshape::build(context, location, x, tensor_type(context, &out, dtype)?));
        self.define(node, op, out, dtype);
        Ok(())
    }
}
