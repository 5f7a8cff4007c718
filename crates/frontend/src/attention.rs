//! ONNX `Attention` (opsets 23-25) as a subgraph, following ONNX's reference: 3-D inputs split
//! into heads, the past key/value cache concatenated (the present outputs), grouped-query
//! heads repeated, `(Q * sqrt(scale)) x (K * sqrt(scale))^T`, softcap, an additive bias made
//! of the attention mask (boolean masks as 0 / -inf, padded with -inf to the key length), the
//! causal and sliding-window masks (offset by the cache or by `nonpad_kv_seqlen`) and the key
//! padding mask, the softmax (in `softmax_precision`; fully masked rows give zeros), and the
//! product with V. `qk_matmul_output_mode` picks which intermediate the fourth output is.
//! Every mask that depends only on shapes and frozen inputs folds into a constant.

use crate::expand::{attr_i, attr_ints, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, node_name, operand, required, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    pub(crate) fn attention(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (q, k, v) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let (q_shape, dtype) = self.shape_of(q)?;
        let rank = q_shape.len();
        let mut e = Expansion::new(block, node, index);
        let perm = |e: &mut Expansion, this: &mut Self, x: &str, p: &[i64]| -> Result<String, Error> {
            e.op(this, "Transpose", &[x], vec![attr_ints("perm", p)])
        };
        let reshape = |e: &mut Expansion, this: &mut Self, x: &str, shape: &[i64]| -> Result<String, Error> {
            let shape = e.ints(this, shape);
            e.op(this, "Reshape", &[x, &shape], vec![])
        };
        // Heads: [B, heads, S, H].
        let (mut q, mut k, mut v) = (q.to_owned(), k.to_owned(), v.to_owned());
        if rank == 3 {
            let heads = |name: &str| {
                attribute(node, name)
                    .map(|a| a.i())
                    .ok_or_else(|| Error::invalid_input(format!("3-D Attention inputs need the '{name}' attribute")))
            };
            let (qh, kvh) = (heads("q_num_heads")?, heads("kv_num_heads")?);
            for (x, h) in [(&mut q, qh), (&mut k, kvh), (&mut v, kvh)] {
                let (s, _) = self.shape_of(x)?;
                if h < 1 || s[2] % h != 0 {
                    return Err(format!("hidden size {} is not a multiple of {h} heads", s[2]).into());
                }
                let split = reshape(&mut e, self, x, &[s[0], s[1], h, s[2] / h])?;
                *x = perm(&mut e, self, &split, &[0, 2, 1, 3])?;
            }
        } else if rank != 4 {
            return Err(format!("Attention inputs must be 3-D or 4-D, got {q_shape:?}").into());
        }
        let (q4, _) = self.shape_of(&q)?;
        let (batch, q_heads, q_len, head) = (q4[0], q4[1], q4[2], q4[3]);
        // The cache: present = past ++ new.
        let past = operand(node, 4).map(|p| self.shape_of(p).map(|(s, _)| s[2])).transpose()?;
        for (x, slot) in [(&mut k, 4), (&mut v, 5)] {
            if let Some(past) = operand(node, slot) {
                *x = e.op(self, "Concat", &[past, x], vec![attr_i("axis", 2)])?;
            }
        }
        let (k4, _) = self.shape_of(&k)?;
        let (kv_heads, kv_len) = (k4[1], k4[2]);
        // The present key and value: the cache with the new ones, before any head repetition.
        let present = [k.clone(), v.clone()];
        let scale = attribute(node, "scale").map_or(1.0 / (head as f64).sqrt(), |a| a.f() as f64);
        let root = e.scalar(self, dtype, scale.sqrt())?;
        let neg_inf = e.scalar(self, dtype, f64::NEG_INFINITY)?;
        let zero = e.scalar(self, dtype, 0.0)?;
        // The additive bias [.., q_len, kv_len], when any mask applies.
        let mut bias: Option<String> = None;
        if let Some(mask) = operand(node, 3) {
            let (m_shape, m_type) = self.shape_of(mask)?;
            let mut m = mask.to_owned();
            let short = kv_len - m_shape.last().copied().unwrap_or(kv_len);
            if short > 0 {
                let mut pads = vec![0; 2 * m_shape.len()];
                pads[2 * m_shape.len() - 1] = short;
                let pads = e.ints(self, &pads);
                let fill = if m_type == DataType::Bool {
                    e.constant(self, Folded::scalar_of(DataType::Bool, 0.0)?)?
                } else {
                    neg_inf.clone()
                };
                m = e.op(self, "Pad", &[&m, &pads, &fill], vec![])?;
            }
            if m_type == DataType::Bool {
                m = e.op(self, "Where", &[&m, &zero, &neg_inf], vec![])?;
            }
            bias = Some(m);
        }
        let nonpad = operand(node, 6);
        let nonpad_lengths = match nonpad {
            Some(name) => Some(
                self.folded(name)
                    .ok_or_else(|| Error::unsupported("nonpad_kv_seqlen computed at run time (freeze it)"))?
                    .ints()?,
            ),
            None => None,
        };
        // Where query i may look: j - (i + offset) within the causal and window limits; offsets
        // per batch with nonpad_kv_seqlen, else the cache length.
        let causal = int(node, "is_causal", 0) != 0;
        let (left, right) = (int(node, "left_window_size", -1), int(node, "right_window_size", -1));
        if causal || left >= 0 || right >= 0 {
            let offsets: Vec<i64> = match (&nonpad_lengths, past) {
                (Some(lengths), None) => lengths.iter().map(|l| l - q_len).collect(),
                (_, Some(p)) => vec![p],
                (None, None) => vec![0],
            };
            let per_batch = offsets.len() > 1 || nonpad_lengths.is_some() && past.is_none();
            let mut values = Vec::new();
            for offset in &offsets {
                for i in 0..q_len {
                    for j in 0..kv_len {
                        let diff = i + offset - j;
                        let allowed =
                            (!causal || diff >= 0) && (left < 0 || diff <= left) && (right < 0 || -diff <= right);
                        values.push(if allowed { 0.0 } else { f64::NEG_INFINITY });
                    }
                }
            }
            let shape = if per_batch { vec![offsets.len() as i64, 1, q_len, kv_len] } else { vec![q_len, kv_len] };
            let limits = e.constant(self, crate::fold::from_f64(shape, dtype, &values)?)?;
            bias = Some(match bias {
                Some(b) => e.op(self, "Add", &[&b, &limits], vec![])?,
                None => limits,
            });
        }
        if let Some(lengths) = &nonpad_lengths {
            let values: Vec<f64> = lengths
                .iter()
                .flat_map(|&l| (0..kv_len).map(move |j| if j < l { 0.0 } else { f64::NEG_INFINITY }))
                .collect();
            let padding = e.constant(self, crate::fold::from_f64(vec![batch, 1, 1, kv_len], dtype, &values)?)?;
            bias = Some(match bias {
                Some(b) => e.op(self, "Add", &[&b, &padding], vec![])?,
                None => padding,
            });
        }
        // Grouped-query attention: each key/value head serves q_heads / kv_heads query heads.
        if q_heads != kv_heads && kv_heads > 0 && q_heads % kv_heads == 0 {
            k = self.repeat_heads(&mut e, &k, q_heads)?;
            v = self.repeat_heads(&mut e, &v, q_heads)?;
        }
        let qs = e.op(self, "Mul", &[&q, &root], vec![])?;
        let ks = e.op(self, "Mul", &[&k, &root], vec![])?;
        let kt = perm(&mut e, self, &ks, &[0, 1, 3, 2])?;
        let mut scores = e.op(self, "MatMul", &[&qs, &kt], vec![])?;
        let softcap = attribute(node, "softcap").map_or(0.0, |a| a.f() as f64);
        if softcap > 0.0 {
            let cap = e.scalar(self, dtype, softcap)?;
            let scaled = e.op(self, "Div", &[&scores, &cap], vec![])?;
            let bounded = e.op(self, "Tanh", &[&scaled], vec![])?;
            scores = e.op(self, "Mul", &[&bounded, &cap], vec![])?;
        }
        let mode = int(node, "qk_matmul_output_mode", 0);
        let mut qk_output = scores.clone();
        let biased = match &bias {
            Some(b) => e.op(self, "Add", &[&scores, b], vec![])?,
            None => scores,
        };
        if mode == 2 {
            qk_output = biased.clone();
        }
        let precision = int(node, "softmax_precision", 0);
        let soft_input = if precision != 0 && precision != dtype as i64 {
            e.op(self, "Cast", &[&biased], vec![attr_i("to", precision)])?
        } else {
            biased
        };
        let mut probabilities = e.op(self, "Softmax", &[&soft_input], vec![attr_i("axis", -1)])?;
        if precision != 0 && precision != dtype as i64 {
            probabilities = e.op(self, "Cast", &[&probabilities], vec![attr_i("to", dtype as i64)])?;
        }
        // A fully masked row gives zeros (its softmax would divide 0 by 0). A constant bias
        // (causal and window masks) without such a row needs no guard.
        let guarded = match bias.as_deref().map(|b| self.folded(b)) {
            Some(Some(constant)) => {
                let row = *constant.shape.last().unwrap_or(&1) as usize;
                let values = constant.floats()?;
                values.chunks(row.max(1)).any(|r| r.iter().all(|v| *v == f64::NEG_INFINITY))
            }
            Some(None) => true,
            None => false,
        };
        if let Some(b) = bias.as_ref().filter(|_| guarded) {
            let axes = e.ints(self, &[-1]);
            let row_max = e.op(self, "ReduceMax", &[b, &axes], vec![attr_i("keepdims", 1)])?;
            let masked =
                e.op(self, "IsInf", &[&row_max], vec![attr_i("detect_positive", 0), attr_i("detect_negative", 1)])?;
            probabilities = e.op(self, "Where", &[&masked, &zero, &probabilities], vec![])?;
        }
        if mode == 3 {
            qk_output = probabilities.clone();
        }
        let mut y = e.op(self, "MatMul", &[&probabilities, &v], vec![])?;
        if rank == 3 {
            let moved = perm(&mut e, self, &y, &[0, 2, 1, 3])?;
            let (s, _) = self.shape_of(&moved)?;
            y = reshape(&mut e, self, &moved, &[s[0], s[1], s[2] * s[3]])?;
        }
        let [present_key, present_value] = present;
        for (k, value) in [y, present_key, present_value, qk_output].into_iter().enumerate() {
            if let Some(output) = node.output.get(k).filter(|o| !o.is_empty()) {
                self.alias(&value, output.clone())?;
            }
        }
        Ok(())
    }
}

