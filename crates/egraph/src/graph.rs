//! The plain-data tensor graph the optimiser reads (built from `sg` by the MLIR adapter, or
//! by hand in tests): nodes in topological order, each with an op, its inputs, its result
//! shape and element size.

use strata_error::Error;
use strata_sg_kinds::ScalarOp;

/// What a node computes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Op {
    /// Graph input `i` (caller-owned storage: never written).
    Input(usize),
    /// Constant `i` (read-only storage).
    Constant(usize),
    /// An opaque kernel (convolution, matmul, reduction, ...): reads contiguous inputs, writes
    /// a new contiguous buffer. `name` is for reports; the adapter keeps the real op.
    Kernel(String),
    /// Elementwise over inputs of the result's shape (written as its text, `clip<0.0,6.0>`).
    Elementwise(#[serde(with = "scalar_text")] ScalarOp),
    /// `x[starts[k] :: steps[k]]` along every axis, the result's shape giving the extents.
    Slice { starts: Vec<i64>, steps: Vec<i64> },
    /// Axes permuted: result axis `k` is input axis `perm[k]`.
    Transpose { perm: Vec<usize> },
    /// The same elements in row-major order, the result's shape.
    Reshape,
    /// NumPy broadcasting to the result's shape (right-aligned; size-1 axes repeat).
    Broadcast,
}

impl Op {
    /// Whether the op only moves data (a view candidate).
    pub fn is_movement(&self) -> bool {
        matches!(self, Op::Slice { .. } | Op::Transpose { .. } | Op::Reshape | Op::Broadcast)
    }
}

/// One node.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub op: Op,
    pub inputs: Vec<usize>,
    pub shape: Vec<i64>,
    /// Bytes per element.
    pub elem_bytes: u64,
}

impl Node {
    pub fn elements(&self) -> i64 {
        self.shape.iter().product()
    }

    pub fn bytes(&self) -> u64 {
        self.elements().max(0) as u64 * self.elem_bytes
    }
}

/// A graph: nodes in topological order (inputs before users), and the outputs. It reads and
/// writes as JSON ([`Graph::to_json`], [`Graph::from_json`]) so that graphs taken from real
/// models can be optimised without MLIR (the `egraph` benchmark).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub outputs: Vec<usize>,
    /// The kernels (node indices) that can run an elementwise epilogue on their result in the
    /// same launch (a convolution's bias and activation): the lowering applies it to each
    /// result tile while it is still in registers.
    pub epilogue_kernels: std::collections::BTreeSet<usize>,
}

impl Graph {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("graphs serialise")
    }

    /// Reads a graph written by [`Graph::to_json`], and checks it.
    pub fn from_json(text: &str) -> Result<Graph, Error> {
        let graph: Graph = serde_json::from_str(text).map_err(|e| Error::invalid_input(format!("not a graph: {e}")))?;
        graph.validate()?;
        Ok(graph)
    }

    /// Appends a node; returns its index.
    pub fn add(&mut self, op: Op, inputs: &[usize], shape: &[i64], elem_bytes: u64) -> usize {
        self.nodes.push(Node { op, inputs: inputs.to_vec(), shape: shape.to_vec(), elem_bytes });
        self.nodes.len() - 1
    }

    /// How many nodes read each node (outputs count as readers).
    pub fn uses(&self) -> Vec<u32> {
        let mut uses = vec![0u32; self.nodes.len()];
        for node in &self.nodes {
            for &input in &node.inputs {
                uses[input] += 1;
            }
        }
        for &output in &self.outputs {
            uses[output] += 1;
        }
        uses
    }

    /// Checks structure: inputs before users, arities, output indices.
    pub fn validate(&self) -> Result<(), Error> {
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some(&bad) = node.inputs.iter().find(|&&j| j >= i) {
                return Err(Error::invalid_input(format!("node {i} reads node {bad}, which does not come before it")));
            }
            let arity = match &node.op {
                Op::Input(_) | Op::Constant(_) => Some(0),
                Op::Kernel(_) => None,
                Op::Elementwise(op) => Some(op.arity()),
                _ => Some(1),
            };
            if let Some(arity) = arity {
                if node.inputs.len() != arity {
                    return Err(Error::invalid_input(format!(
                        "node {i} ({:?}) takes {arity} inputs, has {}",
                        node.op,
                        node.inputs.len()
                    )));
                }
            }
            if let Op::Elementwise(_) = node.op {
                if let Some(&j) = node.inputs.iter().find(|&&j| self.nodes[j].shape != node.shape) {
                    return Err(Error::invalid_input(format!(
                        "elementwise node {i} reads node {j} of shape {:?}, not {:?} (broadcast it first)",
                        self.nodes[j].shape, node.shape
                    )));
                }
            }
        }
        if let Some(&bad) = self.outputs.iter().find(|&&o| o >= self.nodes.len()) {
            return Err(Error::invalid_input(format!("output {bad} is not a node")));
        }
        if let Some(&bad) =
            self.epilogue_kernels.iter().find(|&&k| !matches!(self.nodes.get(k).map(|n| &n.op), Some(Op::Kernel(_))))
        {
            return Err(Error::invalid_input(format!("node {bad} takes an epilogue but is not a kernel")));
        }
        Ok(())
    }
}

/// `ScalarOp` in JSON as its text form (`clip<0.0,6.0>`); the table crate has no serde.
mod scalar_text {
    use serde::{Deserialize, Deserializer, Serializer};
    use strata_sg_kinds::ScalarOp;

    pub fn serialize<S: Serializer>(op: &ScalarOp, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(op)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<ScalarOp, D::Error> {
        String::deserialize(deserializer)?.parse().map_err(serde::de::Error::custom)
    }
}
