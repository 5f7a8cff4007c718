//! Part of `strata-cpu-schedule`: an f32 matmul with few rows and a big constant right-hand
//! side (a recogniser's vocabulary head, a language model's projections over a short prompt)
//! runs one block of [`BLOCK`] columns at a time, every row of the block before the next: a
//! loop over the blocks (an `scf.for`, or with threads an `scf.forall`) of `m x k x 32`
//! matmuls, the columns a block does not fill one matmul after it. `strata-pack-weights` then
//! stores the constant block by block (`ceil(n / 32) x k x 32`), so each block's weights are
//! one contiguous run read front to back, and the row split `peel_matmuls` makes inside each
//! block re-reads that run from the L2 instead of the whole weight from memory.
//!
//! Whole, such a product read its weight in rows: each register block's reduction stepped
//! down 128 bytes of a row at a time, a row apart (ddddocr's 1024 x 8210 head: 32.8 KB, a new
//! page every step, which the hardware prefetchers do not follow), and the rows left past a
//! multiple of 8 read the whole weight a second time. That head (20 rows) took 6.0 ms where
//! ONNX Runtime took 2.2.
//!
//! Every element's sum still runs over `k` in the same order (the cache tiles' reduction
//! steps do not depend on the columns): results are bit-identical to the whole product's.

use crate::peel_matmuls::Start;
use melior::ir::operation::{OperationLike, OperationRef};
use strata_ir::rewrite::collect;
use strata_ir::{attrs, Op, PassContext, PassFailed};

/// Columns of a block: the register-blocked schedule's block width.
const BLOCK: i64 = 32;
/// The register-blocked schedule's row multiple: fewer rows than this run as
/// `strata-vectorize-matmul`'s one-row kernels, which stream the weight in memory order already.
const MIN_ROWS: i64 = 8;
/// Up to one cache tile of rows ([`crate::matmul_tiles::cache_tiles`]) a product is blocked
/// whatever its left-hand side; more rows only where the left-hand side stays in the L2
/// between blocks (at most [`MAX_LHS_BYTES`]): every block reads all of it. A text encoder's
/// 77 x 512 x 2048 projection (a 4 MB weight) ran in cache tiles, re-reading each weight
/// tile from the L3 per tile of 8 rows, its weight rows a page apart: 1.33 ms against ONNX
/// Runtime's 0.94; block by block 1.04.
const MAX_ROWS: i64 = 64;
/// The largest left-hand side (bytes) of a product with more than [`MAX_ROWS`] rows that is
/// blocked: a quarter of a 2 MiB L2, the rest for a block's weights and results.
const MAX_LHS_BYTES: i64 = 512 << 10;
/// Weights smaller than this stay in the L2 between the row blocks that read them (half of a
/// 2 MiB L2): blocking gains nothing there.
const MIN_BYTES: i64 = 1 << 20;

/// `[m, k, n]` of a matmul to run block by block: static 2-D f32 with the default maps, a
/// compile-time constant right-hand side of at least [`MIN_BYTES`], [`MIN_ROWS`] to
/// [`MAX_ROWS`] rows (more where the left-hand side is at most [`MAX_LHS_BYTES`]), at least
/// two blocks of columns, not already inside an `scf.forall`.
fn blockable(op: OperationRef<'_, '_>) -> Option<[i64; 3]> {
    let [m, k, n] = crate::peel_matmuls::plain_matmul(op)?;
    let weights = op.operand(1).ok()?;
    strata_ir::rewrite::defining_op(weights).filter(|d| strata_ir::ods::op_name(*d) == "arith.constant")?;
    let rows = m >= MIN_ROWS && (m <= MAX_ROWS || m * k * 4 <= MAX_LHS_BYTES);
    let sized = rows && n >= 2 * BLOCK && k * n * 4 >= MIN_BYTES;
    (sized && !crate::cpu_schedule::inside_forall(op)).then_some([m, k, n])
}

/// Runs every [`blockable`] matmul of `module` block by block (the blocks an `scf.forall` when
/// `threads` is above 1 and there is work enough and a block for every thread); returns how
/// many.
pub(crate) fn block_columns(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    threads: i64,
) -> Result<usize, PassFailed> {
    let mut kernels = strata_lower::kernel::KernelCache::default();
    let mut count = 0;
    for raw in collect(&module, |op| blockable(op.get()).is_some()) {
        let op = raw.get();
        let Some(shape @ [m, k, n]) = blockable(op) else { continue };
        let parallel = threads > 1 && m * k * n >= crate::conv_lanes::PARALLEL_MACS && n / BLOCK >= threads;
        let types = crate::peel_matmuls::operand_types(op);
        let text = |start: Start| blocks_text(shape, &types, parallel, start);
        // Safety: `raw` is a matmul of this module, replaced once and not used afterwards.
        unsafe {
            crate::peel_matmuls::replace_matmul(
                &mut kernels,
                cx,
                Op::of(&op),
                text,
                "matmul run column block by block",
            )?
        };
        count += 1;
    }
    Ok(count)
}

