//! 1x1 convolutions at unit stride blocked over their positions as one row (part of
//! `strata-cpu-schedule`, with [`crate::conv_lanes`]).
//!
//! Such a convolution is a matmul of the filters by the `C x (H * W)` input: its output rows
//! are no boundary for a register block, only for blocks that must divide them. MobileNetV2's
//! last stages run at 7 x 7 and 14 x 14, whose only divisors within the 12 accumulators of
//! AVX2 are 7 and 2 x 2: blocks of 7 positions x 8 filters (7 FMAs a step) or 4 x 16 (8).
//! Read as one row of 49 or 196 positions they take 6 positions x 16 filters (12 FMAs), the
//! last block of the row peeled (`strata_machine::partial`): 960 channels into 320 filters at
//! 7 x 7 ran 1.6x faster on a Zen3 core, 576 into 96 at 14 x 14 1.3x. The convolution's input
//! and accumulator are reshaped to `N x C x 1 x (H * W)` in its kernel, and an epilogue that
//! runs in its tiles is rewritten over the same shape (its operands reshaped, its result
//! reshaped back): views of the same buffers after bufferization, no copy.

use crate::conv_lanes::{conv_block, Registers};
use melior::ir::attribute::ArrayAttribute;
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::{Attribute, BlockLike, Identifier, Type, ValueLike};
use melior::Context;
use strata_ir::handle::{map_results, MapResult};
use strata_ir::{Op, Val};
use strata_lower::kernel::{Kernel, TensorTy};
use strata_lower::ops::tensor_type;

/// `ty` (`N x C x H x W`) with its positions in one row: `N x C x 1 x (H * W)`.
pub(crate) fn flat_type(ty: &TensorTy) -> TensorTy {
    ty.with_shape(vec![ty.shape[0], ty.shape[1], 1, ty.shape[2] * ty.shape[3]])
}

/// Whether the convolution `op` (input `x`, filter `w`, output `out`) is pointwise: a 1x1
/// filter at unit strides over an unpadded input (`padded`: its input is a pad), so a matmul of
/// its filters by its positions.
pub(crate) fn pointwise(op: OperationRef<'_, '_>, [x, w, out]: [&TensorTy; 3], padded: bool) -> bool {
    let strides = crate::conv_lanes::int_pair(op, "strides");
    w.shape[2..] == [1, 1] && strides == [1, 1] && !padded && x.shape[2..] == out.shape[2..]
}

/// Whether the convolution `op` (input `x`, filter `w`, output `out`, static f32) is blocked
/// as one row of positions: a 1x1 window at unit stride over an unpadded input (`padded`:
/// its input is a pad), several output rows, an `epilogue` (if any) that [`epilogue_flattens`],
/// a block of more outputs than the rows and columns allow (or as many where the rows end in
/// partial blocks, one a row against at most one flattened, or in whole blocks of columns
/// wider than the rows'), columns in the lanes kept there (a
/// few-tap convolution's filter-lane tiles end in transposed stores), every reshaped tensor
/// [`contiguous`], and, when its tiles run on `threads` threads, its positions split in
/// [`chunk`]s or at least two blocks of filters per thread (a band of rows: not at all):
/// otherwise the filters are the only parallel loop of the single row (MobileNetV2's 112 x
/// 112 projection into 16 filters ran 2.7x slower on two threads flattened, before chunks).
pub(crate) fn flattens(
    op: OperationRef<'_, '_>,
    [x, w, out]: [&TensorTy; 3],
    padded: bool,
    epilogue: Option<Op>,
    registers: Registers,
    threads: i64,
) -> bool {
    if !pointwise(op, [x, w, out], padded) || out.shape[2] < 2 {
        return false;
    }
    if epilogue.is_some_and(|e| !epilogue_flattens(e)) {
        return false;
    }
    let result = epilogue.unwrap_or(Op::of(&op)).result(0);
    let (f, taps) = (out.shape[1], w.shape[1]);
    let positions = out.shape[2] * out.shape[3];
    let Some((flat, columns)) = conv_block(1, positions, f, taps, 1, 1, registers, threads) else {
        return false;
    };
    let outputs = |[th, tw, tf]: [i64; 3]| th * tw * tf;
    let rows = conv_block(out.shape[2], out.shape[3], f, taps, 1, 1, registers, threads);
    // An input or accumulator inside another buffer is copied once flattened: worth it only
    // where the rows have no block at all (a loop nest, or the filters split with their rest
    // a loop nest): a detector head's 27 filters over 8 x 8 positions (AVX-512) whose input
    // is also padded for the next convolution ran 11 of them as a loop nest, 17 us against
    // well under a microsecond for the 8 KB copy.
    let reshaped = [op.operand(0).ok(), op.operand(2).ok()].into_iter().flatten().map(Val::of);
    if rows.is_some() && !reshaped.into_iter().all(contiguous) {
        return false;
    }
    // A result written into a padded buffer or a concatenation is copied there once
    // flattened: worth it only where the rows' blocks hold less than two thirds of the
    // flattened block's outputs (MobileNetV2's 7 x 7 expansions, 7 positions x 8 filters
    // against 6 x 16).
    let far_better = rows.is_none_or(|(rows, _)| 3 * outputs(rows) < 2 * outputs(flat));
    if !contiguous(result) && !far_better {
        return false;
    }
    let better = match rows {
        None => true,
        // Columns in the lanes stay there (filter lanes end in transposed stores).
        Some((_, true)) if !columns => false,
        Some((rows, rows_columns)) => {
            outputs(flat) > outputs(rows)
                || (columns
                    && rows_columns
                    && outputs(flat) == outputs(rows)
                    && ((flat[1] > rows[1] && !strata_machine::partial(flat, positions))
                        || strata_machine::partial(rows, out.shape[3])))
        }
    };
    let parallel = crate::conv_lanes::parallel_tiles(threads, out.numel() * taps);
    // A band of rows (its input a slice of `strata-band-chains`) keeps its rows on several
    // threads: MobileNetV2's first expansion in bands of 28 x 112 rows ran 0.12 ms on two
    // threads split by rows, 0.19 flattened (in chunks of positions or split by filters), 1.1x
    // faster on one thread. (Its tiles then split by rows, or by filters where a depthwise
    // convolution reads the bands: `conv_lanes`.)
    let band = band_input(op);
    let split = || !few_filter_blocks(f, flat[2], threads) || chunk(positions, flat[1], threads, result).is_some();
    better && (!parallel || (!band && split()))
}

