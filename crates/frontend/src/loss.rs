//! `NegativeLogLikelihoodLoss` and `SoftmaxCrossEntropyLoss` as subgraphs, with ONNX's
//! reference semantics: the input at each target class (GatherElements along the class
//! axis), negated; positions whose target is `ignore_index` give 0 and weigh 0; per-class
//! weights gathered by target; `mean` divides by the summed weights (by the count when there
//! are neither weights nor an ignored index, and, for NegativeLogLikelihoodLoss without
//! weights and with `ignore_index = -1`, by every element, as the reference does).
//! SoftmaxCrossEntropyLoss is the same on LogSoftmax of the scores, which is its optional
//! second output.

use crate::expand::{attr_i, Expansion};
use crate::import::{attribute, operand, required, Importer};
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    pub(crate) fn loss(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let cross_entropy = node.op_type() == "SoftmaxCrossEntropyLoss";
        let (scores, target) = (required(node, 0)?, required(node, 1)?);
        let weight = operand(node, 2);
        let (x_shape, dtype) = self.shape_of(scores)?;
        let (t_shape, t_type) = self.shape_of(target)?;
        if x_shape.len() < 2 || t_shape.len() + 1 != x_shape.len() {
            return Err(
                format!("scores {x_shape:?} and targets {t_shape:?} do not match (N x C x ... and N x ...)").into()
            );
        }
        let reduction = attribute(node, "reduction").map(|a| String::from_utf8_lossy(a.s()).into_owned());
        let reduction = reduction.as_deref().unwrap_or("mean").to_owned();
        if !matches!(reduction.as_str(), "none" | "sum" | "mean") {
            return Err(format!("reduction '{reduction}' is not none, sum or mean").into());
        }
        let ignore = attribute(node, "ignore_index").map(|a| a.i());
        let mut e = Expansion::new(block, node, index);
        let log_prob =
            if cross_entropy { Some(e.op(self, "LogSoftmax", &[scores], vec![attr_i("axis", 1)])?) } else { None };
        let x = log_prob.clone().unwrap_or_else(|| scores.to_owned());
        // Ignored positions read class 0 (any valid class) and are zeroed afterwards.
        let (safe, mask) = match ignore {
            Some(ii) => {
                let ii = e.constant(self, crate::fold::from_f64(vec![], t_type, &[ii as f64])?)?;
                let mask = e.op(self, "Equal", &[target, &ii], vec![])?;
                let zero = e.constant(self, crate::fold::from_f64(vec![], t_type, &[0.0])?)?;
                (e.op(self, "Where", &[&mask, &zero, target], vec![])?, Some(mask))
            }
            None => (target.to_owned(), None),
        };
        let axis = e.ints(self, &[1]);
        let lifted = e.op(self, "Unsqueeze", &[&safe, &axis], vec![])?;
        let picked = e.op(self, "GatherElements", &[&x, &lifted], vec![attr_i("axis", 1)])?;
        let picked = e.op(self, "Squeeze", &[&picked, &axis], vec![])?;
        let mut loss = e.op(self, "Neg", &[&picked], vec![])?;
        let zero = e.scalar(self, dtype, 0.0)?;
        if let Some(mask) = &mask {
            loss = e.op(self, "Where", &[mask, &zero, &loss], vec![])?;
        }
        let weights = match (weight, &mask) {
            (Some(w), _) => {
                let gathered = e.op(self, "Gather", &[w, &safe], vec![attr_i("axis", 0)])?;
                Some(match &mask {
                    Some(mask) => e.op(self, "Where", &[mask, &zero, &gathered], vec![])?,
                    None => gathered,
                })
            }
            (None, Some(mask)) if cross_entropy || ignore != Some(-1) => {
                let one = e.scalar(self, dtype, 1.0)?;
                Some(e.op(self, "Where", &[mask, &zero, &one], vec![])?)
            }
            _ => None,
        };
        if let Some(w) = &weights {
            loss = e.op(self, "Mul", &[&loss, w], vec![])?;
        }
        let all: Vec<i64> = (0..t_shape.len() as i64).collect();
        let all = e.ints(self, &all);
        let scalar = vec![attr_i("keepdims", 0)];
        let y = match reduction.as_str() {
            "none" => loss,
            "sum" => e.op(self, "ReduceSum", &[&loss, &all], scalar)?,
            _ => match &weights {
                Some(w) => {
                    let total = e.op(self, "ReduceSum", &[&loss, &all], scalar.clone())?;
                    let weight_sum = e.op(self, "ReduceSum", &[w, &all], scalar)?;
                    e.op(self, "Div", &[&total, &weight_sum], vec![])?
                }
                None => e.op(self, "ReduceMean", &[&loss, &all], scalar)?,
            },
        };
        self.alias(&y, node.output[0].clone())?;
        if let (Some(output), Some(log_prob)) = (node.output.get(1).filter(|o| !o.is_empty()), log_prob) {
            self.alias(&log_prob, output.clone())?;
        }
        Ok(())
    }
}
