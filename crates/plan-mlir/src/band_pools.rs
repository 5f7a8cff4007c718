//! `strata-band-pools`: a pool over a convolution's result (through the convolution's
//! elementwise epilogue and the pool's pad) runs in bands of its output rows, each band
//! computing only the convolution rows its windows read.
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
//! What makes a chain: a `linalg.pooling_nchw_max` or `_sum` whose input is (a `tensor.pad`,
//! along H and W only, read only by the pool, of) the result of a `linalg.conv_2d_nchw_fchw`
//! or of an elementwise `linalg.generic` over it (every loop parallel, the convolution's result
//! read at the identity and by nothing else, its other operands independent of the rows, its
//! output the result itself or an empty tensor). The convolution's initial value must be a
//! fill or a row-independent generic (a broadcast bias) over an empty tensor, read only by the
//! convolution, so that each band makes its own; all of it static f32.
//!
//! How many bands: every band is a convolution and a pool (or the pool's border parts,
//! `strata-conv-borders`) compiled on its own, so as few as do the job. By the pre-bufferization
//! estimate `strata-conv-borders` uses ([`pressure`]), the fewest from two for which what is
//! live across the chain, the pool's result and the widest band fit under the peak of the rest
//! of the function (ResNet-18: three, its first residual stage being the rest's peak); where
//! none fits, about the strides' product (a band of convolution rows then about the size of
//! the pool's result), at most [`MAX_BANDS`]. Only near the peak ([`near_peak`]): elsewhere
//! the saving is nothing and the bands cost code, launches and the overlap. `all=true` bands
//! every chain.

use crate::conv_borders::{live_between, near_peak, pair_attribute, pressure};
use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::BlockLike;
use melior::ir::{Attribute, Identifier, Type, ValueLike};
use melior::Context;
use strata_ir::handle::{map_results, tensor_bytes, MapResult};
use strata_ir::rewrite::{collect, erase_if_unused};
use strata_ir::{
    Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val,
};
use strata_lower::kernel::TensorTy;
use strata_lower::ops::tensor_type;
use strata_lower::pads::Pad;

