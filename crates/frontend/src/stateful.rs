//! The stateful sequence operators of recurrent LLM layers (opset 27), as subgraphs of
//! operators the importer already has:
//!
//! - `CausalConvWithState` (Mamba, Gated DeltaNet's short convolution): the carried state (or
//!   zeros) concatenated before the input along the sequence, one depthwise 1-D convolution
//!   without padding, an optional SiLU, and the last `k - 1` positions of the concatenation as
//!   the next state.
//! - `TensorScatter` (opset 24, a decoder's KV-cache update): the update written into the cache
//!   at each batch's write position along the sequence axis (wrapping around in `circular`
//!   mode), as one ScatterElements.
//! - `LinearAttention` (Gated DeltaNet, RetNet-style linear attention): one `Scan` over the
//!   sequence carrying the `[batch, kv_heads, d_k, d_v]` state in f32, whose body decays it
//!   (`gated`), corrects the value by what the state already holds for the key (`delta`), adds
//!   the key-value outer product and reads it with the query (heads shared by groups of query
//!   heads through a broadcast), as ONNX's function body does.

use crate::expand::{attr_graph, attr_i, attr_ints, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, node_name, operand, required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::{AttributeProto, NodeProto};
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// `CausalConvWithState` (opset 27): `input` `[batch, channels, length]`, `weight`
    /// `[channels, 1, k]`, optional `bias` `[channels]` and `past_state` `[batch, channels, k -
    /// 1]` (zeros when absent); `output` is the depthwise convolution of the state and the input
    /// concatenated (no padding: `length` positions), SiLU applied with `activation` `silu` or
    /// `swish`; `present_state` the concatenation's last `k - 1` positions.
    pub(crate) fn causal_conv_with_state(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
    ) -> Result<(), Error> {
        let (x, w) = (required(node, 0)?, required(node, 1)?);
        let ((shape, dtype), (w_shape, w_type)) = (self.shape_of(x)?, self.shape_of(w)?);
        let [batch, channels, length] = shape[..] else {
            return Err(Error::invalid_input(format!(
                "the input must be rank 3 (batch, channels, length), got {shape:?}"
            )));
        };
        let k = match w_shape[..] {
            [c, 1, k] if c == channels && k >= 1 => k,
            _ => {
                return Err(Error::invalid_input(format!(
                    "the weight must be ({channels}, 1, k) for a depthwise convolution of {channels} channels, got {w_shape:?}"
                )))
            }
        };
        if w_type != dtype {
            return Err(Error::invalid_input(format!(
                "the weight's element type {} differs from the input's {}",
                w_type.as_str_name(),
                dtype.as_str_name()
            )));
        }
        let activation = attribute(node, "activation")
            .map_or_else(|| "none".to_owned(), |a| String::from_utf8_lossy(a.s()).into_owned());
        let silu = match activation.as_str() {
            "none" => false,
            "silu" | "swish" => true,
            other => {
                return Err(Error::invalid_input(format!("activation '{other}' is not one of 'none', 'silu', 'swish'")))
            }
        };
        for (k_input, expected, what) in [(2, vec![channels], "bias"), (3, vec![batch, channels, k - 1], "past_state")]
        {
            if let Some(name) = operand(node, k_input) {
                let (given, given_type) = self.shape_of(name)?;
                if given != expected || given_type != dtype {
                    return Err(Error::invalid_input(format!(
                        "{what} must be {} {expected:?}, got {} {given:?}",
                        dtype.as_str_name(),
                        given_type.as_str_name()
                    )));
                }
            }
        }
        let mut e = Expansion::new(block, node, index);
        // The sequence with its left context: the carried state, or zeros.
        let padded = match (k, operand(node, 3)) {
            (1, _) => x.to_owned(),
            (_, Some(past)) => e.op(self, "Concat", &[past, x], vec![attr_i("axis", 2)])?,
            (_, None) => {
                let pads = e.ints(self, &[0, 0, k - 1, 0, 0, 0]);
                e.op(self, "Pad", &[x, &pads], vec![])?
            }
        };
        let mut inputs = vec![padded.as_str(), w];
        if let Some(bias) = operand(node, 2) {
            inputs.push(bias);
        }
        let convolved = e.op(
            self,
            "Conv",
            &inputs,
            vec![
                attr_i("group", channels),
                attr_ints("kernel_shape", &[k]),
                attr_ints("pads", &[0, 0]),
                attr_ints("strides", &[1]),
                attr_ints("dilations", &[1]),
            ],
        )?;
        let output = if silu {
            let gate = e.op(self, "Sigmoid", &[&convolved], vec![])?;
            e.op(self, "Mul", &[&convolved, &gate], vec![])?
        } else {
            convolved
        };
        self.alias(&output, node.output[0].clone())?;
        if let Some(present) = node.output.get(1).filter(|name| !name.is_empty()) {
            let total = length + k - 1;
            let (start, end, axes) = (e.ints(self, &[length]), e.ints(self, &[total]), e.ints(self, &[2]));
            let state = e.op(self, "Slice", &[&padded, &start, &end, &axes], vec![])?;
            self.alias(&state, present.clone())?;
        }
        Ok(())
    }
}

