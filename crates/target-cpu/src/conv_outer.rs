//! The register-blocked convolutions' vector steps as outer products (part of
//! `strata-cpu-schedule`, on tensors, after `schedules/cpu-conv.mlir`).
//!
//! Vectorising a tile of `r` output positions by `l` filters gives, per reduction step,
//! `acc + bcast(x) * bcast(w)`: the `r` input values read as a `vector<r x l>` broadcast along
//! the filters, the `l` filter values read as one broadcast along the positions. MLIR 22 lowers
//! such broadcasts through `vector.transpose` and the canonicalizer's `to_elements` /
//! `from_elements` (every lane of the block built one scalar at a time), which LLVM folds back
//! into a few shuffles only after chewing through them: MobileNetV2's convolutions became 45k
//! LLVM instructions, `<7 x float>` values shuffled into `<32 x float>` ones, and most of its
//! code generation time was instruction selection of them. The same step is an outer product,
//! `vector.outerproduct x, w, acc`, which `strata-cpu-vectorize` lowers to `r` scalar
//! broadcasts and fused multiply-adds, as the matmuls' blocks are.
//!
//! Also here: the bias (or zero) the block starts from, read as a broadcast along the positions
//! and transposed, is read in the accumulator's layout directly; and the tile's first write of
//! it to the output, which the accumulators' final write covers entirely, is dropped (after
//! bufferization it was a transposed store of a whole block, never read).

use crate::vector_ops::{build, position, vector_shape};
use melior::ir::operation::OperationRef;
use melior::ir::{Attribute, Type, ValueLike};
use melior::Context;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Val};

/// Rewrites the vector steps of the register-blocked convolutions in `module` (see the module
/// documentation); returns how many steps became outer products.
pub fn rewrite(context: &Context, module: OperationRef<'_, '_>) -> usize {
    let mut count = 0;
    for add in collect(&module, |op| op.is("arith.addf")) {
        if outer_product(context, add).is_some() {
            count += 1;
        }
    }
    for transpose in collect(&module, |op| op.is("vector.transpose")) {
        transposed_broadcast(context, transpose);
    }
    for write in collect(&module, |op| op.is("vector.transfer_write")) {
        drop_covered_write(write);
    }
    count
}

/// The static shape of a vector or ranked tensor type.
fn shape(ty: Type<'_>) -> Option<Vec<i64>> {
    strata_lower::ops::static_shape(ty).ok().or_else(|| Some(vector_shape(ty)?.0))
}

/// The map of a `vector.transfer_read`/`transfer_write`, printed.
fn map_text(op: Op) -> Option<String> {
    op.attribute("permutation_map").map(|a| a.to_string())
}

/// The dimension names `d0, ..., d{n-1}`, joined.
fn dims(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("d{i}")).collect()
}

