//! The optimisers of the `ai.onnx.preview.training` domain (version 1): `Adagrad`, `Momentum`
//! (standard and Nesterov) and `Adam`, each one update step of every tensor it is given, as
//! elementwise expansions following ONNX's reference. Their inputs are the learning rate `R`
//! and the update count `T` (scalars, either may be a run-time input), then `n` tensors of
//! each kind (`X...`, `G...`, and the state: `H...` for Adagrad, `V...` for Momentum, `V...`
//! and `H...` for Adam); their outputs the new `X...` then the new state, kind by kind.

use crate::expand::{attr_i, Expansion};
use crate::import::{attribute, required, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    pub(crate) fn optimiser(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let op = node.op_type();
        let states = match op {
            "Adagrad" | "Momentum" => 1,
            _ => 2,
        };
        let kinds = 2 + states;
        let tensors = node.input.len().saturating_sub(2);
        if tensors == 0 || !tensors.is_multiple_of(kinds) || node.output.len() != tensors / kinds * (1 + states) {
            let per_tensor = match op {
                "Adagrad" => "X, G and H",
                "Momentum" => "X, G and V",
                _ => "X, G, V and H",
            };
            return Err(Error::invalid_input(format!(
                "{op} takes R, T and {kinds} inputs per tensor ({per_tensor}, the tensors' X first, then their G, ...) and gives {} outputs per tensor; it has {} inputs and {} outputs",
                1 + states,
                node.input.len(),
                node.output.len()
            )));
        }
        let n = tensors / kinds;
        let (r, t) = (required(node, 0)?, required(node, 1)?);
        let float = |name: &str, default: f32| attribute(node, name).map_or(default, |a| a.f());
        let mut e = Expansion::new(block, node, index);
        let (_, r_type) = self.shape_of(r)?;
        if !matches!(r_type, DataType::Float | DataType::Double) {
            return Err(Error::invalid_input(format!("the learning rate R must be f32 or f64, got {r_type:?}")));
        }
        // The update count as the learning rate's type, and whether it is positive.
        let t_float = e.op(self, "Cast", &[t], vec![attr_i("to", r_type as i64)])?;
        let zero = e.scalar(self, r_type, 0.0)?;
        let started = e.op(self, "Greater", &[&t_float, &zero], vec![])?;
        // The step's learning rate, shared by every tensor: Adagrad's decayed `R / (1 + T *
        // decay_factor)`, Adam's bias-corrected `R * sqrt(1 - beta^T) / (1 - alpha^T)` once T >
        // 0, Momentum's R.
        let one = e.scalar(self, r_type, 1.0)?;
        let rate = match op {
            "Adagrad" => {
                let factor = e.scalar(self, r_type, f64::from(float("decay_factor", 0.0)))?;
                let decayed = e.op(self, "Mul", &[&t_float, &factor], vec![])?;
                let denominator = e.op(self, "Add", &[&one, &decayed], vec![])?;
                e.op(self, "Div", &[r, &denominator], vec![])?
            }
            "Adam" => {
                let mut corrections = Vec::new();
                for base in [float("alpha", 0.9), float("beta", 0.999)] {
                    let base = e.scalar(self, r_type, f64::from(base))?;
                    let power = e.op(self, "Pow", &[&base, &t_float], vec![])?;
                    corrections.push(e.op(self, "Sub", &[&one, &power], vec![])?);
                }
                let beta_root = e.op(self, "Sqrt", &[&corrections[1]], vec![])?;
                let corrected = e.op(self, "Mul", &[r, &beta_root], vec![])?;
                let corrected = e.op(self, "Div", &[&corrected, &corrections[0]], vec![])?;
                e.op(self, "Where", &[&started, &corrected, r], vec![])?
            }
            _ => r.to_owned(),
        };
        let mut outputs: Vec<Vec<String>> = vec![Vec::new(); 1 + states];
        for i in 0..n {
            let input = |kind: usize| required(node, 2 + kind * n + i);
            let (x, g) = (input(0)?, input(1)?);
            let (_, dtype) = self.shape_of(x)?;
            let scalar = |e: &mut Expansion, this: &mut Self, value: f32| e.scalar(this, dtype, f64::from(value));
            let cast = |e: &mut Expansion, this: &mut Self, value: &str| -> Result<String, Error> {
                match dtype == r_type {
                    true => Ok(value.to_owned()),
                    false => e.op(this, "Cast", &[value], vec![attr_i("to", dtype as i64)]),
                }
            };
            // The gradient with the regularisation term's: norm_coefficient * X + G.
            let norm = scalar(&mut e, self, float("norm_coefficient", 0.0))?;
            let decay = e.op(self, "Mul", &[&norm, x], vec![])?;
            let g = e.op(self, "Add", &[&decay, g], vec![])?;
            match op {
                "Adagrad" => {
                    // H' = H + g^2; X' = X - rate * g / (sqrt(H') + eps).
                    let h = input(2)?;
                    let rate = cast(&mut e, self, &rate)?;
                    let square = e.op(self, "Mul", &[&g, &g], vec![])?;
                    let h_new = e.op(self, "Add", &[h, &square], vec![])?;
                    let root = e.op(self, "Sqrt", &[&h_new], vec![])?;
                    let epsilon = scalar(&mut e, self, float("epsilon", 0.0))?;
                    let adaptive = e.op(self, "Add", &[&root, &epsilon], vec![])?;
                    let step = e.op(self, "Mul", &[&rate, &g], vec![])?;
                    let step = e.op(self, "Div", &[&step, &adaptive], vec![])?;
                    outputs[0].push(e.op(self, "Sub", &[x, &step], vec![])?);
                    outputs[1].push(h_new);
                }
                "Momentum" => {
                    // V' = alpha * V + (T > 0 ? beta : 1) * g; X' = X - rate * V' (standard)
                    // or X - rate * (g + alpha * V') (Nesterov).
                    let v = input(2)?;
                    let mode = attribute(node, "mode").map(|a| String::from_utf8_lossy(a.s()).into_owned());
                    let nesterov = match mode.as_deref() {
                        Some("standard") => false,
                        Some("nesterov") => true,
                        other => {
                            let given = other.map_or_else(|| "none".to_owned(), |m| format!("\"{m}\""));
                            return Err(Error::invalid_input(format!(
                                "Momentum's mode must be \"standard\" or \"nesterov\", got {given}"
                            )));
                        }
                    };
                    let alpha = scalar(&mut e, self, float("alpha", 0.0))?;
                    let (beta, one) = (scalar(&mut e, self, float("beta", 0.0))?, scalar(&mut e, self, 1.0)?);
                    let beta = e.op(self, "Where", &[&started, &beta, &one], vec![])?;
                    let kept = e.op(self, "Mul", &[&alpha, v], vec![])?;
                    let added = e.op(self, "Mul", &[&beta, &g], vec![])?;
                    let v_new = e.op(self, "Add", &[&kept, &added], vec![])?;
                    let direction = if nesterov {
                        let ahead = e.op(self, "Mul", &[&alpha, &v_new], vec![])?;
                        e.op(self, "Add", &[&g, &ahead], vec![])?
                    } else {
                        v_new.clone()
                    };
                    let rate = cast(&mut e, self, &rate)?;
                    let step = e.op(self, "Mul", &[&rate, &direction], vec![])?;
                    outputs[0].push(e.op(self, "Sub", &[x, &step], vec![])?);
                    outputs[1].push(v_new);
                }
                _ => {
                    // V' = alpha V + (1 - alpha) g; H' = beta H + (1 - beta) g^2; X' = (1 -
                    // post) * (X - rate * V' / (sqrt(H') + eps)).
                    let (v, h) = (input(2)?, input(3)?);
                    let (alpha, beta) = (float("alpha", 0.9), float("beta", 0.999));
                    let (a, a1) = (scalar(&mut e, self, alpha)?, scalar(&mut e, self, 1.0 - alpha)?);
                    let (b, b1) = (scalar(&mut e, self, beta)?, scalar(&mut e, self, 1.0 - beta)?);
                    let kept = e.op(self, "Mul", &[&a, v], vec![])?;
                    let added = e.op(self, "Mul", &[&a1, &g], vec![])?;
                    let v_new = e.op(self, "Add", &[&kept, &added], vec![])?;
                    let square = e.op(self, "Mul", &[&g, &g], vec![])?;
                    let kept = e.op(self, "Mul", &[&b, h], vec![])?;
                    let added = e.op(self, "Mul", &[&b1, &square], vec![])?;
                    let h_new = e.op(self, "Add", &[&kept, &added], vec![])?;
                    let root = e.op(self, "Sqrt", &[&h_new], vec![])?;
                    let epsilon = scalar(&mut e, self, float("epsilon", 1e-6))?;
                    let h_sqrt = e.op(self, "Add", &[&root, &epsilon], vec![])?;
                    let rate = cast(&mut e, self, &rate)?;
                    let ratio = e.op(self, "Div", &[&v_new, &h_sqrt], vec![])?;
                    let step = e.op(self, "Mul", &[&rate, &ratio], vec![])?;
                    let x_new = e.op(self, "Sub", &[x, &step], vec![])?;
                    let post = scalar(&mut e, self, 1.0 - float("norm_coefficient_post", 0.0))?;
                    outputs[0].push(e.op(self, "Mul", &[&post, &x_new], vec![])?);
                    outputs[1].push(v_new);
                    outputs[2].push(h_new);
                }
            }
        }
        for (value, output) in outputs.into_iter().flatten().zip(node.output.iter()) {
            if !output.is_empty() {
                self.alias(&value, output.clone())?;
            }
        }
        Ok(())
    }
}