/// The nodes of a `Scan` body, each value named under one prefix.
struct Body {
    prefix: String,
    nodes: Vec<NodeProto>,
}

impl Body {
    fn name(&self, what: &str) -> String {
        format!("{}/{what}", self.prefix)
    }

    /// Adds `op_type(inputs)` (already full names) as the value `what`; its full name.
    fn op(&mut self, op_type: &str, inputs: &[&str], what: &str, attributes: Vec<AttributeProto>) -> String {
        let output = self.name(what);
        self.nodes.push(NodeProto {
            op_type: Some(op_type.into()),
            name: Some(output.clone()),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.clone()],
            attribute: attributes,
            ..Default::default()
        });
        output
    }

    /// `value` as f32 (itself when it is f32 already).
    fn as_float(&mut self, value: &str, dtype: DataType, what: &str) -> String {
        if dtype == DataType::Float {
            value.to_owned()
        } else {
            self.op("Cast", &[value], what, vec![attr_i("to", DataType::Float as i64)])
        }
    }
}

impl Importer<'_> {
    /// `LinearAttention` (opset 27): `query` `[batch, length, q_heads * d_k]`, `key` `[batch,
    /// length, kv_heads * d_k]`, `value` `[batch, length, kv_heads * d_v]`, optional
    /// `past_state` `[batch, kv_heads, d_k, d_v]` (zeros when absent), `decay` (`gated` and
    /// `gated_delta`: per head or per key feature, a log decay) and `beta` (`delta` and
    /// `gated_delta`: per head or one for all); at every position the state `S` becomes
    /// `exp(decay) * S` (gated), the value `beta * (v - S^T k)` (delta), `S + k v^T`, and the
    /// output `scale * q S` (`scale` 0 or absent: `1 / sqrt(d_k)`), all in f32 (`chunk_size`
    /// only tunes kernels: not read). `output` `[batch, length, q_heads * d_v]`,
    /// `present_state` the last state in `past_state`'s element type (else the query's).
    pub(crate) fn linear_attention(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (q, k, v) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let ((q_shape, dtype), (k_shape, k_type), (v_shape, v_type)) =
            (self.shape_of(q)?, self.shape_of(k)?, self.shape_of(v)?);
        let rule = attribute(node, "update_rule")
            .map_or_else(|| "gated_delta".to_owned(), |a| String::from_utf8_lossy(a.s()).into_owned());
        let (gated, delta) = match rule.as_str() {
            "linear" => (false, false),
            "gated" => (true, false),
            "delta" => (false, true),
            "gated_delta" => (true, true),
            other => {
                return Err(Error::invalid_input(format!(
                    "update_rule '{other}' is not one of 'linear', 'gated', 'delta', 'gated_delta'"
                )))
            }
        };
        let (q_heads, kv_heads) = (int(node, "q_num_heads", 0), int(node, "kv_num_heads", 0));
        if q_heads < 1 || kv_heads < 1 || q_heads % kv_heads != 0 {
            return Err(Error::invalid_input(format!(
                "q_num_heads ({q_heads}) must be a positive multiple of kv_num_heads ({kv_heads})"
            )));
        }
        let (&[batch, length, q_width], &[kb, kl, k_width], &[vb, vl, v_width]) =
            (&q_shape[..], &k_shape[..], &v_shape[..])
        else {
            return Err(Error::invalid_input(format!(
                "query, key and value must be rank 3 (batch, length, heads * head size), got {q_shape:?}, {k_shape:?}, {v_shape:?}"
            )));
        };
        let d_k = q_width / q_heads;
        let d_v = v_width / kv_heads;
        if q_width % q_heads != 0
            || v_width % kv_heads != 0
            || [kb, vb] != [batch; 2]
            || [kl, vl] != [length; 2]
            || k_width != kv_heads * d_k
            || k_type != dtype
            || v_type != dtype
        {
            return Err(Error::invalid_input(format!(
                "query {q_shape:?}, key {k_shape:?} and value {v_shape:?} ({}) do not split into {q_heads} query and {kv_heads} key-value heads of one batch, length, key size and element type",
                dtype.as_str_name()
            )));
        }
        if length < 1 {
            return Err(Error::unsupported("a LinearAttention over an empty sequence"));
        }
        let decay = operand(node, 4);
        let beta = operand(node, 5);
        if decay.is_some() != gated || beta.is_some() != delta {
            return Err(Error::invalid_input(format!(
                "update_rule '{rule}' {} decay and {} beta",
                if gated { "needs" } else { "takes no" },
                if delta { "needs" } else { "takes no" }
            )));
        }
        let float_scale = attribute(node, "scale").map_or(0.0, |a| a.f() as f64);
        let scale = if float_scale == 0.0 { 1.0 / (d_k as f64).sqrt() } else { float_scale };
        let mut e = Expansion::new(block, node, index);
        let split = |e: &mut Expansion, this: &mut Self, x: &str, heads: i64| -> Result<String, Error> {
            let shape = e.ints(this, &[batch, length, heads, -1]);
            e.op(this, "Reshape", &[x, &shape], vec![])
        };
        // The scanned inputs, [batch, length, heads, features], scanned along the length.
        let mut scanned = vec![
            split(&mut e, self, q, q_heads)?,
            split(&mut e, self, k, kv_heads)?,
            split(&mut e, self, v, kv_heads)?,
        ];
        let mut types = vec![dtype; 3];
        if let Some(decay) = decay {
            let (shape, decay_type) = self.shape_of(decay)?;
            match shape[..] {
                [b, l, w] if b == batch && l == length && (w == kv_heads || w == kv_heads * d_k) => {}
                _ => {
                    return Err(Error::invalid_input(format!(
                        "decay must be ({batch}, {length}, {kv_heads} or {}), got {shape:?}",
                        kv_heads * d_k
                    )))
                }
            }
            scanned.push(split(&mut e, self, decay, kv_heads)?);
            types.push(decay_type);
        }
        if let Some(beta) = beta {
            let (shape, beta_type) = self.shape_of(beta)?;
            let heads = match shape[..] {
                [b, l, w] if b == batch && l == length && (w == kv_heads || w == 1) => w,
                _ => {
                    return Err(Error::invalid_input(format!(
                        "beta must be ({batch}, {length}, {kv_heads} or 1), got {shape:?}"
                    )))
                }
            };
            scanned.push(split(&mut e, self, beta, heads)?);
            types.push(beta_type);
        }
        let state_shape = [batch, kv_heads, d_k, d_v];
        let (state0, state_type) = match operand(node, 3) {
            Some(past) => {
                let (shape, past_type) = self.shape_of(past)?;
                if shape != state_shape {
                    return Err(Error::invalid_input(format!("past_state must be {state_shape:?}, got {shape:?}")));
                }
                let state = if past_type == DataType::Float {
                    past.to_owned()
                } else {
                    e.op(self, "Cast", &[past], vec![attr_i("to", DataType::Float as i64)])?
                };
                (state, past_type)
            }
            None => {
                let zero = e.scalar(self, DataType::Float, 0.0)?;
                let shape = e.ints(self, &state_shape);
                (e.op(self, "Expand", &[&zero, &shape], vec![])?, dtype)
            }
        };
        // Constants the body reads from the enclosing scope.
        let (last, second_last) = (e.ints(self, &[-1]), e.ints(self, &[-2]));
        let scale = e.scalar(self, DataType::Float, scale)?;
        let group = q_heads / kv_heads;
        let (widened, read_shape) =
            (e.ints(self, &[batch, kv_heads, group, d_k, d_v]), e.ints(self, &[batch, q_heads, d_k, d_v]));
        let third = e.ints(self, &[2]);
        // The body: one position.
        let mut body = Body { prefix: format!("{}::step", node_name(node, index)), nodes: Vec::new() };
        let names = ["state_in", "q", "k", "v", "decay", "beta"];
        let inputs: Vec<String> = names[..1 + scanned.len()].iter().map(|n| body.name(n)).collect();
        let q_t = body.as_float(&inputs[1], dtype, "q_f");
        let k_t = body.as_float(&inputs[2], dtype, "k_f");
        let v_t = body.as_float(&inputs[3], dtype, "v_f");
        let mut state = inputs[0].clone();
        let mut next = 4;
        if gated {
            let decay_t = body.as_float(&inputs[next], types[next - 1], "decay_f");
            next += 1;
            let factor = body.op("Exp", &[&decay_t], "decay_exp", vec![]);
            let factor = body.op("Unsqueeze", &[&factor, &last], "decay_col", vec![]);
            state = body.op("Mul", &[&state, &factor], "decayed", vec![]);
        }
        let k_col = body.op("Unsqueeze", &[&k_t, &last], "k_col", vec![]);
        let written = if delta {
            let beta_t = body.as_float(&inputs[next], types[next - 1], "beta_f");
            let transposed = body.op("Transpose", &[&state], "state_t", vec![attr_ints("perm", &[0, 1, 3, 2])]);
            let retrieved = body.op("MatMul", &[&transposed, &k_col], "retrieved", vec![]);
            let retrieved = body.op("Squeeze", &[&retrieved, &last], "retrieved_row", vec![]);
            let difference = body.op("Sub", &[&v_t, &retrieved], "difference", vec![]);
            body.op("Mul", &[&beta_t, &difference], "corrected", vec![])
        } else {
            v_t
        };
        let row = body.op("Unsqueeze", &[&written, &second_last], "v_row", vec![]);
        let outer = body.op("MatMul", &[&k_col, &row], "outer", vec![]);
        let state_out = body.op("Add", &[&state, &outer], "state_out", vec![]);
        let read = if group == 1 {
            state_out.clone()
        } else {
            let one_more = body.op("Unsqueeze", &[&state_out, &third], "state_group", vec![]);
            let widened = body.op("Expand", &[&one_more, &widened], "state_wide", vec![]);
            body.op("Reshape", &[&widened, &read_shape], "state_read", vec![])
        };
        let q_row = body.op("Unsqueeze", &[&q_t, &second_last], "q_row", vec![]);
        let read = body.op("MatMul", &[&q_row, &read], "read", vec![]);
        let read = body.op("Squeeze", &[&read, &second_last], "read_row", vec![]);
        let mut output_t = body.op("Mul", &[&scale, &read], "output_f", vec![]);
        if dtype != DataType::Float {
            output_t = body.op("Cast", &[&output_t], "output", vec![attr_i("to", dtype as i64)]);
        }
        let graph_name = body.name("graph");
        let inputs: Vec<&String> = inputs.iter().collect();
        let body = attr_graph("body", graph_name, body.nodes, &inputs, &[&state_out, &output_t]);
        let count = scanned.len() as i64;
        let mut operands = vec![state0.as_str()];
        operands.extend(scanned.iter().map(String::as_str));
        let results = e.op_n(
            self,
            "Scan",
            &operands,
            vec![
                body,
                attr_i("num_scan_inputs", count),
                attr_ints("scan_input_axes", &vec![1; count as usize]),
                attr_ints("scan_output_axes", &[1]),
            ],
            2,
        )?;
        let shape = e.ints(self, &[batch, length, q_heads * d_v]);
        let output = e.op(self, "Reshape", &[&results[1], &shape], vec![])?;
        self.alias(&output, node.output[0].clone())?;
        if let Some(present) = node.output.get(1).filter(|name| !name.is_empty()) {
            let state = if state_type == DataType::Float {
                results[0].clone()
            } else {
                e.op(self, "Cast", &[&results[0]], vec![attr_i("to", state_type as i64)])?
            };
            self.alias(&state, present.clone())?;
        }
        Ok(())
    }
}

