//! `strata-prefetch-filters`: a register-blocked convolution reads one block of its packed
//! filter (`F/tf x C x KH x KW x tf`, [`crate::conv_lanes`]) once per tile of output positions
//! (a row, or 12 positions of a flattened 1x1 convolution): from memory for the first tile, from
//! L2 for the others. In a model the weights are cold (ResNet-18's are 45 MB, more than the
//! L3), so the first tile of each block waits on memory while the others only compute:
//! ResNet-18's 512-channel 7 x 7 convolutions stream a 590 KB block in the first of seven
//! rows, 0.88 ms alone and 1.13 ms in the model. This pass spreads the next block's reads over
//! the other tiles: in tiles `1..R` of block `fo`, the reduction step over channel `c`
//! prefetches channel `c`'s slice of block `fo + 1` when `c mod T = tile - 1`, `T` the largest
//! power of two up to `R - 1` (an `and` a step), so each of tiles `1..=T` prefetches a `1/T`
//! share of the next block, a slice at a time, while it computes.
//! (The last block prefetches itself, already in cache.) Prefetches change no result.
//!
//! A read is taken when it is a vector read of a constant (`memref.get_global`, identity
//! layout, at least [`SMALLEST`] bytes) through subviews whose dynamic offsets are the
//! induction variable `c` of the outermost reduction loop around the read (the outermost of
//! the `scf.for`s carrying vectors), the variable of a block loop outside it (`fo`, or `fo`
//! divided by its step; an `scf.for` or a dimension of an `scf.forall`) moving more elements
//! than `c`, and variables of loops inside the reduction; every loop between the block loop
//! and the reduction (the tiles: `scf.for`s or the `scf.forall`'s later dimensions) offsets
//! nothing of the constant and the tiles number at least two. The prefetches index the constant
//! collapsed to one dimension: one per cache line of the channel's slice (the elements one step
//! of `c` moves), in an `scf.if` at the start of the reduction step.

use crate::DYNAMIC;
use melior::ir::attribute::{ArrayAttribute, IntegerAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::r#type::{IntegerType, MemRefType, ShapedTypeLike, TypeLike};
use melior::ir::{Attribute, Block, BlockLike, Identifier, Location, Region, RegionLike, Type};
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-prefetch-filters",
    summary: "Spread the prefetch of a convolution's next packed filter block over the rows that reuse the current one",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "prefetched", help: "Filter reads whose next block is prefetched" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(PrefetchFilters)
}

struct PrefetchFilters;

/// Bytes of a cache line.
const LINE: i64 = 64;

/// Constants smaller than this are left alone: their blocks are a few KB, streamed in a few
/// microseconds. (MobileNetV2 with every constant of 32 KB or more 4% faster on one thread
/// than with those of 256 KB or more; 4 KB no faster than 32; the small zoo models, whose
/// weights stay in cache between runs, unchanged.)
const SMALLEST: u64 = 32 << 10;

impl Pass for PrefetchFilters {
    fn run(
        &mut self,
        module: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let reads = collect(&module, |op| op.is("vector.transfer_read") || op.is("vector.load"));
        let mut done: Vec<Op> = Vec::new();
        let mut taken = 0;
        for read in reads {
            let Some(site) = site(read) else { continue };
            // One prefetch sequence per reduction loop (its reads of one block share the slice).
            if done.contains(&site.reduction) {
                continue;
            }
            done.push(site.reduction);
            taken += u64::from(insert(cx, &site)?);
        }
        cx.bump("prefetched", taken);
        Ok(())
    }
}

/// A loop induction variable with constant bounds.
#[derive(Clone, Copy)]
pub(crate) struct Iv {
    pub(crate) value: Val,
    pub(crate) lower: i64,
    pub(crate) upper: i64,
    pub(crate) step: i64,
    pub(crate) trips: i64,
}

/// A filter read this pass prefetches for.
struct Site {
    /// The constant (`memref.get_global`'s result).
    global: Val,
    /// Its elements and their bytes.
    elements: i64,
    bytes: i64,
    /// The elements the read's first element lies past the constant's start, besides the terms
    /// of the block and channel loops (the constant offsets of the subviews).
    base: i64,
    /// The block loop's variable, what the subviews divide it by (1 or its step) and the
    /// elements one unit of the quotient moves.
    block: Iv,
    divisor: i64,
    block_stride: i64,
    /// The reduction loop (`scf.for`), its variable and the elements one channel moves (its
    /// slice: what the dimensions inside it span).
    reduction: Op,
    channel: Iv,
    slice: i64,
    /// The row loops between, outermost first.
    rows: Vec<Iv>,
}

