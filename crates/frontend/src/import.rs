//! ONNX `ModelProto` → `sg` module.

use crate::error::FrontendError;
use crate::fold::Folded;
use crate::onnx::{self, tensor_proto::DataType, AttributeProto, ModelProto, NodeProto, TensorProto};
use crate::shapes;
use melior::ir::attribute::TypeAttribute;
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::FunctionType;
use melior::ir::{
    Attribute, Block, BlockLike, Identifier, Location, Module, Region, RegionLike, TypeLike, Value, ValueLike,
};
use mlir_sys::MlirValue;
use prost::Message;
use std::collections::BTreeMap;
use std::path::PathBuf;
use strata_dialect_sg as sg;
use strata_ir::StrataContext;

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
    /// Inputs whose values are fixed at compile time (shape operands, say): they become
    /// constants and are no longer arguments of `@main`.
    pub frozen_inputs: BTreeMap<String, TensorProto>,
}

/// A constant known at import time (initializer or `Constant` node).
pub(crate) struct Constant {
    pub(crate) shape: Vec<i64>,
    pub(crate) dtype: DataType,
    /// Little-endian element bytes.
    pub(crate) bytes: Vec<u8>,
    /// The materialised `arith.constant`, once an op needs it as a value.
    pub(crate) value: Option<MlirValue>,
}

pub(crate) enum Entry {
    Value { value: MlirValue, shape: Vec<i64>, dtype: DataType },
    Constant(Constant),
}

pub(crate) struct Importer<'c> {
    pub(crate) strata: &'c StrataContext,
    file: String,
    pub(crate) base_dir: Option<PathBuf>,
    pub(crate) values: BTreeMap<String, Entry>,
    resources: usize,
    /// Body nodes imported by unrolled Loops so far (bounded: nested loops multiply).
    pub(crate) unrolled_nodes: usize,
}

/// Imports ONNX model bytes into a verified module with one function, `@main`.
pub fn import<'c>(
    strata: &'c StrataContext,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<Module<'c>, FrontendError> {
    let file = options.file_name.clone();
    let model = ModelProto::decode(bytes)
        .map_err(|e| FrontendError::Malformed { file: file.clone(), message: e.to_string() })?;
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| FrontendError::Malformed { file: file.clone(), message: "the model has no graph".into() })?;
    crate::support::check_opsets(&model, &file)?;
    let mut unsupported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    crate::support::collect_unsupported(graph, "", &mut unsupported);
    if !unsupported.is_empty() {
        return Err(FrontendError::Unsupported { file, ops: unsupported });
    }
    let mut importer = Importer {
        strata,
        file: file.clone(),
        base_dir: options.base_dir.clone(),
        values: BTreeMap::new(),
        resources: 0,
        unrolled_nodes: 0,
    };
    let context = strata.mlir();
    for (name, tensor) in graph
        .initializer
        .iter()
        .map(|t| (t.name(), t))
        .chain(options.frozen_inputs.iter().map(|(n, t)| (n.as_str(), t)))
    {
        let constant =
            importer.constant(tensor).map_err(|message| FrontendError::Graph { file: file.clone(), message })?;
        importer.values.insert(name.to_owned(), Entry::Constant(constant));
    }
    if let Some(unknown) =
        options.frozen_inputs.keys().find(|name| !graph.input.iter().any(|i| i.name() == name.as_str()))
    {
        return Err(FrontendError::Graph {
            file,
            message: format!("cannot freeze '{unknown}': the graph has no input of that name"),
        });
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
                .map_err(|message| FrontendError::Graph { file: file.clone(), message })?,
        );
        argument_names.push((input.name().to_owned(), shape, dtype));
        input_names.push(input.name().to_owned());
    }
    let location = Location::new(context, &file, 0, 0);
    let block = Block::new(&argument_types.iter().map(|&t| (t, location)).collect::<Vec<_>>());
    for (index, (name, shape, dtype)) in argument_names.into_iter().enumerate() {
        let value: Value = block.argument(index).expect("one argument per input").into();
        importer.values.insert(name, Entry::Value { value: value.to_raw(), shape, dtype });
    }
    for (index, node) in graph.node.iter().enumerate() {
        importer.node(&block, node, index).map_err(|message| FrontendError::Node {
            file: file.clone(),
            index,
            name: node_name(node, index),
            op_type: node.op_type().to_owned(),
            message,
        })?;
    }
    let mut results = Vec::new();
    let mut result_types = Vec::new();
    for output in &graph.output {
        let value = importer.use_value(&block, output.name(), location).map_err(|message| FrontendError::Graph {
            file: file.clone(),
            message: format!("graph output '{}': {message}", output.name()),
        })?;
        result_types.push(unsafe { Value::from_raw(value) }.r#type());
        results.push(value);
    }
    let returned: Vec<Value> = results.iter().map(|&v| unsafe { Value::from_raw(v) }).collect();
    block.append_operation(melior::dialect::func::r#return(&returned, location));
    let region = Region::new();
    region.append_block(block);
    let function = melior::dialect::func::func(
        context,
        melior::ir::attribute::StringAttribute::new(context, "main"),
        TypeAttribute::new(FunctionType::new(context, &argument_types, &result_types).into()),
        region,
        &[
            (Identifier::new(context, "strata.input_names"), names_attribute(context, &input_names)),
            (
                Identifier::new(context, "strata.output_names"),
                names_attribute(context, &graph.output.iter().map(|o| o.name().to_owned()).collect::<Vec<_>>()),
            ),
        ],
        location,
    );
    let module = Module::new(location);
    module.body().append_operation(function);
    strata.verify(module.as_operation()).map_err(|diagnostics| FrontendError::Invalid {
        file,
        source: strata_ir::IrError::Verification { after: "import".into(), diagnostics },
    })?;
    Ok(module)
}

/// The ONNX names of the graph inputs or outputs, kept on the function for the runtime.
fn names_attribute<'c>(context: &'c melior::Context, names: &[String]) -> melior::ir::Attribute<'c> {
    let names: Vec<melior::ir::Attribute> =
        names.iter().map(|n| melior::ir::attribute::StringAttribute::new(context, n).into()).collect();
    melior::ir::attribute::ArrayAttribute::new(context, &names).into()
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
    let graph_error = |message: String| FrontendError::Graph { file: file.to_owned(), message };
    let tensor = match input.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(onnx::type_proto::Value::TensorType(tensor)) => tensor,
        _ => {
            return Err(graph_error(format!(
                "unsupported: input '{}' is not a tensor (sequence, map and optional inputs are not imported)",
                input.name()
            )))
        }
    };
    let dtype = DataType::try_from(tensor.elem_type())
        .map_err(|_| graph_error(format!("input '{}' has an unknown element type", input.name())))?;
    if let Some(shape) = options.input_shapes.get(input.name()) {
        shapes::numel(shape).map_err(|message| graph_error(format!("--input-shape {}: {message}", input.name())))?;
        return Ok((shape.clone(), dtype));
    }
    let dims = tensor.shape.as_ref().map(|s| s.dim.as_slice()).unwrap_or_default();
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
            shapes::numel(&shape).map_err(|message| graph_error(format!("input '{}': {message}", input.name())))?;
            Ok((shape, dtype))
        })
}

