//! `strata-vectorize-depthwise{vector-lanes threads}`: the f32 depthwise convolutions
//! (`linalg.depthwise_conv_2d_nchw_chw` on buffers, after planning) and max and sum pools
//! (`linalg.pooling_nchw_max` / `_sum`: the same loops with a maximum or a plain sum per tap
//! instead of a multiply-add) as register-blocked vector loops with the output width in the
//! lanes (recipe 3 of `../shared/notes/cpu-codegen.md`).
//!
//! Per channel, the KH x KW weights are broadcast into vectors once; the output is walked in
//! blocks of 8 rows (4 at a width stride of 2) x one vector of `vector-lanes` columns whose
//! accumulators (seeded from the
//! output, which holds the bias; or from the bias itself when a kernel filling the whole
//! output with it comes right before, which then goes: [`bias_fill`]) stay in registers
//! through the window: one input load and one fused multiply-add per tap and row (LLVM shares
//! the loads that neighbouring rows repeat). Stride 1 along the width reads contiguous
//! vectors; stride 2 reads two vectors' worth and keeps the even lanes (one shuffle); the last
//! partial vector of a row is masked. The rows a loop of blocks does not take (the remainder,
//! the rows at the padding, all of a map too small for the loop) run in blocks at constant rows:
//! one row at a time, each tap's multiply-add waited for the last (MobileNetV3-Small's 7 x 7
//! depthwise convolutions 0.055 -> 0.021 ms, its kernels 0.95 -> 0.82 ms on one thread).
//!
//! With the padding implicit (a `linalg.generic` marked `strata.implicit_pads` by
//! `strata-implicit-pads`, whose input is the unpadded value its body loads), output rows whose
//! windows reach past the input's rows leave those taps out (in blocks at constant rows), and column
//! blocks whose reads reach before or past the row each on their own at a constant column: the
//! read starts inside the row, masked to its end by a constant mask, and the lanes before the
//! row come from the zero vector (a max pool's: -inf, as do the masked-off lanes) in the same
//! shuffle that keeps a strided read's lanes. A pool's accumulators start from its identity
//! when a fill of the output with it comes right before, which then goes ([`identity_fill`]). Only
//! the blocks whose every read lies inside the row run in the loop (plain loads): for a padded
//! input too, where a strided read's last, unneeded element past the row had made every block's
//! loads masked.
//!
//! A full convolution over an image's few channels with implicit padding (a stem, see
//! [`MAX_FULL_CHANNELS`]) takes the same loops with the output's filters in blocks: each input
//! vector feeds a block of filters (8 x 2 rows on AVX-512), the input channels a rolled loop
//! carrying the accumulators so that each tap's weight is loaded and broadcast where it is
//! used, and the filter blocks inside each row block (on one thread) so that the input rows are
//! read again while in the cache. A grouped convolution of few channels a group is the same
//! kernel, each block of filters reading its group's channels. Inside the channel loop, the
//! kernel rows that every row of a block reads inside the input are a rolled loop too (all of
//! them in the loop of row blocks; those reading the padding written out around it, so each
//! row still sums its taps in order): YOLOv8n's two stems 7.7K -> 4.1K LLVM instructions, the
//! same speed.
//!
//! With `threads` above 1 and enough work (2^16 multiply-adds; a stem 2^19) the channels (a
//! stem's filter blocks) are an `scf.forall` (OpenMP threads), split as their producer split them.
//!
//! Left to the loop-order schedule, MobileNetV2's depthwise convolutions ran at 7-8 GFLOP/s
//! (strided ones read every other element through scalar loads): 2x ONNX Runtime.
//!
//! `strata-cpu-schedule` leaves the convolutions this pass takes as named ops
//! ([`handles`]: static f32 NCHW, width stride 1 or 2, any height stride and dilation, the
//! padding already applied by the producer's padded buffer, or implicit); the others keep their
//! loop order.

use crate::depthwise_fusion::{bias_fill, epilogue, identity_fill, nan_max, Epilogue};
use crate::pool_rows::RowPool;
use crate::text_kernels::{element, replace_kernels_with, unit_inner_stride, ROLLED};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::nn::pair_attribute;
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-depthwise",
    summary: "Depthwise convolutions and max/sum pools (f32, NCHW) as register-blocked vector loops, output width in the lanes",
    anchor: "builtin.module",
    options: &[crate::vectorize_elementwise::VECTOR_LANES_OPTION, crate::cpu_schedule::THREADS_OPTION],
    statistics: &[
        StatisticInfo { name: "convolutions", help: "Depthwise convolutions and pools vectorised" },
        StatisticInfo { name: "bias-fills", help: "Bias fills of an output folded into its convolution's accumulators" },
        StatisticInfo { name: "identity-fills", help: "Fills of a pool's output with -inf or zero folded into its accumulators" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeDepthwise { lanes: options.int("vector-lanes").max(4), threads: options.int("threads") })
}

struct VectorizeDepthwise {
    lanes: i64,
    threads: i64,
}

/// Output rows per register block.
const ROWS: i64 = 4;

/// What a window computes: a depthwise convolution's weighted sum, a max pool's maximum, a
/// sum pool's sum (an average pool's, before its division).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reduce {
    Weighted,
    Max,
    Sum,
}

impl Reduce {
    /// The value a window may read outside the input without changing its result: a maximum's
    /// -inf, zero for a sum or a weighted sum.
    pub fn identity(self) -> f64 {
        if self == Reduce::Max {
            f64::NEG_INFINITY
        } else {
            0.0
        }
    }

    /// [`Reduce::identity`] as an MLIR f32 literal.
    pub fn identity_literal(self) -> &'static str {
        if self == Reduce::Max {
            "0xFF800000"
        } else {
            "0.000000e+00"
        }
    }
}

/// A depthwise convolution's (or pool's) shapes: input `[n, c, ih, iw]` (padded, or unpadded
/// with `pads`), filter `[c, kh, kw]` (a pool's window `[kh, kw]`, taken as `[c, kh, kw]`),
/// output `[n, c, oh, ow]`, strides and dilations `(h, w)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Depthwise {
    reduce: Reduce,
    input: Vec<i64>,
    filter: Vec<i64>,
    output: Vec<i64>,
    strides: [i64; 2],
    dilations: [i64; 2],
    /// Zero padding the windows read before the input's first row and column (top, left)
    /// without it being stored (`strata-implicit-pads`); past the input's last row and column
    /// they read zeros too. `[0, 0]` for a named op, whose input is the padded buffer.
    pads: [i64; 2],
    /// A full convolution over few input channels (a stem: filter `[F, C, KH, KW]`), with
    /// implicit padding only.
    full: bool,
    /// A full convolution's groups: `C / G` input channels (the filter's second dimension)
    /// and `F / G` filters each (1: a stem).
    groups: i64,
}

