//! Which ONNX operators and opsets Strata imports: the operator list, the operands that must
//! be constants in a static-shape compiler, the one-error check for unsupported operators
//! (subgraphs included), and the opset check.

use crate::error::FrontendError;
use crate::import::node_name;
use crate::onnx::{ModelProto, NodeProto};
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
        "OneHot" => &[1],
        "CumSum" | "CumProd" => &[1],
        "Trilu" => &[1],
        "CenterCropPad" => &[1],
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => &[0],
        "Range" => &[0, 1, 2],
        // The kept positions, the reversed lengths, the unpooled shape, the grid's size.
        "Compress" | "ReverseSequence" | "AffineGrid" => &[1],
        "MaxUnpool" => &[2],
        // The image's and the block's sizes.
        "Col2Im" => &[1, 2],
        // Positions in a sequence and the pieces of a split: sequences are lists at import.
        "SequenceInsert" => &[2],
        "SequenceErase" | "SequenceAt" | "SplitToSequence" => &[1],
        // The DFT's length and axis, the STFT's step and frame length, the mel filters' sizes.
        "DFT" => &[1, 2],
        "STFT" => &[1, 3],
        "MelWeightMatrix" => &[0, 1, 2, 3, 4],
        "Dropout" => &[1, 2],
        // The trip count and the condition: how often the body runs (scan outputs' length).
        "Loop" => &[0, 1],
        _ => &[],
    }
}

/// The default-domain opsets Strata imports: every one the pinned onnx package defines. An
/// operator's older definitions are rewritten into the one its import routine implements
/// (`crate::legacy`); the table's `since` is the oldest definition Strata takes.
pub const OPSETS: std::ops::RangeInclusive<i64> = 1..=28;

/// The model's default-domain opset (the newest one when it names none), after checking that
/// Strata knows it and that every node (subgraphs included) has a definition there that Strata
/// imports; all offending nodes are named in one error.
pub(crate) fn check_opsets(model: &ModelProto, file: &str) -> Result<i64, FrontendError> {
    let version =
        model.opset_import.iter().find(|o| matches!(o.domain(), "" | "ai.onnx")).map_or(*OPSETS.end(), |o| o.version());
    if !OPSETS.contains(&version) {
        return Err(FrontendError::Opset {
            file: file.to_owned(),
            message: format!(
                "default-domain opset {version} is not one Strata knows (opsets {} to {}, those of onnx 1.23)",
                OPSETS.start(),
                OPSETS.end()
            ),
        });
    }
    check_domain_opsets(model, file)?;
    let mut too_old: BTreeMap<String, (i64, Vec<String>)> = BTreeMap::new();
    // The ai.onnx.ml opset (its newest, 5, when the model names none).
    let ml = model.opset_import.iter().find(|o| o.domain() == "ai.onnx.ml").map_or(5, |o| o.version());
    if let Some(graph) = model.graph.as_ref() {
        collect_too_old(graph, (version, ml), &mut too_old);
    }
    if too_old.is_empty() {
        return Ok(version);
    }
    let lines: Vec<String> = too_old
        .iter()
        .map(|(op, (since, nodes))| {
            format!("  {op}: imported from opset {since} on ({} node(s): {})", nodes.len(), nodes.join(", "))
        })
        .collect();
    let opsets = if too_old.keys().any(|op| op.starts_with("ai.onnx.ml::")) {
        format!("default-domain opset {version}, ai.onnx.ml opset {ml}")
    } else {
        format!("default-domain opset {version}")
    };
    Err(FrontendError::Opset {
        file: file.to_owned(),
        message: format!(
            "{opsets}: these operators have no definition at this opset that Strata imports:\n{}",
            lines.join("\n")
        ),
    })
}

/// The newest opset Strata knows of each domain beside the default one whose operators it
/// imports (those of onnx 1.23; each domain's opsets start at 1).
const DOMAIN_OPSETS: &[(&str, i64)] = &[("ai.onnx.ml", 5), ("ai.onnx.preview", 1), ("ai.onnx.preview.training", 1)];

