//! ConvTranspose (1-D, 2-D and 3-D; groups, strides, dilations, pads, output_padding,
//! output_shape, auto_pad), decomposed into a stride-1 convolution (`conv.rs`):
//!
//! `y[o] = Σ_k x[i] w[k]` over `o = i*s + k*d - pad_begin` equals a convolution (dilation `d`,
//! stride 1) of `x` with `s - 1` zeros inserted between neighbours, padded by
//! `d*(K-1) - pad_begin` before and `d*(K-1) - pad_end + output_padding` after (cropped where
//! negative), with the kernel flipped and its channel axes swapped per group
//! (`[C_in, C_out/g, k..]` to `[C_out, C_in/g, k..]`). Zero insertion is a reshape to
//! `[.., H, 1, W, 1, ..]`, a pad of the unit axes to `s` and a reshape back. A constant kernel is
//! rearranged here, at import time; a run-time one by reshape, transpose and reversing gathers.
//!
//! The zero-inserted input costs `s^d` times the multiply-adds of a direct transposed
//! convolution; a scatter-free direct lowering (one strided convolution per output phase) is
//! the faster form and a later step.

use crate::conv::{append1, Geometry, Kernel};
use crate::import::{attribute, int, ints, node_name, operand, required, tensor_type, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use crate::shapes;
use melior::ir::{Block, Location};
use strata_dialect_sg as sg;
use strata_ir::Error;

/// Explicit begin and end paddings `[b0, b1, .., e0, e1, ..]` of a transposed convolution and its
/// output spatial sizes.
/// The per-axis attributes of a transposed convolution.
#[derive(Clone, Copy)]
pub(crate) struct Transposed<'a> {
    pub kernel: &'a [i64],
    pub strides: &'a [i64],
    pub dilations: &'a [i64],
    pub output_padding: &'a [i64],
}

