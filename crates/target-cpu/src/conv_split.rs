//! Convolutions rewritten before the host schedule blocks them (part of
//! `strata-cpu-schedule`, with [`crate::conv_lanes`]): split on their output rows
//! ([`split_rows`]: a 1-D convolution whose row count has no useful divisor, a strided one
//! whose last row alone reads past its input's whole strides) or in two on their
//! filters ([`split_filters`]: a filter count with no register block), each part writing its
//! slice of the result in place; and a filter read through a static slice of a constant made a
//! constant of its own ([`fold_constant_slice`]), so that it is laid out at compile time.

use crate::conv_lanes::{conv_block, int_pair, new_f32_constant, positions, static_f32_operands, Registers};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use melior::Context;
use strata_ir::rewrite::{collect, defining_op};
use strata_ir::{Op, PassContext, PassFailed};
use strata_lower::nn::list;
use strata_lower::ops::tensor_type;

/// The rows `[0, main)` to give a convolution of its own when its output rows have no divisor
/// that makes a block of several positions: a 1-D convolution over 199 samples (a prime) took
/// blocks of one position by 32 filters, two accumulators, 2.4 MMACs in 0.07 ms. The largest
/// multiple of 8 below the rows takes blocks of 8 rows, the rest blocks of their own. 1-D
/// convolutions (one output column) at row stride 1 only: a strided input would be read
/// rounded up to whole strides (a copy), and the parts lose what the schedule fuses into a
/// whole convolution's tiles (its bias, its epilogue), which 2-D convolutions with a prime
/// side (13 x 13 on AVX2) were not measured against.
fn row_split(op: OperationRef<'_, '_>, registers: Registers, threads: i64) -> Option<i64> {
    let (_, w, out) = static_f32_operands(op, 4)?;
    let [row_stride, column_stride] = int_pair(op, "strides");
    let (rows, columns, filters) = (out.shape[2], out.shape[3], out.shape[1]);
    let window = w.shape[2] * w.shape[3];
    let block = |rows: i64| {
        conv_block(rows, columns, filters, w.shape[1] * window, window, column_stride.max(1), registers, threads)
    };
    let (whole, _) = block(rows)?;
    let main = rows / 8 * 8;
    if row_stride != 1 || columns != 1 || positions(whole) >= 4 || main < 8 || main == rows {
        return None;
    }
    let (first, _) = block(main)?;
    block(rows - main)?;
    (positions(first) > positions(whole)).then_some(main)
}

/// The rows `[0, main)` to give a convolution of its own when its row stride would make the
/// host schedule read its input rounded up to whole strides, and only its last output row reads
/// past the input's whole strides. The schedule splits a strided axis into (position, phase),
/// which needs the input a whole number of strides long: an input of 799 rows read at stride 2
/// was written into an 800-row buffer, every channel a row longer than the tensor (the audio
/// model's arena 320 bytes over running its ONNX nodes one by one). Split, the first rows read
/// a whole number of strides of the input as it is (a view), and the last row, one output, is
/// the same convolution at stride 1 on its own window. Only over an unpadded input (a padded
/// one is a copy already, rounded with it), whose columns need no rounding, and only when the
/// rest is that one row.
///
/// Where the first rows' count has a worse register block than the whole (798 rows, twice a
/// prime: blocks of 2 positions by 16 filters, two accumulators, where 399 take 21), they are
/// cut again at the last multiple of the whole's block rows: the audio model's first strided
/// convolution (48 filters over 399 samples) had run 3.7x slower per multiply-add than its
/// neighbours. Each part reads whole strides of the input (a view).
fn stride_split(op: OperationRef<'_, '_>, registers: Registers, threads: i64) -> Option<Vec<i64>> {
    let (x, w, out) = static_f32_operands(op, 4)?;
    let [row_stride, column_stride] = int_pair(op, "strides").map(|s| s.max(1));
    let [dilation, column_dilation] = int_pair(op, "dilations").map(|d| d.max(1));
    let (extent, kh, rows) = (x.shape[2], w.shape[2], out.shape[2]);
    let splits = row_stride > 1 && dilation % row_stride != 0 && kh > 1;
    let padded = defining_op(op.operand(0).ok()?).and_then(strata_lower::pads::Pad::of).is_some();
    // The columns rounded up too would be a copy all the same.
    let columns_split = column_stride > 1 && column_dilation % column_stride != 0 && w.shape[3] > 1;
    if !splits || padded || extent % row_stride == 0 || (columns_split && x.shape[3] % column_stride != 0) {
        return None;
    }
    let whole = extent / row_stride * row_stride;
    // The outputs whose windows end inside the whole strides: (o - 1) s + (kh - 1) d < whole.
    let main = (whole - 1 - (kh - 1) * dilation).div_euclid(row_stride) + 1;
    if main < 1 || rows - main != 1 {
        return None;
    }
    let window = w.shape[2] * w.shape[3];
    let block = |r: i64| {
        conv_block(r, out.shape[3], out.shape[1], w.shape[1] * window, window, column_stride, registers, threads)
    };
    let ((all_rows, _), (main_rows, _)) = (block(rows)?, block(main)?);
    let cut = main / all_rows[0] * all_rows[0];
    if positions(main_rows) >= positions(all_rows) || cut == 0 || cut == main || block(main - cut).is_none() {
        return Some(vec![main]);
    }
    Some(vec![cut, main])
}