impl Importer<'_> {
    /// `TensorScatter` (opset 24): `past_cache` with `update` written along `axis` (default -2,
    /// not the batch axis 0) from each batch's `write_indices` entry (zeros when absent), or
    /// modulo the cache's length in `circular` mode; every other axis of the two the same.
    pub(crate) fn tensor_scatter(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (cache, update) = (required(node, 0)?, required(node, 1)?);
        let ((shape, dtype), (update_shape, update_type)) = (self.shape_of(cache)?, self.shape_of(update)?);
        let rank = shape.len() as i64;
        let axis = int(node, "axis", -2);
        let axis = if axis < 0 { axis + rank } else { axis };
        if rank < 2 || axis < 1 || axis >= rank {
            return Err(Error::invalid_input(format!(
                "axis {} of a cache {shape:?} must be a sequence axis after the batch axis",
                int(node, "axis", -2)
            )));
        }
        let axis = axis as usize;
        let fits = update_shape.len() == shape.len()
            && (0..shape.len())
                .all(|i| if i == axis { update_shape[i] <= shape[i] } else { update_shape[i] == shape[i] });
        if !fits || update_type != dtype {
            return Err(Error::invalid_input(format!(
                "the update {} {update_shape:?} must match the cache {} {shape:?} but for a sequence no longer along axis {axis}",
                update_type.as_str_name(),
                dtype.as_str_name()
            )));
        }
        let circular = match attribute(node, "mode").map(|a| String::from_utf8_lossy(a.s()).into_owned()).as_deref() {
            None | Some("linear") => false,
            Some("circular") => true,
            Some(other) => return Err(Error::invalid_input(format!("mode '{other}' is not 'linear' or 'circular'"))),
        };
        let (batch, length, sequence) = (shape[0], shape[axis], update_shape[axis]);
        let mut e = Expansion::new(block, node, index);
        // Each update row's place: write_indices[b] + position, broadcast to the update's shape.
        let mut column = vec![1; shape.len()];
        column[0] = batch;
        let starts = match operand(node, 2) {
            Some(indices) => {
                let (given, given_type) = self.shape_of(indices)?;
                if given != [batch] || given_type != DataType::Int64 {
                    return Err(Error::invalid_input(format!(
                        "write_indices must be int64 [{batch}], got {} {given:?}",
                        given_type.as_str_name()
                    )));
                }
                let shape = e.ints(self, &column);
                e.op(self, "Reshape", &[indices, &shape], vec![])?
            }
            None => e.constant(self, Folded::filled(DataType::Int64, column.clone(), 0.0)?)?,
        };
        let mut row = vec![1; shape.len()];
        row[axis] = sequence;
        let positions: Vec<i64> = (0..sequence).collect();
        let positions = e.constant(self, Folded::from_i64(row, &positions))?;
        let mut places = e.op(self, "Add", &[&starts, &positions], vec![])?;
        if circular {
            let length = e.constant(self, Folded::from_i64(vec![], &[length]))?;
            places = e.op(self, "Mod", &[&places, &length], vec![])?;
        } else {
            // A write past the cache's end is an error (ONNX's reference fails), reported by the
            // run's status; the scatter itself clamps.
            self.check_positions(block, node, index, &places, length, "a write position (write_indices + update row)")?;
        }
        let target = e.ints(self, &update_shape);
        let places = e.op(self, "Expand", &[&places, &target], vec![])?;
        let present = e.op(self, "ScatterElements", &[cache, &places, update], vec![attr_i("axis", axis as i64)])?;
        self.alias(&present, node.output[0].clone())
    }
}
