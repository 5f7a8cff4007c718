//! ONNX `LSTM`, `GRU` and `RNN` onto `sg.lstm`, `sg.gru` and `sg.rnn`: every optional input
//! made explicit with ONNX's default (zero biases, states and peepholes; every sequence the
//! full length), activations written as elementwise op texts (`sigmoid,tanh,tanh`; ONNX's
//! activation_alpha/beta consumed in order by the activations that take them), and
//! `layout = 1` (batch first) transposed to and from the sg layout.

use crate::expand::Expansion;
use crate::fold::Folded;
use crate::import::{attribute, int, operand, required, tensor_type, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::operation::OperationLike;
use melior::ir::{Block, BlockLike, Location, Value};
use strata_dialect_sg as sg;
use strata_ir::Error;

/// The sg text of an ONNX activation name, taking its parameters from `alphas`/`betas` in
/// order.
fn activation(
    name: &str,
    alphas: &mut impl Iterator<Item = f32>,
    betas: &mut impl Iterator<Item = f32>,
) -> Result<String, Error> {
    let mut alpha = |default: f32| alphas.next().unwrap_or(default);
    Ok(match name.to_ascii_lowercase().as_str() {
        "sigmoid" => "sigmoid".into(),
        "tanh" => "tanh".into(),
        "relu" => "relu".into(),
        "softsign" => "softsign".into(),
        "softplus" => "softplus".into(),
        "leakyrelu" => format!("leaky_relu<{:?}>", alpha(0.01) as f64),
        "thresholdedrelu" => format!("thresholded_relu<{:?}>", alpha(1.0) as f64),
        "elu" => format!("elu<{:?}>", alpha(1.0) as f64),
        "hardsigmoid" => {
            let a = alpha(0.2) as f64;
            format!("hard_sigmoid<{a:?},{:?}>", betas.next().unwrap_or(0.5) as f64)
        }
        "affine" => {
            let a = alpha(1.0) as f64;
            format!("affine<{a:?},{:?}>", betas.next().unwrap_or(0.0) as f64)
        }
        "scaledtanh" => {
            let a = alpha(1.0) as f64;
            format!("scaled_tanh<{a:?},{:?}>", betas.next().unwrap_or(1.0) as f64)
        }
        other => return Err(Error::unsupported(format!("recurrent activation '{other}'"))),
    })
}

impl Importer<'_> {
    /// `LSTM`, `GRU` and `RNN`.
    pub(crate) fn recurrent(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let context = self.strata.mlir();
        let location = Location::name(
            context,
            &crate::import::node_name(node, index),
            Location::new(context, &self.file, index, 0),
        );
        let op = node.op_type();
        let (gates, defaults): (i64, &[&str]) = match op {
            "LSTM" => (4, &["Sigmoid", "Tanh", "Tanh"]),
            "GRU" => (3, &["Sigmoid", "Tanh"]),
            _ => (1, &["Tanh"]),
        };
        let direction = match attribute(node, "direction")
            .map(|a| String::from_utf8_lossy(a.s()).into_owned())
            .as_deref()
        {
            None | Some("forward") => 0,
            Some("reverse") => 1,
            Some("bidirectional") => 2,
            Some(other) => return Err(format!("direction '{other}' is not forward, reverse or bidirectional").into()),
        };
        let d = if direction == 2 { 2 } else { 1 };
        let layout = int(node, "layout", 0);
        let mut e = Expansion::new(block, node, index);
        // Batch-first tensors transposed to the sg layout.
        let mut x = required(node, 0)?.to_owned();
        if layout != 0 {
            x = e.op(self, "Transpose", &[&x], vec![crate::expand::attr_ints("perm", &[1, 0, 2])])?;
        }
        let (x_shape, dtype) = self.shape_of(&x)?;
        if x_shape.len() != 3 {
            return Err(format!("X must be [T, N, I] (or [N, T, I] with layout 1), got {x_shape:?}").into());
        }
        let (t, n) = (x_shape[0], x_shape[1]);
        let (w, r) = (required(node, 1)?, required(node, 2)?);
        let (r_shape, _) = self.shape_of(r)?;
        let h = match attribute(node, "hidden_size") {
            Some(a) => a.i(),
            None => *r_shape.last().ok_or("R must be [D, G*H, H]")?,
        };
        let zeros = |e: &mut Expansion, this: &mut Self, shape: Vec<i64>| -> Result<String, Error> {
            e.constant(this, Folded::filled(dtype, shape, 0.0)?)
        };
        let b = match operand(node, 3) {
            Some(b) => b.to_owned(),
            None => zeros(&mut e, self, vec![d, 2 * gates * h])?,
        };
        let lens = match operand(node, 4) {
            Some(lens) => {
                let (_, lens_type) = self.shape_of(lens)?;
                if lens_type == DataType::Int32 {
                    lens.to_owned()
                } else {
                    e.op(self, "Cast", &[lens], vec![crate::expand::attr_i("to", DataType::Int32 as i64)])?
                }
            }
            None => e.constant(self, Folded::filled(DataType::Int32, vec![n], t as f64)?)?,
        };
        let state = |k: usize, e: &mut Expansion, this: &mut Self| -> Result<String, Error> {
            match operand(node, k) {
                Some(v) if layout != 0 => {
                    e.op(this, "Transpose", &[v], vec![crate::expand::attr_ints("perm", &[1, 0, 2])])
                }
                Some(v) => Ok(v.to_owned()),
                None => zeros(e, this, vec![d, n, h]),
            }
        };
        let h0 = state(5, &mut e, self)?;
        let lstm = op == "LSTM";
        let (c0, p) = if lstm {
            let c0 = state(6, &mut e, self)?;
            let p = match operand(node, 7) {
                Some(p) => p.to_owned(),
                None => zeros(&mut e, self, vec![d, 3 * h])?,
            };
            (Some(c0), Some(p))
        } else {
            (None, None)
        };
        // Activations, per direction.
        let per = defaults.len();
        let names: Vec<String> = match attribute(node, "activations") {
            Some(a) => a.strings.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect(),
            None => defaults.iter().map(|s| s.to_string()).collect(),
        };
        let names: Vec<String> = if names.len() == per && d == 2 { [names.clone(), names].concat() } else { names };
        if names.len() != per * d as usize {
            return Err(format!(
                "{} activations given, {} needed ({per} per direction)",
                names.len(),
                per * d as usize
            )
            .into());
        }
        let floats = |name: &str| attribute(node, name).map(|a| a.floats.clone()).unwrap_or_default();
        let (alphas, betas) = (floats("activation_alpha"), floats("activation_beta"));
        let (mut alphas, mut betas) = (alphas.into_iter(), betas.into_iter());
        let activations: Vec<String> =
            names.iter().map(|a| activation(a, &mut alphas, &mut betas)).collect::<Result<_, _>>()?;
        let activations = activations.join(",");
        let clip = attribute(node, "clip").map(|a| a.f() as f64);
        let value =
            |this: &mut Self, name: &str| -> Result<Value, Error> { Ok(this.use_value(block, name, location)?.get()) };
        let (xv, wv, rv, bv, lv, hv) = (
            value(self, &x)?,
            value(self, w)?,
            value(self, r)?,
            value(self, &b)?,
            value(self, &lens)?,
            value(self, &h0)?,
        );
        let y_ty = tensor_type(context, &[t, d, n, h], dtype)?;
        let state_ty = tensor_type(context, &[d, n, h], dtype)?;
        let built = match op {
            "LSTM" => {
                let cv = value(self, c0.as_deref().expect("an LSTM has c0"))?;
                let pv = value(self, p.as_deref().expect("an LSTM has p"))?;
                sg::Lstm::build(
                    context,
                    location,
                    xv,
                    wv,
                    rv,
                    bv,
                    lv,
                    hv,
                    cv,
                    pv,
                    h,
                    direction,
                    &activations,
                    int(node, "input_forget", 0),
                    clip,
                    y_ty,
                    state_ty,
                    state_ty,
                )
            }
            "GRU" => sg::Gru::build(
                context,
                location,
                xv,
                wv,
                rv,
                bv,
                lv,
                hv,
                h,
                direction,
                &activations,
                int(node, "linear_before_reset", 0),
                clip,
                y_ty,
                state_ty,
            ),
            _ => sg::Rnn::build(
                context,
                location,
                xv,
                wv,
                rv,
                bv,
                lv,
                hv,
                h,
                direction,
                &activations,
                clip,
                y_ty,
                state_ty,
            ),
        };
        let built = block.append_operation(built);
        // The results, transposed back for layout 1.
        let shapes = [vec![t, d, n, h], vec![d, n, h], vec![d, n, h]];
        for (k, output) in node.output.iter().enumerate().take(built.result_count()) {
            if output.is_empty() {
                continue;
            }
            let result: Value = built.result(k).map_err(|e| e.to_string())?.into();
            let raw = format!("{output}::sg");
            self.values.insert(raw.clone(), Entry::Value { value: result.into(), shape: shapes[k].clone(), dtype });
            let perm: &[i64] = if k == 0 { &[2, 0, 1, 3] } else { &[1, 0, 2] };
            let value = if layout != 0 {
                e.op(self, "Transpose", &[&raw], vec![crate::expand::attr_ints("perm", perm)])?
            } else {
                raw
            };
            self.alias(&value, output.clone())?;
        }
        Ok(())
    }
}