/// Rewrites each convolution that [`row_split`] or [`stride_split`] splits on its row ranges
/// (two, or three), each on a slice of the input and of the accumulator, written back in place.
pub(crate) fn split_rows(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    registers: Registers,
    threads: i64,
) -> Result<(), PassFailed> {
    split_parts(module, cx, SplitAxis::Rows, |op| {
        row_split(op, registers, threads).map(|main| vec![main]).or_else(|| stride_split(op, registers, threads))
    })
}

/// The axis [`split_parts`] splits a convolution on.
#[derive(Clone, Copy, PartialEq)]
enum SplitAxis {
    /// Output rows: each part reads the input rows its windows reach, and every filter.
    Rows,
    /// Filters: each part reads the whole input and its filters.
    Filters,
}

/// Rewrites each convolution for which `split` gives increasing indices `cuts` into parts on
/// `axis` (`[0, cuts[0])`, `[cuts[0], cuts[1])`, ... and the rest), each writing its slice of
/// the accumulator in place.
fn split_parts(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    axis: SplitAxis,
    split: impl Fn(OperationRef<'_, '_>) -> Option<Vec<i64>>,
) -> Result<(), PassFailed> {
    let mut kernels = strata_lower::kernel::KernelCache::default();
    for raw in collect(&module, |op| op.is("linalg.conv_2d_nchw_fchw")) {
        let op = raw.get();
        let Some(cuts) = split(op) else { continue };
        let Some((x, w, out)) = static_f32_operands(op, 4) else { continue };
        let dilations = int_pair(op, "dilations").map(|d| d.max(1));
        let [kh, dilation] = [w.shape[2], dilations[0]];
        let strides = int_pair(op, "strides").map(|s| s.max(1));
        let row_stride = strides[0];
        let mut k = strata_lower::kernel::Kernel::new(vec![x.clone(), w.clone(), out.clone()]);
        let (input, filter) = (k.arg(0), k.arg(1));
        let mut result = k.arg(2);
        let dim = if axis == SplitAxis::Rows { 2 } else { 1 };
        let bounds: Vec<i64> = std::iter::once(0).chain(cuts).chain(std::iter::once(out.shape[dim])).collect();
        if bounds.windows(2).any(|pair| pair[0] >= pair[1]) {
            continue;
        }
        for (first, count) in bounds.windows(2).map(|pair| (pair[0], pair[1] - pair[0])) {
            let mut at = [0i64; 4];
            at[dim] = first;
            let mut out_shape = out.shape.clone();
            out_shape[dim] = count;
            let out_ty = out.with_shape(out_shape);
            // A part of one output row reads one window: its row stride is immaterial, 1.
            let part_strides = if axis == SplitAxis::Rows && count == 1 { [1, strides[1]] } else { strides };
            let (part_x, x_ty, part_w, w_ty) = match axis {
                SplitAxis::Rows => {
                    // The rows its windows read, from its first output's; a whole number of
                    // strides where the input has them (the schedule reads a strided part so).
                    let start = first * row_stride;
                    let mut extent = (count - 1) * row_stride + (kh - 1) * dilation + 1;
                    if count > 1 {
                        extent = ((extent + row_stride - 1) / row_stride * row_stride).min(x.shape[2] - start);
                    }
                    let in_ty = x.with_shape(vec![x.shape[0], x.shape[1], extent, x.shape[3]]);
                    let mut from = [0i64; 4];
                    from[2] = start;
                    let slice = k.emit(format_args!(
                        "tensor.extract_slice {input}[{}] [{}] [1, 1, 1, 1] : {x} to {in_ty}",
                        list(&from),
                        list(&in_ty.shape)
                    ));
                    (slice, in_ty, filter.clone(), w.clone())
                }
                SplitAxis::Filters => {
                    let w_ty = w.with_shape(vec![count, w.shape[1], w.shape[2], w.shape[3]]);
                    let slice = k.emit(format_args!(
                        "tensor.extract_slice {filter}[{first}, 0, 0, 0] [{}] [1, 1, 1, 1] : {w} to {w_ty}",
                        list(&w_ty.shape)
                    ));
                    (input.clone(), x.clone(), slice, w_ty)
                }
            };
            let offsets = format!("[{}] [{}] [1, 1, 1, 1]", list(&at), list(&out_ty.shape));
            let acc = k.emit(format_args!("tensor.extract_slice {result}{offsets} : {out} to {out_ty}"));
            let attrs = strata_lower::nn::window_attributes(&part_strides, &dilations);
            let part = k.emit(format_args!(
                "linalg.conv_2d_nchw_fchw {attrs} ins({part_x}, {part_w} : {x_ty}, {w_ty}) outs({acc} : {out_ty}) -> {out_ty}"
            ));
            result = k.emit(format_args!("tensor.insert_slice {part} into {result}{offsets} : {out_ty} into {out}"));
        }
        k.set_result(result, out);
        let (name, what) = match axis {
            SplitAxis::Rows => ("rows", "convolution rows"),
            SplitAxis::Filters => ("filters", "convolution filters"),
        };
        let text = format!("module {{\n{}}}\n", k.function(name));
        // Safety: `op` is a convolution of this module, replaced once and not used afterwards.
        unsafe { kernels.replace_op(cx, op, &text, what)? };
    }
    Ok(())
}

