//! Spectral operators as matrix products with constant twiddle matrices, computed at import:
//! `DFT` (opsets 17 and 20: forward or inverse, one-sided, complex or real input, any
//! signal axis, `dft_length` padding or truncating), `STFT` (frames gathered by a constant
//! index table, windowed, then a one-sided or full DFT of each frame). Following ONNX's reference (NumPy's FFT):
//! forward `X[k] = sum_n x[n] e^(-2 pi i n k / L)`, inverse `(1/L) sum_k X[k] e^(+2 pi i n k / L)`,
//! the one-sided inverse completing the spectrum by Hermitian symmetry.
//!
//! A DFT of length L is O(L^2) multiply-adds this way (one matmul per real/imaginary part)
//! instead of an FFT's O(L log L): exact and simple, and fast for the frame lengths of
//! speech front-ends (a few hundred), where it runs as one well-vectorised matmul.

use crate::expand::{attr_i, attr_ints, Expansion};
use crate::fold::{from_f64, Folded};
use crate::import::{int, operand, required, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::Block;
use std::f64::consts::PI;
use strata_ir::Error;

/// The most entries a twiddle matrix may have (each of the two is this many constants).
const MAX_TWIDDLES: i64 = 1 << 24;

/// What one DFT computes.
#[derive(Clone, Copy)]
struct Transform {
    /// The signal's length along the axis (entries beyond `length` are dropped).
    input: i64,
    /// The DFT length L.
    length: i64,
    inverse: bool,
    onesided: bool,
}

impl Transform {
    /// How many values the output has along the axis.
    fn outputs(self) -> i64 {
        match (self.inverse, self.onesided) {
            (false, true) => self.length / 2 + 1,
            _ => self.length,
        }
    }

    /// The matrices `(from real, from imaginary)` to `(real, imaginary)` outputs, each
    /// `[input, outputs]`, row-major, as f64: `out_re = re * rr + im * ir`, `out_im = re * ri
    /// + im * ii`.
    fn matrices(self) -> [Vec<f64>; 4] {
        let (n_in, n_out, l) = (self.input, self.outputs(), self.length);
        let size = (n_in * n_out) as usize;
        let (mut rr, mut ir, mut ri, mut ii) = (vec![0.0; size], vec![0.0; size], vec![0.0; size], vec![0.0; size]);
        for n in 0..n_in {
            for k in 0..n_out {
                let at = (n * n_out + k) as usize;
                if self.inverse && self.onesided {
                    // Input bin n (only the first L/2 + 1 count), output sample k, real.
                    if n > l / 2 {
                        continue;
                    }
                    let weight = if n == 0 || (l % 2 == 0 && n == l / 2) { 1.0 } else { 2.0 };
                    let angle = 2.0 * PI * ((n * k) % l) as f64 / l as f64;
                    rr[at] = weight * angle.cos() / l as f64;
                    ir[at] = -weight * angle.sin() / l as f64;
                    continue;
                }
                if n >= l {
                    continue;
                }
                let angle = 2.0 * PI * ((n * k) % l) as f64 / l as f64;
                let (c, s) = (angle.cos(), angle.sin());
                // e^(-i angle) forward, e^(+i angle) / L inverse.
                let (sign, scale) = if self.inverse { (1.0, 1.0 / l as f64) } else { (-1.0, 1.0) };
                rr[at] = c * scale;
                ir[at] = -sign * s * scale;
                ri[at] = sign * s * scale;
                ii[at] = c * scale;
            }
        }
        [rr, ir, ri, ii]
    }
}

impl Importer<'_> {
    /// The DFT of `x` (`[..., 1 or 2]`) along `axis` (not the last).
    fn transform(
        &mut self,
        e: &mut Expansion,
        x: &str,
        axis: usize,
        transform: Transform,
        dtype: DataType,
    ) -> Result<String, Error> {
        let (shape, _) = self.shape_of(x)?;
        let rank = shape.len();
        let complex = match shape.last() {
            Some(1) => false,
            Some(2) => true,
            _ => {
                return Err(Error::invalid_input(format!("the last axis of {shape:?} must be 1 (real) or 2 (complex)")))
            }
        };
        if transform.length < 1 || transform.input.saturating_mul(transform.outputs()) > MAX_TWIDDLES {
            return Err(Error::unsupported(format!(
                "a DFT of length {} over {} values (at most 2^24 twiddles)",
                transform.length, transform.input
            )));
        }
        // [..., axis moved last] for the real and imaginary parts.
        let mut perm: Vec<i64> = (0..rank as i64 - 1).filter(|&d| d != axis as i64).collect();
        perm.push(axis as i64);
        // Products accumulate in f64 (cancelling terms cancel to the reference's zeros) and
        // round once to the element type.
        let wide = DataType::Double;
        let part = |e: &mut Expansion, this: &mut Self, k: i64| -> Result<String, Error> {
            let (start, end, last) = (e.ints(this, &[k]), e.ints(this, &[k + 1]), e.ints(this, &[-1]));
            let sliced = e.op(this, "Slice", &[x, &start, &end, &last], vec![])?;
            let squeezed = e.op(this, "Squeeze", &[&sliced, &last], vec![])?;
            let moved = e.op(this, "Transpose", &[&squeezed], vec![attr_ints("perm", &perm)])?;
            if dtype == wide {
                return Ok(moved);
            }
            e.op(this, "Cast", &[&moved], vec![attr_i("to", wide as i64)])
        };
        let re = part(e, self, 0)?;
        let im = if complex { Some(part(e, self, 1)?) } else { None };
        let [rr, ir, ri, ii] = transform.matrices();
        let matrix_shape = vec![transform.input, transform.outputs()];
        let product = |e: &mut Expansion, this: &mut Self, input: &str, m: &[f64]| -> Result<String, Error> {
            let m = e.constant(this, from_f64(matrix_shape.clone(), wide, m)?)?;
            e.op(this, "MatMul", &[input, &m], vec![])
        };
        let real_output = transform.inverse && transform.onesided;
        let mut out_re = product(e, self, &re, &rr)?;
        let mut out_im = if real_output { None } else { Some(product(e, self, &re, &ri)?) };
        if let Some(im) = &im {
            let from_im = product(e, self, im, &ir)?;
            out_re = e.op(self, "Add", &[&out_re, &from_im], vec![])?;
            if let Some(acc) = out_im {
                let from_im = product(e, self, im, &ii)?;
                out_im = Some(e.op(self, "Add", &[&acc, &from_im], vec![])?);
            }
        }
        // Back to the input's axis order, the parts stacked on a new last axis.
        let mut inverse_perm = vec![0i64; rank - 1];
        for (position, &d) in perm.iter().enumerate() {
            inverse_perm[d as usize] = position as i64;
        }
        let last = e.ints(self, &[-1]);
        let mut parts = Vec::new();
        for value in std::iter::once(out_re).chain(out_im) {
            let value =
                if dtype == wide { value } else { e.op(self, "Cast", &[&value], vec![attr_i("to", dtype as i64)])? };
            let back = e.op(self, "Transpose", &[&value], vec![attr_ints("perm", &inverse_perm)])?;
            parts.push(e.op(self, "Unsqueeze", &[&back, &last], vec![])?);
        }
        if parts.len() == 1 {
            return Ok(parts.remove(0));
        }
        e.op(self, "Concat", &[&parts[0], &parts[1]], vec![attr_i("axis", -1)])
    }

    /// A scalar integer operand that must be a constant.
    fn constant_scalar(&self, node: &NodeProto, k: usize, what: &str) -> Result<Option<i64>, Error> {
        match operand(node, k) {
            Some(name) => {
                let value = self.known(name, what)?;
                Ok(Some(value.ints()?.first().copied().ok_or_else(|| format!("{what} is empty"))?))
            }
            None => Ok(None),
        }
    }

    pub(crate) fn dft(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let rank = shape.len() as i64;
        let axis =
            if self.opset >= 20 { self.constant_scalar(node, 2, "axis")?.unwrap_or(-2) } else { int(node, "axis", 1) };
        if axis < -rank || axis >= rank - 1 || (axis < 0 && axis + rank >= rank - 1) {
            return Err(Error::invalid_input(format!(
                "axis {axis} must name a signal axis of {shape:?} (not the last)"
            )));
        }
        let axis = (if axis < 0 { axis + rank } else { axis }) as usize;
        let inverse = int(node, "inverse", 0) != 0;
        let onesided = int(node, "onesided", 0) != 0;
        if onesided && !inverse && shape.last() == Some(&2) {
            return Err(Error::invalid_input("a one-sided forward DFT takes a real signal"));
        }
        let length = match self.constant_scalar(node, 1, "dft_length")? {
            Some(n) => n,
            None if inverse && onesided => 2 * (shape[axis] - 1),
            None => shape[axis],
        };
        let mut e = Expansion::new(block, node, index);
        let transform = Transform { input: shape[axis], length, inverse, onesided };
        let output = self.transform(&mut e, x, axis, transform, dtype)?;
        self.alias(&output, node.output[0].clone())
    }

    pub(crate) fn stft(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let [_, samples, channels] = shape[..] else {
            return Err(Error::invalid_input(format!("the signal must be [batch, length, 1 or 2], got {shape:?}")));
        };
        let step = self.constant_scalar(node, 1, "frame_step")?.ok_or("STFT needs frame_step")?;
        let window = operand(node, 2);
        let window_length = window.map(|w| self.shape_of(w).map(|(s, _)| s)).transpose()?;
        let length = match (self.constant_scalar(node, 3, "frame_length")?, &window_length) {
            (Some(n), _) => n,
            (None, Some(w)) => *w.first().ok_or("the window must be 1-D")?,
            (None, None) => samples,
        };
        if window_length.as_ref().is_some_and(|w| w[..] != [length]) {
            return Err(Error::invalid_input(format!("the window must have frame_length = {length} values")));
        }
        if step < 1 || length < 1 || length > samples || length > 1 << 16 {
            return Err(Error::invalid_input(format!(
                "frame_step {step} and frame_length {length} must be positive, the frame no longer than the signal ({samples})"
            )));
        }
        let onesided = int(node, "onesided", 1) != 0;
        if onesided && channels == 2 {
            return Err(Error::invalid_input("a one-sided STFT takes a real signal"));
        }
        let frames = 1 + (samples - length) / step;
        if frames.saturating_mul(length) > MAX_TWIDDLES {
            return Err(Error::unsupported(format!("{frames} frames of {length} samples (at most 2^24 in all)")));
        }
        let transform = Transform { input: length, length, inverse: false, onesided };
        let mut e = Expansion::new(block, node, index);
        let window_values = match window {
            Some(w) => self.folded(w).map(|w| w.floats()).transpose()?,
            None => Some(vec![1.0; length as usize]),
        };
        if let (Some(window), DataType::Float | DataType::Double) = (window_values, dtype) {
            let output = self.stft_as_convolution(&mut e, x, channels, step, &window, transform, dtype)?;
            return self.alias(&output, node.output[0].clone());
        }
        // [batch, frames, length, channels] by one gather of the frames' sample positions.
        let positions: Vec<i64> = (0..frames).flat_map(|f| (0..length).map(move |t| f * step + t)).collect();
        let table = e.constant(self, Folded::from_i64(vec![frames, length], &positions))?;
        let mut framed = e.op(self, "Gather", &[x, &table], vec![attr_i("axis", 1)])?;
        if let Some(window) = window {
            let shape = e.ints(self, &[1, 1, length, 1]);
            let window = e.op(self, "Reshape", &[window, &shape], vec![])?;
            framed = e.op(self, "Mul", &[&framed, &window], vec![])?;
        }
        let output = self.transform(&mut e, &framed, 2, transform, dtype)?;
        self.alias(&output, node.output[0].clone())
    }

    /// An STFT with a constant window as one strided convolution of the signal (2-D over
    /// `[samples, 1]`, as 1-D ones are imported): the window times the DFT matrix is the
    /// filter (`[2 * bins, channels, frame, 1]`, the real parts' filters first), the frame step
    /// its stride. No framed, windowed or widened copy of the signal exists, and the output is
    /// read as `[batch, frames, bins, 2]` through a reshape and a transpose, both views.
    /// Products accumulate in the element type, as ONNX Runtime's FFT does.
    #[allow(clippy::too_many_arguments)]
    fn stft_as_convolution(
        &mut self,
        e: &mut Expansion,
        x: &str,
        channels: i64,
        step: i64,
        window: &[f64],
        transform: Transform,
        dtype: DataType,
    ) -> Result<String, Error> {
        let (frame, bins) = (transform.length, transform.outputs());
        // No padding to whole vectors: the host schedule blocks the filters that fill them and
        // runs the few left apart (`conv_split::filter_split`), so the output is the spectrum.
        let filters = 2 * bins;
        let [rr, ir, ri, ii] = transform.matrices();
        // filter[p * bins + k][c][n]: input part c of sample n into output part p of bin k.
        let mut filter = vec![0.0; (filters * channels * frame) as usize];
        for (p, from) in [[&rr, &ir], [&ri, &ii]].into_iter().enumerate() {
            for k in 0..bins {
                for (c, m) in from.iter().take(channels as usize).enumerate() {
                    for (n, w) in window.iter().enumerate() {
                        let at = ((p as i64 * bins + k) * channels + c as i64) * frame + n as i64;
                        filter[at as usize] = w * m[n * bins as usize + k as usize];
                    }
                }
            }
        }
        // A 2-D convolution over [samples, 1], as 1-D ones are imported, with its filter
        // constant in that shape (a constant filter is laid out for the SIMD lanes at compile
        // time).
        let filter = e.constant(self, from_f64(vec![filters, channels, frame, 1], dtype, &filter)?)?;
        // [batch, samples, channels] as an image [batch, channels, samples, 1] (a real signal's
        // samples are in that order already).
        let (shape, _) = self.shape_of(x)?;
        let signal = if channels == 1 {
            x.to_string()
        } else {
            e.op(self, "Transpose", &[x], vec![attr_ints("perm", &[0, 2, 1])])?
        };
        let image = e.ints(self, &[shape[0], channels, shape[1], 1]);
        let signal = e.op(self, "Reshape", &[&signal, &image], vec![])?;
        let spectrum = e.op(
            self,
            "Conv",
            &[&signal, &filter],
            vec![attr_ints("kernel_shape", &[frame, 1]), attr_ints("strides", &[step, 1])],
        )?;
        let (shape, _) = self.shape_of(&spectrum)?;
        let parts = e.ints(self, &[shape[0], 2, bins, shape[2]]);
        let parts = e.op(self, "Reshape", &[&spectrum, &parts], vec![])?;
        e.op(self, "Transpose", &[&parts], vec![attr_ints("perm", &[0, 3, 2, 1])])
    }
}

