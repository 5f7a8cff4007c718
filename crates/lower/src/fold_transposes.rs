//! `strata-fold-constant-transposes`: a `linalg.transpose` of an f32 constant (or of a static
//! slice of one) becomes a new constant holding the transposed values, computed at compile
//! time. (`sg-compose-transposes` folds the graph's own transposes of constants; this pass
//! folds those the lowering writes.)
//!
//! The recurrent cells read their weights `[G * H, K]` transposed, `[K, G * H]`, so that each
//! product is a plain `linalg.matmul` the host vectorises with the gates contiguous
//! ([`crate::recurrent`]); the weights are almost always constants, and this pass moves that
//! transpose out of every run. The constant it reads stays while anything else reads it:
//! both directions of a bidirectional cell fold, so their common weight dies, but a weight
//! also read untransposed is then stored twice.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Type, ValueLike};
use strata_ir::rewrite::{collect, defining_op, replace_op};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-fold-constant-transposes",
    summary: "linalg.transpose of an f32 constant (or a static slice of one) becomes the transposed constant, computed at compile time",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "transposes-folded", help: "linalg.transpose ops replaced by constants" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(FoldConstantTransposes)
}

struct FoldConstantTransposes;

impl Pass for FoldConstantTransposes {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for transpose in collect(&func, |op| op.is("linalg.transpose") && op.result_count() == 1) {
            let op = transpose.get();
            let Some((values, shape)) = constant_source(op.operand(0).expect("a transpose has an input")) else {
                continue;
            };
            let Some(permutation) = strata_ir::ods::i64_array(op, "permutation") else { continue };
            let Some(transposed) = transpose_values(&values, &shape, &permutation) else { continue };
            let result = op.result(0).expect("one result");
            let ty: Type = result.r#type();
            // A splat stays a splat (an all-zero recurrent weight is one value, not a blob).
            let value = if transposed.iter().all(|v| v.to_bits() == transposed[0].to_bits()) {
                strata_ir::resource::dense_bytes(ty, &transposed[0].to_le_bytes())
            } else {
                let bytes: Vec<u8> = transposed.iter().flat_map(|v| v.to_le_bytes()).collect();
                strata_ir::resource::dense_resource(ty, "transposed", &bytes)
            };
            let replacement =
                strata_ir::rewrite::constant_before(context, op, ty, value).expect("the transpose is in a block");
            // Safety: the transpose is replaced once and not used afterwards; the ops that fed it
            // are left to dead-code elimination (canonicalize) when nothing else reads them.
            unsafe { replace_op(transpose, replacement) };
            cx.bump("transposes-folded", 1);
        }
        Ok(())
    }
}

