//! Host convolutions with the output channels in the SIMD lanes (part of
//! `strata-cpu-schedule`, on tensors before bufferization).
//!
//! A `linalg.conv_2d_nchw_fchw` in f32 becomes a `linalg.generic` over `(n, oh, ow, f, c, kh,
//! kw)` that reads its filter as `C x KH x KW x F`: a constant filter is transposed once, at
//! compile time, into a new weight; any other filter by a `linalg.transpose` in the kernel.
//! `schedules/cpu-conv.mlir` then tiles it into register blocks of `th x tw` output positions
//! by `tf` filters, steps the reduction one `(c, kh, kw)` at a time, and vectorises: each step
//! broadcasts `th * tw` input values, loads `tf` contiguous filter values and does
//! `th * tw` fused multiply-adds of `vector<tf x f32>` into accumulators that stay in
//! registers for the whole reduction. Unlike a spatial vector (`ow` in the lanes, recipe 2 of
//! ../shared/notes/cpu-codegen.md), this needs no spatial size to be a multiple of the vector
//! width: ResNet's 28, 14 and 7 and MobileNetV2's 112 ... 7 all tile exactly. Filters too few
//! for half a register (DenseNet's 12), and convolutions with few taps per output (whose
//! filter-lane tiles end in a transposed store they do not amortise), take that spatial vector
//! after all where vectors of columns divide the output width (`strata_machine::conv_block`):
//! the loops become `(n, oh, f, ow, c, kh, kw)` and each step is `tf` FMAs of `tw` contiguous
//! columns. Grouped convolutions that `strata-implicit-pads` leaves to this pass (which the
//! host's full-convolution kernel takes otherwise, see `vectorize_depthwise`; here with
//! `--disable conv-borders`, or under 4 outputs a row) always take it (`rewrite_grouped`), one
//! group and several rows a tile. The bias (or zero)
//! initialisation is fused into the tile, and the padded input is written in
//! destination-passing style so that tiling never pulls the padding copy into the loops.

use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::{Attribute, BlockLike, Identifier, Type, ValueLike};
use melior::Context;
use std::collections::BTreeMap;
use strata_ir::rewrite::{collect, defining_op, inline_call_with};
use strata_ir::{attrs, PassContext, PassFailed};
use strata_ir::{Op, Val};
use strata_lower::nn::list;
use strata_lower::ops::tensor_type;
use strata_lower::pads::{bias_broadcast, bias_value, Init, Pad};

pub use strata_machine::{conv_block, conv_tiles, Registers};

/// A filter `F x C x K` (K = KH * KW, row-major) rearranged to `C x K x F`: the filters of one
/// (c, kh, kw) tap contiguous, one vector load per tap.
fn filter_chwf(values: &[f32], [f, c, k]: [i64; 3]) -> Vec<f32> {
    filter_chwf_padded(values, [f, c, k], f)
}

/// As [`filter_chwf`], each tap's row of `f` filters stored `row` floats apart (`row >= f`;
/// the padding is zero).
fn filter_chwf_padded(values: &[f32], [f, c, k]: [i64; 3], row: i64) -> Vec<f32> {
    let mut chwf = vec![0f32; (c * k * row) as usize];
    for fi in 0..f {
        for tap in 0..c * k {
            chwf[(tap * row + fi) as usize] = values[(fi * c * k + tap) as usize];
        }
    }
    chwf
}

/// The distance in floats between consecutive taps' filters in a compile-time `C x K x F`
/// filter: `f`, or one cache line more when `f` filters are an even number of 64-byte lines
/// from 128 filters up. A register tile reads `tf` filters per tap (16 on AVX2), the taps of
/// its whole reduction one after another: at a stride of a power-of-two number of lines they
/// fall into a fraction of the L1 and L2 sets (512 bytes apart: an eighth of them) and evict
/// each other and the input rows long before the tile is done. On a Zen3 core (AVX2, 32 KiB
/// 8-way L1, 512 KiB L2) 3x3 convolutions of 128 channels at 28 x 28 ran at 43 GFLOP/s with
/// 128 or 256 filters, 74-79 with 16 to 64; with an odd number of lines between taps every set
/// takes its share. Costs at most an eighth more filter bytes.
pub fn padded_row(f: i64) -> i64 {
    const LINE: i64 = 16;
    if f >= 128 && f % (2 * LINE) == 0 {
        f + LINE
    } else {
        f
    }
}

/// The `dense_resource` name of the filters rearranged at compile time.
const FILTER_RESOURCE: &str = "conv_filter_chwf";

/// The `dense_resource` name of the filters packed at compile time.
const PACKED_RESOURCE: &str = "conv_filter_packed";

/// A filter `F x C x K` (K = KH * KW, row-major) packed into blocks of `tf` filters, `F / tf x
/// C x K x tf`: the `tf` filters of one tap contiguous, and a block's taps one after another.
fn filter_packed(values: &[f32], [f, c, k]: [i64; 3], tf: i64) -> Vec<f32> {
    let taps = c * k;
    let mut packed = vec![0f32; (f * taps) as usize];
    for fi in 0..f {
        let (block, lane) = (fi / tf, fi % tf);
        for tap in 0..taps {
            packed[((block * taps + tap) * tf + lane) as usize] = values[(fi * taps + tap) as usize];
        }
    }
    packed
}

/// Whether a filter-lane convolution blocked as `block` reads a compile-time filter packed
/// ([`filter_packed`]) rather than as `C x KH x KW x F` rows. A tile reads `tf` filters a tap;
/// in rows, one tap's `tf` filters and the next tap's are a whole row apart: a tile of fewer
/// filters than a cache line (8 on AVX2) uses half of every line it reads, and every tile walks
/// the filter at a long stride. ResNet-18's 3x3 convolutions of 512 channels at 7 x 7 (7
/// positions by 8 filters a tile, 2.4 MB of filter a block of rows reads) ran at 31 GFLOP/s
/// from rows on a Zen3 core and at 60 packed (7.3 -> 3.8 ms); tiles of whole lines (16 filters
/// on AVX2) gained 0-10% and never lost. A convolution computed inside its epilogue's tiles
/// keeps rows: MLIR's fusion of a producer into a consumer's tile needs the producer's output
/// map to be a projected permutation, and the packed output map `f = fo * tf + fi` is not one
/// (see docs/notes.md for the expanded form tried and why it was dropped). One block of every
/// filter (`f == tf`) is the rows' layout already.
fn packs(block: &ConvBlock, filters: i64, epilogue: bool) -> bool {
    !block.spatial && !block.grouped && !epilogue && filters > block.tiles[2]
}

