//! Operators imported as small ONNX subgraphs of operators the importer already has, the way
//! ONNX defines many operators by a function body: an [`Expansion`] builds the nodes and imports
//! each through [`Importer::node`] at once (so constant inputs fold, and every node gets the
//! original node's location), then binds the original outputs.

use crate::fold::Folded;
use crate::import::{attribute, int, node_name, required, Importer};
use crate::onnx::{
    attribute_proto::AttributeType, tensor_proto::DataType, AttributeProto, GraphProto, NodeProto, ValueInfoProto,
};
use melior::ir::Block;
use strata_ir::Error;

/// An attribute for an expansion node.
pub(crate) fn attr_i(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(value),
        ..Default::default()
    }
}

pub(crate) fn attr_ints(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: values.to_vec(),
        ..Default::default()
    }
}

pub(crate) fn attr_floats(name: &str, values: &[f32]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Floats as i32),
        floats: values.to_vec(),
        ..Default::default()
    }
}

pub(crate) fn attr_s(name: &str, value: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(value.as_bytes().to_vec()),
        ..Default::default()
    }
}

/// A graph attribute `name` holding `nodes` with these inputs and outputs (names only: a
/// `Scan` body the importer types from the values it is given).
pub(crate) fn attr_graph(
    name: &str,
    graph: String,
    nodes: Vec<NodeProto>,
    inputs: &[&String],
    outputs: &[&String],
) -> AttributeProto {
    let value_info = |name: &&String| ValueInfoProto { name: Some((*name).clone()), ..Default::default() };
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(GraphProto {
            name: Some(graph),
            node: nodes,
            input: inputs.iter().map(value_info).collect(),
            output: outputs.iter().map(value_info).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The default-domain opset whose definitions the nodes of an expansion follow, at least:
/// inputs rather than attributes for Slice's starts and ends, Split's sizes, the reductions'
/// axes (ReduceMax and ReduceMin since 18), Softmax along one axis.
pub(crate) const EXPANSION_OPSET: i64 = 18;

/// Builds and imports the nodes that stand for one node.
pub(crate) struct Expansion<'b> {
    block: &'b Block<'b>,
    /// The expanded node's name and index: the prefix of every new value and node.
    prefix: String,
    index: usize,
    count: usize,
}

impl<'b> Expansion<'b> {
    pub(crate) fn new(block: &'b Block<'b>, node: &NodeProto, index: usize) -> Expansion<'b> {
        Expansion { block, prefix: node_name(node, index), index, count: 0 }
    }

    /// An expansion whose values are named after `prefix` (distinct from the node's own).
    pub(crate) fn named(block: &'b Block<'b>, prefix: String, index: usize) -> Expansion<'b> {
        Expansion { block, prefix, index, count: 0 }
    }

    fn fresh(&mut self, what: &str) -> String {
        self.count += 1;
        format!("{}::{what}{}", self.prefix, self.count)
    }

    /// Imports `op_type(inputs)` with `attributes`; its first output.
    pub(crate) fn op(
        &mut self,
        importer: &mut Importer,
        op_type: &str,
        inputs: &[&str],
        attributes: Vec<AttributeProto>,
    ) -> Result<String, Error> {
        Ok(self.op_n(importer, op_type, inputs, attributes, 1)?.remove(0))
    }

    /// Imports `op_type(inputs)` with `attributes` and `outputs` outputs.
    pub(crate) fn op_n(
        &mut self,
        importer: &mut Importer,
        op_type: &str,
        inputs: &[&str],
        attributes: Vec<AttributeProto>,
        outputs: usize,
    ) -> Result<Vec<String>, Error> {
        let name = self.fresh(op_type);
        let output: Vec<String> = (0..outputs).map(|k| format!("{name}:{k}")).collect();
        let node = NodeProto {
            op_type: Some(op_type.into()),
            name: Some(name),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: output.clone(),
            attribute: attributes,
            ..Default::default()
        };
        self.import(importer, &node)?;
        Ok(output)
    }

    /// Imports `node`, built by the expansion (any domain; its outputs named uniquely).
    pub(crate) fn import(&mut self, importer: &mut Importer, node: &NodeProto) -> Result<(), Error> {
        // The nodes an expansion writes take their inputs as today's definitions do (Slice's
        // starts, a reduction's axes as inputs): in an older model they are still imported so,
        // not upgraded from the model's opset (an opset-9 LightGBM classifier's Slice).
        let opset = importer.opset;
        importer.opset = opset.max(EXPANSION_OPSET);
        importer.expanding += 1;
        let imported = importer.node(self.block, node, self.index);
        importer.expanding -= 1;
        importer.opset = opset;
        imported
    }

    /// A fresh value name for a node the expansion builds itself (see [`Expansion::import`]).
    pub(crate) fn fresh_name(&mut self, what: &str) -> String {
        self.fresh(what)
    }

    /// A new constant.
    pub(crate) fn constant(&mut self, importer: &mut Importer, value: Folded) -> Result<String, Error> {
        let name = self.fresh("const");
        importer.insert_computed(name.clone(), value)?;
        Ok(name)
    }

    /// A new constant 1-D int64 tensor: a shape, axes or positions list, as long as a rank,
    /// so outside the budget of computed constants.
    pub(crate) fn ints(&mut self, importer: &mut Importer, values: &[i64]) -> String {
        let name = self.fresh("const");
        importer.define_shape_list(&name, values);
        name
    }

    /// A new rank-0 constant of `dtype`.
    pub(crate) fn scalar(&mut self, importer: &mut Importer, dtype: DataType, value: f64) -> Result<String, Error> {
        self.constant(importer, Folded::scalar_of(dtype, value)?)
    }
}

