//! Operators whose element positions are computed at import from constants, then read or
//! written by a gather or a scatter: `Compress` (the kept positions of a constant condition),
//! `ReverseSequence` (each batch entry's reversed time positions), `MaxUnpool` (MaxPool's
//! flat indices scattered into zeros) and `AffineGrid` (the base grid of normalised
//! coordinates, times the affine matrices).

use crate::expand::{attr_i, attr_ints, Expansion};
use crate::fold::Folded;
use crate::import::{int, ints, operand, required, Importer};
use crate::onnx::NodeProto;
use crate::shapes;
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// `Compress`: the slices at the positions where the (constant) condition holds.
    pub(crate) fn compress(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, condition) = (required(node, 0)?, required(node, 1)?);
        let kept = self.known(condition, "the condition")?;
        let kept: Vec<i64> =
            kept.ints()?.iter().enumerate().filter(|(_, &flag)| flag != 0).map(|(i, _)| i as i64).collect();
        let (shape, _) = self.shape_of(x)?;
        let mut e = Expansion::new(block, node, index);
        let (input, axis) = match crate::import::attribute(node, "axis") {
            Some(a) => (x.to_owned(), shapes::axis(a.i(), shape.len() as i64)?),
            None => {
                let flat = e.ints(self, &[-1]);
                (e.op(self, "Reshape", &[x, &flat], vec![])?, 0)
            }
        };
        let (input_shape, _) = self.shape_of(&input)?;
        if let Some(&last) = kept.last() {
            if last >= input_shape[axis] {
                return Err(Error::invalid_input(format!(
                    "the condition selects position {last} of an axis of {}",
                    input_shape[axis]
                )));
            }
        }
        let positions = e.ints(self, &kept);
        let output = e.op(self, "Gather", &[&input, &positions], vec![attr_i("axis", axis as i64)])?;
        self.alias(&output, node.output[0].clone())
    }

    /// `ReverseSequence`: along the time axis, each batch entry's first `sequence_lens[b]`
    /// steps reversed (a gather of positions computed from the constant lengths).
    pub(crate) fn reverse_sequence(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, lengths) = (required(node, 0)?, required(node, 1)?);
        let (shape, _) = self.shape_of(x)?;
        if shape.len() < 2 {
            return Err(Error::invalid_input(format!("the input must have rank 2 or more, got {shape:?}")));
        }
        let time = shapes::axis(int(node, "time_axis", 0), shape.len() as i64).map_err(|e| e.context("time_axis"))?;
        let batch =
            shapes::axis(int(node, "batch_axis", 1), shape.len() as i64).map_err(|e| e.context("batch_axis"))?;
        if time > 1 || batch > 1 || time == batch {
            return Err(Error::invalid_input("time_axis and batch_axis must be 0 and 1, in either order"));
        }
        let lengths = self.known(lengths, "sequence_lens")?.ints()?;
        let (steps, entries) = (shape[time], shape[batch]);
        if lengths.len() as i64 != entries || lengths.iter().any(|&n| n < 0 || n > steps) {
            return Err(Error::invalid_input(format!(
                "sequence_lens {lengths:?} must hold one length in 0..={steps} per batch entry ({entries})"
            )));
        }
        if steps.saturating_mul(entries) > 1 << 24 {
            return Err(Error::unsupported(format!("a position table of {steps} x {entries} entries (at most 2^24)")));
        }
        // positions[t][b] (or [b][t]): the time step each output step reads.
        let mut positions = Vec::with_capacity((steps * entries) as usize);
        let mut table = vec![0i64; (steps * entries) as usize];
        for t in 0..steps {
            for (b, &n) in lengths.iter().enumerate() {
                let source = if t < n { n - 1 - t } else { t };
                let at = if time == 0 { t * entries + b as i64 } else { b as i64 * steps + t };
                table[at as usize] = source;
            }
        }
        positions.extend(table);
        let mut table_shape = vec![shape[0], shape[1]];
        table_shape.extend(std::iter::repeat_n(1, shape.len() - 2));
        let mut e = Expansion::new(block, node, index);
        let table = e.constant(self, Folded::from_i64(table_shape, &positions))?;
        let full = e.ints(self, &shape);
        let indices = e.op(self, "Expand", &[&table, &full], vec![])?;
        let output = e.op(self, "GatherElements", &[x, &indices], vec![attr_i("axis", time as i64)])?;
        self.alias(&output, node.output[0].clone())
    }

    /// `MaxUnpool`: the values scattered at their MaxPool indices (flat over the whole output)
    /// into zeros of the unpooled shape (from `output_shape`, or kernel, strides and pads).
    pub(crate) fn max_unpool(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, indices) = (required(node, 0)?, required(node, 1)?);
        let (shape, dtype) = self.shape_of(x)?;
        let spatial = shape.len().checked_sub(2).filter(|&k| k > 0).ok_or("the input needs spatial axes")?;
        let kernel = ints(node, "kernel_shape").ok_or("MaxUnpool needs kernel_shape")?;
        let strides = ints(node, "strides").unwrap_or_else(|| vec![1; spatial]);
        let pads = ints(node, "pads").unwrap_or_else(|| vec![0; 2 * spatial]);
        let sane = |v: &[i64], low: i64| v.iter().all(|&n| (low..=1 << 20).contains(&n));
        if kernel.len() != spatial
            || strides.len() != spatial
            || pads.len() != 2 * spatial
            || !sane(&kernel, 1)
            || !sane(&strides, 1)
            || !sane(&pads, 0)
        {
            return Err(Error::invalid_input(format!(
                "kernel_shape {kernel:?}, strides {strides:?} and pads {pads:?} must fit {spatial} spatial axes, each in 1..=2^20 (pads from 0)"
            )));
        }
        // Scattered in the shape kernel, strides and pads give; an output_shape places that
        // at its origin, zeros after (ONNX's reference).
        let mut inferred = shape[..2].to_vec();
        for a in 0..spatial {
            let n = (shape[2 + a] - 1).checked_mul(strides[a]).ok_or("the unpooled shape overflows")?;
            inferred.push(n - pads[a] - pads[spatial + a] + kernel[a]);
        }
        let out: Vec<i64> = match operand(node, 2) {
            Some(name) => self.known(name, "output_shape")?.ints()?,
            None => inferred.clone(),
        };
        if inferred.iter().any(|&n| n < 1)
            || out.len() != shape.len()
            || out[..2] != shape[..2]
            || out.iter().zip(&inferred).any(|(o, i)| o < i)
        {
            return Err(Error::invalid_input(format!(
                "the unpooled shape {out:?} does not hold the shape {inferred:?} of the input {shape:?}"
            )));
        }
        let total: i64 = inferred.iter().product();
        let mut e = Expansion::new(block, node, index);
        let flat_shape = e.ints(self, &[total]);
        let zero = e.constant(self, Folded::filled(dtype, vec![1], 0.0)?)?;
        let zeros = e.op(self, "Expand", &[&zero, &flat_shape], vec![])?;
        let flat = e.ints(self, &[-1]);
        let (values, positions) =
            (e.op(self, "Reshape", &[x, &flat], vec![])?, e.op(self, "Reshape", &[indices, &flat], vec![])?);
        let scattered = e.op(self, "ScatterElements", &[&zeros, &positions, &values], vec![attr_i("axis", 0)])?;
        let inferred_shape = e.ints(self, &inferred);
        let mut output = e.op(self, "Reshape", &[&scattered, &inferred_shape], vec![])?;
        if out != inferred {
            let mut widths = vec![0; shape.len()];
            widths.extend(out.iter().zip(&inferred).map(|(o, i)| o - i));
            let widths = e.ints(self, &widths);
            output = e.op(self, "Pad", &[&output, &widths], vec![])?;
        }
        self.alias(&output, node.output[0].clone())
    }

    /// `AffineGrid`: the base grid of normalised coordinates (x fastest, then y, z, and a 1)
    /// for the constant `size`, times each batch entry's transposed affine matrix.
    pub(crate) fn affine_grid(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (theta, size) = (required(node, 0)?, required(node, 1)?);
        let (theta_shape, dtype) = self.shape_of(theta)?;
        let size = self.known(size, "size")?.ints()?;
        let spatial =
            size.len().checked_sub(2).filter(|k| (2..=3).contains(k)).ok_or_else(|| {
                Error::invalid_input(format!("size {size:?} must be [N, C, H, W] or [N, C, D, H, W]"))
            })?;
        if theta_shape != [size[0], spatial as i64, spatial as i64 + 1] {
            return Err(Error::invalid_input(format!(
                "theta {theta_shape:?} must be [N, {spatial}, {}] for size {size:?}",
                spatial + 1
            )));
        }
        let align = int(node, "align_corners", 0) != 0;
        let dims = &size[2..];
        if dims.iter().any(|&n| n < 1) {
            return Err(Error::invalid_input(format!("size {size:?} has an empty spatial axis")));
        }
        let coordinate = |i: i64, n: i64| -> f64 {
            if align {
                if n == 1 {
                    0.0
                } else {
                    -1.0 + 2.0 * i as f64 / (n - 1) as f64
                }
            } else {
                (2.0 * i as f64 + 1.0) / n as f64 - 1.0
            }
        };
        let points = dims
            .iter()
            .try_fold(1i64, |acc, &n| acc.checked_mul(n).filter(|&p| p <= 1 << 24))
            .ok_or_else(|| Error::unsupported(format!("a base grid of {dims:?} points (at most 2^24)")))?;
        let mut base = Vec::with_capacity(points as usize * (spatial + 1));
        for flat in 0..points {
            // The position along each axis, innermost (x) first.
            let mut rest = flat;
            let mut row = Vec::with_capacity(spatial + 1);
            for &n in dims.iter().rev() {
                row.push(coordinate(rest % n, n));
                rest /= n;
            }
            row.push(1.0);
            base.extend(row);
        }
        let mut e = Expansion::new(block, node, index);
        let base = e.constant(self, crate::fold::from_f64(vec![points, spatial as i64 + 1], dtype, &base)?)?;
        let transposed = e.op(self, "Transpose", &[theta], vec![attr_ints("perm", &[0, 2, 1])])?;
        let grid = e.op(self, "MatMul", &[&base, &transposed], vec![])?;
        let mut out: Vec<i64> = vec![size[0]];
        out.extend(dims);
        out.push(spatial as i64);
        let out = e.ints(self, &out);
        let output = e.op(self, "Reshape", &[&grid, &out], vec![])?;
        self.alias(&output, node.output[0].clone())
    }
}
