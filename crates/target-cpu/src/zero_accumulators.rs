//! Part of `strata-cpu-vectorize`: a register-blocked matmul right after a fill of +0.0 into
//! its result starts its register blocks' accumulators at zero instead of loading the zeros
//! the fill stored, and the fill goes.
//!
//! The lowering starts every product from such a fill. Kept, it wrote the whole result and
//! every register block read its tile back before the reduction: three passes over the
//! result where one (the blocks' stores) is needed. An attention's scores (1500 x 1500 x 64
//! per head, 9 MB) spent more time on those bytes than on their 64 multiply-adds an element.
//!
//! The fill is found on buffers before the schedule runs ([`fills_before`]): before the
//! matmul with nothing between that touches memory, into exactly its result buffer, which
//! neither operand is. [`mark`] gives such a matmul's accumulator cast (`cpu_schedule`'s
//! barrier, its own when no other matmul shares the buffer) an id, and the fill the same;
//! `cpu_schedule` marks each product's loop over its reduction tiles ([`K_TILES`]). After the
//! schedule, [`start_from_zero`] checks what the tiled code does with the buffer: every read
//! of it must be a register block's accumulator load hoisted out of the reduction steps (a
//! `vector.transfer_read` whose value only starts an `scf.for`'s iteration), every other use
//! a view or a store. A load outside the tiles' loop (one tile, or hoisted out of them)
//! becomes a zero vector; one inside it becomes an `scf.if` on the loop's first iteration:
//! zero there, the load (the sums the earlier tiles stored) in the others. Where a product of
//! several tiles has a load that is neither (a loop that lost its mark), or anything else
//! reads the buffer, fill and loads stay: the product is what it was. The sums are the same,
//! bit for bit: each starts from +0.0 either way.
//!
//! A product that starts from a bias broadcast down its result's rows
//! (`strata-matmul-accumulate`'s start, [`starts_before`]) goes the same way: its blocks
//! start from the bias vector's columns (one `vector.load` broadcast down the block's rows)
//! and the broadcast goes; the sums start from the same bias values.

use crate::cpu_schedule::K_TILES;
use std::collections::BTreeMap;
use strata_ir::rewrite::{collect, sinkable, users_through_views};
use strata_ir::{Op, Val};

/// The mark (an id) of a zero-starting matmul's accumulator cast and of its fill or broadcast.
const CAST_MARK: &str = "strata.zero_accumulators";
const INIT_MARK: &str = "strata.zero_init";
/// The mark of a marked cast whose matmul's reduction is several tiles.
const TILED_MARK: &str = "strata.zero_tiled";

/// Each matmul right after a fill of +0.0 into its result (keyed by the matmul's address), or
/// after it with only ops between that touch no memory (`sinkable`), with that fill: the
/// fill's buffer is the result and neither operand (which would read the zeros).
pub(crate) fn fills_before(module: melior::ir::operation::OperationRef<'_, '_>) -> BTreeMap<usize, Op> {
    collect(&module, |op| op.is("linalg.fill"))
        .into_iter()
        .filter_map(|fill| {
            let matmul = matmul_after(fill)?;
            crate::vectorize_matmul::is_positive_zero(fill.operand(0)).then_some((matmul.raw().ptr as usize, fill))
        })
        .collect()
}

/// [`fills_before`]'s matmuls, and those right after a broadcast of a vector down the rows of
/// their result (a bias, `strata-matmul-accumulate`: its register blocks can load the vector
/// instead of the broadcast rows), with that fill or broadcast.
pub(crate) fn starts_before(module: melior::ir::operation::OperationRef<'_, '_>) -> BTreeMap<usize, Op> {
    let mut starts = fills_before(module);
    for broadcast in collect(&module, |op| op.is("linalg.generic") && bias_rows(op).is_some()) {
        if let Some(matmul) = matmul_after(broadcast) {
            starts.insert(matmul.raw().ptr as usize, broadcast);
        }
    }
    starts
}

/// The matmul `init` (two operands, the second its output) starts: the next op past those
/// that touch no memory (`sinkable`: a weight's `get_global`, views, constants), when it is
/// a matmul whose result is `init`'s output and neither operand is.
fn matmul_after(init: Op) -> Option<Op> {
    let mut next = init.next()?;
    while sinkable(&next.name()) {
        next = next.next()?;
    }
    let matmul = Some(next).filter(|next| next.is("linalg.matmul"))?;
    let same_result = init.operand_count() == 2
        && matmul.operand_count() == 3
        && init.operand(1) == matmul.operand(2)
        && matmul.operand(0) != matmul.operand(2)
        && matmul.operand(1) != matmul.operand(2);
    same_result.then_some(matmul)
}