/// How one convolution is tiled: its register block and the order of the tile loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvBlock {
    /// `[th, tw, tf]` (see [`conv_tiles`]).
    pub tiles: [i64; 3],
    /// Filter blocks outermost (then output rows and columns): when the filter is larger than
    /// the input, so each filter block is read from the cache for every output position
    /// instead of the whole filter streaming from memory once per position block.
    pub filters_outer: bool,
    /// The result goes only to an elementwise epilogue (a generic marked `strata.epilogue` by
    /// `sg-egraph-optimize`): the schedule tiles the epilogue and computes each convolution
    /// tile inside it, so the epilogue runs on the accumulators and the convolution's own
    /// result never reaches memory.
    pub epilogue: bool,
    /// Its tiles run in parallel (one `scf.forall`): compiled for several threads, and with
    /// at least [`PARALLEL_MACS`] multiply-adds.
    pub parallel: bool,
    /// Output columns in the lanes instead of filters (see [`conv_block`]): `tw` columns are
    /// one or two vectors, or half of one (a grouped convolution's: any width from a quarter
    /// to a whole vector), and the loops are `(n, oh, f, ow, c, kh, kw)`.
    pub spatial: bool,
    /// A grouped convolution (`linalg.conv_2d_ngchw_gfchw`, always with columns in the lanes):
    /// the loops are `(n, g, oh, f, ow, c, kh, kw)`, one group a tile.
    pub grouped: bool,
    /// The filter is a compile-time constant stored in packed blocks `F / tf x C x KH x KW x
    /// tf` (see [`packs`]) and the loops are `(n, oh, ow, fo, fi, c, kh, kw)`: a tile reads its
    /// filters as one contiguous stream.
    pub packed: bool,
    /// `tw` does not divide the output's columns (`strata_machine::partial`): the tiles step
    /// along the columns in a loop of their own, whose last, narrower block is peeled off.
    pub partial: bool,
    /// With columns in the lanes, `tf` does not divide the filters
    /// (`strata_machine::partial_filters`): the tiles step along the filters in a loop of their
    /// own, whose last block is peeled off.
    pub partial_filters: bool,
    /// Parallel tiles of a flattened convolution ([`crate::conv_flatten::chunk`]): its
    /// positions split into chunks of this many, the chunks outermost (0: not split).
    pub chunk: i64,
    /// The window's tap loops stay rolled (`llvm.loop` unroll disabled; see [`rolled_taps`]).
    pub rolled_taps: bool,
}

/// Whether a filter-lane block `[th, tw, tf]` (filters in the lanes) of a convolution with a
/// `kh x kw` window, strides `(sh, sw)` and column dilation `dw` keeps its window's tap loops
/// rolled.
/// LLVM fully unrolls the short tap loops, and GVN then loads each input element once for
/// every tap that reads it. In a block of several output rows, input row `r + kh` is read by
/// output row 0 at tap `kh` and by output row 1 at tap `kh - 1`: its broadcasts stay live
/// across the kernel's rows, beside the accumulators and the filter vectors, and where those
/// (`th` rows of `(tw - 1) * sw + (kw - 1) * dw + 1` columns) exceed the registers, the
/// register allocator spills accumulators, a store and a reload every step. Rolled, each tap
/// broadcasts its `th * tw` inputs from memory (a load each, folded into the multiply-add)
/// and spills nothing. YOLOv8n's 256 -> 80 filter 3x3 convolution at 10 x 10 (blocks of 2 x
/// 10 positions x 16 filters: 20 accumulators and 24 broadcasts a kernel row) ran 0.43 ms
/// unrolled, 0.25 rolled (ONNX Runtime 0.24). A block of one row shares a kernel row's
/// broadcasts between its taps only, and ran faster unrolled even where the count says it
/// spills: the Inception cell's 96 -> 16 filter 3x3 convolutions at 32 x 32 (1 x 16 x 16)
/// 0.15 ms unrolled against 0.20 rolled, YOLOv8n's stride-2 3x3 convolutions at 10 x 10 (1 x
/// 10 x 32) 0.33 against 0.37. So did blocks of several rows at row stride 2, whose output
/// rows share one input row in three (the YOLO-style detector's 2 x 4 x 32 blocks at 4 x 4:
/// its model 0.075 ms unrolled, 0.077 rolled).
pub fn rolled_taps(
    [th, tw, tf]: [i64; 3],
    [kh, kw]: [i64; 2],
    [sh, sw]: [i64; 2],
    dw: i64,
    registers: Registers,
) -> bool {
    let vectors = registers.vectors(tf);
    let row = th * ((tw - 1) * sw + (kw - 1) * dw + 1);
    th > 1 && kh > 1 && sh == 1 && th * tw * vectors + row + vectors >= registers.count + FEW_SPILLS
}

/// Registers a block of several rows may be short with its taps unrolled ([`rolled_taps`]):
/// a few spills cost less than the broadcasts rolling reloads. The YOLO-style detector's 2 x 8
/// x 16 blocks at 8 x 8 (16 -> 16 filters, 5 short) made its model 0.077 ms unrolled, 0.079
/// rolled; a 1-D convolution's 12 x 1 x 32 blocks (48 -> 64 filters over 398 samples, 6
/// short) ran 0.067 ms unrolled, 0.046 rolled.
const FEW_SPILLS: i64 = 6;

/// The fewest input channels for which a flattened 1x1 convolution takes four registers of
/// filters (`strata_machine::wide_filter_tiles`).
const WIDE_FILTERS_CHANNELS: i64 = 128;

/// The least multiply-adds for which a convolution or matmul is split across threads (about
/// 10 us of work on one core: several times a fork and join).
pub const PARALLEL_MACS: i64 = 1 << 19;

/// Whether a convolution of `macs` multiply-adds compiled for `threads` threads gets parallel
/// tiles ([`PARALLEL_MACS`], as matmuls). Convolutions had four times that from 2026-11-28:
/// split, the text detector's 10-30 us convolutions then ran 2-3x slower; with the schedules
/// since (bands, flattened and chunked blocks, prefetched rows) the same threshold as the
/// matmuls' made two-thread runs 10-17% faster (text detector, MobileNetV3-Small, DenseNet,
/// audio TCN, opset-11 CNN; Inception 4%) and none slower.
pub(crate) fn parallel_tiles(threads: i64, macs: i64) -> bool {
    threads > 1 && macs >= PARALLEL_MACS
}

