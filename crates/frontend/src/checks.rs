//! Run-time checks: what ONNX calls an error but only the values computed at run time can
//! reveal, reported by the compiled entry point's status instead of a clamped read (a
//! plausible wrong answer) or a trap.
//!
//! - Indices of Gather, GatherElements, GatherND, Scatter, ScatterElements and ScatterND
//!   outside `[-n, n)` of the dimension they index. The kernels still clamp (so no access is
//!   out of bounds), and the status says the result is not to be used.
//! - Integer Div and Mod by zero. The kernels divide by 1 there instead of trapping (and
//!   `INT_MIN / -1` wraps), and the status says so.
//!
//! Each check is a small graph of ONNX operators (`crate::expand`): a flag per element, its
//! maximum over the tensor, times the check's code (its position in [`Importer::checks`] plus
//! one). `@main` returns the maximum of all codes as one more result after the model's
//! outputs (`strata.status_checks` names the checks, in code order); the entry point returns
//! it (0: every check passed). Checks are made for the model's own nodes at the top level;
//! nodes inside Loop bodies and If branches, and the operators the importer builds itself
//! (whose indices are in range by construction or clamped on purpose), are not checked.

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{node_name, operand, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// Adds the run-time checks `node` needs (before it is imported).
    pub(crate) fn run_time_checks(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        if self.expanding > 0 || !self.scopes.is_empty() || !matches!(node.domain(), "" | "ai.onnx") {
            return Ok(());
        }
        match node.op_type() {
            "Gather" | "GatherElements" | "ScatterElements" | "Scatter" => {
                let (Some(data), Some(indices)) = (operand(node, 0), operand(node, 1)) else { return Ok(()) };
                if self.folded(indices).is_some() {
                    return Ok(());
                }
                let (shape, _) = self.shape_of(data)?;
                let axis = crate::shapes::axis(crate::import::int(node, "axis", 0), shape.len() as i64)?;
                self.check_indices(block, node, index, indices, &[shape[axis]])
            }
            "GatherND" | "ScatterND" => {
                let (Some(data), Some(indices)) = (operand(node, 0), operand(node, 1)) else { return Ok(()) };
                if self.folded(indices).is_some() {
                    return Ok(());
                }
                let ((shape, _), (index_shape, _)) = (self.shape_of(data)?, self.shape_of(indices)?);
                let batch = if node.op_type() == "GatherND" {
                    crate::import::int(node, "batch_dims", 0).max(0) as usize
                } else {
                    0
                };
                let k = index_shape.last().copied().unwrap_or(0).max(0) as usize;
                match shape.get(batch..batch + k) {
                    Some(bounds) if !bounds.is_empty() => {
                        let bounds = bounds.to_vec();
                        self.check_indices(block, node, index, indices, &bounds)
                    }
                    _ => Ok(()),
                }
            }
            "Div" | "Mod" => {
                let Some(divisor) = operand(node, 1) else { return Ok(()) };
                let (_, dtype) = self.shape_of(divisor)?;
                if !is_integer(dtype) {
                    return Ok(());
                }
                if let Some(constant) = self.folded(divisor) {
                    if constant.ints()?.contains(&0) {
                        return Err(Error::invalid_input(format!(
                            "integer {} by zero: the constant divisor '{divisor}' holds 0",
                            if node.op_type() == "Div" { "division" } else { "modulo" }
                        )));
                    }
                    return Ok(());
                }
                let mut e = Expansion::named(block, format!("{}::check", node_name(node, index)), index);
                let zero = e.scalar(self, dtype, 0.0)?;
                let bad = e.op(self, "Equal", &[divisor, &zero], vec![])?;
                let what = if node.op_type() == "Div" { "integer division" } else { "integer modulo" };
                self.add_check(&mut e, &bad, format!("{}: {what} by zero (divisor '{divisor}')", describe(node, index)))
            }
            _ => Ok(()),
        }
    }

    /// A check that every entry of `indices` indexes a dimension of its bound (`bounds[j]`
    /// for position `j` of the last axis when there are several, as GatherND's tuples).
    fn check_indices(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        indices: &str,
        bounds: &[i64],
    ) -> Result<(), Error> {
        let (_, dtype) = self.shape_of(indices)?;
        if !matches!(dtype, DataType::Int64 | DataType::Int32) {
            return Ok(());
        }
        let mut e = Expansion::named(block, format!("{}::check", node_name(node, index)), index);
        let wide = if dtype == DataType::Int32 {
            e.op(self, "Cast", &[indices], vec![attr_i("to", DataType::Int64 as i64)])?
        } else {
            indices.to_owned()
        };
        let shape = if bounds.len() == 1 { vec![] } else { vec![bounds.len() as i64] };
        let low: Vec<i64> = bounds.iter().map(|b| -b).collect();
        let high: Vec<i64> = bounds.iter().map(|b| b - 1).collect();
        let low = e.constant(self, Folded::from_i64(shape.clone(), &low));
        let high = e.constant(self, Folded::from_i64(shape, &high));
        let below = e.op(self, "Less", &[&wide, &low], vec![])?;
        let above = e.op(self, "Greater", &[&wide, &high], vec![])?;
        let bad = e.op(self, "Or", &[&below, &above], vec![])?;
        let range = if bounds.len() == 1 {
            format!("[{}, {})", -bounds[0], bounds[0])
        } else {
            format!("the dimensions {bounds:?} (each from -n to n-1)")
        };
        self.add_check(&mut e, &bad, format!("{}: an index in '{indices}' is outside {range}", describe(node, index)))
    }

    /// Records the check whose failures are the `true`s of the boolean tensor `bad`.
    fn add_check(&mut self, e: &mut Expansion, bad: &str, message: String) -> Result<(), Error> {
        let code = self.checks.len() as i64 + 1;
        let flags = e.op(self, "Cast", &[bad], vec![attr_i("to", DataType::Int32 as i64)])?;
        let any = e.op(self, "ReduceMax", &[&flags], vec![attr_i("keepdims", 0)])?;
        let code_value = e.scalar(self, DataType::Int32, code as f64)?;
        let status = e.op(self, "Mul", &[&any, &code_value], vec![])?;
        self.checks.push((status, message));
        Ok(())
    }
}

fn is_integer(dtype: DataType) -> bool {
    matches!(
        dtype,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Uint8
            | DataType::Uint16
            | DataType::Uint32
            | DataType::Uint64
    )
}

/// How a check names its node: `node #3 'embed' (Gather)`.
fn describe(node: &NodeProto, index: usize) -> String {
    format!("node #{index} '{}' ({})", node_name(node, index), node.op_type())
}