/// The vector a broadcast down the rows of a 2-D f32 output reads
/// ([`crate::peel_matmuls::rows_broadcast_length`]), when it is contiguous (the register
/// blocks load its columns as vectors).
fn bias_rows(broadcast: Op) -> Option<Val> {
    crate::peel_matmuls::rows_broadcast_length(broadcast)?;
    let vector = broadcast.operand(0);
    crate::text_kernels::unit_inner_stride(&vector.r#type().to_string()).then_some(vector)
}

/// Marks the accumulator casts of `candidates` (matmuls after their barriers went in, each with
/// the fill or bias broadcast it starts from and whether its reduction is several tiles) and
/// those starts, where the cast is the matmul's alone; returns how many were marked.
pub(crate) fn mark(context: &melior::Context, candidates: &[(Op, Op, bool)]) -> usize {
    let mut marked = 0;
    for (id, &(matmul, init, tiled)) in candidates.iter().enumerate() {
        let cast = matmul.operand(2);
        let Some(cast_op) = cast.owner().filter(|op| op.is("builtin.unrealized_conversion_cast")) else { continue };
        if cast.users().len() != 1 {
            continue;
        }
        let id = melior::ir::attribute::IntegerAttribute::new(melior::ir::Type::index(context), id as i64);
        cast_op.set_attribute(CAST_MARK, id.into());
        if tiled {
            cast_op.set_attribute(TILED_MARK, melior::ir::attribute::Attribute::unit(context));
        }
        init.set_attribute(INIT_MARK, id.into());
        marked += 1;
    }
    marked
}

/// After the schedule: each marked cast's accumulator loads become zero vectors (or bias rows)
/// and its fill (or broadcast) goes, where every use of the buffer is as the module doc says;
/// every mark is removed. Returns how many products start from zero or their bias.
pub(crate) fn start_from_zero(context: &melior::Context, module: melior::ir::operation::OperationRef<'_, '_>) -> usize {
    let mut inits: BTreeMap<i64, Op> = collect(&module, |op| op.attribute(INIT_MARK).is_some())
        .into_iter()
        .filter_map(|init| Some((init.int_attribute(INIT_MARK)?, init)))
        .collect();
    let mut done = 0;
    for cast in collect(&module, |op| op.attribute(CAST_MARK).is_some()) {
        let id = cast.int_attribute(CAST_MARK);
        let tiled = cast.remove_attribute(TILED_MARK);
        cast.remove_attribute(CAST_MARK);
        // Taken out of `inits`: it may be erased below.
        let Some(init) = id.and_then(|id| inits.remove(&id)) else { continue };
        init.remove_attribute(INIT_MARK);
        let Some(loads) = accumulator_loads(cast.result(0)) else { continue };
        // Several reduction tiles: each load is in the tiles' loop (its first tile starts
        // from zero) or starts that loop (hoisted out of it); anything else, such as a loop
        // that lost its mark, keeps the fill.
        let placed = |load: Op| {
            k_tiles(load).is_some() || load.result(0).users().iter().all(|user| user.attribute(K_TILES).is_some())
        };
        if tiled && !loads.iter().all(|&load| placed(load)) {
            continue;
        }
        // What each block starts from, made before anything changes (an op left unused where
        // one cannot be made is dead code; the product stays as it was).
        let bias = if init.is("linalg.fill") { None } else { bias_rows(init) };
        if !init.is("linalg.fill") && bias.is_none() {
            continue;
        }
        let starts: Option<Vec<Val>> =
            loads.iter().map(|&load| start_value(context, load, cast.result(0), bias)).collect();
        let Some(starts) = starts else { continue };
        for (load, value) in loads.into_iter().zip(starts) {
            match k_tiles(load) {
                // In the first reduction tile the blocks start from zero (or the bias), in the
                // others from the sums the tiles before stored.
                Some(tiles) => first_tile_only(context, load, tiles, value),
                None => {
                    load.result(0).replace_all_uses_with(value);
                    // Safety: its one result has no uses left and no handle to it survives.
                    unsafe { load.erase() };
                }
            }
        }
        // Safety: every element it wrote is stored by a register block before anything reads
        // it, and no block reads it (checked above); nothing holds a handle to it.
        unsafe { init.erase() };
        done += 1;
    }
    // The starts of casts that went missing.
    for init in inits.values() {
        init.remove_attribute(INIT_MARK);
    }
    for tiles in collect(&module, |op| op.attribute(K_TILES).is_some()) {
        tiles.remove_attribute(K_TILES);
    }
    done
}

/// The value a register block's accumulator load `load` (of the buffer `buffer`) is replaced
/// by, inserted before it: zero vectors, or with `bias` the vector's columns of the block
/// (`vector.load` at the load's column index) broadcast down its rows; for a bias, only a
/// 2-D block read straight from `buffer` (its indices are the result's).
fn start_value(context: &melior::Context, load: Op, buffer: Val, bias: Option<Val>) -> Option<Val> {
    let ty = load.result(0).r#type();
    let text = ty.to_string();
    let Some(bias) = bias else {
        let zero = melior::ir::Attribute::parse(context, &format!("dense<0.000000e+00> : {text}"))?;
        return Some(crate::conv_lanes::insert_before(context, load, "arith.constant", &[], ty, Some(zero)));
    };
    let dims: Vec<&str> = text.strip_prefix("vector<")?.strip_suffix("xf32>")?.split('x').collect();
    let [_, columns] = dims[..] else { return None };
    if load.operand(0) != buffer || load.operand_count() != 4 {
        return None;
    }
    let row_ty = format!("vector<{columns}xf32>");
    let row = crate::vector_ops::build(context, load, "vector.load", &[bias, load.operand(2)], &row_ty, &[])?;
    crate::vector_ops::build(context, load, "vector.broadcast", &[row], &text, &[])
}

/// The loop over the reduction tiles (`cpu_schedule`'s mark) around `load`, if any: none
/// where the reduction is one tile (its loop of one trip folded away).
fn k_tiles(load: Op) -> Option<Op> {
    let mut at = load.parent();
    while let Some(op) = at {
        if op.is("scf.for") && op.attribute(K_TILES).is_some() {
            return Some(op);
        }
        at = op.parent();
    }
    None
}

/// Makes `load` (in the reduction tiles' loop `tiles`) `zero` in the loop's first iteration,
/// without reading memory there: an `scf.if` on the first tile yielding `zero`, the load moved
/// into its else branch.
fn first_tile_only(context: &melior::Context, load: Op, tiles: Op, zero: Val) {
    use melior::ir::attribute::IntegerAttribute;
    use melior::ir::operation::OperationBuilder;
    use melior::ir::{Block, BlockLike, Identifier, Region, RegionLike};
    let Some(body) = tiles.body(0) else { return };
    let (index, start) = (body.argument(0), tiles.operand(0));
    let location = load.location();
    let i1 = melior::ir::r#type::IntegerType::new(context, 1).into();
    let Some(first) = OperationBuilder::new("arith.cmpi", location)
        .add_attributes(&[(
            Identifier::new(context, "predicate"),
            IntegerAttribute::new(melior::ir::r#type::IntegerType::new(context, 64).into(), 0).into(),
        )])
        .add_operands(&[index.get(), start.get()])
        .add_results(&[i1])
        .build()
        .ok()
    else {
        return;
    };
    let (Some(block), Some(next)) = (load.block(), load.next()) else { return };
    let first = Val::from(block.get().insert_operation_before(load.get(), first).result(0).expect("one result"));
    let ty = load.result(0).r#type();
    let yield_of = |value: Val| OperationBuilder::new("scf.yield", location).add_operands(&[value.get()]).build().ok();
    let (Some(yield_zero), Some(then)) = (yield_of(zero), Some(Block::new(&[]))) else { return };
    then.append_operation(yield_zero);
    let (then_region, else_region) = (Region::new(), Region::new());
    then_region.append_block(then);
    else_region.append_block(Block::new(&[]));
    let Some(branch) = OperationBuilder::new("scf.if", location)
        .add_operands(&[first.get()])
        .add_results(&[ty])
        .add_regions([then_region, else_region])
        .build()
        .ok()
    else {
        return;
    };
    let branch = Op::of(&block.get().insert_operation_before(next.get(), branch));
    load.result(0).replace_all_uses_with(branch.result(0));
    let Some(otherwise) = branch.body(1) else { return };
    load.detach();
    otherwise.append(load);
    if let Some(yield_load) = yield_of(load.result(0)) {
        otherwise.get().append_operation(yield_load);
    }
}

/// The register blocks' accumulator loads of the buffer `buffer`, when every use of it is a
/// view, a `vector.transfer_write` into it or such a load (a `vector.transfer_read` whose value
/// is only the initial value of `scf.for` iterations), and there is at least one load.
fn accumulator_loads(buffer: Val) -> Option<Vec<Op>> {
    let mut loads = Vec::new();
    for user in users_through_views(buffer) {
        let name = user.name();
        if name == "vector.transfer_read" {
            let starts_loop = user.result(0).uses().iter().all(|&(owner, index)| owner.is("scf.for") && index >= 3);
            if !starts_loop {
                return None;
            }
            loads.push(user);
        } else if name != "vector.transfer_write" && !(name.starts_with("memref.") && sinkable(&name)) {
            return None;
        }
    }
    (!loads.is_empty()).then_some(loads)
}
