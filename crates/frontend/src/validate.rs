//! The model checked before anything is imported, as ONNX's checker and ONNX Runtime do: a
//! malformed graph is refused with the node and the rule it breaks, never imported with a
//! guess ("last definition wins", an attribute of the wrong type read as 0).
//!
//! - Single assignment: graph inputs, initializers and node outputs each name one value; a node
//!   output may not redefine a name of its graph or of an enclosing one (a subgraph's own
//!   inputs and initializers are local to it). The main graph's outputs are distinct names
//!   (one value may still be several outputs, through `Identity`: each gets its own buffer).
//! - Attributes: for default-domain operators, each attribute is one the operator's definition
//!   at the model's opset has (`crate::schemas`, generated from the pinned onnx package), given
//!   once, of its declared type; required attributes are present. Subgraphs are checked too.

use crate::error::FrontendError;
use crate::import::node_name;
use crate::onnx::attribute_proto::AttributeType;
use crate::onnx::tensor_proto::DataType;
use crate::onnx::{AttributeProto, GraphProto, NodeProto};
use std::collections::{BTreeMap, BTreeSet};
use strata_ir::Error;

/// Checks `graph` (the model's main graph) at default-domain opset `opset`.
pub(crate) fn check(graph: &GraphProto, opset: i64, file: &str) -> Result<(), FrontendError> {
    let graph_error = |message: String| FrontendError::Graph {
        file: file.to_owned(),
        error: Box::new(Error::invalid_input(message)),
    };
    let mut outputs = BTreeSet::new();
    for output in &graph.output {
        if !outputs.insert(output.name()) {
            return Err(graph_error(format!(
                "graph output '{}' is listed twice: outputs need distinct names (an Identity gives one value a second name)",
                output.name()
            )));
        }
    }
    let mut outer = Vec::new();
    check_graph(graph, opset, &mut outer).map_err(|failure| match failure {
        Failure::Graph(message) => graph_error(message),
        Failure::Node { index, node, path, error } => FrontendError::Node {
            file: file.to_owned(),
            index,
            name: node_name(node, index),
            op_type: node.op_type().to_owned(),
            error: Box::new(if path.is_empty() { *error } else { error.context(path) }),
        },
    })
}

/// What is wrong, and where: in the graph's own lists, or at a top-level node (with the path
/// through subgraphs to the offending node, innermost first, when it is nested).
enum Failure<'g> {
    Graph(String),
    Node { index: usize, node: &'g NodeProto, path: String, error: Box<Error> },
}

/// `scopes`: the names each enclosing graph defines, outermost first.
fn check_graph<'g>(graph: &'g GraphProto, opset: i64, scopes: &mut Vec<BTreeSet<&'g str>>) -> Result<(), Failure<'g>> {
    // Every name this graph defines, with the node that defines it (none: an input or an
    // initializer).
    let mut defined: BTreeMap<&'g str, Option<usize>> = BTreeMap::new();
    for input in &graph.input {
        if defined.insert(input.name(), None).is_some() {
            return Err(Failure::Graph(format!("graph input '{}' is listed twice", input.name())));
        }
    }
    let mut initializers = BTreeSet::new();
    for tensor in &graph.initializer {
        if !initializers.insert(tensor.name()) {
            return Err(Failure::Graph(format!("initializer '{}' is given twice", tensor.name())));
        }
    }
    // An initializer may also be a graph input (its default value).
    defined.extend(initializers.into_iter().map(|name| (name, None)));
    for (index, node) in graph.node.iter().enumerate() {
        let fail = |error: Error| Failure::Node { index, node, path: String::new(), error: Box::new(error) };
        for output in node.output.iter().filter(|o| !o.is_empty()) {
            let name = output.as_str();
            let by = match defined.get(name) {
                Some(&Some(first)) => {
                    let other = &graph.node[first];
                    Some(format!("node #{first} '{}' ({})", node_name(other, first), other.op_type()))
                }
                Some(None) => Some("a graph input or initializer".to_owned()),
                None if scopes.iter().any(|scope| scope.contains(name)) => Some("an enclosing graph".to_owned()),
                None => None,
            };
            if let Some(by) = by {
                return Err(fail(Error::invalid_input(format!(
                    "output '{name}' is already defined by {by}: every value must be defined once (single static assignment)"
                ))));
            }
            defined.insert(name, Some(index));
        }
        check_attributes(node, opset).map_err(fail)?;
        let mut nested = node
            .attribute
            .iter()
            .flat_map(|a| a.g.iter().chain(a.graphs.iter()).map(move |g| (a.name(), g)))
            .peekable();
        if nested.peek().is_none() {
            continue;
        }
        scopes.push(defined.keys().copied().collect());
        for (attribute, body) in nested {
            if let Err(failure) = check_graph(body, opset, scopes) {
                scopes.pop();
                let within = format!("in subgraph '{attribute}'");
                return Err(match failure {
                    Failure::Graph(message) => fail(Error::invalid_input(message).context(within)),
                    Failure::Node { index: inner, node: inner_node, path, error } => {
                        let at = format!(
                            "{within}, node #{inner} '{}' ({})",
                            node_name(inner_node, inner),
                            inner_node.op_type()
                        );
                        let path = if path.is_empty() { at } else { format!("{path}; {at}") };
                        fail(error.context(path))
                    }
                });
            }
        }
        scopes.pop();
    }
    Ok(())
}

