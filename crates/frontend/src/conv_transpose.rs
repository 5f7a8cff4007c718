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
//! That zero-inserted input costs `s^d` times the multiply-adds of a direct transposed
//! convolution and a buffer `s^d` times the input's (a text detector's last ConvTranspose
//! 24 -> 1 channels at 320^2 -> 640^2 kept 79 MB of zero-inserted and padded input). So a
//! strided ConvTranspose with a constant kernel and dilation 1 is instead decomposed into
//! **sub-pixel phases** ([`Phase`]): the outputs `o = q*s + r` of one phase `r` (per axis) are
//! a stride-1 convolution of the plain input with the taps `k = (r + pad_begin) mod s + j*s`,
//! reversed; the phases' results are interleaved into the output by reshapes and concats
//! (`[.., Q, 1, ..]` pieces concatenated into `[.., Q, s, ..]`, reshaped to `[.., Q*s, ..]`).
//! Every multiply-add is one of the direct form's, and no tensor is larger than the output. A
//! run-time kernel, a dilation above 1 or a phase without taps (a kernel smaller than the
//! stride) keeps the zero insertion.

use crate::conv::{append1, Geometry, Kernel};
use crate::import::{attribute, int, ints, ints_of_len, node_name, operand, required, tensor_type, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use crate::shapes;
use melior::ir::{Block, Location};
use strata_dialect_sg as sg;
use strata_ir::Error;
use strata_ir::Val;

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

/// One output phase `r` of a transposed convolution along one axis with stride `stride`
/// (dilation 1): the outputs `o = q*stride + r`, `q < outputs`, read the taps
/// `k = first_tap + j*stride`, `j < taps`, at input `q + offset + (taps - 1 - j)`: a stride-1
/// correlation with those taps reversed, over the input shifted by `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Phase {
    pub stride: i64,
    pub first_tap: i64,
    pub taps: i64,
    pub offset: i64,
    pub outputs: i64,
}

impl Phase {
    /// The first and last input positions the phase reads (either may lie outside the input).
    pub fn window(&self) -> (i64, i64) {
        (self.offset, self.outputs - 1 + self.offset + self.taps - 1)
    }
}

/// Phase `r` of an axis with stride `stride`, kernel `k`, begin padding `pad_begin` and `out`
/// outputs.
pub(crate) fn phase(r: i64, stride: i64, k: i64, pad_begin: i64, out: i64) -> Phase {
    let first_tap = (r + pad_begin).rem_euclid(stride);
    let taps = if first_tap < k { (k - 1 - first_tap) / stride + 1 } else { 0 };
    // r + pad_begin - first_tap is a multiple of the stride.
    let offset = (r + pad_begin - first_tap).div_euclid(stride) - (taps - 1);
    let outputs = if r < out { (out - 1 - r) / stride + 1 } else { 0 };
    Phase { stride, first_tap, taps, offset, outputs }
}

