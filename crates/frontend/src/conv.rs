//! Convolutions of 1, 2 and 3 spatial dimensions onto `sg.conv2d`:
//!
//! - 2-D is one `sg.conv2d`;
//! - 1-D is 2-D over a trailing unit axis (input, kernel and result reshaped);
//! - 3-D is a sum over the kernel's depth taps of 2-D convolutions: with the depth axis moved
//!   next to the batch and padded, tap `kd` reads the depth slices `od * stride + kd *
//!   dilation` (one strided slice), folded into the batch, convolved over (H, W) with the
//!   kernel's slice `kd`, and added up; the result's depth goes back behind the channels.
//!
//! ConvTranspose (`conv_transpose.rs`) ends in the same stride-1 convolution.

use crate::fold::Folded;
use crate::import::{attribute, int, ints, operand, required, tensor_type, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use crate::shapes;
use melior::ir::{Block, BlockLike, Location, Value};
use strata_dialect_sg as sg;
use strata_ir::Error;
use strata_ir::Val;

/// The padding `[begin.., end..]` of a windowed op (Conv, ConvTranspose's forward form,
/// MaxPool, AveragePool) from `pads` or `auto_pad`, for any number of spatial axes.
pub(crate) fn window_pads(
    node: &NodeProto,
    input: &[i64],
    kernel: &[i64],
    strides: &[i64],
    dilations: &[i64],
) -> Result<Vec<i64>, Error> {
    let auto_pad = attribute(node, "auto_pad")
        .map(|a| String::from_utf8_lossy(a.s()).into_owned())
        .unwrap_or_else(|| "NOTSET".into());
    let spatial = input.len();
    Ok(match auto_pad.as_str() {
        "NOTSET" => ints(node, "pads").unwrap_or_else(|| vec![0; 2 * spatial]),
        "VALID" => vec![0; 2 * spatial],
        "SAME_UPPER" | "SAME_LOWER" => {
            let same: Vec<(i64, i64)> = (0..spatial)
                .map(|i| shapes::same_pads(input[i], kernel[i], strides[i], dilations[i], auto_pad == "SAME_UPPER"))
                .collect();
            same.iter().map(|p| p.0).chain(same.iter().map(|p| p.1)).collect()
        }
        other => return Err(format!("auto_pad '{other}' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER").into()),
    })
}

/// A convolution's kernel `[F, C/group, k..]`: a constant (sliced at import time for 3-D,
/// reshaped to `[F, C/group, k, 1]` for 1-D: a constant filter is laid out for the host's
/// register blocks at compile time, a reshaped value at run time), named after `label`, or a
/// run-time value.
pub(crate) enum Kernel {
    Constant { folded: Folded, label: String },
    Value(Val),
}

/// A convolution's geometry: per spatial axis, strides and dilations; pads `[begin.., end..]`.
pub(crate) struct Geometry<'g> {
    pub(crate) strides: &'g [i64],
    pub(crate) pads: &'g [i64],
    pub(crate) dilations: &'g [i64],
    pub(crate) group: i64,
}

/// Appends a one-result op and returns its result.
pub(crate) fn append1<'c, 'a>(block: &'a Block<'c>, op: melior::ir::Operation<'c>) -> Value<'c, 'a> {
    block.append_operation(op).result(0).expect("one result").into()
}