/// The filters of `op` that a register block takes (a multiple of a tile's filters) when the
/// whole count has no block of its own and the rest is fewer than a vector: a short-time
/// Fourier transform's 402 filters (201 bins, real and imaginary) run as 400 in blocks and 2
/// in a loop nest, where all 402 ran as a loop nest (6.7 ms against 0.11 ms) or were padded to
/// 416 with zeros in the model (an output buffer larger than the spectrum). A convolution
/// whose positions flatten into one row has a block for every filter count (its filters
/// blocked whole, [`strata_machine::whole_filters`]) and is not split: a detector head's 27
/// filters over 8 x 8 positions (AVX-512) ran 16 in blocks and 11 as a loop nest, which
/// flattening cannot reach (a part writes a slice of the result).
fn filter_split(op: OperationRef<'_, '_>, registers: Registers, threads: i64) -> Option<i64> {
    let (x, w, out) = static_f32_operands(op, 4)?;
    if crate::conv_lanes::block_shape(op, [&x, &w, &out], registers, threads).flat {
        return None;
    }
    let (window, column_stride) = (w.shape[2] * w.shape[3], int_pair(op, "strides")[1].max(1));
    let taps = w.shape[1] * window;
    let block = |f: i64| conv_block(out.shape[2], out.shape[3], f, taps, window, column_stride, registers, threads);
    let f = out.shape[1];
    if block(f).is_some() {
        return None;
    }
    [2 * registers.lanes, registers.lanes]
        .into_iter()
        .map(|tf| f / tf * tf)
        .find(|&main| main > 0 && f - main < registers.lanes && block(main).is_some())
}

/// Rewrites each convolution that [`filter_split`] splits into two on its filter ranges, each
/// with a slice of the filter (a constant one is sliced at compile time: see
/// [`fold_constant_slice`]) and of the accumulator, written back in place.
pub(crate) fn split_filters(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    registers: Registers,
    threads: i64,
) -> Result<(), PassFailed> {
    split_parts(module, cx, SplitAxis::Filters, |op| filter_split(op, registers, threads).map(|main| vec![main]))
}

/// The name of the constants [`fold_constant_slice`] makes.
const SLICE_RESOURCE: &str = "conv_filter_slice";

/// Makes `conv`'s filter (operand 1) a constant of its own when it is a static
/// `tensor.extract_slice` (not rank-reducing) of an f32 constant (or of one reshaped into groups): the border
/// parts of `strata-conv-borders` read their taps so. The filter is then rearranged at compile
/// time like any constant filter, not transposed in the kernel into a buffer on every run.
pub(crate) fn fold_constant_slice(context: &Context, conv: OperationRef<'_, '_>) -> Option<()> {
    let slice = defining_op(conv.operand(1).ok()?).filter(|d| strata_ir::ods::op_name(*d) == "tensor.extract_slice")?;
    let source = slice.operand(0).ok()?;
    let mut constant = defining_op(source)?;
    if strata_ir::ods::op_name(constant) == "tensor.expand_shape" {
        constant = defining_op(constant.operand(0).ok()?)?;
    }
    if strata_ir::ods::op_name(constant) != "arith.constant" || slice.operand_count() != 1 {
        return None;
    }
    let ints = |name: &str| strata_ir::ods::i64_array(slice, name);
    let (offsets, sizes, strides) = (ints("static_offsets")?, ints("static_sizes")?, ints("static_strides")?);
    let from = tensor_type(source.r#type()).ok()?;
    let values = strata_ir::resource::f32_values(constant.attribute("value").ok()?)?;
    if values.len() as i64 != from.numel() {
        return None;
    }
    let sliced = strata_lower::fold_transposes::slice_values(&values, &from.shape, &offsets, &sizes, &strides)?;
    let ty = from.with_shape(sizes);
    if tensor_type(slice.result(0).ok()?.r#type()).ok()? != ty {
        return None;
    }
    let value = new_f32_constant(context, conv, &ty, &sliced, SLICE_RESOURCE);
    Op::of(&conv).set_operand(1, value);
    Some(())
}
