//! `strata-band-chains`: a convolution and the pool (or convolution) that reads its result
//! (through the convolution's elementwise epilogue and the reader's pad) run together in bands
//! of the reader's output rows, each band computing only the convolution rows its windows read.
//!
//! A pool shrinks what it reads: ResNet's stem pools a `64 x 112 x 112` convolution result
//! (3.2 MB) into `64 x 56 x 56` (0.8 MB), and both are live while the pool runs, the model's
//! peak (ONNX Runtime's too). Here the convolution, its epilogue, the pool's pad and the pool
//! run band after band: band `b` computes the convolution rows that the pool's windows of its
//! output rows read (on a padded copy of only the input rows those need, as
//! `strata-band-input-pads` does for a whole convolution), applies the epilogue to them, pads
//! them as the whole result was padded (the padding rows only at the top and bottom bands),
//! pools them into its rows of the pool's result (`tensor.extract_slice` of the accumulator,
//! `tensor.insert_slice` back). Each band's intermediates are dead when the next band starts,
//! so the arena holds one band's instead of the whole result: ResNet-18's peak falls from the
//! stem (4.0 MB) to its first residual stage (2.5 MB).
//!
//! Every band reproduces exactly the values the whole chain computed for its rows (the same
//! ops, cloned, on slices), so any pad value and any pool kind is exact. The windows of
//! neighbouring bands overlap by `window - stride` rows (one for a 3 x 3 stride-2 pool): those
//! convolution rows are computed twice, 2% more of the stem's work in ResNet's three bands.
//!
//! The consumer can also be a convolution: a stride-2 convolution reading the padded result
//! of the one before (a detector's or a U-Net's downsampling) keeps that whole padded result
//! live beside its own. Banded the same way, each band makes its own initial value (the
//! consumer's bias) and applies the consumer's elementwise epilogue, so the register-blocked
//! schedule still fuses both into its tiles; the bands are inserted into a new tensor, or,
//! where a constant pad of H and W alone reads the consumer's result (the next convolution's
//! padding), into a tensor filled with the padding value at the pad's offsets, which then
//! replaces the pad: the result is made inside its padded buffer, as `strata-pad-in-place`
//! makes a whole one (`eliminate-empty-tensors` cannot follow the bands' insertions into a
//! pad written after them, and left a copy of the whole result).
//! A consumer that keeps its rows (a stride-1 convolution) returns a result as large as the
//! one banded, so its chain pays only where the producer's result is much larger than one
//! band of it: ESPCN's 5 x 5 stem (one channel into 64 at 224 x 224) and the 3 x 3
//! convolution reading it, 12.8 MB each, banded in two: its arena 26.3 -> 20.1 MB, the
//! convolutions faster in bands (their Winograd kernel's input half as large).
//! Or a depthwise convolution, banded the same way: MobileNets' peak is an expansion's 1x1
//! result beside its padded copy for the stride-2 depthwise step that reads it
//! (`96 x 112 x 112` in MobileNetV2's first block, 4.8 MB): banded, MobileNetV2's arena
//! 6.02 -> 3.91 MB, the outputs the same bytes, as fast (its expansion recomputes 6% of its
//! rows; the bands' rows stay in the caches for the depthwise step), compiled in 0.1 s more.
//! Only after an expansion, a 1x1 convolution (see [`chain_of`]).
//!
//! What makes a chain: a `linalg.pooling_nchw_max` or `_sum`, or a `linalg.conv_2d_nchw_fchw`
//! or `linalg.depthwise_conv_2d_nchw_chw` (after a 1x1 convolution) whose initial value is
//! made as below, whose input is (a `tensor.pad`, along H and W only, read only by it, of)
//! the result of a `linalg.conv_2d_nchw_fchw` or of an elementwise `linalg.generic` over it
//! (every loop parallel, the convolution's result read at the identity and by nothing else,
//! its other operands independent of the rows, its output the result itself or an empty
//! tensor). The convolution's initial value must be a fill or a
//! row-independent generic (a broadcast bias) over an empty tensor, read only by the
//! convolution, so that each band makes its own; all of it static f32. A consumer convolution's
//! epilogue, an elementwise generic of the same kind, goes into the bands with it. One
//! convolution can end one chain and start the next: each op is banded once.
//!
//! How many bands: every band is a convolution and its consumer (or a pool's border parts,
//! `strata-conv-borders`) compiled on its own, so as few as do the job. By the pre-bufferization
//! estimate `strata-conv-borders` uses ([`pressure`]), the fewest from two for which what is
//! live across the chain, the consumer's result and the widest band fit under the peak of the
//! rest of the function (ResNet-18: three, its first residual stage being the rest's peak);
//! where none fits, about the strides' product (a band of convolution rows then about the size
//! of the consumer's result), at most [`MAX_BANDS`].
//!
//! Which chains: only chains that lower the function's peak: while the estimate's peak lies
//! inside a chain's ops and banding it takes at least `min-saving` bytes ([`MIN_SAVES`] by
//! default) off the peak, and a sixth of it where the consumer keeps its rows
//! ([`KEEPING_SHARE`]), it is banded and the estimate lowered ([`select_at_peak`]). Elsewhere bands cost code,
//! launches and recomputed rows for nothing. `all=true` bands every chain.

