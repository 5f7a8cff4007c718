//! What the vectorising passes that write their kernels as MLIR text share
//! (`strata-vectorize-reductions`, `strata-vectorize-depthwise`, `strata-vectorize-matmul`):
//! the replacement of each kernel by its inlined function, the operand checks, and the loop
//! nest of register blocks over rows and vector columns with a masked last column block.

use crate::vectorize_elementwise::is_kernel;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Type};
use strata_ir::rewrite::collect;
use strata_ir::{Op, PassContext, PassFailed};
use strata_lower::kernel::KernelCache;

/// The attribute that keeps a loop rolled in LLVM (carried onto the latch branch).
pub(crate) const ROLLED: &str = "{loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}";

/// Replaces every kernel of `module` (see [`is_kernel`]) named one of `names` for which `text`
/// writes a kernel function by that function, inlined with the op's operands as its arguments;
/// counts them in the pass statistic `statistic`. `what` names the kernel in an internal error.
pub(crate) fn replace_kernels(
    module: melior::ir::operation::OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    names: &[&str],
    what: &str,
    statistic: &str,
    mut text: impl FnMut(Op) -> Option<String>,
) -> Result<(), PassFailed> {
    replace_kernels_with(module, cx, names, what, statistic, |op, _| Some((text(op)?, op.operands())))
}

/// Gives `op` (a kernel candidate) and what it holds the location of both `op` and `absorbed`,
/// an op whose work its kernel does: the kernel runs both ONNX nodes, and profiles and
/// diagnostics name both.
pub(crate) fn name_after_both(op: Op, absorbed: Op) {
    let context = op.get().context();
    // Safety: the context outlives the pass that calls this.
    let context = unsafe { context.to_ref() };
    let both = melior::ir::Location::fused(
        context,
        &[op.location(), absorbed.location()],
        melior::ir::Attribute::unit(context),
    );
    op.set_location_deep(both);
}

/// [`replace_kernels`] with the kernel function's arguments chosen by `text` too (values
/// defined before the op: its operands and what else the kernel reads), and ops the kernel
/// absorbs (a fill it seeds its accumulators with, an epilogue its stores apply) pushed by
/// `text` onto its second argument: those are erased once every candidate has been looked at,
/// before any is replaced, and are not candidates themselves. `text` must not erase anything:
/// the candidates are collected first, and an erased one would be read after it was freed.
pub(crate) fn replace_kernels_with(
    module: melior::ir::operation::OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    names: &[&str],
    what: &str,
    statistic: &str,
    mut text: impl FnMut(Op, &mut Vec<Op>) -> Option<(String, Vec<strata_ir::Val>)>,
) -> Result<(), PassFailed> {
    let mut absorbed: Vec<Op> = Vec::new();
    let mut kernels: Vec<(Op, (String, Vec<strata_ir::Val>))> = Vec::new();
    for op in collect(&module, |op| names.iter().any(|name| op.is(name)) && is_kernel(op)) {
        // Nothing is erased while the candidates are looked at, so a handle compares equal
        // only to its own op.
        if absorbed.contains(&op) {
            continue;
        }
        let before = absorbed.len();
        match text(op, &mut absorbed) {
            // An op absorbed twice, or a kernel already taken, would be erased under a kernel.
            Some(kernel)
                if !absorbed[before..]
                    .iter()
                    .any(|a| absorbed[..before].contains(a) || kernels.iter().any(|(k, _)| k == a)) =>
            {
                kernels.push((op, kernel))
            }
            _ => absorbed.truncate(before),
        }
    }
    for op in absorbed {
        // Safety: the kernel that absorbed it does its work; nothing refers to it.
        unsafe { op.erase() };
    }
    let mut cache = KernelCache::default();
    cache.parse_all(cx.strata(), kernels.iter().map(|(_, (text, _))| text.as_str()), what);
    // The empty region each top-level kernel moves into: parsed once, copied per kernel.
    let mut skeleton: Option<Op> = None;
    let mut result = Ok(());
    for (op, (text, operands)) in kernels {
        if op.parent().is_some_and(|p| p.is("func.func")) {
            let region = match skeleton {
                Some(region) => Ok(region),
                None => region_skeleton(cx.strata()).inspect(|&region| skeleton = Some(region)),
            };
            if let Err(why) = region.and_then(|region| in_region(region, op)) {
                cx.emit_op_error(op.get(), format!("internal error: {why}"));
                result = Err(PassFailed);
                break;
            }
        }
        // Safety: `op` is a kernel of this module, replaced once and not used afterwards.
        if let Err(failed) = unsafe { cache.replace_op_with(cx, op, &operands, &text, what) } {
            result = Err(failed);
            break;
        }
        cx.bump(statistic, 1);
    }
    if let Some(region) = skeleton {
        // Safety: detached, only copied.
        unsafe { region.erase() };
    }
    result
}

