//! Resize (opset 13-19: nearest, linear and cubic; antialias, `axes`,
//! `keep_aspect_ratio_policy`, every coordinate transformation mode, `exclude_outside` and
//! `tf_crop_and_resize` extrapolation), decomposed per resized axis.
//!
//! Interpolation is separable: resizing an N-D tensor is one 1-D resampling per axis, and a
//! 1-D resampling with static sizes is a table computed here, at import time: for each output
//! position, `n` source indices (clamped, which is ONNX's edge padding) and `n` weights. An axis
//! then becomes `gather(x, indices[out, n], axis)`, a multiply by the weights (broadcast over the
//! other axes) and a `reduce_sum` over the `n` taps; nearest mode is a single gather, or, for an
//! integer upsampling (every index `k` times in order), a broadcast of the axis into `k` copies
//! (`reshape`, `expand`, `reshape`: one copy kernel, not a load per element). Positions
//! that `tf_crop_and_resize` places outside the input get zero weights plus the extrapolation
//! value. The tables follow ONNX's reference implementation (`onnx/reference/ops/op_resize.py`).
//!
//! Gathers are loads one element at a time, and a gathered tensor is materialised before its
//! taps are summed. So an interpolating Resize resamples its axes in the order that gathers
//! least along the last axis ([`pass_order`]: upsampling, the columns first, on the input's
//! rows), and an axis whose table repeats away from the edges ([`Periodic`]: align_corners
//! and integer scales) takes no gather there: each phase of the period is an elementwise sum of
//! strided slices (of whole rows along an outer axis), the phases interleaved by a
//! concatenation (DeepLab's `5 x 33 x 33 -> 129 x 129` head 0.13 -> 0.067 ms on one thread);
//! along the last axis only where the phases' slices are contiguous (unit step: upsampling; a
//! 2x bilinear upsampling of `32 x 160 x 160` 7.2 -> 5.0 ms, whose columns had gathered a
//! 13 MB `[.., 320, 2]` tensor of taps). An axis of extent 1 whose weights sum to one is a
//! broadcast. Each output is the same weighted sum of the same taps in the same order as by the
//! table.

use crate::conv::append1;
use crate::import::{attribute, int, node_name, operand, required, tensor_type, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::{Block, BlockLike, Location, Value};
use strata_dialect_sg as sg;
use strata_ir::Error;

/// How output coordinates map to input coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Transform {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfCropAndResize,
}