/// The attribute list of the definition of `op_type` in force at `opset` (the newest one
/// since then), if the default domain defines it there.
fn schema(op_type: &str, opset: i64) -> Option<crate::schemas::Attributes> {
    definition(op_type, opset).map(|(_, attributes)| attributes)
}

/// The `since_version` and attributes of the definition of `op_type` in force at `opset`.
fn definition(op_type: &str, opset: i64) -> Option<(i64, crate::schemas::Attributes)> {
    let first = crate::schemas::SCHEMAS.partition_point(|&(name, _, _)| name < op_type);
    crate::schemas::SCHEMAS[first..]
        .iter()
        .take_while(|&&(name, _, _)| name == op_type)
        .filter(|&&(_, since, _)| since <= opset)
        .last()
        .map(|&(_, since, attributes)| (since, attributes))
}

/// The type parameter of each formal input of the definition of `op_type` in force at `opset`
/// ("" where the input may have its own type), and whether its last input is variadic; `None`
/// where no parameter binds two inputs.
fn type_parameters(op_type: &str, opset: i64) -> Option<(&'static [&'static str], bool)> {
    let (since, _) = definition(op_type, opset)?;
    let table = crate::schemas::TYPE_PARAMETERS;
    let first = table.partition_point(|&(name, _, _, _)| name < op_type);
    let &(_, _, parameters, variadic) =
        table[first..].iter().take_while(|row| row.0 == op_type).find(|row| row.1 == since)?;
    Some((parameters, variadic))
}

/// Checks that the inputs of a default-domain `node` that its definition at `opset` binds to
/// one type parameter (Conv's `X`, `W` and `B`; every input of Concat) have one element type,
/// each input's type given by `type_of` (`None`: not known, not checked). ONNX Runtime refuses
/// such a model when it loads it; imported, the mismatch would reach the IR's verifier and
/// read as an importer bug.
pub(crate) fn check_input_types(
    node: &NodeProto,
    opset: i64,
    type_of: impl Fn(&str) -> Option<DataType>,
) -> Result<(), Error> {
    if !matches!(node.domain(), "" | "ai.onnx") {
        return Ok(());
    }
    let Some((parameters, variadic)) = type_parameters(node.op_type(), opset) else { return Ok(()) };
    let mut first: BTreeMap<&str, (&str, DataType)> = BTreeMap::new();
    for (index, name) in node.input.iter().enumerate().filter(|(_, name)| !name.is_empty()) {
        let parameter = match parameters.get(index) {
            Some(&parameter) => parameter,
            None if variadic => parameters.last().copied().unwrap_or(""),
            None => continue,
        };
        if parameter.is_empty() {
            continue;
        }
        let Some(dtype) = type_of(name) else { continue };
        match first.get(parameter) {
            Some(&(other, other_type)) if other_type != dtype => {
                return Err(Error::invalid_input(format!(
                    "inputs '{other}' ({}) and '{name}' ({}) must have one element type: {} binds both to its type parameter {parameter} (convert one with a Cast node)",
                    other_type.as_str_name(),
                    dtype.as_str_name(),
                    node.op_type()
                )));
            }
            Some(_) => {}
            None => {
                first.insert(parameter, (name.as_str(), dtype));
            }
        }
    }
    Ok(())
}

/// The attribute's type: its `type` field, or (models older than IR version 2 leave it unset)
/// the field that holds a value.
fn kind(attribute: &AttributeProto) -> AttributeType {
    if let Some(kind) = attribute.r#type.and_then(|t| AttributeType::try_from(t).ok()) {
        if kind != AttributeType::Undefined {
            return kind;
        }
    }
    match attribute {
        a if a.f.is_some() => AttributeType::Float,
        a if a.i.is_some() => AttributeType::Int,
        a if a.s.is_some() => AttributeType::String,
        a if a.t.is_some() => AttributeType::Tensor,
        a if a.g.is_some() => AttributeType::Graph,
        a if a.sparse_tensor.is_some() => AttributeType::SparseTensor,
        a if a.tp.is_some() => AttributeType::TypeProto,
        a if !a.floats.is_empty() => AttributeType::Floats,
        a if !a.ints.is_empty() => AttributeType::Ints,
        a if !a.strings.is_empty() => AttributeType::Strings,
        a if !a.tensors.is_empty() => AttributeType::Tensors,
        a if !a.graphs.is_empty() => AttributeType::Graphs,
        _ => AttributeType::Undefined,
    }
}

