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
//! grouped convolution's filter blocks) are an `scf.forall` (OpenMP threads), split as their
//! producer split them; a stem's rows are (each thread a range of the loop's row blocks, the
//! first also the rows before it and the last those after), as the convolutions reading it
//! split theirs.
//!
//! Left to the loop-order schedule, MobileNetV2's depthwise convolutions ran at 7-8 GFLOP/s
//! (strided ones read every other element through scalar loads): 2x ONNX Runtime.
//!
//! `strata-cpu-schedule` leaves the convolutions this pass takes as named ops
//! ([`handles`]: static f32 NCHW, width stride 1 or 2, any height stride and dilation, the
//! padding already applied by the producer's padded buffer, or implicit); the others keep their
//! loop order.

use crate::depthwise_fusion::{bias_fill, epilogue, identity_fill, Epilogue};
use crate::pool_rows::RowPool;
use crate::text_kernels::{element, replace_kernels_with, unit_inner_stride};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::nn::pair_attribute;
use strata_lower::ops::static_shape;

/// The kernels' MLIR text ([`Depthwise::function`]).
mod kernel;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-depthwise",
    summary: "Depthwise convolutions and max/sum pools (f32, NCHW) as register-blocked vector loops, output width in the lanes",
    anchor: "builtin.module",
    options: &[crate::vectorize_elementwise::VECTOR_LANES_OPTION, crate::cpu_schedule::THREADS_OPTION],
    statistics: &[
        StatisticInfo { name: "convolutions", help: "Depthwise convolutions and pools vectorised" },
        StatisticInfo { name: "bias-fills", help: "Bias fills of an output folded into its convolution's accumulators" },
        StatisticInfo { name: "identity-fills", help: "Fills of a pool's output with -inf or zero folded into its accumulators" },
        StatisticInfo { name: "casts", help: "Casts of an epilogue's result to bytes stored by the convolution" },
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

    /// The kernel's loop of rows in blocks of `rows_per_block`: its first row (the first rows
    /// up to a whole block take the top padding's rows with them) and how many blocks it takes
    /// (the rows at the padding and the remainder apart).
    pub(super) fn row_loop(&self, rows_per_block: i64) -> (i64, i64) {
        let (r0, r1) = self.rows();
        let top = (r0 + rows_per_block - 1) / rows_per_block * rows_per_block;
        (top, (r1 - top).max(0) / rows_per_block)
    }

    /// The row blocks of the kernel's loop of rows for vectors of `lanes`, on one thread.
    pub(super) fn row_blocks(&self, lanes: i64) -> i64 {
        let (_, rows_per_block) = self.block_shape(strata_machine::Registers::for_lanes(lanes).accumulators, false);
        self.row_loop(rows_per_block).1
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
}

impl Pass for VectorizeDepthwise {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = [
            "linalg.depthwise_conv_2d_nchw_chw",
            "linalg.pooling_nchw_max",
            "linalg.pooling_nchw_sum",
            "linalg.generic",
        ];
        let (mut seeded, mut identities, mut casts) = (0u64, 0u64, 0u64);
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
                // Each fill and epilogue is absorbed by one kernel at most; a pool's takes no
                // arguments of its own, and a cast to bytes only into bytes apart from all the
                // kernel reads and writes (else the epilogue alone).
                let pool = conv.row_pool(self.lanes).is_some();
                let (next, mut program) =
                    epilogue(op, output, !pool).filter(|(next, _)| !absorbed.contains(next)).unzip();
                let fill = bias_fill(op, output);
                let seed = fill.filter(|(fill, _)| conv.reduce == Reduce::Weighted && !absorbed.contains(fill));
                if let Some((_, bias)) = seed {
                    types.push(bias.r#type().to_string());
                    operands.push(bias);
                }
                if let Some(bytes) = program.as_mut().and_then(|p: &mut Epilogue| p.bytes.take()) {
                    // Everything the kernel reads or writes (its operands, the bias of a fill
                    // before it), and the scalars.
                    let bias = fill.map(|(_, bias)| bias);
                    let reads = operands.iter().chain(program.iter().flat_map(|p| &p.scalars)).chain(&bias);
                    if reads.into_iter().all(|&v| crate::fuse_casts::apart(bytes.output, v)) {
                        // The output's view is defined where the kernel goes.
                        for view in &bytes.between {
                            view.move_before(op);
                        }
                        program.as_mut().expect("taken from it").bytes = Some(bytes);
                    }
                }
                // The epilogue's scalars and bytes' output, after the kernel's own operands.
                for value in program.iter().flat_map(Epilogue::operands) {
                    types.push(value.r#type().to_string());
                    operands.push(value);
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
                    None => {
                        let threads = if parallel { self.threads } else { 1 };
                        conv.function(&types, self.lanes, threads, program.as_ref(), start)
                    }
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
                    crate::text_kernels::name_after_both(op, next);
                    // The epilogue is applied by the kernel's stores; nothing refers to it.
                    absorbed.push(next);
                }
                if let Some(bytes) = program.as_ref().and_then(|p| p.bytes.as_ref()) {
                    // So is the cast: the kernel stores the bytes.
                    absorbed.push(bytes.cast);
                    casts += 1;
                }
                Some((text, operands))
            });
        cx.bump("bias-fills", seeded);
        cx.bump("identity-fills", identities);
        cx.bump("casts", casts);
        replaced
    }
}