/// The interpolation kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kernel {
    /// Nearest neighbour with the rounding of `nearest_mode`.
    Nearest(NearestMode),
    Linear {
        antialias: bool,
    },
    Cubic {
        a: f64,
        antialias: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum NearestMode {
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
}

/// One axis's resampling: for output position `o`, `Σ_k weights[o][k] * x[indices[o][k]]`,
/// or `extrapolation` where `outside[o]` (tf_crop_and_resize only).
#[derive(Debug, PartialEq)]
pub(crate) struct AxisPlan {
    pub(crate) indices: Vec<Vec<i64>>,
    pub(crate) weights: Vec<Vec<f64>>,
    pub(crate) outside: Vec<bool>,
}

impl AxisPlan {
    /// Nearest mode: per output position, the one source index of weight 1.
    pub(crate) fn nearest(&self) -> Vec<i64> {
        self.indices.iter().zip(&self.weights).map(|(i, w)| if w[0] >= w[1] { i[0] } else { i[1] }).collect()
    }
}

/// The weights of the kernel for a fractional position `ratio` in (0, 1] ("1" for an exact
/// input position: ONNX prefers the left neighbour) at a resize `scale`.
fn coefficients(kernel: Kernel, ratio: f64, scale: f64) -> Vec<f64> {
    match kernel {
        Kernel::Nearest(mode) => {
            let right = if ratio.fract() == 0.0 {
                true
            } else {
                match mode {
                    NearestMode::RoundPreferFloor => ratio > 0.5,
                    NearestMode::RoundPreferCeil => ratio >= 0.5,
                    NearestMode::Floor => false,
                    NearestMode::Ceil => true,
                }
            };
            if right {
                vec![0.0, 1.0]
            } else {
                vec![1.0, 0.0]
            }
        }
        Kernel::Linear { antialias: false } => vec![1.0 - ratio, ratio],
        Kernel::Linear { antialias: true } => {
            let scale = scale.min(1.0);
            let start = (-1.0 / scale).floor() as i64 + 1;
            let footprint = 2 - 2 * start;
            let raw: Vec<f64> = (start..start + footprint)
                .map(|i| (1.0 - ((i as f64 - ratio) * scale).abs()).clamp(0.0, 1.0))
                .collect();
            normalised(raw)
        }
        Kernel::Cubic { a, antialias: false } => {
            let (r, s) = (ratio, 1.0 - ratio);
            vec![
                ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
                ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
                ((a * (s + 1.0) - 5.0 * a) * (s + 1.0) + 8.0 * a) * (s + 1.0) - 4.0 * a,
            ]
        }
        Kernel::Cubic { a, antialias: true } => {
            let scale = scale.min(1.0);
            let weight = |x: f64| {
                let x = x.abs();
                let (x2, x3) = (x * x, x * x * x);
                if x <= 1.0 {
                    (a + 2.0) * x3 - (a + 3.0) * x2 + 1.0
                } else if x < 2.0 {
                    a * x3 - 5.0 * a * x2 + 8.0 * a * x - 4.0 * a
                } else {
                    0.0
                }
            };
            let start = (-2.0 / scale).floor() as i64 + 1;
            let end = 2 - start;
            normalised((start..end).map(|i| weight(scale * (i as f64 - ratio))).collect())
        }
    }
}

fn normalised(raw: Vec<f64>) -> Vec<f64> {
    let sum: f64 = raw.iter().sum();
    raw.into_iter().map(|c| c / sum).collect()
}

/// The resampling of one axis from `input` to `output` positions at `scale` (which differs
/// from output/input when the sizes were rounded); `roi` is the axis's [start, end] for
/// tf_crop_and_resize.
pub(crate) fn axis_plan(
    input: i64,
    output: i64,
    scale: f64,
    transform: Transform,
    kernel: Kernel,
    roi: (f64, f64),
    exclude_outside: bool,
) -> AxisPlan {
    let (input_f, output_f) = (input as f64, scale * input as f64);
    let mut plan = AxisPlan { indices: Vec::new(), weights: Vec::new(), outside: Vec::new() };
    for o in 0..output {
        let y = o as f64;
        let mut outside = false;
        let x = match transform {
            Transform::AlignCorners if output_f == 1.0 => 0.0,
            Transform::AlignCorners => y * (input_f - 1.0) / (output_f - 1.0),
            Transform::Asymmetric => y / scale,
            Transform::TfCropAndResize => {
                let x = if output_f == 1.0 {
                    (roi.1 - roi.0) * (input_f - 1.0) / 2.0
                } else {
                    y * (roi.1 - roi.0) * (input_f - 1.0) / (output_f - 1.0)
                };
                let x = x + roi.0 * (input_f - 1.0);
                outside = x < 0.0 || x > input_f - 1.0;
                x
            }
            Transform::PytorchHalfPixel if output_f == 1.0 => -0.5,
            Transform::PytorchHalfPixel | Transform::HalfPixel => (y + 0.5) / scale - 0.5,
            Transform::HalfPixelSymmetric => {
                let adjustment = output as f64 / output_f;
                let offset = input_f / 2.0 * (1.0 - adjustment);
                offset + (y + 0.5) / scale - 0.5
            }
        };
        let floor = x.floor();
        let ratio = if x == floor { 1.0 } else { x - floor };
        let mut weights = coefficients(kernel, ratio, scale);
        let n = weights.len() as i64;
        // The n input positions nearest to x, ties to the smaller index (in ONNX's
        // edge-padded coordinates, shifted back).
        let pad = (n + 1) / 2;
        let padded = x + pad as f64;
        let p = padded.floor();
        let frac = padded - p;
        let offset = if n % 2 == 0 {
            if frac == 0.0 {
                -(n / 2)
            } else {
                -(n / 2) + 1
            }
        } else {
            let base = -((n - 1) / 2);
            if frac <= 0.5 {
                base
            } else {
                base + 1
            }
        };
        let start = p as i64 + offset - pad;
        let raw: Vec<i64> = (start..start + n).collect();
        if exclude_outside {
            for (w, &i) in weights.iter_mut().zip(&raw) {
                if i < 0 || i >= input {
                    *w = 0.0;
                }
            }
            let sum: f64 = weights.iter().sum();
            let sum = if sum == 0.0 { 1.0 } else { sum };
            weights.iter_mut().for_each(|w| *w /= sum);
        }
        plan.indices.push(raw.into_iter().map(|i| i.clamp(0, input - 1)).collect());
        plan.weights.push(weights);
        plan.outside.push(outside);
    }
    plan
}

/// The string attribute `name`, or `default`.
fn text(node: &NodeProto, name: &str, default: &str) -> String {
    attribute(node, name).map_or_else(|| default.to_owned(), |a| String::from_utf8_lossy(a.s()).into_owned())
}

/// Little-endian bytes of `values` in a float element type.
fn float_bytes(values: &[f64], dtype: DataType) -> Vec<u8> {
    match dtype {
        DataType::Double => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        _ => values.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
    }
}

impl Importer<'_> {
    /// Resize, as one gather (nearest) or gather-multiply-sum (linear, cubic) per resized axis.
    pub(crate) fn resize(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let x_name = required(node, 0)?.to_owned();
        let (shape, dtype) = self.shape_of(&x_name)?;
        let rank = shape.len();
        let mode = text(node, "mode", "nearest");
        let antialias = int(node, "antialias", 0) != 0;
        let kernel = match mode.as_str() {
            "nearest" => Kernel::Nearest(match text(node, "nearest_mode", "round_prefer_floor").as_str() {
                "round_prefer_floor" => NearestMode::RoundPreferFloor,
                "round_prefer_ceil" => NearestMode::RoundPreferCeil,
                "floor" => NearestMode::Floor,
                "ceil" => NearestMode::Ceil,
                other => {
                    return Err(format!(
                        "nearest_mode '{other}' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil"
                    )
                    .into())
                }
            }),
            "linear" => Kernel::Linear { antialias },
            "cubic" => Kernel::Cubic { a: attribute(node, "cubic_coeff_a").map_or(-0.75, |a| a.f() as f64), antialias },
            other => return Err(format!("mode '{other}' is not one of nearest, linear, cubic").into()),
        };
        if antialias && mode == "nearest" {
            return Err("antialias is not defined for nearest mode".into());
        }
        let transform = match text(node, "coordinate_transformation_mode", "half_pixel").as_str() {
            "half_pixel" => Transform::HalfPixel,
            "half_pixel_symmetric" => Transform::HalfPixelSymmetric,
            "pytorch_half_pixel" => Transform::PytorchHalfPixel,
            "align_corners" => Transform::AlignCorners,
            "asymmetric" => Transform::Asymmetric,
            "tf_crop_and_resize" => Transform::TfCropAndResize,
            other => return Err(format!("coordinate_transformation_mode '{other}' is not supported").into()),
        };
        let interpolating = !matches!(kernel, Kernel::Nearest(_));
        if interpolating && !matches!(dtype, DataType::Float | DataType::Double) {
            return Err(Error::unsupported(format!(
                "{mode} Resize of a {} tensor (float and double are supported)",
                dtype.as_str_name()
            )));
        }
        let axes: Vec<usize> = match attribute(node, "axes") {
            Some(a) => a.ints.iter().map(|&d| crate::shapes::axis(d, rank as i64)).collect::<Result<_, _>>()?,
            None => (0..rank).collect(),
        };
        if (1..axes.len()).any(|i| axes[..i].contains(&axes[i])) {
            return Err(format!("axes {axes:?} repeat an axis").into());
        }
        // Shape operands: constants after folding (a static-shape compiler needs them).
        let constant = |this: &Self, k: usize| -> Result<Option<Vec<f64>>, Error> {
            match operand(node, k) {
                None => Ok(None),
                Some(name) => {
                    let folded = this.folded(name).ok_or_else(|| {
                        Error::unsupported(format!(
                            "Resize input '{name}' computed at run time (roi, scales and sizes must be constants)"
                        ))
                    })?;
                    let values = folded.floats()?;
                    Ok((!values.is_empty()).then_some(values))
                }
            }
        };
        let (roi, scales, sizes) = (constant(self, 1)?, constant(self, 2)?, constant(self, 3)?);
        let mut scale = vec![1.0; rank];
        let mut out = shape.clone();
        match (scales, sizes) {
            (Some(_), Some(_)) => return Err("only one of scales and sizes may be given".into()),
            (None, None) => return Err("one of scales and sizes is required".into()),
            (Some(scales), None) => {
                if scales.len() != axes.len() || scales.iter().any(|&s| s.is_nan() || s <= 0.0 || !s.is_finite()) {
                    return Err(format!("scales {scales:?} must be {} positive values", axes.len()).into());
                }
                for (&a, &s) in axes.iter().zip(&scales) {
                    scale[a] = s;
                    out[a] = (s * shape[a] as f64) as i64;
                }
            }
            (None, Some(sizes)) => {
                if sizes.len() != axes.len() || sizes.iter().any(|&s| s < 1.0) {
                    return Err(format!("sizes {sizes:?} must be {} positive values", axes.len()).into());
                }
                for (&a, &s) in axes.iter().zip(&sizes) {
                    scale[a] = s / shape[a] as f64;
                    out[a] = s as i64;
                }
                let policy = text(node, "keep_aspect_ratio_policy", "stretch");
                let chosen = match policy.as_str() {
                    "stretch" => None,
                    "not_larger" => axes.iter().map(|&a| scale[a]).reduce(f64::min),
                    "not_smaller" => axes.iter().map(|&a| scale[a]).reduce(f64::max),
                    other => {
                        return Err(format!(
                            "keep_aspect_ratio_policy '{other}' is not one of stretch, not_larger, not_smaller"
                        )
                        .into())
                    }
                };
                if let Some(s) = chosen {
                    for &a in &axes {
                        scale[a] = s;
                        out[a] = (s * shape[a] as f64 + 0.5) as i64;
                    }
                }
            }
        }
        if out.iter().any(|&d| !(1..=1 << 31).contains(&d)) {
            return Err(Error::unsupported(format!("output shape {out:?} (every dimension must be in 1..2^31)")));
        }
        let roi_of = |i: usize| {
            roi.as_ref().map_or((0.0, 1.0), |r| {
                (r.get(i).copied().unwrap_or(0.0), r.get(axes.len() + i).copied().unwrap_or(1.0))
            })
        };
        if let Some(r) = &roi {
            if transform == Transform::TfCropAndResize && r.len() != 2 * axes.len() {
                return Err(format!("roi {r:?} must have 2 x {} values", axes.len()).into());
            }
        }
        let extrapolation = attribute(node, "extrapolation_value").map_or(0.0, |a| a.f() as f64);
        let exclude_outside = int(node, "exclude_outside", 0) != 0;
        let base = node_name(node, 0);
        let mut value = self.use_value(block, &x_name, location)?.get();
        let mut current = shape.clone();
        let ty = |shape: &[i64]| tensor_type(context, shape, dtype);
        // Nearest passes are copies or single gathers, in ONNX's order; interpolating ones
        // in the order that gathers least along the last axis.
        let order = match kernel {
            Kernel::Nearest(_) => (0..axes.len()).collect(),
            Kernel::Linear { .. } => pass_order(&shape, &out, &axes, 2),
            Kernel::Cubic { .. } => pass_order(&shape, &out, &axes, 4),
        };
        for i in order {
            let a = axes[i];
            let crop = if transform == Transform::TfCropAndResize { roi_of(i) } else { (0.0, 1.0) };
            let identity = (scale[a] - 1.0).abs() < 1e-9
                && out[a] == shape[a]
                && (crop.0.abs() < 1e-9 && (crop.1 - 1.0).abs() < 1e-9);
            if identity {
                continue;
            }
            let plan = axis_plan(shape[a], out[a], scale[a], transform, kernel, crop, exclude_outside);
            let any_outside = plan.outside.iter().any(|&o| o);
            let trailing = rank - a - 1;
            let constant = |label: &str,
                            shape: Vec<i64>,
                            dtype: DataType,
                            bytes: Vec<u8>,
                            this: &mut Self|
             -> Result<Value, Error> {
                let value = this.new_constant(block, &format!("{base}_{label}{a}"), shape, dtype, bytes, location)?;
                Ok(value.get())
            };
            let mut resized = current.clone();
            resized[a] = out[a];
            if !interpolating && !any_outside {
                // One gather: the neighbour with weight 1.
                let chosen = plan.nearest();
                // An integer upsampling (each index `k` times in order): a broadcast of the
                // axis into `k` copies, which the optimiser writes as one copy, not a gather.
                let k = out[a] / current[a].max(1);
                let repeats =
                    k >= 2 && out[a] == k * current[a] && chosen.iter().enumerate().all(|(i, &c)| c == i as i64 / k);
                if repeats {
                    let mut unit = current.clone();
                    unit.insert(a + 1, 1);
                    let mut copies = current.clone();
                    copies.insert(a + 1, k);
                    let v = append1(block, sg::Reshape::build(context, location, value, ty(&unit)?));
                    let v = append1(block, sg::Expand::build(context, location, v, ty(&copies)?));
                    value = append1(block, sg::Reshape::build(context, location, v, ty(&resized)?));
                    current = resized;
                    continue;
                }
                let indices = constant(
                    "indices",
                    vec![out[a]],
                    DataType::Int64,
                    chosen.iter().flat_map(|v| v.to_le_bytes()).collect(),
                    self,
                )?;
                let op = sg::Gather::build(context, location, value, indices, a as i64, ty(&resized)?);
                value = block.append_operation(op).result(0).expect("one result").into();
                current = resized;
                continue;
            }
            if current[a] == 1 && !any_outside && plan.weights.iter().all(|w| w.iter().sum::<f64>() == 1.0) {
                // Every tap reads the one element and the taps' weights sum to one: a
                // broadcast (DeepLab's pooled branch, 1 x 1 -> 33 x 33), one copy or a view
                // where a gather, a product and a sum over the taps ran (0.028 ms per run).
                value = append1(block, sg::Expand::build(context, location, value, ty(&resized)?));
                current = resized;
                continue;
            }
            if !matches!(dtype, DataType::Float | DataType::Double) {
                return Err(Error::unsupported(format!(
                    "tf_crop_and_resize extrapolation of a {} tensor",
                    dtype.as_str_name()
                )));
            }
            let taps = plan.weights[0].len() as i64;
            let weights: Vec<f64> = plan
                .weights
                .iter()
                .zip(&plan.outside)
                .flat_map(|(w, &outside)| w.iter().map(move |&c| if outside { 0.0 } else { c }))
                .collect();
            let resized_type = ty(&resized)?;
            // Output positions `rows` of this axis as a gather of their taps, a product by
            // the weights and a sum over the taps.
            let by_gather = |this: &mut Self, rows: std::ops::Range<usize>, label: &str| -> Result<Value, Error> {
                let count = rows.len() as i64;
                let table: Vec<u8> =
                    plan.indices[rows.clone()].iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
                let indices = constant(&format!("{label}indices"), vec![count, taps], DataType::Int64, table, this)?;
                let mut gathered_shape = current[..a].to_vec();
                gathered_shape.extend([count, taps]);
                gathered_shape.extend(&current[a + 1..]);
                let gathered_type = ty(&gathered_shape)?;
                let gathered: Value =
                    append1(block, sg::Gather::build(context, location, value, indices, a as i64, gathered_type));
                let mut weight_shape = vec![count, taps];
                weight_shape.extend(std::iter::repeat_n(1, trailing));
                let chosen = &weights[rows.start * taps as usize..rows.end * taps as usize];
                let w = constant(&format!("{label}weights"), weight_shape, dtype, float_bytes(chosen, dtype), this)?;
                let weighted: Value = append1(block, sg::Mul::build(context, location, gathered, w, gathered_type));
                let mut rows_shape = resized.clone();
                rows_shape[a] = count;
                Ok(append1(
                    block,
                    sg::ReduceSum::build(context, location, weighted, &[a as i64 + 1], 0, ty(&rows_shape)?),
                ))
            };
            // The last axis too, at unit step: its phases read contiguous slices (a strided
            // one, a downsampling's, is left to the gather).
            let periodic = (!any_outside)
                .then(|| Periodic::of(&plan.indices, &plan.weights))
                .flatten()
                .filter(|p| a + 1 < rank || p.step == 1);
            value = match periodic {
                None => by_gather(self, 0..out[a] as usize, "")?,
                Some(Periodic { start, periods, period, step }) => {
                    // Along an axis with a periodic table, output position
                    // `start + i * period + r` reads input positions `i * step + c` for fixed
                    // `c` and weights: each phase `r` is an elementwise sum over strided
                    // slices (of whole rows along an outer axis), the phases interleaved by a
                    // concatenation
                    // (views of one buffer); only the ends are gathered.
                    let m = periods as i64;
                    let mut phase_shape = current.clone();
                    phase_shape[a] = m;
                    let mut unit_shape = phase_shape.clone();
                    unit_shape.insert(a + 1, 1);
                    let mut interleaved: Option<(Value, Vec<i64>)> = None;
                    for r in 0..period {
                        let o = start + r;
                        let mut sum: Option<Value> = None;
                        for k in 0..taps as usize {
                            let first = plan.indices[o][k];
                            let (mut starts, mut ends, mut steps) = (vec![0; rank], current.clone(), vec![1; rank]);
                            starts[a] = first;
                            ends[a] = first + (m - 1) * step + 1;
                            steps[a] = step;
                            let slice = append1(
                                block,
                                sg::Slice::build(context, location, value, &starts, &ends, &steps, ty(&phase_shape)?),
                            );
                            let label = format!("phase{r}_tap{k}_weight");
                            let w = constant(
                                &label,
                                vec![1; rank],
                                dtype,
                                float_bytes(&[plan.weights[o][k]], dtype),
                                self,
                            )?;
                            let term: Value =
                                append1(block, sg::Mul::build(context, location, slice, w, ty(&phase_shape)?));
                            sum = Some(match sum {
                                None => term,
                                Some(s) => {
                                    append1(block, sg::Add::build(context, location, s, term, ty(&phase_shape)?))
                                }
                            });
                        }
                        let phase: Value = append1(
                            block,
                            sg::Reshape::build(context, location, sum.expect("a tap"), ty(&unit_shape)?),
                        );
                        interleaved = Some(match interleaved {
                            None => (phase, unit_shape.clone()),
                            Some((acc, mut shape)) => {
                                shape[a + 1] += 1;
                                let joined =
                                    sg::Concat::build(context, location, acc, phase, a as i64 + 1, ty(&shape)?);
                                (append1(block, joined), shape)
                            }
                        });
                    }
                    let (phases, _) = interleaved.expect("a phase");
                    let mut interior_shape = current.clone();
                    interior_shape[a] = m * period as i64;
                    let mut result: Value =
                        append1(block, sg::Reshape::build(context, location, phases, ty(&interior_shape)?));
                    let end = start + periods * period;
                    let mut joined_shape = interior_shape;
                    if start > 0 {
                        let head = by_gather(self, 0..start, "head_")?;
                        joined_shape[a] += start as i64;
                        let joined = sg::Concat::build(context, location, head, result, a as i64, ty(&joined_shape)?);
                        result = append1(block, joined);
                    }
                    if end < out[a] as usize {
                        let tail = by_gather(self, end..out[a] as usize, "tail_")?;
                        joined_shape[a] = out[a];
                        let joined = sg::Concat::build(context, location, result, tail, a as i64, resized_type);
                        result = append1(block, joined);
                    }
                    result
                }
            };
            if any_outside && extrapolation != 0.0 {
                let extra: Vec<f64> = plan.outside.iter().map(|&o| if o { extrapolation } else { 0.0 }).collect();
                let mut extra_shape = vec![out[a]];
                extra_shape.extend(std::iter::repeat_n(1, trailing));
                let e = constant("extrapolation", extra_shape, dtype, float_bytes(&extra, dtype), self)?;
                value = block
                    .append_operation(sg::Add::build(context, location, value, e, resized_type))
                    .result(0)
                    .expect("one result")
                    .into();
            }
            current = resized;
        }
        // An identity along every axis leaves the input itself (as ONNX's Identity does).
        self.values.insert(node.output[0].clone(), Entry::Value { value: value.into(), shape: current, dtype });
        Ok(())
    }
}

