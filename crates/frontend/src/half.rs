//! Half-precision models computed in f32 (`ImportOptions::half_in_f32`).
//!
//! A model exported in f16 (weights and activations) runs its ops on half-precision
//! values, which the host's vectorised schedules (register-blocked convolutions, tiled
//! matmuls, the depthwise and elementwise vectorisers) do not take: each op was a loop nest
//! converting every element at load and store, an f16 MobileNetV2 16x slower than its f32
//! twin. ONNX Runtime's CPU provider runs the nodes it has no f16 kernel for in f32 between
//! casts it inserts (its `InsertCastTransformer`); this module does so for the whole graph.
//!
//! Before the import, the graph is rewritten so that every value it computes is f32: each
//! half-precision graph input is cast to f32 where it enters, each half-precision
//! initializer and `Constant` through a cast (folded at import), each `Cast` to a half type
//! keeps its rounding and is cast back to f32, `ConstantOfShape` of a half value likewise,
//! ops that make values of a `dtype` attribute (`EyeLike`, the random generators) make f32, a
//! `CastLike` to a value known to be f16 (declared, or made so as above) rounds as a `Cast`,
//! and each half-precision graph output is cast back from f32 at the end; subgraphs (`If`,
//! `Loop`, `Scan` bodies) and `value_info` follow. The model's interface (its inputs' and
//! outputs' element types) is unchanged. The results are those of the f32 computation
//! rounded once at the outputs, not after every op: within the rounding of the outputs of the
//! reference's per-op roundings, usually closer to the exact values.
//!
//! bf16 is not widened whole (see [`is_half`]): only its products with bf16 weights and its
//! one-step elementwise ops run in f32 between casts ([`bf16_products`]), which keeps every
//! op's rounding.
//!
//! What is left alone: a graph that uses f16 in a way the rewrite does not model
//! (a sparse initializer, a sequence or optional of half tensors, a half tensor attribute of
//! another op, a graph output that is an input or initializer itself, a default-domain opset
//! below 6) is imported as it is; a `CastLike` to a value whose f16 type only inference would
//! tell (no `value_info`) casts to f32, without the rounding.

use crate::import::subgraphs;
use crate::onnx::attribute_proto::AttributeType;
use crate::onnx::tensor_proto::DataType;
use crate::onnx::{type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, TypeProto};
use std::collections::BTreeSet;

const F16: i32 = DataType::Float16 as i32;
const BF16: i32 = DataType::Bfloat16 as i32;

/// The element type widened: f16. bf16 is left alone: with 8 bits of mantissa, ONNX's bf16
/// node tests (Attention at rtol 1e-3, an eighth of a bf16 unit) pass only when every op rounds
/// as the reference does, and 10 of them failed computed in f32 (f16's gained 7).
fn is_half(element: i32) -> bool {
    element == F16
}

/// The element type of a tensor type, if it is one.
fn tensor_element(ty: Option<&TypeProto>) -> Option<i32> {
    match ty?.value.as_ref()? {
        type_proto::Value::TensorType(tensor) => Some(tensor.elem_type()),
        _ => None,
    }
}

/// Whether a type holds tensors of `element` somewhere inside (in sequences, maps, optionals).
fn holds(ty: Option<&TypeProto>, element: i32) -> bool {
    let Some(value) = ty.and_then(|t| t.value.as_ref()) else { return false };
    match value {
        type_proto::Value::TensorType(tensor) => tensor.elem_type() == element,
        type_proto::Value::SequenceType(sequence) => holds(sequence.elem_type.as_deref(), element),
        type_proto::Value::OptionalType(optional) => holds(optional.elem_type.as_deref(), element),
        type_proto::Value::MapType(map) => holds(map.value_type.as_deref(), element),
        type_proto::Value::SparseTensorType(sparse) => sparse.elem_type() == element,
        type_proto::Value::OpaqueType(_) => false,
    }
}