impl ConvBlock {
    /// The `strata.conv_tiles` mark: `THxTWxTF`, `t` appended for rolled taps, `f` for filters
    /// outermost, `e` for an epilogue (the epilogue carries the same label as
    /// `strata.conv_epilogue`), `p` for parallel tiles, `s` for columns in the lanes, `g` for a
    /// grouped convolution, `k` for a packed filter, `r` for a partial block, `q` for a partial
    /// block of filters, `c` and the chunk for positions split into chunks.
    pub fn label(&self) -> String {
        let [th, tw, tf] = self.tiles;
        let flag = |set: bool, c: &'static str| if set { c } else { "" };
        format!(
            "{th}x{tw}x{tf}{}{}{}{}{}{}{}{}{}{}",
            flag(self.rolled_taps, "t"),
            flag(self.filters_outer, "f"),
            flag(self.epilogue, "e"),
            flag(self.parallel, "p"),
            flag(self.spatial, "s"),
            flag(self.grouped, "g"),
            flag(self.packed, "k"),
            flag(self.partial, "r"),
            flag(self.partial_filters, "q"),
            if self.chunk > 0 { format!("c{}", self.chunk) } else { String::new() }
        )
    }
}

/// One convolution to rewrite.
struct Plan {
    conv: Op,
    block: ConvBlock,
    /// Its epilogue generic, if its result goes to one.
    epilogue: Option<Op>,
    /// Blocked over its positions as one row (`crate::conv_flatten`).
    flat: bool,
}

/// The output a convolution's register block is chosen for.
pub(crate) struct BlockShape {
    /// The epilogue fused into its tiles.
    pub epilogue: Option<Op>,
    /// Its positions flattened into one row ([`crate::conv_flatten::flattens`]).
    pub flat: bool,
    pub rows: i64,
    pub columns: i64,
}

/// The [`BlockShape`] of `conv` (f32, static operands `x`, `w`, `out`).
pub(crate) fn block_shape(
    conv: OperationRef<'_, '_>,
    [x, w, out]: [&strata_lower::kernel::TensorTy; 3],
    registers: Registers,
    threads: i64,
) -> BlockShape {
    // A convolution that starts from a value of its own (a residual) keeps its epilogue
    // apart: fused, the tiles would read that value from outside the tile loop while the
    // loop writes into it, and bufferization would copy it first.
    let own_start = conv.operand(2).ok().and_then(defining_op).and_then(Init::of).is_none();
    let epilogue = epilogue_of(conv).filter(|_| !own_start);
    let padded = conv.operand(0).ok().and_then(defining_op).and_then(Pad::of).is_some();
    let flat = crate::conv_flatten::flattens(conv, [x, w, out], padded, epilogue, registers, threads);
    let [rows, columns] = if flat { [1, out.shape[2] * out.shape[3]] } else { [out.shape[2], out.shape[3]] };
    BlockShape { epilogue, flat, rows, columns }
}

