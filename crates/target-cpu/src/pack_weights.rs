//! `strata-pack-weights`: constant weights that the tiled kernels read block by block along
//! their last axis are stored block by block.
//!
//! After `strata-cpu-schedule` a register-blocked convolution reads its compile-time filter
//! `C x KH x KW x F` (filters last, rows padded by `conv_lanes::padded_row`) one tile of `tf`
//! filters at a time: `tensor.extract_slice %w[0, 0, 0, %f] [C, KH, KW, tf]` with `%f` a tile
//! loop's induction variable, stepped by `tf`. In rows, one tap's `tf` filters are a whole row
//! from the next tap's: the tile walks the filter at a stride of `F` floats (3.9 KB for
//! MobileNetV2's 960-filter expansions), a new 4 KB page every tap, which the hardware
//! prefetchers do not follow, and it streams from memory in every run once the model's weights
//! outgrow the L2. Stored as `ceil(F / tf) x C x KH x KW x tf` (the last block padded with
//! zeros), each tile's filter is one contiguous run that it reads front to back.
//!
//! `conv_lanes` packs the filters of the convolutions without an epilogue itself, splitting
//! the filter loop into blocks in the generic; one fused into its epilogue cannot take that
//! split (MLIR fuses a producer into a tile only through a projected-permutation output map),
//! and is packed here instead, after tiling, where the slices say which blocks are read. The
//! rewrite is a pure change of storage: each slice reads the same values from the packed
//! constant, `[%f / tf, 0, 0, 0, 0] [1, C, KH, KW, tf]` (rank-reduced to the same type). A
//! constant is packed only when every use is such a slice, every slice's offset along the
//! last axis is provably a multiple of the block (a constant, a loop variable whose start and
//! step are, or an affine sum of such) and no slice spans two blocks; otherwise it is left as
//! it is. Any constant tensor read so is packed (a matmul's weight sliced by column blocks as
//! well as a filter).
//!
//! Runs on tensors, between `strata-cpu-schedule` and bufferization.

use crate::DYNAMIC;
use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::{AffineExpr, AffineMap, Attribute, BlockLike, Identifier, Type};
use melior::Context;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::ops::tensor_type;