/// An empty `scf.execute_region no_inline`, detached.
fn region_skeleton(strata: &strata_ir::StrataContext) -> Result<Op, String> {
    let skeleton = strata
        .parse(
            "func.func private @kernel() {\n  scf.execute_region no_inline {\n    scf.yield\n  }\n  return\n}\n",
            "kernel region",
        )
        .map_err(|e| e.to_string())?;
    let function = skeleton.body().first_operation().ok_or("empty kernel region skeleton")?;
    let region = Op::of(&function).body(0).and_then(|b| b.first()).ok_or("kernel region skeleton has no region")?;
    region.detach();
    drop(skeleton);
    Ok(region)
}

/// Moves `op` into a copy of `skeleton` (an empty `scf.execute_region no_inline`), in its
/// place: the kernel that replaces it stays one op with a region however the canonicalizer
/// folds its loops (a loop of one iteration, say, leaves its body and results at the top
/// level), so that `strata-outline-kernels` takes the whole kernel into a function.
fn in_region(skeleton: Op, op: Op) -> Result<(), String> {
    let region = skeleton.clone_detached();
    // The kernel's location (its ONNX nodes): profiles and diagnostics name the region by it.
    region.set_location_deep(op.location());
    let block = op.block().ok_or("a kernel outside a block")?;
    block.insert_before(op, region);
    let body = region.body(0).ok_or("kernel region without a body")?;
    let terminator = body.terminator().ok_or("kernel region without a terminator")?;
    op.move_before(terminator);
    Ok(())
}

/// The element type of a memref or ranked tensor type (`f32`, `f64`, ...).
pub(crate) fn element(ty: Type<'_>) -> Option<String> {
    strata_ir::types::memref_element_name(ty).or_else(|| strata_ir::types::tensor_element_name(ty))
}

/// The innermost index of a memref type (printed) is unit-stride: an identity or
/// `strided<[..., 1]>` layout. Tensors have no layout.
pub(crate) fn unit_inner_stride(ty: &str) -> bool {
    if ty.contains("affine_map") {
        return false;
    }
    match ty.split_once("strided<[") {
        None => true,
        Some((_, rest)) => {
            rest.split(']').next().is_some_and(|strides| strides.rsplit(',').next() == Some(" 1") || strides == "1")
        }
    }
}

/// Whether a memref type (printed) has the identity layout: no `strided<...>` and no affine
/// map, so its elements are contiguous in row-major order.
pub(crate) fn identity_layout(ty: &str) -> bool {
    !ty.contains("strided<") && !ty.contains("affine_map")
}

/// A block of the nest [`blocks`] writes: `rows` rows from the index `row`, the columns from
/// the index `col`, `partial` for the masked last column block, written at `indent`.
pub(crate) type Block<'b> = dyn FnMut(&mut String, i64, &str, &str, bool, &str) + 'b;

/// Appends to `s` the loop over `rows` rows (index `%{row}b`) in blocks of `per_block`, then
/// the rows left as one block at a constant row; in each, the whole column blocks of `step`
/// columns (index `%{col}b`/`%{col}r`), then one partial block at the last whole one's end.
/// Both loops stay rolled. The caller defines the index constants `%c0`, `%c1`, `%c{per_block}`,
/// `%c{step}`, the row bounds (`rows / per_block * per_block`, `rows`) and the columns' (`columns
/// / step * step`).
pub(crate) fn blocks(
    s: &mut String,
    indent: &str,
    (row, rows, per_block): (&str, i64, i64),
    (col, columns, step): (&str, i64, i64),
    block: &mut Block<'_>,
) {
    row_loops(s, indent, (row, rows, per_block), "", &mut |s, count, index, label, inner| {
        column_blocks(s, (count, index, label), (col, columns, step), inner, block);
    });
}