/// The values (row-major) and static shape of `value` when it is an f32 constant, or a chain
/// of `tensor.extract_slice`s with static offsets, sizes and strides of one.
fn constant_source(value: melior::ir::Value<'_, '_>) -> Option<(Vec<f32>, Vec<i64>)> {
    let op = defining_op(value)?;
    match strata_ir::ods::op_name(op).as_str() {
        "arith.constant" => {
            let shape = shape_of(value.r#type())?;
            let values = strata_ir::resource::f32_values(op.attribute("value").ok()?)?;
            (values.len() as i64 == shape.iter().product::<i64>()).then_some((values, shape))
        }
        "tensor.extract_slice" if op.operand_count() == 1 => {
            let (values, shape) = constant_source(op.operand(0).ok()?)?;
            let strata_ir::ods::SliceBox { offsets, sizes, strides } = strata_ir::ods::SliceBox::of(op)?;
            let result = shape_of(op.result(0).ok()?.r#type())?;
            let sliced = slice_values(&values, &shape, &offsets, &sizes, &strides)?;
            // A rank-reducing slice drops unit sizes: the same values in the result's shape.
            (sliced.len() as i64 == result.iter().product::<i64>()).then_some((sliced, result))
        }
        _ => None,
    }
}

/// The static shape of a ranked tensor type.
fn shape_of(ty: Type<'_>) -> Option<Vec<i64>> {
    crate::ops::static_shape(ty).ok()
}

/// The elements of the slice (`offsets`, `sizes`, `steps`, all static) of `values`
/// (row-major, of `shape`), row-major; `None` when it is not within `shape` (also used by the
/// host's compile-time filter slices).
pub fn slice_values(values: &[f32], shape: &[i64], offsets: &[i64], sizes: &[i64], steps: &[i64]) -> Option<Vec<f32>> {
    let rank = shape.len();
    if offsets.len() != rank || sizes.len() != rank || steps.len() != rank {
        return None;
    }
    let in_bounds = (0..rank).all(|d| {
        offsets[d] >= 0
            && sizes[d] >= 0
            && steps[d] >= 1
            && (sizes[d] == 0 || offsets[d] + (sizes[d] - 1) * steps[d] < shape[d])
    });
    if !in_bounds {
        return None;
    }
    let strides = strata_ir::types::row_major_strides(shape);
    let count: i64 = sizes.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    let mut index = vec![0i64; rank];
    for _ in 0..count {
        let flat: i64 = (0..rank).map(|d| (offsets[d] + index[d] * steps[d]) * strides[d]).sum();
        out.push(values[flat as usize]);
        for d in (0..rank).rev() {
            index[d] += 1;
            if index[d] < sizes[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Some(out)
}

/// `values` (row-major, of `shape`) transposed by `permutation` (result dimension `d` is input
/// dimension `permutation[d]`), row-major; `None` unless `permutation` is one.
fn transpose_values(values: &[f32], shape: &[i64], permutation: &[i64]) -> Option<Vec<f32>> {
    let rank = shape.len();
    let mut seen = vec![false; rank];
    for &p in permutation {
        let slot = seen.get_mut(usize::try_from(p).ok()?)?;
        if std::mem::replace(slot, true) {
            return None;
        }
    }
    let shape: Vec<usize> = shape.iter().map(|&d| usize::try_from(d).ok()).collect::<Option<_>>()?;
    let permutation: Vec<usize> = permutation.iter().map(|&p| p as usize).collect();
    strata_dialect_sg::passes::compose_transposes::permute(values, &shape, &permutation)
}

#[cfg(test)]
mod tests {
    use super::{slice_values, transpose_values};

    #[test]
    fn transposes_and_slices_move_the_right_elements() {
        // [[0, 1, 2], [3, 4, 5]] transposed.
        let v: Vec<f32> = (0..6).map(|x| x as f32).collect();
        assert_eq!(transpose_values(&v, &[2, 3], &[1, 0]), Some(vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]));
        // A 2x3x4 block, axes (2, 0, 1): element [k][i][j] = v[i][j][k].
        let w: Vec<f32> = (0..24).map(|x| x as f32).collect();
        let t = transpose_values(&w, &[2, 3, 4], &[2, 0, 1]).unwrap();
        assert_eq!(t[0..6], [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]);
        assert_eq!(t[6], 1.0);
        // Not a permutation.
        assert_eq!(transpose_values(&v, &[2, 3], &[0, 0]), None);
        // The second direction of [2, 2, 3]: rows 6..12.
        let u: Vec<f32> = (0..12).map(|x| x as f32).collect();
        assert_eq!(
            slice_values(&u, &[2, 2, 3], &[1, 0, 0], &[1, 2, 3], &[1, 1, 1]),
            Some((6..12).map(|x| x as f32).collect())
        );
        // Every other column, and out of bounds.
        assert_eq!(slice_values(&v, &[2, 3], &[0, 0], &[2, 2], &[1, 2]), Some(vec![0.0, 2.0, 3.0, 5.0]));
        assert_eq!(slice_values(&v, &[2, 3], &[0, 2], &[2, 2], &[1, 1]), None);
        // A 2 x 3 x 2 tensor, v[i][j][k] = 100 i + 10 j + k: a block, the whole, one too far.
        let x: Vec<f32> =
            (0..2).flat_map(|i| (0..3).flat_map(move |j| (0..2).map(move |k| (100 * i + 10 * j + k) as f32))).collect();
        let unit = [1, 1, 1];
        assert_eq!(slice_values(&x, &[2, 3, 2], &[1, 1, 0], &[1, 2, 2], &unit), Some(vec![110.0, 111.0, 120.0, 121.0]));
        assert_eq!(slice_values(&x, &[2, 3, 2], &[0, 0, 0], &[2, 3, 2], &unit).as_ref(), Some(&x));
        assert_eq!(slice_values(&x, &[2, 3, 2], &[0, 2, 0], &[1, 2, 1], &unit), None);
    }
}