pub static INFO: PassInfo = PassInfo {
    name: "strata-pack-weights",
    summary: "Store constant weights that tiles read in blocks of their last axis (a tile's filters) block by block",
    anchor: "builtin.module",
    options: &[],
    statistics: &[
        StatisticInfo { name: "packed", help: "constants stored block by block" },
        StatisticInfo { name: "slices", help: "slices rewritten to read a packed constant" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(PackWeights)
}

struct PackWeights;

/// The `dense_resource` name of the packed constants.
const RESOURCE: &str = "weights_packed";

/// Blocks narrower than this many elements are left alone: a tile that reads fewer than a
/// 16-byte vector of a row at a time gains nothing from a contiguous run.
const MIN_BLOCK: i64 = 4;

impl Pass for PackWeights {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for constant in collect(&module, |op| op.is("arith.constant")) {
            let Some(plan) = plan(context, constant) else { continue };
            let Some(packed) = pack(context, constant, &plan) else { continue };
            for (op, slice) in plan.slices {
                rewrite_slice(context, op, slice, packed, plan.block);
                cx.bump("slices", 1);
            }
            // The strips and the constant have no readers left.
            for op in plan.strips.iter().copied().chain([constant]) {
                // Safety: neither `op` nor anything in it is used after this.
                unsafe { strata_ir::rewrite::erase_if_unused(op) };
            }
            cx.bump("packed", 1);
        }
        Ok(())
    }
}

/// How one constant is packed: the block (elements of its last axis), the extent of that
/// axis the slices read (the blocks cover it), and the slices to rewrite.
struct Plan {
    block: i64,
    width: i64,
    shape: Vec<i64>,
    /// Each with its offsets, sizes and strides as the plan read them.
    slices: Vec<(Op, Slice)>,
    /// Zero-offset slices of the whole constant that only drop the padding of its rows (read
    /// through by the block slices).
    strips: Vec<Op>,
}

/// A `tensor.extract_slice`'s static offsets, sizes and strides, and its dynamic offsets.
struct Slice {
    offsets: Vec<i64>,
    sizes: Vec<i64>,
    strides: Vec<i64>,
    dynamic_offsets: Vec<Val>,
}

fn slice_of(op: Op) -> Option<Slice> {
    if !op.is("tensor.extract_slice") {
        return None;
    }
    let raw = op.get();
    let ints = |name: &str| strata_ir::ods::i64_array(raw, name);
    let (offsets, sizes, strides) = (ints("static_offsets")?, ints("static_sizes")?, ints("static_strides")?);
    let dynamic = offsets.iter().filter(|&&o| o == DYNAMIC).count();
    // Only offsets may be dynamic: the operands are the source and those offsets.
    if sizes.contains(&DYNAMIC) || strides.contains(&DYNAMIC) || op.operand_count() != 1 + dynamic {
        return None;
    }
    let dynamic_offsets = (1..op.operand_count()).map(|i| op.operand(i)).collect();
    Some(Slice { offsets, sizes, strides, dynamic_offsets })
}

/// Whether `constant` is read only by slices of whole blocks along its last axis, and how.
fn plan(context: &Context, constant: Op) -> Option<Plan> {
    let value = constant.result(0);
    let ty = tensor_type(value.r#type()).ok()?;
    let rank = ty.rank();
    if ty.elem.name != "f32" || rank < 2 || ty.shape.iter().any(|&d| d <= 0) {
        return None;
    }
    let last = rank - 1;
    let mut strips = Vec::new();
    let mut reads = Vec::new();
    let mut width = 0;
    for user in value.users() {
        let slice = slice_of(user)?;
        let whole = slice.offsets.iter().all(|&o| o == 0) && slice.strides.iter().all(|&s| s == 1);
        let same_rank = tensor_type(user.result(0).r#type()).ok()?.rank() == rank;
        if whole && same_rank && slice.sizes[..last] == ty.shape[..last] && slice.sizes[last] < ty.shape[last] {
            // A strip of the rows' padding: its readers index the constant's own coordinates.
            width = width.max(slice.sizes[last]);
            strips.push(user);
            reads.extend(user.result(0).users());
        } else {
            width = ty.shape[last];
            reads.push(user);
        }
    }
    if reads.is_empty() {
        return None;
    }
    let mut slices = Vec::new();
    let mut block = 0;
    let mut offsets = Vec::new();
    for read in reads {
        let slice = slice_of(read)?;
        if slice.strides[last] != 1 || read.result(0).users().is_empty() {
            return None;
        }
        block = block.max(slice.sizes[last]);
        offsets.push((last_offset(&slice), slice.sizes[last]));
        slices.push((read, slice));
    }
    // One block is the rows' layout already.
    if block < MIN_BLOCK || block >= width {
        return None;
    }
    for (offset, size) in offsets {
        let divisor = match offset {
            Offset::Static(o) => o,
            Offset::Dynamic(v) => known_divisor(context, v),
        };
        // Each slice starts a block (a divisor of 0: the offset is 0) and ends in it.
        if divisor % block != 0 || size > block {
            return None;
        }
    }
    Some(Plan { block, width, shape: ty.shape, slices, strips })
}

enum Offset {
    Static(i64),
    Dynamic(Val),
}

/// A slice's offset along the last axis.
fn last_offset(slice: &Slice) -> Offset {
    let last = *slice.offsets.last().expect("a slice of rank 2 or more");
    if last != DYNAMIC {
        return Offset::Static(last);
    }
    // The dynamic offsets are in order: the last one is the last axis's.
    Offset::Dynamic(*slice.dynamic_offsets.last().expect("one operand per dynamic offset"))
}

/// The largest number `value` (an index) is known to be a multiple of: 0 when it is the
/// constant 0, 1 when nothing is known. Constants, the induction variables of `scf.for` and
/// `scf.forall` (a multiple of their start's and step's), and `affine.apply` of such.
fn known_divisor(context: &Context, value: Val) -> i64 {
    if let Some(c) = value.constant_int() {
        return c.abs();
    }
    if let Some(op) = value.owner() {
        if op.is("affine.apply") {
            return apply_divisor(context, op).unwrap_or(1);
        }
        return 1;
    }
    let (Some(block), Some(index)) = (value.owner_block(), value.argument_number()) else { return 1 };
    let Some(parent) = block.parent() else { return 1 };
    if parent.is("scf.for") && index == 0 {
        return gcd(known_divisor(context, parent.operand(0)), known_divisor(context, parent.operand(2)));
    }
    if parent.is("scf.forall") {
        let raw = parent.get();
        let ints = |name: &str| strata_ir::ods::i64_array(raw, name);
        let (Some(lower), Some(step)) = (ints("staticLowerBound"), ints("staticStep")) else { return 1 };
        return match (lower.get(index), step.get(index)) {
            (Some(&l), Some(&s)) if l != DYNAMIC && s != DYNAMIC => gcd(l.abs(), s.abs()),
            _ => 1,
        };
    }
    1
}

/// The divisor of an `affine.apply` of one result and no symbols: its map with each operand
/// replaced by (its divisor) x (a fresh dimension), which MLIR's affine algebra bounds.
fn apply_divisor(context: &Context, op: Op) -> Option<i64> {
    let map = strata_ir::handle::affine_map(op.attribute("map")?)?;
    if map.result_count() != 1 || map.symbol_count() != 0 || map.dim_count() != op.operand_count() {
        return None;
    }
    let scaled: Vec<AffineExpr<'_>> = (0..map.dim_count())
        .map(|i| AffineExpr::constant(context, known_divisor(context, op.operand(i))) * AffineExpr::dim(context, i))
        .collect();
    let substitution = AffineMap::new(context, map.dim_count(), 0, &scaled);
    Some(map.result(0).ok()?.compose(substitution).largest_known_divisor().abs())
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The values of a constant `shape` (row-major) stored in blocks of `block` along the last axis,
/// `ceil(width / block) x shape[..last] x block` (elements past `width` zero).
fn packed_values(values: &[f32], shape: &[i64], width: i64, block: i64) -> Vec<f32> {
    let row = *shape.last().expect("a shape of rank 2 or more");
    let rows: i64 = shape[..shape.len() - 1].iter().product();
    let blocks = (width + block - 1) / block;
    let (rows, row, block) = (rows as usize, row as usize, block as usize);
    let mut packed = vec![0f32; blocks as usize * rows * block];
    for (b, out) in packed.chunks_exact_mut(rows * block).enumerate() {
        let (start, end) = (b * block, (b * block + block).min(width as usize));
        for (r, lanes) in out.chunks_exact_mut(block).enumerate() {
            lanes[..end - start].copy_from_slice(&values[r * row + start..r * row + end]);
        }
    }
    packed
}

/// The packed constant, inserted after `constant`.
fn pack(context: &Context, constant: Op, plan: &Plan) -> Option<Val> {
    let attribute = constant.attribute("value")?;
    // A splat reads the same in any layout.
    if strata_ir::resource::is_splat(attribute) {
        return None;
    }
    let values = strata_ir::resource::f32_values(attribute)?;
    if values.len() as i64 != plan.shape.iter().product::<i64>() {
        return None;
    }
    let ty = tensor_type(constant.result(0).r#type()).ok()?;
    let blocks = (plan.width + plan.block - 1) / plan.block;
    let mut shape = vec![blocks];
    shape.extend_from_slice(&plan.shape[..plan.shape.len() - 1]);
    shape.push(plan.block);
    let packed_ty = ty.with_shape(shape);
    let packed = packed_values(&values, &plan.shape, plan.width, plan.block);
    let value = crate::conv_lanes::new_f32_constant(context, constant.get(), &packed_ty, &packed, RESOURCE);
    Some(value)
}

/// Makes `slice` read its block of `packed`: `[offset / block, offsets..., 0] [1, sizes...]`,
/// rank-reduced to the slice's own type.
fn rewrite_slice(context: &Context, slice: Op, parts: Slice, packed: Val, block: i64) {
    let offset = last_offset(&parts);
    let Slice { offsets, sizes, strides, mut dynamic_offsets } = parts;
    let last = offsets.len() - 1;
    let anchor = slice.get();
    let location = anchor.location();
    let insert = |op: melior::ir::Operation<'_>| -> Val {
        let block = anchor.block().expect("a slice is in a block");
        Val::from(block.insert_operation_before(anchor, op).result(0).expect("one result"))
    };
    let first = match offset {
        Offset::Static(o) => o / block,
        Offset::Dynamic(offset) => {
            // offset / block, exact: the plan proved offset a multiple of block.
            let index = Type::index(context);
            let divisor = strata_ir::rewrite::constant_before(
                context,
                anchor,
                index,
                melior::ir::attribute::IntegerAttribute::new(index, block).into(),
            )
            .expect("a constant before the slice");
            let quotient = OperationBuilder::new("arith.divui", location)
                .add_operands(&[offset.get(), divisor.get()])
                .add_results(&[index])
                .build()
                .expect("a valid divui");
            dynamic_offsets.pop();
            dynamic_offsets.insert(0, insert(quotient));
            DYNAMIC
        }
    };
    let mut new_offsets = vec![first];
    new_offsets.extend_from_slice(&offsets[..last]);
    new_offsets.push(0);
    let mut new_sizes = vec![1];
    new_sizes.extend_from_slice(&sizes);
    let mut new_strides = vec![1];
    new_strides.extend_from_slice(&strides);
    let array = |values: &[i64]| -> Attribute<'_> { DenseI64ArrayAttribute::new(context, values).into() };
    let segments = [1, dynamic_offsets.len() as i32, 0, 0];
    let mut operands = vec![packed.get()];
    operands.extend(dynamic_offsets.iter().map(|v| v.get()));
    let new = OperationBuilder::new("tensor.extract_slice", location)
        .add_operands(&operands)
        .add_attributes(&[
            (Identifier::new(context, "static_offsets"), array(&new_offsets)),
            (Identifier::new(context, "static_sizes"), array(&new_sizes)),
            (Identifier::new(context, "static_strides"), array(&new_strides)),
            (Identifier::new(context, "operandSegmentSizes"), DenseI32ArrayAttribute::new(context, &segments).into()),
        ])
        .add_results(&[slice.result(0).r#type()])
        .build()
        .expect("a valid extract_slice");
    let replacement = insert(new);
    // Safety: `slice` is not used after this.
    unsafe { strata_ir::rewrite::replace_op(slice, replacement) };
}

#[cfg(test)]
mod tests {
    use super::{gcd, packed_values};

    #[test]
    fn blocks_hold_their_columns_row_by_row() {
        // 2 rows of 5 (r * 10 + i), blocks of 2 over the first 5 columns: 3 blocks, the last
        // padded with a zero.
        let values: Vec<f32> = (0..2).flat_map(|r| (0..5).map(move |i| (r * 10 + i) as f32)).collect();
        let packed = packed_values(&values, &[2, 5], 5, 2);
        assert_eq!(packed, vec![0.0, 1.0, 10.0, 11.0, 2.0, 3.0, 12.0, 13.0, 4.0, 0.0, 14.0, 0.0]);
        // Padded rows (width 4 of 5): the fifth column is not stored.
        assert_eq!(packed_values(&values, &[2, 5], 4, 2), vec![0.0, 1.0, 10.0, 11.0, 2.0, 3.0, 12.0, 13.0]);
    }

    #[test]
    fn gcd_of_zero_is_the_other() {
        assert_eq!(gcd(0, 32), 32);
        assert_eq!(gcd(96, 64), 32);
        assert_eq!(gcd(7, 0), 7);
    }
}