/// Whether the convolution `op` reads a slice of its input (a band of rows of
/// `strata-band-chains`).
pub(crate) fn band_input(op: OperationRef<'_, '_>) -> bool {
    op.operand(0).ok().is_some_and(|x| Val::of(x).owner().is_some_and(|o| o.is("tensor.extract_slice")))
}

/// Whether `filters` in blocks of `tf` give fewer than two blocks to each of `threads`: split
/// along the filters alone, such a flattened convolution leaves threads idle or reading the
/// whole input each.
pub(crate) fn few_filter_blocks(filters: i64, tf: i64, threads: i64) -> bool {
    filters / tf.max(1) < 2 * threads
}

/// The positions per thread of a flattened convolution's parallel tiles (`positions` in blocks
/// of `tw`, on `threads` threads), if they split evenly into chunks of at least two blocks.
/// The chunks are the outermost parallel loop, so each thread computes every filter of its
/// share of the positions: the rows the convolutions and elementwise kernels around it,
/// split by rows, write and read on the same core. Split by filter blocks (each thread reading
/// every position, half of them from the other core's cache), ResNeXt's 128 -> 128 filters
/// at 56 x 56 took 1.49 ms on two threads, in chunks 0.83 (one thread: 0.96).
///
/// Not for a result that a depthwise convolution reads (through pads and slices): those split
/// their channels across threads, so the filter split leaves each core the channels it reads
/// next (MobileNetV2's 28 x 28 expansions ran 3-20% slower in chunks).
pub(crate) fn chunk(positions: i64, tw: i64, threads: i64, result: Val) -> Option<i64> {
    let even = threads > 1 && positions % threads == 0 && positions / threads >= 2 * tw;
    (even && !feeds_depthwise(result, 4)).then_some(positions / threads)
}

/// Positions per chunk of a flattened convolution on one thread whose input is too large for
/// L2: the chunks outermost, each read once from memory while every filter block takes it
/// from L2 (without, the filter blocks run outside the positions of a partial block and each
/// streams the whole input again). At most [`CHUNK_BYTES`] of input a chunk, at least two
/// register blocks, a divisor of the positions; `None` for an input within L2 or a single
/// filter block.
pub(crate) fn cache_chunk(positions: i64, [_, tw, tf]: [i64; 3], filters: i64, channels: i64) -> Option<i64> {
    let input = positions * channels * 4;
    if input <= CHUNKED_INPUT_BYTES || filters / tf.max(1) < 2 {
        return None;
    }
    (2 * tw..positions).rev().find(|&c| positions % c == 0 && c * channels * 4 <= CHUNK_BYTES)
}