impl Depthwise {
    /// Whether this is a full convolution (a stem or a grouped one), not a depthwise one or a
    /// pool: its blocks read every input channel (of their group).
    pub(crate) fn is_full(&self) -> bool {
        self.full
    }
}

/// The most input channels of a stem (a full convolution of one group) the kernel takes: an
/// image's (RGB, RGBA). Each input load feeds a block of filters; with more channels the
/// register-blocked convolutions of `strata-cpu-schedule` do better. A grouped convolution
/// is taken whatever its groups' sizes: `strata-cpu-schedule`'s grouped blocks ran 2.4-3.4x
/// slower at stride 1 (ResNeXt-50's groups of 4 to 32 channels: 0.34 -> 0.14 ms for 8 at 28
/// x 28, 0.80 -> 0.24 for 32 at 7 x 7) and take no column stride (a scalar loop nest: 3.0-3.5
/// ms -> 0.14-0.27 at stride 2).
pub const MAX_FULL_CHANNELS: i64 = 4;

/// The most taps (input channels x window) of a stem the kernel takes: a 3 x 3 window over
/// RGBA (4-channel stems of 8-16 filters ran 1.2-2.4x faster than in the register-blocked
/// schedule, over banded padded copies). ResNet's 7 x 7 stem (147 taps, 64 filters) ran 4x
/// slower than the register-blocked schedule's filter lanes (7.6 against 1.8 ms standalone):
/// every weight is a broadcast load, and 64 filters leave that schedule whole vectors of them.
pub const MAX_FULL_TAPS: i64 = 36;

/// The most filters of a stem the kernel takes. With more, the register-blocked
/// schedule puts whole vectors of filters in the lanes and does better: MobileNetV2's stem
/// (32 filters) took 0.30 ms in the kernel against 0.26 for its padded copy and the schedule's,
/// where MobileNetV3-Small's (16) went from 0.21 (banded) to 0.13 and the text detector's from
/// 0.044 to 0.029.
pub const MAX_FULL_FILTERS: i64 = 16;

/// The convolution `op` is, when this pass vectorises it (tensors or buffers): a named
/// depthwise convolution or pool, or a depthwise convolution with implicit padding
/// ([`implicit`]).
pub fn handles(op: OperationRef<'_, '_>) -> Option<Depthwise> {
    let reduce = match strata_ir::ods::op_name(op).as_str() {
        "linalg.depthwise_conv_2d_nchw_chw" => Reduce::Weighted,
        "linalg.pooling_nchw_max" => Reduce::Max,
        "linalg.pooling_nchw_sum" => Reduce::Sum,
        "linalg.generic" => return implicit(strata_ir::Op::of(&op)).map(|(conv, _)| conv),
        _ => return None,
    };
    if op.operand_count() != 3 {
        return None;
    }
    let shape = |i: usize| -> Option<Vec<i64>> {
        let ty = op.operand(i).ok()?.r#type();
        // A pool's window is read for its shape only.
        if reduce != Reduce::Weighted && i == 1 {
            return static_shape(ty).ok();
        }
        f32_shape(ty)
    };
    let (input, mut filter, output) = (shape(0)?, shape(1)?, shape(2)?);
    if reduce != Reduce::Weighted && filter.len() == 2 {
        filter.insert(0, input[1]);
    }
    let conv_op = strata_ir::Op::of(&op);
    let (strides, dilations) = (pair_attribute(conv_op, "strides")?, pair_attribute(conv_op, "dilations")?);
    let conv = Depthwise { reduce, input, filter, output, strides, dilations, pads: [0, 0], full: false, groups: 1 };
    // The padded input holds every window.
    let inside = |conv: &Depthwise| {
        (conv.output[2] - 1) * strides[0] + (conv.filter[1] - 1) * dilations[0] < conv.input[2]
            && (conv.output[3] - 1) * strides[1] + (conv.filter[2] - 1) * dilations[1] < conv.input[3]
    };
    (conv.fits() && inside(&conv)).then_some(conv)
}

/// The static shape of `ty` when its elements are f32 and, a buffer, its innermost stride is 1.
fn f32_shape(ty: melior::ir::Type<'_>) -> Option<Vec<i64>> {
    (element(ty)? == "f32" && unit_inner_stride(&ty.to_string())).then_some(())?;
    static_shape(ty).ok()
}