/// How `read` (a `vector.transfer_read` into a vector of rank n >= 2, all in bounds, unmasked)
/// broadcasts: `Some(0)` when its source is the vector's leading n - 1 dimensions, broadcast
/// along the last (`(d0, .., d{n-2}) -> (d0, .., d{n-2}, 0)`: the input values of a block of
/// output positions), `Some(1)` when it is 1-D along the last dimension, broadcast along the
/// others (`(d0) -> (0, .., 0, d0)`: a vector of filters).
fn broadcast_read(read: Op) -> Option<usize> {
    if !read.is("vector.transfer_read") {
        return None;
    }
    let source = shape(read.operand(0).r#type())?;
    let vector = shape(read.result(0).r#type())?;
    let n = vector.len();
    if n < 2 || read.operand_count() != source.len() + 2 {
        return None;
    }
    let in_bounds = read.attribute("in_bounds")?.to_string();
    if in_bounds != format!("[{}]", vec!["true"; n].join(", ")) {
        return None;
    }
    let map = map_text(read)?;
    let leading = dims(n - 1).join(", ");
    if source[..] == vector[..n - 1] && map == format!("affine_map<({leading}) -> ({leading}, 0)>") {
        return Some(0);
    }
    let zeros = vec!["0"; n - 1].join(", ");
    if source.len() == 1 && source[0] == vector[n - 1] && map == format!("affine_map<(d0) -> ({zeros}, d0)>") {
        return Some(1);
    }
    None
}

/// A copy of `read` (see [`broadcast_read`]) inserted before `before`, reading `ty` with the
/// map `map` and bounds `in_bounds`.
fn reread(context: &Context, read: Op, before: Op, ty: &str, map: &str, in_bounds: &str) -> Option<Val> {
    let ty = Type::parse(context, ty)?;
    let map = Attribute::parse(context, map)?;
    let in_bounds = Attribute::parse(context, in_bounds)?;
    let copy = read.clone_detached();
    before.block()?.insert_before(before, copy);
    copy.set_attribute("permutation_map", map);
    copy.set_attribute("in_bounds", in_bounds);
    let result = copy.result(0);
    result.get().set_type(ty);
    Some(result)
}

/// `addf(acc, mulf(x, w))` (either order of either, both contractible) where `x` and `w` are
/// [`broadcast_read`]s along the leading dimensions and the last: replaced by
/// `vector.outerproduct` of the plain reads, one per index of the dimensions before the last
/// two (extracted and inserted back).
fn outer_product(context: &Context, add: Op) -> Option<()> {
    let vector = shape(add.result(0).r#type())?;
    let n = vector.len();
    if n < 2 {
        return None;
    }
    let (acc, product) = [(0, 1), (1, 0)].into_iter().find_map(|(a, p)| {
        let product = add.operand(p).owner().filter(|op| op.is("arith.mulf"))?;
        Some((add.operand(a), product))
    })?;
    // An outer product fuses each multiply-add (one rounding): only where the step allowed
    // contraction already, as the schedule's steps do.
    let contract = |op: Op| op.attribute("fastmath").is_some_and(|f| f.to_string().contains("contract"));
    if product.result(0).uses().len() != 1 || !contract(add) || !contract(product) {
        return None;
    }
    let reads: Vec<Op> = (0..2).map(|i| product.operand(i).owner()).collect::<Option<_>>()?;
    let along: Vec<usize> = reads.iter().map(|&r| broadcast_read(r)).collect::<Option<_>>()?;
    let (rows, columns) = match along[..] {
        [0, 1] => (reads[0], reads[1]),
        [1, 0] => (reads[1], reads[0]),
        _ => return None,
    };
    let (_, element) = vector_shape(add.result(0).r#type())?;
    let ty = |dims: &[i64]| {
        format!("vector<{}x{element}>", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"))
    };
    let leading = dims(n - 1).join(", ");
    let identity = format!("affine_map<({leading}) -> ({leading})>");
    let x =
        reread(context, rows, add, &ty(&vector[..n - 1]), &identity, &format!("[{}]", vec!["true"; n - 1].join(", ")))?;
    let w = reread(context, columns, add, &ty(&vector[n - 1..]), "affine_map<(d0) -> (d0)>", "[true]")?;
    let kind = [("kind", "#vector.kind<add>".to_owned())];
    let result = if n == 2 {
        build(context, add, "vector.outerproduct", &[x, w, acc], &ty(&vector), &kind)?
    } else {
        // One outer product per index of the dimensions before the last two.
        let outer = &vector[..n - 2];
        let mut result = build(context, add, "ub.poison", &[], &ty(&vector), &[("value", "#ub.poison".to_owned())])?;
        for flat in 0..outer.iter().product() {
            let at = [("static_position", position(flat, outer))];
            let xi = build(context, add, "vector.extract", &[x], &ty(&vector[n - 2..n - 1]), &at)?;
            let acci = build(context, add, "vector.extract", &[acc], &ty(&vector[n - 2..]), &at)?;
            let step = build(context, add, "vector.outerproduct", &[xi, w, acci], &ty(&vector[n - 2..]), &kind)?;
            result = build(context, add, "vector.insert", &[step, result], &ty(&vector), &at)?;
        }
        result
    };
    add.result(0).replace_all_uses_with(result);
    // Safety: the add, the product and (when unused now) the broadcast reads are erased once,
    // users first; no handle to them is used afterwards.
    unsafe {
        add.erase();
        product.erase();
        for read in [rows, columns] {
            if !read.has_uses() {
                read.erase();
            }
        }
    }
    Some(())
}

/// `transpose(read)` where `read` is a [`broadcast_read`] along the rows: the read along the
/// columns of the transposed type instead.
fn transposed_broadcast(context: &Context, transpose: Op) -> Option<()> {
    let read = transpose.operand(0).owner()?;
    if shape(read.result(0).r#type())?.len() != 2
        || broadcast_read(read)? != 0
        || transpose.attribute("permutation")?.to_string() != "array<i64: 1, 0>"
    {
        return None;
    }
    let ty = transpose.result(0).r#type().to_string();
    let new = reread(context, read, transpose, &ty, "affine_map<(d0) -> (0, d0)>", "[true, true]")?;
    transpose.result(0).replace_all_uses_with(new);
    // Safety: the transpose has no uses left; the read is erased only when unused.
    unsafe {
        transpose.erase();
        if !read.has_uses() {
            read.erase();
        }
    }
    Some(())
}

/// Whether the `vector.transfer_write` `write` writes every element of its destination: all
/// in bounds, unmasked, from index 0, as many elements as the tensor has.
fn covers_destination(write: Op) -> bool {
    let (Some(vector), Some(tensor)) = (shape(write.operand(0).r#type()), shape(write.operand(1).r#type())) else {
        return false;
    };
    let zero = |v: Val| {
        v.owner().filter(|op| op.is("arith.constant")).and_then(|op| op.attribute("value")).is_some_and(|a| {
            let text = a.to_string();
            text == "0 : index"
        })
    };
    let indices = write.operand_count().saturating_sub(2);
    write.result_count() == 1
        && indices == tensor.len()
        && (2..write.operand_count()).all(|i| zero(write.operand(i)))
        && write.attribute("in_bounds").is_some_and(|a| !a.to_string().contains("false"))
        && vector.iter().product::<i64>() == tensor.iter().product::<i64>()
}

/// A tensor `transfer_write` into the result of another that it overwrites entirely (both
/// cover their destination, [`covers_destination`]) writes into the first one's destination
/// instead; the first, unused now, is erased, and the read it wrote when nothing else uses it.
fn drop_covered_write(write: Op) -> Option<()> {
    let first = write.operand(1).owner().filter(|op| op.is("vector.transfer_write"))?;
    if !covers_destination(write) || !covers_destination(first) || first.result(0).uses().len() != 1 {
        return None;
    }
    write.set_operand(1, first.operand(1));
    let written = first.operand(0).owner();
    // Safety: the first write has no uses left, nor (when erased) the read of what it wrote;
    // no handle to either is used afterwards.
    unsafe {
        first.erase();
        if let Some(read) = written.filter(|op| op.is("vector.transfer_read") && !op.has_uses()) {
            read.erase();
        }
    }
    Some(())
}