impl Importer<'_> {
    /// `LRN`: `x / (bias + alpha / size * sum of x^2 over `size` neighbouring channels)^beta`.
    /// The channel window sum is an average pool (zero padding counted) over a channel-major
    /// view of `x^2`.
    pub(crate) fn lrn(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        if shape.len() < 3 {
            return Err(format!("LRN expects an N x C x spatial input, got {shape:?}").into());
        }
        let size = int(node, "size", 0);
        if size < 1 {
            return Err("LRN needs a positive size".into());
        }
        let float = |name: &str, default: f32| attribute(node, name).map_or(default, |a| a.f());
        let (alpha, beta, bias) = (float("alpha", 1e-4), float("beta", 0.75), float("bias", 1.0));
        let mut e = Expansion::new(block, node, index);
        let square = e.op(self, "Mul", &[x, x], vec![])?;
        let (n, c) = (shape[0], shape[1]);
        let rest = crate::shapes::numel(&shape[2..])?;
        let column = e.ints(self, &[n, 1, c, rest]);
        let column = e.op(self, "Reshape", &[&square, &column], vec![])?;
        let (low, high) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
        let average = e.op(
            self,
            "AveragePool",
            &[&column],
            vec![
                attr_ints("kernel_shape", &[size, 1]),
                attr_ints("pads", &[low, 0, high, 0]),
                attr_i("count_include_pad", 1),
            ],
        )?;
        let back = e.ints(self, &shape);
        let average = e.op(self, "Reshape", &[&average, &back], vec![])?;
        let alpha = e.scalar(self, dtype, alpha as f64)?;
        let scaled = e.op(self, "Mul", &[&average, &alpha], vec![])?;
        let bias = e.scalar(self, dtype, bias as f64)?;
        let shifted = e.op(self, "Add", &[&scaled, &bias], vec![])?;
        let beta = e.scalar(self, dtype, beta as f64)?;
        let denominator = e.op(self, "Pow", &[&shifted, &beta], vec![])?;
        let y = e.op(self, "Div", &[x, &denominator], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `ConstantOfShape` too large to fold (its filled value would be materialised at compile
    /// time): a broadcast of the one value, filled at run time.
    pub(crate) fn large_constant_of_shape(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
    ) -> Result<(), Error> {
        let dims = self.constant_ints(required(node, 0)?)?;
        let value = match attribute(node, "value").and_then(|a| a.t.as_ref()) {
            Some(t) => {
                let c = self.constant(t)?;
                Folded { shape: vec![], dtype: c.dtype, bytes: c.bytes }
            }
            None => Folded::scalar_of(DataType::Float, 0.0)?,
        };
        if value.bytes.len() != crate::fold::width(value.dtype) {
            return Err("the value of ConstantOfShape must hold one element".into());
        }
        let mut e = Expansion::new(block, node, index);
        let one = e.constant(self, value)?;
        let shape = e.ints(self, &dims);
        let y = e.op(self, "Expand", &[&one, &shape], vec![])?;
        self.alias(&y, node.output[0].clone())
    }
}
