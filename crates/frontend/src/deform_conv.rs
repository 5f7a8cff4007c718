//! `DeformConv` (opset 19; DCN in detectors and text detectors): each kernel tap reads the
//! input at its regular position plus a learned offset, bilinearly, as ONNX's reference does
//! with GridSample. Imported as GridSample over all taps and positions at once per offset
//! group (the grid: the taps' regular positions, a compile-time constant, plus the offsets),
//! the samples scaled by the mask, then a grouped 1x1 convolution of the taps' samples with
//! the weights.

use crate::expand::{attr_i, attr_ints, Expansion};
use crate::fold::Folded;
use crate::import::{int, ints, operand, required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// `DeformConv` of a 2-D f32 input `X` `[N, C, H, W]`, weights `W` `[oC, C / group, kH,
    /// kW]`, `offset` `[N, offset_group * kH * kW * 2, oH, oW]` (per tap, the (h, w) shift),
    /// optional bias `B` `[oC]` and `mask` `[N, offset_group * kH * kW, oH, oW]`; `pads`,
    /// `strides`, `dilations`, `group`, `offset_group` as ONNX defines them. A tap outside the
    /// input reads zeros (GridSample's zero padding, corners aligned, as the reference).
    pub(crate) fn deform_conv(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, w, offset) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let ((x_shape, dtype), (w_shape, w_type), (offset_shape, offset_type)) =
            (self.shape_of(x)?, self.shape_of(w)?, self.shape_of(offset)?);
        let (&[n, c, h, wd], &[oc, cpg, kh, kw]) = (&x_shape[..], &w_shape[..]) else {
            return Err(Error::unsupported(format!(
                "DeformConv of input {x_shape:?} and weights {w_shape:?} (2-D, [N, C, H, W] and [oC, C / group, kH, kW], is supported)"
            )));
        };
        if dtype != DataType::Float || w_type != dtype || offset_type != dtype {
            return Err(Error::unsupported(format!(
                "DeformConv on {} input, weights and offsets (float is supported)",
                dtype.as_str_name()
            )));
        }
        let pair = |name: &str, default: i64| -> Result<[i64; 2], Error> {
            match ints(node, name).as_deref() {
                None => Ok([default; 2]),
                Some(&[a, b]) if a >= 1 && b >= 1 => Ok([a, b]),
                Some(other) => Err(Error::invalid_input(format!("{name} {other:?} must be two positive values"))),
            }
        };
        let ([sh, sw], [dh, dw]) = (pair("strides", 1)?, pair("dilations", 1)?);
        let pads = ints(node, "pads").unwrap_or_else(|| vec![0; 4]);
        let &[top, left, bottom, right] = &pads[..] else {
            return Err(Error::invalid_input(format!("pads {pads:?} must have four values")));
        };
        if let Some(kernel) = ints(node, "kernel_shape") {
            if kernel != [kh, kw] {
                return Err(Error::invalid_input(format!(
                    "kernel_shape {kernel:?} differs from the weights' {:?}",
                    [kh, kw]
                )));
            }
        }
        let (group, offset_group) = (int(node, "group", 1), int(node, "offset_group", 1));
        if group < 1 || offset_group < 1 || c != cpg * group || oc % group != 0 || c % offset_group != 0 {
            return Err(Error::invalid_input(format!(
                "input channels {c}, weights {w_shape:?}, group {group} and offset_group {offset_group} do not divide"
            )));
        }
        let out = |size: i64, before: i64, after: i64, k: i64, d: i64, s: i64| {
            (size + before + after - ((k - 1) * d + 1)) / s + 1
        };
        let (oh, ow) = (out(h, top, bottom, kh, dh, sh), out(wd, left, right, kw, dw, sw));
        let taps = kh * kw;
        if oh < 1 || ow < 1 || offset_shape != [n, offset_group * taps * 2, oh, ow] {
            return Err(Error::invalid_input(format!(
                "offset {offset_shape:?} must be {:?} for the output of {oh} x {ow}",
                [n, offset_group * taps * 2, oh, ow]
            )));
        }
        if h < 2 || wd < 2 {
            // The reference scales positions by 1 / (H - 1): undefined on one row or column.
            return Err(Error::unsupported(format!("DeformConv over an input of {h} x {wd} (at least 2 x 2)")));
        }
        let mask = operand(node, 4);
        if let Some(mask) = mask {
            let (shape, mask_type) = self.shape_of(mask)?;
            if shape != [n, offset_group * taps, oh, ow] || mask_type != dtype {
                return Err(Error::invalid_input(format!(
                    "mask {shape:?} must be {:?}",
                    [n, offset_group * taps, oh, ow]
                )));
            }
        }
        let mut e = Expansion::new(block, node, index);
        // The grid GridSample reads, (x, y) in [-1, 1] with corners aligned: each tap's regular
        // position (a constant) plus its offset scaled the same way.
        let (scale_x, scale_y) = (2.0 / (wd - 1) as f32, 2.0 / (h - 1) as f32);
        let mut base = Vec::with_capacity((taps * oh * ow * 2) as usize);
        for a in 0..kh {
            for b in 0..kw {
                for i in 0..oh {
                    for j in 0..ow {
                        let (y, x) = (-top + sh * i + a * dh, -left + sw * j + b * dw);
                        base.push(x as f32 * scale_x - 1.0);
                        base.push(y as f32 * scale_y - 1.0);
                    }
                }
            }
        }
        let base = e.constant(self, Folded::from_f32(vec![taps, oh, ow, 2], &base))?;
        let scale = e.constant(self, Folded::from_f32(vec![2], &[scale_x, scale_y]))?;
        // [N, G, taps, 2 (h, w), oH, oW] -> [N, G, taps, oH, oW, 2 (x, y)].
        let shape = e.ints(self, &[n, offset_group, taps, 2, oh, ow]);
        let shifts = e.op(self, "Reshape", &[offset, &shape], vec![])?;
        let shifts = e.op(self, "Transpose", &[&shifts], vec![attr_ints("perm", &[0, 1, 2, 4, 5, 3])])?;
        let swap = e.ints(self, &[1, 0]);
        let shifts = e.op(self, "Gather", &[&shifts, &swap], vec![attr_i("axis", -1)])?;
        let shifts = e.op(self, "Mul", &[&shifts, &scale], vec![])?;
        let grid = e.op(self, "Add", &[&shifts, &base], vec![])?;
        let mask = match mask {
            Some(mask) => {
                let shape = e.ints(self, &[n, offset_group, 1, taps, oh, ow]);
                Some(e.op(self, "Reshape", &[mask, &shape], vec![])?)
            }
            None => None,
        };
        let per_group = c / offset_group;
        let mut columns = Vec::new();
        for g in 0..offset_group {
            let slice = |e: &mut Expansion, this: &mut Self, value: &str, axis: i64, start: i64, end: i64| {
                let (s, en, ax) = (e.ints(this, &[start]), e.ints(this, &[end]), e.ints(this, &[axis]));
                e.op(this, "Slice", &[value, &s, &en, &ax], vec![])
            };
            let input = if offset_group == 1 {
                x.to_owned()
            } else {
                slice(&mut e, self, x, 1, g * per_group, (g + 1) * per_group)?
            };
            let grid_g = slice(&mut e, self, &grid, 1, g, g + 1)?;
            let shape = e.ints(self, &[n, taps * oh, ow, 2]);
            let grid_g = e.op(self, "Reshape", &[&grid_g, &shape], vec![])?;
            let sampled = e.op(self, "GridSample", &[&input, &grid_g], vec![attr_i("align_corners", 1)])?;
            let shape = e.ints(self, &[n, per_group, taps, oh, ow]);
            let mut sampled = e.op(self, "Reshape", &[&sampled, &shape], vec![])?;
            if let Some(mask) = &mask {
                let mask_g = slice(&mut e, self, mask, 1, g, g + 1)?;
                let shape = e.ints(self, &[n, 1, taps, oh, ow]);
                let mask_g = e.op(self, "Reshape", &[&mask_g, &shape], vec![])?;
                sampled = e.op(self, "Mul", &[&sampled, &mask_g], vec![])?;
            }
            columns.push(sampled);
        }
        let columns = if columns.len() == 1 {
            columns.remove(0)
        } else {
            let parts: Vec<&str> = columns.iter().map(String::as_str).collect();
            e.op(self, "Concat", &parts, vec![attr_i("axis", 1)])?
        };
        // Channel c's taps are channels c * taps + t, as the weights' flattened [C / group, kH, kW].
        let shape = e.ints(self, &[n, c * taps, oh, ow]);
        let columns = e.op(self, "Reshape", &[&columns, &shape], vec![])?;
        let shape = e.ints(self, &[oc, cpg * taps, 1, 1]);
        let weights = e.op(self, "Reshape", &[w, &shape], vec![])?;
        let mut inputs = vec![columns.as_str(), weights.as_str()];
        if let Some(bias) = operand(node, 3) {
            inputs.push(bias);
        }
        let y = e.op(self, "Conv", &inputs, vec![attr_i("group", group), attr_ints("kernel_shape", &[1, 1])])?;
        self.alias(&y, node.output[0].clone())
    }
}