/// The whole column blocks of `step` columns (a rolled loop, index `%{col}{label}`), then one
/// partial block at the last whole one's end, of the `count` rows from `index`.
fn column_blocks(
    s: &mut String,
    (count, index, label): (i64, &str, &str),
    (col, columns, step): (&str, i64, i64),
    inner: &str,
    block: &mut Block<'_>,
) {
    let columns_main = columns / step * step;
    if columns_main > 0 {
        s.push_str(&format!("{inner}scf.for %{col}{label} = %c0 to %c{columns_main} step %c{step} {{\n"));
        block(s, count, index, &format!("%{col}{label}"), false, &format!("{inner}  "));
        s.push_str(&format!("{inner}}} {ROLLED}\n"));
    }
    if columns % step > 0 {
        block(s, count, index, &format!("%c{columns_main}"), true, inner);
    }
}

/// [`blocks`] with the whole row blocks as one `scf.forall` (an iteration a block of
/// `per_block` rows at `%{row}b`, its columns as [`blocks`] walks them), for the threads where
/// the columns are too few to split; then the rows left, as one block at a constant row. Each
/// iteration writes its own rows. The caller defines the same constants.
pub(crate) fn blocks_parallel_rows(
    s: &mut String,
    indent: &str,
    (row, rows, per_block): (&str, i64, i64),
    columns: (&str, i64, i64),
    block: &mut Block<'_>,
) {
    let rows_main = rows / per_block * per_block;
    let inner = format!("{indent}  ");
    s.push_str(&format!(
        "{indent}scf.forall (%{row}i) in ({}) {{\n{inner}%{row}b = arith.muli %{row}i, %c{per_block} : index\n",
        rows / per_block
    ));
    column_blocks(s, (per_block, &format!("%{row}b"), "b"), columns, &inner, block);
    s.push_str(&format!("{indent}}}\n"));
    if rows > rows_main {
        column_blocks(s, (rows - rows_main, &format!("%c{rows_main}"), "r"), columns, indent, block);
    }
}

/// The rolled loop over `rows` rows in blocks of `per_block` (index `%{row}b{suffix}`; one
/// block runs at `%c0`, without a loop), then
/// the rows left as one block at the constant row `%c{rows_main}` (label `r`); `body` writes
/// each block, given its rows, the row index, its label (`b` or `r`) and the indent. The rows
/// left ran one at a time in a loop: each its accumulators' chain through the whole reduction,
/// one multiply-add waiting for the last.
fn row_loops(
    s: &mut String,
    indent: &str,
    (row, rows, per_block): (&str, i64, i64),
    suffix: &str,
    body: &mut dyn FnMut(&mut String, i64, &str, &str, &str),
) {
    let rows_main = rows / per_block * per_block;
    if rows_main == per_block {
        // One block: no loop of one trip.
        body(s, per_block, "%c0", "b", indent);
    } else if rows_main > 0 {
        s.push_str(&format!("{indent}scf.for %{row}b{suffix} = %c0 to %c{rows_main} step %c{per_block} {{\n"));
        body(s, per_block, &format!("%{row}b{suffix}"), "b", &format!("{indent}  "));
        s.push_str(&format!("{indent}}} {ROLLED}\n"));
    }
    if rows > rows_main {
        body(s, rows - rows_main, &format!("%c{rows_main}"), "r", indent);
    }
}