impl Importer<'_> {
    /// ONNX Conv (1-D, 2-D, 3-D; groups, pads, strides, dilations, auto_pad, bias).
    pub(crate) fn conv(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let (x_name, w_name) = (required(node, 0)?, required(node, 1)?);
        let ((x, dtype), (w, _)) = (self.shape_of(x_name)?, self.shape_of(w_name)?);
        let spatial = x.len().saturating_sub(2);
        if !(1..=3).contains(&spatial) || w.len() != x.len() {
            return Err(Error::unsupported(format!("convolution of input {x:?} with weight {w:?} (1-D, 2-D and 3-D: N x C x spatial input, F x C/group x kernel weight)")));
        }
        let strides = ints(node, "strides").unwrap_or_else(|| vec![1; spatial]);
        let dilations = ints(node, "dilations").unwrap_or_else(|| vec![1; spatial]);
        let group = int(node, "group", 1);
        if let Some(kernel) = ints(node, "kernel_shape") {
            if kernel != w[2..] {
                return Err(format!("kernel_shape {kernel:?} does not match the weight {w:?}").into());
            }
        }
        if strides.len() != spatial
            || dilations.len() != spatial
            || strides.iter().chain(&dilations).any(|&v| v <= 0 || v > 1 << 31)
        {
            return Err(format!(
                "strides {strides:?} and dilations {dilations:?} must be {spatial} positive values (below 2^31) each"
            )
            .into());
        }
        let pads = window_pads(node, &x[2..], &w[2..], &strides, &dilations)?;
        if pads.len() != 2 * spatial || pads.iter().any(|&p| !(0..=1 << 31).contains(&p)) {
            return Err(format!("pads {pads:?} must be {} non-negative values (below 2^31)", 2 * spatial).into());
        }
        if group < 1 || group > x[1] || x[1] % group != 0 || w[0] % group != 0 || w[1].checked_mul(group) != Some(x[1])
        {
            return Err(format!("group {group} does not fit input channels {} and weight {w:?}", x[1]).into());
        }
        let bias = match operand(node, 2) {
            Some(name) => {
                let (b, _) = self.shape_of(name)?;
                if b != [w[0]] {
                    return Err(format!("bias shape {b:?} must be [{}]", w[0]).into());
                }
                Some(self.use_value(block, name, location)?)
            }
            None => None,
        };
        let xv = self.use_value(block, x_name, location)?;
        let kernel = match self.folded(w_name) {
            Some(folded) if spatial != 2 => Kernel::Constant { folded, label: crate::import::node_name(node, 0) },
            _ => Kernel::Value(self.use_value(block, w_name, location)?),
        };
        let geometry = Geometry { strides: &strides, pads: &pads, dilations: &dilations, group };
        let (y, out) = self.conv_nd(block, location, xv, &x, kernel, &w, bias, &geometry, dtype)?;
        self.values.insert(node.output[0].clone(), crate::import::Entry::Value { value: y, shape: out, dtype });
        Ok(())
    }

    /// The convolution of `x` (shape `xs`) with `kernel` (shape `ws`) and an optional [F]
    /// bias; returns the result and its shape.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn conv_nd(
        &mut self,
        block: &Block,
        location: Location,
        x: Val,
        xs: &[i64],
        kernel: Kernel,
        ws: &[i64],
        bias: Option<Val>,
        g: &Geometry,
        dtype: DataType,
    ) -> Result<(Val, Vec<i64>), Error> {
        let context = self.strata.mlir();
        let spatial = xs.len() - 2;
        let mut out = vec![xs[0], ws[0]];
        out.extend((0..spatial).map(|i| {
            shapes::conv_out(xs[2 + i], ws[2 + i], g.pads[i], g.pads[spatial + i], g.strides[i], g.dilations[i])
        }));
        shapes::numel(&out)?;
        if out[2..].iter().any(|&d| d < 1) {
            return Err(format!("the convolution's output {out:?} would be empty").into());
        }
        let ty = |shape: &[i64]| tensor_type(context, shape, dtype);
        let reshape = |v: Val, shape: &[i64]| -> Result<Val, Error> {
            Ok(append1(block, sg::Reshape::build(context, location, v.get(), ty(shape)?)).into())
        };
        let conv2d = |x: Val,
                      w: Val,
                      bias: Option<Val>,
                      out: &[i64],
                      strides: [i64; 2],
                      pads: [i64; 4],
                      dilations: [i64; 2]|
         -> Result<Val, Error> {
            let op = sg::Conv2d::build(
                context,
                location,
                x.get(),
                w.get(),
                bias.map(|b| b.get()),
                &strides,
                &pads,
                &dilations,
                g.group,
                ty(out)?,
            );
            Ok(append1(block, op).into())
        };
        let materialise = |this: &mut Self, kernel: Kernel, shape: &[i64]| -> Result<Val, Error> {
            match kernel {
                Kernel::Value(v) if shape == ws => Ok(v),
                Kernel::Value(v) => reshape(v, shape),
                Kernel::Constant { folded, label } => {
                    this.new_constant(block, &format!("{label}_kernel"), shape.to_vec(), dtype, folded.bytes, location)
                }
            }
        };
        match spatial {
            2 => {
                let w = materialise(self, kernel, ws)?;
                let y = conv2d(
                    x,
                    w,
                    bias,
                    &out,
                    [g.strides[0], g.strides[1]],
                    [g.pads[0], g.pads[1], g.pads[2], g.pads[3]],
                    [g.dilations[0], g.dilations[1]],
                )?;
                Ok((y, out))
            }
            1 => {
                let w = materialise(self, kernel, &[ws[0], ws[1], ws[2], 1])?;
                let x = reshape(x, &[xs[0], xs[1], xs[2], 1])?;
                let out4 = [out[0], out[1], out[2], 1];
                let y =
                    conv2d(x, w, bias, &out4, [g.strides[0], 1], [g.pads[0], 0, g.pads[1], 0], [g.dilations[0], 1])?;
                Ok((reshape(y, &out)?, out))
            }
            _ => {
                // Depth next to the batch, padded: [N, D + pads, C, H, W].
                let (n, c, depth) = (xs[0], xs[1], xs[2]);
                let moved = [n, depth, c, xs[3], xs[4]];
                let mut xv: Val =
                    append1(block, sg::Transpose::build(context, location, x.get(), &[0, 2, 1, 3, 4], ty(&moved)?))
                        .into();
                let padded_depth = depth + g.pads[0] + g.pads[3];
                if g.pads[0] + g.pads[3] > 0 {
                    let pads = [0, g.pads[0], 0, 0, 0, 0, g.pads[3], 0, 0, 0];
                    let padded = [n, padded_depth, c, xs[3], xs[4]];
                    xv =
                        append1(block, sg::Pad::build(context, location, xv.get(), &pads, 0, 0.0, ty(&padded)?)).into();
                }
                let od = out[2];
                let planes = [n * od, c, xs[3], xs[4]];
                let out4 = [n * od, out[1], out[3], out[4]];
                let tap_shape = [ws[0], ws[1], ws[3], ws[4]];
                let mut sum: Option<Val> = None;
                for kd in 0..ws[2] {
                    // Depth slices od * stride + kd * dilation, od < out depth.
                    let start = kd * g.dilations[0];
                    let end = start + (od - 1) * g.strides[0] + 1;
                    let taken = [n, od, c, xs[3], xs[4]];
                    let slice = sg::Slice::build(
                        context,
                        location,
                        xv.get(),
                        &[0, start, 0, 0, 0],
                        &[n, end, c, xs[3], xs[4]],
                        &[1, g.strides[0], 1, 1, 1],
                        ty(&taken)?,
                    );
                    let slices = reshape(append1(block, slice).into(), &planes)?;
                    let w = match &kernel {
                        Kernel::Value(v) => {
                            let tap = sg::Slice::build(
                                context,
                                location,
                                v.get(),
                                &[0, 0, kd, 0, 0],
                                &[ws[0], ws[1], kd + 1, ws[3], ws[4]],
                                &[1, 1, 1, 1, 1],
                                ty(&[ws[0], ws[1], 1, ws[3], ws[4]])?,
                            );
                            reshape(append1(block, tap).into(), &tap_shape)?
                        }
                        Kernel::Constant { folded, label } => {
                            let tap = crate::fold::slice(
                                folded,
                                &[0, 0, kd, 0, 0],
                                &[ws[0], ws[1], kd + 1, ws[3], ws[4]],
                                &[1; 5],
                            )?;
                            self.new_constant(
                                block,
                                &format!("{label}_kernel_d{kd}"),
                                tap_shape.to_vec(),
                                dtype,
                                tap.bytes,
                                location,
                            )?
                        }
                    };
                    let y = conv2d(
                        slices,
                        w,
                        if kd == 0 { bias } else { None },
                        &out4,
                        [g.strides[1], g.strides[2]],
                        [g.pads[1], g.pads[2], g.pads[4], g.pads[5]],
                        [g.dilations[1], g.dilations[2]],
                    )?;
                    sum = Some(match sum {
                        None => y,
                        Some(s) => {
                            append1(block, sg::Add::build(context, location, s.get(), y.get(), ty(&out4)?)).into()
                        }
                    });
                }
                let sum = sum.ok_or("a 3-D kernel with no depth")?;
                let deep = reshape(sum, &[n, od, out[1], out[3], out[4]])?;
                let y =
                    append1(block, sg::Transpose::build(context, location, deep.get(), &[0, 2, 1, 3, 4], ty(&out)?))
                        .into();
                Ok((y, out))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn depth_taps_read_strided_slices() {
        // Depth 7 padded by 1 on each side, kernel 3, stride 2, dilation 2: out depth
        // (7 + 2 - 4 - 1) / 2 + 1 = 3; tap kd reads 2 * kd, 2 * kd + 2, 2 * kd + 4 of the padded
        // depth (the slice [2 kd, 2 kd + 5) by 2).
        let (od, stride, dilation) = (crate::shapes::conv_out(7, 3, 1, 1, 2, 2), 2, 2);
        assert_eq!(od, 3);
        for kd in 0..3 {
            let (start, end) = (kd * dilation, kd * dilation + (od - 1) * stride + 1);
            assert_eq!(strata_dialect_sg::verify::slice_len(start, end, stride), od);
            assert!(end <= 9);
        }
    }
}
