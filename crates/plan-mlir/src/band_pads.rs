//! `strata-band-input-pads`: a convolution over a pad of a graph input runs in bands of output
//! rows, each over a padded copy of only the input rows its windows read.
//!
//! A graph input is the caller's memory, read-only, so its pad is a copy: the whole padded
//! input in the arena beside the convolution's output, for the first convolution of a detector
//! or a segmentation model that is the model's peak (YOLO's 3x66x66 copy of its 64x64 image
//! beside the stem's output was a 1.30x peak over running the ONNX nodes one by one, which
//! reads the image in place). `strata-conv-borders` cannot take the register-blocked
//! convolutions' pads away (their schedule reads whole strides of a padded input), so here the
//! pad stays but shrinks: `bands` convolutions, each on the output rows of one band and a
//! padded copy of the input rows those windows reach (rounded up to whole strides, as the
//! schedule reads them), written into its slice of the result. Each copy is dead once its band
//! is done, so the arena holds one band's copy: about `1/bands` of the whole, plus the window's
//! overlap. The filter is the same constant for every band, so each keeps the register blocks;
//! an epilogue after the convolution runs on the whole result as a kernel of its own. That
//! costs time: a 7x7 stride-2 stem alone ran 5% slower on one thread and 10-20% on two (the
//! separate epilogue, four launches); YOLO and the text detector as a whole ran as fast as
//! before (interleaved minima).
//!
//! Only where it can matter: the convolution must be f32 and at the function's peak as
//! `strata-conv-borders` estimates it (`near_peak`), its pad only on H and W with zeros, its
//! input a block argument of the function. The bands are as many as divide the output rows
//! into bands of at least [`MIN_BAND_ROWS`] rows, at most [`MAX_BANDS`] (eight cost more
//! launches and saved nothing more at any zoo peak).

use crate::conv_borders::{live_between, near_peak, pressure};
use melior::ir::ValueLike;
use strata_ir::handle::tensor_bytes;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::kernel::{Kernel, KernelCache};
use strata_lower::nn::pair_attribute;
use strata_lower::nn::{list, window_attributes};
use strata_lower::ops::tensor_type;
use strata_lower::pads::Pad;

pub static INFO: PassInfo = PassInfo {
    name: "strata-band-input-pads",
    summary:
        "A convolution over a padded graph input runs in bands of output rows, each over a padded copy of only its rows",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "banded", help: "Convolutions run in bands over padded copies of their rows" },
        StatisticInfo {
            name: "far-from-peak",
            help: "Convolutions over a padded graph input left whole: not at the peak",
        },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(BandInputPads)
}

struct BandInputPads;

/// The fewest output rows a band has (a register block is up to 8 rows or columns).
pub const MIN_BAND_ROWS: i64 = 8;

/// The most bands one convolution is split into.
pub const MAX_BANDS: i64 = 4;

/// How many bands `rows` output rows make: the most bands up to [`MAX_BANDS`] that divide the
/// rows into bands of at least [`MIN_BAND_ROWS`]; 1 (no split) when none does.
fn bands(rows: i64) -> i64 {
    (2..=MAX_BANDS).rev().find(|&b| rows % b == 0 && rows / b >= MIN_BAND_ROWS).unwrap_or(1)
}

/// One band: output rows `[first, first + rows)`, input rows `[start, start + size)` of the
/// padded input's row space (row 0 is the first padding row), of which `[from, to)` lie in the
/// input (unpadded row numbers).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Band {
    first: i64,
    rows: i64,
    from: i64,
    to: i64,
    /// Zero rows before and after the input rows.
    low: i64,
    high: i64,
}

/// The bands of `count` equal parts of `output` rows, for a window of `window` rows at `stride`
/// and `dilation` over `input` rows padded by `top` above: each reads whole strides (the
/// schedule views a strided input as `[rows, stride]`).
fn split(output: i64, count: i64, window: i64, stride: i64, dilation: i64, input: i64, top: i64) -> Vec<Band> {
    let rows = output / count;
    (0..count)
        .map(|b| {
            let first = b * rows;
            let start = first * stride - top;
            let needed = (rows - 1) * stride + (window - 1) * dilation + 1;
            let size = (needed + stride - 1) / stride * stride;
            let (from, to) = (start.max(0), (start + size).min(input));
            Band { first, rows, from, to, low: from - start, high: start + size - to }
        })
        .collect()
}

