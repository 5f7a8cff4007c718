//! `strata-transpose-2d`: a `vector.transpose` of rank 3 or more that moves a trailing group of
//! dimensions in front of the leading ones (permutation `[k, ..., n-1, 0, ..., k-1]`) becomes
//! the 2-D transpose it is, between two `vector.shape_cast`s: `vector<A x B x L>` by `[2, 0, 1]`
//! is `vector<(A*B) x L>` transposed to `vector<L x (A*B)>`, read as `vector<L x A x B>`.
//! Run just before `convert-vector-to-llvm`.
//!
//! The register-blocked convolutions accumulate a block of positions by filters with the
//! filters in the lanes (`conv_outer`) and store it, transposed, to the NCHW output. The host
//! pipeline lowers 2-D transposes to one `vector.shuffle` of the flattened block
//! (`convert-vector-to-llvm{vector-transpose-lowering=shuffle1d}`), which LLVM selects as a few
//! wide permutes; MLIR lowers the other ranks element by element, `R x L` extracts and inserts
//! that LLVM's instruction combining folds into chains of odd-width shuffles (`<7 x float>`
//! built two lanes at a time) which instruction selection then spent most of a CNN's code
//! generation time on. A block of several output rows (`3 x 6` positions by 16 filters) is such
//! a rank-3 transpose. Other permutations stay as they are.

use crate::vector_ops::{build, vector_shape};
use melior::ir::operation::OperationRef;
use melior::Context;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-transpose-2d",
    summary: "vector.transpose that swaps two groups of dimensions as a 2-D transpose between shape casts",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "transposes", help: "vector.transpose rewritten as 2-D transposes" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(Transpose2d)
}

struct Transpose2d;

impl Pass for Transpose2d {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for op in collect(&func, |op| op.is("vector.transpose")) {
            if rewrite(context, op).is_some() {
                cx.bump("transposes", 1);
            }
        }
        Ok(())
    }
}

/// Where the trailing group starts: `k` when `permutation` is `[k, ..., n-1, 0, ..., k-1]` with
/// `0 < k < n` and `n >= 3` (rank 2 needs no rewrite).
pub fn rotation(permutation: &[i64]) -> Option<usize> {
    let n = permutation.len();
    if n < 3 {
        return None;
    }
    let k = usize::try_from(*permutation.first()?).ok().filter(|&k| k > 0 && k < n)?;
    let expected = (k..n).chain(0..k);
    permutation.iter().zip(expected).all(|(&p, e)| p == e as i64).then_some(k)
}

/// The permutation of a `vector.transpose` (printed `array<i64: 2, 0, 1>`).
fn permutation(op: Op) -> Option<Vec<i64>> {
    let text = op.attribute("permutation")?.to_string();
    let list = text.strip_prefix("array<i64:")?.strip_suffix('>')?;
    list.split(',').map(|p| p.trim().parse().ok()).collect()
}

fn rewrite(context: &Context, transpose: Op) -> Option<()> {
    let k = rotation(&permutation(transpose)?)?;
    let (dims, element) = vector_shape(transpose.operand(0).r#type())?;
    let rows: i64 = dims[..k].iter().product();
    let columns: i64 = dims[k..].iter().product();
    let flat = build(
        context,
        transpose,
        "vector.shape_cast",
        &[transpose.operand(0)],
        &format!("vector<{rows}x{columns}x{element}>"),
        &[],
    )?;
    let swapped = build(
        context,
        transpose,
        "vector.transpose",
        &[flat],
        &format!("vector<{columns}x{rows}x{element}>"),
        &[("permutation", "array<i64: 1, 0>".to_owned())],
    )?;
    let ty = transpose.result(0).r#type().to_string();
    let result = build(context, transpose, "vector.shape_cast", &[swapped], &ty, &[])?;
    transpose.result(0).replace_all_uses_with(result);
    // Safety: the transpose has no uses left and no handle to it is used afterwards.
    unsafe { transpose.erase() };
    Some(())
}

#[cfg(test)]
mod tests {
    use super::rotation;

    #[test]
    fn rotations_only() {
        assert_eq!(rotation(&[2, 0, 1]), Some(2));
        assert_eq!(rotation(&[1, 2, 0]), Some(1));
        assert_eq!(rotation(&[2, 3, 0, 1]), Some(2));
        assert_eq!(rotation(&[1, 0]), None);
        assert_eq!(rotation(&[0, 2, 1]), None);
        assert_eq!(rotation(&[2, 1, 0]), None);
        assert_eq!(rotation(&[0, 1, 2]), None);
    }
}