/// Input `k` of `node`, if given (ONNX writes an omitted optional input as "").
pub(crate) fn operand(node: &NodeProto, k: usize) -> Option<&str> {
    node.input.get(k).filter(|n| !n.is_empty()).map(String::as_str)
}

/// Input `k` of `node`, which the operator requires.
pub(crate) fn required(node: &NodeProto, k: usize) -> Result<&str, String> {
    operand(node, k).ok_or_else(|| format!("input #{k} is missing"))
}

pub(crate) fn attribute<'n>(node: &'n NodeProto, name: &str) -> Option<&'n AttributeProto> {
    node.attribute.iter().find(|a| a.name() == name)
}

pub(crate) fn ints(node: &NodeProto, name: &str) -> Option<Vec<i64>> {
    attribute(node, name).map(|a| a.ints.clone())
}

pub(crate) fn int(node: &NodeProto, name: &str, default: i64) -> i64 {
    attribute(node, name).map_or(default, |a| a.i())
}

impl Importer<'_> {
    /// Whether a Clip has a bound computed at run time or integer elements: then it is
    /// `max(x, min)` and `min(., max)` on tensors instead of `sg.clip` with float attributes.
    fn clip_needs_tensors(&self, node: &NodeProto) -> Result<bool, String> {
        let (_, dtype) = self.shape_of(required(node, 0)?)?;
        let float = matches!(dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16);
        Ok(!float || [1, 2].iter().any(|&k| operand(node, k).is_some_and(|name| self.folded(name).is_none())))
    }

    fn clip_with_tensors(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), String> {
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
                ));
            }
            let b = unsafe { Value::from_raw(self.use_value(block, name, location)?) };
            let x = unsafe { Value::from_raw(y) };
            let op = if k == 1 {
                sg::Max::build(context, location, x, b, ty)
            } else {
                sg::Min::build(context, location, x, b, ty)
            };
            let value: Value = block.append_operation(op).result(0).expect("one result").into();
            y = value.to_raw();
        }
        self.values.insert(node.output[0].clone(), Entry::Value { value: y, shape, dtype });
        Ok(())
    }

    /// The element type a Cast (attribute `to`) or CastLike (the second input's type) makes.
    pub(crate) fn cast_target(&self, node: &NodeProto) -> Result<DataType, String> {
        if node.op_type() == "CastLike" {
            return Ok(self.shape_of(required(node, 1)?)?.1);
        }
        DataType::try_from(int(node, "to", 0) as i32)
            .map_err(|_| "unsupported: Cast to a data type unknown to this importer".to_owned())
    }

    /// The integer values of a constant operand (shape arguments are folded at import).
    pub(crate) fn constant_ints(&self, name: &str) -> Result<Vec<i64>, String> {
        match (self.values.get(name), self.folded(name)) {
            (_, Some(c)) if matches!(c.dtype, DataType::Int64 | DataType::Int32) => c.ints(),
            (Some(_), _) => Err(format!(
                "unsupported: '{name}' must be a constant integer tensor (computed shapes are not folded yet)"
            )),
            (None, _) => Err(format!("'{name}' is not defined before its use")),
        }
    }

    /// The constant `name` (an initializer, a `Constant` node or a folded result), if it is one.
    pub(crate) fn folded(&self, name: &str) -> Option<Folded> {
        match self.values.get(name) {
            Some(Entry::Constant(c)) => Some(Folded { shape: c.shape.clone(), dtype: c.dtype, bytes: c.bytes.clone() }),
            _ => None,
        }
    }

    pub(crate) fn define_constant(&mut self, node: &NodeProto, folded: Folded) {
        let Folded { shape, dtype, bytes } = folded;
        self.values.insert(node.output[0].clone(), Entry::Constant(Constant { shape, dtype, bytes, value: None }));
    }

    pub(crate) fn shape_of(&self, name: &str) -> Result<(Vec<i64>, DataType), String> {
        match self.values.get(name) {
            Some(Entry::Value { shape, dtype, .. }) => Ok((shape.clone(), *dtype)),
            Some(Entry::Constant(c)) => Ok((c.shape.clone(), c.dtype)),
            None => Err(format!("operand '{name}' is not defined before its use")),
        }
    }

    /// The SSA value of `name`, materialising a constant as `arith.constant dense_resource`.
    pub(crate) fn use_value(&mut self, block: &Block, name: &str, location: Location) -> Result<MlirValue, String> {
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
                let length = constant.bytes.len();
                // Empty, one-element and boolean tensors are plain `dense<...>`: MLIR 22's LLVM
                // translation divides by zero on an empty dense_resource, and lowering a
                // rank-0 memref.global asks a dense_resource for elements it cannot iterate.
                let count: i64 = constant.shape.iter().product();
                // Booleans too: LLVM translation has no conversion for an i1 dense_resource.
                let attribute = if constant.dtype == DataType::Bool {
                    let flags: Vec<i32> = constant.bytes.iter().map(|&b| i32::from(b != 0)).collect();
                    unsafe {
                        Attribute::from_raw(mlir_sys::mlirDenseElementsAttrBoolGet(
                            ty.to_raw(),
                            flags.len() as isize,
                            flags.as_ptr(),
                        ))
                    }
                } else if count <= 1 {
                    unsafe {
                        Attribute::from_raw(mlir_sys::mlirDenseElementsAttrRawBufferGet(
                            ty.to_raw(),
                            length,
                            constant.bytes.as_ptr().cast(),
                        ))
                    }
                } else {
                    unsafe {
                        Attribute::from_raw(strata_ir::resource::dense_resource(
                            ty.to_raw(),
                            &resource,
                            &constant.bytes,
                        ))
                    }
                };
                let op = OperationBuilder::new("arith.constant", location)
                    .add_attributes(&[(Identifier::new(context, "value"), attribute)])
                    .add_results(&[ty])
                    .build()
                    .map_err(|e| e.to_string())?;
                let op = block.append_operation(op);
                let value: Value = op.result(0).expect("one result").into();
                constant.value = Some(value.to_raw());
                self.resources += 1;
                Ok(value.to_raw())
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
    ) -> Result<MlirValue, String> {
        let name = format!("{label}.{}", self.values.len());
        self.values.insert(name.clone(), Entry::Constant(Constant { shape, dtype, bytes, value: None }));
        self.use_value(block, &name, location)
    }

    pub(crate) fn define(
        &mut self,
        node: &NodeProto,
        op: melior::ir::operation::OperationRef<'_, '_>,
        shape: Vec<i64>,
        dtype: DataType,
    ) {
        let value: Value = op.result(0).expect("one result").into();
        self.values.insert(node.output[0].clone(), Entry::Value { value: value.to_raw(), shape, dtype });
    }

    /// `to` names the same value (or constant) as `from`.
    pub(crate) fn alias(&mut self, from: &str, to: String) -> Result<(), String> {
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

    /// Imports one node (`index`: its position in the model's graph, for its location).
    pub(crate) fn node(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), String> {
        let context = self.strata.mlir();
        let location = Location::name(context, &node_name(node, index), Location::new(context, &self.file, index, 0));
        if node.output.is_empty() {
            return Err("the node has no output".into());
        }
        if self.fold(node)? {
            return Ok(());
        }
        match node.op_type() {
            "Constant" => {
                let constant = match (attribute(node, "value").and_then(|a| a.t.as_ref()), node.attribute.first()) {
                    (Some(tensor), _) => self.constant(tensor)?,
                    (None, Some(a)) if a.name() == "value_float" => Constant { shape: vec![], dtype: DataType::Float, bytes: a.f().to_le_bytes().to_vec(), value: None },
                    (None, Some(a)) if a.name() == "value_floats" => {
                        Constant { shape: vec![a.floats.len() as i64], dtype: DataType::Float, bytes: a.floats.iter().flat_map(|f| f.to_le_bytes()).collect(), value: None }
                    }
                    (None, Some(a)) if a.name() == "value_int" => Constant { shape: vec![], dtype: DataType::Int64, bytes: a.i().to_le_bytes().to_vec(), value: None },
                    (None, Some(a)) if a.name() == "value_ints" => {
                        Constant { shape: vec![a.ints.len() as i64], dtype: DataType::Int64, bytes: a.ints.iter().flat_map(|i| i.to_le_bytes()).collect(), value: None }
                    }
                    _ => return Err("unsupported: Constant without a value, value_float(s) or value_int(s) attribute (strings and sparse tensors)".into()),
                };
                self.values.insert(node.output[0].clone(), Entry::Constant(constant));
            }
            "Identity" | "Dropout" => {
                // Dropout is the identity at inference, and in training mode with ratio 0 (the
                // mask keeps everything). Otherwise training mode draws a random mask.
                if let Some(mode) = node.input.get(2).filter(|m| node.op_type() == "Dropout" && !m.is_empty()) {
                    let training = self.folded(mode).map(|c| c.bytes.iter().any(|&b| b != 0));
                    let ratio = match operand(node, 1) {
                        Some(name) => self.folded(name).map(|r| r.scalar("the dropout ratio")).transpose()?,
                        None => Some(0.5),
                    };
                    if training != Some(false) && ratio != Some(0.0) {
                        return Err("unsupported: Dropout in training mode with a ratio other than a constant 0 (a random mask); training_mode = false, or ratio 0, is the identity".into());
                    }
                }
                // The mask keeps everything: a constant of `true`s.
                if let Some(mask) = node.output.get(1).filter(|m| node.op_type() == "Dropout" && !m.is_empty()) {
                    let (shape, _) = self.shape_of(required(node, 0)?)?;
                    let count = shapes::numel(&shape)? as usize;
                    self.values.insert(
                        mask.clone(),
                        Entry::Constant(Constant { shape, dtype: DataType::Bool, bytes: vec![1; count], value: None }),
                    );
                }
                self.alias(required(node, 0)?, node.output[0].clone())?;
            }
            "Relu" | "Exp" | "Neg" | "Abs" | "Reciprocal" | "Sqrt" | "Log" | "Erf" | "Tanh" | "Sigmoid" | "Ceil"
            | "Floor" => {
                let (shape, dtype) = self.shape_of(required(node, 0)?)?;
                let x = unsafe { Value::from_raw(self.use_value(block, required(node, 0)?, location)?) };
                let ty = tensor_type(context, &shape, dtype)?;
                let op = match node.op_type() {
                    "Relu" => sg::Relu::build(context, location, x, ty),
                    "Exp" => sg::Exp::build(context, location, x, ty),
                    "Neg" => sg::Neg::build(context, location, x, ty),
                    "Abs" => sg::Abs::build(context, location, x, ty),
                    "Reciprocal" => sg::Reciprocal::build(context, location, x, ty),
                    "Sqrt" => sg::Sqrt::build(context, location, x, ty),
                    "Log" => sg::Log::build(context, location, x, ty),
                    "Erf" => sg::Erf::build(context, location, x, ty),
                    "Tanh" => sg::Tanh::build(context, location, x, ty),
                    "Ceil" => sg::Ceil::build(context, location, x, ty),
                    "Floor" => sg::Floor::build(context, location, x, ty),
                    _ => sg::Sigmoid::build(context, location, x, ty),
                };
                let op = block.append_operation(op);
                self.define(node, op, shape, dtype);
            }
            // Binary with broadcasting; N-ary Max, Min and Sum become a left-to-right chain of
            // binary ops (the documented decomposition).
            "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Max" | "Min" | "Sum" => {
                let names: Vec<&str> = node.input.iter().map(String::as_str).filter(|n| !n.is_empty()).collect();
                let binary = matches!(node.op_type(), "Add" | "Sub" | "Mul" | "Div" | "Pow");
                if names.is_empty() || (binary && names.len() != 2) {
                    return Err(format!(
                        "expected {} inputs, got {}",
                        if binary { "2" } else { "at least 1" },
                        names.len()
                    ));
                }
                let (mut shape, dtype) = self.shape_of(names[0])?;
                let mut acc = self.use_value(block, names[0], location)?;
                // Pow's exponent may have another type (ONNX: the result has the base's type):
                // a float base takes the exponent cast to it; an integer base is raised in the
                // exponent's float type and cast back (truncating, as ONNX's reference does).
                let mut result_cast = None;
                for name in &names[1..] {
                    let (other, other_type) = self.shape_of(name)?;
                    if other_type != dtype && node.op_type() != "Pow" {
                        return Err(format!(
                            "operand types differ: {} and {}",
                            dtype.as_str_name(),
                            other_type.as_str_name()
                        ));
                    }
                    let mut rhs_raw = self.use_value(block, name, location)?;
                    let mut compute = dtype;
                    if other_type != dtype {
                        let float = |t: DataType| {
                            matches!(t, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16)
                        };
                        if float(dtype) {
                            rhs_raw = self.cast_value(block, rhs_raw, &other, dtype, location)?;
                        } else if float(other_type) {
                            acc = self.cast_value(block, acc, &shape, other_type, location)?;
                            compute = other_type;
                            result_cast = Some(dtype);
                        } else {
                            return Err(format!("unsupported: Pow with integer exponent type {} differing from the integer base type {}", other_type.as_str_name(), dtype.as_str_name()));
                        }
                    }
                    shape = sg::verify::broadcast(&shape, &other)
                        .ok_or_else(|| format!("shapes {shape:?} and {other:?} do not broadcast"))?;
                    let lhs = unsafe { Value::from_raw(acc) };
                    let rhs = unsafe { Value::from_raw(rhs_raw) };
                    let dtype = compute;
                    let ty = tensor_type(context, &shape, dtype)?;
                    let op = match node.op_type() {
                        "Add" | "Sum" => sg::Add::build(context, location, lhs, rhs, ty),
                        "Sub" => sg::Sub::build(context, location, lhs, rhs, ty),
                        "Mul" => sg::Mul::build(context, location, lhs, rhs, ty),
                        "Div" => sg::Div::build(context, location, lhs, rhs, ty),
                        "Pow" => sg::Pow::build(context, location, lhs, rhs, ty),
                        "Max" => sg::Max::build(context, location, lhs, rhs, ty),
                        _ => sg::Min::build(context, location, lhs, rhs, ty),
                    };
                    let value: Value = block.append_operation(op).result(0).expect("one result").into();
                    acc = value.to_raw();
                }
                if let Some(back) = result_cast {
                    acc = self.cast_value(block, acc, &shape, back, location)?;
                }
                self.values.insert(node.output[0].clone(), Entry::Value { value: acc, shape, dtype });
            }
            "MatMul" => {
                let ((a, dtype), (b, _)) = (self.shape_of(required(node, 0)?)?, self.shape_of(required(node, 1)?)?);
                if a.is_empty() || b.is_empty() {
                    return Err(format!("MatMul operands must have at least one dimension (shapes {a:?} and {b:?})"));
                }
                // NumPy semantics for 1-D operands: a vector on the left is a row [1, K], on the
                // right a column [K, 1]; the added dimension is dropped from the result.
                let mut lhs_raw = self.use_value(block, required(node, 0)?, location)?;
                let mut rhs_raw = self.use_value(block, required(node, 1)?, location)?;
                let (a2, b2) = (
                    if a.len() == 1 { vec![1, a[0]] } else { a.clone() },
                    if b.len() == 1 { vec![b[0], 1] } else { b.clone() },
                );
                if a.len() == 1 {
                    lhs_raw = self.reshape_value(block, lhs_raw, &a2, dtype, location)?;
                }
                if b.len() == 1 {
                    rhs_raw = self.reshape_value(block, rhs_raw, &b2, dtype, location)?;
                }
                let (a, b) = (a2, b2);
                if a[a.len() - 1] != b[b.len() - 2] {
                    return Err(format!("contraction sizes differ: {a:?} x {b:?}"));
                }
                let mut shape = sg::verify::broadcast(&a[..a.len() - 2], &b[..b.len() - 2])
                    .ok_or_else(|| format!("batch dims of {a:?} and {b:?} do not broadcast"))?;
                shape.extend([a[a.len() - 2], b[b.len() - 1]]);
                let lhs = unsafe { Value::from_raw(lhs_raw) };
                let rhs = unsafe { Value::from_raw(rhs_raw) };
                let op = block.append_operation(sg::Matmul::build(
                    context,
                    location,
                    lhs,
                    rhs,
                    tensor_type(context, &shape, dtype)?,
                ));
                let (vector_lhs, vector_rhs) =
                    (self.shape_of(required(node, 0)?)?.0.len() == 1, self.shape_of(required(node, 1)?)?.0.len() == 1);
                if vector_lhs || vector_rhs {
                    let product: Value = op.result(0).expect("one result").into();
                    let mut out = shape.clone();
                    if vector_rhs {
                        out.pop();
                    }
                    if vector_lhs {
                        out.remove(out.len() - 1 - usize::from(!vector_rhs));
                    }
                    let value = self.reshape_value(block, product.to_raw(), &out, dtype, location)?;
                    self.values.insert(node.output[0].clone(), Entry::Value { value, shape: out, dtype });
                } else {
                    self.define(node, op, shape, dtype);
                }
            }
            "Conv" => self.conv(block, node, location)?,
            "ConvTranspose" => self.conv_transpose(block, node, location)?,
            "Concat" => self.concat_values(block, node, location)?,
            "Equal" | "Less" | "Greater" | "Not" | "Where" => self.logic(block, node, location)?,
            "Expand" | "Tile" | "Pad" => self.replicate(block, node, location)?,
            "InstanceNormalization" => self.instance_norm(block, node, location)?,
            "Split" => self.split(block, node, location)?,
            "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL2" => {
                self.reduce(block, node, location)?
            }
            "Cast" | "CastLike" => {
                let (shape, _) = self.shape_of(required(node, 0)?)?;
                let to = self.cast_target(node)?;
                let x = unsafe { Value::from_raw(self.use_value(block, required(node, 0)?, location)?) };
                let float8 = matches!(
                    to,
                    DataType::Float8e4m3fn
                        | DataType::Float8e4m3fnuz
                        | DataType::Float8e5m2
                        | DataType::Float8e5m2fnuz
                        | DataType::Float8e8m0
                );
                // Out-of-range float8 values become infinity / NaN with saturate = 0 (absent: 1).
                let saturate = (float8 && int(node, "saturate", 1) == 0).then_some(0);
                // How a value between two powers of two rounds to float8 E8M0 (0 up, the
                // default and absent; 1 down; 2 nearest).
                let round_mode = if to == DataType::Float8e8m0 {
                    match attribute(node, "round_mode").map(|a| String::from_utf8_lossy(a.s()).into_owned()).as_deref()
                    {
                        None | Some("up") => None,
                        Some("down") => Some(1),
                        Some("nearest") => Some(2),
                        Some(other) => return Err(format!("round_mode '{other}' is not one of up, down, nearest")),
                    }
                } else {
                    None
                };
                let cast =
                    sg::Cast::build(context, location, x, saturate, round_mode, tensor_type(context, &shape, to)?);
                let op = block.append_operation(cast);
                self.define(node, op, shape, to);
            }
            "Gather" => {
                let ((data, dtype), (indices, index_type)) =
                    (self.shape_of(required(node, 0)?)?, self.shape_of(required(node, 1)?)?);
                if !matches!(index_type, DataType::Int64 | DataType::Int32) {
                    return Err(format!("indices must be int64 or int32, got {}", index_type.as_str_name()));
                }
                let a = shapes::axis(int(node, "axis", 0), data.len() as i64)?;
                let axis = a as i64;
                let mut out = data[..a].to_vec();
                out.extend(&indices);
                out.extend(&data[a + 1..]);
                let d = unsafe { Value::from_raw(self.use_value(block, required(node, 0)?, location)?) };
                let i = unsafe { Value::from_raw(self.use_value(block, required(node, 1)?, location)?) };
                let op = block.append_operation(sg::Gather::build(
                    context,
                    location,
                    d,
                    i,
                    axis,
                    tensor_type(context, &out, dtype)?,
                ));
                self.define(node, op, out, dtype);
            }
            "MaxPool" | "AveragePool" => self.pool(block, node, location)?,
            "Loop" => self.unrolled_loop(block, node, index)?,
            "Resize" => self.resize(block, node, location)?,
            "BatchNormalization" => self.batch_norm(block, node, location)?,
            "Clip" if self.clip_needs_tensors(node)? => self.clip_with_tensors(block, node, location)?,
            "Clip" | "LeakyRelu" | "HardSigmoid" | "HardSwish" | "Gelu" | "Softmax" | "LogSoftmax"
            | "GlobalAveragePool" | "GlobalMaxPool" => {
                let (shape, dtype) = self.shape_of(required(node, 0)?)?;
                if !matches!(dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16) {
                    return Err(format!("unsupported: {} of {} tensors", node.op_type(), dtype.as_str_name()));
                }
                let rank = shape.len() as i64;
                let axis = || shapes::axis(int(node, "axis", -1), rank).map(|a| a as i64);
                let float = |name: &str, default: f32| attribute(node, name).map_or(default, |a| a.f()) as f64;
                let mut out = shape.clone();
                if node.op_type().starts_with("Global") {
                    if shape.len() < 3 {
                        return Err(format!("expects an N x C x spatial input, got {shape:?}"));
                    }
                    out[2..].iter_mut().for_each(|d| *d = 1);
                }
                let bound = |k: usize, this: &Self| -> Result<Option<f64>, String> {
                    match operand(node, k) {
                        Some(name) => Ok(Some(
                            this.folded(name)
                                .ok_or_else(|| format!("unsupported: Clip bound '{name}' computed at run time"))?
                                .scalar("a Clip bound")?,
                        )),
                        None => Ok(None),
                    }
                };
                let x = unsafe { Value::from_raw(self.use_value(block, required(node, 0)?, location)?) };
                let ty = tensor_type(context, &out, dtype)?;
                let op = match node.op_type() {
                    "Clip" => {
                        let min = bound(1, self)?.unwrap_or_else(|| float("min", f32::NEG_INFINITY));
                        let max = bound(2, self)?.unwrap_or_else(|| float("max", f32::INFINITY));
                        sg::Clip::build(context, location, x, min, max, ty)
                    }
                    "LeakyRelu" => sg::LeakyRelu::build(context, location, x, float("alpha", 0.01), ty),
                    "HardSigmoid" => {
                        sg::HardSigmoid::build(context, location, x, float("alpha", 0.2), float("beta", 0.5), ty)
                    }
                    "HardSwish" => sg::HardSwish::build(context, location, x, ty),
                    "Gelu" => {
                        let approximate =
                            attribute(node, "approximate").map(|a| String::from_utf8_lossy(a.s()).into_owned());
                        let tanh = match approximate.as_deref() {
                            None | Some("none") => 0,
                            Some("tanh") => 1,
                            Some(other) => return Err(format!("approximate '{other}' is not 'none' or 'tanh'")),
                        };
                        sg::Gelu::build(context, location, x, tanh, ty)
                    }
                    "Softmax" => sg::Softmax::build(context, location, x, axis()?, ty),
                    "LogSoftmax" => sg::LogSoftmax::build(context, location, x, axis()?, ty),
                    "GlobalAveragePool" => sg::GlobalAveragePool::build(context, location, x, ty),
                    _ => sg::GlobalMaxPool::build(context, location, x, ty),
                };
                let op = block.append_operation(op);
                self.define(node, op, out, dtype);
            }
            "LayerNormalization" => {
                let (shape, dtype) = self.shape_of(required(node, 0)?)?;
                let axis = shapes::axis(int(node, "axis", -1), shape.len() as i64)? as i64;
                let normalised = &shape[axis as usize..];
                for k in [1, 2] {
                    if let Some(name) = operand(node, k) {
                        let (s, _) = self.shape_of(name)?;
                        if s != normalised {
                            return Err(format!(
                                "unsupported: {} shape {s:?} other than the normalised shape {normalised:?}",
                                if k == 1 { "scale" } else { "bias" }
                            ));
                        }
                    }
                }
                let epsilon = attribute(node, "epsilon").map_or(1e-5, |a| a.f()) as f64;
                let x = unsafe { Value::from_raw(self.use_value(block, required(node, 0)?, location)?) };
                let scale = unsafe { Value::from_raw(self.use_value(block, required(node, 1)?, location)?) };
                let bias = match operand(node, 2) {
                    Some(name) => Some(unsafe { Value::from_raw(self.use_value(block, name, location)?) }),
                    None => None,
                };
                let ty = tensor_type(context, &shape, dtype)?;
                let op =
                    block.append_operation(sg::LayerNorm::build(context, location, x, scale, bias, axis, epsilon, ty));
                self.define(node, op, shape.clone(), dtype);
                self.layer_norm_statistics(block, node, (x, &shape, dtype), (axis as usize, epsilon as f32), location)?;
            }
            "Gemm" => self.gemm(block, node, location)?,
            // Squeeze and Unsqueeze are reshapes (on a constant, folded: same bytes, new shape).
            "Squeeze" | "Unsqueeze" => {
                let (shape, dtype) = self.shape_of(required(node, 0)?)?;
                let axes = match operand(node, 1) {
                    Some(name) => Some(self.constant_ints(name)?),
                    None => ints(node, "axes"),
                };
                let out = if node.op_type() == "Squeeze" {
                    shapes::squeeze(&shape, axes.as_deref())?
                } else {
                    shapes::unsqueeze(&shape, &axes.ok_or("Unsqueeze needs axes")?)?
                };
                self.reshape_to(block, node, required(node, 0)?, out, dtype, location)?;
            }
            "Transpose" => {
                let (shape, dtype) = self.shape_of(required(node, 0)?)?;
                let perm = ints(node, "perm").unwrap_or_else(|| (0..shape.len() as i64).rev().collect());
                let mut seen = vec![false; shape.len()];
                if perm.len() != shape.len()
                    || perm
                        .iter()
                        .any(|&p| p < 0 || p as usize >= shape.len() || std::mem::replace(&mut seen[p as usize], true))
                {
                    return Err(format!("perm {perm:?} is not a permutation of the {} dimensions", shape.len()));
                }
                let out: Vec<i64> = perm.iter().map(|&p| shape[p as usize]).collect();
                let x = unsafe { Value::from_raw(self.use_value(block, required(node, 0)?, location)?) };
                let op = block.append_operation(sg::Transpose::build(
                    context,
                    location,
                    x,
                    &perm,
                    tensor_type(context, &out, dtype)?,
                ));
                self.define(node, op, out, dtype);
            }
            "Reshape" | "Flatten" => {
                let (shape, dtype) = self.shape_of(required(node, 0)?)?;
                let out = if node.op_type() == "Reshape" {
                    shapes::reshape(&shape, &self.constant_ints(required(node, 1)?)?, int(node, "allowzero", 0) != 0)?
                } else {
                    let rank = shape.len() as i64;
                    let axis = int(node, "axis", 1);
                    let axis = if axis < 0 { axis + rank } else { axis };
                    if !(0..=rank).contains(&axis) {
                        return Err(format!("axis {axis} is out of range for rank {rank}"));
                    }
                    let (head, tail) = shape.split_at(axis as usize);
                    vec![shapes::numel(head)?, shapes::numel(tail)?]
                };
                self.reshape_to(block, node, required(node, 0)?, out, dtype, location)?;
            }
            "Slice" => {
                let (shape, dtype) = self.shape_of(required(node, 0)?)?;
                let starts = self.constant_ints(required(node, 1)?)?;
                let ends = self.constant_ints(required(node, 2)?)?;
                let axes = operand(node, 3).map(|n| self.constant_ints(n)).transpose()?;
                let steps = operand(node, 4).map(|n| self.constant_ints(n)).transpose()?;
                let (s, e, st) = shapes::slice(&shape, &starts, &ends, axes.as_deref(), steps.as_deref())?;
                let out: Vec<i64> = (0..shape.len()).map(|d| sg::verify::slice_len(s[d], e[d], st[d])).collect();
                if let Some(data) = self.folded(required(node, 0)?) {
                    self.define_constant(node, crate::fold::slice(&data, &s, &e, &st)?);
                    return Ok(());
                }
                let x = unsafe { Value::from_raw(self.use_value(block, required(node, 0)?, location)?) };
                let op = block.append_operation(sg::Slice::build(
                    context,
                    location,
                    x,
                    &s,
                    &e,
                    &st,
                    tensor_type(context, &out, dtype)?,
                ));
                self.define(node, op, out, dtype);
            }
            other => return Err(format!("operator {other} is not supported")),
        }
        Ok(())
    }

    /// `value` cast to `to` (an `sg.cast`).
    fn cast_value(
        &mut self,
        block: &Block,
        value: MlirValue,
        shape: &[i64],
        to: DataType,
        location: Location,
    ) -> Result<MlirValue, String> {
        let context = self.strata.mlir();
        let x = unsafe { Value::from_raw(value) };
        let op =
            block.append_operation(sg::Cast::build(context, location, x, None, None, tensor_type(context, shape, to)?));
        let result: Value = op.result(0).expect("one result").into();
        Ok(result.to_raw())
    }

    /// `value` reshaped to `shape` (an `sg.reshape`).
    fn reshape_value(
        &mut self,
        block: &Block,
        value: MlirValue,
        shape: &[i64],
        dtype: DataType,
        location: Location,
    ) -> Result<MlirValue, String> {
        let context = self.strata.mlir();
        let x = unsafe { Value::from_raw(value) };
        let op = block.append_operation(sg::Reshape::build(context, location, x, tensor_type(context, shape, dtype)?));
        let result: Value = op.result(0).expect("one result").into();
        Ok(result.to_raw())
    }

    /// `input` reshaped to `out`: a constant is folded (same bytes, new shape), a value gets
    /// an `sg.reshape`.
    fn reshape_to(
        &mut self,
        block: &Block,
        node: &NodeProto,
        input: &str,
        out: Vec<i64>,
        dtype: DataType,
        location: Location,
    ) -> Result<(), String> {
        if let Some(mut folded) = self.folded(input) {
            folded.shape = out;
            self.define_constant(node, folded);
            return Ok(());
        }
        let context = self.strata.mlir();
        let x = unsafe { Value::from_raw(self.use_value(block, input, location)?) };
        let op = block.append_operation(sg::Reshape::build(context, location, x, tensor_type(context, &out, dtype)?));
        self.define(node, op, out, dtype);
        Ok(())
    }
}