pub static INFO: PassInfo = PassInfo {
    name: "strata-band-pools",
    summary: "A pool over a convolution's result runs in bands of output rows, each computing only the convolution rows it reads",
    anchor: "func.func",
    options: &[OptionInfo {
        name: "all",
        kind: OptionKind::Bool,
        default: "false",
        help: "band every convolution-pool chain, not only those that may be at the function's peak",
    }],
    statistics: &[
        StatisticInfo { name: "banded", help: "Convolution-pool chains run in bands" },
        StatisticInfo { name: "bands", help: "Bands made" },
        StatisticInfo { name: "far-from-peak", help: "Chains left whole: not at the function's peak" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(BandPools { all: options.bool("all") })
}

struct BandPools {
    all: bool,
}

/// The pools banded.
const POOLS: [&str; 2] = ["linalg.pooling_nchw_max", "linalg.pooling_nchw_sum"];

/// The most bands one chain is split into.
pub const MAX_BANDS: i64 = 8;

/// A convolution, what follows it and the pool that ends the chain.
#[derive(Clone, Copy)]
struct Chain {
    pool: Op,
    /// The pool's pad of the convolution's (or the epilogue's) result.
    pad: Option<Op>,
    /// The elementwise generic over the convolution's result.
    epilogue: Option<Op>,
    conv: Op,
    /// The op making the convolution's initial value (its last operand an empty tensor).
    init: Op,
    /// The convolution's input pad.
    input_pad: Option<Op>,
}

/// One window axis (rows) of a convolution or a pool: `window` taps `dilation` apart, at
/// `stride`, over an input padded by `top` rows above (`bottom` below).
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
    /// The pool's output rows.
    pool: (i64, i64),
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
            pool: (first, last),
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
fn only_user(value: Val) -> Option<Op> {
    let users = value.users();
    let first = *users.first()?;
    users.iter().all(|&u| u == first).then_some(first)
}

/// A static 4-D f32 tensor type.
fn static_f32(value: Val) -> Option<TensorTy> {
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

/// Whether `op` is a `linalg.generic` whose loops are all parallel and whose operands other
/// than `value` (read at the identity) and its output (an empty tensor, or `value`) do not
/// depend on the rows (loop 2): each band can run its own copy.
fn row_free_generic(op: Op, value: Val) -> bool {
    let Some(iterators) = op.attribute("iterator_types") else { return false };
    let Some(maps) = op.attribute("indexing_maps").and_then(map_results) else { return false };
    let count = op.operand_count();
    let identity = |map: &[MapResult]| map.iter().enumerate().all(|(i, r)| *r == MapResult::Dim(i));
    let reads_rows = |map: &[MapResult]| map.iter().any(|r| matches!(r, MapResult::Dim(2) | MapResult::Other));
    op.is("linalg.generic")
        && op.result_count() == 1
        && !iterators.to_string().contains("reduction")
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

/// The chain that `pool` ends, if it makes one (see the module comment).
fn chain_of(pool: Op) -> Option<Chain> {
    static_f32(pool.result(0))?;
    let mut value = pool.operand(0);
    let pad = value.owner().filter(|op| op.is("tensor.pad"));
    if let Some(pad) = pad {
        spatial_pad(pad)?;
        (only_user(value)? == pool).then_some(())?;
        value = pad.operand(0);
    }
    let reader = pad.unwrap_or(pool);
    (only_user(value)? == reader).then_some(())?;
    let producer = value.owner()?;
    let (epilogue, conv) = if producer.is("linalg.conv_2d_nchw_fchw") {
        (None, producer)
    } else {
        let result = producer.operand(0);
        let conv = result.owner().filter(|op| op.is("linalg.conv_2d_nchw_fchw"))?;
        let same_type = result.r#type() == value.r#type();
        (same_type && only_user(result)? == producer && row_free_generic(producer, result)).then_some(())?;
        (Some(producer), conv)
    };
    (0..3).try_for_each(|i| static_f32(conv.operand(i)).map(drop))?;
    let start = conv.operand(2);
    let init = start.owner()?;
    let empty_output = init.operand(init.operand_count() - 1).owner().is_some_and(|o| o.is("tensor.empty"));
    let fill = init.is("linalg.fill") && init.operand_count() == 2;
    (only_user(start)? == conv && empty_output && (fill || row_free_generic(init, start))).then_some(())?;
    let input_pad = conv.operand(0).owner().filter(|op| op.is("tensor.pad"));
    if let Some(input_pad) = input_pad {
        spatial_pad(input_pad)?;
    }
    Some(Chain { pool, pad, epilogue, conv, init, input_pad })
}

/// The rows axis of a windowed op (`strides`, `dilations` attributes) with window `window`,
/// padded by `top`.
fn rows_window(op: Op, window: i64, top: i64) -> Option<Window> {
    let (strides, dilations) = (pair_attribute(op, "strides")?, pair_attribute(op, "dilations")?);
    Some(Window { window, stride: strides[0].max(1), dilation: dilations[0].max(1), top })
}

/// The most bands `chain` takes ([`most_bands`]).
fn most_bands_of(chain: Chain) -> Option<i64> {
    let out = static_f32(chain.pool.result(0))?;
    let strides = pair_attribute(chain.pool, "strides")?;
    Some(most_bands(out.shape[2], [strides[0].max(1), strides[1].max(1)]))
}

/// `count` bands of `chain` (see [`bands`]); `None` when it cannot be banded.
fn chain_bands(chain: Chain, count: i64) -> Option<Vec<Band>> {
    let out = static_f32(chain.pool.result(0))?;
    let window = tensor_type(chain.pool.operand(1).r#type()).ok()?;
    let pool_top = match chain.pad {
        Some(pad) => spatial_pad(pad)?.0[2],
        None => 0,
    };
    let pool = rows_window(chain.pool, *window.shape.first()?, pool_top)?;
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
    let last = position(chain.pool)?;
    let accumulator = chain.pool.operand(2);
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

/// Builds the new ops before `anchor`.
struct Builder<'c> {
    context: &'c Context,
    anchor: Op,
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

    /// `source[offsets .. offsets + sizes]` (rows `rows` of a 4-D value).
    fn rows_of(&self, source: Val, rows: (i64, i64)) -> Val {
        let ty = static_f32(source).expect("a chain's values are static f32");
        let sizes = [ty.shape[0], ty.shape[1], rows.1 - rows.0, ty.shape[3]];
        let offsets = [0, 0, rows.0, 0];
        let op = OperationBuilder::new("tensor.extract_slice", self.anchor.location())
            .add_operands(&[source.get()])
            .add_attributes(&self.slice_attributes(&offsets, &sizes, &[1, 0, 0, 0]))
            .add_results(&[self.ty(&ty.with_shape(sizes.to_vec()))])
            .build()
            .expect("a valid extract_slice");
        self.insert(op).result(0)
    }

    /// `dest` with `part` written at rows from `first`.
    fn insert_rows(&self, part: Val, dest: Val, first: i64) -> Val {
        let ty = static_f32(part).expect("a chain's values are static f32");
        let op = OperationBuilder::new("tensor.insert_slice", self.anchor.location())
            .add_operands(&[part.get(), dest.get()])
            .add_attributes(&self.slice_attributes(&[0, 0, first, 0], &ty.shape, &[1, 1, 0, 0, 0]))
            .add_results(&[dest.r#type()])
            .build()
            .expect("a valid insert_slice");
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
    fn clone(&self, op: Op, operands: &[(usize, Val)], ty: &TensorTy) -> Val {
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
}

/// Replaces `chain` by its `bands`.
fn rewrite(context: &Context, chain: Chain, bands: &[Band]) {
    let b = Builder { context, anchor: chain.pool };
    let conv_ty = static_f32(chain.conv.result(0)).expect("checked by chain_of");
    let pool_ty = static_f32(chain.pool.result(0)).expect("checked by chain_of");
    let conv_result = chain.conv.result(0);
    let input = chain.input_pad.map_or(chain.conv.operand(0), |p| p.operand(0));
    let mut acc = chain.pool.operand(2);
    for band in bands {
        let input = b.rows_of(input, band.input);
        let input = match chain.input_pad {
            Some(pad) => b.pad(pad, input, band.input_pad),
            None => input,
        };
        let rows_ty =
            conv_ty.with_shape(vec![conv_ty.shape[0], conv_ty.shape[1], band.rows.1 - band.rows.0, conv_ty.shape[3]]);
        let empty = b.empty(&rows_ty);
        let start = b.clone(chain.init, &[(chain.init.operand_count() - 1, empty)], &rows_ty);
        let mut value = b.clone(chain.conv, &[(0, input), (2, start)], &rows_ty);
        if let Some(epilogue) = chain.epilogue {
            let count = epilogue.operand_count();
            let operands: Vec<(usize, Val)> = (0..count)
                .filter_map(|i| match epilogue.operand(i) {
                    v if v == conv_result => Some((i, value)),
                    _ if i == count - 1 => Some((i, b.empty(&rows_ty))),
                    _ => None,
                })
                .collect();
            value = b.clone(epilogue, &operands, &rows_ty);
        }
        if let Some(pad) = chain.pad {
            value = b.pad(pad, value, band.pad);
        }
        let part = b.rows_of(acc, band.pool);
        let part_ty =
            pool_ty.with_shape(vec![pool_ty.shape[0], pool_ty.shape[1], band.pool.1 - band.pool.0, pool_ty.shape[3]]);
        let pooled = b.clone(chain.pool, &[(0, value), (2, part)], &part_ty);
        acc = b.insert_rows(pooled, acc, band.pool.0);
    }
    chain.pool.result(0).replace_all_uses_with(acc);
    // The ops replaced, readers first, then the empty tensors they wrote into (each once: one
    // `tensor.empty` may serve several).
    let output = |op: Op| op.operand(op.operand_count() - 1).owner().filter(|o| o.is("tensor.empty"));
    let mut dead: Vec<Op> =
        [Some(chain.pool), chain.pad, chain.epilogue, Some(chain.conv), Some(chain.init), chain.input_pad]
            .into_iter()
            .flatten()
            .collect();
    for empty in [output(chain.init), chain.epilogue.and_then(output)].into_iter().flatten() {
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

impl Pass for BandPools {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let Some(body) = Op::of(&func).body(0) else { return Ok(()) };
        let chains: Vec<(Chain, i64)> = collect(&func, |op| POOLS.iter().any(|name| op.is(name)))
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
        // Candidates: (chain, its bands, bytes the bands save), each with the fewest bands
        // that take it down to the rest's peak.
        let mut candidates = Vec::new();
        for (&(chain, most), span) in chains.iter().zip(&spans) {
            let whole = tensor_bytes(chain.conv.result(0).r#type()).unwrap_or(0);
            let widest = |bands: &[Band]| bands.iter().map(|b| band_bytes(chain, b)).max().unwrap_or(whole);
            let base = span.map_or(0, |(_, live)| live) + tensor_bytes(chain.pool.result(0).r#type()).unwrap_or(0);
            let fits = |count| chain_bands(chain, count).is_some_and(|bands| base + widest(&bands) <= rest);
            let count = band_count(most, fits);
            let Some(bands) = chain_bands(chain, count) else { continue };
            candidates.push((chain, whole.saturating_sub(widest(&bands)), bands));
        }
        let estimates: Vec<(u64, u64)> = candidates
            .iter()
            .map(|(chain, saves, _)| (live_between(body, &ops, &bytes, Some(chain.conv), chain.pool), *saves))
            .collect();
        let chosen = near_peak(bytes.iter().copied().max().unwrap_or(0), &estimates);
        for ((chain, _, bands), chosen) in candidates.into_iter().zip(chosen) {
            if !(chosen || self.all) {
                cx.bump("far-from-peak", 1);
                continue;
            }
            rewrite(cx.strata().mlir(), chain, &bands);
            cx.bump("banded", 1);
            cx.bump("bands", bands.len() as u64);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(parts[0], Band { pool: (0, 14), rows: (0, 28), pad: (1, 0), input: (0, 59), input_pad: (3, 0) });
        assert_eq!(parts[1].rows, (27, 56));
        assert_eq!(
            parts[3],
            Band { pool: (42, 56), rows: (83, 112), pad: (0, 0), input: (163, 224), input_pad: (0, 3) }
        );
        // Every pool window's taps lie in its band's rows or padding, and every convolution
        // row's taps in its band's input rows or padding.
        for band in &parts {
            for o in band.pool.0..band.pool.1 {
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
        assert_eq!(parts[0], Band { pool: (0, 2), rows: (0, 4), pad: (0, 0), input: (0, 6), input_pad: (0, 0) });
        assert_eq!(parts[3], Band { pool: (6, 8), rows: (12, 16), pad: (0, 0), input: (12, 18), input_pad: (0, 0) });
    }
}