/// The kernel of one multi-axis phase in convolution layout `[C_out, C_in/g, taps..]`, from
/// the ConvTranspose kernel `[C_in, C_out/g, k..]` (`width` bytes an element): the phase's
/// taps of every axis, reversed.
pub(crate) fn phase_kernel(bytes: &[u8], shape: &[i64], group: i64, phases: &[Phase], width: usize) -> Vec<u8> {
    let (c_in, c_out_g) = (shape[0], shape[1]);
    let c_in_g = c_in / group;
    let kernel = &shape[2..];
    let plane_k: i64 = kernel.iter().product();
    // Row-major strides of the kernel's spatial axes.
    let strides: Vec<i64> = (0..kernel.len()).map(|a| kernel[a + 1..].iter().product()).collect();
    let plane: i64 = phases.iter().map(|p| p.taps).product();
    let mut out = Vec::with_capacity((c_in * c_out_g * plane) as usize * width);
    for g in 0..group {
        for co in 0..c_out_g {
            for ci in 0..c_in_g {
                for t in 0..plane {
                    // Tap t (row-major over the phase's taps) is kernel element
                    // first_tap + (taps - 1 - t_a) * stride on each axis a.
                    let (mut rest, mut k) = (t, 0);
                    for (a, p) in phases.iter().enumerate().rev() {
                        let t_a = rest % p.taps;
                        rest /= p.taps;
                        k += (p.first_tap + (p.taps - 1 - t_a) * p.stride) * strides[a];
                    }
                    let src = (((g * c_in_g + ci) * c_out_g + co) * plane_k + k) as usize * width;
                    out.extend_from_slice(&bytes[src..src + width]);
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
        let strides = ints_of_len(node, "strides", 1, spatial)?;
        let dilations = ints_of_len(node, "dilations", 1, spatial)?;
        let output_padding = ints_of_len(node, "output_padding", 0, spatial)?;
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
        // Strided, dilation 1, a constant kernel: one stride-1 convolution per output phase.
        if strides.iter().any(|&s| s > 1) && dilations.iter().all(|&d| d == 1) {
            if let Some(folded) = self.folded(&w_name) {
                let axes: Vec<Vec<Phase>> = (0..spatial)
                    .map(|a| {
                        (0..strides[a]).map(|r| phase(r, strides[a], kernel[a], pads[a], out_spatial[a])).collect()
                    })
                    .collect();
                let transposed = PhaseInput {
                    x_name: &x_name,
                    bias_name: operand(node, 2),
                    x: &x,
                    w: &w,
                    group,
                    bias,
                    out: &out,
                    dtype,
                };
                if let Some(y) = self.phase_convolutions(block, location, &transposed, &folded, &axes, &base)? {
                    self.values.insert(node.output[0].clone(), Entry::Value { value: y, shape: out, dtype });
                    return Ok(());
                }
            }
        }

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

/// What [`Importer::phase_convolutions`] needs of the node.
struct PhaseInput<'a> {
    x_name: &'a str,
    bias_name: Option<&'a str>,
    x: &'a [i64],
    w: &'a [i64],
    group: i64,
    bias: Option<Val>,
    out: &'a [i64],
    dtype: DataType,
}

impl Importer<'_> {
    /// The transposed convolution as one stride-1 convolution per output phase (`axes`: the
    /// phases of each spatial axis), interleaved into the output; `None` (nothing emitted)
    /// when a phase has no taps, no outputs or reads no input (the zero-inserted form then
    /// handles it).
    fn phase_convolutions(
        &mut self,
        block: &Block,
        location: Location,
        t: &PhaseInput,
        folded: &crate::fold::Folded,
        axes: &[Vec<Phase>],
        base: &str,
    ) -> Result<Option<Val>, Error> {
        let context = self.strata.mlir();
        let (x, out, dtype) = (t.x, t.out, t.dtype);
        let spatial = axes.len();
        let usable = axes.iter().enumerate().all(|(a, phases)| {
            phases.iter().all(|p| {
                let (first, last) = p.window();
                p.taps > 0 && p.outputs > 0 && first < x[2 + a] && last >= 0
            })
        });
        if !usable {
            return Ok(None);
        }
        let ty = |shape: &[i64]| tensor_type(context, shape, dtype);
        let width = folded.bytes.len() / shapes::numel(t.w)?.max(1) as usize;
        let (n, c_out) = (out[0], out[1]);
        // Phase 0 has the most outputs on each axis.
        let most: Vec<i64> = axes.iter().map(|phases| phases[0].outputs).collect();
        let mut unit = vec![n, c_out];
        for &q in &most {
            unit.extend([q, 1]);
        }
        let count: usize = axes.iter().map(Vec::len).product();
        // Every phase reads the same input window (k a multiple of s, as in k2s2 upsamplers):
        // one convolution computes all of them, the phases' filters side by side, and one
        // transpose interleaves them.
        let same_window = axes.iter().all(|phases| {
            phases
                .iter()
                .all(|p| (p.taps, p.offset, p.outputs) == (phases[0].taps, phases[0].offset, phases[0].outputs))
        });
        if same_window && t.group == 1 {
            let first: Vec<Phase> = axes.iter().map(|phases| phases[0]).collect();
            let mut bytes = Vec::with_capacity(folded.bytes.len());
            for index in 0..count {
                bytes.extend(phase_kernel(&folded.bytes, t.w, 1, &chosen_phases(axes, index), width));
            }
            let mut ws = vec![c_out * count as i64, x[1]];
            ws.extend(first.iter().map(|p| p.taps));
            let kernel = Kernel::Constant {
                folded: crate::fold::Folded { shape: ws.clone(), dtype, bytes },
                label: format!("{base}_phases"),
            };
            // The bias once per phase (tiled at import when it is a constant).
            let folded_bias = t.bias_name.and_then(|name| self.folded(name));
            let bias = match t.bias {
                Some(_) if folded_bias.is_some() => {
                    let bytes = folded_bias.map(|b| b.bytes.repeat(count)).unwrap_or_default();
                    let label = format!("{base}_phases_bias");
                    Some(self.new_constant(block, &label, vec![count as i64 * c_out], dtype, bytes, location)?)
                }
                Some(b) => {
                    let mut acc = b;
                    for copies in 2..=count as i64 {
                        let op = sg::Concat::build(context, location, acc.get(), b.get(), 0, ty(&[copies * c_out])?);
                        acc = append1(block, op).into();
                    }
                    Some(acc)
                }
                None => None,
            };
            let (xv, read, pads) = self.phase_input(block, location, t, &first)?;
            let ones = vec![1; spatial];
            let geometry = Geometry { strides: &ones, pads: &pads, dilations: &ones, group: 1 };
            let (y, _) = self.conv_nd(block, location, xv, &read, kernel, &ws, bias, &geometry, dtype)?;
            // [N, s_1, .., s_n, C, q_1, .., q_n] -> [N, C, q_1, s_1, .., q_n, s_n].
            let mut split = vec![n];
            split.extend(axes.iter().map(|phases| phases.len() as i64));
            split.push(c_out);
            split.extend(&most);
            let y: Val = append1(block, sg::Reshape::build(context, location, y.get(), ty(&split)?)).into();
            let mut perm = vec![0, spatial as i64 + 1];
            for a in 0..spatial {
                perm.extend([spatial as i64 + 2 + a as i64, 1 + a as i64]);
            }
            let interleaved: Vec<i64> = perm.iter().map(|&p| split[p as usize]).collect();
            let y: Val =
                append1(block, sg::Transpose::build(context, location, y.get(), &perm, ty(&interleaved)?)).into();
            return Ok(Some(self.interleaved_output(block, location, y, &most, axes, out, dtype)?));
        }
        let mut pieces: Vec<Val> = Vec::with_capacity(count);
        for index in 0..count {
            let chosen = chosen_phases(axes, index);
            let (xv, read, pads) = self.phase_input(block, location, t, &chosen)?;
            let mut ws = vec![c_out, x[1] / t.group];
            ws.extend(chosen.iter().map(|p| p.taps));
            let bytes = phase_kernel(&folded.bytes, t.w, t.group, &chosen, width);
            let kernel = Kernel::Constant {
                folded: crate::fold::Folded { shape: ws.clone(), dtype, bytes },
                label: format!("{base}_phase{index}"),
            };
            let ones = vec![1; spatial];
            let geometry = Geometry { strides: &ones, pads: &pads, dilations: &ones, group: t.group };
            let (mut y, shape) = self.conv_nd(block, location, xv, &read, kernel, &ws, t.bias, &geometry, dtype)?;
            debug_assert!(shape[2..].iter().zip(&chosen).all(|(&q, p)| q == p.outputs));
            // Every phase as long as phase 0 (the extra rows fall beyond the output).
            if chosen.iter().zip(&most).any(|(p, &q)| p.outputs < q) {
                let mut pad = vec![0; 2 + spatial];
                pad.extend([0, 0]);
                pad.extend(chosen.iter().zip(&most).map(|(p, &q)| q - p.outputs));
                let mut padded = vec![n, c_out];
                padded.extend(&most);
                y = append1(block, sg::Pad::build(context, location, y.get(), &pad, 0, 0.0, ty(&padded)?)).into();
            }
            pieces.push(append1(block, sg::Reshape::build(context, location, y.get(), ty(&unit)?)).into());
        }
        // Interleave: along each axis from the last, every run of `stride` pieces becomes one
        // [.., q, stride, ..] piece.
        let mut shape = unit;
        for a in (0..spatial).rev() {
            let (stride, dim) = (axes[a].len(), 2 + 2 * a + 1);
            let mut joined = Vec::with_capacity(pieces.len() / stride);
            for run in pieces.chunks(stride) {
                let (mut acc, mut acc_shape) = (run[0], shape.clone());
                for piece in &run[1..] {
                    acc_shape[dim] += 1;
                    let op = sg::Concat::build(context, location, acc.get(), piece.get(), dim as i64, ty(&acc_shape)?);
                    acc = append1(block, op).into();
                }
                joined.push(acc);
            }
            shape[dim] = stride as i64;
            pieces = joined;
        }
        Ok(Some(self.interleaved_output(block, location, pieces[0], &most, axes, out, dtype)?))
    }

    /// The input a phase (one per axis) reads, cropped where the phase reads less than the
    /// input, and the convolution pads where it reads beyond: (value, its shape, pads).
    fn phase_input(
        &mut self,
        block: &Block,
        location: Location,
        t: &PhaseInput,
        chosen: &[Phase],
    ) -> Result<(Val, Vec<i64>, Vec<i64>), Error> {
        let context = self.strata.mlir();
        let x = t.x;
        let (mut starts, mut ends) = (vec![0, 0], vec![x[0], x[1]]);
        let (mut begin_pads, mut end_pads) = (Vec::new(), Vec::new());
        for (a, p) in chosen.iter().enumerate() {
            let ((first, last), h) = (p.window(), x[2 + a]);
            starts.push(first.max(0));
            ends.push((last + 1).min(h));
            begin_pads.push((-first).max(0));
            end_pads.push((last - (h - 1)).max(0));
        }
        let mut xv = self.use_value(block, t.x_name, location)?;
        let read: Vec<i64> = starts.iter().zip(&ends).map(|(s, e)| e - s).collect();
        if read != x {
            let steps = vec![1; x.len()];
            let ty = tensor_type(context, &read, t.dtype)?;
            xv = append1(block, sg::Slice::build(context, location, xv.get(), &starts, &ends, &steps, ty)).into();
        }
        Ok((xv, read, begin_pads.into_iter().chain(end_pads).collect()))
    }

    /// `[N, C, q_1, s_1, .., q_n, s_n]` reshaped to `[N, C, q_1*s_1, ..]` and cropped to `out`.
    #[allow(clippy::too_many_arguments)]
    fn interleaved_output(
        &mut self,
        block: &Block,
        location: Location,
        y: Val,
        most: &[i64],
        axes: &[Vec<Phase>],
        out: &[i64],
        dtype: DataType,
    ) -> Result<Val, Error> {
        let context = self.strata.mlir();
        let ty = |shape: &[i64]| tensor_type(context, shape, dtype);
        let mut full = vec![out[0], out[1]];
        full.extend(most.iter().zip(axes).map(|(&q, phases)| q * phases.len() as i64));
        let mut y: Val = append1(block, sg::Reshape::build(context, location, y.get(), ty(&full)?)).into();
        if full != out {
            let (zeros, steps) = (vec![0; out.len()], vec![1; out.len()]);
            y = append1(block, sg::Slice::build(context, location, y.get(), &zeros, out, &steps, ty(out)?)).into();
        }
        Ok(y)
    }
}

/// Phase `index` of the row-major enumeration over the axes' phases (the last axis's phase
/// varies fastest), one per axis.
fn chosen_phases(axes: &[Vec<Phase>], index: usize) -> Vec<Phase> {
    let mut chosen = vec![axes[0][0]; axes.len()];
    let mut rest = index;
    for a in (0..axes.len()).rev() {
        chosen[a] = axes[a][rest % axes[a].len()];
        rest /= axes[a].len();
    }
    chosen
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
    fn phases_cover_every_tap_once() {
        // k4 s2 p1 (a GAN / U-Net upsampler), 8 inputs -> 16 outputs: each phase has two taps.
        let p0 = phase(0, 2, 4, 1, 16);
        let p1 = phase(1, 2, 4, 1, 16);
        assert_eq!(p0, Phase { stride: 2, first_tap: 1, taps: 2, offset: -1, outputs: 8 });
        assert_eq!(p1, Phase { stride: 2, first_tap: 0, taps: 2, offset: 0, outputs: 8 });
        // k2 s2: one tap per phase, no offset.
        assert_eq!(phase(1, 2, 2, 0, 64), Phase { stride: 2, first_tap: 1, taps: 1, offset: 0, outputs: 32 });
        // k3 s2, 5 outputs: phase 0 has 3 outputs and 2 taps, phase 1 has 2 and 1.
        assert_eq!((phase(0, 2, 3, 0, 5).outputs, phase(0, 2, 3, 0, 5).taps), (3, 2));
        assert_eq!((phase(1, 2, 3, 0, 5).outputs, phase(1, 2, 3, 0, 5).taps), (2, 1));
        // Every output o = q*s + r sums the same taps as the direct form.
        for (k, s, pad, input) in [(3, 2, 1, 5), (4, 2, 1, 8), (5, 3, 2, 4), (2, 2, 0, 3), (7, 3, 0, 2)] {
            let out = s * (input - 1) + k - 2 * pad;
            for r in 0..s {
                let p = phase(r, s, k, pad, out);
                for q in 0..p.outputs {
                    let o = q * s + r;
                    let direct: Vec<(i64, i64)> = (0..input)
                        .flat_map(|i| (0..k).map(move |t| (i, t)))
                        .filter(|&(i, t)| i * s + t - pad == o)
                        .collect();
                    let mut phased: Vec<(i64, i64)> = (0..p.taps)
                        .map(|j| (q + p.offset + (p.taps - 1 - j), p.first_tap + j * s))
                        .filter(|&(i, _)| (0..input).contains(&i))
                        .collect();
                    phased.sort();
                    assert_eq!(phased, direct, "k{k} s{s} p{pad} o{o}");
                }
            }
        }
    }

    #[test]
    fn phase_kernel_takes_the_taps_reversed() {
        // [C_in = 1, C_out = 1, 4], taps 0..3 valued 10..13; phase with first tap 1, stride 2:
        // taps 1 and 3, reversed.
        let bytes: Vec<u8> = vec![10, 11, 12, 13];
        let p = Phase { stride: 2, first_tap: 1, taps: 2, offset: 0, outputs: 1 };
        assert_eq!(phase_kernel(&bytes, &[1, 1, 4], 1, &[p], 1), [13, 11]);
        // Two input channels, one group: [C_out, C_in, taps].
        let bytes: Vec<u8> = vec![1, 2, 3, 4];
        let p = Phase { stride: 2, first_tap: 0, taps: 1, offset: 0, outputs: 1 };
        assert_eq!(phase_kernel(&bytes, &[2, 1, 2], 1, &[p], 1), [1, 3]);
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