/// The variable of `loop_op`'s dimension `index` (an `scf.for`'s only one, or an
/// `scf.forall`'s), when its bounds are constants.
pub(crate) fn iv(loop_op: Op, index: usize) -> Option<Iv> {
    if loop_op.is("scf.for") {
        let (lower, upper, step) = (
            loop_op.operand(0).constant_int()?,
            loop_op.operand(1).constant_int()?,
            loop_op.operand(2).constant_int()?,
        );
        return (step > 0).then(|| Iv {
            value: loop_op.body(0).expect("a loop has a body").argument(0),
            lower,
            upper,
            step,
            trips: ((upper - lower).max(0) + step - 1) / step,
        });
    }
    if loop_op.is("scf.forall") {
        let bound = |name: &str| strata_ir::ods::i64_array(loop_op.get(), name)?.get(index).copied();
        let (lower, upper, step) = (bound("staticLowerBound")?, bound("staticUpperBound")?, bound("staticStep")?);
        if [lower, upper, step].contains(&DYNAMIC) || step <= 0 {
            return None;
        }
        return Some(Iv {
            value: loop_op.body(0)?.argument(index),
            lower,
            upper,
            step,
            trips: ((upper - lower).max(0) + step - 1) / step,
        });
    }
    None
}

/// A dynamic offset of a view and the elements one unit of it moves.
type Term = (Val, i64);