/// The order in which to resample `axes` (indices into it) of a tensor of `shape` resized to
/// `out`, each output of a pass reading `taps` inputs: the one that reads the fewest inputs
/// along the last axis, whose taps are gathers (scalar loads), each counted as
/// [`GATHER_COST`] contiguous ones; among equals, ONNX's order. A bilinear upsampling of a
/// `5 x 33 x 33` map to `129 x 129` (DeepLab's head) resampled rows first gathered along the
/// rows of the `129 x 129` result; the columns first, it gathers for the `33 x 129`
/// intermediate and the rows step is whole vectors of contiguous rows.
fn pass_order(shape: &[i64], out: &[i64], axes: &[usize], taps: i64) -> Vec<usize> {
    let last = shape.len().saturating_sub(1);
    let cost = |order: &[usize]| -> i64 {
        let mut current = shape.to_vec();
        let mut total = 0i64;
        for &i in order {
            let a = axes[i];
            if current[a] == out[a] {
                continue;
            }
            current[a] = out[a];
            let elements = current.iter().product::<i64>().saturating_mul(taps);
            total = total.saturating_add(if a == last { elements.saturating_mul(GATHER_COST) } else { elements });
        }
        total
    };
    let mut best: Vec<usize> = (0..axes.len()).collect();
    if axes.len() > 4 {
        return best;
    }
    let mut best_cost = cost(&best);
    let mut order = best.clone();
    // Heap's algorithm over the few axes a Resize has (at most 4! orders).
    let mut counters = vec![0usize; order.len()];
    let mut i = 0;
    while i < order.len() {
        if counters[i] < i {
            order.swap(if i % 2 == 0 { 0 } else { counters[i] }, i);
            let c = cost(&order);
            if c < best_cost {
                (best, best_cost) = (order.clone(), c);
            }
            counters[i] += 1;
            i = 0;
        } else {
            counters[i] = 0;
            i += 1;
        }
    }
    best
}