/// Whether `node` is a `Cast` to `element`.
fn casts_to(node: &NodeProto, element: i32) -> bool {
    node.op_type() == "Cast" && node.attribute.iter().any(|a| a.name() == "to" && a.i == Some(i64::from(element)))
}

/// Sets a tensor type's half element type to f32, inside sequences and optionals too (a
/// subgraph's or `value_info`'s sequence of what is now computed in f32).
fn widen_type(ty: Option<&mut TypeProto>) {
    match ty.and_then(|t| t.value.as_mut()) {
        Some(type_proto::Value::TensorType(tensor)) if is_half(tensor.elem_type()) => {
            tensor.elem_type = Some(DataType::Float as i32);
        }
        Some(type_proto::Value::SequenceType(sequence)) => widen_type(sequence.elem_type.as_deref_mut()),
        Some(type_proto::Value::OptionalType(optional)) => widen_type(optional.elem_type.as_deref_mut()),
        _ => {}
    }
}

fn subgraphs_mut(node: &mut NodeProto) -> impl Iterator<Item = &mut GraphProto> {
    node.attribute.iter_mut().flat_map(|a| a.g.iter_mut().chain(a.graphs.iter_mut()))
}

/// Why the graph (or a subgraph) cannot be rewritten, if it cannot.
fn refusal(graph: &GraphProto, top: bool) -> Option<String> {
    if graph.sparse_initializer.iter().any(|s| s.values.as_ref().is_some_and(|v| is_half(v.data_type()))) {
        return Some("a sparse half-precision initializer".into());
    }
    for value in graph.input.iter().chain(&graph.output) {
        let ty = value.r#type.as_ref();
        if tensor_element(ty).is_none() && holds(ty, F16) {
            return Some(format!("'{}' is a sequence, map or optional of half-precision tensors", value.name()));
        }
    }
    if top {
        let sources: BTreeSet<&str> =
            graph.input.iter().map(|v| v.name()).chain(graph.initializer.iter().map(|t| t.name())).collect();
        if let Some(output) = graph.output.iter().find(|o| sources.contains(o.name())) {
            return Some(format!("the graph output '{}' is an input or initializer itself", output.name()));
        }
    }
    for node in &graph.node {
        let own = matches!(node.op_type(), "Constant" | "ConstantOfShape");
        let half_tensor = node.attribute.iter().any(|a| {
            a.t.as_ref().is_some_and(|t| is_half(t.data_type())) || a.tensors.iter().any(|t| is_half(t.data_type()))
        });
        if half_tensor && !own {
            return Some(format!("node '{}' ({}) has a half-precision tensor attribute", node.name(), node.op_type()));
        }
        if let Some(why) = subgraphs(node).find_map(|g| refusal(g, false)) {
            return Some(why);
        }
    }
    None
}