/// The convolution (or pool) with implicit padding that `strata-implicit-pads` made of `op` (a
/// `linalg.generic` carrying `strata.implicit_pads`, on tensors or buffers), with the input its
/// body reads (`tensor.extract` or `memref.load` of a value from outside it): the generic's
/// operands are the filter (a pool's window) and the output `[N, F, OH, OW]`; a depthwise
/// one's filter is `[C, KH, KW]` and its loops `(n, c, oh, ow, kh, kw)`, a pool's window `[KH,
/// KW]` with the same loops (its body a maximum or a sum, no product), a full one's `[F, C,
/// KH, KW]` and `(n, f, oh, ow, c, kh, kw)`.
pub fn implicit(op: strata_ir::Op) -> Option<(Depthwise, strata_ir::Val)> {
    use strata_ir::handle::MapResult::Dim;
    if !op.is("linalg.generic") || op.operand_count() != 2 {
        return None;
    }
    let [sh, sw, dh, dw, pt, pl] = <[i64; 6]>::try_from(strata_ir::attrs::IMPLICIT_PADS.get(op.get())?).ok()?;
    let maps = strata_ir::handle::map_results(op.attribute("indexing_maps")?)?;
    // Loops (n, c, oh, ow, kh, kw), or (n, f, oh, ow, c, kh, kw) for a full convolution.
    let depthwise = vec![Dim(1), Dim(4), Dim(5)];
    let full = vec![Dim(1), Dim(4), Dim(5), Dim(6)];
    let pool = vec![Dim(4), Dim(5)];
    let output = vec![Dim(0), Dim(1), Dim(2), Dim(3)];
    if maps != [depthwise, output.clone()] && maps != [full, output.clone()] && maps != [pool.clone(), output] {
        return None;
    }
    let body = op.body(0)?.ops();
    let reduce = if maps[0] != pool {
        Reduce::Weighted
    } else if body.iter().any(|o| o.is("arith.maximumf")) {
        Reduce::Max
    } else {
        Reduce::Sum
    };
    let reads: Vec<strata_ir::Op> =
        body.into_iter().filter(|o| o.is("tensor.extract") || o.is("memref.load")).collect();
    let [read] = reads[..] else { return None };
    let source = read.operand(0);
    if source.owner().is_some_and(|owner| owner.is_inside(op)) {
        return None;
    }
    let shapes = [source.r#type(), op.operand(0).r#type(), op.operand(1).r#type()];
    let [input, filter, output] = shapes.map(f32_shape);
    // A pool's window is read for its shape only.
    let filter = if reduce == Reduce::Weighted { filter? } else { static_shape(op.operand(0).r#type()).ok()? };
    let (strides, dilations, pads) = ([sh, sw], [dh, dw], [pt, pl]);
    Some((Depthwise::with_implicit_pads(reduce, input?, filter, output?, strides, dilations, pads)?, source))
}

/// The least multiply-adds for which a kernel splits its channels (filter blocks) across
/// threads: an eighth of the other convolutions' `conv_lanes::PARALLEL_MACS`. A depthwise
/// convolution reads the channels its producer wrote; split like the producer (the threads take
/// the channels in order), each core reads what it wrote itself, where one thread reading all
/// of them took half from the other core's cache: MobileNetV3-Small's 16-channel depthwise
/// convolution after its stem ran 0.052 ms on two threads against 0.026 on one, 0.020 split
/// (per-kernel minima, the model's kernels 1.68 -> 1.55 ms on two threads).
const PARALLEL_MACS: i64 = crate::conv_lanes::PARALLEL_MACS / 8;

/// The widest input row a max pool's row buffer takes (see [`Depthwise::row_pool`]).
const MAX_ROW: i64 = 4096;

/// Most register blocks a kernel writes out (rows and column blocks at the padding each have
/// their own, see [`Depthwise::rows`]): more is a window far larger than its map.
const MAX_BLOCKS: usize = 64;

/// The name of the kernel's index constant `k` (negative ones are `%cn<k>`).
pub(crate) fn index_constant(k: i64) -> String {
    if k >= 0 {
        format!("%c{k}")
    } else {
        format!("%cn{}", -k)
    }
}

/// Where a kernel's accumulators start.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Seed {
    /// The output's values (a bias or an identity written before).
    Output,
    /// A per-channel bias, the kernel's fourth argument ([`bias_fill`]).
    Bias,
    /// The reduction's identity, -inf or zero ([`identity_fill`]).
    Identity,
}

/// One output row or column block's position: a constant, or a loop's index.
enum At {
    Static(i64),
    Dynamic(String),
}

impl Depthwise {
    /// A convolution of an unpadded `input` with zero padding `pads` (top, left) and past its
    /// end implicit, when the kernel takes it: depthwise (`filter` `[C, KH, KW]`), full
    /// (`filter` `[F, C/G, KH, KW]`: a stem or a grouped one), or a pool (`reduce` a maximum or
    /// a sum, `filter` its window `[KH, KW]`; the padding the maximum's or the sum's identity).
    pub fn with_implicit_pads(
        reduce: Reduce,
        input: Vec<i64>,
        mut filter: Vec<i64>,
        output: Vec<i64>,
        strides: [i64; 2],
        dilations: [i64; 2],
        pads: [i64; 2],
    ) -> Option<Depthwise> {
        if reduce != Reduce::Weighted {
            filter.insert(0, *input.get(1)?);
        }
        let full = filter.len() == 4;
        // A full convolution's groups: its input channels over the filter's.
        let groups = if full && filter[1] > 0 && input.get(1).is_some_and(|c| c % filter[1] == 0) {
            input[1] / filter[1]
        } else {
            1
        };
        let conv = Depthwise { reduce, input, filter, output, strides, dilations, pads, full, groups };
        (conv.fits() && pads.iter().all(|&p| p >= 0) && conv.blocks() <= MAX_BLOCKS).then_some(conv)
    }

    /// A max pool with a window at least 3 x 3 and at least a vector of `lanes` outputs a row,
    /// as [`RowPool`]'s two passes take it. The others keep the register blocks, where the row
    /// buffer's stores and reloads and its -inf borders cost more than the maximums they save:
    /// YOLO's 5 x 5 pools over 4 x 4 maps took 1.2 us each in the two passes, 0.9 in blocks;
    /// 2 x 2 stride-2 pools (the opset-11 CNN's over 32 x 32, the CRNN's) 1.9 against 1.0 and
    /// 2.8 against 1.8 (two maximums an output against three).
    fn row_pool(&self, lanes: i64) -> Option<RowPool> {
        let four = |v: &[i64]| <[i64; 4]>::try_from(v).ok();
        let [kh, kw] = self.window();
        // The row buffers live on the calling thread's stack: rows up to 4096 columns (16 KiB
        // a thread).
        let wide = kh >= 3 && kw >= 3 && self.output[3] >= lanes && self.input[3] <= MAX_ROW;
        (self.reduce == Reduce::Max && !self.full && wide).then_some(())?;
        Some(RowPool {
            input: four(&self.input)?,
            output: four(&self.output)?,
            window: self.window(),
            strides: self.strides,
            dilations: self.dilations,
            pads: self.pads,
        })
    }

    /// A full convolution's groups (1 for a stem or a depthwise convolution).
    pub fn groups(&self) -> i64 {
        self.groups
    }

    /// The window's extent `[KH, KW]`.
    fn window(&self) -> [i64; 2] {
        let at = self.filter.len() - 2;
        [self.filter[at], self.filter[at + 1]]
    }

    /// Input channels each output reads: its group's (all of them for a stem) for a full
    /// convolution, its own for a depthwise one.
    fn channels_in(&self) -> i64 {
        if self.full {
            self.filter[1]
        } else {
            1
        }
    }

    fn macs(&self) -> i64 {
        let [kh, kw] = self.window();
        self.output.iter().product::<i64>() * kh * kw * self.channels_in()
    }

    /// The shapes the kernel takes: NCHW with a filter (window) per channel, or a full filter
    /// over few input channels; a width stride of 1 or 2, at least 4 outputs a row.
    fn fits(&self) -> bool {
        let (input, filter, output) = (&self.input, &self.filter, &self.output);
        if input.len() != 4 || output.len() != 4 {
            return false;
        }
        let channels = if self.full {
            filter.len() == 4
                && input[0] == output[0]
                && filter[0] == output[1]
                && self.groups >= 1
                && filter[1] * self.groups == input[1]
                && output[1] % self.groups == 0
                && (self.groups > 1
                    || (filter[1] <= MAX_FULL_CHANNELS
                        && filter[1] * filter[2] * filter[3] <= MAX_FULL_TAPS
                        && output[1] <= MAX_FULL_FILTERS))
        } else {
            filter.len() == 3 && input[..2] == output[..2] && filter[0] == input[1]
        };
        channels
            && matches!(self.strides[1], 1 | 2)
            && self.strides[0] >= 1
            && self.dilations.iter().all(|&d| d >= 1)
            && output[3] >= 4
            && input[2] >= 1
            && input[3] >= 1
    }

    /// The output rows whose windows lie inside the input, `[first, end)`: the others read
    /// padding and are written in blocks at constant rows with the taps that read it left out.
    fn rows(&self) -> (i64, i64) {
        let (oh, ih, [sh, _], [dh, _], [pt, _]) =
            (self.output[2], self.input[2], self.strides, self.dilations, self.pads);
        let kh = self.window()[0];
        let first = (0..oh).find(|&o| o * sh >= pt).unwrap_or(oh);
        let end = (first..oh).rev().find(|&o| o * sh - pt + (kh - 1) * dh < ih).map_or(first, |o| o + 1);
        (first, end)
    }

    /// The column blocks (`lanes` outputs, the first at `lanes * k`) whose every tap reads a
    /// whole vector inside the input, `[first, end)` of the whole blocks: they run in a loop,
    /// the others (and the partial block) each on its own with constant masks.
    fn plain_columns(&self, lanes: i64) -> (i64, i64) {
        let (iw, [_, sw], [_, dw], [_, pl]) = (self.input[3], self.strides, self.dilations, self.pads);
        let plain = |k: i64| {
            (0..self.window()[1]).all(|t| {
                let start = k * lanes * sw + t * dw - pl;
                start >= 0 && start + lanes * sw <= iw
            })
        };
        let whole = self.output[3] / lanes;
        let first = (0..whole).find(|&k| plain(k)).unwrap_or(whole);
        let end = (first..whole).rev().find(|&k| plain(k)).map_or(first, |k| k + 1);
        (first, end)
    }

    /// The vector lanes of the kernel's blocks on a machine of `lanes`.
    fn lanes(&self, lanes: i64) -> i64 {
        lanes.min((self.output[3] as u64).next_power_of_two() as i64)
    }

    /// Filters a block computes from each input load, and output rows a block: a depthwise
    /// convolution's channel has one filter, its blocks twice [`ROWS`] rows (at a unit width
    /// stride; [`ROWS`] otherwise); a full convolution's
    /// block takes the largest divisor of its (group's) filters up to a third of the
    /// accumulators (at least two blocks when `parallel`) and as many rows as the rest hold. Each tap then
    /// loads one input vector a row and one weight a filter for rows x filters multiply-adds:
    /// 8 filters x 3 rows on AVX-512 load 11 values for 24 (16 x 1 loaded 17 for 16, and
    /// MobileNetV2's 32-filter stem ran slower than the register-blocked schedule's).
    fn block_shape(&self, accumulators: i64, parallel: bool) -> (i64, i64) {
        if !self.full {
            // Unit column stride: eight rows, eight accumulators (four waited on the
            // multiply-add's latency: MobileNetV2's 14 x 14 depthwise convolutions 15.4 ->
            // 9.5 us, MobileNetV3-Small's 5 x 5 ones 25 -> 15). A strided block reads two
            // vectors and shuffles per tap and row: with eight rows it spilled (stride 2
            // about 1.2x slower), so it keeps four.
            return (1, if self.strides[1] == 1 { 2 * ROWS } else { ROWS });
        }
        let f = self.output[1] / self.groups;
        let split = parallel && self.groups == 1;
        let most = if split { (accumulators / 3).min(f / 2) } else { accumulators / 3 }.max(1);
        let filters = (1..=most.min(f)).rev().find(|d| f % d == 0).unwrap_or(1);
        (filters, (accumulators * 2 / 3 / filters).clamp(1, ROWS))
    }

    /// How many register blocks the kernel writes out (at the machine's widest, 16 lanes).
    fn blocks(&self) -> usize {
        let lanes = self.lanes(16);
        let (first, end) = self.rows();
        let (c0, c1) = self.plain_columns(lanes);
        let columns = (self.output[3] / lanes - (c1 - c0)) + i64::from(c1 > c0) + i64::from(self.output[3] % lanes > 0);
        let rows = (self.output[2] - (end - first)) + 2 * i64::from(end > first);
        usize::try_from(rows * columns).unwrap_or(usize::MAX)
    }

    /// The kernel function (MLIR text) for operand types `types` (input, filter, output); `epilogue` (see
    /// [`epilogue`]) is applied to the accumulators before they are stored.
    /// `start`: where the accumulators start (the output's values, a per-channel bias that is
    /// the kernel's fourth argument, `memref<C x f32>`, see [`bias_fill`], or the reduction's
    /// identity, see [`identity_fill`]).
    fn function(
        &self,
        types: &[String],
        lanes: i64,
        parallel: bool,
        epilogue: Option<&Epilogue>,
        start: Seed,
    ) -> String {
        let seeded = start == Seed::Bias;
        let [n, c, oh, ow] = [self.output[0], self.output[1], self.output[2], self.output[3]];
        let [ih, iw] = [self.input[2], self.input[3]];
        let [kh, kw] = self.window();
        let [sh, sw] = self.strides;
        let [dh, dw] = self.dilations;
        let [pt, pl] = self.pads;
        let (filters, rows_per_block) =
            self.block_shape(strata_machine::Registers::for_lanes(lanes).accumulators, parallel);
        let lanes = self.lanes(lanes);
        let wide = lanes * sw;
        let vt = format!("vector<{lanes}xf32>");
        let mt = format!("vector<{lanes}xi1>");
        let (ow_main, ow_tail) = (ow / lanes * lanes, ow % lanes);
        let (xt, wt, yt) = (&types[0], &types[1], &types[2]);
        let groups = c / filters;
        let constants =
            std::cell::RefCell::new(std::collections::BTreeSet::from([0, 1, lanes, groups, sh, sw, rows_per_block]));
        // The index constant `k`, declared at the top of the function.
        let cst = |k: i64| -> String {
            constants.borrow_mut().insert(k);
            index_constant(k)
        };
        let mut s = String::new();
        let batch = if n > 1 {
            s += &format!("    scf.for %n = %c0 to {} step %c1 {{\n", cst(n));
            "%n"
        } else {
            "%c0"
        };
        // One iteration per channel (depthwise) or block of filters (full): outermost, or, for
        // a full convolution on one thread, inside each row block, so that the rows of the
        // input a block reads are read again by the next filters while still in the cache
        // (outermost, MobileNetV2's 32-filter stem read its 600 KB input from memory four times:
        // 0.33 ms in the model against 0.20 alone).
        // A grouped convolution's blocks read channels of their own: outermost (the same speed
        // as inside the row blocks on ResNeXt's, a little faster).
        let inner_groups = self.full && !parallel && self.groups == 1;
        let group = std::cell::Cell::new(0usize);
        // The block's filters: the channel itself, or `filters` from `%g * filters`.
        let filter = |j: i64| {
            let g = group.get();
            if self.full {
                format!("%f{g}_{j}")
            } else {
                format!("%g{g}")
            }
        };
        let open_group = |s: &mut String, indent: &str| {
            group.set(group.get() + 1);
            let g = group.get();
            if parallel {
                *s += &format!("{indent}scf.forall (%g{g}) in ({groups}) {{\n");
            } else {
                *s += &format!("{indent}scf.for %g{g} = %c0 to {} step %c1 {{\n", cst(groups));
            }
            let inner = format!("{indent}  ");
            if self.full {
                *s += &format!("{inner}%fbase{g} = arith.muli %g{g}, {} : index\n", cst(filters));
                for j in 0..filters {
                    *s += &format!("{inner}%f{g}_{j} = arith.addi %fbase{g}, {} : index\n", cst(j));
                }
                if self.groups > 1 {
                    // The block's group's first input channel (a block lies in one group).
                    let (per_group, channels) = (c / self.groups, self.filter[1]);
                    *s += &format!(
                        "{inner}%cq{g} = arith.divui %fbase{g}, {} : index\n{inner}%cb{g} = arith.muli %cq{g}, {} : index\n",
                        cst(per_group),
                        cst(channels)
                    );
                }
            }
            if seeded {
                for j in 0..filters {
                    *s += &format!(
                        "{inner}%bs{g}_{j} = memref.load %bias[{}] : {}\n{inner}%bv{g}_{j} = vector.broadcast %bs{g}_{j} : f32 to {vt}\n",
                        filter(j),
                        types[3]
                    );
                }
            }
            // A depthwise channel's weights, broadcast once (a pool has none); a full
            // convolution's are read where they are used (too many to hold).
            if self.reduce == Reduce::Weighted && !self.full {
                for a in 0..kh {
                    for b in 0..kw {
                        *s += &format!(
                            "{inner}%ws{a}_{b} = memref.load %w[%g{g}, {}, {}] : {wt}\n{inner}%wv{a}_{b} = vector.broadcast %ws{a}_{b} : f32 to {vt}\n",
                            cst(a),
                            cst(b)
                        );
                    }
                }
            }
            inner
        };
        if !inner_groups {
            let _ = open_group(&mut s, "    ");
        }
        let mut id = 0usize;
        // A block of `rows` output rows from `row` by one vector of columns from `col`, for each
        // of the block's filters; `tail`: the row's last, partial vector (stores masked).
        let mut block = |s: &mut String, rows: i64, row: &At, col: &At, tail: bool, indent: &str| {
            id += 1;
            let b = id;
            let mask = tail.then(|| {
                *s += &format!("{indent}%m{b} = vector.create_mask {} : {mt}\n", cst(ow_tail));
                format!("%m{b}")
            });
            let col_value = match col {
                At::Static(k) => cst(*k),
                At::Dynamic(v) => v.clone(),
            };
            // Accumulators (by filter, then row) seeded from the output (which holds the
            // bias), or from the bias.
            let mut acc: Vec<Vec<String>> = vec![Vec::new(); filters as usize];
            let mut out_rows: Vec<String> = Vec::new();
            for r in 0..rows {
                let out_row = match row {
                    At::Static(k) => cst(k + r),
                    At::Dynamic(v) => {
                        *s += &format!("{indent}%oh{b}_{r} = arith.addi {v}, {} : index\n", cst(r));
                        format!("%oh{b}_{r}")
                    }
                };
                for j in 0..filters {
                    let seed = format!("%a{b}_{j}_{r}_0");
                    let f = filter(j);
                    match &mask {
                        _ if seeded => acc[j as usize].push(format!("%bv{}_{j}", group.get())),
                        _ if start == Seed::Identity => {
                            acc[j as usize].push(if self.reduce == Reduce::Max { "%ninf" } else { "%zero" }.to_owned())
                        }
                        None => {
                            *s += &format!(
                                "{indent}{seed} = vector.load %y[{batch}, {f}, {out_row}, {col_value}] : {yt}, {vt}\n"
                            );
                            acc[j as usize].push(seed);
                        }
                        Some(m) => {
                            *s += &format!("{indent}{seed} = vector.maskedload %y[{batch}, {f}, {out_row}, {col_value}], {m}, %zero : {yt}, {mt}, {vt} into {vt}\n");
                            acc[j as usize].push(seed);
                        }
                    }
                }
                out_rows.push(out_row);
            }
            let mut steps = vec![vec![0usize; rows as usize]; filters as usize];
            // Filter `j`'s accumulators (`chains`, by row) take the tap's input vectors `rows`
            // (row, value) times `weight`: a multiply-add, a pool's maximum or sum.
            let reduce = self.reduce;
            let accumulate = |s: &mut String,
                              chains: &mut Vec<String>,
                              steps: &mut Vec<usize>,
                              j: usize,
                              rows: &[(i64, String)],
                              weight: &str| {
                for (r, x) in rows {
                    let r = *r as usize;
                    steps[r] += 1;
                    let step = steps[r];
                    let (prev, next) = (chains[r].clone(), format!("%a{b}_{j}_{r}_{step}"));
                    *s += &match reduce {
                        Reduce::Weighted => format!(
                            "{indent}%p{b}_{j}_{r}_{step} = arith.mulf {x}, {weight} fastmath<contract> : {vt}\n{indent}{next} = arith.addf {prev}, %p{b}_{j}_{r}_{step} fastmath<contract> : {vt}\n"
                        ),
                        // linalg.pooling_nchw_max's own maximum (NaN propagates).
                        Reduce::Max => nan_max(indent, &next, &prev, x, &vt, &mt),
                        Reduce::Sum => format!("{indent}{next} = arith.addf {prev}, {x} : {vt}\n"),
                    };
                    chains[r] = next;
                }
            };
            if let At::Dynamic(v) = col {
                // The input column of the block's first output at tap 0 (padding included).
                *s += &format!("{indent}%iw{b} = arith.muli {v}, %c{sw} : index\n");
            }
            // A full convolution's input channels: a rolled loop carrying the accumulators,
            // so that each tap's weights (one per filter) are read where they are used. Loaded
            // out of the loops (they do not change along them), the hundreds a block reads
            // were spilled to the stack as whole vectors.
            let outer_indent = indent;
            let inner = format!("{indent}  ");
            let (indent, input_channel, filter_channel) = if self.full {
                let carried: Vec<String> = acc.iter().flatten().cloned().collect();
                let args: Vec<String> =
                    carried.iter().enumerate().map(|(k, seed)| format!("%i{b}_{k} = {seed}")).collect();
                *s += &format!(
                    "{indent}%r{b}:{} = scf.for %ci{b} = %c0 to {} step %c1 iter_args({}) -> ({}) {{\n",
                    carried.len(),
                    cst(self.filter[1]),
                    args.join(", "),
                    vec![vt.as_str(); carried.len()].join(", ")
                );
                for (k, chain) in acc.iter_mut().flatten().enumerate() {
                    *chain = format!("%i{b}_{k}");
                }
                let channel = if self.groups > 1 {
                    *s += &format!("{inner}%cx{b} = arith.addi %ci{b}, %cb{} : index\n", group.get());
                    format!("%cx{b}")
                } else {
                    format!("%ci{b}")
                };
                (inner.as_str(), channel, format!("%ci{b}"))
            } else {
                let channel = format!("%g{}", group.get());
                (indent, channel.clone(), channel)
            };
            // A full convolution's block takes the kernel rows that every row of the block
            // reads inside the input (all of them in the loop of rows) as a rolled loop carrying
            // the accumulators, the taps of one kernel row an iteration, and the others (at the
            // padding) written out before and after it, so that each row still sums its taps
            // in order. A stem's blocks, every tap written out, were a fifth of a small
            // detector's code, which LLVM compiled for a sixth of its time.
            let inside = |a: i64| {
                (0..rows).all(|r| match row {
                    At::Static(k) => (0..ih).contains(&((k + r) * sh + a * dh - pt)),
                    At::Dynamic(_) => true,
                })
            };
            let (lo, hi) = match (0..kh).find(|&a| inside(a)) {
                Some(lo) => (lo, (lo..kh).find(|&a| !inside(a)).unwrap_or(kh)),
                None => (0, 0),
            };
            // Rolled, the block loads each kernel row's input rows again where LLVM shared the
            // rows that its rows' windows have in common: only where that costs at most a
            // quarter more loads (a stride-2 stem's 2 rows: 6 loads of rows where 5 would do; a
            // stride-1 convolution's 4 rows 12 instead of 6 ran 10% slower).
            let distinct: std::collections::BTreeSet<i64> =
                (0..rows).flat_map(|r| (lo..hi).map(move |a| r * sh + a * dh)).collect();
            let shared_loads = 4 * rows * (hi - lo) <= 5 * distinct.len() as i64;
            // The kernel rows in order: `None` for the rolled loop over `lo..hi`.
            let kernel_rows: Vec<Option<i64>> = if self.full && hi - lo >= 2 && shared_loads {
                (0..lo).map(Some).chain([None]).chain((hi..kh).map(Some)).collect()
            } else {
                (0..kh).map(Some).collect()
            };
            let taps_indent = indent;
            let mut row_bases: Vec<String> = Vec::new();
            let window_indent = format!("{indent}  ");
            for kernel_row in kernel_rows {
                let rolled = kernel_row.is_none();
                let indent = if rolled {
                    // Each row's input row at kernel row 0 (before the top padding).
                    row_bases = (0..rows)
                        .map(|r| match row {
                            At::Static(k) => cst((k + r) * sh - pt),
                            At::Dynamic(_) => {
                                *s += &format!(
                                    "{indent}%ihb{b}_{r}a = arith.muli {}, %c{sh} : index\n{indent}%ihb{b}_{r} = arith.subi %ihb{b}_{r}a, {} : index\n",
                                    out_rows[r as usize],
                                    cst(pt)
                                );
                                format!("%ihb{b}_{r}")
                            }
                        })
                        .collect();
                    let carried: Vec<String> = acc.iter().flatten().cloned().collect();
                    let args: Vec<String> =
                        carried.iter().enumerate().map(|(k, seed)| format!("%k{b}_{k} = {seed}")).collect();
                    *s += &format!(
                        "{indent}%kr{b}:{} = scf.for %kh{b} = {} to {} step %c1 iter_args({}) -> ({}) {{\n",
                        carried.len(),
                        cst(lo),
                        cst(hi),
                        args.join(", "),
                        vec![vt.as_str(); carried.len()].join(", ")
                    );
                    for (k, chain) in acc.iter_mut().flatten().enumerate() {
                        *chain = format!("%k{b}_{k}");
                    }
                    *s += &format!("{window_indent}%khd{b} = arith.muli %kh{b}, {} : index\n", cst(dh));
                    window_indent.as_str()
                } else {
                    taps_indent
                };
                let a = kernel_row.unwrap_or(0);
                // The kernel row's index in the filter: constant, or the rolled loop's.
                let kernel_index = if rolled { format!("%kh{b}") } else { cst(a) };
                for t in 0..kw {
                    let tap = if rolled { format!("k_{t}") } else { format!("{a}_{t}") };
                    // Where the tap's vector comes from: a whole read at a loop's column, or a
                    // read at a constant column, masked to the row, with the lanes left of the
                    // row (the implicit padding) shuffled in from zeros.
                    let (column, valid, lanes_at) = match col {
                        At::Dynamic(_) => {
                            *s += &format!("{indent}%iw{b}_{tap} = arith.addi %iw{b}, {} : index\n", cst(t * dw - pl));
                            (format!("%iw{b}_{tap}"), wide, None)
                        }
                        At::Static(k) => {
                            let start = k * sw + t * dw - pl;
                            let low = start.max(0);
                            let valid = (iw - low).clamp(0, wide);
                            if valid == 0 {
                                continue;
                            }
                            let at: Vec<i64> = (0..lanes).map(|l| start + l * sw - low).collect();
                            let shuffled = start < 0 || sw > 1;
                            (cst(low), valid, shuffled.then_some(at))
                        }
                    };
                    // A full convolution's weight of this tap for filter `j`, read where it is
                    // used: every row's input vector is loaded first, then each filter's weight
                    // feeds its rows' multiply-adds (all weights first kept 8 of them live beside
                    // 24 accumulators, and the rows' vectors spilled).
                    let weight = |s: &mut String, j: i64| -> String {
                        if !self.full {
                            return format!("%wv{a}_{t}");
                        }
                        let w = format!("%w{b}_{j}_{tap}");
                        *s += &format!(
                                "{indent}{w}s = memref.load %w[{}, {}, {kernel_index}, {}] : {wt}\n{indent}{w} = vector.broadcast {w}s : f32 to {vt}\n",
                                filter(j),
                                filter_channel,
                                cst(t)
                            );
                        w
                    };
                    let mut loaded: Vec<(i64, String)> = Vec::new();
                    for r in 0..rows {
                        let input_row = match row {
                            _ if rolled => {
                                *s += &format!(
                                    "{indent}%ih{b}_{tap}_{r} = arith.addi {}, %khd{b} : index\n",
                                    row_bases[r as usize]
                                );
                                format!("%ih{b}_{tap}_{r}")
                            }
                            At::Static(k) => {
                                let i = (k + r) * sh + a * dh - pt;
                                if i < 0 || i >= ih {
                                    continue;
                                }
                                cst(i)
                            }
                            At::Dynamic(_) => {
                                *s += &format!(
                                        "{indent}%ih{b}_{tap}_{r}a = arith.muli {}, %c{sh} : index\n{indent}%ih{b}_{tap}_{r} = arith.addi %ih{b}_{tap}_{r}a, {} : index\n",
                                        out_rows[r as usize],
                                        cst(a * dh - pt)
                                    );
                                format!("%ih{b}_{tap}_{r}")
                            }
                        };
                        let x = format!("%x{b}_{tap}_{r}");
                        // Lanes outside the row: the padding (a maximum's -inf).
                        let pass = match (self.reduce == Reduce::Max, sw > 1) {
                            (true, true) => "%ninfw",
                            (true, false) => "%ninf",
                            (false, true) => "%zerow",
                            (false, false) => "%zero",
                        };
                        let load = if valid < wide {
                            *s += &format!(
                                "{indent}%lm{b}_{tap}_{r} = vector.create_mask {} : vector<{wide}xi1>\n",
                                cst(valid)
                            );
                            format!(
                                    "vector.maskedload %x[{batch}, {input_channel}, {input_row}, {column}], %lm{b}_{tap}_{r}, {pass} : {xt}, vector<{wide}xi1>, vector<{wide}xf32> into vector<{wide}xf32>"
                                )
                        } else {
                            format!("vector.load %x[{batch}, {input_channel}, {input_row}, {column}] : {xt}, vector<{wide}xf32>")
                        };
                        match &lanes_at {
                            // Lanes before the row read the zero vector (the second operand).
                            Some(at) => {
                                let picks: Vec<String> =
                                    at.iter().map(|&i| if i < 0 { wide } else { i }.to_string()).collect();
                                let second = if at.iter().any(|&i| i < 0) { pass.to_owned() } else { format!("{x}w") };
                                *s += &format!(
                                        "{indent}{x}w = {load}\n{indent}{x} = vector.shuffle {x}w, {second} [{}] : vector<{wide}xf32>, vector<{wide}xf32>\n",
                                        picks.join(", ")
                                    );
                            }
                            None if sw > 1 => {
                                let even: Vec<String> = (0..lanes).map(|l| (l * sw).to_string()).collect();
                                *s += &format!(
                                        "{indent}{x}w = {load}\n{indent}{x} = vector.shuffle {x}w, {x}w [{}] : vector<{wide}xf32>, vector<{wide}xf32>\n",
                                        even.join(", ")
                                    );
                            }
                            None => *s += &format!("{indent}{x} = {load}\n"),
                        }
                        loaded.push((r, x));
                        if !self.full {
                            // A depthwise channel: the row's multiply-add right after its load.
                            let w = weight(s, 0);
                            accumulate(s, &mut acc[0], &mut steps[0], 0, &std::mem::take(&mut loaded), &w);
                        }
                    }
                    for j in 0..filters {
                        if loaded.is_empty() {
                            break;
                        }
                        let w = weight(s, j);
                        let (j, rows) = (j as usize, &loaded);
                        accumulate(s, &mut acc[j], &mut steps[j], j, rows, &w);
                    }
                }
                if rolled {
                    let carried: Vec<String> = acc.iter().flatten().cloned().collect();
                    *s += &format!(
                        "{indent}scf.yield {} : {}\n{taps_indent}}} {ROLLED}\n",
                        carried.join(", "),
                        vec![vt.as_str(); carried.len()].join(", ")
                    );
                    for (k, chain) in acc.iter_mut().flatten().enumerate() {
                        *chain = format!("%kr{b}#{k}");
                    }
                }
            }
            let indent = outer_indent;
            if self.full {
                let carried: Vec<String> = acc.iter().flatten().cloned().collect();
                *s += &format!(
                    "{inner}scf.yield {} : {}\n{indent}}} {ROLLED}\n",
                    carried.join(", "),
                    vec![vt.as_str(); carried.len()].join(", ")
                );
                for (k, chain) in acc.iter_mut().flatten().enumerate() {
                    *chain = format!("%r{b}#{k}");
                }
            }
            for r in 0..rows {
                for (j, chains) in acc.iter().enumerate() {
                    let value = chains[r as usize].clone();
                    let name = format!("{b}_{j}_{r}");
                    let result = match epilogue {
                        Some(epilogue) => epilogue.apply(s, indent, &name, &value, &vt),
                        None => value.clone(),
                    };
                    let (out_row, f) = (&out_rows[r as usize], filter(j as i64));
                    match &mask {
                        None => *s += &format!(
                            "{indent}vector.store {result}, %y[{batch}, {f}, {out_row}, {col_value}] : {yt}, {vt}\n"
                        ),
                        Some(m) => {
                            *s += &format!("{indent}vector.maskedstore %y[{batch}, {f}, {out_row}, {col_value}], {m}, {result} : {yt}, {mt}, {vt}\n")
                        }
                    }
                }
            }
        };
        // The column blocks of `rows` rows from `row`: those reading padding or past the row
        // each on its own, the others in a loop; then the partial block.
        let (c0, c1) = self.plain_columns(lanes);
        let mut loops = 0usize;
        let mut columns = |s: &mut String, rows: i64, row: &At, outer: &str| {
            let opened = inner_groups.then(|| open_group(s, outer));
            let indent = opened.as_deref().unwrap_or(outer);
            for k in 0..ow / lanes {
                if k == c0 && c1 > c0 {
                    loops += 1;
                    let v = format!("%ow{loops}");
                    *s += &format!(
                        "{indent}scf.for {v} = {} to {} step %c{lanes} {{\n",
                        cst(c0 * lanes),
                        cst(c1 * lanes)
                    );
                    block(s, rows, row, &At::Dynamic(v), false, &format!("{indent}  "));
                    *s += &format!("{indent}}} {ROLLED}\n");
                }
                if (c0..c1).contains(&k) {
                    continue;
                }
                block(s, rows, row, &At::Static(k * lanes), false, indent);
            }
            if ow_tail > 0 {
                block(s, rows, row, &At::Static(ow_main), true, indent);
            }
            if inner_groups {
                *s += &format!("{outer}}} {ROLLED}\n");
            }
        };
        // Rows whose windows lie inside the input in blocks in a loop; the others (reading
        // padding, and the loop's remainder) in blocks at constant rows, each row leaving out
        // the taps that read padding. One row at a time, each block was one chain of dependent
        // multiply-adds: a 7 x 7 map's seven rows, all of them, ran at the adds' latency.
        // The first rows up to a whole block take the top padding's rows with them.
        let (r0, r1) = self.rows();
        let top = (r0 + rows_per_block - 1) / rows_per_block * rows_per_block;
        let blocks = (r1 - top).max(0) / rows_per_block;
        let (top, rows_main) = if blocks == 0 { (oh, oh) } else { (top, top + blocks * rows_per_block) };
        let indent = "      ";
        let fixed = |from: i64, to: i64| (from..to).step_by(rows_per_block as usize).map(move |r| (r, to));
        for (first, to) in fixed(0, top) {
            columns(&mut s, rows_per_block.min(to - first), &At::Static(first), indent);
        }
        if blocks > 0 {
            s += &format!("{indent}scf.for %ohb = {} to {} step %c{rows_per_block} {{\n", cst(top), cst(rows_main));
            columns(&mut s, rows_per_block, &At::Dynamic("%ohb".to_owned()), &format!("{indent}  "));
            s += &format!("{indent}}} {ROLLED}\n");
            for (first, to) in fixed(rows_main, oh) {
                columns(&mut s, rows_per_block.min(to - first), &At::Static(first), indent);
            }
        }
        if !inner_groups {
            s += "    }\n";
        }
        if n > 1 {
            s += "    }\n";
        }
        s += "    return\n  }\n}\n";
        let bias = if seeded { format!(", %bias: {}", types[3]) } else { String::new() };
        let mut head = format!("module {{\n  func.func private @depthwise(%x: {xt}, %w: {wt}, %y: {yt}{bias}) {{\n");
        for &k in constants.borrow().iter() {
            head += &format!("    {} = arith.constant {k} : index\n", index_constant(k));
        }
        head += &format!("    %zero = arith.constant dense<0.000000e+00> : {vt}\n");
        // What a maximum's window reads outside the input (a sum's or a convolution's: zero).
        if self.reduce == Reduce::Max {
            head += &format!("    %ninf = arith.constant dense<{}> : {vt}\n", self.reduce.identity_literal());
        }
        for (k, value) in epilogue.iter().flat_map(|e| &e.constants).enumerate() {
            head += &format!("    %ep{k} = arith.constant dense<{value}> : {vt}\n");
        }
        if sw > 1 {
            let name = if self.reduce == Reduce::Max { "ninfw" } else { "zerow" };
            let value = self.reduce.identity_literal();
            head += &format!("    %{name} = arith.constant dense<{value}> : vector<{wide}xf32>\n");
        }
        head + &s
    }
}

impl Pass for VectorizeDepthwise {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = [
            "linalg.depthwise_conv_2d_nchw_chw",
            "linalg.pooling_nchw_max",
            "linalg.pooling_nchw_sum",
            "linalg.generic",
        ];
        let (mut seeded, mut identities) = (0u64, 0u64);
        let replaced =
            replace_kernels_with(module, cx, &names, "depthwise convolution kernel", "convolutions", |op, absorbed| {
                // The operands: input, filter (window), output; a generic with implicit padding
                // reads its input in its body.
                let (conv, mut operands) = match implicit(op) {
                    Some((conv, input)) => (conv, vec![input, op.operand(0), op.operand(1)]),
                    None if op.is("linalg.generic") => return None,
                    None => (handles(op.get())?, op.operands()),
                };
                let mut types: Vec<String> = operands.iter().map(|v| v.r#type().to_string()).collect();
                if types.iter().any(|t| !t.starts_with("memref<")) {
                    return None;
                }
                // A stem reads the graph input (no producer's split to follow): the other
                // convolutions' threshold (YOLO's split stem ran 0.0035 -> 0.010 ms); a grouped
                // convolution takes it too (not measured lower).
                let least = if conv.full { crate::conv_lanes::PARALLEL_MACS } else { PARALLEL_MACS };
                let parallel = self.threads > 1 && conv.macs() >= least;
                let output = operands[2];
                // Each fill and epilogue is absorbed by one kernel at most.
                let (next, program) = epilogue(op, output).filter(|(next, _)| !absorbed.contains(next)).unzip();
                let seed = bias_fill(op, output)
                    .filter(|(fill, _)| conv.reduce == Reduce::Weighted && !absorbed.contains(fill));
                if let Some((_, bias)) = seed {
                    types.push(bias.r#type().to_string());
                    operands.push(bias);
                }
                let identity = (conv.reduce != Reduce::Weighted)
                    .then(|| identity_fill(op, output, conv.reduce.identity()))
                    .flatten()
                    .filter(|fill| !absorbed.contains(fill));
                let start = match (seed, identity) {
                    (Some(_), _) => Seed::Bias,
                    (None, Some(_)) => Seed::Identity,
                    (None, None) => Seed::Output,
                };
                let text = match conv.row_pool(self.lanes) {
                    Some(pool) => {
                        let threads = if parallel { self.threads } else { 1 };
                        pool.function(&types, self.lanes, threads, program.as_ref(), start == Seed::Output)
                    }
                    None => conv.function(&types, self.lanes, parallel, program.as_ref(), start),
                };
                // The kernel seeds its accumulators with what the fill wrote, and nothing else
                // read the output in between; nothing refers to the fill.
                if let Some((fill, _)) = seed {
                    absorbed.push(fill);
                    seeded += 1;
                }
                if let Some(fill) = identity {
                    absorbed.push(fill);
                    identities += 1;
                }
                if let Some(next) = next {
                    // The kernel runs both ONNX nodes: profiles name it after both.
                    let context = op.get().context();
                    // Safety: the context outlives this pass run.
                    let context = unsafe { context.to_ref() };
                    let both = melior::ir::Location::fused(
                        context,
                        &[op.location(), next.location()],
                        melior::ir::Attribute::unit(context),
                    );
                    op.set_location_deep(both);
                    // The epilogue is applied by the kernel's stores; nothing refers to it.
                    absorbed.push(next);
                }
                Some((text, operands))
            });
        cx.bump("bias-fills", seeded);
        cx.bump("identity-fills", identities);
        replaced
    }
}
