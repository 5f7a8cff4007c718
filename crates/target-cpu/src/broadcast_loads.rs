//! `strata-broadcast-loads`: a vector read from memory only to have its elements extracted one
//! by one becomes one scalar load per element, run in `strata-host-to-llvm` before the vector
//! transfers are lowered.
//!
//! A register block's reduction step broadcasts each of its input values across a vector
//! (one fused multiply-add per broadcast value and vector of accumulators). The vectoriser
//! reads the values of neighbouring positions together (`vector.transfer_read ... vector<2x2xf32>`
//! for a 2 x 2 block of output positions, `vector<6xf32>` for six filters' weights) and
//! extracts them. LLVM keeps that one short vector load and splats each lane with shuffles: on
//! x86 a `vmovsd` and, per value, a `vbroadcastss` from a register and a `vmovshdup`, shuffle
//! instructions that run on the floating-point ports the multiply-adds need. A scalar load
//! feeding a splat is folded into one `vbroadcastss` from memory, which only takes a load port.
//! MobileNetV2 (one thread, this AVX2 machine) ran 8% faster with its 2 x 2 blocks' inputs and
//! its spatial blocks' weights loaded this way, ResNet-18 6%; the results are the same bits.
//!
//! A read is taken when every use is a `vector.extract` of one element at a constant position
//! later in its block with nothing that may write memory in between, it reads a memref with no mask, every dimension in bounds and the vector in the memref's
//! innermost dimensions (`vector.load`, or a `vector.transfer_read` with a minor identity map),
//! and it has at most 4 elements, or 8 when it is a window a loop of kernel taps slides along
//! its row ([`window`]): each extract becomes a `memref.load` at the read's indices plus its
//! position, and the read goes. Longer reads otherwise stay vectors: MobileNetV2's 7 x 7
//! pointwise blocks (7 positions of one row per tap) ran 8-10% slower and ResNeXt's grouped
//! blocks 30% slower with their 5- to 8-element reads as scalar loads (the load ports bind),
//! while ResNet-18's 7 x 7 3x3 blocks, whose windows overlap, ran 8% faster.

use crate::vector_ops::{build, vector_shape};
use crate::DYNAMIC;
use melior::ir::operation::OperationRef;
use melior::ir::r#type::{DimSize, ShapedTypeLike};
use melior::ir::TypeLike;
use melior::Context;
use strata_ir::rewrite::{collect, sinkable};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

/// The most elements a read may have to be taken.
const MOST_ELEMENTS: i64 = 4;

/// The most elements a window read may have to be taken (see [`window`]).
const MOST_WINDOW_ELEMENTS: i64 = 8;

/// The most iterations of a loop whose step moves a window (a convolution's kernel taps).
const WINDOW_TRIPS: u64 = 16;

pub static INFO: PassInfo = PassInfo {
    name: "strata-broadcast-loads",
    summary:
        "Vectors read only to extract their elements become scalar loads (broadcasts from memory, not lane shuffles)",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "reads", help: "vector reads replaced by scalar loads" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(BroadcastLoads)
}

struct BroadcastLoads;

impl Pass for BroadcastLoads {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for read in collect(&func, |op| op.is("vector.transfer_read") || op.is("vector.load")) {
            let read = Op::of(&read.get());
            if let Some((source, extracts)) = taken(read) {
                if rewrite(context, read, &source, &extracts).is_some() {
                    cx.bump("reads", 1);
                }
            }
        }
        Ok(())
    }
}

/// Where a taken read reads: its memref, the indices of its first element, the vector's
/// rank and its element type.
struct Source {
    memref: Val,
    indices: Vec<Val>,
    rank: usize,
    element: String,
}