/// The epilogue generic that is the only reader of `conv`'s result, if any: a
/// `linalg.generic` marked `strata.epilogue` whose result has the convolution's type.
fn epilogue_of(conv: OperationRef<'_, '_>) -> Option<Op> {
    let result = conv.result(0).ok()?;
    let users = Val::of(result).users();
    let user = *users.first()?;
    if users.iter().any(|&u| u != user) {
        return None;
    }
    let op = user.get();
    let marked = strata_ir::ods::op_name(op) == "linalg.generic" && attrs::EPILOGUE.is_set(op);
    let same_type = op.result(0).ok().is_some_and(|r| r.r#type() == result.r#type()) && op.result_count() == 1;
    // The epilogue belongs to the kernel it is written over (its first input and its output):
    // another convolution it reads (a residual branch) is just an operand.
    let is = |i: usize| op.operand(i).ok().is_some_and(|v| Val::of(v) == Val::of(result));
    let owner = op.operand_count() >= 2 && is(0) && is(op.operand_count() - 1);
    (marked && same_type && owner).then_some(user)
}

/// Prepares an epilogue for the schedule: marks it with the convolution's `label`, gives it a
/// fresh `tensor.empty` output (it was written over the convolution's result, which is now
/// computed tile by tile inside it), and puts a same-type `tensor.cast` on its other operands
/// so that `transform.structured.fuse` stops there instead of pulling their producers into
/// the tiles (canonicalization drops the casts afterwards).
fn prepare_epilogue(context: &Context, epilogue: Op, conv_result: Val, label: &str) {
    let count = epilogue.operand_count();
    attrs::CONV_EPILOGUE.set(epilogue.get(), label);
    // `epilogue` is a generic with one output (its last operand); the new ops are inserted
    // right before it and their results replace its operands.
    for i in 0..count - 1 {
        let operand = epilogue.operand(i);
        if operand != conv_result {
            let cast = insert_before(context, epilogue, "tensor.cast", &[operand], operand.r#type(), None);
            epilogue.set_operand(i, cast);
        }
    }
    let empty = insert_before(context, epilogue, "tensor.empty", &[], conv_result.r#type(), None);
    epilogue.set_operand(count - 1, empty);
}

/// A new op `name` with `operands` (defined before `before`), one result of type `result` and
/// optionally a `value` attribute, inserted right before `before`; its result.
pub(crate) fn insert_before<'c>(
    context: &'c Context,
    before: Op,
    name: &str,
    operands: &[Val],
    result: Type<'c>,
    value: Option<Attribute<'c>>,
) -> Val {
    let anchor = before.get();
    let operands: Vec<melior::ir::Value> = operands.iter().map(|v| v.get()).collect();
    let mut builder = OperationBuilder::new(name, anchor.location()).add_operands(&operands).add_results(&[result]);
    if let Some(value) = value {
        builder = builder.add_attributes(&[(Identifier::new(context, "value"), value)]);
    }
    let new = builder.build().expect("a valid op");
    let block = anchor.block().expect("the anchor is in a block");
    Val::from(block.insert_operation_before(anchor, new).result(0).expect("one result"))
}

/// Rewrites every f32 `linalg.conv_2d_nchw_fchw` in `module` that has a register block (see
/// [`conv_block`]) into the filter-lane or column-lane generic, marked `strata.conv_tiles` (see [`ConvBlock::label`]),
/// with its initialisation marked `strata.conv_init`; with `threads` above 1 the big ones get
/// parallel tiles. Returns the distinct blocks used, how many convolutions were rewritten and
/// how many of them have their output columns in the lanes.
pub fn rewrite(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    registers: Registers,
    threads: i64,
) -> Result<(Vec<ConvBlock>, usize, usize), PassFailed> {
    crate::conv_split::split_rows(module, cx, registers, threads)?;
    crate::conv_split::split_filters(module, cx, registers, threads)?;
    let strata = cx.strata();
    let mut plans = Vec::new();
    for raw in collect(&module, |op| op.is("linalg.conv_2d_nchw_fchw")) {
        let op = raw.get();
        let Some((x, w, out)) = static_f32_operands(op, 4) else { continue };
        let strides = int_pair(op, "strides").map(|s| s.max(1));
        let (window, column_stride) = (w.shape[2] * w.shape[3], strides[1]);
        let BlockShape { epilogue, flat, rows, columns } = block_shape(op, [&x, &w, &out], registers, threads);
        if let Some((mut tiles, spatial)) =
            conv_block(rows, columns, out.shape[1], w.shape[1] * window, window, column_stride, registers, threads)
        {
            // Flattened, whole blocks of filters: ResNeXt's 64 -> 128 filters over one row of 3136
            // positions ran 1.15x slower with a partial block of filters (the filter loop then
            // inside the columns') than with whole ones.
            if flat {
                tiles = strata_machine::whole_filters(tiles, out.shape[1]);
            }
            let macs = out.numel() * w.shape[1..].iter().product::<i64>();
            let parallel = parallel_tiles(threads, macs);
            // A flattened 1x1 convolution on one thread whose input is past about a third of
            // L2: four registers of filters, so fewer filter blocks stream it again; over at
            // least 128 channels (ResNet-50's 64 -> 256 filter convolutions at 56 x 56 ran 1.3-2.2x
            // slower so: each 6 x 64 block transposes and stores as much as a 12 x 32 one for
            // half the multiply-adds of a 64-step reduction).
            let wide = x.numel() * 4 > strata_machine::WIDE_FILTERS_INPUT_BYTES && w.shape[1] >= WIDE_FILTERS_CHANNELS;
            if flat && !spatial && !parallel && window == 1 && wide {
                tiles = strata_machine::wide_filter_tiles(columns, out.shape[1], registers).unwrap_or(tiles);
            }
            let result = epilogue.unwrap_or(Op::of(&op)).result(0);
            // A band's convolution (`strata-band-chains`: its input a slice of rows) whose bands
            // a depthwise convolution reads next splits its filters across the threads, as that
            // one splits its channels: split by rows, each band's rows went to the other core for
            // the depthwise step, and back for the next band (MobileNetV2's first expansion and
            // depthwise step 0.26 and 0.13 ms on two threads, as on one; filters outermost 0.19
            // and 0.067).
            let band_to_depthwise =
                parallel && crate::conv_flatten::band_input(op) && crate::conv_flatten::feeds_depthwise(result, 4);
            let filters_outer = w.numel() > x.numel() || band_to_depthwise;
            // A partial block's tiles (whole rows, then the columns in a loop of their own) are
            // split into chunks: whole blocks already split along the positions, or, with
            // columns in the lanes, along the filters, in the order that stores best.
            // Whole blocks too when the filters have fewer than two blocks a thread: split
            // along the filters, each thread would read the whole input (MobileNetV2's 144 ->
            // 24 projection at 56 x 56, two threads: 0.188 -> 0.117 ms with the positions
            // outermost; it used to be refused the flattened block there).
            let few_filter_blocks = crate::conv_flatten::few_filter_blocks(out.shape[1], tiles[2], threads);
            let chunked =
                flat && parallel && !filters_outer && (strata_machine::partial(tiles, columns) || few_filter_blocks);
            let mut chunk =
                if chunked { crate::conv_flatten::chunk(columns, tiles[1], threads, result).unwrap_or(0) } else { 0 };
            if chunk == 0 && flat && !parallel && !filters_outer {
                chunk = crate::conv_flatten::cache_chunk(columns, tiles, out.shape[1], x.shape[1]).unwrap_or(0);
            }
            let kernel = [w.shape[2], w.shape[3]];
            let rolled_taps =
                !spatial && rolled_taps(tiles, kernel, strides, int_pair(op, "dilations")[1].max(1), registers);
            plans.push(Plan {
                conv: raw,
                block: ConvBlock {
                    tiles,
                    filters_outer,
                    epilogue: epilogue.is_some(),
                    parallel,
                    spatial,
                    grouped: false,
                    packed: false,
                    partial: strata_machine::partial(tiles, if chunk > 0 { chunk } else { columns }),
                    partial_filters: strata_machine::partial_filters(tiles, out.shape[1]),
                    chunk,
                    rolled_taps,
                },
                epilogue,
                flat,
            });
        }
    }
    let (mut blocks, grouped) = rewrite_grouped(module, cx, registers, threads)?;
    let count = plans.len() + grouped;
    let spatial = plans.iter().filter(|p| p.block.spatial).count() + grouped;
    // Filters transposed at compile time, by their constant op (shared weights once), and
    // packed by their constant op and filter block.
    let mut transposed: BTreeMap<usize, Val> = BTreeMap::new();
    let mut packed: BTreeMap<i64, BTreeMap<usize, Val>> = BTreeMap::new();
    let mut kernels = strata_lower::kernel::KernelCache::default();
    for mut plan in plans {
        let op = plan.conv.get();
        crate::conv_split::fold_constant_slice(strata.mlir(), op);
        let operand = |i: usize| op.operand(i).expect("a convolution has three operands");
        let (x, w, init) = (operand(0), operand(1), operand(2));
        let (x_ty, w_ty, out) =
            (tensor_type(x.r#type()).unwrap(), tensor_type(w.r#type()).unwrap(), tensor_type(init.r#type()).unwrap());
        // The accumulator: the output, or its positions in one row.
        let acc = if plan.flat { crate::conv_flatten::flat_type(&out) } else { out.clone() };
        let [f, c, kh, kw] = [w_ty.shape[0], w_ty.shape[1], w_ty.shape[2], w_ty.shape[3]];
        let wt_ty = w_ty.with_shape(vec![c, kh, kw, f]);
        let strides = int_pair(op, "strides").map(|s| s.max(1));
        let dilations = int_pair(op, "dilations").map(|d| d.max(1));
        // The filter: a constant transposed now (its tap rows padded, see `padded_row`), or a
        // transpose in the kernel.
        let row = padded_row(f);
        let constant = defining_op(w).filter(|d| strata_ir::ods::op_name(*d) == "arith.constant");
        let tf = plan.block.tiles[2];
        let pack = constant.filter(|_| packs(&plan.block, f, plan.epilogue.is_some()));
        let (stored_ty, filter) = match pack {
            Some(d) => {
                let ty = w_ty.with_shape(vec![f / tf, c, kh, kw, tf]);
                let memo = packed.entry(tf).or_default();
                let filter = compile_time_constant(memo, strata.mlir(), op, d, &ty, PACKED_RESOURCE, |values| {
                    Some(filter_packed(values, [f, c, kh * kw], tf))
                });
                (ty, filter)
            }
            None => {
                let ty = w_ty.with_shape(vec![c, kh, kw, row]);
                let filter = constant.and_then(|d| {
                    compile_time_constant(&mut transposed, strata.mlir(), op, d, &ty, FILTER_RESOURCE, |values| {
                        Some(filter_chwf_padded(values, [f, c, kh * kw], row))
                    })
                });
                (ty, filter)
            }
        };
        plan.block.packed = pack.is_some() && filter.is_some();
        // A padded input is rebuilt in destination-passing style (fill, then insert the
        // source), which tiling cannot fuse into the loops.
        let pad = defining_op(x).and_then(Pad::of);
        let source = pad.as_ref().map_or(x, |p| p.source);
        // The source read only here (the pad, if any, dies with the convolution): padded by
        // fill + insert, so that its producer can write into the padded buffer
        // (`eliminate-empty-tensors`). Read elsewhere too: a plain pad, a copy (the padded
        // buffer would otherwise live as long as the source's other readers).
        let single_use = |v| Val::of(v).users().len() == 1;
        let only_here = single_use(source) && (pad.is_none() || single_use(x));
        let mut operands = vec![Val::of(source), filter.unwrap_or(Val::of(w))];
        let mut args = vec![
            tensor_type(source.r#type()).unwrap(),
            if filter.is_some() { stored_ty.clone() } else { w_ty.clone() },
        ];
        // The initialisation, rebuilt in the kernel (marked, so the schedule fuses and
        // vectorises this conv's own copy): zero/constant fill, or the broadcast bias.
        let init_kind = defining_op(init).and_then(Init::of);
        match &init_kind {
            Some(Init::Bias(bias)) => {
                args.push(tensor_type(bias_value(*bias).r#type()).unwrap());
                operands.push(Val::of(bias_value(*bias)));
            }
            Some(Init::Fill(_)) => {}
            None => {
                args.push(out.clone());
                operands.push(Val::of(init));
            }
        }
        let mut k = strata_lower::kernel::Kernel::new(args);
        // The input, padded (and rounded up to whole strides where an axis is split below)
        // in a copy. Strides are then taken out of the input map, axis by axis, so that once
        // the window loops are single steps every tap reads its positions at unit step:
        // - dilation a multiple of the stride (or a one-tap window): a strided slice (row
        //   `oh * s + kh * d` is row `oh + kh * (d / s)` of every s-th row);
        // - otherwise the axis splits into (position, phase) (an expand_shape): row
        //   `oh * s + kh * d` is phase `(kh * d) mod s` of position `oh + (kh * d) floordiv s`.
        // Both are views: no copy.
        let [sh, sw] = strides;
        let [dh, dw] = dilations;
        let split = [sh > 1 && dh % sh != 0 && kh > 1, sw > 1 && dw % sw != 0 && kw > 1];
        let round = |extent: i64, stride: i64, split: bool| {
            if split {
                (extent + stride - 1) / stride * stride
            } else {
                extent
            }
        };
        let rounded = x_ty.with_shape(vec![
            x_ty.shape[0],
            x_ty.shape[1],
            round(x_ty.shape[2], sh, split[0]),
            round(x_ty.shape[3], sw, split[1]),
        ]);
        let input = if pad.is_some() || rounded != x_ty {
            let (value, low) =
                pad.as_ref().map_or(("0.0".to_string(), vec![0; 4]), |p| (p.value.clone(), p.low.clone()));
            if only_here {
                k.padded_into_filled(0, &value, &low, &rounded)
            } else {
                let (source, source_ty) = (k.arg(0), k.arg_type(0).clone());
                let scalar = k.constant(&value, &rounded.elem);
                let high: Vec<i64> = (0..4).map(|d| rounded.shape[d] - low[d] - source_ty.shape[d]).collect();
                k.emit(format_args!(
                    "tensor.pad {source} low[{}] high[{}] {{\n    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n      tensor.yield {scalar} : {}\n    }} : {source_ty} to {rounded}",
                    list(&low),
                    list(&high),
                    rounded.elem.storage()
                ))
            }
        } else {
            k.arg(0)
        };
        let steps = [if split[0] { 1 } else { sh }, if split[1] { 1 } else { sw }];
        let (input, mut input_ty) = if plan.flat {
            let flat = crate::conv_flatten::flat_type(&rounded);
            (crate::conv_flatten::reshape(&mut k, &input, &rounded, &flat), flat)
        } else if steps == [1, 1] {
            (input, rounded.clone())
        } else {
            let ty = rounded.with_shape(vec![
                rounded.shape[0],
                rounded.shape[1],
                (rounded.shape[2] + steps[0] - 1) / steps[0],
                (rounded.shape[3] + steps[1] - 1) / steps[1],
            ]);
            (
                k.emit(format_args!(
                    "tensor.extract_slice {input}[0, 0, 0, 0] [{}] [1, 1, {}, {}] : {rounded} to {ty}",
                    list(&ty.shape),
                    steps[0],
                    steps[1]
                )),
                ty,
            )
        };
        let mut axes = Vec::new();
        let (mut groups, mut shape) = (vec!["[0]".to_string(), "[1]".to_string()], input_ty.shape[..2].to_vec());
        for (axis, (o, kv, s, d)) in [("oh", "kh", sh, dh), ("ow", "kw", sw, dw)].into_iter().enumerate() {
            let extent = input_ty.shape[2 + axis];
            if split[axis] {
                axes.push(format!("{o} + ({kv} * {d}) floordiv {s}, ({kv} * {d}) mod {s}"));
                groups.push(format!("[{}, {}]", shape.len(), shape.len() + 1));
                shape.extend([extent / s, s]);
            } else {
                axes.push(format!("{o} + {kv} * {}", d / steps[axis]));
                groups.push(format!("[{}]", shape.len()));
                shape.push(extent);
            }
        }
        let input = if split.contains(&true) {
            let phased = input_ty.with_shape(shape);
            let expanded = k.emit(format_args!(
                "tensor.expand_shape {input} [{}] output_shape [{}] : {input_ty} into {phased}",
                groups.join(", "),
                list(&phased.shape)
            ));
            input_ty = phased;
            expanded
        } else {
            input
        };
        let input_map = format!("n, c, {}", axes.join(", "));
        let (wt, wt_ty) = if plan.block.packed {
            (k.arg(1), stored_ty.clone())
        } else {
            (filter_operand(&mut k, filter.is_some(), &w_ty, &wt_ty, "1, 2, 3, 0"), wt_ty)
        };
        let wt = if filter.is_some() && !plan.block.packed && row != f {
            k.emit(format_args!(
                "tensor.extract_slice {wt}[0, 0, 0, 0] [{}] [1, 1, 1, 1] : {stored_ty} to {wt_ty}",
                list(&wt_ty.shape)
            ))
        } else {
            wt
        };
        let label = plan.block.label();
        let (init_mark, tiles_mark) = (attrs::CONV_INIT.in_dictionary(), attrs::CONV_TILES.in_dictionary(&label));
        let start = match &init_kind {
            Some(Init::Fill(literal)) => {
                // A generic rather than linalg.fill: in the tile its unit dimensions fold like
                // the convolution's, so the vectorised initial value forwards straight into the
                // accumulators (a fill's 4-D write does not, and its tensor would be kept).
                let scalar = k.constant(literal, &acc.elem);
                let empty = k.empty(&acc);
                k.emit(format_args!(
                    "linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"], {init_mark}}} outs({empty} : {acc}) {{\n    ^bb0(%o: f32):\n      linalg.yield {scalar} : f32\n    }} -> {acc}"
                ))
            }
            Some(Init::Bias(_)) => {
                let empty = k.empty(&acc);
                let (bias, bias_ty) = (k.arg(2), k.arg_type(2).clone());
                let broadcast = bias_broadcast(&bias, &bias_ty.to_string(), &empty, &acc.to_string(), init_mark);
                k.emit(format_args!("{broadcast}"))
            }
            // Any other initial value (a residual, `sg-accumulate-residuals`) is computed
            // before the tiles, not fused into them (a cast stops `transform.structured.fuse`,
            // as for the inputs below): the tiles then accumulate in its buffer, which it may
            // share with the residual, rather than in a new one.
            None => {
                let init = k.arg(2);
                let init = if plan.flat { crate::conv_flatten::reshape(&mut k, &init, &out, &acc) } else { init };
                k.emit(format_args!("tensor.cast {init} : {acc} to {acc}"))
            }
        };
        // `transform.structured.fuse` pulls every tileable producer into the tile loops, up
        // the whole graph; a cast (to the same type: canonicalization drops it right after)
        // stops it at the convolution's inputs.
        let input = k.emit(format_args!("tensor.cast {input} : {input_ty} to {input_ty}"));
        let wt = k.emit(format_args!("tensor.cast {wt} : {wt_ty} to {wt_ty}"));
        // The loops: the lane dimension last among the parallel ones; a packed filter's
        // blocks `fo` and the filters of a block `fi` (`f = fo * tf + fi`).
        let (loops, maps, parallel) = if plan.block.packed {
            let maps = [input_map, "fo, c, kh, kw, fi".to_owned(), format!("n, fo * {tf} + fi, oh, ow")];
            ("n, oh, ow, fo, fi, c, kh, kw", maps, 5)
        } else if plan.block.spatial {
            ("n, oh, f, ow, c, kh, kw", [input_map, "c, kh, kw, f".to_owned(), "n, f, oh, ow".to_owned()], 4)
        } else {
            ("n, oh, ow, f, c, kh, kw", [input_map, "c, kh, kw, f".to_owned(), "n, f, oh, ow".to_owned()], 4)
        };
        let result = multiply_add(
            &mut k,
            loops,
            maps,
            parallel,
            &tiles_mark,
            [(&input, &input_ty), (&wt, &wt_ty)],
            (&start, &acc),
        );
        let result = if plan.flat { crate::conv_flatten::reshape(&mut k, &result, &acc, &out) } else { result };
        k.set_result(result, out);
        inline_kernel(&mut kernels, cx, plan.conv, &k, &operands, "convolution")?;
        if let Some(epilogue) = plan.epilogue {
            // The inlined kernel's result: the epilogue's first operand that is not a cast
            // (with flattened positions, the reshape of the marked generic's result).
            let inputs = epilogue.operand_count() - 1;
            let produced = |v: Val| v.owner().is_some_and(|d| attrs::CONV_TILES.get(d.get()).is_some());
            let result = (0..inputs)
                .map(|i| epilogue.operand(i))
                .find(|&v| produced(v) || crate::conv_flatten::flat_source(v).is_some())
                .expect("the epilogue reads the convolution");
            let result = match crate::conv_flatten::flat_source(result) {
                Some(flat) => {
                    crate::conv_flatten::flatten_epilogue(strata.mlir(), epilogue, result, flat);
                    flat
                }
                None => result,
            };
            prepare_epilogue(strata.mlir(), epilogue, result, &label);
        }
        if !blocks.contains(&plan.block) {
            blocks.push(plan.block);
        }
    }
    Ok((blocks, count, spatial))
}

/// Rewrites every f32 grouped convolution (`linalg.conv_2d_ngchw_gfchw`, from ONNX Conv with
/// 1 < group < channels) left by `strata-implicit-pads` whose groups
/// [`strata_machine::grouped_tiles`] blocks: output
/// columns in the lanes, loops `(n, g, oh, f, ow, c, kh, kw)`, one group per tile, so each
/// reduction step is `tf` FMAs of `tw` contiguous columns, as for ungrouped convolutions with
/// few filters. The input and the initial value are read as they are (the padded input and
/// the bias broadcast are computed before the tiles); a constant filter is transposed at
/// compile time to `G x C x KH x KW x F` (per group), any other by a transpose in the kernel.
/// Returns the distinct blocks and how many convolutions were rewritten.
fn rewrite_grouped(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    registers: Registers,
    threads: i64,
) -> Result<(Vec<ConvBlock>, usize), PassFailed> {
    let strata = cx.strata();
    let mut blocks: Vec<ConvBlock> = Vec::new();
    let mut count = 0;
    let mut kernels = strata_lower::kernel::KernelCache::default();
    // Filters transposed at compile time, by their constant op (shared weights once).
    let mut transposed: BTreeMap<usize, Val> = BTreeMap::new();
    for raw in collect(&module, |op| op.is("linalg.conv_2d_ngchw_gfchw")) {
        let op = raw.get();
        let Some((x_ty, w_ty, out)) = static_f32_operands(op, 5) else { continue };
        let [g, f, c, kh, kw] = [w_ty.shape[0], w_ty.shape[1], w_ty.shape[2], w_ty.shape[3], w_ty.shape[4]];
        let [sh, sw] = int_pair(op, "strides").map(|s| s.max(1));
        let [dh, dw] = int_pair(op, "dilations").map(|d| d.max(1));
        let Some(tiles) = strata_machine::grouped_tiles(out.shape[3], out.shape[4], f, [sh, sw], registers) else {
            continue;
        };
        let block = ConvBlock {
            tiles,
            filters_outer: false,
            epilogue: false,
            parallel: parallel_tiles(threads, out.numel() * c * kh * kw),
            spatial: true,
            grouped: true,
            packed: false,
            partial: false,
            partial_filters: false,
            chunk: 0,
            rolled_taps: false,
        };
        crate::conv_split::fold_constant_slice(strata.mlir(), op);
        let operand = |i: usize| op.operand(i).expect("a convolution has three operands");
        let (x, w, init) = (operand(0), operand(1), operand(2));
        let wt_ty = w_ty.with_shape(vec![g, c, kh, kw, f]);
        // A constant filter (possibly reshaped into groups: the same values) transposed now.
        let constant = defining_op(w)
            .and_then(|d| {
                if strata_ir::ods::op_name(d) == "tensor.expand_shape" {
                    defining_op(d.operand(0).ok()?)
                } else {
                    Some(d)
                }
            })
            .filter(|d| strata_ir::ods::op_name(*d) == "arith.constant");
        let filter = constant.and_then(|d| {
            compile_time_constant(&mut transposed, strata.mlir(), op, d, &wt_ty, FILTER_RESOURCE, |values| {
                let per_group = (f * c * kh * kw) as usize;
                (values.len() == per_group * g as usize).then_some(())?;
                Some(values.chunks(per_group).flat_map(|group| filter_chwf(group, [f, c, kh * kw])).collect())
            })
        });
        let operands = vec![Val::of(x), filter.unwrap_or(Val::of(w)), Val::of(init)];
        let args = vec![x_ty.clone(), if filter.is_some() { wt_ty.clone() } else { w_ty.clone() }, out.clone()];
        let mut k = strata_lower::kernel::Kernel::new(args);
        let wt = filter_operand(&mut k, filter.is_some(), &w_ty, &wt_ty, "0, 2, 3, 4, 1");
        // Casts stop `transform.structured.fuse` at the kernel's inputs (see `rewrite`).
        let input = k.emit(format_args!("tensor.cast {} : {x_ty} to {x_ty}", k.arg(0)));
        let wt = k.emit(format_args!("tensor.cast {wt} : {wt_ty} to {wt_ty}"));
        let start = k.emit(format_args!("tensor.cast {} : {out} to {out}", k.arg(2)));
        let label = block.label();
        let tiles_mark = attrs::CONV_TILES.in_dictionary(&label);
        let loops = "n, g, oh, f, ow, c, kh, kw";
        let maps = [
            format!("n, g, c, oh * {sh} + kh * {dh}, ow + kw * {dw}"),
            "g, c, kh, kw, f".to_owned(),
            "n, g, f, oh, ow".to_owned(),
        ];
        let result =
            multiply_add(&mut k, loops, maps, 5, &tiles_mark, [(&input, &x_ty), (&wt, &wt_ty)], (&start, &out));
        k.set_result(result, out);
        inline_kernel(&mut kernels, cx, raw, &k, &operands, "grouped convolution")?;
        if !blocks.contains(&block) {
            blocks.push(block);
        }
        count += 1;
    }
    Ok((blocks, count))
}

/// The convolution generic: `loops` (`parallel` of them parallel, then the three reduction
/// loops c, kh, kw), the input's, filter's and output's map results `maps`, marked `mark`; its
/// body multiplies and accumulates (`fastmath<contract>`: one FMA). Returns its result.
fn multiply_add(
    k: &mut strata_lower::kernel::Kernel,
    loops: &str,
    maps: [String; 3],
    parallel: usize,
    mark: &str,
    [(input, input_ty), (filter, filter_ty)]: [(&str, &strata_lower::kernel::TensorTy); 2],
    (start, out): (&str, &strata_lower::kernel::TensorTy),
) -> String {
    let maps: Vec<String> = maps.iter().map(|m| format!("affine_map<({loops}) -> ({m})>")).collect();
    let iterators: Vec<&str> =
        std::iter::repeat_n("\"parallel\"", parallel).chain(std::iter::repeat_n("\"reduction\"", 3)).collect();
    k.emit(format_args!(
        "linalg.generic {{indexing_maps = [{}], iterator_types = [{}], {mark}}} ins({input}, {filter} : {input_ty}, {filter_ty}) outs({start} : {out}) {{\n    ^bb0(%i: f32, %w: f32, %acc: f32):\n      %m = arith.mulf %i, %w fastmath<contract> : f32\n      %s = arith.addf %acc, %m fastmath<contract> : f32\n      linalg.yield %s : f32\n    }} -> {out}",
        maps.join(", "),
        iterators.join(", ")
    ))
}

/// Parses kernel `k` (once per distinct text) and inlines it in place of `conv` with
/// `operands`; `what` names the kernel in the internal error if it does not parse.
fn inline_kernel<'c>(
    kernels: &mut strata_lower::kernel::KernelCache<'c>,
    cx: &mut PassContext<'c>,
    conv: Op,
    k: &strata_lower::kernel::Kernel,
    operands: &[Val],
    what: &str,
) -> Result<(), PassFailed> {
    let text = format!("module {{\n{}}}\n", k.function("kernel"));
    let function = match kernels.function(cx.strata(), &text, &format!("strata-cpu-schedule {what}")) {
        Ok(function) => function,
        Err(error) => {
            cx.emit_op_error(conv.get(), format!("internal error: the vectorised {what} kernel does not parse (a Strata bug; please report it):\n{error}\n{text}"));
            return Err(PassFailed);
        }
    };
    // Safety: `conv` is a convolution of this module, rewritten once; the operands are
    // defined before it (a new filter constant is inserted right before it).
    unsafe { inline_call_with(function, conv, operands) };
    Ok(())
}

/// The constant weight `constant` rearranged at compile time by `rearrange` (`None`: it
/// cannot be) into a new constant of type `wt_ty` right before `op`, its `dense_resource`
/// named `name`; once per constant op (`memo`), so a weight several convolutions or matmuls
/// share is rearranged once.
pub(crate) fn compile_time_constant(
    memo: &mut BTreeMap<usize, Val>,
    context: &Context,
    op: OperationRef<'_, '_>,
    constant: OperationRef<'_, '_>,
    wt_ty: &strata_lower::kernel::TensorTy,
    name: &str,
    rearrange: impl FnOnce(&[f32]) -> Option<Vec<f32>>,
) -> Option<Val> {
    let key = Op::of(&constant).raw().ptr as usize;
    if let Some(&value) = memo.get(&key) {
        return Some(value);
    }
    let values = strata_ir::resource::f32_values(constant.attribute("value").ok()?)?;
    let value = new_f32_constant(context, op, wt_ty, &rearrange(&values)?, name);
    memo.insert(key, value);
    Some(value)
}

/// The kernel's filter in the generic's layout `wt_ty`: argument 1 itself when it is the
/// constant transposed at compile time (`transposed`), else argument 1 (of type `w_ty`)
/// transposed in the kernel by `permutation`.
fn filter_operand(
    k: &mut strata_lower::kernel::Kernel,
    transposed: bool,
    w_ty: &strata_lower::kernel::TensorTy,
    wt_ty: &strata_lower::kernel::TensorTy,
    permutation: &str,
) -> String {
    if transposed {
        return k.arg(1);
    }
    let empty = k.empty(wt_ty);
    k.emit(format_args!(
        "linalg.transpose ins({} : {w_ty}) outs({empty} : {wt_ty}) permutation = [{permutation}]",
        k.arg(1)
    ))
}

/// Output positions a register block `[th, tw, tf]` holds.
pub(crate) fn positions(tiles: [i64; 3]) -> i64 {
    tiles[0] * tiles[1]
}

/// The types of a convolution's input, filter and output when all three are static f32
/// tensors of `rank` dimensions.
pub(crate) fn static_f32_operands(
    op: OperationRef<'_, '_>,
    rank: usize,
) -> Option<(strata_lower::kernel::TensorTy, strata_lower::kernel::TensorTy, strata_lower::kernel::TensorTy)> {
    let ty = |i: usize| {
        let t = tensor_type(op.operand(i).ok()?.r#type()).ok()?;
        (t.elem.name == "f32" && t.rank() == rank && t.shape.iter().all(|&d| d > 0)).then_some(t)
    };
    Some((ty(0)?, ty(1)?, ty(2)?))
}

/// A two-element integer attribute of `op` (`strides`, `dilations`), 1s when absent.
pub(crate) fn int_pair(op: OperationRef<'_, '_>, name: &str) -> [i64; 2] {
    match op.attribute(name).ok().and_then(strata_ir::handle::dense_ints).as_deref() {
        Some(&[a, b]) => [a, b],
        _ => [1, 1],
    }
}

/// A new `arith.constant` holding `values` (a `dense_resource` weight) right before `before`.
pub(crate) fn new_f32_constant(
    context: &Context,
    before: OperationRef<'_, '_>,
    ty: &strata_lower::kernel::TensorTy,
    values: &[f32],
    name: &str,
) -> Val {
    let tensor = Type::parse(context, &ty.to_string()).expect("a tensor type parses");
    let attr = strata_ir::resource::dense_resource_f32(tensor, name, values);
    insert_before(context, Op::of(&before), "arith.constant", &[], tensor, Some(attr))
}

#[cfg(test)]
mod tests {
    use super::{filter_chwf, filter_chwf_padded, filter_packed, padded_row, rolled_taps};
    use strata_machine::Registers;

    #[test]
    fn taps_stay_rolled_where_rows_share_broadcasts_past_the_registers() {
        let avx512 = Registers::for_lanes(16);
        // YOLOv8n's 80-filter head at 10 x 10: 20 accumulators, 24 broadcasts, 1 filter vector.
        assert!(rolled_taps([2, 10, 16], [3, 3], [1, 1], 1, avx512));
        // A 1-D convolution along the rows: 24 accumulators, 12 broadcasts, 2 filter vectors.
        assert!(rolled_taps([12, 1, 32], [3, 1], [1, 1], 1, avx512));
        // One row (ResNet's 7 x 7 maps), a few registers short, row stride 2, or a 1x1 window:
        // unrolled.
        assert!(!rolled_taps([1, 7, 32], [3, 3], [1, 1], 1, avx512));
        assert!(!rolled_taps([2, 8, 16], [3, 3], [1, 1], 1, avx512));
        assert!(!rolled_taps([2, 4, 32], [3, 3], [2, 2], 1, avx512));
        assert!(!rolled_taps([2, 12, 16], [1, 1], [1, 1], 1, avx512));
    }

    #[test]
    fn filters_go_to_the_last_axis() {
        // 2 filters x 1 channel x 3 taps: w[f][t] = 10 f + t.
        let w = [0.0, 1.0, 2.0, 10.0, 11.0, 12.0];
        assert_eq!(filter_chwf(&w, [2, 1, 3]), vec![0.0, 10.0, 1.0, 11.0, 2.0, 12.0]);
        assert_eq!(filter_chwf_padded(&w, [2, 1, 3], 3), vec![0.0, 10.0, 0.0, 1.0, 11.0, 0.0, 2.0, 12.0, 0.0]);
    }

    #[test]
    fn packed_blocks_hold_their_filters_tap_by_tap() {
        // 4 filters x 1 channel x 2 taps, w[f][t] = 10 f + t, in blocks of 2 filters: block 0
        // is taps 0 and 1 of filters 0 and 1, block 1 the same of filters 2 and 3.
        let w = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0, 30.0, 31.0];
        assert_eq!(filter_packed(&w, [4, 1, 2], 2), vec![0.0, 10.0, 1.0, 11.0, 20.0, 30.0, 21.0, 31.0]);
        // One block of every filter is the C x K x F layout.
        assert_eq!(filter_packed(&w, [4, 1, 2], 4), filter_chwf(&w, [4, 1, 2]));
    }

    #[test]
    fn tap_rows_are_an_odd_number_of_lines_apart() {
        // 16 floats a line: 128 and 512 filters take one line more, 64 and 144 as they are.
        assert_eq!((padded_row(128), padded_row(512)), (144, 528));
        assert_eq!((padded_row(64), padded_row(144), padded_row(96)), (64, 144, 96));
    }
}
