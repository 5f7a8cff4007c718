//! Operators that are compositions of others, imported as their subgraphs (`crate::expand`),
//! and operators whose result is a constant of the static shapes (window functions, EyeLike).
//!
//! - Reductions: `ReduceL1` = ReduceSum(|x|), `ReduceSumSquare` = ReduceSum(x * x),
//!   `ReduceLogSum` = Log(ReduceSum(x)), `ReduceLogSumExp` = Log(ReduceSum(e^(x - max))) + max.
//! - Normalisations: `RMSNormalization` (x / sqrt(mean(x^2) + epsilon) * scale over the axes
//!   from `axis` on, in f32 for half precision), `LpNormalization` (x / its L1 or L2 norm along
//!   `axis`, zero where the norm is zero).
//! - Layout: `DepthToSpace` and `SpaceToDepth` (reshape, transpose, reshape; DCR and CRD),
//!   `CenterCropPad` (slices and pads centred on each axis), `Trilu` (a constant mask over the
//!   last two axes).
//! - `OneHot` (indices compared with a constant range), `LpPool` (ONNX's reference: the kernel
//!   size times the average pool of |x|^p, to the power 1/p).
//! - `Col2Im` (torch's `Fold`: overlapping blocks summed into an image, an inverse STFT's
//!   overlap-add): a grouped `ConvTranspose` of the columns with a constant one-hot kernel.
//! - Constants: `HannWindow`, `HammingWindow`, `BlackmanWindow`, `EyeLike`.