use crate::conv_borders::pressure;
use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::BlockLike;
use melior::ir::{Attribute, Block, Identifier, Region, RegionLike, Type, ValueLike};
use melior::Context;
use strata_ir::handle::{map_results, tensor_bytes, MapResult};
use strata_ir::rewrite::{collect, erase_if_unused};
use strata_ir::{
    Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val,
};
use strata_lower::kernel::TensorTy;
use strata_lower::nn::pair_attribute;
use strata_lower::ops::tensor_type;
use strata_lower::pads::Pad;

pub static INFO: PassInfo = PassInfo {
    name: "strata-band-chains",
    summary: "A convolution and the pool or (depthwise) convolution reading it run in bands of output rows, each computing only the rows read",
    anchor: "func.func",
    options: &[
        OptionInfo {
            name: "all",
            kind: OptionKind::Bool,
            default: "false",
            help: "band every chain, not only those that lower the function's peak",
        },
        OptionInfo {
            name: "min-saving",
            kind: OptionKind::Int,
            default: "32768",
            help: "the fewest bytes a chain's bands must take off the function's estimated peak",
        },
    ],
    statistics: &[
        StatisticInfo { name: "banded", help: "Chains (a convolution and its pool or (depthwise) convolution) run in bands" },
        StatisticInfo { name: "bands", help: "Bands made" },
        StatisticInfo {
            name: "far-from-peak",
            help: "Chains left whole: not at the function's peak, or sharing an op with a chain banded",
        },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(BandChains { all: options.bool("all"), min_saving: options.int("min-saving").max(0) as u64 })
}

struct BandChains {
    all: bool,
    /// See [`MIN_SAVES`].
    min_saving: u64,
}

/// The ops that end a chain: pools, and convolutions.
const CONSUMERS: [&str; 4] = ["linalg.pooling_nchw_max", "linalg.pooling_nchw_sum", CONV, DEPTHWISE];

/// A depthwise convolution: a consumer like a full one (its initial value and epilogue made
/// per band), its filter `C x KH x KW`.
const DEPTHWISE: &str = "linalg.depthwise_conv_2d_nchw_chw";

/// The convolution that starts a chain (and may end one).
const CONV: &str = "linalg.conv_2d_nchw_fchw";

/// The most bands one chain is split into.
pub const MAX_BANDS: i64 = 8;

/// The share of the function's estimated peak that banding a chain whose consumer keeps its
/// rows (a stride-1 convolution) must take off it, at least (1/6): such a consumer returns a
/// result as large as the one banded, and its bands recompute `window - 1` of the producer's
/// rows at every boundary and run as kernels of their own. By the estimate: ESPCN's stem and
/// the 3 x 3 convolution reading it, 24% (its arena 26.3 -> 20.1 MB, faster); MobileNetV2's
/// second expansion and the stride-1 depthwise step reading it, 19% (3.91 -> 3.25 MB; one
/// thread as fast, two 2% slower: twice the kernels at 56 x 56); the zoo's Inception cell,
/// 13.5%, but 1.1% off its arena as planned (1082880 -> 1070592 B), where two such chains
/// once cost 5-10% of its run time.
pub const KEEPING_SHARE: u64 = 6;

/// The fewest bytes banding a chain must take off the function's estimated peak by default
/// (option `min-saving`): below it the bands' launches cost more than the bytes are worth (the
/// zoo's 1-D TCN: 22 KB off its peak by two bands of a 64-channel convolution pair, its 0.4 ms
/// run 10-30% slower on two threads).
pub const MIN_SAVES: i64 = 32 << 10;

/// A convolution, what follows it and the pool (or convolution) that ends the chain.
#[derive(Clone, Copy)]
struct Chain {
    /// The pool or the convolution that reads the producer's result through its windows.
    consumer: Op,
    /// A consumer convolution's initial value (a fill or a row-free generic over an empty
    /// tensor, made again for each band) and its elementwise epilogue (banded with it).
    consumer_init: Option<Op>,
    consumer_epilogue: Option<Op>,
    /// The pool's pad of the convolution's (or the epilogue's) result.
    pad: Option<Op>,
    /// The elementwise generic over the convolution's result.
    epilogue: Option<Op>,
    conv: Op,
    /// The op making the convolution's initial value (its last operand an empty tensor).
    init: Op,
    /// The convolution's input pad.
    input_pad: Option<Op>,
    /// The constant pad of H and W that alone reads a consumer convolution's result (after its
    /// epilogue): the bands are written into the padded tensor's interior, as
    /// `strata-pad-in-place` would write a whole result.
    result_pad: Option<Op>,
}

/// One window axis (rows) of a convolution or a pool: `window` taps `dilation` apart, at
/// `stride`, over an input padded by `top` rows above.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Window {
    window: i64,
    stride: i64,
    dilation: i64,
    top: i64,
}

impl Window {
    /// The padded input rows `[start, end)` that output rows `[first, last)` read.
    fn reads(&self, (first, last): (i64, i64)) -> (i64, i64) {
        (first * self.stride, (last - 1) * self.stride + (self.window - 1) * self.dilation + 1)
    }
}

/// One band of a chain, in rows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Band {
    /// The consumer's output rows.
    output: (i64, i64),
    /// The convolution's output rows.
    rows: (i64, i64),
    /// Padding rows above and below them (the pool's padding, at the first and last bands).
    pad: (i64, i64),
    /// The convolution's input rows read, `[from, to)` of the unpadded input.
    input: (i64, i64),
    /// Padding rows above and below those input rows.
    input_pad: (i64, i64),
}