impl Importer<'_> {
    /// `x` (`[batch, kv_heads, sequence, head]`) with each head repeated for the `q_heads /
    /// kv_heads` query heads that share it (grouped-query attention), in head order.
    fn repeat_heads(&mut self, e: &mut Expansion, x: &str, q_heads: i64) -> Result<String, Error> {
        let (s, _) = self.shape_of(x)?;
        let group = q_heads / s[1];
        let at = e.ints(self, &[2]);
        let lifted = e.op(self, "Unsqueeze", &[x, &at], vec![])?;
        let wide = e.ints(self, &[s[0], s[1], group, s[2], s[3]]);
        let repeated = e.op(self, "Expand", &[&lifted, &wide], vec![])?;
        let shape = e.ints(self, &[s[0], q_heads, s[2], s[3]]);
        e.op(self, "Reshape", &[&repeated, &shape], vec![])
    }

    /// `ai.onnx.preview::FlexAttention` (version 1), following its function body: grouped
    /// key/value heads repeated, `(Q * sqrt(scale)) x (K * sqrt(scale))^T` (the scale, `1 /
    /// sqrt(head size)` unless given, and its root computed in f32 as the body does), the
    /// scores cast to `softmax_precision` (f32, or f64 for f64 inputs, unless given), the
    /// `score_mod` graph, the softmax over keys, the `prob_mod` graph, the product with V in that
    /// precision, cast back. The two graphs (one input, one output, same shape) are imported
    /// inline, each in a scope of its own, like an `If` branch.
    pub(crate) fn flex_attention(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (q, k, v) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let (q_shape, dtype) = self.shape_of(q)?;
        let (k_shape, _) = self.shape_of(k)?;
        let (v_shape, _) = self.shape_of(v)?;
        if [&q_shape, &k_shape, &v_shape].iter().any(|s| s.len() != 4) {
            return Err(Error::invalid_input(format!(
                "Q, K and V must be 4-D (batch, heads, sequence, head size), got {q_shape:?}, {k_shape:?}, {v_shape:?}"
            )));
        }
        let (q_heads, kv_heads, head) = (q_shape[1], k_shape[1], q_shape[3]);
        if kv_heads < 1 || q_heads % kv_heads != 0 || v_shape[1] != kv_heads || k_shape[3] != head {
            return Err(Error::invalid_input(format!(
                "Q's heads ({q_heads}) must be a multiple of K's ({kv_heads}), V's heads ({}) equal K's, and K's head size ({}) equal Q's ({head})",
                v_shape[1], k_shape[3]
            )));
        }
        let mut e = Expansion::new(block, node, index);
        let (mut k, mut v) = (k.to_owned(), v.to_owned());
        if q_heads != kv_heads {
            k = self.repeat_heads(&mut e, &k, q_heads)?;
            v = self.repeat_heads(&mut e, &v, q_heads)?;
        }
        let scale = attribute(node, "scale").map_or_else(|| 1.0 / (head as f32).sqrt(), |a| a.f());
        let root = e.scalar(self, dtype, f64::from(scale.sqrt()))?;
        let qs = e.op(self, "Mul", &[q, &root], vec![])?;
        let ks = e.op(self, "Mul", &[&k, &root], vec![])?;
        let kt = e.op(self, "Transpose", &[&ks], vec![attr_ints("perm", &[0, 1, 3, 2])])?;
        let scores = e.op(self, "MatMul", &[&qs, &kt], vec![])?;
        let wide = if dtype == DataType::Double { DataType::Double } else { DataType::Float };
        let precision = match int(node, "softmax_precision", wide as i64) {
            p if p == DataType::Float as i64 => DataType::Float,
            p if p == DataType::Double as i64 => DataType::Double,
            p if p == DataType::Float16 as i64 => DataType::Float16,
            p if p == DataType::Bfloat16 as i64 => DataType::Bfloat16,
            p => return Err(Error::invalid_input(format!("softmax_precision {p} is not a floating-point type"))),
        };
        let to = |e: &mut Expansion, this: &mut Self, x: &str, t: DataType| -> Result<String, Error> {
            e.op(this, "Cast", &[x], vec![attr_i("to", t as i64)])
        };
        let mut scores = if precision == dtype { scores } else { to(&mut e, self, &scores, precision)? };
        scores = self.modifier(block, node, index, "score_mod", scores)?;
        let mut probabilities = e.op(self, "Softmax", &[&scores], vec![attr_i("axis", 3)])?;
        probabilities = self.modifier(block, node, index, "prob_mod", probabilities)?;
        let y = if precision == dtype {
            e.op(self, "MatMul", &[&probabilities, &v], vec![])?
        } else {
            let v = to(&mut e, self, &v, precision)?;
            let y = e.op(self, "MatMul", &[&probabilities, &v], vec![])?;
            to(&mut e, self, &y, dtype)?
        };
        self.alias(&y, node.output[0].clone())
    }

    /// `value` through the graph attribute `name` of `node` (one input, one output of the same
    /// shape and type), imported inline in a scope `<node>/<name>`; `value` itself without it.
    fn modifier(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        name: &str,
        value: String,
    ) -> Result<String, Error> {
        let Some(graph) = attribute(node, name).and_then(|a| a.g.as_ref()) else { return Ok(value) };
        let ([input], [_]) = (&graph.input[..], &graph.output[..]) else {
            return Err(Error::invalid_input(format!(
                "'{name}' must take one input and give one output, it has {} and {}",
                graph.input.len(),
                graph.output.len()
            )));
        };
        let prefix = format!("{}/{name}", node_name(node, index));
        let bindings = std::collections::BTreeMap::from([(input.name().to_owned(), value.clone())]);
        let result = self.import_scoped(block, prefix, bindings, graph, index)?.remove(0);
        let (before, after) = (self.shape_of(&value)?, self.shape_of(&result)?);
        if before != after {
            return Err(Error::invalid_input(format!(
                "'{name}' must keep its input's shape and type ({:?} {:?}), it gives {:?} {:?}",
                before.0, before.1, after.0, after.1
            )));
        }
        Ok(result)
    }

    /// `RotaryEmbedding` (opset 23): the first `rotary_embedding_dim` features of every head
    /// rotated pairwise by the cached angles (`cos`/`sin` gathered at `position_ids` when
    /// given), halves or interleaved pairs, the rest passed through; following ONNX's
    /// reference, on `[batch, sequence, heads, head]` (4-D inputs are `[batch, heads,
    /// sequence, head]`, 3-D ones split into `num_heads`).
    pub(crate) fn rotary_embedding(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, cos, sin) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let (shape, _) = self.shape_of(x)?;
        let mut e = Expansion::new(block, node, index);
        let reshape = |e: &mut Expansion, this: &mut Self, x: &str, shape: &[i64]| -> Result<String, Error> {
            let shape = e.ints(this, shape);
            e.op(this, "Reshape", &[x, &shape], vec![])
        };
        let input = match shape[..] {
            [_, _, _, _] => e.op(self, "Transpose", &[x], vec![attr_ints("perm", &[0, 2, 1, 3])])?,
            [batch, sequence, hidden] => {
                let heads = int(node, "num_heads", 0);
                if heads < 1 || hidden % heads != 0 {
                    return Err(Error::invalid_input(format!(
                        "a 3-D input needs num_heads dividing its hidden size {hidden}, got {heads}"
                    )));
                }
                reshape(&mut e, self, x, &[batch, sequence, heads, hidden / heads])?
            }
            _ => return Err(Error::invalid_input(format!("the input must be 3-D or 4-D, got {shape:?}"))),
        };
        let (four, _) = self.shape_of(&input)?;
        let head = four[3];
        let rotary = match int(node, "rotary_embedding_dim", 0) {
            0 => head,
            d if d > 0 && d <= head && d % 2 == 0 => d,
            d => {
                return Err(Error::invalid_input(format!(
                    "rotary_embedding_dim {d} must be even and at most the head size {head}"
                )))
            }
        };
        let half = rotary / 2;
        let slice = |e: &mut Expansion, this: &mut Self, x: &str, start: i64, end: i64, step: i64| {
            let (s, en, ax, st) =
                (e.ints(this, &[start]), e.ints(this, &[end]), e.ints(this, &[-1]), e.ints(this, &[step]));
            e.op(this, "Slice", &[x, &s, &en, &ax, &st], vec![])
        };
        // The angles: [batch, sequence, 1, rotary / 2].
        let mut angles = Vec::new();
        for cache in [cos, sin] {
            let cache = match operand(node, 3) {
                Some(positions) => e.op(self, "Gather", &[cache, positions], vec![attr_i("axis", 0)])?,
                None => cache.to_owned(),
            };
            let (c, _) = self.shape_of(&cache)?;
            if c.last() != Some(&half) {
                return Err(Error::invalid_input(format!(
                    "the cos/sin cache's last dimension is {:?}; it must be rotary_embedding_dim / 2 = {half}",
                    c.last()
                )));
            }
            let axes = e.ints(self, &[2]);
            angles.push(e.op(self, "Unsqueeze", &[&cache, &axes], vec![])?);
        }
        let interleaved = int(node, "interleaved", 0) != 0;
        let rotate = slice(&mut e, self, &input, 0, rotary, 1)?;
        let (x1, x2) = if interleaved {
            (slice(&mut e, self, &rotate, 0, rotary, 2)?, slice(&mut e, self, &rotate, 1, rotary, 2)?)
        } else {
            (slice(&mut e, self, &rotate, 0, half, 1)?, slice(&mut e, self, &rotate, half, rotary, 1)?)
        };
        let (cos, sin) = (&angles[0], &angles[1]);
        let (c1, s2) = (e.op(self, "Mul", &[cos, &x1], vec![])?, e.op(self, "Mul", &[sin, &x2], vec![])?);
        let real = e.op(self, "Sub", &[&c1, &s2], vec![])?;
        let (s1, c2) = (e.op(self, "Mul", &[sin, &x1], vec![])?, e.op(self, "Mul", &[cos, &x2], vec![])?);
        let imaginary = e.op(self, "Add", &[&s1, &c2], vec![])?;
        let rotated = if interleaved {
            let axes = e.ints(self, &[-1]);
            let real = e.op(self, "Unsqueeze", &[&real, &axes], vec![])?;
            let imaginary = e.op(self, "Unsqueeze", &[&imaginary, &axes], vec![])?;
            let pairs = e.op(self, "Concat", &[&real, &imaginary], vec![attr_i("axis", -1)])?;
            reshape(&mut e, self, &pairs, &[four[0], four[1], four[2], rotary])?
        } else {
            e.op(self, "Concat", &[&real, &imaginary], vec![attr_i("axis", -1)])?
        };
        let output = if rotary < head {
            let rest = slice(&mut e, self, &input, rotary, head, 1)?;
            e.op(self, "Concat", &[&rotated, &rest], vec![attr_i("axis", -1)])?
        } else {
            rotated
        };
        let output = if shape.len() == 3 {
            reshape(&mut e, self, &output, &shape)?
        } else {
            e.op(self, "Transpose", &[&output], vec![attr_ints("perm", &[0, 2, 1, 3])])?
        };
        self.alias(&output, node.output[0].clone())
    }
}