/// The kernel text that replaces `op` (a `linalg.conv_2d_nchw_fchw` over `pad`) with `count`
/// bands; arguments the unpadded input, the filter, the accumulator.
fn kernel(op: Op, pad: &Pad, count: i64) -> Option<String> {
    let source = tensor_type(pad.source.r#type()).ok()?;
    let padded = tensor_type(op.operand(0).r#type()).ok()?;
    let filter = tensor_type(op.operand(1).r#type()).ok()?;
    let acc = tensor_type(op.operand(2).r#type()).ok()?;
    let (strides, dilations) = (pair_attribute(op, "strides")?, pair_attribute(op, "dilations")?);
    let [n, c, h, w] = source.shape[..] else { return None };
    let (top, left) = (pad.low[2], pad.low[3]);
    let right = padded.shape[3] - w - left;
    let parts = split(acc.shape[2], count, filter.shape[2], strides[0], dilations[0], h, top);
    let mut k = Kernel::new(vec![source.clone(), filter.clone(), acc.clone()]);
    let (x, weights) = (k.arg(0), k.arg(1));
    let attrs = window_attributes(&strides, &dilations);
    let zero = k.stored_constant(&pad.value, &source.elem);
    let mut result = k.arg(2);
    for band in parts {
        let slice_ty = source.with_shape(vec![n, c, band.to - band.from, w]);
        let rows = k.emit(format_args!(
            "tensor.extract_slice {x}[0, 0, {}, 0] [{}] [1, 1, 1, 1] : {source} to {slice_ty}",
            band.from,
            list(&slice_ty.shape)
        ));
        let padded_ty = source.with_shape(vec![n, c, band.low + (band.to - band.from) + band.high, left + w + right]);
        let input = k.emit(format_args!(
            "tensor.pad {rows} low[0, 0, {}, {left}] high[0, 0, {}, {right}] {{\n    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n      tensor.yield {zero} : {}\n    }} : {slice_ty} to {padded_ty}",
            band.low,
            band.high,
            source.elem.storage()
        ));
        let out_ty = acc.with_shape(vec![acc.shape[0], acc.shape[1], band.rows, acc.shape[3]]);
        let offsets = format!("[0, 0, {}, 0] [{}] [1, 1, 1, 1]", band.first, list(&out_ty.shape));
        let slice = k.emit(format_args!("tensor.extract_slice {result}{offsets} : {acc} to {out_ty}"));
        let conv = k.emit(format_args!(
            "linalg.conv_2d_nchw_fchw {attrs} ins({input}, {weights} : {padded_ty}, {filter}) outs({slice} : {out_ty}) -> {out_ty}"
        ));
        result = k.emit(format_args!("tensor.insert_slice {conv} into {result}{offsets} : {out_ty} into {acc}"));
    }
    k.set_result(result, acc);
    Some(format!("module {{\n{}}}\n", k.function("bands")))
}

impl Pass for BandInputPads {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let Some(body) = Op::of(&func).body(0) else { return Ok(()) };
        // Candidates: (convolution, its pad op, its kernel text, bytes the bands save).
        let mut candidates = Vec::new();
        for raw in collect(&func, |op| op.is("linalg.conv_2d_nchw_fchw")) {
            let op = Op::of(&raw.get());
            let Some(padded) = op.operand(0).owner() else { continue };
            let Some(pad) = Pad::of(padded.get()) else { continue };
            let source = Val::of(pad.source);
            let argument = source.argument_number().is_some() && source.owner_block() == Some(body);
            let Ok(acc) = tensor_type(op.operand(2).r#type()) else { continue };
            let f32_conv =
                acc.elem.to_string() == "f32" && tensor_type(pad.source.r#type()).is_ok_and(|t| t.rank() == 4);
            if !argument || !f32_conv || pad.number != 0.0 || pad.low[..2] != [0, 0] {
                continue;
            }
            let count = bands(acc.shape[2]);
            if count < 2 {
                continue;
            }
            let Some(text) = kernel(op, &pad, count) else { continue };
            let whole = tensor_bytes(op.operand(0).r#type()).unwrap_or(0);
            candidates.push((op, padded, text, whole - whole / count as u64));
        }
        if candidates.is_empty() {
            return Ok(());
        }
        let (ops, bytes) = pressure(body);
        let estimates: Vec<(u64, u64)> = candidates
            .iter()
            .map(|&(op, padded, _, saves)| (live_between(body, &ops, &bytes, Some(padded), op), saves))
            .collect();
        let chosen = near_peak(bytes.iter().copied().max().unwrap_or(0), &estimates);
        let mut kernels = KernelCache::default();
        for ((op, padded, text, _), chosen) in candidates.into_iter().zip(chosen) {
            if !chosen {
                cx.bump("far-from-peak", 1);
                continue;
            }
            let Some(pad) = Pad::of(padded.get()) else { continue };
            let operands = [Val::of(pad.source), op.operand(1), op.operand(2)];
            // Safety: `op` is replaced once and not used afterwards; its pad is erased only when
            // nothing else reads it.
            unsafe {
                kernels.replace_op_with(cx, op, &operands, &text, "band kernel")?;
                strata_ir::rewrite::erase_if_unused(padded);
            }
            cx.bump("banded", 1);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_divide_the_rows_into_blocks_of_at_least_eight() {
        assert_eq!(bands(64), 4);
        assert_eq!(bands(32), 4);
        assert_eq!(bands(24), 3);
        assert_eq!(bands(56), 4);
        assert_eq!(bands(15), 1);
        assert_eq!(bands(7), 1);
    }

    #[test]
    fn each_band_reads_whole_strides_of_its_rows() {
        // 3x3 stride 2 pad 1 on 64 rows -> 32 outputs in 4 bands of 8: each reads 2 * 8 + 1
        // rows rounded up to 18; the first starts in the top padding, the last ends in the
        // bottom one.
        let parts = split(32, 4, 3, 2, 1, 64, 1);
        assert_eq!(parts[0], Band { first: 0, rows: 8, from: 0, to: 17, low: 1, high: 0 });
        assert_eq!(parts[1], Band { first: 8, rows: 8, from: 15, to: 33, low: 0, high: 0 });
        assert_eq!(parts[3], Band { first: 24, rows: 8, from: 47, to: 64, low: 0, high: 1 });
        // Every output's window reads inside its band's rows.
        for (stride, window, input, top, output) in [(2, 3, 64, 1, 32), (1, 3, 16, 1, 16), (2, 7, 224, 3, 112)] {
            let count = bands(output);
            for band in split(output, count, window, stride, 1, input, top) {
                for o in band.first..band.first + band.rows {
                    for t in 0..window {
                        let row = o * stride - top + t;
                        let inside = (band.from..band.to).contains(&row);
                        let padding = row < 0 || row >= input;
                        assert!(inside || padding, "output {o} tap {t} reads row {row} outside {band:?}");
                    }
                }
            }
        }
    }
}