/// The constant `read` reads through subviews, its dynamic offsets, each with the elements
/// one unit of it moves in the constant, and the elements its constant offsets add.
fn offsets(read: Op) -> Option<(Val, Vec<Term>, i64)> {
    let mut terms = Vec::new();
    let mut base = 0i64;
    let mut value = read.operand(0);
    for _ in 0..16 {
        let owner = value.owner()?;
        if owner.is("memref.get_global") {
            return Some((value, terms, base));
        }
        if !owner.is("memref.subview") {
            return None;
        }
        let (strides, _) = strata_ir::types::memref(owner.operand(0).r#type())?.strides_and_offset();
        let statics = strata_ir::ods::i64_array(owner.get(), "static_offsets")?;
        let mut dynamic = 1;
        for (&offset, &stride) in statics.iter().zip(&strides) {
            if stride == DYNAMIC {
                return None;
            }
            if offset == DYNAMIC {
                terms.push((owner.operand(dynamic), stride));
                dynamic += 1;
            } else {
                base = base.checked_add(offset.checked_mul(stride)?)?;
            }
        }
        value = owner.operand(0);
    }
    None
}

/// The divisor by which `value` is `variable` divided (1 for the variable itself).
fn divisor(value: Val, variable: Iv) -> Option<i64> {
    if value == variable.value {
        return Some(1);
    }
    let op = value.owner().filter(|op| op.is("arith.divui"))?;
    let d = op.operand(1).constant_int().filter(|_| op.operand(0) == variable.value)?;
    // The quotient counts the iterations (up to the lower bound's).
    (d > 0 && variable.step % d == 0 && variable.lower % d == 0).then_some(d)
}

/// The site of `read`, if this pass takes it (see the module's documentation).
fn site(read: Op) -> Option<Site> {
    let (global, terms, base) = offsets(read)?;
    let ty = strata_ir::types::memref(global.r#type())?;
    if !strata_ir::handle::is_identity_layout(ty.layout()) {
        return None;
    }
    let bytes = i64::try_from(strata_ir::handle::bit_width(ty.element())?.div_ceil(8)).ok()?;
    let total = strata_ir::handle::memref_bytes(global.r#type())?;
    if total < SMALLEST {
        return None;
    }
    // The reduction: the outermost of the vector-carrying loops directly around the read.
    let carries = |op: Op| op.is("scf.for") && op.results().iter().any(|r| r.r#type().is_vector());
    let mut op = read.parent()?;
    let mut reduction = None;
    while carries(op) {
        reduction = Some(op);
        op = op.parent()?;
    }
    let reduction = reduction?;
    let channel = iv(reduction, 0)?;
    // Every term but the channel's and the block's is a loop variable inside the reduction.
    let inner = |value: Val| {
        value
            .owner_block()
            .and_then(|b| b.parent())
            .is_some_and(|l| l.is("scf.for") && l.is_inside(reduction) && l != reduction)
    };
    let mut slice = None;
    let mut rest = Vec::new();
    for &(value, stride) in &terms {
        if value == channel.value && slice.is_none() {
            slice = Some(stride);
        } else if !inner(value) {
            rest.push((value, stride));
        }
    }
    let slice = slice?;
    // Up from the reduction to the block loop: every loop variable between is a row.
    let mut rows = Vec::new();
    let mut found = None;
    let mut current = op;
    'up: for _ in 0..16 {
        if current.is("func.func") {
            return None;
        }
        let count = if current.is("scf.for") {
            1
        } else if current.is("scf.forall") {
            strata_ir::ods::i64_array(current.get(), "staticUpperBound")?.len()
        } else {
            // Views, ifs and the like between the loops: not a loop.
            current = current.parent()?;
            continue;
        };
        for index in (0..count).rev() {
            let variable = iv(current, index)?;
            match rest.iter().find_map(|&(value, stride)| Some((divisor(value, variable)?, stride))) {
                Some((divisor, stride)) => {
                    found = Some((variable, divisor, stride));
                    break 'up;
                }
                None => rows.push(variable),
            }
        }
        current = current.parent()?;
    }
    let (block, divisor, block_stride) = found?;
    rows.reverse();
    // The block's term is the only one left (a read also offset by a row or an outer loop
    // does not walk the same block on every row).
    let repeats: i64 = rows.iter().map(|r| r.trips).product();
    (rest.len() == 1 && block.trips >= 2 && repeats >= 2 && slice > 0 && block_stride > slice).then_some(Site {
        global,
        elements: i64::try_from(total).ok()? / bytes,
        bytes,
        base,
        block,
        divisor,
        block_stride,
        reduction,
        channel,
        slice,
        rows,
    })
}

/// Builds ops right before `anchor`.
struct Builder<'c, 'a> {
    context: &'c melior::Context,
    location: Location<'c>,
    anchor: melior::ir::operation::OperationRef<'c, 'a>,
}

impl<'c> Builder<'c, '_> {
    fn add(&self, op: melior::ir::Operation<'c>) -> Option<Val> {
        let placed = self.anchor.block()?.insert_operation_before(self.anchor, op);
        Some(Val::from(placed.result(0).ok()?))
    }

    fn index(&self) -> Type<'c> {
        Type::index(self.context)
    }

    fn constant(&self, value: i64) -> Option<Val> {
        let ty = self.index();
        strata_ir::rewrite::constant_before(self.context, self.anchor, ty, IntegerAttribute::new(ty, value).into())
    }

    fn binary(&self, name: &str, a: Val, b: Val) -> Option<Val> {
        self.add(
            OperationBuilder::new(name, self.location)
                .add_operands(&[a.get(), b.get()])
                .add_results(&[self.index()])
                .build()
                .ok()?,
        )
    }

    /// `(value - lower) / step`: the iteration's number.
    fn number(&self, iv: Iv) -> Option<Val> {
        let mut value = iv.value;
        if iv.lower != 0 {
            value = self.binary("arith.subi", value, self.constant(iv.lower)?)?;
        }
        if iv.step != 1 {
            value = self.binary("arith.divui", value, self.constant(iv.step)?)?;
        }
        Some(value)
    }
}

/// Adds the prefetches of `site`: the row's number and the next block before the reduction
/// loop, the channel's turn and the prefetches (in an `scf.if`) at the start of its step;
/// whether it did. (Index arithmetic left by a site given up is dead code for `canonicalize`.)
fn insert(cx: &mut PassContext<'_>, site: &Site) -> Result<bool, PassFailed> {
    let context = cx.strata().mlir();
    let reduction = site.reduction.get();
    let outside = Builder { context, location: reduction.location(), anchor: reduction };
    let Some((next, target, spread, flat)) = (|| {
        let b = &outside;
        let block = site.block;
        let last = b.constant(block.lower + (block.trips - 1) * block.step)?;
        let next = b.binary("arith.addi", block.value, b.constant(block.step)?)?;
        let mut next = b.binary("arith.minsi", next, last)?;
        if site.divisor != 1 {
            next = b.binary("arith.divui", next, b.constant(site.divisor)?)?;
        }
        let next = b.binary("arith.muli", next, b.constant(site.block_stride)?)?;
        // The constant as one row of elements, for the prefetches' flat indices.
        let flat =
            MemRefType::new(strata_ir::types::memref(site.global.r#type())?.element(), &[site.elements], None, None);
        let rank = strata_ir::types::memref(site.global.r#type())?.rank();
        let all: Vec<Attribute> =
            (0..rank).map(|d| IntegerAttribute::new(IntegerType::new(context, 64).into(), d as i64).into()).collect();
        let collapse = b.add(
            OperationBuilder::new("memref.collapse_shape", b.location)
                .add_operands(&[site.global.get()])
                .add_attributes(&[(
                    Identifier::new(context, "reassociation"),
                    ArrayAttribute::new(context, &[ArrayAttribute::new(context, &all).into()]).into(),
                )])
                .add_results(&[flat.into()])
                .build()
                .ok()?,
        )?;
        let mut row = b.constant(0)?;
        for r in &site.rows {
            row = b.binary("arith.muli", row, b.constant(r.trips)?)?;
            row = b.binary("arith.addi", row, b.number(*r)?)?;
        }
        let target = b.binary("arith.subi", row, b.constant(1)?)?;
        let repeats: i64 = site.rows.iter().map(|r| r.trips).product();
        // The turns: the largest power of two up to the tiles after the first, so that the
        // test each reduction step makes is an `and`, not a division by a constant (five
        // instructions a step, a fifth of a 1x1 convolution's 14-FMA step); the tiles past
        // the turns prefetch nothing.
        let turns = 1_i64 << (63 - (repeats - 1).max(1).leading_zeros());
        Some((next, target, b.constant(turns)?, collapse))
    })() else {
        return Ok(false);
    };
    let body = site.reduction.body(0).expect("a loop has a body");
    let first = body.first().expect("a loop body ends in a yield").get();
    let inside = Builder { context, location: reduction.location(), anchor: first };
    let line = LINE / site.bytes;
    let lines = (site.slice * site.bytes + LINE - 1) / LINE;
    let Some((condition, indices)) = (|| {
        let b = &inside;
        let turn = b.binary("arith.remui", b.number(site.channel)?, spread)?;
        let condition = b.add(
            OperationBuilder::new("arith.cmpi", b.location)
                .add_attributes(&[(
                    Identifier::new(context, "predicate"),
                    IntegerAttribute::new(IntegerType::new(context, 64).into(), 0).into(),
                )])
                .add_operands(&[turn.get(), target.get()])
                .add_results(&[IntegerType::new(context, 1).into()])
                .build()
                .ok()?,
        )?;
        // base + next block + channel slice: the first element of the slice to prefetch.
        let start = b.binary("arith.muli", site.channel.value, b.constant(site.slice)?)?;
        let start = b.binary("arith.addi", start, next)?;
        let mut indices = Vec::new();
        for l in 0..lines {
            let offset = site.base + l * line;
            indices.push(if offset == 0 { start } else { b.binary("arith.addi", start, b.constant(offset)?)? });
        }
        Some((condition, indices))
    })() else {
        return Ok(false);
    };
    let then = Block::new(&[]);
    for index in indices {
        let prefetch = crate::prefetch_rows::prefetch_operation(context, inside.location, flat, index)
            .map_err(|e| cx.fail(reduction, &format!("cannot build a prefetch: {e}").into()))?;
        then.append_operation(prefetch);
    }
    then.append_operation(
        OperationBuilder::new("scf.yield", inside.location)
            .build()
            .map_err(|e| cx.fail(reduction, &format!("cannot build a yield: {e}").into()))?,
    );
    let then_region = Region::new();
    then_region.append_block(then);
    let branch = OperationBuilder::new("scf.if", inside.location)
        .add_operands(&[condition.get()])
        .add_regions([then_region, Region::new()])
        .build()
        .map_err(|e| cx.fail(reduction, &format!("cannot build an scf.if: {e}").into()))?;
    first.block().expect("in a loop body").insert_operation_before(first, branch);
    Ok(true)
}
