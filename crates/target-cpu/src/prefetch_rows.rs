//! `strata-prefetch-rows`: in a kernel's reduction loop that reads one row after another (a
//! 1x1 convolution's input channels: `vector<32xf32>` of positions, 12.5 KB apart on
//! MobileNetV2's 56 x 56 maps, or 8 positions broadcast one by one on ResNet-50's), prefetches
//! what the next block of the same row will read.
//!
//! Such a loop walks as many rows as the reduction has channels (96 to 960), each a line or
//! two at a time: more streams than the hardware prefetchers follow, so every read waits for
//! L2 or L3. The next block of positions reads the same rows right after the current one: one
//! `memref.prefetch` per read, a block ahead, brings them in while the current block's
//! multiply-adds run. A C model of MobileNetV2's 144 -> 24 projection at 56 x 56 (12 filters
//! x 32 positions, channels innermost) ran 84 -> 158 GFLOP/s with it on this machine, one of
//! ResNet-50's 256 -> 64 at 56 x 56 (7 positions x 64 filters) 73 -> 107. A block shorter than
//! a line shares it with the next block: its prefetch is a line ahead.
//!
//! A read is taken when it is a 1-D contiguous vector of at least 16 bytes, inside an
//! `scf.for` that carries vector accumulators, from a view whose offsets use that loop's
//! induction variable (a new row each iteration; a loop walking one row contiguously is the
//! hardware's easy case and is left alone), and of an activation of at least a MiB (not a
//! constant: weights are packed to be read in order; smaller buffers stay in L2). The prefetch address may lie past the view (the last block of
//! a row prefetches the next row's start): a prefetch never faults.

use melior::ir::attribute::{BoolAttribute, IntegerAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::r#type::IntegerType;
use melior::ir::{BlockLike, Identifier, Type};
use strata_ir::rewrite::collect;
use strata_ir::{Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-prefetch-rows",
    summary:
        "Prefetch the next block of each row a kernel's reduction loop reads row after row (flattened 1x1 convolutions)",
    anchor: "builtin.module",
    options: &[OptionInfo {
        name: "threads",
        kind: OptionKind::Int,
        default: "1",
        help: "threads the kernels are split across (above 1: also the rows of smaller activations a lone reduction loop reads)",
    }],
    statistics: &[StatisticInfo { name: "prefetches", help: "memref.prefetch ops added" }],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(PrefetchRows { threads: options.int("threads") })
}

struct PrefetchRows {
    threads: i64,
}

/// Bytes of a cache line.
const LINE: i64 = 64;

/// Reads shorter than this (bytes) are left alone.
const SHORTEST: i64 = 16;

/// Buffers smaller than this stay in a core's L2 (1-2 MB on current x86 cores) across the
/// blocks of a kernel, where the prefetches only cost (two of the Inception cell's 1x1
/// convolutions, 28 x 28 maps, ran 17-21% slower with them).
const PAST_L2: u64 = 1 << 20;

/// On several threads, the smallest buffer a lone reduction loop (a flattened 1x1
/// convolution's channels, no tap loop around or inside it) gets its rows prefetched from:
/// there half such a buffer was written by the other core (a depthwise step split by channels
/// before a projection reading all of them), and every first read of its lines waits for it.
/// MobileNetV2 on two threads 3.11-3.15 -> 2.89-2.90 ms (one thread unchanged); taken for every
/// reduction loop, the Inception cell's 3x3 convolutions of 16 filters (each row read by three
/// windows, in L1 already) ran 8% slower.
const SHARED_ROWS: u64 = 64 << 10;

/// View-like ops walked from a read to its buffer.
const VIEWS: &[&str] = &[
    "memref.subview",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.view",
];

impl Pass for PrefetchRows {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let reads = collect(&module, |op| op.is("vector.transfer_read") || op.is("vector.load"));
        let mut added = 0;
        for read in reads {
            let Some((elements, bytes)) = row_read(read, self.threads) else { continue };
            // One prefetch per cache line the next block reads; a block shorter than a line
            // shares its line with the next one, so a line ahead.
            let ahead = elements.max(LINE / bytes);
            for line in 0..(elements * bytes + LINE - 1) / LINE {
                let offset = ahead + line * LINE / bytes;
                added += u64::from(prefetch(cx, read, offset)?);
            }
        }
        cx.bump("prefetches", added);
        Ok(())
    }
}

/// Adds `memref.prefetch` of `read`'s view at its index plus `offset` elements, right before it;
/// whether it did.
fn prefetch(cx: &mut PassContext<'_>, read: Op, offset: i64) -> Result<bool, PassFailed> {
    let context = cx.strata().mlir();
    let anchor = read.get();
    let Some(ahead) = index_plus(context, anchor, read.operand(1), offset) else { return Ok(false) };
    let prefetch = prefetch_operation(context, anchor.location(), read.operand(0), ahead)
        .map_err(|e| cx.fail(anchor, &format!("cannot build a prefetch: {e}").into()))?;
    anchor.block().expect("a read in a block").insert_operation_before(anchor, prefetch);
    Ok(true)
}