use crate::expand::{attr_i, attr_ints, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, ints, ints_of_len, operand, required, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use crate::shapes;
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// `Col2Im`: the columns `[N, C*K, L]` (`K` the product of `block_shape`, `L` the blocks'
    /// positions, row-major over the image's axes) summed into the image `[N, C, image..]`:
    /// `y[n, c, o] = Σ x[n, c*K + k, l]` over the block offsets `k` and positions `l` with
    /// `o = l*stride + k*dilation - pad_begin`. That is a transposed convolution of the columns
    /// seen as `[N, C*K, L_1, .., L_d]`, group `C`, whose kernel `[C*K, 1, block..]` holds a
    /// 1 at block offset `k` of channel `c*K + k` and zeros elsewhere (its multiply-adds are
    /// `K` times the sums'); `output_padding` restores the image rows past the last block.
    pub(crate) fn col2im(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let image = self.constant_ints(required(node, 1)?)?;
        let blocks = self.constant_ints(required(node, 2)?)?;
        let d = image.len();
        if shape.len() != 3 || d == 0 || blocks.len() != d {
            return Err(format!(
                "Col2Im takes columns [N, C*prod(block_shape), L] and image_shape and block_shape of one \
                 length, got {shape:?}, image_shape {image:?}, block_shape {blocks:?}"
            )
            .into());
        }
        let strides = ints_of_len(node, "strides", 1, d)?;
        let dilations = ints_of_len(node, "dilations", 1, d)?;
        let pads = ints_of_len(node, "pads", 0, 2 * d)?;
        let limit = 1i64 << 20;
        let positive = |v: &[i64]| v.iter().all(|&x| (1..=limit).contains(&x));
        if !positive(&image) || !positive(&blocks) || !positive(&strides) || !positive(&dilations) {
            return Err(format!(
                "image_shape {image:?}, block_shape {blocks:?}, strides {strides:?} and dilations {dilations:?} \
                 must be positive"
            )
            .into());
        }
        if pads.iter().any(|&p| !(0..=limit).contains(&p)) {
            return Err(format!("pads {pads:?} must not be negative").into());
        }
        let k = shapes::numel(&blocks)?;
        if shape[1] % k != 0 {
            return Err(format!("{} column channels are not a multiple of the block's {k} elements", shape[1]).into());
        }
        let channels = shape[1] / k;
        // Per axis: the blocks' positions and the image rows past the last block.
        let mut positions = Vec::with_capacity(d);
        let mut output_padding = Vec::with_capacity(d);
        for a in 0..d {
            let room = image[a] + pads[a] + pads[a + d] - (dilations[a] * (blocks[a] - 1) + 1);
            if room < 0 {
                return Err(format!(
                    "the block {blocks:?} (dilations {dilations:?}) does not fit the padded image {image:?} (pads \
                     {pads:?})"
                )
                .into());
            }
            positions.push(room / strides[a] + 1);
            output_padding.push(room % strides[a]);
        }
        if shapes::numel(&positions)? != shape[2] {
            return Err(format!(
                "{} block positions in the columns {shape:?}, but image_shape {image:?}, block_shape {blocks:?}, \
                 strides {strides:?}, dilations {dilations:?} and pads {pads:?} give {positions:?}",
                shape[2]
            )
            .into());
        }
        let (zero, one) = (Folded::scalar_of(dtype, 0.0)?.bytes, Folded::scalar_of(dtype, 1.0)?.bytes);
        let mut kernel = Vec::with_capacity((shape[1] * k) as usize * one.len());
        for _ in 0..channels {
            for offset in 0..k {
                for at in 0..k {
                    kernel.extend_from_slice(if at == offset { &one } else { &zero });
                }
            }
        }
        let mut kernel_shape = vec![shape[1], 1];
        kernel_shape.extend(&blocks);
        let mut grid = vec![shape[0], shape[1]];
        grid.extend(&positions);
        let mut e = Expansion::new(block, node, index);
        let grid = e.ints(self, &grid);
        let columns = e.op(self, "Reshape", &[x, &grid], vec![])?;
        let kernel = e.constant(self, Folded { shape: kernel_shape, dtype, bytes: kernel })?;
        let y = e.op(
            self,
            "ConvTranspose",
            &[&columns, &kernel],
            vec![
                attr_i("group", channels),
                attr_ints("kernel_shape", &blocks),
                attr_ints("strides", &strides),
                attr_ints("dilations", &dilations),
                attr_ints("pads", &pads),
                attr_ints("output_padding", &output_padding),
            ],
        )?;
        self.alias(&y, node.output[0].clone())
    }

    /// The reduction node `op_type` on `input` with `node`'s axes (input 1 or the attribute),
    /// `keepdims` and `noop_with_empty_axes`.
    fn reduce_like(
        &mut self,
        e: &mut Expansion,
        node: &NodeProto,
        op_type: &str,
        input: &str,
        keepdims: Option<i64>,
    ) -> Result<String, Error> {
        let mut inputs = vec![input.to_owned()];
        if let Some(axes) = operand(node, 1) {
            inputs.push(axes.to_owned());
        }
        let mut attributes: Vec<_> =
            node.attribute.iter().filter(|a| matches!(a.name(), "axes" | "noop_with_empty_axes")).cloned().collect();
        attributes.push(attr_i("keepdims", keepdims.unwrap_or_else(|| int(node, "keepdims", 1))));
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        e.op(self, op_type, &refs, attributes)
    }

    /// Whether a reduction node keeps its input as it is (no axes, noop_with_empty_axes).
    fn reduces_nothing(&self, node: &NodeProto) -> Result<bool, Error> {
        if int(node, "noop_with_empty_axes", 0) == 0 {
            return Ok(false);
        }
        let axes = match operand(node, 1) {
            Some(name) => self.constant_ints(name)?,
            None => ints(node, "axes").unwrap_or_default(),
        };
        Ok(axes.is_empty())
    }

    /// `ReduceL1`, `ReduceSumSquare`, `ReduceLogSum`, `ReduceLogSumExp`.
    pub(crate) fn composite_reduce(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        if self.reduces_nothing(node)? {
            return self.alias(x, node.output[0].clone());
        }
        let mut e = Expansion::new(block, node, index);
        let y = match node.op_type() {
            "ReduceL1" => {
                let a = e.op(self, "Abs", &[x], vec![])?;
                self.reduce_like(&mut e, node, "ReduceSum", &a, None)?
            }
            "ReduceSumSquare" => {
                let sq = e.op(self, "Mul", &[x, x], vec![])?;
                self.reduce_like(&mut e, node, "ReduceSum", &sq, None)?
            }
            "ReduceLogSum" => {
                let s = self.reduce_like(&mut e, node, "ReduceSum", x, None)?;
                e.op(self, "Log", &[&s], vec![])?
            }
            _ => {
                // Shifted by the maximum, so that e^x cannot overflow.
                let high = self.reduce_like(&mut e, node, "ReduceMax", x, Some(1))?;
                let shifted = e.op(self, "Sub", &[x, &high], vec![])?;
                let exp = e.op(self, "Exp", &[&shifted], vec![])?;
                let sum = self.reduce_like(&mut e, node, "ReduceSum", &exp, None)?;
                let log = e.op(self, "Log", &[&sum], vec![])?;
                let top = self.reduce_like(&mut e, node, "ReduceMax", x, None)?;
                e.op(self, "Add", &[&log, &top], vec![])?
            }
        };
        self.alias(&y, node.output[0].clone())
    }

    /// `RMSNormalization`.
    pub(crate) fn rms_normalization(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, scale) = (required(node, 0)?, required(node, 1)?);
        let (shape, dtype) = self.shape_of(x)?;
        let axis = shapes::axis(int(node, "axis", -1), shape.len() as i64)?;
        let epsilon = attribute(node, "epsilon").map_or(1e-5, |a| a.f()) as f64;
        let mut e = Expansion::new(block, node, index);
        let compute = if matches!(dtype, DataType::Float16 | DataType::Bfloat16) { DataType::Float } else { dtype };
        let cast = |e: &mut Expansion, this: &mut Self, v: &str, to: DataType| -> Result<String, Error> {
            if this.shape_of(v)?.1 == to {
                Ok(v.to_owned())
            } else {
                e.op(this, "Cast", &[v], vec![attr_i("to", to as i64)])
            }
        };
        let wide = cast(&mut e, self, x, compute)?;
        let squared = e.op(self, "Mul", &[&wide, &wide], vec![])?;
        let axes: Vec<i64> = (axis as i64..shape.len() as i64).collect();
        let axes = e.ints(self, &axes);
        let mean = e.op(self, "ReduceMean", &[&squared, &axes], vec![attr_i("keepdims", 1)])?;
        let eps = e.scalar(self, compute, epsilon)?;
        let shifted = e.op(self, "Add", &[&mean, &eps], vec![])?;
        let rms = e.op(self, "Sqrt", &[&shifted], vec![])?;
        let inverse = e.op(self, "Reciprocal", &[&rms], vec![])?;
        let normalised = e.op(self, "Mul", &[&wide, &inverse], vec![])?;
        let scale = cast(&mut e, self, scale, compute)?;
        let y = e.op(self, "Mul", &[&normalised, &scale], vec![])?;
        let y = cast(&mut e, self, &y, dtype)?;
        self.alias(&y, node.output[0].clone())
    }

    /// `MeanVarianceNormalization`: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes`
    /// (ONNX's function body).
    pub(crate) fn mean_variance_normalization(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
    ) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (_, dtype) = self.shape_of(x)?;
        let axes = ints(node, "axes").unwrap_or_else(|| vec![0, 2, 3]);
        let mut e = Expansion::new(block, node, index);
        let axes = e.ints(self, &axes);
        let mean = e.op(self, "ReduceMean", &[x, &axes], vec![attr_i("keepdims", 1)])?;
        let squared = e.op(self, "Mul", &[x, x], vec![])?;
        let mean_of_square = e.op(self, "ReduceMean", &[&squared, &axes], vec![attr_i("keepdims", 1)])?;
        let square_of_mean = e.op(self, "Mul", &[&mean, &mean], vec![])?;
        let variance = e.op(self, "Sub", &[&mean_of_square, &square_of_mean], vec![])?;
        let deviation = e.op(self, "Sqrt", &[&variance], vec![])?;
        let epsilon = e.scalar(self, dtype, 1e-9)?;
        let denominator = e.op(self, "Add", &[&deviation, &epsilon], vec![])?;
        let centred = e.op(self, "Sub", &[x, &mean], vec![])?;
        let y = e.op(self, "Div", &[&centred, &denominator], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `GroupNormalization` (opset 21: per-channel scale and bias): statistics over each group
    /// of `C / num_groups` channels and the spatial dimensions, in f32 for half precision.
    pub(crate) fn group_normalization(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (x, scale, bias) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let (shape, dtype) = self.shape_of(x)?;
        let groups = int(node, "num_groups", 0);
        if shape.len() < 2 || groups < 1 || shape[1] % groups != 0 {
            return Err(format!("num_groups {groups} does not divide the channels of {shape:?}").into());
        }
        let (scale_shape, _) = self.shape_of(scale)?;
        if scale_shape != [shape[1]] {
            return Err(Error::unsupported(format!(
                "GroupNormalization scale of shape {scale_shape:?} (opset 21's per-channel scale and bias are imported)"
            )));
        }
        let epsilon = attribute(node, "epsilon").map_or(1e-5, |a| a.f()) as f64;
        let compute = if matches!(dtype, DataType::Float16 | DataType::Bfloat16) { DataType::Float } else { dtype };
        let mut e = Expansion::new(block, node, index);
        let cast = |e: &mut Expansion, this: &mut Self, v: &str, to: DataType| -> Result<String, Error> {
            if this.shape_of(v)?.1 == to {
                Ok(v.to_owned())
            } else {
                e.op(this, "Cast", &[v], vec![attr_i("to", to as i64)])
            }
        };
        let wide = cast(&mut e, self, x, compute)?;
        let rest = shapes::numel(&shape[2..])?;
        let grouped_shape = e.ints(self, &[shape[0], groups, shape[1] / groups * rest]);
        let grouped = e.op(self, "Reshape", &[&wide, &grouped_shape], vec![])?;
        let last = e.ints(self, &[2]);
        let keep = vec![attr_i("keepdims", 1)];
        // The variance of the centred values (ONNX's reference), not E[x^2] - E[x]^2, which
        // cancels where the mean is large against the spread: the same two passes over the
        // input, the squares computed inside the second reduction.
        let mean = e.op(self, "ReduceMean", &[&grouped, &last], keep.clone())?;
        let deviations = e.op(self, "Sub", &[&grouped, &mean], vec![])?;
        let squared = e.op(self, "Mul", &[&deviations, &deviations], vec![])?;
        let variance = e.op(self, "ReduceMean", &[&squared, &last], keep)?;
        let eps = e.scalar(self, compute, epsilon)?;
        let shifted = e.op(self, "Add", &[&variance, &eps], vec![])?;
        let deviation = e.op(self, "Sqrt", &[&shifted], vec![])?;
        // The normalisation, scale and bias in one shape, (N, groups, channels of a group, the
        // rest), so that they fuse into one elementwise program over the input: the
        // statistics broadcast along the group's channels, the scale and bias along the rest
        // (normalised in the (N, groups, rest) shape, the scaling after a reshape of it was a
        // second program and a buffer of the input's size).
        let split_shape = e.ints(self, &[shape[0], groups, shape[1] / groups, rest]);
        let split = e.op(self, "Reshape", &[&wide, &split_shape], vec![])?;
        let group_column = e.ints(self, &[shape[0], groups, 1, 1]);
        let mean = e.op(self, "Reshape", &[&mean, &group_column], vec![])?;
        let deviation = e.op(self, "Reshape", &[&deviation, &group_column], vec![])?;
        let centred = e.op(self, "Sub", &[&split, &mean], vec![])?;
        let normalised = e.op(self, "Div", &[&centred, &deviation], vec![])?;
        let per_channel = cast(&mut e, self, &normalised, dtype)?;
        let column = e.ints(self, &[1, groups, shape[1] / groups, 1]);
        let scale = e.op(self, "Reshape", &[scale, &column], vec![])?;
        let bias = e.op(self, "Reshape", &[bias, &column], vec![])?;
        let scaled = e.op(self, "Mul", &[&scale, &per_channel], vec![])?;
        let biased = e.op(self, "Add", &[&scaled, &bias], vec![])?;
        let original = e.ints(self, &shape);
        let y = e.op(self, "Reshape", &[&biased, &original], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `LpNormalization` (p = 1 or 2).
    pub(crate) fn lp_normalization(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, _) = self.shape_of(x)?;
        let axis = shapes::axis(int(node, "axis", -1), shape.len() as i64)? as i64;
        let p = int(node, "p", 2);
        let mut e = Expansion::new(block, node, index);
        let axes = e.ints(self, &[axis]);
        let keep = vec![attr_i("keepdims", 1)];
        let norm = match p {
            1 => {
                let a = e.op(self, "Abs", &[x], vec![])?;
                e.op(self, "ReduceSum", &[&a, &axes], keep)?
            }
            2 => {
                let sq = e.op(self, "Mul", &[x, x], vec![])?;
                let s = e.op(self, "ReduceSum", &[&sq, &axes], keep)?;
                e.op(self, "Sqrt", &[&s], vec![])?
            }
            other => return Err(format!("LpNormalization p must be 1 or 2, got {other}").into()),
        };
        // A zero norm gives zeros, not 0 / 0.
        let (_, dtype) = self.shape_of(x)?;
        let zero = e.scalar(self, dtype, 0.0)?;
        let is_zero = e.op(self, "Equal", &[&norm, &zero], vec![])?;
        let quotient = e.op(self, "Div", &[x, &norm], vec![])?;
        let y = e.op(self, "Where", &[&is_zero, &zero, &quotient], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `DepthToSpace` and `SpaceToDepth`.
    pub(crate) fn depth_space(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, _) = self.shape_of(x)?;
        let b = int(node, "blocksize", 0);
        let &[n, c, h, w] = shape.as_slice() else {
            return Err(format!("{} expects an N x C x H x W input, got {shape:?}", node.op_type()).into());
        };
        if !(1..=1 << 16).contains(&b) || [n, c, h, w].iter().any(|&d| d > 1 << 40) {
            return Err(format!("blocksize {b} must be in 1..=65536 (and the input of a sane size)").into());
        }
        let crd = attribute(node, "mode").is_some_and(|a| a.s() == b"CRD");
        let (first, perm, last): (Vec<i64>, &[i64], Vec<i64>) = if node.op_type() == "DepthToSpace" {
            if c % (b * b) != 0 {
                return Err(format!("channels {c} are not a multiple of blocksize^2 = {}", b * b).into());
            }
            let out = vec![n, c / (b * b), h * b, w * b];
            if crd {
                (vec![n, c / (b * b), b, b, h, w], &[0, 1, 4, 2, 5, 3], out)
            } else {
                (vec![n, b, b, c / (b * b), h, w], &[0, 3, 4, 1, 5, 2], out)
            }
        } else {
            if h % b != 0 || w % b != 0 {
                return Err(format!("height {h} and width {w} must be multiples of blocksize {b}").into());
            }
            let out = vec![n, c * b * b, h / b, w / b];
            let perm: &[i64] = if crd { &[0, 1, 3, 5, 2, 4] } else { &[0, 3, 5, 1, 2, 4] };
            (vec![n, c, h / b, b, w / b, b], perm, out)
        };
        let mut e = Expansion::new(block, node, index);
        let first = e.ints(self, &first);
        let split = e.op(self, "Reshape", &[x, &first], vec![])?;
        let moved = e.op(self, "Transpose", &[&split], vec![attr_ints("perm", perm)])?;
        let last = e.ints(self, &last);
        let y = e.op(self, "Reshape", &[&moved, &last], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `CenterCropPad`: each listed axis cropped or padded (zeros) to its target, centred.
    pub(crate) fn center_crop_pad(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, _) = self.shape_of(x)?;
        let target = self.constant_ints(required(node, 1)?)?;
        let rank = shape.len() as i64;
        let axes: Vec<usize> = match ints(node, "axes") {
            Some(axes) => axes.iter().map(|&a| shapes::axis(a, rank)).collect::<Result<_, _>>()?,
            None => (0..shape.len()).collect(),
        };
        if axes.len() != target.len() {
            return Err(format!("{} target sizes for {} axes", target.len(), axes.len()).into());
        }
        let mut e = Expansion::new(block, node, index);
        let mut value = x.to_owned();
        for (&axis, &size) in axes.iter().zip(&target) {
            let dim = shape[axis];
            if size < dim {
                let start = (dim - size) / 2;
                let (starts, ends, which) =
                    (e.ints(self, &[start]), e.ints(self, &[start + size]), e.ints(self, &[axis as i64]));
                value = e.op(self, "Slice", &[&value, &starts, &ends, &which], vec![])?;
            } else if size > dim {
                let before = (size - dim) / 2;
                let mut pads = vec![0; 2 * shape.len()];
                pads[axis] = before;
                pads[axis + shape.len()] = size - dim - before;
                let pads = e.ints(self, &pads);
                value = e.op(self, "Pad", &[&value, &pads], vec![])?;
            }
        }
        self.alias(&value, node.output[0].clone())
    }

    /// `Trilu`: the upper (j - i >= k) or lower (j - i <= k) triangle of the last two axes.
    pub(crate) fn trilu(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        if shape.len() < 2 {
            return Err(format!("Trilu needs at least 2 dimensions, got {shape:?}").into());
        }
        let k = match operand(node, 1) {
            Some(name) => *self.constant_ints(name)?.first().ok_or("k is empty")?,
            None => 0,
        };
        let upper = int(node, "upper", 1) != 0;
        let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
        let count = shapes::numel(&[rows, cols])? as usize;
        let mask: Vec<u8> = (0..count)
            .map(|flat| {
                let (i, j) = ((flat / cols.max(1) as usize) as i64, (flat % cols.max(1) as usize) as i64);
                u8::from(if upper { j - i >= k } else { j - i <= k })
            })
            .collect();
        let mut e = Expansion::new(block, node, index);
        let mask = e.constant(self, Folded { shape: vec![rows, cols], dtype: DataType::Bool, bytes: mask })?;
        let zero = e.scalar(self, dtype, 0.0)?;
        let y = e.op(self, "Where", &[&mask, x, &zero], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `OneHot`: `on` where an index (negative ones counting from `depth`) equals the position
    /// along `axis`, `off` elsewhere.
    pub(crate) fn one_hot(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (indices, depth, values) = (required(node, 0)?, required(node, 1)?, required(node, 2)?);
        let (shape, index_type) = self.shape_of(indices)?;
        let depth = self
            .folded(depth)
            .ok_or_else(|| Error::unsupported("OneHot depth computed at run time (it is the output's size)"))?
            .scalar("the depth")? as i64;
        if depth < 1 {
            return Err(format!("depth {depth} must be positive").into());
        }
        let axis = shapes::axis(int(node, "axis", -1), shape.len() as i64 + 1)?;
        let mut e = Expansion::new(block, node, index);
        let mut idx = indices.to_owned();
        if index_type != DataType::Int64 {
            idx = e.op(self, "Cast", &[&idx], vec![attr_i("to", DataType::Int64 as i64)])?;
        }
        // Negative indices count from the end.
        let zero = e.scalar(self, DataType::Int64, 0.0)?;
        let negative = e.op(self, "Less", &[&idx, &zero], vec![])?;
        let depth_value = e.scalar(self, DataType::Int64, depth as f64)?;
        let wrapped = e.op(self, "Add", &[&idx, &depth_value], vec![])?;
        let idx = e.op(self, "Where", &[&negative, &wrapped, &idx], vec![])?;
        let at = e.ints(self, &[axis as i64]);
        let idx = e.op(self, "Unsqueeze", &[&idx, &at], vec![])?;
        let mut range_shape = vec![1; shape.len() + 1];
        range_shape[axis] = depth;
        let positions: Vec<i64> = (0..depth).collect();
        let range = e.constant(self, Folded::from_i64(range_shape, &positions))?;
        let hit = e.op(self, "Equal", &[&idx, &range], vec![])?;
        let pick = |e: &mut Expansion, this: &mut Self, k: i64| -> Result<String, Error> {
            let (start, end, axes) = (e.ints(this, &[k]), e.ints(this, &[k + 1]), e.ints(this, &[0]));
            let one = e.op(this, "Slice", &[values, &start, &end, &axes], vec![])?;
            let scalar = e.ints(this, &[]);
            e.op(this, "Reshape", &[&one, &scalar], vec![])
        };
        let off = pick(&mut e, self, 0)?;
        let on = pick(&mut e, self, 1)?;
        let y = e.op(self, "Where", &[&hit, &on, &off], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `LpPool`, as ONNX's reference computes it.
    pub(crate) fn lp_pool(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (_, dtype) = self.shape_of(x)?;
        let p = int(node, "p", 2);
        let kernel = ints(node, "kernel_shape").ok_or("LpPool needs kernel_shape")?;
        let count: i64 = kernel.iter().product();
        let mut e = Expansion::new(block, node, index);
        let magnitude = e.op(self, "Abs", &[x], vec![])?;
        let exponent = e.scalar(self, dtype, p as f64)?;
        let powered = e.op(self, "Pow", &[&magnitude, &exponent], vec![])?;
        let attributes: Vec<_> = node
            .attribute
            .iter()
            .filter(|a| {
                matches!(a.name(), "auto_pad" | "ceil_mode" | "dilations" | "kernel_shape" | "pads" | "strides")
            })
            .cloned()
            .collect();
        let mut attributes = attributes;
        attributes.push(attr_i("count_include_pad", 1));
        let average = e.op(self, "AveragePool", &[&powered], attributes)?;
        let size = e.scalar(self, dtype, count as f64)?;
        let sum = e.op(self, "Mul", &[&average, &size], vec![])?;
        let root = e.scalar(self, dtype, 1.0 / p as f64)?;
        let y = e.op(self, "Pow", &[&sum, &root], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `HannWindow`, `HammingWindow`, `BlackmanWindow` of a constant size, and `EyeLike`:
    /// constants.
    pub(crate) fn constant_op(&mut self, node: &NodeProto) -> Result<(), Error> {
        let folded = match node.op_type() {
            "EyeLike" => {
                let (shape, input_type) = self.shape_of(required(node, 0)?)?;
                let &[rows, cols] = shape.as_slice() else {
                    return Err(format!("EyeLike needs a 2-D input, got {shape:?}").into());
                };
                let dtype = match attribute(node, "dtype") {
                    Some(a) => DataType::try_from(a.i() as i32).map_err(|_| "EyeLike dtype is unknown")?,
                    None => input_type,
                };
                let k = int(node, "k", 0);
                let values: Vec<f64> =
                    (0..rows * cols).map(|f| if f % cols - f / cols == k { 1.0 } else { 0.0 }).collect();
                crate::fold::from_f64(shape, dtype, &values)?
            }
            window => {
                let size = self
                    .folded(required(node, 0)?)
                    .ok_or_else(|| Error::unsupported(format!("{window} of a size computed at run time")))?
                    .scalar("the window size")? as i64;
                if !(0..=crate::fold::FOLD_LIMIT).contains(&size) {
                    return Err(format!("window size {size} is out of range").into());
                }
                let periodic = int(node, "periodic", 1) != 0;
                let denominator = if periodic { size } else { size - 1 } as f64;
                let tau = std::f64::consts::TAU;
                let values: Vec<f64> = (0..size)
                    .map(|n| {
                        let x = tau * n as f64 / denominator.max(1.0);
                        match window {
                            "HannWindow" => 0.5 - 0.5 * x.cos(),
                            "HammingWindow" => 25.0 / 46.0 - (21.0 / 46.0) * x.cos(),
                            _ => 0.42 - 0.5 * x.cos() + 0.08 * (2.0 * x).cos(),
                        }
                    })
                    .collect();
                let dtype = DataType::try_from(int(node, "output_datatype", 1) as i32)
                    .map_err(|_| "output_datatype is unknown")?;
                crate::fold::from_f64(vec![size], dtype, &values)?
            }
        };
        self.define_constant(node, folded)?;
        Ok(())
    }
}

impl Importer<'_> {
    /// `SwiGLU` (opset 28): `A * sigmoid(alpha * A) * B`, A and B of one shape.
    pub(crate) fn swiglu(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let (a, b) = (required(node, 0)?, required(node, 1)?);
        let ((a_shape, dtype), (b_shape, b_type)) = (self.shape_of(a)?, self.shape_of(b)?);
        if a_shape != b_shape || dtype != b_type {
            return Err(Error::invalid_input(format!(
                "A ({a_shape:?}) and B ({b_shape:?}) must have one shape and element type (no broadcasting)"
            )));
        }
        let alpha = crate::import::attribute(node, "alpha").map_or(1.0, |a| a.f() as f64);
        let mut e = Expansion::new(block, node, index);
        let scaled = if alpha == 1.0 {
            a.to_owned()
        } else {
            let alpha = e.scalar(self, dtype, alpha)?;
            e.op(self, "Mul", &[a, &alpha], vec![])?
        };
        let gate = e.op(self, "Sigmoid", &[&scaled], vec![])?;
        let swish = e.op(self, "Mul", &[a, &gate], vec![])?;
        let output = e.op(self, "Mul", &[&swish, b], vec![])?;
        self.alias(&output, node.output[0].clone())
    }
}