/// How an attribute type reads in a message.
fn describe(kind: AttributeType) -> &'static str {
    match kind {
        AttributeType::Undefined => "no value",
        AttributeType::Float => "a float",
        AttributeType::Int => "an int",
        AttributeType::String => "a string",
        AttributeType::Tensor => "a tensor",
        AttributeType::Graph => "a graph",
        AttributeType::SparseTensor => "a sparse tensor",
        AttributeType::TypeProto => "a type",
        AttributeType::Floats => "a list of floats",
        AttributeType::Ints => "a list of ints",
        AttributeType::Strings => "a list of strings",
        AttributeType::Tensors => "a list of tensors",
        AttributeType::Graphs => "a list of graphs",
        AttributeType::SparseTensors => "a list of sparse tensors",
        AttributeType::TypeProtos => "a list of types",
    }
}

fn check_attributes(node: &NodeProto, opset: i64) -> Result<(), Error> {
    if !matches!(node.domain(), "" | "ai.onnx") {
        return Ok(());
    }
    let Some(schema) = schema(node.op_type(), opset) else { return Ok(()) };
    let op = node.op_type();
    let mut seen = BTreeSet::new();
    for attribute in &node.attribute {
        let name = attribute.name();
        if !seen.insert(name) {
            return Err(Error::invalid_input(format!("attribute '{name}' is given twice")));
        }
        // A reference to an attribute of the enclosing function: typed where it is defined.
        if attribute.ref_attr_name.is_some() {
            continue;
        }
        let Some(&(_, expected, _)) = schema.iter().find(|(n, _, _)| *n == name) else {
            let known: Vec<&str> = schema.iter().map(|(n, _, _)| *n).collect();
            let known = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
            return Err(Error::invalid_input(format!(
                "{op} (opset {opset}) has no attribute '{name}' (its attributes: {known})"
            )));
        };
        let given = kind(attribute);
        if given != expected {
            return Err(Error::invalid_input(format!(
                "attribute '{name}' of {op} must be {} ({}), got {} ({})",
                describe(expected),
                expected.as_str_name(),
                describe(given),
                given.as_str_name()
            )));
        }
    }
    if let Some((name, expected, _)) = schema.iter().find(|&&(name, _, required)| required && !seen.contains(name)) {
        return Err(Error::invalid_input(format!(
            "{op} requires attribute '{name}' ({}), which the node does not give",
            describe(*expected)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_in_force_is_the_newest_at_the_opset() {
        let names = |s: &[(&str, AttributeType, bool)]| s.iter().map(|(n, _, _)| n.to_string()).collect::<Vec<_>>();
        // Reduce ops lost `axes` as an attribute at 18 (it became an input).
        assert!(names(schema("ReduceMean", 17).unwrap()).contains(&"axes".to_owned()));
        assert!(!names(schema("ReduceMean", 18).unwrap()).contains(&"axes".to_owned()));
        assert_eq!(schema("Softmax", 13).unwrap()[0].1, AttributeType::Int);
        assert!(schema("NoSuchOp", 17).is_none());
        // GridSample appeared at 16.
        assert!(schema("GridSample", 15).is_none());
    }

    #[test]
    fn inputs_bound_to_one_type_parameter_share_their_element_type() {
        let node = |op: &str, inputs: &[&str]| NodeProto {
            op_type: Some(op.into()),
            input: inputs.iter().map(|i| i.to_string()).collect(),
            ..Default::default()
        };
        let types = |name: &str| match name {
            "x" | "b" => Some(DataType::Float),
            "w" => Some(DataType::Double),
            "i" => Some(DataType::Int64),
            _ => None,
        };
        let conv = check_input_types(&node("Conv", &["x", "w", "b"]), 17, types).unwrap_err().to_string();
        assert!(conv.contains("'x' (FLOAT) and 'w' (DOUBLE)") && conv.contains("parameter T"), "{conv}");
        assert!(check_input_types(&node("Conv", &["x", "b"]), 17, types).is_ok());
        // A variadic input: every part of a Concat; an omitted optional input is skipped.
        assert!(check_input_types(&node("Concat", &["x", "b", "w"]), 13, types).is_err());
        assert!(check_input_types(&node("Conv", &["x", "b", ""]), 17, types).is_ok());
        // Inputs with parameters of their own (Reshape's shape, Where's condition), and
        // unknown types, are not compared.
        assert!(check_input_types(&node("Reshape", &["x", "i"]), 13, types).is_ok());
        assert!(check_input_types(&node("Where", &["i", "x", "b"]), 16, types).is_ok());
        assert!(check_input_types(&node("Add", &["x", "unknown"]), 14, types).is_ok());
    }

    #[test]
    fn untyped_attributes_take_the_type_of_their_value() {
        let a = AttributeProto { name: Some("alpha".into()), i: Some(1), ..Default::default() };
        assert_eq!(kind(&a), AttributeType::Int);
        let a = AttributeProto { name: Some("alpha".into()), floats: vec![1.0], ..Default::default() };
        assert_eq!(kind(&a), AttributeType::Floats);
    }
}
