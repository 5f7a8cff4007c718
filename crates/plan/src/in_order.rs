//! What a model's activations need when its nodes run one by one in the file's order, without
//! a compiler's help: the references Strata's arena is measured against (`strata plan
//! model.onnx`, `cargo xtask bench memory`), as `../shared/notes/peers.md` defines them.
//!
//! Activations only: graph inputs, graph outputs (the caller's memory) and constants
//! (initializers and values folded at import) are left out. An `If` whose condition is known at
//! import (a frozen input) is the nodes of its taken branch, one by one, as an executor that
//! folds the condition runs them; the frontend lists them so (`strata_frontend::import`).
//!
//! - **naive**: every activation in a buffer of its own, all at once.
//! - **plain**: the peak of live bytes over the node order, each activation allocated by its
//!   node and freed after its last reader (no op fused, none written in place).
//! - **views and in-place**: the same, but a view ([`VIEW_OPS`]) shares its input's buffer,
//!   and an elementwise op ([`ELEMENTWISE_OPS`]) writes over an input of the same byte size
//!   whose buffer dies at that op. The floor for an executor that does not fuse.

/// Ops whose output is its first input's bytes under another shape.
/// (Dropout at inference; only the first output of any of them is a view.)
pub const VIEW_OPS: &[&str] = &["Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"];

/// Ops that compute each output element from the same element of their inputs (broadcast
/// aside), so they may write over an input of the output's size. BatchNormalization at
/// inference is a per-channel affine map, one of them.
pub const ELEMENTWISE_OPS: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Add",
    "And",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "BatchNormalization",
    "BitwiseAnd",
    "BitwiseNot",
    "BitwiseOr",
    "BitwiseXor",
    "Cast",
    "Ceil",
    "Celu",
    "Clip",
    "Cos",
    "Cosh",
    "Div",
    "Elu",
    "Equal",
    "Erf",
    "Exp",
    "Floor",
    "Gelu",
    "Greater",
    "GreaterOrEqual",
    "HardSigmoid",
    "HardSwish",
    "IsInf",
    "IsNaN",
    "LeakyRelu",
    "Less",
    "LessOrEqual",
    "Log",
    "Max",
    "Mean",
    "Min",
    "Mish",
    "Mod",
    "Mul",
    "Neg",
    "Not",
    "Or",
    "Pow",
    "PRelu",
    "Reciprocal",
    "Relu",
    "Round",
    "Selu",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Sub",
    "Sum",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Where",
    "Xor",
];

/// One node of the graph, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphStep {
    pub op: String,
    /// The names it reads (a subgraph's reads from the outer scope included).
    pub inputs: Vec<String>,
    /// The names it writes, each with its bytes when it is an activation (`None`: a graph
    /// output, a constant, a value without a static size).
    pub outputs: Vec<(String, Option<u64>)>,
}

/// The three references, in bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InOrderPeaks {
    /// Activations (tensors with a static size between two nodes).
    pub tensors: usize,
    pub naive: u64,
    pub plain: u64,
    pub views_in_place: u64,
}

/// The references of `steps`.
pub fn peaks(steps: &[GraphStep]) -> InOrderPeaks {
    let sizes = steps.iter().flat_map(|s| s.outputs.iter().filter_map(|(_, b)| *b));
    InOrderPeaks {
        tensors: sizes.clone().count(),
        naive: sizes.sum(),
        plain: peak(steps, false),
        views_in_place: peak(steps, true),
    }
}

/// A buffer: its bytes, the step that allocates it and the last step that reads any tensor in
/// it.
struct Buffer {
    bytes: u64,
    start: usize,
    end: usize,
}

