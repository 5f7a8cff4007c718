//! `sg-compose-transposes`: folds chains of `sg.transpose`, and transposes of constants.
//!
//! `transpose(transpose(x, p1), p2)` becomes `transpose(x, q)` with `q[i] = p1[p2[i]]`, and a
//! transpose whose permutation is the identity is replaced by its operand. An inner transpose
//! left without users is erased. Values are unchanged: only the order of index mapping is
//! composed. A transpose of an f32 `arith.constant` (a Gemm's `transB` weight, say) becomes a
//! constant holding the transposed values, so no kernel transposes the weight on every run;
//! the original constant goes when nothing else reads it.

use crate::Transpose;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::ShapedTypeLike;
use melior::ir::{BlockLike, Value, ValueLike};
use strata_ir::rewrite::{collect, defining_op, erase_if_unused, replace_op};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "sg-compose-transposes",
    summary: "Compose chains of sg.transpose and drop identity transposes",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "composed", help: "Transpose pairs composed into one" },
        StatisticInfo { name: "erased", help: "Identity or dead transposes erased" },
        StatisticInfo { name: "constants-folded", help: "Transposes of constants folded into new constants" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ComposeTransposes)
}

struct ComposeTransposes;

impl Pass for ComposeTransposes {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        for raw in collect(&func, |op| Transpose::cast(op.get()).is_some()) {
            let outer = Transpose::cast(raw.get()).expect("collected transposes");
            if let Some(folded) = fold_constant(cx, outer) {
                let constant = defining_op(outer.input()).map(|c| strata_ir::Op::of(&c));
                // Safety: `outer` and the constant are not used after they are erased.
                unsafe { replace_op(strata_ir::Op::of(&outer.op()), folded) };
                cx.bump("constants-folded", 1);
                if let Some(constant) = constant {
                    unsafe { erase_if_unused(constant) };
                }
                continue;
            }
            let perm = outer.perm();
            let inner = defining_op(outer.input()).and_then(Transpose::cast);
            let (source, perm) = match inner.map(|inner| (inner, inner.perm())) {
                Some((inner, inner_perm)) => {
                    cx.bump("composed", 1);
                    (inner.input(), perm.iter().map(|&p| inner_perm[p as usize]).collect::<Vec<_>>())
                }
                None => (outer.input(), perm),
            };
            let is_identity = perm.iter().enumerate().all(|(i, &p)| p == i as i64);
            let replacement: Value = if is_identity {
                source
            } else if inner.is_some() {
                let block = outer.op().block().expect("transposes live in blocks");
                let built =
                    Transpose::build(cx.strata().mlir(), outer.op().location(), source, &perm, outer.output().r#type());
                block.insert_operation_before(outer.op(), built).result(0).expect("one result").into()
            } else {
                continue;
            };
            // Safety: `outer` and `inner` are not used after they are erased.
            unsafe { replace_op(strata_ir::Op::of(&outer.op()), strata_ir::Val::of(replacement)) };
            cx.bump("erased", 1);
            if inner.is_some_and(|inner| unsafe { erase_if_unused(strata_ir::Op::of(&inner.op())) }) {
                cx.bump("erased", 1);
            }
        }
        Ok(())
    }
}

/// The transpose of an f32 constant as a new constant inserted before it; `None` when the
/// operand is not one (or its values cannot be read).
fn fold_constant(cx: &PassContext<'_>, transpose: Transpose<'_, '_>) -> Option<strata_ir::Val> {
    let constant = defining_op(transpose.input()).filter(|d| strata_ir::ods::op_name(*d) == "arith.constant")?;
    let values = strata_ir::resource::f32_values(constant.attribute("value").ok()?)?;
    let ty = strata_ir::types::ranked_tensor(transpose.input().r#type())?;
    let shape: Vec<usize> = (0..ty.rank())
        .map(|i| match ty.dim_size(i) {
            Ok(melior::ir::r#type::DimSize::Static(n)) => Some(n as usize),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let perm: Vec<usize> = transpose.perm().iter().map(|&p| p as usize).collect();
    let transposed = permute(&values, &shape, &perm)?;
    super::insert_f32_constant(cx, transpose.op(), transpose.output().r#type(), "transposed", &transposed)
}

/// `values` of a row-major tensor of `shape` with its axes permuted (`out[i...] =
/// in[...]` with output axis `k` being input axis `perm[k]`); `None` if the sizes disagree.
/// (Also `strata-fold-constant-transposes`' arithmetic, on linalg.)
pub fn permute<T: Copy>(values: &[T], shape: &[usize], perm: &[usize]) -> Option<Vec<T>> {
    if perm.len() != shape.len() || values.len() != shape.iter().product::<usize>() {
        return None;
    }
    let rank = shape.len();
    let mut strides = vec![1usize; rank];
    for axis in (0..rank.saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let mut index = vec![0usize; rank];
    let mut out = Vec::with_capacity(values.len());
    for _ in 0..values.len() {
        out.push(values[(0..rank).map(|k| index[k] * strides[perm[k]]).sum::<usize>()]);
        for k in (0..rank).rev() {
            index[k] += 1;
            if index[k] < out_shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::permute;

    #[test]
    fn permutes_row_major_values() {
        // [[0, 1, 2], [3, 4, 5]] transposed.
        assert_eq!(permute(&[0, 1, 2, 3, 4, 5], &[2, 3], &[1, 0]), Some(vec![0, 3, 1, 4, 2, 5]));
        // 2x1x3 -> 3x2x1 (perm [2, 0, 1]): out[c][a][b] = in[a][b][c].
        assert_eq!(permute(&[0, 1, 2, 3, 4, 5], &[2, 1, 3], &[2, 0, 1]), Some(vec![0, 3, 1, 4, 2, 5]));
        assert_eq!(permute(&[0, 1], &[3], &[0]), None);
    }
}