pub(crate) fn transposed_geometry(
    input: &[i64],
    conv: Transposed,
    pads: Option<&[i64]>,
    output_shape: Option<&[i64]>,
    same_upper: bool,
) -> (Vec<i64>, Vec<i64>) {
    let Transposed { kernel, strides, dilations, output_padding } = conv;
    let n = input.len();
    let full = |i: usize| strides[i] * (input[i] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1;
    let pads: Vec<i64> = match (pads, output_shape) {
        (Some(p), _) => p.to_vec(),
        (None, target) => {
            let target: Vec<i64> =
                target.map_or_else(|| (0..n).map(|i| input[i] * strides[i]).collect(), <[i64]>::to_vec);
            let total: Vec<i64> = (0..n).map(|i| full(i) - target[i]).collect();
            let half = |t: i64| t.div_euclid(2);
            let (begin, end): (Vec<i64>, Vec<i64>) =
                total.iter().map(|&t| if same_upper { (half(t), t - half(t)) } else { (t - half(t), half(t)) }).unzip();
            begin.into_iter().chain(end).collect()
        }
    };
    let out = (0..n).map(|i| full(i) - pads[i] - pads[i + n]).collect();
    (pads, out)
}

/// A `[C_in, C_out/g, k..]` kernel as `[C_out, C_in/g, k..]` with every spatial axis reversed,
/// element by element (`width` bytes each).
pub(crate) fn rearranged_kernel(bytes: &[u8], shape: &[i64], group: i64, width: usize) -> Vec<u8> {
    let (c_in, c_out_g) = (shape[0], shape[1]);
    let c_in_g = c_in / group;
    let spatial: Vec<i64> = shape[2..].to_vec();
    let plane: i64 = spatial.iter().product();
    let mut out = vec![0u8; bytes.len()];
    for g in 0..group {
        for ci in 0..c_in_g {
            for co in 0..c_out_g {
                for k in 0..plane {
                    // The flipped spatial index of k.
                    let (mut rest, mut flipped, mut stride) = (k, 0, 1);
                    for &extent in spatial.iter().rev() {
                        let digit = rest % extent;
                        rest /= extent;
                        flipped += (extent - 1 - digit) * stride;
                        stride *= extent;
                    }
                    let src = (((g * c_in_g + ci) * c_out_g + co) * plane + k) as usize * width;
                    let dst = (((g * c_out_g + co) * c_in_g + ci) * plane + flipped) as usize * width;
                    out[dst..dst + width].copy_from_slice(&bytes[src..src + width]);
                }
            }
        }
    }
    out
}

impl Importer<'_> {
    pub(crate) fn conv_transpose(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (x_name, w_name) = (required(node, 0)?.to_owned(), required(node, 1)?.to_owned());
        let ((x, dtype), (w, _)) = (self.shape_of(&x_name)?, self.shape_of(&w_name)?);
        let spatial = x.len().saturating_sub(2);
        if !(1..=3).contains(&spatial) {
            return Err(Error::unsupported(format!(
                "{spatial}-D ConvTranspose (1-D, 2-D and 3-D are supported), input {x:?}"
            )));
        }
        if w.len() != x.len() {
            return Err(format!("weight {w:?} must have the input's rank {}", x.len()).into());
        }
        let group = int(node, "group", 1);
        if group < 1 || x[1] % group != 0 || w[0] != x[1] {
            return Err(format!(
                "group {group} does not fit input channels {} and weight {w:?} ([C_in, C_out/group, k..])",
                x[1]
            )
            .into());
        }
        let kernel = w[2..].to_vec();
        if let Some(k) = ints(node, "kernel_shape") {
            if k != kernel {
                return Err(format!("kernel_shape {k:?} does not match the weight {w:?}").into());
            }
        }
        let list = |name: &str, default: i64, len: usize| -> Result<Vec<i64>, Error> {
            let v = ints(node, name).unwrap_or_else(|| vec![default; len]);
            if v.len() != len {
                return Err(format!("{name} {v:?} must have {len} values").into());
            }
            Ok(v)
        };
        let strides = list("strides", 1, spatial)?;
        let dilations = list("dilations", 1, spatial)?;
        let output_padding = list("output_padding", 0, spatial)?;
        if strides.iter().chain(&dilations).any(|&v| !(1..=1 << 20).contains(&v))
            || output_padding.iter().any(|&v| !(0..=1 << 20).contains(&v))
        {
            return Err(format!("strides {strides:?}, dilations {dilations:?} must be positive and output_padding {output_padding:?} non-negative").into());
        }
        let auto_pad = attribute(node, "auto_pad")
            .map_or_else(|| "NOTSET".to_owned(), |a| String::from_utf8_lossy(a.s()).into_owned());
        let explicit = ints(node, "pads");
        let output_shape = ints(node, "output_shape").map(|s| if s.len() == x.len() { s[2..].to_vec() } else { s });
        let pads = match auto_pad.as_str() {
            "NOTSET" if output_shape.is_some() && explicit.is_none() => None,
            "NOTSET" => Some(explicit.unwrap_or_else(|| vec![0; 2 * spatial])),
            "VALID" => Some(vec![0; 2 * spatial]),
            "SAME_UPPER" | "SAME_LOWER" => None,
            other => {
                return Err(format!("auto_pad '{other}' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER").into())
            }
        };
        if pads.as_ref().is_some_and(|p| p.len() != 2 * spatial || p.iter().any(|&v| v.unsigned_abs() > 1 << 20))
            || output_shape.as_ref().is_some_and(|s| s.len() != spatial)
        {
            return Err(format!(
                "pads {pads:?} and output_shape {output_shape:?} must have {} and {spatial} values",
                2 * spatial
            )
            .into());
        }
        let geometry =
            Transposed { kernel: &kernel, strides: &strides, dilations: &dilations, output_padding: &output_padding };
        let (pads, out_spatial) =
            transposed_geometry(&x[2..], geometry, pads.as_deref(), output_shape.as_deref(), auto_pad == "SAME_UPPER");
        if out_spatial.iter().any(|&d| d < 1) {
            return Err(format!("the output would have spatial size {out_spatial:?} (pads {pads:?})").into());
        }
        let c_out = w[1] * group;
        let mut out = vec![x[0], c_out];
        out.extend(&out_spatial);
        shapes::numel(&out)?;
        let ty = |shape: &[i64]| tensor_type(context, shape, dtype);
        let base = node_name(node, 0);

        // The kernel, rearranged to [C_out, C_in/g, k..] and flipped.
        let mut w2_shape = vec![c_out, x[1] / group];
        w2_shape.extend(&kernel);
        let kernel_value = match self.folded(&w_name) {
            Some(folded) => {
                let width = folded.bytes.len() / shapes::numel(&w)?.max(1) as usize;
                Kernel::Constant {
                    folded: crate::fold::Folded {
                        shape: w2_shape.clone(),
                        dtype,
                        bytes: rearranged_kernel(&folded.bytes, &w, group, width),
                    },
                    label: base.clone(),
                }
            }
            None => {
                let mut v = self.use_value(block, &w_name, location)?.get();
                let mut grouped = vec![group, x[1] / group, w[1]];
                grouped.extend(&kernel);
                v = append1(block, sg::Reshape::build(context, location, v, ty(&grouped)?));
                let mut swapped = vec![group, w[1], x[1] / group];
                swapped.extend(&kernel);
                let mut perm = vec![0, 2, 1];
                perm.extend(3..3 + spatial as i64);
                v = append1(block, sg::Transpose::build(context, location, v, &perm, ty(&swapped)?));
                v = append1(block, sg::Reshape::build(context, location, v, ty(&w2_shape)?));
                for axis in 2..2 + spatial {
                    let extent = w2_shape[axis];
                    if extent > 1 {
                        let reversed: Vec<u8> = (0..extent).rev().flat_map(|i: i64| i.to_le_bytes()).collect();
                        let flip = self.new_constant(
                            block,
                            &format!("{base}_flip{axis}"),
                            vec![extent],
                            DataType::Int64,
                            reversed,
                            location,
                        )?;
                        let indices = flip.get();
                        v = append1(
                            block,
                            sg::Gather::build(context, location, v, indices, axis as i64, ty(&w2_shape)?),
                        );
                    }
                }
                Kernel::Value(v.into())
            }
        };

        // The input: zeros inserted (each spatial axis [.., n, 1, ..] padded to [.., n, s, ..]),
        // then padded or cropped.
        let mut xv = self.use_value(block, &x_name, location)?.get();
        let mut current = x.clone();
        if strides.iter().any(|&s| s > 1) {
            let mut unit = vec![x[0], x[1]];
            let mut spread = vec![x[0], x[1]];
            let mut pad = vec![0; 2 + 2 * spatial];
            for i in 0..spatial {
                unit.extend([x[2 + i], 1]);
                spread.extend([x[2 + i], strides[i]]);
                pad[3 + 2 * i] = strides[i] - 1;
            }
            // Begin pads are all 0: the high pads follow them.
            let mut spread_pads = vec![0; spread.len()];
            spread_pads.extend(pad);
            xv = append1(block, sg::Reshape::build(context, location, xv, ty(&unit)?));
            xv = append1(block, sg::Pad::build(context, location, xv, &spread_pads, 0, 0.0, ty(&spread)?));
            current = vec![x[0], x[1]];
            current.extend((0..spatial).map(|i| x[2 + i] * strides[i]));
            xv = append1(block, sg::Reshape::build(context, location, xv, ty(&current)?));
        }
        // Wanted paddings around the zero-inserted input ((in-1)*s+1 long; `current` already
        // ends in s-1 zeros).
        let begin: Vec<i64> = (0..spatial).map(|i| dilations[i] * (kernel[i] - 1) - pads[i]).collect();
        let end: Vec<i64> = (0..spatial)
            .map(|i| dilations[i] * (kernel[i] - 1) - pads[i + spatial] + output_padding[i] - (strides[i] - 1))
            .collect();
        if begin.iter().chain(&end).any(|&p| p < 0) {
            let mut starts = vec![0, 0];
            starts.extend(begin.iter().map(|&b| (-b).max(0)));
            let mut ends = vec![current[0], current[1]];
            ends.extend((0..spatial).map(|i| current[2 + i] - (-end[i]).max(0)));
            if (2..2 + spatial).any(|i| ends[i] <= starts[i]) {
                return Err(format!("pads {pads:?} crop away the whole input").into());
            }
            let cropped: Vec<i64> = (0..current.len()).map(|i| ends[i] - starts[i]).collect();
            xv = append1(
                block,
                sg::Slice::build(context, location, xv, &starts, &ends, &vec![1; current.len()], ty(&cropped)?),
            );
            current = cropped;
        }
        if begin.iter().chain(&end).any(|&p| p > 0) {
            let mut pad = vec![0, 0];
            pad.extend(begin.iter().map(|&b| b.max(0)));
            pad.extend([0, 0]);
            pad.extend(end.iter().map(|&e| e.max(0)));
            let rank = current.len();
            let padded: Vec<i64> = (0..rank).map(|i| current[i] + pad[i] + pad[i + rank]).collect();
            xv = append1(block, sg::Pad::build(context, location, xv, &pad, 0, 0.0, ty(&padded)?));
            current = padded;
        }
        let bias = match operand(node, 2) {
            Some(name) => {
                let (b, _) = self.shape_of(name)?;
                if b != [c_out] {
                    return Err(format!("bias shape {b:?} must be [{c_out}]").into());
                }
                Some(self.use_value(block, name, location)?)
            }
            None => None,
        };
        // A stride-1 convolution without padding over the prepared input.
        let (ones, zeros) = (vec![1; spatial], vec![0; 2 * spatial]);
        let geometry = Geometry { strides: &ones, pads: &zeros, dilations: &dilations, group };
        let (y, shape) =
            self.conv_nd(block, location, xv.into(), &current, kernel_value, &w2_shape, bias, &geometry, dtype)?;
        debug_assert_eq!(shape, out);
        self.values.insert(node.output[0].clone(), Entry::Value { value: y, shape: out, dtype });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv<'a>(
        kernel: &'a [i64],
        strides: &'a [i64],
        dilations: &'a [i64],
        output_padding: &'a [i64],
    ) -> Transposed<'a> {
        Transposed { kernel, strides, dilations, output_padding }
    }

    #[test]
    fn geometry_follows_the_onnx_formulas() {
        // test_convtranspose_output_shape: 3x3 input, 3x3 kernel, strides [3, 2], output [10, 8].
        let (pads, out) =
            transposed_geometry(&[3, 3], conv(&[3, 3], &[3, 2], &[1, 1], &[0, 0]), None, Some(&[10, 8]), false);
        assert_eq!(out, [10, 8]);
        assert_eq!(pads, [0, 0, -1, -1]);
        // Plain: (3-1)*1 + 3 = 5.
        assert_eq!(transposed_geometry(&[3], conv(&[3], &[1], &[1], &[0]), Some(&[0, 0]), None, false).1, [5]);
        // SAME_UPPER keeps in * stride.
        assert_eq!(transposed_geometry(&[3, 3], conv(&[3, 3], &[2, 2], &[1, 1], &[0, 0]), None, None, true).1, [6, 6]);
    }

    #[test]
    fn kernel_is_flipped_and_transposed_per_group() {
        // [C_in = 2, C_out/g = 1, 2] with 2 groups: each group's kernel is reversed in place.
        let bytes: Vec<u8> = vec![1, 2, 3, 4];
        assert_eq!(rearranged_kernel(&bytes, &[2, 1, 2], 2, 1), [2, 1, 4, 3]);
        // One group, [C_in = 2, C_out = 1, 1]: becomes [C_out = 1, C_in = 2, 1].
        assert_eq!(rearranged_kernel(&[7, 8], &[2, 1, 1], 1, 1), [7, 8]);
    }
}