/// Input bytes above which a flattened convolution on one thread runs in chunks of positions.
pub(crate) const CHUNKED_INPUT_BYTES: i64 = 1 << 20;

/// The most input bytes a chunk of positions takes (an eighth of L2).
pub(crate) const CHUNK_BYTES: i64 = 256 << 10;

/// Whether a depthwise convolution (or a pool: both split their channels across threads)
/// reads `value`, directly or through up to `depth` pads, slices, insertions and casts; with
/// the padding implicit (`strata-implicit-pads`), through `tensor.extract`s in its body.
pub(crate) fn feeds_depthwise(value: Val, depth: usize) -> bool {
    value.users().iter().any(|&user| {
        if user.is("linalg.depthwise_conv_2d_nchw_chw") {
            return true;
        }
        let implicit = user.is("tensor.extract").then(|| user.parent()).flatten();
        if implicit.and_then(crate::vectorize_depthwise::implicit).is_some_and(|(conv, _)| !conv.is_full()) {
            return true;
        }
        let through =
            ["tensor.pad", "tensor.extract_slice", "tensor.insert_slice", "tensor.cast"].iter().any(|n| user.is(n));
        depth > 0 && through && user.result_count() == 1 && feeds_depthwise(user.result(0), depth - 1)
    })
}

/// Whether `value`'s positions (H and W, the last two axes) are sure to stay one contiguous
/// run of each channel after bufferization, so that reshaping them is a view: a whole buffer
/// of its own, or a slice of whole rows of one (a band of rows, as `strata-band-chains` reads
/// them), and not written into another buffer (an insert into a concatenation, a pad that
/// `strata-pad-in-place` turns into writes inside the padded buffer). Reshaping a strided
/// interior made bufferization copy it: MobileNetV2's expansions, whose results are padded for
/// the depthwise convolutions after them, lost more in those copies than the blocks gained.
fn contiguous(value: Val) -> bool {
    let slice = value.owner().filter(|o| o.is("tensor.extract_slice"));
    let inserted = value.users().iter().any(|u| u.is("tensor.pad") || u.is("tensor.insert_slice"));
    slice.is_none_or(whole_rows) && !inserted
}

