//! The neural-network operators of the importer: convolution, pooling, batch
//! normalisation (folded into a per-channel multiply-add; in training mode from the batch's
//! own statistics) and Gemm (decomposed).

use crate::conv::append1;
use crate::import::{attribute, int, ints, node_name, operand, required, tensor_type, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::{Block, BlockLike, Location, Value};
use strata_dialect_sg as sg;
use strata_ir::Error;
use strata_ir::Val;

/// The mean and the population variance of `x` (shape `shape`) over `axes`, kept as size 1,
/// with their shape: `reduce_mean(x)`, then `reduce_mean((x - mean)^2)`.
fn moments<'c, 'a>(
    context: &'c melior::Context,
    block: &'a Block<'c>,
    location: Location<'c>,
    x: Value<'c, 'a>,
    shape: &[i64],
    axes: &[i64],
    dtype: DataType,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>, Vec<i64>), Error> {
    let kept: Vec<i64> =
        shape.iter().enumerate().map(|(d, &n)| if axes.contains(&(d as i64)) { 1 } else { n }).collect();
    let (full, stat) = (tensor_type(context, shape, dtype)?, tensor_type(context, &kept, dtype)?);
    let mean = append1(block, sg::ReduceMean::build(context, location, x, axes, 1, stat));
    let centered = append1(block, sg::Sub::build(context, location, x, mean, full));
    let squares = append1(block, sg::Mul::build(context, location, centered, centered, full));
    let variance = append1(block, sg::ReduceMean::build(context, location, squares, axes, 1, stat));
    Ok((mean, variance, kept))
}

impl Importer<'_> {
    /// MaxPool and AveragePool: 2-D as one `sg` pool; 1-D as 2-D over a unit width; 3-D as two
    /// 2-D pools, (H, W) per depth slice and then depth (a box window is separable: a maximum
    /// of maxima; a sum divided by the product of the per-axis counts of counted elements).
    /// MaxPool's Indices (1-D and 2-D) are an `sg.max_pool_indices` beside the pool.
    pub(crate) fn pool(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        // MaxPool's optional second output: where each maximum came from.
        let indices = node.output.get(1).filter(|o| !o.is_empty() && node.op_type() == "MaxPool").cloned();
        let name = required(node, 0)?.to_owned();
        let (x, dtype) = self.shape_of(&name)?;
        let kernel = ints(node, "kernel_shape").ok_or("kernel_shape is required")?;
        let spatial = kernel.len();
        if x.len() != spatial + 2 || !(1..=3).contains(&spatial) {
            return Err(Error::unsupported(format!(
                "pooling of input {x:?} with kernel {kernel:?} (1-D, 2-D and 3-D pooling of N x C x spatial input)"
            )));
        }
        let strides = ints(node, "strides").unwrap_or_else(|| vec![1; spatial]);
        let dilations = ints(node, "dilations").unwrap_or_else(|| vec![1; spatial]);
        // Only the Indices depend on it.
        let storage_order = int(node, "storage_order", 0);
        if !(0..=1).contains(&storage_order) {
            return Err(format!("storage_order {storage_order} is not 0 (row major) or 1 (column major)").into());
        }
        if kernel.iter().chain(&strides).chain(&dilations).any(|&v| v <= 0 || v > 1 << 31)
            || strides.len() != spatial
            || dilations.len() != spatial
        {
            return Err(format!("kernel {kernel:?}, strides {strides:?} and dilations {dilations:?} must be {spatial} positive values each").into());
        }
        let ceil = int(node, "ceil_mode", 0);
        let pads = crate::conv::window_pads(node, &x[2..], &kernel, &strides, &dilations)?;
        if pads.len() != 2 * spatial
            || pads.iter().enumerate().any(|(i, &p)| p < 0 || p >= kernel[i % spatial] * dilations[i % spatial])
        {
            return Err(format!(
                "pads {pads:?} must be {} non-negative values smaller than the (dilated) kernel",
                2 * spatial
            )
            .into());
        }
        let max = node.op_type() == "MaxPool";
        if indices.is_some() && spatial == 3 {
            return Err(Error::unsupported("the Indices output of a 3-D MaxPool (1-D and 2-D have it)"));
        }
        let count_include_pad = int(node, "count_include_pad", 0);
        let out: Vec<i64> = x[..2]
            .iter()
            .copied()
            .chain((0..spatial).map(|i| {
                sg::verify::pool_out(
                    x[2 + i],
                    kernel[i],
                    pads[i],
                    pads[spatial + i],
                    strides[i],
                    dilations[i],
                    ceil == 1,
                )
            }))
            .collect();
        if out.iter().any(|&d| d < 1) {
            return Err(format!("the pooled output {out:?} would be empty").into());
        }
        let xv = self.use_value(block, &name, location)?.get();
        let ty = |shape: &[i64]| tensor_type(context, shape, dtype);
        let reshape = |v: Value<'_, '_>, shape: &[i64]| -> Result<Val, Error> {
            let op = block.append_operation(sg::Reshape::build(context, location, v, ty(shape)?));
            Ok(op.result(0).expect("one result").into())
        };
        // The Indices of a 2-D max pool of `v`, given its result `pooled`.
        let indices2d = |v: Value<'_, '_>,
                         pooled: Val,
                         o: &[i64],
                         k: [i64; 2],
                         s: [i64; 2],
                         p: [i64; 4],
                         d: [i64; 2]|
         -> Result<Val, Error> {
            let pooled = pooled.get();
            let op = sg::MaxPoolIndices::build(
                context,
                location,
                v,
                pooled,
                &k,
                &s,
                &p,
                &d,
                ceil,
                storage_order,
                tensor_type(context, o, DataType::Int64)?,
            );
            Ok(block.append_operation(op).result(0).expect("one result").into())
        };
        // One 2-D pool of a 4-D value along its last two axes (and its Indices when asked).
        let pool2d = |v: Value<'_, '_>,
                      shape: &[i64],
                      k: [i64; 2],
                      s: [i64; 2],
                      p: [i64; 4],
                      d: [i64; 2]|
         -> Result<(Val, Vec<i64>, Option<Val>), Error> {
            let o = vec![
                shape[0],
                shape[1],
                sg::verify::pool_out(shape[2], k[0], p[0], p[2], s[0], d[0], ceil == 1),
                sg::verify::pool_out(shape[3], k[1], p[1], p[3], s[1], d[1], ceil == 1),
            ];
            let op = if max {
                sg::MaxPool::build(context, location, v, &k, &s, &p, &d, ceil, ty(&o)?)
            } else {
                sg::AveragePool::build(context, location, v, &k, &s, &p, &d, ceil, count_include_pad, ty(&o)?)
            };
            let pooled = block.append_operation(op).result(0).expect("one result").into();
            let where_from = if indices.is_some() { Some(indices2d(v, pooled, &o, k, s, p, d)?) } else { None };
            Ok((pooled, o, where_from))
        };
        let (result, where_from) = match spatial {
            2 => {
                let (pooled, _, where_from) = pool2d(
                    xv,
                    &x,
                    [kernel[0], kernel[1]],
                    [strides[0], strides[1]],
                    [pads[0], pads[1], pads[2], pads[3]],
                    [dilations[0], dilations[1]],
                )?;
                (pooled, where_from)
            }
            1 => {
                // Over a unit width, the 2-D flat index (n, c, l, 0) is the 1-D one.
                let lifted = (reshape(xv, &[x[0], x[1], x[2], 1])?).get();
                let (pooled, _, where_from) = pool2d(
                    lifted,
                    &[x[0], x[1], x[2], 1],
                    [kernel[0], 1],
                    [strides[0], 1],
                    [pads[0], 0, pads[1], 0],
                    [dilations[0], 1],
                )?;
                let where_from = match where_from {
                    Some(i) => {
                        let op = block.append_operation(sg::Reshape::build(
                            context,
                            location,
                            i.get(),
                            tensor_type(context, &out, DataType::Int64)?,
                        ));
                        Some(op.result(0).expect("one result").into())
                    }
                    None => None,
                };
                (reshape(pooled.get(), &out)?, where_from)
            }
            _ => {
                let planes = [x[0], x[1] * x[2], x[3], x[4]];
                let flat = (reshape(xv, &planes)?).get();
                let (hw, o, _) = pool2d(
                    flat,
                    &planes,
                    [kernel[1], kernel[2]],
                    [strides[1], strides[2]],
                    [pads[1], pads[2], pads[4], pads[5]],
                    [dilations[1], dilations[2]],
                )?;
                let depth = [x[0], x[1], x[2], o[2] * o[3]];
                let deep = reshape(hw.get(), &depth)?.get();
                let (pooled, _, _) =
                    pool2d(deep, &depth, [kernel[0], 1], [strides[0], 1], [pads[0], 0, pads[3], 0], [dilations[0], 1])?;
                (reshape(pooled.get(), &out)?, None)
            }
        };
        if let (Some(name), Some(value)) = (indices, where_from) {
            self.values.insert(name, Entry::Value { value, shape: out.clone(), dtype: DataType::Int64 });
        }
        self.values.insert(node.output[0].clone(), Entry::Value { value: result, shape: out, dtype });
        Ok(())
    }

    /// BatchNormalization (inference) with constant parameters, as `x * s + t` where
    /// `s = scale / sqrt(var + epsilon)` and `t = bias - mean * s` are folded per channel.
    pub(crate) fn batch_norm(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let names: Vec<&str> = node.input.iter().map(String::as_str).collect();
        if names.len() != 5 || names.iter().any(|n| n.is_empty()) {
            return Err("expects 5 inputs: X, scale, B, input_mean, input_var".into());
        }
        let (x, dtype) = self.shape_of(names[0])?;
        if dtype != DataType::Float || x.len() < 2 {
            return Err(Error::unsupported(format!(
                "BatchNormalization of {} input of rank {}",
                dtype.as_str_name(),
                x.len()
            )));
        }
        let training = int(node, "training_mode", 0) != 0;
        if training || node.output.iter().skip(1).any(|o| !o.is_empty()) {
            if !training {
                return Err("running_mean and running_var are outputs only in training mode (training_mode = 1)".into());
            }
            return self.batch_norm_training(block, node, &names, &x, dtype, location);
        }
        let channels = x[1] as usize;
        if names[1..].iter().any(|n| self.folded(n).is_none()) {
            let params = self.channel_params(block, &names[1..], x[1], dtype, location)?;
            let y = self.normalize(block, node, (names[0], &x, dtype), &params, location)?;
            self.values.insert(node.output[0].clone(), Entry::Value { value: y, shape: x, dtype });
            return Ok(());
        }
        let mut params = Vec::new();
        for name in &names[1..] {
            let folded = self.folded(name).ok_or_else(|| {
                Error::unsupported(format!("BatchNormalization parameter '{name}' computed at run time"))
            })?;
            let values = folded.floats()?;
            if values.len() != channels {
                return Err(format!("parameter '{name}' has {} values for {channels} channels", values.len()).into());
            }
            params.push(values);
        }
        let epsilon = attribute(node, "epsilon").map_or(1e-5, |a| a.f()) as f64;
        let scale: Vec<f32> = (0..channels).map(|c| (params[0][c] / (params[3][c] + epsilon).sqrt()) as f32).collect();
        let shift: Vec<f32> = (0..channels).map(|c| (params[1][c] - params[2][c] * scale[c] as f64) as f32).collect();
        let mut channel_shape = vec![x[1]];
        channel_shape.resize(x.len() - 1, 1);
        let base = node_name(node, 0);
        let constant = |label: &str, values: &[f32], this: &mut Self| {
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            this.new_constant(block, &format!("{base}_{label}"), channel_shape.clone(), dtype, bytes, location)
        };
        let s = (constant("scale", &scale, self)?).get();
        let t = (constant("shift", &shift, self)?).get();
        let xv = self.use_value(block, names[0], location)?.get();
        let ty = tensor_type(context, &x, dtype)?;
        let scaled: Value =
            block.append_operation(sg::Mul::build(context, location, xv, s, ty)).result(0).expect("one result").into();
        let op = block.append_operation(sg::Add::build(context, location, scaled, t, ty));
        self.define(node, op, x, dtype);
        Ok(())
    }

    /// Per-channel parameters `names` (each [C] of `dtype`) as values.
    fn channel_params(
        &mut self,
        block: &Block,
        names: &[&str],
        channels: i64,
        dtype: DataType,
        location: Location,
    ) -> Result<Vec<Val>, Error> {
        let mut params = Vec::new();
        for name in names {
            let (shape, param_type) = self.shape_of(name)?;
            if shape != [channels] || param_type != dtype {
                return Err(format!(
                    "parameter '{name}' must be {} [{channels}], got {} {shape:?}",
                    dtype.as_str_name(),
                    param_type.as_str_name()
                )
                .into());
            }
            params.push(self.use_value(block, name, location)?);
        }
        Ok(params)
    }

    /// BatchNormalization with run-time [C] parameters `[scale, bias, mean, var]`:
    /// `s = scale / sqrt(var + epsilon)` and `t = bias - mean * s` computed by `sg` ops,
    /// reshaped to [C, 1, ..] and applied to `input` (its name, shape and type) as `x * s + t`.
    /// Returns the result.
    fn normalize(
        &mut self,
        block: &Block,
        node: &NodeProto,
        input: (&str, &[i64], DataType),
        params: &[Val],
        location: Location,
    ) -> Result<Val, Error> {
        let (x_name, x, dtype) = input;
        let context = self.strata.mlir();
        let params: Vec<Value> = params.iter().map(|&p| p.get()).collect();
        let channels = x[1];
        let epsilon = attribute(node, "epsilon").map_or(1e-5, |a| a.f());
        let vector = tensor_type(context, &[channels], dtype)?;
        let eps = self.scalar(block, &format!("{}_epsilon", node.name()), epsilon, dtype, location)?.get();
        let shifted = append1(block, sg::Add::build(context, location, params[3], eps, vector));
        let root = append1(block, sg::Sqrt::build(context, location, shifted, vector));
        let s = append1(block, sg::Div::build(context, location, params[0], root, vector));
        let ms = append1(block, sg::Mul::build(context, location, params[2], s, vector));
        let t = append1(block, sg::Sub::build(context, location, params[1], ms, vector));
        let mut channel_shape = vec![channels];
        channel_shape.resize(x.len() - 1, 1);
        let per_channel = tensor_type(context, &channel_shape, dtype)?;
        let s = append1(block, sg::Reshape::build(context, location, s, per_channel));
        let t = append1(block, sg::Reshape::build(context, location, t, per_channel));
        let xv = self.use_value(block, x_name, location)?.get();
        let ty = tensor_type(context, x, dtype)?;
        let scaled = append1(block, sg::Mul::build(context, location, xv, s, ty));
        Ok(append1(block, sg::Add::build(context, location, scaled, t, ty)).into())
    }

    /// BatchNormalization in training mode: normalised by the batch's own per-channel mean and
    /// (population) variance over every axis but 1, which also update the running statistics:
    /// `running = input * momentum + current * (1 - momentum)` (outputs 1 and 2, optional).
    fn batch_norm_training(
        &mut self,
        block: &Block,
        node: &NodeProto,
        names: &[&str],
        x: &[i64],
        dtype: DataType,
        location: Location,
    ) -> Result<(), Error> {
        let context = self.strata.mlir();
        let channels = x[1];
        let params = self.channel_params(block, &names[1..], channels, dtype, location)?;
        let momentum = attribute(node, "momentum").map_or(0.9, |a| a.f());
        let axes: Vec<i64> = (0..x.len() as i64).filter(|&a| a != 1).collect();
        let vector = tensor_type(context, &[channels], dtype)?;
        let xv = self.use_value(block, names[0], location)?.get();
        let (kept_mean, kept_var, _) = moments(context, block, location, xv, x, &axes, dtype)?;
        let mean = append1(block, sg::Reshape::build(context, location, kept_mean, vector));
        let var = append1(block, sg::Reshape::build(context, location, kept_var, vector));
        let stats = [params[0], params[1], mean.into(), var.into()];
        let y = self.normalize(block, node, (names[0], x, dtype), &stats, location)?;
        self.values.insert(node.output[0].clone(), Entry::Value { value: y, shape: x.to_vec(), dtype });
        let base = node_name(node, 0);
        let keep = (self.scalar(block, &format!("{base}_momentum"), momentum, dtype, location)?).get();
        let take = self.scalar(block, &format!("{base}_one_minus_momentum"), 1.0 - momentum, dtype, location)?.get();
        for (k, (running, current)) in [(params[2], mean), (params[3], var)].into_iter().enumerate() {
            let Some(output) = node.output.get(1 + k).filter(|o| !o.is_empty()) else { continue };
            let running = running.get();
            let kept = append1(block, sg::Mul::build(context, location, running, keep, vector));
            let taken = append1(block, sg::Mul::build(context, location, current, take, vector));
            let updated = append1(block, sg::Add::build(context, location, kept, taken, vector));
            self.values.insert(output.clone(), Entry::Value { value: updated.into(), shape: vec![channels], dtype });
        }
        Ok(())
    }

    /// Gemm: `alpha * A' * B' + beta * C` as (transpose), matmul, (mul by alpha), add
    /// (C scaled by beta); A' and B' are A and B transposed when transA / transB is set.
    pub(crate) fn gemm(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (a_name, b_name) = (required(node, 0)?, required(node, 1)?);
        let ((a, dtype), (b, _)) = (self.shape_of(a_name)?, self.shape_of(b_name)?);
        if a.len() != 2 || b.len() != 2 {
            return Err(format!("A and B must be matrices, got {a:?} and {b:?}").into());
        }
        let alpha = attribute(node, "alpha").map_or(1.0, |a| a.f());
        let beta = attribute(node, "beta").map_or(1.0, |a| a.f());
        let maybe_transposed =
            |name: &str, shape: &[i64], transpose: bool, this: &mut Self| -> Result<(Val, Vec<i64>), Error> {
                if !transpose {
                    return Ok((this.use_value(block, name, location)?, shape.to_vec()));
                }
                let out = vec![shape[1], shape[0]];
                // A constant operand (a classifier's weight) is transposed here, once, instead
                // of at every run.
                let transposed = format!("{name}::transposed");
                if this.folded(&transposed).is_some() {
                    return Ok((this.use_value(block, &transposed, location)?, out));
                }
                if let Some(folded) = this.folded(name).and_then(|f| crate::fold::transpose_2d(&f)) {
                    if this.within_constant_budget(&transposed, folded.bytes.len() as u64).is_ok() {
                        this.insert_computed(transposed.clone(), folded)?;
                        return Ok((this.use_value(block, &transposed, location)?, out));
                    }
                }
                let value = this.use_value(block, name, location)?;
                let op =
                    sg::Transpose::build(context, location, value.get(), &[1, 0], tensor_type(context, &out, dtype)?);
                let value: Value = block.append_operation(op).result(0).expect("one result").into();
                Ok((value.into(), out))
            };
        let (a_value, a) = maybe_transposed(a_name, &a, int(node, "transA", 0) != 0, self)?;
        let (b_value, b) = maybe_transposed(b_name, &b, int(node, "transB", 0) != 0, self)?;
        if a[1] != b[0] {
            return Err(format!("contraction sizes differ: {a:?} x {b:?}").into());
        }
        let shape = vec![a[0], b[1]];
        let ty = tensor_type(context, &shape, dtype)?;
        let product = sg::Matmul::build(context, location, a_value.get(), b_value.get(), ty);
        let mut result: Value = block.append_operation(product).result(0).expect("one result").into();
        if alpha != 1.0 {
            let scale = self.scalar(block, &format!("{}_alpha", node.name()), alpha, dtype, location)?;
            let op = sg::Mul::build(context, location, result, scale.get(), ty);
            result = block.append_operation(op).result(0).expect("one result").into();
        }
        if let Some(c_name) = operand(node, 2) {
            let (c, _) = self.shape_of(c_name)?;
            let out = sg::verify::broadcast(&shape, &c)
                .filter(|s| *s == shape)
                .ok_or_else(|| format!("C {c:?} does not broadcast to {shape:?}"))?;
            let mut c_value = self.use_value(block, c_name, location)?.get();
            if beta != 1.0 {
                let scale = self.scalar(block, &format!("{}_beta", node.name()), beta, dtype, location)?;
                let op = sg::Mul::build(context, location, c_value, scale.get(), tensor_type(context, &c, dtype)?);
                c_value = block.append_operation(op).result(0).expect("one result").into();
            }
            let op = sg::Add::build(context, location, result, c_value, tensor_type(context, &out, dtype)?);
            result = block.append_operation(op).result(0).expect("one result").into();
        }
        self.values.insert(node.output[0].clone(), Entry::Value { value: result.into(), shape, dtype });
        Ok(())
    }

    /// LayerNormalization's optional outputs: Mean (output 1) and InvStdDev (output 2) over
    /// dimensions `axis..`, kept as size 1, as `reduce_mean`, `sub`, `mul`, `add`, `sqrt` and
    /// `reciprocal` in the input's type (which must be the stash type, float by default).
    /// `input` is the normalised value with its shape and type.
    pub(crate) fn layer_norm_statistics(
        &mut self,
        block: &Block,
        node: &NodeProto,
        input: (Value, &[i64], DataType),
        (axis, epsilon): (usize, f32),
        location: Location,
    ) -> Result<(), Error> {
        let (x, shape, dtype) = input;
        let wanted = |k: usize| node.output.get(k).filter(|o| !o.is_empty()).cloned();
        let (mean_name, inv_name) = (wanted(1), wanted(2));
        if mean_name.is_none() && inv_name.is_none() {
            return Ok(());
        }
        let stash = DataType::try_from(int(node, "stash_type", 1) as i32).unwrap_or(DataType::Float);
        if stash != dtype {
            return Err(Error::unsupported(format!(
                "Mean and InvStdDev in stash type {} for a {} input",
                stash.as_str_name(),
                dtype.as_str_name()
            )));
        }
        let context = self.strata.mlir();
        let axes: Vec<i64> = (axis as i64..shape.len() as i64).collect();
        let (mean, variance, stat_shape) = moments(context, block, location, x, shape, &axes, dtype)?;
        let stat = tensor_type(context, &stat_shape, dtype)?;
        let eps = self.scalar(block, &format!("{}_epsilon", node.name()), epsilon, dtype, location)?.get();
        let shifted = append1(block, sg::Add::build(context, location, variance, eps, stat));
        let root = append1(block, sg::Sqrt::build(context, location, shifted, stat));
        let inverse = append1(block, sg::Reciprocal::build(context, location, root, stat));
        for (name, value) in [(mean_name, mean), (inv_name, inverse)] {
            if let Some(name) = name {
                self.values.insert(name, Entry::Value { value: value.into(), shape: stat_shape.clone(), dtype });
            }
        }
        Ok(())
    }

    /// A rank-0 constant holding `value` (float element types only).
    fn scalar(
        &mut self,
        block: &Block,
        label: &str,
        value: f32,
        dtype: DataType,
        location: Location,
    ) -> Result<Val, Error> {
        let bytes = match dtype {
            DataType::Float => value.to_le_bytes().to_vec(),
            DataType::Double => (value as f64).to_le_bytes().to_vec(),
            other => {
                return Err(Error::unsupported(format!(
                    "scaling a {} tensor by a float attribute",
                    other.as_str_name()
                )))
            }
        };
        self.new_constant(block, label, Vec::new(), dtype, bytes, location)
    }

    /// InstanceNormalization over each (N, C) plane, then per-channel scale and bias.
    pub(crate) fn instance_norm(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let names: Vec<&str> = node.input.iter().map(String::as_str).collect();
        if names.len() != 3 || names.iter().any(|n| n.is_empty()) {
            return Err("expects 3 inputs: input, scale, B".into());
        }
        let (x, dtype) = self.shape_of(names[0])?;
        if x.len() < 3 {
            return Err(format!("expects an N x C x spatial input, got {x:?}").into());
        }
        for name in &names[1..] {
            let (s, _) = self.shape_of(name)?;
            if s != [x[1]] {
                return Err(format!("'{name}' must have shape [{}], got {s:?}", x[1]).into());
            }
        }
        let epsilon = attribute(node, "epsilon").map_or(1e-5, |a| a.f()) as f64;
        let values: Vec<Value> =
            names.iter().map(|n| self.use_value(block, n, location).map(|v| v.get())).collect::<Result<_, _>>()?;
        let op = sg::InstanceNorm::build(
            context,
            location,
            values[0],
            values[1],
            values[2],
            epsilon,
            tensor_type(context, &x, dtype)?,
        );
        let op = block.append_operation(op);
        self.define(node, op, x, dtype);
        Ok(())
    }
}
