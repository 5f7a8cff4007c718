//! ONNX `GridSample` (opsets 16-22: `bilinear`/`bicubic` and `linear`/`cubic`, `nearest`; 1-3
//! spatial dimensions) as a subgraph following ONNX's reference. The grid's normalised
//! coordinates are denormalised per spatial axis (`align_corners`), rounded half to even for
//! `nearest`, and moved into the image when outside it (`border`: clamped, `reflection`:
//! reflected between the borders). Each output point reads the taps of its neighbourhood
//! (1, 2 or 4 per axis), each tap index taken through the padding mode again (`zeros`: the tap
//! reads 0 outside the image), by one `GatherElements` over the flattened image per tap
//! combination, weighted by the product of the axes' linear or cubic (Keys, a = -0.75)
//! coefficients.

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, required, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::Block;
use strata_ir::Error;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Nearest,
    Linear,
    Cubic,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Padding {
    Zeros,
    Border,
    Reflection,
}

/// One tap along one axis: its index (int64, already inside the image), its weight, and
/// whether it lies inside the image (`zeros` padding).
struct Tap {
    index: String,
    weight: Option<String>,
    inside: Option<String>,
}

impl Importer<'_> {
    pub(crate) fn grid_sample(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, grid) = (required(node, 0)?, required(node, 1)?);
        let (x_shape, x_type) = self.shape_of(x)?;
        let (grid_shape, grid_type) = self.shape_of(grid)?;
        let text = |name: &str, default: &str| {
            attribute(node, name).map_or(default.to_owned(), |a| String::from_utf8_lossy(a.s()).into_owned())
        };
        let mode = match text("mode", if self.opset < 20 { "bilinear" } else { "linear" }).as_str() {
            "nearest" => Mode::Nearest,
            "bilinear" | "linear" => Mode::Linear,
            "bicubic" | "cubic" => Mode::Cubic,
            other => return Err(Error::invalid_input(format!("unknown mode '{other}'"))),
        };
        let padding = match text("padding_mode", "zeros").as_str() {
            "zeros" => Padding::Zeros,
            "border" => Padding::Border,
            "reflection" => Padding::Reflection,
            other => return Err(Error::invalid_input(format!("unknown padding_mode '{other}'"))),
        };
        let align = int(node, "align_corners", 0) != 0;
        let k = x_shape.len().checked_sub(2).filter(|k| (1..=3).contains(k)).ok_or_else(|| {
            Error::unsupported(format!(
                "GridSample over {} spatial axes (1 to 3 are supported)",
                x_shape.len() as i64 - 2
            ))
        })?;
        if grid_shape.len() != k + 2 || grid_shape[0] != x_shape[0] || grid_shape[k + 1] != k as i64 {
            return Err(Error::invalid_input(format!(
                "the grid {grid_shape:?} must be [N, {}..., {k}] for the input {x_shape:?}",
                "out"
            )));
        }
        if !matches!(grid_type, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16) {
            return Err(Error::invalid_input(format!(
                "the grid must be floating point, got {}",
                grid_type.as_str_name()
            )));
        }
        let (batch, channels) = (x_shape[0], x_shape[1]);
        let dims = &x_shape[2..];
        let out = &grid_shape[1..=k];
        let points: i64 = out.iter().product();
        let pixels: i64 = dims.iter().product();
        let mut e = Expansion::new(block, node, index);
        let scalar = |e: &mut Expansion, this: &mut Self, v: f64| e.scalar(this, grid_type, v);
        let binary = |e: &mut Expansion, this: &mut Self, op: &str, a: &str, b: &str| e.op(this, op, &[a, b], vec![]);
        let with = |e: &mut Expansion, this: &mut Self, op: &str, a: &str, v: f64| -> Result<String, Error> {
            let c = e.scalar(this, grid_type, v)?;
            e.op(this, op, &[a, &c], vec![])
        };
        let flat = e.ints(self, &[batch, points, k as i64]);
        let grid = e.op(self, "Reshape", &[grid, &flat], vec![])?;
        let mut taps: Vec<Vec<Tap>> = Vec::new();
        for (axis, &d) in dims.iter().enumerate() {
            // The grid's last axis lists x (the innermost spatial axis) first.
            let at = e.ints(self, &[(k - 1 - axis) as i64]);
            let g = e.op(self, "Gather", &[&grid, &at], vec![attr_i("axis", 2)])?;
            let g = {
                let axes = e.ints(self, &[2]);
                e.op(self, "Squeeze", &[&g, &axes], vec![])?
            };
            let d = d as f64;
            let plus = with(&mut e, self, "Add", &g, 1.0)?;
            let mut c = if align {
                with(&mut e, self, "Mul", &plus, (d - 1.0) / 2.0)?
            } else {
                let scaled = with(&mut e, self, "Mul", &plus, d)?;
                let shifted = with(&mut e, self, "Sub", &scaled, 1.0)?;
                with(&mut e, self, "Div", &shifted, 2.0)?
            };
            if mode == Mode::Nearest {
                c = e.op(self, "Round", &[&c], vec![])?;
            }
            let (low, high) = if align { (0.0, d - 1.0) } else { (-0.5, d - 0.5) };
            let outside = |e: &mut Expansion, this: &mut Self, c: &str| -> Result<String, Error> {
                let below = with(e, this, "Less", c, low)?;
                let above = with(e, this, "Greater", c, high)?;
                e.op(this, "Or", &[&below, &above], vec![])
            };
            let reflect = |e: &mut Expansion, this: &mut Self, c: &str| -> Result<String, Error> {
                // A triangle wave of period 2 * range through the borders.
                let range = high - low;
                let shifted = with(e, this, "Sub", c, low)?;
                let period = scalar(e, this, 2.0 * range)?;
                let m = e.op(this, "Mod", &[&shifted, &period], vec![attr_i("fmod", 1)])?;
                let negative = with(e, this, "Less", &m, 0.0)?;
                let wrapped = binary(e, this, "Add", &m, &period)?;
                let m = e.op(this, "Where", &[&negative, &wrapped, &m], vec![])?;
                let rising = with(e, this, "LessOrEqual", &m, range)?;
                let falling = binary(e, this, "Sub", &period, &m)?;
                let tri = e.op(this, "Where", &[&rising, &m, &falling], vec![])?;
                let reflected = with(e, this, "Add", &tri, low)?;
                let out = outside(e, this, c)?;
                e.op(this, "Where", &[&out, &reflected, c], vec![])
            };
            match padding {
                Padding::Border => {
                    let out = outside(&mut e, self, &c)?;
                    let (lo, hi) = (scalar(&mut e, self, 0.0)?, scalar(&mut e, self, d - 1.0)?);
                    let clamped = e.op(self, "Clip", &[&c, &lo, &hi], vec![])?;
                    c = e.op(self, "Where", &[&out, &clamped, &c], vec![])?;
                }
                Padding::Reflection => c = reflect(&mut e, self, &c)?,
                Padding::Zeros => {}
            }
            // The taps: (offset from floor, weight).
            let floor = e.op(self, "Floor", &[&c], vec![])?;
            let t = binary(&mut e, self, "Sub", &c, &floor)?;
            let mut axis_taps: Vec<(String, Option<String>)> = Vec::new();
            match mode {
                Mode::Nearest => axis_taps.push((c.clone(), None)),
                Mode::Linear => {
                    let one_minus = {
                        let one = scalar(&mut e, self, 1.0)?;
                        binary(&mut e, self, "Sub", &one, &t)?
                    };
                    axis_taps.push((floor.clone(), Some(one_minus)));
                    axis_taps.push((with(&mut e, self, "Add", &floor, 1.0)?, Some(t.clone())));
                }
                Mode::Cubic => {
                    // Keys' kernel with a = -0.75 at distances t + 1, t, 1 - t, 2 - t.
                    let a = -0.75;
                    let far = |e: &mut Expansion, this: &mut Self, s: &str| -> Result<String, Error> {
                        // ((a * s - 5a) * s + 8a) * s - 4a
                        let v = with(e, this, "Mul", s, a)?;
                        let v = with(e, this, "Sub", &v, 5.0 * a)?;
                        let v = binary(e, this, "Mul", &v, s)?;
                        let v = with(e, this, "Add", &v, 8.0 * a)?;
                        let v = binary(e, this, "Mul", &v, s)?;
                        with(e, this, "Sub", &v, 4.0 * a)
                    };
                    let near = |e: &mut Expansion, this: &mut Self, s: &str| -> Result<String, Error> {
                        // ((a + 2) * s - (a + 3)) * s * s + 1
                        let v = with(e, this, "Mul", s, a + 2.0)?;
                        let v = with(e, this, "Sub", &v, a + 3.0)?;
                        let v = binary(e, this, "Mul", &v, s)?;
                        let v = binary(e, this, "Mul", &v, s)?;
                        with(e, this, "Add", &v, 1.0)
                    };
                    let one = scalar(&mut e, self, 1.0)?;
                    let two = scalar(&mut e, self, 2.0)?;
                    let t_plus = with(&mut e, self, "Add", &t, 1.0)?;
                    let one_minus = binary(&mut e, self, "Sub", &one, &t)?;
                    let two_minus = binary(&mut e, self, "Sub", &two, &t)?;
                    let weights = [
                        far(&mut e, self, &t_plus)?,
                        near(&mut e, self, &t)?,
                        near(&mut e, self, &one_minus)?,
                        far(&mut e, self, &two_minus)?,
                    ];
                    for (offset, weight) in (-1..=2).zip(weights) {
                        let index =
                            if offset == 0 { floor.clone() } else { with(&mut e, self, "Add", &floor, offset as f64)? };
                        axis_taps.push((index, Some(weight)));
                    }
                }
            }
            // Each tap's index through the padding mode, as int64.
            let mut resolved = Vec::new();
            for (position, weight) in axis_taps {
                let mut inside = None;
                let position = match padding {
                    Padding::Zeros => {
                        let below = with(&mut e, self, "Less", &position, 0.0)?;
                        let above = with(&mut e, self, "Greater", &position, d - 1.0)?;
                        let out = e.op(self, "Or", &[&below, &above], vec![])?;
                        inside = Some(e.op(self, "Not", &[&out], vec![])?);
                        let (lo, hi) = (scalar(&mut e, self, 0.0)?, scalar(&mut e, self, d - 1.0)?);
                        e.op(self, "Clip", &[&position, &lo, &hi], vec![])?
                    }
                    Padding::Border => {
                        let (lo, hi) = (scalar(&mut e, self, 0.0)?, scalar(&mut e, self, d - 1.0)?);
                        e.op(self, "Clip", &[&position, &lo, &hi], vec![])?
                    }
                    Padding::Reflection => reflect(&mut e, self, &position)?,
                };
                let position = if padding == Padding::Reflection {
                    // Reflection of an index can land a hair outside: keep the gather in bounds.
                    let (lo, hi) = (scalar(&mut e, self, 0.0)?, scalar(&mut e, self, d - 1.0)?);
                    e.op(self, "Clip", &[&position, &lo, &hi], vec![])?
                } else {
                    position
                };
                let index = e.op(self, "Cast", &[&position], vec![attr_i("to", DataType::Int64 as i64)])?;
                resolved.push(Tap { index, weight, inside });
            }
            taps.push(resolved);
        }
        // The flattened image [N, C, pixels] and one gather per combination of taps.
        let image_shape = e.ints(self, &[batch, channels, pixels]);
        let image = e.op(self, "Reshape", &[x, &image_shape], vec![])?;
        let spread = e.ints(self, &[batch, channels, points]);
        let unit = e.ints(self, &[1]);
        let strides: Vec<i64> = (0..k).map(|a| dims[a + 1..].iter().product()).collect();
        let combinations: usize = taps.iter().map(Vec::len).product();
        let mut sum: Option<String> = None;
        for combination in 0..combinations {
            let mut rest = combination;
            let mut flat_index: Option<String> = None;
            let mut weight: Option<String> = None;
            let mut inside: Option<String> = None;
            for axis in (0..k).rev() {
                let tap = &taps[axis][rest % taps[axis].len()];
                rest /= taps[axis].len();
                let stride = e.constant(self, Folded::from_i64(vec![], &[strides[axis]]))?;
                let term = e.op(self, "Mul", &[&tap.index, &stride], vec![])?;
                flat_index = Some(match flat_index {
                    Some(f) => e.op(self, "Add", &[&f, &term], vec![])?,
                    None => term,
                });
                if let Some(w) = &tap.weight {
                    weight = Some(match weight {
                        Some(acc) => e.op(self, "Mul", &[&acc, w], vec![])?,
                        None => w.clone(),
                    });
                }
                if let Some(i) = &tap.inside {
                    inside = Some(match inside {
                        Some(acc) => e.op(self, "And", &[&acc, i], vec![])?,
                        None => i.clone(),
                    });
                }
            }
            let flat_index = flat_index.ok_or("no spatial axis")?;
            let lifted = e.op(self, "Unsqueeze", &[&flat_index, &unit], vec![])?;
            let indices = e.op(self, "Expand", &[&lifted, &spread], vec![])?;
            let mut value = e.op(self, "GatherElements", &[&image, &indices], vec![attr_i("axis", 2)])?;
            let factor = match (weight, inside) {
                (w, Some(i)) => {
                    let mask = e.op(self, "Cast", &[&i], vec![attr_i("to", grid_type as i64)])?;
                    Some(match w {
                        Some(w) => e.op(self, "Mul", &[&w, &mask], vec![])?,
                        None => mask,
                    })
                }
                (w, None) => w,
            };
            if let Some(factor) = factor {
                let factor = if grid_type == x_type {
                    factor
                } else {
                    e.op(self, "Cast", &[&factor], vec![attr_i("to", x_type as i64)])?
                };
                let factor = e.op(self, "Unsqueeze", &[&factor, &unit], vec![])?;
                value = e.op(self, "Mul", &[&value, &factor], vec![])?;
            }
            sum = Some(match sum {
                Some(acc) => e.op(self, "Add", &[&acc, &value], vec![])?,
                None => value,
            });
        }
        let sum = sum.ok_or("no tap")?;
        let shape: Vec<i64> = [batch, channels].into_iter().chain(out.iter().copied()).collect();
        let shape = e.ints(self, &shape);
        let output = e.op(self, "Reshape", &[&sum, &shape], vec![])?;
        self.alias(&output, node.output[0].clone())
    }
}