fn peak(steps: &[GraphStep], share: bool) -> u64 {
    use std::collections::BTreeMap;
    // The last step reading each name (a tensor nobody reads dies where it is made).
    let mut last_read: BTreeMap<&str, usize> = BTreeMap::new();
    for (index, step) in steps.iter().enumerate() {
        for input in &step.inputs {
            last_read.insert(input, index);
        }
    }
    let mut buffers: Vec<Buffer> = Vec::new();
    // The buffer holding each activation, and whether a tensor is a view of memory outside
    // the activations (a graph input's, a constant's).
    let mut holder: BTreeMap<&str, Option<usize>> = BTreeMap::new();
    for (index, step) in steps.iter().enumerate() {
        let mut taken: Vec<usize> = Vec::new();
        for (position, (name, bytes)) in step.outputs.iter().enumerate() {
            let Some(bytes) = *bytes else { continue };
            let dies = last_read.get(name.as_str()).copied().unwrap_or(index).max(index);
            let input_buffer = |input: &String| holder.get(input.as_str()).copied();
            let shared = if !share {
                None
            } else if VIEW_OPS.contains(&step.op.as_str()) && position == 0 {
                // A view of a graph input or a constant is no activation at all.
                Some(step.inputs.first().and_then(input_buffer).flatten())
            } else if ELEMENTWISE_OPS.contains(&step.op.as_str()) {
                step.inputs
                    .iter()
                    .filter_map(|i| input_buffer(i).flatten())
                    .find(|&b| buffers[b].bytes == bytes && buffers[b].end == index && !taken.contains(&b))
                    .map(Some)
            } else {
                None
            };
            let buffer = match shared {
                Some(Some(b)) => {
                    buffers[b].end = buffers[b].end.max(dies);
                    Some(b)
                }
                Some(None) => None,
                None => {
                    buffers.push(Buffer { bytes, start: index, end: dies });
                    Some(buffers.len() - 1)
                }
            };
            taken.extend(buffer);
            holder.insert(name, buffer);
        }
    }
    // Live bytes per step: +bytes at the start, -bytes after the end.
    let mut delta = vec![0i128; steps.len() + 1];
    for buffer in &buffers {
        delta[buffer.start] += i128::from(buffer.bytes);
        delta[buffer.end + 1] -= i128::from(buffer.bytes);
    }
    let mut live = 0i128;
    let mut peak = 0i128;
    for d in delta {
        live += d;
        peak = peak.max(live);
    }
    u64::try_from(peak).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(op: &str, inputs: &[&str], outputs: &[(&str, Option<u64>)]) -> GraphStep {
        GraphStep {
            op: op.into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.iter().map(|(n, b)| (n.to_string(), *b)).collect(),
        }
    }

    /// x -> Conv a -> Relu b -> Reshape c -> Conv d -> Add(d, b) e -> Gemm y (output).
    fn chain() -> Vec<GraphStep> {
        vec![
            step("Conv", &["x", "w"], &[("a", Some(100))]),
            step("Relu", &["a"], &[("b", Some(100))]),
            step("Reshape", &["b", "shape"], &[("c", Some(100))]),
            step("Conv", &["c", "w"], &[("d", Some(100))]),
            step("Add", &["d", "b"], &[("e", Some(100))]),
            step("Gemm", &["e", "w2"], &[("y", None)]),
        ]
    }

    #[test]
    fn plain_peak_frees_after_the_last_reader() {
        let peaks = peaks(&chain());
        assert_eq!(peaks.tensors, 5);
        assert_eq!(peaks.naive, 500);
        // At the Add: b (read there), d and e are live; a died at the Relu, c at the Conv.
        assert_eq!(peaks.plain, 300);
    }

    #[test]
    fn views_share_and_elementwise_writes_over_a_dying_input() {
        // Relu writes over a (dies there); the Reshape is b's bytes; the Add writes over d
        // (b is read there too, but lives in the same step only as an input of the Add).
        // Live at the Add: {a, b, c} and d, then e in d's buffer: 200.
        assert_eq!(peaks(&chain()).views_in_place, 200);
    }

    #[test]
    fn no_write_over_an_input_read_later_or_of_another_size() {
        let steps = vec![
            step("Relu", &["x"], &[("a", Some(64))]),
            step("Sigmoid", &["a"], &[("b", Some(64))]),
            step("Mul", &["a", "b"], &[("c", Some(64))]),
            step("Cast", &["c"], &[("d", Some(16))]),
            step("Gemm", &["d"], &[("y", None)]),
        ];
        let peaks = peaks(&steps);
        // Sigmoid cannot take a (read by the Mul); the Mul takes one of a, b; the Cast makes
        // a smaller buffer.
        assert_eq!(peaks.plain, 192);
        assert_eq!(peaks.views_in_place, 128);
    }

    #[test]
    fn views_of_graph_inputs_and_unread_outputs() {
        let steps = vec![
            step("Flatten", &["x"], &[("f", Some(40))]),
            step("Relu", &["f"], &[("r", Some(40))]),
            step("Split", &["r"], &[("s0", Some(20)), ("s1", Some(20))]),
            step("Relu", &["s0"], &[("y", None)]),
        ];
        let peaks = peaks(&steps);
        // Plain: f and r live at the Relu (80); r, s0 and s1 at the Split (80).
        assert_eq!(peaks.plain, 80);
        // f is x's bytes; r then needs its own buffer (f is no activation to write over);
        // s1 is never read and dies at the Split.
        assert_eq!(peaks.views_in_place, 80);
        assert_eq!(peaks.tensors, 4);
    }

    #[test]
    fn two_outputs_never_take_one_buffer() {
        let steps = vec![
            step("Relu", &["x"], &[("a", Some(8))]),
            step("Where", &["a", "a"], &[("b", Some(8))]),
            step("Mul", &["a"], &[("c", Some(8)), ("d", Some(8))]),
            step("Concat", &["b", "c", "d"], &[("y", None)]),
        ];
        let peaks = peaks(&steps);
        assert_eq!(peaks.views_in_place, 24);
    }
}