/// [`blocks`] with the whole column blocks as one `scf.forall` (an iteration a block of `step`
/// columns at `%{col}`, its rows in blocks as [`blocks`] walks them), for the threads; then the
/// partial column block, its rows in a plain loop (and block) after it. Each iteration writes its own
/// columns, so results do not depend on the threads. The caller defines the same constants.
pub(crate) fn blocks_parallel_columns(
    s: &mut String,
    indent: &str,
    rows: (&str, i64, i64),
    (col, columns, step): (&str, i64, i64),
    block: &mut Block<'_>,
) {
    let columns_main = columns / step * step;
    let inner = format!("{indent}  ");
    s.push_str(&format!(
        "{indent}scf.forall (%{col}i) in ({}) {{\n{inner}%{col} = arith.muli %{col}i, %c{step} : index\n",
        columns / step
    ));
    row_loops(s, &inner, rows, "", &mut |s, count, index, _, inner| {
        block(s, count, index, &format!("%{col}"), false, inner);
    });
    s.push_str(&format!("{indent}}}\n"));
    if columns % step > 0 {
        row_loops(s, indent, rows, "t", &mut |s, count, index, _, inner| {
            block(s, count, index, &format!("%c{columns_main}"), true, inner);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{blocks, blocks_parallel_columns, blocks_parallel_rows, unit_inner_stride};

    #[test]
    fn parallel_column_blocks_cover_rows_and_columns() {
        let mut s = String::new();
        let mut seen = Vec::new();
        blocks_parallel_columns(&mut s, "", ("m", 5, 4), ("n", 40, 16), &mut |_, rows, row, col, partial, _| {
            seen.push((rows, row.to_owned(), col.to_owned(), partial));
        });
        assert!(s.contains("scf.forall (%ni) in (2) {"));
        assert!(s.contains("%n = arith.muli %ni, %c16 : index"));
        assert!(!s.contains("%mr"), "the row left is a block at a constant row, not a loop");
        assert!(!s.contains("%mb"), "one block of rows is no loop of one trip");
        assert_eq!(
            seen,
            [
                (4, "%c0".into(), "%n".into(), false),
                (1, "%c4".into(), "%n".into(), false),
                (4, "%c0".into(), "%c32".into(), true),
                (1, "%c4".into(), "%c32".into(), true),
            ]
        );
    }

    #[test]
    fn parallel_row_blocks_cover_rows_and_columns() {
        let mut s = String::new();
        let mut seen = Vec::new();
        blocks_parallel_rows(&mut s, "", ("m", 10, 4), ("n", 80, 64), &mut |_, rows, row, col, partial, _| {
            seen.push((rows, row.to_owned(), col.to_owned(), partial));
        });
        assert!(s.contains("scf.forall (%mi) in (2) {"));
        assert!(s.contains("%mb = arith.muli %mi, %c4 : index"));
        assert_eq!(
            seen,
            [
                (4, "%mb".into(), "%nb".into(), false),
                (4, "%mb".into(), "%c64".into(), true),
                (2, "%c8".into(), "%nr".into(), false),
                (2, "%c8".into(), "%c64".into(), true),
            ]
        );
    }

    #[test]
    fn inner_strides() {
        assert!(unit_inner_stride("memref<4x8xf32>"));
        assert!(unit_inner_stride("memref<1x8xf32, strided<[128, 1], offset: ?>>"));
        assert!(unit_inner_stride("memref<8xf32, strided<[1], offset: 4>>"));
        assert!(!unit_inner_stride("memref<4x8xf32, strided<[1, 4]>>"));
        assert!(!unit_inner_stride("memref<4x8xf32, affine_map<(d0, d1) -> (d1, d0)>>"));
    }

    #[test]
    fn blocks_cover_rows_and_columns() {
        let mut s = String::new();
        let mut seen = Vec::new();
        blocks(&mut s, "", ("m", 11, 4), ("n", 40, 16), &mut |_, rows, row, col, partial, _| {
            seen.push((rows, row.to_owned(), col.to_owned(), partial));
        });
        assert!(s.contains("scf.for %mb = %c0 to %c8 step %c4 {"));
        assert!(!s.contains("%mr "), "the rows left are one block at a constant row");
        assert!(s.contains("scf.for %nb = %c0 to %c32 step %c16 {"));
        assert!(s.contains("scf.for %nr = %c0 to %c32 step %c16 {"));
        assert_eq!(
            seen,
            [
                (4, "%mb".into(), "%nb".into(), false),
                (4, "%mb".into(), "%c32".into(), true),
                (3, "%c8".into(), "%nr".into(), false),
                (3, "%c8".into(), "%c32".into(), true),
            ]
        );
    }
}