/// A gathered load along the last axis against a contiguous one (vector lanes) in
/// [`pass_order`]'s estimate.
const GATHER_COST: i64 = 8;

/// An axis table whose interior repeats: output position `start + i * period + r`, for
/// `i < periods` and `r < period`, reads input positions `indices[start + r][k] + i * step`
/// with weights `weights[start + r][k]` (what align_corners and integer upsamplings give away
/// from the edges, whose clamped positions break the pattern).
#[derive(Debug, PartialEq)]
struct Periodic {
    start: usize,
    periods: usize,
    period: usize,
    step: i64,
}

impl Periodic {
    /// The periodic run covering the most output positions, if it covers at least half of
    /// them with two periods or more (periods up to [`MAX_PERIOD`]; weights compared exactly).
    fn of(indices: &[Vec<i64>], weights: &[Vec<f64>]) -> Option<Periodic> {
        let out = indices.len();
        let mut best: Option<Periodic> = None;
        for period in 1..=MAX_PERIOD.min(out / 2) {
            let mut o = 0;
            while o + period < out {
                let step = indices[o + period][0] - indices[o][0];
                let related = |o: usize| {
                    o + period < out
                        && indices[o].iter().zip(&indices[o + period]).all(|(x, y)| y - x == step)
                        && weights[o] == weights[o + period]
                };
                if step < 1 || !related(o) {
                    o += 1;
                    continue;
                }
                let start = o;
                while related(o) {
                    o += 1;
                }
                // Positions `start .. o + period` are periodic.
                let periods = (o + period - start) / period;
                if best.as_ref().is_none_or(|b| periods * period > b.periods * b.period) {
                    best = Some(Periodic { start, periods, period, step });
                }
            }
        }
        best.filter(|b| b.periods >= 2 && 2 * b.periods * b.period >= out)
    }
}

