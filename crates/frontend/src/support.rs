//! Which ONNX operators and opsets Strata imports: the operator list, the operands that must
//! be constants in a static-shape compiler, the one-error check for unsupported operators
//! (subgraphs included), and the opset check.

use crate::error::FrontendError;
use crate::import::node_name;
use crate::onnx::ModelProto;
use std::collections::BTreeMap;

/// The ONNX operators this importer maps to `sg` (the names of [`crate::ops::OPS`]), sorted.
pub fn supported_ops() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = crate::ops::OPS.iter().map(|op| op.name).collect();
    names.sort_unstable();
    names
}

/// The inputs of an ONNX operator that a static-shape compiler needs as constants: they decide
/// the output's shape or the positions it reads (Reshape's shape, Resize's roi/scales/sizes,
/// Slice's starts ...), or which computation runs (Dropout's ratio and training mode: the
/// identity, or a random mask). Tools that feed node tests freeze graph inputs used in these
/// positions.
pub fn shape_operands(op_type: &str) -> &'static [usize] {
    match op_type {
        "Reshape" | "Expand" | "Tile" | "Squeeze" | "Unsqueeze" | "Split" | "TopK" => &[1],
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1" | "ReduceL2"
        | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => &[1],
        "Slice" => &[1, 2, 3, 4],
        "Pad" => &[1, 3],
        "Resize" => &[1, 2, 3],
        "ConstantOfShape" => &[0],
        "Range" => &[0, 1, 2],
        "Dropout" => &[1, 2],
        // The trip count and the condition: how often the body runs (scan outputs' length).
        "Loop" => &[0, 1],
        _ => &[],
    }
}

/// The default-domain opsets Strata imports. Versions of the supported ops introduced after
/// opset 21 (up to 28, onnx 1.23) only widen their element types. An older opset imports when
/// every op it uses still has its opset-13 definition there ([`opset_13_since`]).
pub const OPSETS: std::ops::RangeInclusive<i64> = 13..=28;

/// The first opset whose definition of `op` is the one Strata implements (the table's
/// `since`).
fn opset_13_since(op: &str) -> Option<i64> {
    crate::ops::lookup(op).map(|op| op.since)
}

pub(crate) fn check_opsets(model: &ModelProto, file: &str) -> Result<(), FrontendError> {
    for opset in &model.opset_import {
        if !matches!(opset.domain(), "" | "ai.onnx") {
            continue;
        }
        let version = opset.version();
        if (1..*OPSETS.start()).contains(&version) {
            // Older: every op must still have its opset-13 definition at this opset.
            let graph = model.graph.as_ref();
            let old = graph
                .into_iter()
                .flat_map(|g| g.node.iter())
                .filter(|n| matches!(n.domain(), "" | "ai.onnx"))
                .find(|n| opset_13_since(n.op_type()).is_some_and(|since| version < since));
            let Some(node) = old else { continue };
            return Err(FrontendError::Opset {
                file: file.to_owned(),
                message: format!(
                    "default-domain opset {version}: {} '{}' has an older definition there than the one Strata implements (opset {} and later); convert the model with onnx.version_converter to opset {}",
                    node.op_type(),
                    node.name(),
                    opset_13_since(node.op_type()).unwrap_or(13),
                    OPSETS.start()
                ),
            });
        }
        if !OPSETS.contains(&version) {
            return Err(FrontendError::Opset {
                file: file.to_owned(),
                message: format!(
                    "default-domain opset {} is not supported (Strata imports opsets {} to {}; convert the model with onnx.version_converter)",
                    opset.version(),
                    OPSETS.start(),
                    OPSETS.end()
                ),
            });
        }
    }
    Ok(())
}

/// Every node of `graph` and of the graphs in its nodes' attributes (a Loop's body) whose op
/// is not imported, by op type, named `prefix` + node name.
pub(crate) fn collect_unsupported(
    graph: &crate::onnx::GraphProto,
    prefix: &str,
    unsupported: &mut BTreeMap<String, Vec<String>>,
) {
    for (index, node) in graph.node.iter().enumerate() {
        let domain_ok = matches!(node.domain(), "" | "ai.onnx");
        let name = format!("{prefix}{}", node_name(node, index));
        if !domain_ok || crate::ops::lookup(node.op_type()).is_none() {
            let op =
                if domain_ok { node.op_type().to_owned() } else { format!("{}::{}", node.domain(), node.op_type()) };
            unsupported.entry(op).or_default().push(name.clone());
        }
        for body in node.attribute.iter().filter_map(|a| a.g.as_ref()) {
            collect_unsupported(body, &format!("{name}/"), unsupported);
        }
    }
}