impl Importer<'_> {
    /// `MelWeightMatrix`: the triangular mel filters over the one-sided spectrogram bins,
    /// folded to a constant (ONNX's reference: HTK mel scale, bins rounded down).
    pub(crate) fn mel_weight_matrix(&mut self, node: &NodeProto) -> Result<(), Error> {
        let scalar = |k: usize, what: &str| -> Result<f64, Error> {
            let name = required(node, k)?;
            self.known(name, what)?.scalar(what)
        };
        let bins = scalar(0, "num_mel_bins")? as i64;
        let dft_length = scalar(1, "dft_length")? as i64;
        let sample_rate = scalar(2, "sample_rate")? as i64;
        let (low, high) = (scalar(3, "lower_edge_hertz")?, scalar(4, "upper_edge_hertz")?);
        if !(1..=1 << 12).contains(&bins) || !(1..=1 << 20).contains(&dft_length) || sample_rate < 1 {
            return Err(Error::invalid_input(format!(
                "num_mel_bins {bins}, dft_length {dft_length} and sample_rate {sample_rate} must be positive (and sane)"
            )));
        }
        let spectrogram = dft_length / 2 + 1;
        let mel = |hz: f64| 2595.0 * (hz / 700.0).ln_1p() / 10f64.ln();
        let (low_mel, high_mel) = (mel(low), mel(high));
        let step = (high_mel - low_mel) / (bins + 2) as f64;
        let edges: Vec<i64> = (0..bins + 2)
            .map(|i| {
                let hz = 700.0 * ((i as f64 * step + low_mel) / 2595.0 * 10f64.ln()).exp_m1();
                ((dft_length + 1) as f64 * hz / sample_rate as f64).floor() as i64
            })
            .collect();
        if edges.iter().any(|&b| b < 0 || b >= spectrogram) {
            return Err(Error::invalid_input(format!(
                "the filters' edges {edges:?} fall outside the {spectrogram} spectrogram bins (check the edges in hertz)"
            )));
        }
        let mut weights = vec![0.0; (spectrogram * bins) as usize];
        for i in 0..bins as usize {
            let (left, centre, right) = (edges[i], edges[i + 1], edges[i + 2]);
            let at = |j: i64| j as usize * bins as usize + i;
            if centre == left {
                weights[at(centre)] = 1.0;
            } else {
                for j in left..=centre {
                    weights[at(j)] = (j - left) as f64 / (centre - left) as f64;
                }
            }
            if right > centre {
                for j in centre..right {
                    weights[at(j)] = (right - j) as f64 / (right - centre) as f64;
                }
            }
        }
        let dtype = DataType::try_from(int(node, "output_datatype", DataType::Float as i64) as i32)
            .map_err(|_| Error::invalid_input("unknown output_datatype"))?;
        self.define_constant(node, from_f64(vec![spectrogram, bins], dtype, &weights)?)?;
        Ok(())
    }
}