/// Whether the `tensor.extract_slice` `slice` of a 4-D tensor takes whole rows (every column,
/// unit strides along H and W) of a source that is itself [`contiguous`]: its rows are
/// consecutive in the source's buffer.
fn whole_rows(slice: Op) -> bool {
    let Some(strata_ir::ods::SliceBox { offsets, sizes, strides }) = strata_ir::ods::SliceBox::of(slice.get()) else {
        return false;
    };
    let source = tensor_type(slice.operand(0).r#type()).ok();
    let width = source.as_ref().filter(|t| t.rank() == 4).map(|t| t.shape[3]);
    slice.operand_count() == 1
        && sizes.len() == 4
        && width.is_some_and(|w| w > 0 && sizes[3] == w && offsets[3] == 0)
        && strides[2..] == [1, 1]
        && contiguous(slice.operand(0))
}

/// Whether `epilogue` (a `linalg.generic` of 4 loops) can run over the flattened positions:
/// every map either the identity or free of the rows and columns (a per-filter bias: loops 0
/// and 1 only, or the constant 0), the output's the identity, so that reshaping the identity
/// operands keeps its meaning.
fn epilogue_flattens(epilogue: Op) -> bool {
    let Some(maps) = epilogue.attribute("indexing_maps").and_then(map_results) else { return false };
    let identity = |map: &[MapResult]| map.len() == 4 && map.iter().enumerate().all(|(i, r)| *r == MapResult::Dim(i));
    let rowless = |map: &[MapResult]| map.iter().all(|r| matches!(r, MapResult::Dim(0 | 1) | MapResult::Zero));
    let loops = epilogue.attribute("iterator_types").and_then(|a| ArrayAttribute::try_from(a).ok()).map(|a| a.len());
    loops == Some(4)
        && maps.len() == epilogue.operand_count()
        && maps.last().is_some_and(|map| identity(map))
        && maps.iter().enumerate().all(
            |(i, map)| {
                if identity(map) {
                    contiguous(epilogue.operand(i))
                } else {
                    rowless(map)
                }
            },
        )
}

/// Emits into `k` the reshape of `value` (`from`, 4-D) to `to` (same element count, same
/// two leading dimensions): the last two dimensions collapsed, then expanded. Returns it.
pub(crate) fn reshape(k: &mut Kernel, value: &str, from: &TensorTy, to: &TensorTy) -> String {
    let collapsed = from.with_shape(vec![from.shape[0], from.shape[1], from.shape[2] * from.shape[3]]);
    let c = k.emit(format_args!("tensor.collapse_shape {value} [[0], [1], [2, 3]] : {from} into {collapsed}"));
    k.emit(format_args!(
        "tensor.expand_shape {c} [[0], [1], [2, 3]] output_shape [{}] : {collapsed} into {to}",
        strata_lower::nn::list(&to.shape)
    ))
}

/// The flattened accumulator behind `value`, the result of a flattened convolution's kernel
/// (an expand of a collapse of the marked generic's result), if it is one.
pub(crate) fn flat_source(value: Val) -> Option<Val> {
    let expand = value.owner().filter(|o| o.is("tensor.expand_shape"))?;
    let collapse = expand.operand(0).owner().filter(|o| o.is("tensor.collapse_shape"))?;
    let source = collapse.operand(0);
    source.owner().filter(|o| strata_ir::attrs::CONV_TILES.get(o.get()).is_some()).map(|_| source)
}

/// Rewrites `epilogue` (see [`epilogue_flattens`]) over the flattened positions: `result`
/// (the convolution kernel's 4-D result) read as `flat` (its flattened accumulator), the other
/// identity-mapped operands reshaped before it, its result flattened and reshaped back for
/// its readers.
pub(crate) fn flatten_epilogue(context: &Context, epilogue: Op, result: Val, flat: Val) {
    for i in 0..epilogue.operand_count() {
        let operand = epilogue.operand(i);
        if operand == result {
            epilogue.set_operand(i, flat);
            continue;
        }
        let Ok(ty) = tensor_type(operand.r#type()) else { continue };
        if ty.rank() == 4 {
            let reshaped = reshape_before(context, epilogue, operand, &flat_type(&ty));
            epilogue.set_operand(i, reshaped);
        }
    }
    let out = epilogue.result(0);
    let ty = tensor_type(out.r#type()).expect("a 4-D tensor result");
    out.get().set_type(flat.r#type());
    let next = epilogue.next().expect("an epilogue is followed by its readers");
    let back = reshape_before(context, next, out, &ty);
    let collapse = back.owner().and_then(|e| e.operand(0).owner()).expect("a collapse");
    for (user, index) in out.uses() {
        if user != collapse {
            user.set_operand(index, back);
        }
    }
}

/// Inserts before `before` the reshape of `value` (4-D) to `to`, as [`reshape`]; its result.
fn reshape_before(context: &Context, before: Op, value: Val, to: &TensorTy) -> Val {
    let from = tensor_type(value.r#type()).expect("a tensor");
    let collapsed = from.with_shape(vec![from.shape[0], from.shape[1], from.shape[2] * from.shape[3]]);
    let parse_type = |ty: &TensorTy| Type::parse(context, &ty.to_string()).expect("a tensor type");
    let reassociation = || Attribute::parse(context, "[[0], [1], [2, 3]]").expect("an array");
    let output_shape = Attribute::parse(context, &format!("array<i64: {}>", strata_lower::nn::list(&to.shape)))
        .expect("a dense i64 array");
    let anchor = before.get();
    let block = anchor.block().expect("the anchor is in a block");
    let collapse = OperationBuilder::new("tensor.collapse_shape", anchor.location())
        .add_operands(&[value.get()])
        .add_results(&[parse_type(&collapsed)])
        .add_attributes(&[(Identifier::new(context, "reassociation"), reassociation())])
        .build()
        .expect("a valid collapse");
    let collapse = block.insert_operation_before(anchor, collapse);
    let expand = OperationBuilder::new("tensor.expand_shape", anchor.location())
        .add_operands(&[collapse.result(0).expect("one result").into()])
        .add_results(&[parse_type(to)])
        .add_attributes(&[
            (Identifier::new(context, "reassociation"), reassociation()),
            (Identifier::new(context, "static_output_shape"), output_shape),
        ])
        .build()
        .expect("a valid expand");
    let expand: OperationRef = block.insert_operation_before(anchor, expand);
    Val::from(expand.result(0).expect("one result"))
}

#[cfg(test)]
mod tests {
    use super::cache_chunk;

    #[test]
    fn chunks_keep_a_large_input_in_l2() {
        // ResNet-50's 256 -> 128 reduction at 56 x 56 (3.2 MB), blocks of 12 x 32: chunks of
        // 224 positions (229 KB).
        assert_eq!(cache_chunk(3136, [1, 12, 32], 128, 256), Some(224));
        // Within L2, or a single filter block: whole.
        assert_eq!(cache_chunk(784, [1, 12, 32], 128, 256), None);
        assert_eq!(cache_chunk(3136, [1, 12, 32], 32, 256), None);
    }
}