/// Whether anything in the graph is of the `element` type.
fn mentions(graph: &GraphProto, element: i32) -> bool {
    graph.initializer.iter().any(|t| t.data_type() == element)
        || graph.input.iter().chain(&graph.output).chain(&graph.value_info).any(|v| holds(v.r#type.as_ref(), element))
        || graph.node.iter().any(|node| {
            node.attribute.iter().any(|a| {
                ((a.name() == "to" || a.name() == "dtype") && a.i == Some(i64::from(element)))
                    || a.t.as_ref().is_some_and(|t| t.data_type() == element)
            }) || subgraphs(node).any(|g| mentions(g, element))
        })
}

/// The values the graph and its subgraphs declare or make f16 before the rewrite: inputs,
/// initializers and `value_info` of f16, the results of `Constant`/`ConstantOfShape` of an f16
/// value and of `Cast` to f16 (what a `CastLike` to one of them rounds to).
fn half_values(graph: &GraphProto, into: &mut BTreeSet<String>) {
    let declared = graph.input.iter().chain(&graph.output).chain(&graph.value_info);
    into.extend(
        declared.filter(|v| tensor_element(v.r#type.as_ref()).is_some_and(is_half)).map(|v| v.name().to_owned()),
    );
    into.extend(graph.initializer.iter().filter(|t| is_half(t.data_type())).map(|t| t.name().to_owned()));
    for node in &graph.node {
        if casts_to(node, F16) || node.attribute.iter().any(|a| a.t.as_ref().is_some_and(|t| is_half(t.data_type()))) {
            into.extend(node.output.iter().cloned());
        }
        for sub in subgraphs(node) {
            half_values(sub, into);
        }
    }
}

/// Fresh value names: `<base>/<tag>`, numbered where taken.
struct Names(BTreeSet<String>);

impl Names {
    fn collect(graph: &GraphProto, into: &mut BTreeSet<String>) {
        into.extend(graph.input.iter().chain(&graph.output).map(|v| v.name().to_owned()));
        into.extend(graph.initializer.iter().map(|t| t.name().to_owned()));
        for node in &graph.node {
            into.extend(node.input.iter().chain(&node.output).cloned());
            into.insert(node.name().to_owned());
            for sub in subgraphs(node) {
                Self::collect(sub, into);
            }
        }
    }

    fn fresh(&mut self, base: &str, tag: &str) -> String {
        let mut name = format!("{base}/{tag}");
        let mut n = 1;
        while self.0.contains(&name) {
            n += 1;
            name = format!("{base}/{tag}{n}");
        }
        self.0.insert(name.clone());
        name
    }
}

fn cast(input: &str, output: &str, to: i32, name: String) -> NodeProto {
    NodeProto {
        op_type: Some("Cast".into()),
        input: vec![input.to_owned()],
        output: vec![output.to_owned()],
        name: Some(name),
        attribute: vec![AttributeProto {
            name: Some("to".into()),
            r#type: Some(AttributeType::Int as i32),
            i: Some(i64::from(to)),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// Appends `node` with its one result renamed `<result>/<tags.0>`, then a cast of that to `to`
/// (named `<result>/<tags.1>`) that makes the result's old name; returns that name.
fn cast_result(
    mut node: NodeProto,
    tags: (&str, &str),
    to: i32,
    names: &mut Names,
    nodes: &mut Vec<NodeProto>,
) -> String {
    let output = node.output[0].clone();
    let renamed = names.fresh(&output, tags.0);
    node.output[0] = renamed.clone();
    let name = names.fresh(&output, tags.1);
    nodes.push(node);
    nodes.push(cast(&renamed, &output, to, name));
    output
}

/// Renames every use of `from` to `to` in `nodes`, their subgraphs' nodes and outputs.
fn rename_uses(nodes: &mut [NodeProto], from: &str, to: &str) {
    for node in nodes {
        for input in node.input.iter_mut().filter(|i| *i == from) {
            *input = to.to_owned();
        }
        for sub in subgraphs_mut(node) {
            rename_uses(&mut sub.node, from, to);
            for output in sub.output.iter_mut().filter(|o| o.name() == from) {
                output.name = Some(to.to_owned());
            }
        }
    }
}

/// Rewrites `graph` (and its subgraphs) to compute in f32; `halves` are [`half_values`].
fn widen_graph(graph: &mut GraphProto, top: bool, names: &mut Names, halves: &BTreeSet<String>) {
    let float = DataType::Float as i32;
    let mut nodes = Vec::with_capacity(graph.node.len());
    for mut node in std::mem::take(&mut graph.node) {
        for sub in subgraphs_mut(&mut node) {
            widen_graph(sub, false, names, halves);
        }
        let made_half = match node.op_type() {
            "Constant" | "ConstantOfShape" => {
                node.attribute.iter().any(|a| a.t.as_ref().is_some_and(|t| is_half(t.data_type())))
            }
            "Cast" => casts_to(&node, F16),
            // A `CastLike` to a known f16 value rounds to f16: it becomes that `Cast` (its
            // target is f32 after the rewrite). One to a value of unknown type is left alone.
            "CastLike" if node.input.len() == 2 && halves.contains(&node.input[1]) => {
                node.op_type = Some("Cast".into());
                node.input.truncate(1);
                node.attribute.retain(|a| a.name() == "saturate");
                node.attribute.push(AttributeProto {
                    name: Some("to".into()),
                    r#type: Some(AttributeType::Int as i32),
                    i: Some(i64::from(F16)),
                    ..Default::default()
                });
                true
            }
            _ => {
                for a in node.attribute.iter_mut().filter(|a| a.name() == "dtype") {
                    if a.i.is_some_and(|i| is_half(i as i32)) {
                        a.i = Some(i64::from(float));
                    }
                }
                false
            }
        };
        // The node keeps its half result under a new name; a cast makes the old name f32.
        if made_half && node.output.len() == 1 && !node.output[0].is_empty() {
            cast_result(node, ("half", "to_f32"), float, names, &mut nodes);
        } else {
            nodes.push(node);
        }
    }
    graph.node = nodes;
    // Sources first: the casts of the inputs and initializers go in front of every node.
    let mut front = Vec::new();
    let inputs: BTreeSet<String> = graph.input.iter().map(|v| v.name().to_owned()).collect();
    if top {
        for input in &graph.input {
            if tensor_element(input.r#type.as_ref()).is_some_and(is_half) {
                let name = input.name().to_owned();
                let widened = names.fresh(&name, "f32");
                rename_uses(&mut graph.node, &name, &widened);
                front.push(cast(&name, &widened, float, names.fresh(&name, "to_f32")));
            }
        }
    } else {
        for input in &mut graph.input {
            widen_type(input.r#type.as_mut());
        }
    }
    for initializer in &mut graph.initializer {
        if is_half(initializer.data_type()) && !inputs.contains(initializer.name()) {
            let name = initializer.name().to_owned();
            let half = names.fresh(&name, "half");
            initializer.name = Some(half.clone());
            front.push(cast(&half, &name, float, names.fresh(&name, "to_f32")));
        }
    }
    front.append(&mut graph.node);
    graph.node = front;
    for info in &mut graph.value_info {
        widen_type(info.r#type.as_mut());
    }
    if top {
        // Each half output, computed in f32 under a new name, is cast back at the end.
        let mut back = Vec::new();
        for output in &graph.output {
            let Some(element) = tensor_element(output.r#type.as_ref()).filter(|&e| is_half(e)) else { continue };
            let name = output.name().to_owned();
            let wide = names.fresh(&name, "f32");
            for node in &mut graph.node {
                for produced in node.output.iter_mut().filter(|o| **o == name) {
                    *produced = wide.clone();
                }
            }
            rename_uses(&mut graph.node, &name, &wide);
            back.push(cast(&wide, &name, element, names.fresh(&name, "to_half")));
        }
        graph.node.extend(back);
    } else {
        for output in &mut graph.output {
            widen_type(output.r#type.as_mut());
        }
    }
}

/// What [`widen`] did, or why it left the graph as it was.
#[derive(Debug)]
pub(crate) enum Widened {
    /// Nothing in the graph is half-precision.
    NoHalf,
    /// Rewritten: computed in f32.
    Rewritten,
    Refused(String),
}

/// Rewrites a half-precision model to compute in f32 (see the module's documentation).
pub(crate) fn widen(model: &mut ModelProto, opset: i64) -> Widened {
    let Some(graph) = model.graph.as_mut() else { return Widened::NoHalf };
    if !mentions(graph, F16) {
        return Widened::NoHalf;
    }
    if opset < 6 {
        return Widened::Refused(format!("opset {opset} (Cast's `to` is a string below 6)"));
    }
    if let Some(why) = refusal(graph, true) {
        return Widened::Refused(why);
    }
    let mut names = Names(BTreeSet::new());
    Names::collect(graph, &mut names.0);
    let mut halves = BTreeSet::new();
    half_values(graph, &mut halves);
    widen_graph(graph, true, &mut names, &halves);
    Widened::Rewritten
}

/// The products whose bf16 operands [`bf16_products`] casts to f32 where their weight is a
/// bf16 initializer.
const PRODUCTS: [&str; 4] = ["Conv", "ConvTranspose", "MatMul", "Gemm"];

/// Elementwise ops of one float type `T` for all their operands and result, each one step (one
/// rounding) in ONNX's reference: one of bf16 operands computes in f32 between casts, rounded
/// once to bf16 as it is anyway. (Sigmoid, HardSwish, Elu and the like are several steps
/// there, each rounded in bf16: left alone.)
const ELEMENTWISE: [&str; 15] = [
    "Relu",
    "Clip",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Neg",
    "Abs",
    "Max",
    "Min",
    "Sqrt",
    "Exp",
    "Tanh",
    "LeakyRelu",
    "PRelu",
];

/// Ops whose result has the element type of their first operand and only moves or selects
/// values: a bf16 operand makes a bf16 result (how [`islands`] follows bf16 values along).
const KEEP_TYPE: [&str; 12] = [
    "Reshape",
    "Transpose",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Concat",
    "Slice",
    "MaxPool",
    "Identity",
    "Gather",
    "Pad",
    "Split",
];

/// bf16 models (see [`is_half`] for why not the whole graph): each product (`Conv`,
/// `ConvTranspose`, `MatMul`, `Gemm`) whose weight is a bf16 initializer, and each elementwise
/// op of bf16 operands, runs in f32 between casts, its operands cast to f32 (the constants'
/// casts fold at import) and its result cast back to bf16: the rounding the op has anyway (a
/// product's sums are f32 and rounded once; an elementwise op on bf16 is computed in f32 and
/// rounded), so the results are the same, while the products take the vectorised f32
/// schedules and the elementwise steps fuse into f32 kernels. Ops that decompose into several
/// steps (softmax, normalisations, attention) are left in bf16: ONNX's bf16 node tests round
/// between their steps.
pub(crate) fn bf16_products(model: &mut ModelProto, opset: i64) {
    let Some(graph) = model.graph.as_mut() else { return };
    if opset < 6 || !mentions(graph, BF16) {
        return;
    }
    let mut names = Names(BTreeSet::new());
    Names::collect(graph, &mut names.0);
    islands(graph, &mut names, &BTreeSet::new());
}

/// [`bf16_products`] on `graph`; `outer` are the bf16 values of the enclosing graphs.
fn islands(graph: &mut GraphProto, names: &mut Names, outer: &BTreeSet<String>) {
    let weights: BTreeSet<String> =
        graph.initializer.iter().filter(|t| t.data_type() == BF16).map(|t| t.name().to_owned()).collect();
    // The values known to be bf16, in graph order (nodes are topologically sorted).
    let mut known = outer.clone();
    known.extend(weights.iter().cloned());
    let declared = graph.input.iter().chain(&graph.value_info);
    known.extend(declared.filter(|v| tensor_element(v.r#type.as_ref()) == Some(BF16)).map(|v| v.name().to_owned()));
    let mut nodes = Vec::with_capacity(graph.node.len());
    for mut node in std::mem::take(&mut graph.node) {
        for sub in subgraphs_mut(&mut node) {
            islands(sub, names, &known);
        }
        let op = node.op_type();
        let single = node.output.len() == 1 && !node.output[0].is_empty();
        let product = PRODUCTS.contains(&op) && node.input.get(1).is_some_and(|w| weights.contains(w));
        let elementwise = ELEMENTWISE.contains(&op) && node.input.first().is_some_and(|x| known.contains(x));
        if casts_to(&node, BF16) || (KEEP_TYPE.contains(&op) && node.input.first().is_some_and(|x| known.contains(x))) {
            // (MaxPool's second result is its int64 indices.)
            let typed = if op == "MaxPool" { &node.output[..node.output.len().min(1)] } else { &node.output[..] };
            known.extend(typed.iter().filter(|o| !o.is_empty()).cloned());
        }
        if !(single && (product || elementwise)) {
            nodes.push(node);
            continue;
        }
        // Every float operand of these ops has their element type: all of them are bf16.
        for input in node.input.iter_mut().filter(|i| !i.is_empty()) {
            let wide = names.fresh(input, "f32");
            nodes.push(cast(input, &wide, DataType::Float as i32, names.fresh(input, "to_f32")));
            *input = wide;
        }
        known.insert(cast_result(node, ("f32", "to_bf16"), BF16, names, &mut nodes));
    }
    graph.node = nodes;
}

#[cfg(test)]
mod tests {
    use super::{tensor_element, widen, Widened};
    use crate::onnx::tensor_proto::DataType;
    use crate::onnx::ModelProto;
    use prost::Message;

    fn half_fixture() -> ModelProto {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lit-tests/frontend/inputs/half.onnx");
        ModelProto::decode(std::fs::read(path).unwrap().as_slice()).unwrap()
    }

    #[test]
    fn a_half_model_computes_in_f32_between_casts_keeping_its_interface() {
        let mut model = half_fixture();
        assert!(matches!(widen(&mut model, 17), Widened::Rewritten));
        let graph = model.graph.unwrap();
        // In: x and the six f16 initializers; the Constant; the Cast to f16 back to f32; out: y, z.
        let casts = graph.node.iter().filter(|n| n.op_type() == "Cast" && n.name().contains("/to_")).count();
        assert_eq!(casts, 7 + 1 + 1 + 2);
        let f16 = Some(DataType::Float16 as i32);
        assert_eq!(tensor_element(graph.input[0].r#type.as_ref()), f16);
        assert!(graph.output.iter().all(|o| tensor_element(o.r#type.as_ref()) == f16));
        assert!(graph.initializer.iter().all(|t| t.name().ends_with("/half")));
        // Every output is made by a Cast to f16 at the end.
        for output in &graph.output {
            let producer = graph.node.iter().find(|n| n.output.contains(&output.name().to_owned())).unwrap();
            assert_eq!(producer.op_type(), "Cast");
            assert_eq!(producer.attribute[0].i, Some(i64::from(DataType::Float16 as i32)));
        }
    }

    #[test]
    fn a_cast_like_to_an_f16_value_keeps_its_rounding() {
        use crate::onnx::{type_proto, GraphProto, NodeProto, TensorProto, TypeProto, ValueInfoProto};
        let value = |name: &str, element: DataType| ValueInfoProto {
            name: Some(name.into()),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                    elem_type: Some(element as i32),
                    shape: None,
                })),
                ..Default::default()
            }),
            ..Default::default()
        };
        let like = NodeProto {
            op_type: Some("CastLike".into()),
            input: vec!["x".into(), "t".into()],
            output: vec!["y".into()],
            name: Some("like".into()),
            ..Default::default()
        };
        let t = TensorProto {
            name: Some("t".into()),
            data_type: Some(DataType::Float16 as i32),
            dims: vec![1],
            raw_data: Some(vec![0, 0]),
            ..Default::default()
        };
        let graph = GraphProto {
            node: vec![like],
            input: vec![value("x", DataType::Float)],
            output: vec![value("y", DataType::Float16)],
            initializer: vec![t],
            ..Default::default()
        };
        let mut model = ModelProto { graph: Some(graph), ..Default::default() };
        assert!(matches!(widen(&mut model, 17), Widened::Rewritten));
        let graph = model.graph.unwrap();
        assert!(graph.node.iter().all(|n| n.op_type() != "CastLike"));
        let rounding = graph.node.iter().find(|n| n.input == ["x"]).unwrap();
        assert_eq!(rounding.op_type(), "Cast");
        assert_eq!(rounding.attribute[0].i, Some(i64::from(DataType::Float16 as i32)));
    }

    #[test]
    fn graphs_it_does_not_model_are_left_as_they_are() {
        let mut model = half_fixture();
        let graph = model.graph.as_mut().unwrap();
        let input = graph.input[0].clone();
        graph.output.push(input);
        let before = model.clone();
        assert!(matches!(widen(&mut model, 17), Widened::Refused(why) if why.contains("'x'")));
        assert_eq!(model, before);
        assert!(matches!(widen(&mut half_fixture(), 5), Widened::Refused(_)));
    }
}