/// The longest period [`Periodic::of`] looks for.
const MAX_PERIOD: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_tables_are_found_away_from_the_edges() {
        let linear = Kernel::Linear { antialias: false };
        let of = |n: i64, out: i64, transform: Transform| {
            let plan = axis_plan(n, out, out as f64 / n as f64, transform, linear, (0.0, 1.0), false);
            Periodic::of(&plan.indices, &plan.weights)
        };
        // half_pixel x2, 4 -> 8: rows 1..7 in three periods of two, one input row a period.
        assert_eq!(of(4, 8, Transform::HalfPixel), Some(Periodic { start: 1, periods: 3, period: 2, step: 1 }));
        // align_corners 33 -> 129 (DeepLab's head): 128 of the 129 rows in periods of four.
        let p = of(33, 129, Transform::AlignCorners).expect("periodic");
        assert_eq!((p.periods * p.period, p.period, p.step), (128, 4, 1));
        // 33 -> 100: no period of at most 16 outputs.
        assert_eq!(of(33, 100, Transform::HalfPixel), None);
        // Every position a period (a downsampling by two): step two inputs.
        let p = of(16, 8, Transform::HalfPixel).expect("periodic");
        assert_eq!((p.period, p.step), (1, 2));
    }

    #[test]
    fn upsampling_resamples_the_last_axis_first_and_downsampling_last() {
        let position = |order: &[usize], axis: usize| order.iter().position(|&i| i == axis).unwrap();
        // DeepLab's head: 5 x 33 x 33 -> 129 x 129, bilinear.
        let order = pass_order(&[1, 5, 33, 33], &[1, 5, 129, 129], &[0, 1, 2, 3], 2);
        assert!(position(&order, 3) < position(&order, 2), "{order:?}");
        // Downsampling rows first leaves fewer gathers along the columns: ONNX's order stays.
        assert_eq!(pass_order(&[1, 1, 64, 64], &[1, 1, 16, 16], &[0, 1, 2, 3], 2), vec![0, 1, 2, 3]);
        // `axes` given: indices into it, the last axis still first when upsampling.
        assert_eq!(pass_order(&[2, 8, 8], &[2, 32, 32], &[1, 2], 2), vec![1, 0]);
    }

    #[test]
    fn nearest_upsample_doubles_each_index() {
        // 2 -> 4, asymmetric, floor: 0 0 1 1.
        let plan = axis_plan(2, 4, 2.0, Transform::Asymmetric, Kernel::Nearest(NearestMode::Floor), (0.0, 1.0), false);
        assert_eq!(plan.nearest(), [0, 0, 1, 1]);
    }

    #[test]
    fn linear_half_pixel_matches_the_reference_values() {
        // ONNX's test_resize_upsample_scales_linear, one axis: 2 -> 4 at scale 2.
        // x_ori = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 (indices clamped at the edges).
        let plan = axis_plan(2, 4, 2.0, Transform::HalfPixel, Kernel::Linear { antialias: false }, (0.0, 1.0), false);
        let values = [1.0, 2.0];
        let out: Vec<f64> = plan
            .indices
            .iter()
            .zip(&plan.weights)
            .map(|(i, w)| i.iter().zip(w).map(|(&i, &w)| w * values[i as usize]).sum())
            .collect();
        assert_eq!(out, [1.0, 1.25, 1.75, 2.0]);
    }

    #[test]
    fn cubic_weights_sum_to_one_and_crop_extrapolates() {
        let plan = axis_plan(
            4,
            3,
            0.75,
            Transform::HalfPixel,
            Kernel::Cubic { a: -0.75, antialias: false },
            (0.0, 1.0),
            false,
        );
        for w in &plan.weights {
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{w:?}");
        }
        let crop =
            axis_plan(4, 3, 0.75, Transform::TfCropAndResize, Kernel::Linear { antialias: false }, (0.4, 1.2), false);
        assert_eq!(crop.outside, [false, false, true]);
    }

    #[test]
    fn antialias_widens_the_kernel_when_downsampling() {
        let plan = axis_plan(8, 4, 0.5, Transform::HalfPixel, Kernel::Linear { antialias: true }, (0.0, 1.0), false);
        assert_eq!(plan.weights[0].len(), 4);
        assert!(plan.indices.iter().flatten().all(|&i| (0..8).contains(&i)));
    }
}