/// The most bands a pool of `rows` output rows at strides `strides` takes: about the strides'
/// product (a band of convolution rows then about the pool's output), at least 2 and at most
/// [`MAX_BANDS`]; 1 when the rows are too few for two bands of two.
fn most_bands(rows: i64, strides: [i64; 2]) -> i64 {
    let most = (strides[0] * strides[1]).clamp(2, MAX_BANDS).min(rows / 2);
    most.max(1)
}

/// The bands to make: the fewest from 2 up to `most` for which `fits` holds, `most` if none
/// does. Every band is a convolution and a pool (or its border parts) compiled on its own (the
/// bands' views differ by more than their offsets), so fewer bands compile sooner.
fn band_count(most: i64, fits: impl Fn(i64) -> bool) -> i64 {
    (2..most).find(|&c| fits(c)).unwrap_or(most)
}

/// The bands of a chain: `count` bands of the pool's `rows` output rows (the last takes what
/// is left), for the pool's window `pool` over the convolution's `conv_rows` result rows (as
/// padded), the convolution's window `conv` over `input_rows` input rows, `input_padded`
/// whether the input is a pad (else its rows are read as they are: nothing outside them).
/// `None` if a band would read padding only.
fn bands(
    rows: i64,
    count: i64,
    pool: Window,
    conv_rows: i64,
    conv: Window,
    input_rows: i64,
    input_padded: bool,
) -> Option<Vec<Band>> {
    let per = (rows + count - 1) / count;
    let mut bands = Vec::new();
    let mut first = 0;
    while first < rows {
        let last = (first + per).min(rows);
        let (start, end) = pool.reads((first, last));
        let (a, b) = (start - pool.top, end - pool.top);
        let (ea, eb) = (a.max(0), b.min(conv_rows));
        if eb <= ea {
            return None;
        }
        // The convolution's input rows, whole strides of them (the host schedule views a
        // strided input as `[rows, stride]`), in the unpadded input's numbering.
        let (start, end) = conv.reads((ea, eb));
        let size = (end - start + conv.stride - 1) / conv.stride * conv.stride;
        let start = start - conv.top;
        let end = if input_padded { start + size } else { (start + size).min(input_rows) };
        let (from, to) = (start.max(0), end.min(input_rows));
        bands.push(Band {
            output: (first, last),
            rows: (ea, eb),
            pad: (ea - a, b - eb),
            input: (from, to),
            input_pad: (from - start, end - to),
        });
        first = last;
    }
    Some(bands)
}

/// The only op that reads `value` (once or more), if one does.
pub fn only_user(value: Val) -> Option<Op> {
    let users = value.users();
    let first = *users.first()?;
    users.iter().all(|&u| u == first).then_some(first)
}