/// Refuses a model whose nodes use one of [`DOMAIN_OPSETS`]' domains at an opset Strata does not
/// know (a newer one may define its operators differently: importing them with an older
/// meaning would give wrong results silently), naming those nodes. A domain the model lists
/// but no node uses is not checked.
fn check_domain_opsets(model: &ModelProto, file: &str) -> Result<(), FrontendError> {
    let Some(graph) = model.graph.as_ref() else { return Ok(()) };
    for &(domain, newest) in DOMAIN_OPSETS {
        let Some(version) = model.opset_import.iter().find(|o| o.domain() == domain).map(|o| o.version()) else {
            continue;
        };
        if (1..=newest).contains(&version) {
            continue;
        }
        let nodes = nodes_in_domain(graph, domain);
        if nodes.is_empty() {
            continue;
        }
        let known = if newest == 1 { "opset 1".to_owned() } else { format!("opsets 1 to {newest}") };
        return Err(FrontendError::Opset {
            file: file.to_owned(),
            message: format!(
                "{domain} opset {version} is not one Strata knows ({known}, those of onnx 1.23), and {} node(s) use that domain: {}",
                nodes.len(),
                nodes.join(", ")
            ),
        });
    }
    Ok(())
}

/// Calls `visit` with every node of `graph` and of the graphs in its nodes' attributes (a
/// Loop's body, an If's branches), each named `prefix` + its name, a subgraph's nodes prefixed
/// by the name of the node holding it and `/`.
fn for_each_node(graph: &crate::onnx::GraphProto, prefix: &str, visit: &mut impl FnMut(&str, &NodeProto)) {
    for (index, node) in graph.node.iter().enumerate() {
        let name = format!("{prefix}{}", node_name(node, index));
        visit(&name, node);
        for body in node.attribute.iter().filter_map(|a| a.g.as_ref()) {
            for_each_node(body, &format!("{name}/"), visit);
        }
    }
}

/// The nodes of `domain` in `graph` and its subgraphs, by name and op type.
fn nodes_in_domain(graph: &crate::onnx::GraphProto, domain: &str) -> Vec<String> {
    let mut found = Vec::new();
    for_each_node(graph, "", &mut |name, node| {
        if node.domain() == domain {
            found.push(format!("'{name}' ({})", node.op_type()));
        }
    });
    found
}

/// Nodes (by op type) whose operator's definition at the model's opsets `(default, ai.onnx.ml)`
/// predates the oldest Strata imports (or, in `ai.onnx.ml`, the operator itself: TreeEnsemble
/// at ml opset 3).
fn collect_too_old(
    graph: &crate::onnx::GraphProto,
    versions: (i64, i64),
    found: &mut BTreeMap<String, (i64, Vec<String>)>,
) {
    for_each_node(graph, "", &mut |name, node| {
        let (version, op_name) = match node.domain() {
            "" | "ai.onnx" => (versions.0, node.op_type().to_owned()),
            "ai.onnx.ml" => (versions.1, format!("ai.onnx.ml::{}", node.op_type())),
            _ => return,
        };
        if let Some(op) = crate::ops::lookup_in(node.domain(), node.op_type()).filter(|op| version < op.since) {
            found.entry(op_name).or_insert((op.since, Vec::new())).1.push(name.to_owned());
        }
    });
}

/// What a user can do about an operator Strata does not import (`domain::op` outside the
/// default domain), where there is something better than waiting for it.
pub(crate) fn advice(op: &str) -> Option<&'static str> {
    Some(match op {
        "ai.onnx.ml::ZipMap" => {
            "its output is a sequence of maps, which Strata cannot return: convert the classifier without it \
             (skl2onnx: options={id(model): {'zipmap': False}}) and read the probabilities tensor it would have \
             wrapped"
        }
        "ai.onnx.ml::CategoryMapper" | "ai.onnx.ml::DictVectorizer" => {
            "Strata has no string, map or sequence values: encode the categories as integers before the model"
        }
        // ONNX Runtime's own operators: what its optimiser or dynamic quantiser wrote into a
        // saved model (ddddocr ships one with `DynamicQuantizeLSTM`).
        _ if op.starts_with("com.microsoft") => {
            "an ONNX Runtime contrib operator, not part of ONNX: use the float model, or quantize it to \
             standard ops (onnxruntime.quantization.quantize_static/quantize_dynamic with QuantFormat.QDQ, \
             op_types_to_quantize without this op), and save models with graph optimisations off"
        }
        _ => return None,
    })
}

/// Every node of `graph` and of the graphs in its nodes' attributes (a Loop's body) whose op
/// is not imported, by op type, named `prefix` + node name.
pub(crate) fn collect_unsupported(
    graph: &crate::onnx::GraphProto,
    prefix: &str,
    unsupported: &mut BTreeMap<String, Vec<String>>,
) {
    for_each_node(graph, prefix, &mut |name, node| {
        if crate::ops::lookup_in(node.domain(), node.op_type()).is_none() {
            let op = if matches!(node.domain(), "" | "ai.onnx") {
                node.op_type().to_owned()
            } else {
                format!("{}::{}", node.domain(), node.op_type())
            };
            unsupported.entry(op).or_default().push(name.to_owned());
        }
    });
}