/// Where `read` reads, when it reads its vector from the innermost dimensions of a memref,
/// unmasked and in bounds, and is short enough (or a window) to be taken.
fn source(read: Op) -> Option<Source> {
    let (dims, element) = vector_shape(read.result(0).r#type())?;
    let memref = read.operand(0);
    let elements: i64 = dims.iter().product();
    if strata_ir::types::memref(memref.r#type()).is_none() || dims.is_empty() || elements > MOST_WINDOW_ELEMENTS {
        return None;
    }
    let indices: Vec<Val> = if read.is("vector.load") {
        read.operands()[1..].to_vec()
    } else {
        // Operands: source, indices, padding and an optional mask.
        let counts = strata_ir::handle::i32_array(read.attribute("operandSegmentSizes")?)?;
        let counts: Vec<usize> = counts.into_iter().map(|c| usize::try_from(c).ok()).collect::<Option<_>>()?;
        if counts.len() != 4 || counts[3] != 0 {
            return None;
        }
        let in_bounds = read.attribute("in_bounds")?.to_string();
        if in_bounds.contains("false") {
            return None;
        }
        let indices = read.operands()[1..1 + counts[1]].to_vec();
        if !minor_identity(&read.attribute("permutation_map")?.to_string(), indices.len(), dims.len()) {
            return None;
        }
        indices
    };
    if indices.len() < dims.len() {
        return None;
    }
    if elements > MOST_ELEMENTS && !window(memref, *indices.last()?) {
        return None;
    }
    Some(Source { memref, indices, rank: dims.len(), element })
}

/// Whether a read of `memref` at innermost index `index` is a window that a loop of kernel taps
/// slides along its row: the offset of its innermost dimension, through the chain of subviews
/// it was cut from, follows the induction variable of a short loop that carries a register
/// block. LLVM unrolls that loop and shares the scalar loads of the overlapping windows (a
/// 3x3 convolution's 7-wide rows read at kw = 0, 1, 2 need 9 loads, not 21), where it kept
/// three vector loads and splatted their lanes with shuffles.
fn window(memref: Val, index: Val) -> bool {
    if follows_window_loop(index, 4) {
        return true;
    }
    let (mut value, mut dim) = (memref, rank(memref).and_then(|r| r.checked_sub(1)));
    while let (Some(subview), Some(d)) = (value.owner().filter(|op| op.is("memref.subview")), dim) {
        let Some((source_dim, offset)) = subview_source_dim(subview, d) else { return false };
        if offset.is_some_and(|offset| follows_window_loop(offset, 4)) {
            return true;
        }
        (value, dim) = (subview.operand(0), Some(source_dim));
    }
    false
}

/// The dimensions of a memref value, dynamic ones [`DYNAMIC`].
fn shape(memref: Val) -> Option<Vec<i64>> {
    let ty = strata_ir::types::memref(memref.r#type())?;
    let dim = |d| match ty.dim_size(d) {
        Ok(DimSize::Static(size)) => i64::try_from(size).unwrap_or(DYNAMIC),
        _ => DYNAMIC,
    };
    Some((0..ty.rank()).map(dim).collect())
}

/// The rank of a memref value.
fn rank(memref: Val) -> Option<usize> {
    strata_ir::types::memref(memref.r#type()).map(|ty| ty.rank())
}

/// The source dimension of `subview` that its result dimension `dim` is cut from (dimensions of
/// size 1 the subview drops skipped, matched from the innermost), and that dimension's offset
/// when it is dynamic.
fn subview_source_dim(subview: Op, dim: usize) -> Option<(usize, Option<Val>)> {
    let op = subview.get();
    let offsets = strata_ir::ods::i64_array(op, "static_offsets")?;
    let sizes = strata_ir::ods::i64_array(op, "static_sizes")?;
    // Match result dimensions to source dimensions from the innermost; a source dimension of
    // size 1 with no result dimension left to match, or a size the result dimension lacks, is
    // dropped.
    let result_shape = shape(subview.result(0))?;
    let result_rank = result_shape.len();
    let (mut r, mut source_of) = (result_rank, vec![0usize; result_rank]);
    for s in (0..sizes.len()).rev() {
        if r > 0 && (sizes[s] == result_shape[r - 1] || sizes[s] != 1) {
            r -= 1;
            source_of[r] = s;
        }
    }
    if r != 0 {
        return None;
    }
    let source_dim = *source_of.get(dim)?;
    // The dynamic offsets are the operands after the source, in the order of the dynamic
    // entries of `static_offsets`.
    let offset = (offsets[source_dim] == DYNAMIC).then(|| {
        let position = offsets[..source_dim].iter().filter(|&&o| o == DYNAMIC).count();
        subview.operand(1 + position)
    });
    Some((source_dim, offset))
}

/// Whether `value` follows (through `depth` levels of index arithmetic) the induction variable
/// of a loop of at most [`WINDOW_TRIPS`] iterations that carries a vector (a register block's
/// kernel taps).
fn follows_window_loop(value: Val, depth: usize) -> bool {
    if let (Some(block), Some(0)) = (value.owner_block(), value.argument_number()) {
        let Some(r#loop) = block.parent().filter(|op| op.is("scf.for")) else { return false };
        let trips = strata_lower::work::trip_count(r#loop.operand(0), r#loop.operand(1), r#loop.operand(2));
        let carries_vector = r#loop.results().iter().any(|r| r.r#type().is_vector());
        return trips.is_some_and(|trips| trips <= WINDOW_TRIPS) && carries_vector;
    }
    let Some(op) = value.owner() else { return false };
    depth > 0
        && ["affine.apply", "arith.addi", "arith.muli", "arith.subi", "arith.index_cast"].contains(&op.name().as_str())
        && op.operands().into_iter().any(|operand| follows_window_loop(operand, depth - 1))
}

/// Whether `map` (printed) is `(d0, ..., d{n-1}) -> (d{n-k}, ..., d{n-1})`.
fn minor_identity(map: &str, n: usize, k: usize) -> bool {
    let dims = |range: std::ops::Range<usize>| range.map(|d| format!("d{d}")).collect::<Vec<_>>().join(", ");
    map == format!("affine_map<({}) -> ({})>", dims(0..n), dims(n - k..n))
}

/// The extracts of a taken read, each with the position it extracts.
type Extracts = Vec<(Op, Vec<i64>)>;

/// Where `read` reads and the extracts that use it with their positions, when `read` is
/// taken: every use a `vector.extract` of one element at a constant position.
fn taken(read: Op) -> Option<(Source, Extracts)> {
    let source = source(read)?;
    let users = read.result(0).users();
    if users.is_empty() || !loads_can_move(read, &users) {
        return None;
    }
    let extracts = users
        .into_iter()
        .map(|user| {
            if !user.is("vector.extract") || user.operand_count() != 1 || user.result(0).r#type().is_vector() {
                return None;
            }
            let position = strata_ir::ods::i64_array(user.get(), "static_position")?;
            (position.len() == source.rank && position.iter().all(|&p| p >= 0)).then_some((user, position))
        })
        .collect::<Option<_>>()?;
    Some((source, extracts))
}

/// Whether the loads that replace `read` may stand where its `users` are: every user after it
/// in its block, and nothing that may write memory (a store, a call, a loop) in between: only
/// address and value computations ([`sinkable`]), loads, and the vector ops that compute on
/// registers or read.
fn loads_can_move(read: Op, users: &[Op]) -> bool {
    let mut left = users.len();
    let mut next = read.next();
    while let Some(op) = next {
        if left == 0 {
            return true;
        }
        if users.contains(&op) {
            left -= 1;
        } else {
            let name = op.name();
            let vector_compute = name.starts_with("vector.")
                && ![
                    "vector.store",
                    "vector.transfer_write",
                    "vector.maskedstore",
                    "vector.scatter",
                    "vector.compressstore",
                ]
                .contains(&name.as_str());
            let pure = sinkable(&name) || name == "memref.load";
            if op.region_count() > 0 || !(vector_compute || pure) {
                return false;
            }
        }
        next = op.next();
    }
    left == 0
}

/// Replaces each extract of `read` (which reads from `source`) by a scalar load of its element,
/// then erases `read`.
fn rewrite(context: &Context, read: Op, source: &Source, extracts: &Extracts) -> Option<()> {
    let inner = source.indices.len() - source.rank;
    for (extract, position) in extracts {
        let mut operands = vec![source.memref];
        for (d, &index) in source.indices.iter().enumerate() {
            let offset = if d < inner { 0 } else { position[d - inner] };
            operands.push(if offset == 0 {
                index
            } else {
                let at = [("value", format!("{offset} : index"))];
                let constant = build(context, *extract, "arith.constant", &[], "index", &at)?;
                build(context, *extract, "arith.addi", &[index, constant], "index", &[])?
            });
        }
        let load = build(context, *extract, "memref.load", &operands, &source.element, &[])?;
        extract.result(0).replace_all_uses_with(load);
        // Safety: the extract has no uses left and no handle to it is used again.
        unsafe { extract.erase() };
    }
    // Safety: every use of the read was an extract, erased above.
    unsafe { read.erase() };
    Some(())
}