/// A static 4-D f32 tensor type.
pub(crate) fn static_f32(value: Val) -> Option<TensorTy> {
    let ty = tensor_type(value.r#type()).ok()?;
    (ty.elem.to_string() == "f32" && ty.rank() == 4 && ty.shape.iter().all(|&d| d > 0)).then_some(ty)
}

/// A pad of H and W only: its static low and high amounts.
fn spatial_pad(op: Op) -> Option<(Vec<i64>, Vec<i64>)> {
    Pad::of(op.get())?;
    let low = strata_ir::ods::i64_array(op.get(), "static_low")?;
    let high = strata_ir::ods::i64_array(op.get(), "static_high")?;
    (low.len() == 4 && high.len() == 4 && low[..2] == [0, 0] && high[..2] == [0, 0]).then_some((low, high))
}

/// Whether `op` is a `linalg.generic` whose loops are all parallel, whose body does not read
/// its position (`linalg.index`: a band's rows are numbered from its first), and whose operands
/// other than `value` (read at the identity) and its output (an empty tensor, or `value`) do
/// not depend on the rows (loop 2): each band can run its own copy.
fn row_free_generic(op: Op, value: Val) -> bool {
    let Some(iterators) = op.attribute("iterator_types") else { return false };
    let Some(maps) = op.attribute("indexing_maps").and_then(map_results) else { return false };
    let count = op.operand_count();
    let identity = |map: &[MapResult]| map.iter().enumerate().all(|(i, r)| *r == MapResult::Dim(i));
    let reads_rows = |map: &[MapResult]| map.iter().any(|r| matches!(r, MapResult::Dim(2) | MapResult::Other));
    op.is("linalg.generic")
        && op.result_count() == 1
        && !iterators.to_string().contains("reduction")
        && op.collect(|nested| nested.is("linalg.index")).is_empty()
        && maps.len() == count
        && maps.last().is_some_and(|m| m.len() == 4)
        && (0..count).all(|i| {
            let operand = op.operand(i);
            if operand == value {
                identity(&maps[i])
            } else if i == count - 1 {
                operand.owner().is_some_and(|o| o.is("tensor.empty"))
            } else {
                !reads_rows(&maps[i])
            }
        })
}

/// Whether `init`, the op making `start`, makes a value each band can make again: a fill or a
/// row-free generic (a broadcast bias) over an empty tensor, read only by `reader`.
fn fresh_start(init: Op, start: Val, reader: Op) -> bool {
    let empty_output = init.operand(init.operand_count() - 1).owner().is_some_and(|o| o.is("tensor.empty"));
    let fill = init.is("linalg.fill") && init.operand_count() == 2;
    only_user(start) == Some(reader) && empty_output && (fill || row_free_generic(init, start))
}

/// The elementwise generic over `result` (a convolution's), if it is its only reader and can
/// run band by band ([`row_free_generic`], the result read as its first operand).
fn epilogue_over(result: Val) -> Option<Op> {
    let op = only_user(result)?;
    let fits = op.result_count() == 1 && op.operand(0) == result && op.result(0).r#type() == result.r#type();
    (fits && row_free_generic(op, result)).then_some(op)
}

/// The chain that `consumer` ends, if it makes one (see the module comment).
fn chain_of(consumer: Op) -> Option<Chain> {
    static_f32(consumer.result(0))?;
    let (consumer_init, consumer_epilogue) = if consumer.is(CONV) || consumer.is(DEPTHWISE) {
        // Input and accumulator NCHW; the filter 4-D, or `C x KH x KW` for a depthwise one.
        [0, 2].into_iter().try_for_each(|i| static_f32(consumer.operand(i)).map(drop))?;
        let filter = tensor_type(consumer.operand(1).r#type()).ok()?;
        (filter.elem.to_string() == "f32" && filter.rank() == if consumer.is(CONV) { 4 } else { 3 }).then_some(())?;
        let start = consumer.operand(2);
        let init = start.owner()?;
        fresh_start(init, start, consumer).then_some(())?;
        (Some(init), epilogue_over(consumer.result(0)))
    } else {
        (None, None)
    };
    let result = consumer_epilogue.unwrap_or(consumer).result(0);
    let result_pad = only_user(result).filter(|&op| {
        op.is("tensor.pad") && consumer_init.is_some() && spatial_pad(op).is_some() && Pad::of(op.get()).is_some()
    });
    let mut value = consumer.operand(0);
    let pad = value.owner().filter(|op| op.is("tensor.pad"));
    if let Some(pad) = pad {
        spatial_pad(pad)?;
        (only_user(value)? == consumer).then_some(())?;
        value = pad.operand(0);
    }
    let reader = pad.unwrap_or(consumer);
    (only_user(value)? == reader).then_some(())?;
    let producer = value.owner()?;
    let (epilogue, conv) = if producer.is(CONV) {
        (None, producer)
    } else {
        let result = producer.operand(0);
        let conv = result.owner().filter(|op| op.is(CONV))?;
        (epilogue_over(result)? == producer && producer.result(0) == value).then_some(())?;
        (Some(producer), conv)
    };
    (0..3).try_for_each(|i| static_f32(conv.operand(i)).map(drop))?;
    // A depthwise consumer only after an expansion (a 1x1 convolution): its bands are cheap
    // to compile. MobileNetV3-Small's peak is its stem (a 3x3 convolution over the padded
    // image, then a stride-2 depthwise step): banded too (four bands), its arena fell 1.13 ->
    // 0.63 MB but its compile took 1.03 -> 1.61 s, the bands' stem and depthwise kernels each
    // specialised to their rows and padding.
    if consumer.is(DEPTHWISE) && static_f32(conv.operand(1))?.shape[2..] != [1, 1] {
        return None;
    }
    let start = conv.operand(2);
    let init = start.owner()?;
    fresh_start(init, start, conv).then_some(())?;
    let input_pad = conv.operand(0).owner().filter(|op| op.is("tensor.pad"));
    if let Some(input_pad) = input_pad {
        spatial_pad(input_pad)?;
    }
    Some(Chain { consumer, consumer_init, consumer_epilogue, pad, epilogue, conv, init, input_pad, result_pad })
}

/// The ops `chain` replaces.
fn members(chain: Chain) -> Vec<Op> {
    [
        chain.result_pad,
        chain.consumer_epilogue,
        Some(chain.consumer),
        chain.consumer_init,
        chain.pad,
        chain.epilogue,
        Some(chain.conv),
        Some(chain.init),
        chain.input_pad,
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The rows axis of a windowed op (`strides`, `dilations` attributes) with window `window`,
/// padded by `top`.
fn rows_window(op: Op, window: i64, top: i64) -> Option<Window> {
    let (strides, dilations) = (pair_attribute(op, "strides")?, pair_attribute(op, "dilations")?);
    Some(Window { window, stride: strides[0].max(1), dilation: dilations[0].max(1), top })
}

/// The most bands `chain` takes ([`most_bands`]).
fn most_bands_of(chain: Chain) -> Option<i64> {
    let out = static_f32(chain.consumer.result(0))?;
    let strides = pair_attribute(chain.consumer, "strides")?;
    Some(most_bands(out.shape[2], [strides[0].max(1), strides[1].max(1)]))
}

/// Whether `chain`'s consumer keeps its rows (row stride 1; see [`KEEPING_SHARE`]).
fn keeps_rows(chain: Chain) -> bool {
    pair_attribute(chain.consumer, "strides").is_none_or(|strides| strides[0] <= 1)
}

/// `count` bands of `chain` (see [`bands`]); `None` when it cannot be banded.
fn chain_bands(chain: Chain, count: i64) -> Option<Vec<Band>> {
    let out = static_f32(chain.consumer.result(0))?;
    // A pool's window is `KH x KW`, a convolution's filter `F x C x KH x KW`.
    let window = tensor_type(chain.consumer.operand(1).r#type()).ok()?;
    let window_rows = *window.shape.get(window.rank() - 2)?;
    let pool_top = match chain.pad {
        Some(pad) => spatial_pad(pad)?.0[2],
        None => 0,
    };
    let pool = rows_window(chain.consumer, window_rows, pool_top)?;
    let filter = static_f32(chain.conv.operand(1))?;
    let result = static_f32(chain.conv.result(0))?;
    let (input_rows, conv_top) = match chain.input_pad {
        Some(pad) => (static_f32(pad.operand(0))?.shape[2], spatial_pad(pad)?.0[2]),
        None => (static_f32(chain.conv.operand(0))?.shape[2], 0),
    };
    let conv = rows_window(chain.conv, filter.shape[2], conv_top)?;
    bands(out.shape[2], count, pool, result.shape[2], conv, input_rows, chain.input_pad.is_some())
}

/// The bytes one band keeps live: its convolution rows as the pool reads them (padded) and its
/// padded copy of the convolution's input rows.
fn band_bytes(chain: Chain, band: &Band) -> u64 {
    let row_bytes = |value: Val| static_f32(value).map_or(0, |t| (t.numel() / t.shape[2]) as u64 * 4);
    let (rows, input_rows) = (band.rows.1 - band.rows.0 + band.pad.0 + band.pad.1, band.input.1 - band.input.0);
    let result = row_bytes(chain.pad.map_or(chain.conv.result(0), |p| p.result(0))) * rows as u64;
    let input = chain
        .input_pad
        .map_or(0, |p| row_bytes(p.result(0)) * (input_rows + band.input_pad.0 + band.input_pad.1) as u64);
    result + input
}

/// What the pressure estimate ([`pressure`]: `ops`, `bytes`) says of one chain: the
/// positions `[first, last]` of its ops in `body`, and the bytes of the values computed before
/// it that are still read at or after its first op, the pool's accumulator excepted.
fn live_across(chain: Chain, body: Blk, ops: &[Op]) -> Option<((usize, usize), u64)> {
    let position = |op: Op| op.ancestor_in(body).and_then(|top| ops.iter().position(|&o| o == top));
    let members = [chain.input_pad, Some(chain.init), Some(chain.conv)];
    let first = members.into_iter().flatten().filter_map(position).min()?;
    let last = position(chain.consumer_epilogue.unwrap_or(chain.consumer))?;
    let accumulator = chain.consumer.operand(2);
    let mut live = 0;
    for op in &ops[..first] {
        if op.is("arith.constant") || op.is("tensor.empty") {
            continue;
        }
        for result in op.results() {
            let read_later = result.users().into_iter().any(|u| position(u).is_some_and(|p| p >= first));
            if read_later && result != accumulator {
                live += tensor_bytes(result.r#type()).unwrap_or(0);
            }
        }
    }
    Some(((first, last), live))
}

/// Builds the new ops before `anchor` (also `strata-split-concat-convs`').
pub(crate) struct Builder<'c> {
    pub(crate) context: &'c Context,
    pub(crate) anchor: Op,
}

impl<'c> Builder<'c> {
    fn ty(&self, ty: &TensorTy) -> Type<'c> {
        Type::parse(self.context, &ty.to_string()).expect("a tensor type parses")
    }

    fn insert(&self, op: melior::ir::Operation<'c>) -> Op {
        let block = self.anchor.get().block().expect("the anchor is in a block");
        Op::of(&block.insert_operation_before(self.anchor.get(), op))
    }

    fn array(&self, values: &[i64]) -> Attribute<'c> {
        DenseI64ArrayAttribute::new(self.context, values).into()
    }

    /// The static slice attributes of offsets `offsets` and sizes `sizes`, unit strides.
    fn slice_attributes(
        &self,
        offsets: &[i64],
        sizes: &[i64],
        segments: &[i32],
    ) -> Vec<(Identifier<'c>, Attribute<'c>)> {
        vec![
            (Identifier::new(self.context, "static_offsets"), self.array(offsets)),
            (Identifier::new(self.context, "static_sizes"), self.array(sizes)),
            (Identifier::new(self.context, "static_strides"), self.array(&vec![1; offsets.len()])),
            (
                Identifier::new(self.context, "operandSegmentSizes"),
                DenseI32ArrayAttribute::new(self.context, segments).into(),
            ),
        ]
    }

    /// `source[offsets .. offsets + sizes]` of a static f32 value, unit strides.
    pub(crate) fn slice(&self, source: Val, offsets: &[i64], sizes: &[i64]) -> Val {
        let ty = static_f32(source).expect("a static f32 value");
        let op = OperationBuilder::new("tensor.extract_slice", self.anchor.location())
            .add_operands(&[source.get()])
            .add_attributes(&self.slice_attributes(offsets, sizes, &[1, 0, 0, 0]))
            .add_results(&[self.ty(&ty.with_shape(sizes.to_vec()))])
            .build()
            .expect("a valid extract_slice");
        self.insert(op).result(0)
    }

    /// Rows `rows` of a 4-D value.
    fn rows_of(&self, source: Val, rows: (i64, i64)) -> Val {
        let ty = static_f32(source).expect("a chain's values are static f32");
        self.slice(source, &[0, 0, rows.0, 0], &[ty.shape[0], ty.shape[1], rows.1 - rows.0, ty.shape[3]])
    }

    /// `dest` with `part` written at rows from `first`, columns from `left`.
    fn insert_rows(&self, part: Val, dest: Val, (first, left): (i64, i64)) -> Val {
        let ty = static_f32(part).expect("a chain's values are static f32");
        let op = OperationBuilder::new("tensor.insert_slice", self.anchor.location())
            .add_operands(&[part.get(), dest.get()])
            .add_attributes(&self.slice_attributes(&[0, 0, first, left], &ty.shape, &[1, 1, 0, 0, 0]))
            .add_results(&[dest.r#type()])
            .build()
            .expect("a valid insert_slice");
        self.insert(op).result(0)
    }

    /// A new tensor of the pad `op`'s type filled with its padding value: the destination the
    /// bands are written into, at the pad's offsets.
    fn filled_like(&self, op: Op) -> Val {
        let pad = Pad::of(op.get()).expect("checked by chain_of");
        let ty = static_f32(op.result(0)).expect("a chain's values are static f32");
        let f32 = Type::float32(self.context);
        let value = Attribute::parse(self.context, &format!("{} : f32", pad.value)).expect("a float literal parses");
        let scalar = strata_ir::rewrite::constant_before(self.context, self.anchor.get(), f32, value)
            .expect("the anchor is in a block");
        let empty = self.empty(&ty);
        let location = self.anchor.location();
        let body = Block::new(&[(f32, location), (f32, location)]);
        let argument = body.argument(0).expect("a fill's body has two arguments");
        body.append_operation(
            OperationBuilder::new("linalg.yield", location)
                .add_operands(&[argument.into()])
                .build()
                .expect("a valid linalg.yield"),
        );
        let region = Region::new();
        region.append_block(body);
        let op = OperationBuilder::new("linalg.fill", location)
            .add_operands(&[scalar.get(), empty.get()])
            .add_attributes(&[(
                Identifier::new(self.context, "operandSegmentSizes"),
                DenseI32ArrayAttribute::new(self.context, &[1, 1]).into(),
            )])
            .add_regions([region])
            .add_results(&[self.ty(&ty)])
            .build()
            .expect("a valid linalg.fill");
        self.insert(op).result(0)
    }

    fn empty(&self, ty: &TensorTy) -> Val {
        let op = OperationBuilder::new("tensor.empty", self.anchor.location())
            .add_results(&[self.ty(ty)])
            .build()
            .expect("a valid tensor.empty");
        self.insert(op).result(0)
    }

    /// A copy of `op` with operands `operands` replaced (by index) and its result of type `ty`.
    pub(crate) fn clone(&self, op: Op, operands: &[(usize, Val)], ty: &TensorTy) -> Val {
        let new = op.clone_detached();
        self.anchor.block().expect("the anchor is in a block").insert_before(self.anchor, new);
        for &(i, value) in operands {
            new.set_operand(i, value);
        }
        let result = new.result(0);
        result.get().set_type(self.ty(ty));
        result
    }

    /// A copy of the pad `op` of `source`, padding rows by `rows` (above, below) and the
    /// other axes as `op` does.
    fn pad(&self, op: Op, source: Val, rows: (i64, i64)) -> Val {
        let (mut low, mut high) = spatial_pad(op).expect("checked by chain_of");
        (low[2], high[2]) = rows;
        let ty = static_f32(source).expect("a chain's values are static f32");
        let shape: Vec<i64> = (0..4).map(|d| low[d] + ty.shape[d] + high[d]).collect();
        let padded = self.clone(op, &[(0, source)], &ty.with_shape(shape));
        let new = padded.owner().expect("a pad's result");
        new.set_attribute("static_low", self.array(&low));
        new.set_attribute("static_high", self.array(&high));
        padded
    }

    /// A copy of the elementwise `op` over `value` (its operands that are `replaced` now
    /// `value`, its empty output a new one), of type `ty`.
    fn elementwise(&self, op: Op, replaced: Val, value: Val, ty: &TensorTy) -> Val {
        let count = op.operand_count();
        let operands: Vec<(usize, Val)> = (0..count)
            .filter_map(|i| match op.operand(i) {
                v if v == replaced => Some((i, value)),
                _ if i == count - 1 => Some((i, self.empty(ty))),
                _ => None,
            })
            .collect();
        self.clone(op, &operands, ty)
    }
}

/// `ty` with `rows` rows.
fn with_rows(ty: &TensorTy, (first, last): (i64, i64)) -> TensorTy {
    ty.with_shape(vec![ty.shape[0], ty.shape[1], last - first, ty.shape[3]])
}

/// Replaces `chain` by its `bands`.
fn rewrite(context: &Context, chain: Chain, bands: &[Band]) {
    let last = chain.consumer_epilogue.unwrap_or(chain.consumer);
    let b = Builder { context, anchor: last };
    let conv_ty = static_f32(chain.conv.result(0)).expect("checked by chain_of");
    let out_ty = static_f32(chain.consumer.result(0)).expect("checked by chain_of");
    let input = chain.input_pad.map_or(chain.conv.operand(0), |p| p.operand(0));
    // A pool writes its bands into slices of its accumulator; a convolution's bands start from
    // values of their own and are inserted into a new tensor.
    // Where the consumer's result is padded, the bands go into the padded tensor's interior.
    let mut acc = match (chain.consumer_init, chain.result_pad) {
        (Some(_), Some(pad)) => b.filled_like(pad),
        (Some(_), None) => b.empty(&out_ty),
        (None, _) => chain.consumer.operand(2),
    };
    let (top, left) = chain.result_pad.and_then(spatial_pad).map_or((0, 0), |(low, _)| (low[2], low[3]));
    for band in bands {
        let input = b.rows_of(input, band.input);
        let input = match chain.input_pad {
            Some(pad) => b.pad(pad, input, band.input_pad),
            None => input,
        };
        let rows_ty = with_rows(&conv_ty, band.rows);
        let empty = b.empty(&rows_ty);
        let start = b.clone(chain.init, &[(chain.init.operand_count() - 1, empty)], &rows_ty);
        let mut value = b.clone(chain.conv, &[(0, input), (2, start)], &rows_ty);
        if let Some(epilogue) = chain.epilogue {
            value = b.elementwise(epilogue, chain.conv.result(0), value, &rows_ty);
        }
        if let Some(pad) = chain.pad {
            value = b.pad(pad, value, band.pad);
        }
        let part_ty = with_rows(&out_ty, band.output);
        let part = match chain.consumer_init {
            Some(init) => {
                let empty = b.empty(&part_ty);
                b.clone(init, &[(init.operand_count() - 1, empty)], &part_ty)
            }
            None => b.rows_of(acc, band.output),
        };
        let mut out = b.clone(chain.consumer, &[(0, value), (2, part)], &part_ty);
        if let Some(epilogue) = chain.consumer_epilogue {
            out = b.elementwise(epilogue, chain.consumer.result(0), out, &part_ty);
        }
        acc = b.insert_rows(out, acc, (band.output.0 + top, left));
    }
    chain.result_pad.unwrap_or(last).result(0).replace_all_uses_with(acc);
    // The ops replaced, readers first, then the empty tensors they wrote into (each once: one
    // `tensor.empty` may serve several).
    let output = |op: Op| op.operand(op.operand_count() - 1).owner().filter(|o| o.is("tensor.empty"));
    let mut dead = members(chain);
    let written = [Some(chain.init), chain.epilogue, chain.consumer_init, chain.consumer_epilogue];
    for empty in written.into_iter().flatten().filter_map(output) {
        if !dead.contains(&empty) {
            dead.push(empty);
        }
    }
    // Safety: each op is erased once, after every op that read it, and only when nothing
    // reads it.
    for op in dead {
        unsafe { erase_if_unused(op) };
    }
}

impl Pass for BandChains {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let Some(body) = Op::of(&func).body(0) else { return Ok(()) };
        let chains: Vec<(Chain, i64)> = collect(&func, |op| CONSUMERS.iter().any(|name| op.is(name)))
            .into_iter()
            .filter_map(|raw| {
                let chain = chain_of(Op::of(&raw.get()))?;
                let most = most_bands_of(chain)?;
                (most >= 2 && chain_bands(chain, most).is_some()).then_some((chain, most))
            })
            .collect();
        if chains.is_empty() {
            return Ok(());
        }
        let (ops, bytes) = pressure(body);
        let spans: Vec<Option<((usize, usize), u64)>> =
            chains.iter().map(|&(c, _)| live_across(c, body, &ops)).collect();
        // The estimated peak of the rest of the function: banding a chain further than that
        // saves nothing.
        let inside = |i: usize| spans.iter().flatten().any(|&((a, b), _)| (a..=b).contains(&i));
        let rest = bytes.iter().enumerate().filter(|&(i, _)| !inside(i)).map(|(_, &b)| b).max().unwrap_or(0);
        // Candidates: (chain, its bands, bytes the bands save, its ops' span), each with the
        // fewest bands that take it down to the rest's peak.
        let mut candidates = Vec::new();
        for (&(chain, most), span) in chains.iter().zip(&spans) {
            let Some((range, live)) = *span else { continue };
            let whole = tensor_bytes(chain.conv.result(0).r#type()).unwrap_or(0);
            let widest = |bands: &[Band]| bands.iter().map(|b| band_bytes(chain, b)).max().unwrap_or(whole);
            let base = live + tensor_bytes(chain.consumer.result(0).r#type()).unwrap_or(0);
            let fits = |count| chain_bands(chain, count).is_some_and(|bands| base + widest(&bands) <= rest);
            let count = band_count(most, fits);
            let Some(bands) = chain_bands(chain, count) else { continue };
            let saves = whole.saturating_sub(widest(&bands));
            candidates.push(Candidate { chain, saves, range, bands, keeps_rows: keeps_rows(chain) });
        }
        let chosen =
            if self.all { select_all(&candidates) } else { select_at_peak(&candidates, bytes, self.min_saving) };
        cx.bump("far-from-peak", (candidates.len() - chosen.len()) as u64);
        for k in chosen {
            let Candidate { chain, ref bands, .. } = candidates[k];
            rewrite(cx.strata().mlir(), chain, bands);
            cx.bump("banded", 1);
            cx.bump("bands", bands.len() as u64);
        }
        Ok(())
    }
}

/// A chain that can be banded.
struct Candidate {
    chain: Chain,
    /// Its bands, as many as [`band_count`] takes.
    bands: Vec<Band>,
    /// Bytes the bands save (the convolution's whole result less the widest band's).
    saves: u64,
    /// The positions of its first and last ops in the function's body.
    range: (usize, usize),
    /// Whether its consumer keeps its rows ([`KEEPING_SHARE`]).
    keeps_rows: bool,
}

/// Whether two candidates share an op (one chain's consumer is the next one's producer): each
/// op is banded once.
fn overlap(a: &Candidate, b: &Candidate) -> bool {
    let theirs = members(b.chain);
    members(a.chain).iter().any(|op| theirs.contains(op))
}

/// Every candidate that shares no op with one taken before it (`all=true`).
fn select_all(candidates: &[Candidate]) -> Vec<usize> {
    let mut chosen: Vec<usize> = Vec::new();
    for (k, candidate) in candidates.iter().enumerate() {
        if !chosen.iter().any(|&c| overlap(&candidates[c], candidate)) {
            chosen.push(k);
        }
    }
    chosen
}

/// The candidates that lower the function's peak, by the pressure estimate `bytes`: while the
/// estimate's peak lies inside a candidate's ops (the one saving the most there, sharing no
/// op with one taken) and banding it takes at least `min_saving` bytes off the peak, take it
/// and lower the estimate over its ops by what it saves. A chain away from the peak is left
/// whole: its bands would cost code, launches and recomputed rows for nothing (every
/// bottleneck block of ResNet-50 is such a chain).
fn select_at_peak(candidates: &[Candidate], mut bytes: Vec<u64>, min_saving: u64) -> Vec<usize> {
    let mut chosen: Vec<usize> = Vec::new();
    while let Some((peak, _)) = bytes.iter().enumerate().max_by_key(|&(i, &b)| (b, std::cmp::Reverse(i))) {
        let next = (0..candidates.len())
            .filter(|&k| !chosen.contains(&k))
            .filter(|&k| (candidates[k].range.0..=candidates[k].range.1).contains(&peak))
            .filter(|&k| !chosen.iter().any(|&c| overlap(&candidates[c], &candidates[k])))
            .max_by_key(|&k| (candidates[k].saves, std::cmp::Reverse(k)));
        let Some(k) = next else { break };
        let (first, last) = candidates[k].range;
        let mut lowered = bytes.clone();
        for b in &mut lowered[first..=last] {
            *b = b.saturating_sub(candidates[k].saves);
        }
        let before = bytes[peak];
        let least = if candidates[k].keeps_rows { min_saving.max(before / KEEPING_SHARE) } else { min_saving };
        if before.saturating_sub(lowered.iter().copied().max().unwrap_or(0)) < least {
            break;
        }
        chosen.push(k);
        bytes = lowered;
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_saving_is_the_constant() {
        assert_eq!(INFO.options[1].default, MIN_SAVES.to_string());
    }

    #[test]
    fn the_fewest_bands_that_fit() {
        assert_eq!((most_bands(56, [2, 2]), most_bands(28, [1, 1]), most_bands(64, [3, 3])), (4, 2, 8));
        assert_eq!(most_bands(3, [2, 2]), 1);
        assert_eq!(band_count(4, |c| c >= 3), 3);
        // None fits: the most.
        assert_eq!(band_count(4, |_| false), 4);
    }

    #[test]
    fn each_band_computes_the_rows_its_windows_read() {
        // ResNet's stem: 7x7 stride 2 pad 3 on 224 rows -> 112, then a 3x3 stride 2 pad 1
        // pool -> 56, in four bands of 14 pool rows.
        let pool = Window { window: 3, stride: 2, dilation: 1, top: 1 };
        let conv = Window { window: 7, stride: 2, dilation: 1, top: 3 };
        let parts = bands(56, 4, pool, 112, conv, 224, true).unwrap();
        assert_eq!(parts.len(), 4);
        // Pool rows 0-13 read padded rows 0-28: a padding row, then convolution rows 0-27,
        // which read input rows -3..58 (whole strides: 56 + 6 rounded up to 62).
        assert_eq!(parts[0], Band { output: (0, 14), rows: (0, 28), pad: (1, 0), input: (0, 59), input_pad: (3, 0) });
        assert_eq!(parts[1].rows, (27, 56));
        assert_eq!(
            parts[3],
            Band { output: (42, 56), rows: (83, 112), pad: (0, 0), input: (163, 224), input_pad: (0, 3) }
        );
        // Every pool window's taps lie in its band's rows or padding, and every convolution
        // row's taps in its band's input rows or padding.
        for band in &parts {
            for o in band.output.0..band.output.1 {
                for t in 0..3 {
                    let row = o * 2 - 1 + t;
                    assert!((band.rows.0..band.rows.1).contains(&row) || !(0..112).contains(&row));
                }
            }
            for r in band.rows.0..band.rows.1 {
                for t in 0..7 {
                    let row = r * 2 - 3 + t;
                    assert!((band.input.0..band.input.1).contains(&row) || !(0..224).contains(&row));
                }
            }
            let padded = band.input_pad.0 + band.input.1 - band.input.0 + band.input_pad.1;
            assert_eq!(padded % 2, 0, "whole strides");
        }
    }

    #[test]
    fn an_unpadded_input_is_read_within_its_rows() {
        // VGG-style: 3x3 stride 1 without padding on 18 rows -> 16, then a 2x2 stride 2 pool ->
        // 8, in four bands of two pool rows.
        let pool = Window { window: 2, stride: 2, dilation: 1, top: 0 };
        let conv = Window { window: 3, stride: 1, dilation: 1, top: 0 };
        let parts = bands(8, 4, pool, 16, conv, 18, false).unwrap();
        assert_eq!(parts[0], Band { output: (0, 2), rows: (0, 4), pad: (0, 0), input: (0, 6), input_pad: (0, 0) });
        assert_eq!(parts[3], Band { output: (6, 8), rows: (12, 16), pad: (0, 0), input: (12, 18), input_pad: (0, 0) });
    }
}