/// The product as a function of its operands (types `types`): a loop over the whole blocks,
/// each block's result a slice of the one result (destination-passing), and the columns left
/// one matmul after it. Where the result starts anew ([`Start::fresh`]), the third argument is
/// the fill's value (or the broadcast vector, [`Start::Rows`]): each block fills (or
/// broadcasts its columns into) its slice of a new result just before its product (in the L1 when the
/// product reads it), not the whole of a fill CSE may share between products of a shape (see
/// `peel_matmuls::fill_of_new_tensor`); a fill of a new tensor per block was a scratch buffer
/// and a copy per block once bufferized. With `parallel`, the loop is an `scf.forall` and each
/// block's matmul a batch item. Either loop steps its induction variable by [`BLOCK`] (not a
/// count times it), so `strata-pack-weights` knows each block's offset is a multiple of it.
fn blocks_text([m, k, n]: [i64; 3], types: &[String], parallel: bool, start: Start) -> String {
    let (at, bt, ct) = (&types[0], &types[1], &types[2]);
    let (whole, rest) = (n / BLOCK * BLOCK, n % BLOCK);
    let (third, init) =
        (start.parameter(ct), if start.fresh() { format!("    %c = tensor.empty() : {ct}\n") } else { String::new() });
    // The block at column `%j` of `acc`: its weights, destination and product, in `indent`.
    let block = |columns: i64, j: &str, acc: &str, item: &str, indent: &str, id: &str| {
        let part = format!("tensor<{m}x{columns}xf32>");
        let slice = format!("tensor.extract_slice {acc}[0, {j}] [{m}, {columns}] [1, 1] : {ct} to {part}");
        let dest = if start.fresh() {
            format!(
                "{indent}%s{id} = {slice}\n{}",
                start.init(&format!("d{id}"), &format!("%s{id}"), &part, (j, columns), indent)
            )
        } else {
            format!("{indent}{}\n", start.sliced(&format!("d{id}"), &slice, &part, indent))
        };
        format!(
            "{indent}%b{id} = tensor.extract_slice %b[0, {j}] [{k}, {columns}] [1, 1] : {bt} to tensor<{k}x{columns}xf32>
{dest}{indent}%p{id} = linalg.matmul{item} ins(%a, %b{id} : {at}, tensor<{k}x{columns}xf32>) outs(%d{id} : {part}) -> {part}
"
        )
    };
    let part = format!("tensor<{m}x{BLOCK}xf32>");
    let body = if parallel {
        let item = format!(" {{{}}}", attrs::BATCH_ITEM.in_dictionary());
        format!(
            "    %r = scf.forall (%j) = (0) to ({whole}) step ({BLOCK}) shared_outs(%acc = %c) -> ({ct}) {{
{}      scf.forall.in_parallel {{
        tensor.parallel_insert_slice %p0 into %acc[0, %j] [{m}, {BLOCK}] [1, 1] : {part} into {ct}
      }}
    }}
",
            block(BLOCK, "%j", "%acc", &item, "      ", "0")
        )
    } else {
        format!(
            "    %lo = arith.constant 0 : index
    %hi = arith.constant {whole} : index
    %w = arith.constant {BLOCK} : index
    %r = scf.for %j = %lo to %hi step %w iter_args(%acc = %c) -> ({ct}) {{
{}      %i0 = tensor.insert_slice %p0 into %acc[0, %j] [{m}, {BLOCK}] [1, 1] : {part} into {ct}
      scf.yield %i0 : {ct}
    }}
",
            block(BLOCK, "%j", "%acc", "", "      ", "0")
        )
    };
    let tail = if rest > 0 {
        format!(
            "{}    %i1 = tensor.insert_slice %p1 into %r[0, {whole}] [{m}, {rest}] [1, 1] : tensor<{m}x{rest}xf32> into {ct}\n    return %i1 : {ct}\n",
            block(rest, &whole.to_string(), "%r", "", "    ", "1")
        )
    } else {
        format!("    return %r : {ct}\n")
    };
    format!(
        "module {{
  func.func private @column_blocks(%a: {at}, %b: {bt}, {third}) -> {ct} {{
{init}{body}{tail}  }}
}}
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peel_matmuls::types;

    #[test]
    fn blocks_and_the_rest_cover_every_column_once() {
        let text = blocks_text([20, 1024, 8210], &types(20, 1024, 8210), false, Start::Given);
        assert!(text.contains("%hi = arith.constant 8192 : index"), "{text}");
        assert!(text.contains("%b[0, %j] [1024, 32]"), "{text}");
        assert!(text.contains("%acc[0, %j] [20, 32]"), "{text}");
        assert!(text.contains("%b[0, 8192] [1024, 18]"), "{text}");
        assert!(text.contains("into %r[0, 8192] [20, 18]"), "{text}");
    }

    #[test]
    fn parallel_blocks_are_batch_items() {
        let text = blocks_text([16, 1024, 4096], &types(16, 1024, 4096), true, Start::Fill);
        assert!(text.contains("scf.forall (%j) = (0) to (4096) step (32)"), "{text}");
        assert!(text.contains("linalg.matmul {strata.batch_item}"), "{text}");
        assert!(text.contains("linalg.fill ins(%v : f32)"), "{text}");
        assert!(text.contains("return %r"), "{text}");
    }
}