/// A `memref.prefetch` of `memref[index]` for reading into every cache level (locality 3:
/// `prefetcht0`; `strata-prefetch-filters` measured 2 slower, ResNet-18's 512-channel
/// convolutions 4-10%).
pub(crate) fn prefetch_operation<'c>(
    context: &'c melior::Context,
    location: melior::ir::Location<'c>,
    memref: Val,
    index: Val,
) -> Result<melior::ir::Operation<'c>, melior::Error> {
    let i32_type = IntegerType::new(context, 32).into();
    OperationBuilder::new("memref.prefetch", location)
        .add_operands(&[memref.get(), index.get()])
        .add_attributes(&[
            (Identifier::new(context, "isWrite"), BoolAttribute::new(context, false).into()),
            (Identifier::new(context, "localityHint"), IntegerAttribute::new(i32_type, 3).into()),
            (Identifier::new(context, "isDataCache"), BoolAttribute::new(context, true).into()),
        ])
        .build()
}

/// The elements `read` takes and their bytes, when it is a row read this pass prefetches for: a
/// 1-D vector of at least [`SHORTEST`] bytes from a contiguous rank-1 view of an activation of
/// at least [`PAST_L2`] bytes (with `threads` above 1, [`SHARED_ROWS`] where the loop is the
/// kernel's only one carrying vectors), inside a loop that carries vectors and picks the view's
/// row by its induction variable.
fn row_read(read: Op, threads: i64) -> Option<(i64, i64)> {
    let memref = read.operand(0);
    let (lanes, bytes) = contiguous_read(read)?;
    // The nearest loop around the read that carries vectors (accumulators).
    let carries = carries_vectors;
    let mut parent = read.parent();
    let carrier = loop {
        let op = parent?;
        if carries(op) {
            break op;
        }
        if op.is("func.func") {
            return None;
        }
        parent = op.parent();
    };
    let iv = carrier.body(0)?.argument(0);
    // Up the views to the buffer: one of them is offset by the loop's induction variable.
    let mut value = memref;
    let mut by_iv = false;
    for _ in 0..16 {
        let Some(owner) = value.owner() else { break };
        let name = owner.name();
        if !VIEWS.contains(&name.as_str()) {
            if name == "memref.get_global" {
                return None;
            }
            break;
        }
        by_iv |= owner.operands().iter().skip(1).any(|&o| o == iv);
        if name == "memref.view" {
            // A buffer of the arena: the view is the whole buffer.
            break;
        }
        value = owner.operand(0);
    }
    let lone = carrier.collect(|op| op != carrier && carries(op)).is_empty()
        && std::iter::successors(carrier.parent(), |op| op.parent()).all(|op| !carries(op));
    let least = if threads > 1 && lone { SHARED_ROWS } else { PAST_L2 };
    (by_iv && strata_ir::handle::memref_bytes(value.r#type()).is_some_and(|b| b >= least)).then_some((lanes, bytes))
}

/// The elements and their bytes of `read` (a `vector.transfer_read` or `vector.load`), when it
/// reads a 1-D vector of at least [`SHORTEST`] bytes from a contiguous rank-1 view.
pub(crate) fn contiguous_read(read: Op) -> Option<(i64, i64)> {
    use melior::ir::r#type::ShapedTypeLike;
    let ty = strata_ir::types::memref(read.operand(0).r#type())?;
    if ty.rank() != 1 || !crate::text_kernels::unit_inner_stride(&ty.to_string()) {
        return None;
    }
    let bytes = i64::try_from(strata_ir::handle::bit_width(ty.element())?.div_ceil(8)).ok()?;
    let lanes = match crate::vector_ops::vector_shape(read.result(0).r#type())?.0[..] {
        [lanes] => lanes,
        _ => return None,
    };
    (lanes * bytes >= SHORTEST).then_some((lanes, bytes))
}

/// Whether `op` is an `scf.for` carrying vectors (a reduction's accumulators).
pub(crate) fn carries_vectors(op: Op) -> bool {
    use melior::ir::r#type::TypeLike;
    op.is("scf.for") && op.results().iter().any(|r| r.r#type().is_vector())
}

/// An `index` constant `value` right before `anchor` (`None` if it cannot be built).
pub(crate) fn index_before<'c, 'a>(
    context: &'c melior::Context,
    anchor: melior::ir::operation::OperationRef<'c, 'a>,
    value: i64,
) -> Option<Val> {
    let index_type = Type::index(context);
    strata_ir::rewrite::constant_before(context, anchor, index_type, IntegerAttribute::new(index_type, value).into())
}

/// `index + offset` as an `index` value right before `anchor`: `index` itself for 0, a constant
/// when `index` is one, else an `arith.addi` of a new constant (`None` if an op cannot be built).
pub(crate) fn index_plus<'c, 'a>(
    context: &'c melior::Context,
    anchor: melior::ir::operation::OperationRef<'c, 'a>,
    index: Val,
    offset: i64,
) -> Option<Val> {
    if offset == 0 {
        return Some(index);
    }
    if let Some(start) = index.constant_int() {
        return index_before(context, anchor, start + offset);
    }
    let step = index_before(context, anchor, offset)?;
    let add = OperationBuilder::new("arith.addi", anchor.location())
        .add_operands(&[index.get(), step.get()])
        .add_results(&[Type::index(context)])
        .build()
        .ok()?;
    Some(Val::from(anchor.block()?.insert_operation_before(anchor, add).result(0).ok()?))
}
