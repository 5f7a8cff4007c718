//! Part of `strata-cpu-schedule`: an f32 matmul whose shape is not a multiple of the register
//! schedule's block (rows a multiple of 8, columns of 32: [`crate::cpu_schedule::vectorizable`])
//! is split on tensors into the largest part that is, which that schedule takes, and the rows
//! or columns left, which `strata-vectorize-matmul` takes (masked partial blocks). Unsplit, the
//! whole product fell to `strata-vectorize-matmul`'s 4 x 2-vector blocks: a vision
//! transformer's 65 or 197 tokens, a prompt of any length, a Conformer's 144 channels. One
//! extra row made a 64 x 192 x 768 product 20% slower (0.077 -> 0.093 ms; ONNX Runtime 0.086).
//!
//! Rows go first (`m = 8 * floor(m / 8) + rest`), then the columns of each part whose rows are
//! a multiple of 8 (`n = 32 * floor(n / 32) + rest`); a product that needs both is split into
//! its three parts at once. The parts write slices of the one result
//! (destination-passing: each part's destination is the previous part's insertion, so
//! bufferization writes them all in place; a product that starts from a fill of a new tensor
//! has each part fill one of its own instead) and read slices of the operands. With threads,
//! a big enough product is first one slice of rows or columns per thread ([`peel_matmuls`]).
//! Each element's sum runs over `k` in the same order either way: results are bit-identical to
//! the unsplit product's.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::rewrite::{collect, erase_if_unused};
use strata_ir::{attrs, Op, PassContext, PassFailed};
use strata_lower::ops::{static_shape, tensor_type};

/// The register-blocked schedule's multiples: rows, columns.
const ROWS: i64 = 8;
const COLUMNS: i64 = 32;
/// The fewest columns `strata-vectorize-matmul` takes: a product with fewer left over is not
/// split by columns (its last block is masked instead).
const MIN_COLUMNS: i64 = 4;

/// The maps of a broadcast of a vector down the rows of a 2-D tensor: the vector indexed by
/// the column, the result by both.
pub(crate) const ROWS_MAPS: &str = "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>";

/// Lines (each after `indent`) making `%{name}`, of 2-D type `part`, the vector `vector` (of
/// type `vector_ty`, as long as a row) broadcast down the rows of `into`: the form
/// [`rows_of_new_tensor`] takes a product's initial value in.
pub(crate) fn broadcast_rows(
    name: &str,
    vector: &str,
    vector_ty: &str,
    into: &str,
    part: &str,
    indent: &str,
) -> String {
    format!(
        "{indent}%{name} = linalg.generic {{indexing_maps = [{ROWS_MAPS}], iterator_types = [\"parallel\", \"parallel\"]}} ins({vector} : {vector_ty}) outs({into} : {part}) {{
{indent}^bb0(%in: f32, %out: f32):
{indent}  linalg.yield %in : f32
{indent}}} -> {part}
"
    )
}

/// What a product's result starts from, as the functions that split it take it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Start {
    /// Its initial value: the function's third argument `%c`, sliced for each part.
    Given,
    /// A fill of a new tensor: the third argument is the fill's value `%v`; each part fills
    /// its own new tensor or slice, on the thread that computes it.
    Fill,
    /// A vector of the result's `n` columns broadcast down its rows into a new tensor (a bias,
    /// `strata-matmul-accumulate`): the third argument is the vector `%v`; each part
    /// broadcasts its own columns of it, as [`Start::Fill`] fills.
    Rows(i64),
    /// A fill of a given tensor (a slice of a batch's result): the third and fourth arguments
    /// are that tensor `%c` and the fill's value `%v`; each part fills its own slice of `%c`
    /// just before its product, where the register blocks and `strata-vectorize-matmul` fold
    /// it (`zero_accumulators`). Filled whole before the parts, an attention's 1500 x 1500
    /// scores were written three times: the fill, and each block's load and store.
    FillInto,
}

impl Start {
    /// The function's third parameter, for a result of type `whole`.
    pub(crate) fn parameter(self, whole: &str) -> String {
        match self {
            Start::Given => format!("%c: {whole}"),
            Start::Fill => "%v: f32".to_owned(),
            Start::Rows(n) => format!("%v: tensor<{n}xf32>"),
            Start::FillInto => format!("%c: {whole}, %v: f32"),
        }
    }

    /// Whether parts start from a new value of their own (not from slices of `%c`).
    pub(crate) fn fresh(self) -> bool {
        matches!(self, Start::Fill | Start::Rows(_))
    }

    /// The text making `%{name}` (of type `part`) a part's slice `slice` (an extract, printed)
    /// of `%c` or what replaces it, filled for [`Start::FillInto`]; its lines after the first
    /// indented by `indent`, without a last newline. Only for parts that are not
    /// [`Start::fresh`].
    pub(crate) fn sliced(self, name: &str, slice: &str, part: &str, indent: &str) -> String {
        match self {
            Start::FillInto => format!(
                "%{name}_s = {slice}\n{indent}%{name} = linalg.fill ins(%v : f32) outs(%{name}_s : {part}) -> {part}"
            ),
            _ => format!("%{name} = {slice}"),
        }
    }

    /// Lines (each after `indent`) making `%{name}`, of 2-D type `part`, start in `into`: the
    /// fill, or the broadcast of the vector's `columns` from column `column` (an index or a
    /// value). Nothing for [`Start::Given`].
    pub(crate) fn init(
        self,
        name: &str,
        into: &str,
        part: &str,
        (column, columns): (&str, i64),
        indent: &str,
    ) -> String {
        match self {
            Start::Given => String::new(),
            Start::Fill | Start::FillInto => {
                format!("{indent}%{name} = linalg.fill ins(%v : f32) outs({into} : {part}) -> {part}\n")
            }
            Start::Rows(n) => {
                let slice = format!("tensor<{columns}xf32>");
                format!(
                    "{indent}%{name}_v = tensor.extract_slice %v[{column}] [{columns}] [1] : tensor<{n}xf32> to {slice}\n{}",
                    broadcast_rows(name, &format!("%{name}_v"), &slice, into, part, indent)
                )
            }
        }
    }
}

/// How a matmul is split: the axis (0 rows, 1 columns) and the extent of its first part, or
/// both at once (the rows' first part split by columns; the last rows whole).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Split {
    Rows(i64),
    Columns(i64),
    Both(i64, i64),
}

/// `[m, k, n]` of a static 2-D f32 `linalg.matmul` on tensors with the default maps (`m x k`
/// times `k x n`, every extent positive).
pub(crate) fn plain_matmul(op: OperationRef<'_, '_>) -> Option<[i64; 3]> {
    if strata_ir::ods::op_name(op) != "linalg.matmul" || op.operand_count() != 3 {
        return None;
    }
    if op.attribute("indexing_maps").is_ok_and(|maps| !maps.to_string().contains("(d0, d1, d2) -> (d0, d2)")) {
        return None;
    }
    let ty = |i: usize| op.operand(i).ok().and_then(|v| tensor_type(v.r#type()).ok());
    let (a, b, c) = (ty(0)?, ty(1)?, ty(2)?);
    if [&a, &b, &c].iter().any(|t| t.elem.name != "f32" || t.shape.len() != 2) {
        return None;
    }
    let [m, k] = [a.shape[0], a.shape[1]];
    let n = b.shape[1];
    (b.shape[0] == k && c.shape == [m, n] && k > 0 && n > 0 && m > 0).then_some([m, k, n])
}

/// `[m, k, n]` of a [`plain_matmul`], and how to split it: rows
/// when there are more than [`ROWS`] and not a multiple, columns when there are more than
/// [`COLUMNS`], at least [`MIN_COLUMNS`] past a multiple, and the rows are a multiple of
/// [`ROWS`] (both at once when both apply).
fn peelable(op: OperationRef<'_, '_>) -> Option<([i64; 3], Split)> {
    let [m, k, n] = plain_matmul(op)?;
    let columns = n > COLUMNS && n % COLUMNS >= MIN_COLUMNS;
    let split = if m > ROWS && m % ROWS != 0 && columns {
        // In one function: split in two rounds, the first part's own new result tensor
        // (inserted into the whole) left `eliminate-empty-tensors` a stale slice of it, and the
        // register-blocked part was computed in a buffer of its own and copied (a 197 x 64 x
        // 197 product: the copy and the extra fill 35% of its time).
        Split::Both(m / ROWS * ROWS, n / COLUMNS * COLUMNS)
    } else if m > ROWS && m % ROWS != 0 {
        Split::Rows(m / ROWS * ROWS)
    } else if m % ROWS == 0 && columns {
        Split::Columns(n / COLUMNS * COLUMNS)
    } else {
        return None;
    };
    Some(([m, k, n], split))
}

/// Splits every [`peelable`] matmul of `module` (the parts again, until none is); returns how
/// many matmuls were split.
///
/// With `threads` above 1, a product with enough work to run in parallel
/// ([`crate::conv_lanes::PARALLEL_MACS`]) whose rows or columns the threads divide
/// ([`thread_axis`]) is first split into one slice per thread (an `scf.forall`, each slice a [`attrs::BATCH_ITEM`] matmul), and
/// each slice is split as above: every thread then runs its slice's rows and columns on its own.
/// Split first and then run in parallel, the register-blocked part's tiles and the rest's column
/// blocks went to different threads (a 65 x 192 x 192 product: three tiles for two threads, and
/// the one row left read the whole right-hand side on one core after both had read half of it:
/// 12.7 -> 16.5 us).
pub(crate) fn peel_matmuls(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    threads: i64,
) -> Result<usize, PassFailed> {
    let mut kernels = strata_lower::kernel::KernelCache::default();
    let mut count = 0;
    if threads > 1 {
        for raw in collect(&module, |op| peelable(op.get()).is_some()) {
            let op = raw.get();
            let Some(([m, k, n], _)) = peelable(op) else { continue };
            // Only a kernel of the function itself: the passes after the schedule take a
            // batch item inside an `scf.forall` as a kernel only there (a batch's heads loop
            // around it made its parts plain loop nests: slower, and rounded differently).
            if !Op::of(&op).parent().is_some_and(|p| p.is("func.func")) || m * k * n < crate::conv_lanes::PARALLEL_MACS
            {
                continue;
            }
            let Some(axis) = thread_axis([m, n], threads) else { continue };
            let types = operand_types(op);
            let text = |start: Start| thread_text([m, k, n], threads, axis, &types, start);
            // Safety: `raw` is a matmul of this module, replaced once and not used afterwards.
            unsafe { replace_matmul(&mut kernels, cx, Op::of(&op), text, "matmul split by threads")? };
            count += 1;
        }
    }
    // A row split's first part may take a column split: at most two rounds.
    for _ in 0..2 {
        let found = collect(&module, |op| peelable(op.get()).is_some());
        if found.is_empty() {
            break;
        }
        for raw in found {
            let op = raw.get();
            let Some((shape, split)) = peelable(op) else { continue };
            let types = operand_types(op);
            // A batch item stays one (its loop is the parallel one: not split again).
            let item = if attrs::BATCH_ITEM.is_set(op) {
                format!(" {{{}}}", attrs::BATCH_ITEM.in_dictionary())
            } else {
                String::new()
            };
            let text = |start: Start| split_text(shape, split, &types, &item, start);
            // Safety: `raw` is a matmul of this module, replaced once and not used afterwards.
            unsafe {
                replace_matmul(&mut kernels, cx, Op::of(&op), text, "matmul split into register blocks and the rest")?
            };
            count += 1;
        }
    }
    Ok(count)
}

/// Replaces `matmul` by the function `text(start)` describes, bound to the matmul's operands;
/// where the matmul starts from [`fill_of_new_tensor`] or [`rows_of_new_tensor`], to its two
/// inputs and the fill's value or the broadcast vector instead, and the fill or broadcast and
/// its tensor go when nothing else reads them.
///
/// # Safety
/// `matmul` is an op of the module that is not used after this.
pub(crate) unsafe fn replace_matmul<'c>(
    kernels: &mut strata_lower::kernel::KernelCache<'c>,
    cx: &mut PassContext<'c>,
    matmul: Op,
    text: impl FnOnce(Start) -> String,
    what: &str,
) -> Result<(), PassFailed> {
    let operands = matmul.operands();
    let start = fill_of_new_tensor(matmul)
        .map(|fill| (fill, Start::Fill))
        .or_else(|| rows_of_new_tensor(matmul).map(|(broadcast, n)| (broadcast, Start::Rows(n))))
        .or_else(|| fill_of_given(matmul).map(|fill| (fill, Start::FillInto)));
    let (text, bound) = match start {
        Some((init, Start::FillInto)) => {
            (text(Start::FillInto), vec![operands[0], operands[1], init.operand(1), init.operand(0)])
        }
        Some((init, start)) => (text(start), vec![operands[0], operands[1], init.operand(0)]),
        None => (text(Start::Given), operands),
    };
    // Safety: the caller's; the operands and the fill's value are defined before `matmul`.
    unsafe { kernels.replace_op_with(cx, matmul, &bound, &text, what)? };
    if let Some((init, Start::FillInto)) = start {
        // Safety: erased only when unused; its tensor is the function's `%c`.
        unsafe { erase_if_unused(init) };
    } else if let Some((init, _)) = start {
        let empty = init.operand(init.operand_count() - 1).owner();
        // Safety: erased only when unused; no handle to them is used afterwards.
        unsafe {
            if let (true, Some(empty)) = (erase_if_unused(init), empty) {
                erase_if_unused(empty);
            }
        }
    }
    Ok(())
}

/// The broadcast of an f32 vector of `n` values down the rows of a new `m x n` tensor that a
/// 2-D `matmul`'s result starts from (a bias, as `strata-matmul-accumulate` writes it), with
/// `n`.
fn rows_of_new_tensor(matmul: Op) -> Option<(Op, i64)> {
    let init = matmul.operand(2).owner()?;
    let n = rows_broadcast_length(init)?;
    let empty = init.operand(1).owner()?;
    (init.result_count() == 1 && empty.is("tensor.empty") && empty.operand_count() == 0).then_some((init, n))
}

/// The length `n` of the f32 vector `op` broadcasts down the rows of its `m x n` output, when
/// that is all it does (on tensors or buffers): a `linalg.generic` of one input and one
/// output, [`ROWS_MAPS`], a body that yields the vector's element.
pub(crate) fn rows_broadcast_length(op: Op) -> Option<i64> {
    if !op.is("linalg.generic") || op.operand_count() != 2 {
        return None;
    }
    let maps = op.attribute("indexing_maps")?.to_string();
    let body = op.body(0)?;
    let copies = match &body.ops()[..] {
        [yield_op] => yield_op.operand_count() == 1 && yield_op.operand(0) == body.argument(0),
        _ => false,
    };
    let (vector, rows) = (op.operand(0).r#type(), op.operand(1).r#type());
    let f32 = crate::text_kernels::element(vector).is_some_and(|e| e == "f32");
    let (v, r) = (static_shape(vector).ok()?, static_shape(rows).ok()?);
    (maps == format!("[{ROWS_MAPS}]") && copies && f32 && v.len() == 1 && r.len() == 2 && v[0] == r[1])
        // Lazily: a rank-0 vector (a scalar bias broadcast) has no `v[0]`.
        .then(|| v[0])
}

/// The `linalg.fill` of a `tensor.empty` that `matmul`'s result starts from (how the lowering
/// starts every product), when there is one: each part then fills a new tensor of its own,
/// which `eliminate-empty-tensors` makes a slice of the result. Slices of the one fill instead
/// read it, and CSE had made one fill (and one slice of it) of every product of a shape: a
/// vision transformer's two layers' QKV products shared them, bufferization copied the fill
/// into a buffer per layer and kept it live from the first layer to the second (the arena
/// 1.24 -> 2.71 MB).
fn fill_of_new_tensor(matmul: Op) -> Option<Op> {
    let fill = matmul.operand(2).owner()?;
    let empty = fill.operand(fill.operand_count().checked_sub(1)?).owner()?;
    (fill.is("linalg.fill") && fill.operand_count() == 2 && empty.is("tensor.empty") && empty.operand_count() == 0)
        .then_some(fill)
}

/// The `linalg.fill` of any other tensor that `matmul`'s result starts from, when the matmul
/// is its one user (a batch item's slice of the batch's result, filled just before).
fn fill_of_given(matmul: Op) -> Option<Op> {
    let fill = matmul.operand(2).owner()?;
    (fill.is("linalg.fill") && fill.operand_count() == 2 && fill.result(0).users().len() == 1).then_some(fill)
}

/// The printed types of `op`'s three operands.
pub(crate) fn operand_types(op: OperationRef<'_, '_>) -> Vec<String> {
    (0..3).map(|i| op.operand(i).map(|v| v.r#type().to_string()).unwrap_or_default()).collect()
}

/// The text of a loop's slice `%cs` of a product's result, as the product's function makes it:
/// the function's third parameter, what it starts with, and the slice, taken in the loop from
/// the loop's result `%acc` (of type `whole`) at `at` (`[offsets] [sizes] [strides]`, of type
/// `part`, its columns `columns`: the first's index and their count). Where the parts start
/// anew ([`Start::fresh`]), the loop's result starts as a new tensor and each slice starts in
/// the loop, on the thread that computes it; else the function takes the result `%c`.
pub(crate) fn slice_init(
    start: Start,
    whole: &str,
    at: &str,
    part: &str,
    columns: (&str, i64),
) -> (String, String, String) {
    let slice = format!("tensor.extract_slice %acc{at} : {whole} to {part}");
    if start.fresh() {
        (
            start.parameter(whole),
            format!("%c = tensor.empty() : {whole}"),
            format!("%s = {slice}\n{}", start.init("cs", "%s", part, columns, "      ")),
        )
    } else {
        (start.parameter(whole), String::new(), start.sliced("cs", &slice, part, "      "))
    }
}

/// Which of an `m x n` result's axes the threads divide (0 rows, 1 columns), if either: the
/// rows where each thread's share is a multiple of [`ROWS`] and there are at least as many rows
/// as columns (the left operand is then the larger), else the columns where each share has at
/// least [`MIN_COLUMNS`]. Split by columns, ConvNeXt's 1024 x 160 x 40 product gave each of two
/// threads 20 columns, a full and a quarter-full vector a row against one thread's two and a
/// half: 0.083 ms on one thread, 0.108 on two.
fn thread_axis([m, n]: [i64; 2], threads: i64) -> Option<usize> {
    if m % (threads * ROWS) == 0 && m >= n {
        Some(0)
    } else if n % threads == 0 && n / threads >= MIN_COLUMNS {
        Some(1)
    } else {
        None
    }
}

/// The product as one slice per thread, of rows or columns as [`thread_axis`] says: an
/// `scf.forall` over `threads`. Where the product starts from a fill of a new tensor (or a
/// broadcast: [`Start`]), each thread fills its own slice first: filled whole before the loop
/// (split by rows after planning), half of each thread's slice was the other core's lines (a
/// 197 x 192 x 768 product on two threads: 1.57x its one-thread time, ONNX Runtime 2.1x).
fn thread_text([m, k, n]: [i64; 3], threads: i64, axis: usize, types: &[String], start: Start) -> String {
    let (at, bt, ct) = (&types[0], &types[1], &types[2]);
    let item = attrs::BATCH_ITEM.in_dictionary();
    // Each thread's slice: `h x w` of the result from `[row, column]`, the left operand's `h`
    // rows from `row` and the right one's `w` columns from `column` (`%a` or `%b` whole).
    let (h, w, step, row, column) =
        if axis == 0 { (m / threads, n, m / threads, "%o", "0") } else { (m, n / threads, n / threads, "0", "%o") };
    let part = format!("tensor<{h}x{w}xf32>");
    let (third, start, slice) =
        slice_init(start, ct, &format!("[{row}, {column}] [{h}, {w}] [1, 1]"), &part, (column, w));
    let (a, a_ty, a_slice) = if axis == 0 {
        let ty = format!("tensor<{h}x{k}xf32>");
        let text = format!("%as = tensor.extract_slice %a[%o, 0] [{h}, {k}] [1, 1] : {at} to {ty}");
        ("%as", ty, text)
    } else {
        ("%a", at.clone(), String::new())
    };
    let (b, b_ty, b_slice) = if axis == 1 {
        let ty = format!("tensor<{k}x{w}xf32>");
        let text = format!("%bs = tensor.extract_slice %b[0, %o] [{k}, {w}] [1, 1] : {bt} to {ty}");
        ("%bs", ty, text)
    } else {
        ("%b", bt.clone(), String::new())
    };
    format!(
        "module {{
  func.func private @by_threads(%a: {at}, %b: {bt}, {third}) -> {ct} {{
    %w = arith.constant {step} : index
    {start}
    %r = scf.forall (%t) in ({threads}) shared_outs(%acc = %c) -> ({ct}) {{
      %o = arith.muli %t, %w : index
      {a_slice}
      {b_slice}
      {slice}
      %p = linalg.matmul {{{item}}} ins({a}, {b} : {a_ty}, {b_ty}) outs(%cs : {part}) -> {part}
      scf.forall.in_parallel {{
        tensor.parallel_insert_slice %p into %acc[{row}, {column}] [{h}, {w}] [1, 1] : {part} into {ct}
      }}
    }}
    return %r : {ct}
  }}
}}
"
    )
}

/// The split as a function of the matmul's operands (types `types`), returning its result.
/// Where the product starts anew ([`Start::fresh`]), the function takes the fill's value (or
/// the broadcast vector) instead of the result's initial value: each part starts a new tensor
/// with it and is inserted into a new result.
fn split_text([m, k, n]: [i64; 3], split: Split, types: &[String], item: &str, start: Start) -> String {
    let (at, bt, ct) = (&types[0], &types[1], &types[2]);
    // (row offset, rows, column offset, columns) of each part.
    let parts = match split {
        Split::Rows(first) => vec![(0, first, 0, n), (first, m - first, 0, n)],
        Split::Columns(first) => vec![(0, m, 0, first), (0, m, first, n - first)],
        Split::Both(rows, columns) => {
            vec![(0, rows, 0, columns), (0, rows, columns, n - columns), (rows, m - rows, 0, n)]
        }
    };
    let (third, mut body) =
        (start.parameter(ct), if start.fresh() { format!("    %c = tensor.empty() : {ct}\n") } else { String::new() });
    for (index, &(row, rows, column, columns)) in parts.iter().enumerate() {
        let dest = if index == 0 { "%c".to_owned() } else { format!("%i{}", index - 1) };
        let offsets = format!("{row}, {column}");
        // The left operand is sliced by rows, the right one by columns, the result by both.
        let a = if rows < m {
            let part = format!("tensor<{rows}x{k}xf32>");
            body +=
                &format!("    %a{index} = tensor.extract_slice %a[{row}, 0] [{rows}, {k}] [1, 1] : {at} to {part}\n");
            (format!("%a{index}"), part)
        } else {
            ("%a".to_owned(), at.clone())
        };
        let b = if columns < n {
            let part = format!("tensor<{k}x{columns}xf32>");
            body += &format!(
                "    %b{index} = tensor.extract_slice %b[0, {column}] [{k}, {columns}] [1, 1] : {bt} to {part}\n"
            );
            (format!("%b{index}"), part)
        } else {
            ("%b".to_owned(), bt.clone())
        };
        let part = format!("tensor<{rows}x{columns}xf32>");
        body += &if start.fresh() {
            format!(
                "    %e{index} = tensor.empty() : {part}\n{}",
                start.init(&format!("c{index}"), &format!("%e{index}"), &part, (&column.to_string(), columns), "    ")
            )
        } else {
            let slice = format!("tensor.extract_slice {dest}[{offsets}] [{rows}, {columns}] [1, 1] : {ct} to {part}");
            format!("    {}\n", start.sliced(&format!("c{index}"), &slice, &part, "    "))
        };
        body += &format!(
            "    %p{index} = linalg.matmul{item} ins({}, {} : {}, {}) outs(%c{index} : {part}) -> {part}
    %i{index} = tensor.insert_slice %p{index} into {dest}[{offsets}] [{rows}, {columns}] [1, 1] : {part} into {ct}
",
            a.0, b.0, a.1, b.1
        );
    }
    let last = parts.len() - 1;
    format!(
        "module {{
  func.func private @peeled(%a: {at}, %b: {bt}, {third}) -> {ct} {{
{body}    return %i{last} : {ct}
  }}
}}
"
    )
}

/// The printed operand types of an `m x k` times `k x n` f32 matmul on tensors (tests).
#[cfg(test)]
pub(crate) fn types(m: i64, k: i64, n: i64) -> Vec<String> {
    vec![format!("tensor<{m}x{k}xf32>"), format!("tensor<{k}x{n}xf32>"), format!("tensor<{m}x{n}xf32>")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_split_covers_every_row_once() {
        let text = split_text([65, 192, 768], Split::Rows(64), &types(65, 192, 768), "", Start::Given);
        assert!(text.contains("%a[0, 0] [64, 192]"), "{text}");
        assert!(text.contains("%a[64, 0] [1, 192]"), "{text}");
        assert!(text.contains("into %c[0, 0] [64, 768]"), "{text}");
        assert!(text.contains("into %i0[64, 0] [1, 768]"), "{text}");
        assert!(!text.contains("%b0"), "{text}");
    }

    #[test]
    fn a_column_split_covers_every_column_once() {
        let text = split_text([96, 384, 200], Split::Columns(192), &types(96, 384, 200), "", Start::Given);
        assert!(text.contains("%b[0, 0] [384, 192]"), "{text}");
        assert!(text.contains("%b[0, 192] [384, 8]"), "{text}");
        assert!(text.contains("into %c[0, 0] [96, 192]"), "{text}");
        assert!(text.contains("into %i0[0, 192] [96, 8]"), "{text}");
        assert!(!text.contains("%a0"), "{text}");
    }

    #[test]
    fn rows_and_columns_split_at_once() {
        let text = split_text([197, 64, 197], Split::Both(192, 192), &types(197, 64, 197), "", Start::Fill);
        assert!(text.contains("%a0 = tensor.extract_slice %a[0, 0] [192, 64]"), "{text}");
        assert!(text.contains("%b0 = tensor.extract_slice %b[0, 0] [64, 192]"), "{text}");
        assert!(text.contains("into %c[0, 0] [192, 192]"), "{text}");
        assert!(text.contains("%b1 = tensor.extract_slice %b[0, 192] [64, 5]"), "{text}");
        assert!(text.contains("into %i0[0, 192] [192, 5]"), "{text}");
        assert!(text.contains("%a2 = tensor.extract_slice %a[192, 0] [5, 64]"), "{text}");
        assert!(!text.contains("%b2"), "{text}");
        assert!(text.contains("into %i1[192, 0] [5, 197]"), "{text}");
        assert!(text.contains("return %i2"), "{text}");
        // Each part fills a new tensor of its own: no nested result tensor.
        assert_eq!(text.matches("tensor.empty() : tensor<197x197xf32>").count(), 1, "{text}");
    }

    #[test]
    fn threads_take_rows_where_each_share_is_whole_blocks() {
        assert_eq!(thread_axis([1024, 40], 2), Some(0));
        // Fewer rows than columns: the right-hand side is the larger operand.
        assert_eq!(thread_axis([64, 688], 2), Some(1));
        // 65 rows are no whole blocks a thread.
        assert_eq!(thread_axis([65, 40], 2), Some(1));
        assert_eq!(thread_axis([65, 7], 2), None);
    }

    #[test]
    fn a_row_slice_per_thread_reads_its_rows_and_every_column() {
        let text = thread_text([1024, 160, 40], 2, 0, &types(1024, 160, 40), Start::Rows(40));
        assert!(text.contains("%as = tensor.extract_slice %a[%o, 0] [512, 160] [1, 1]"), "{text}");
        assert!(!text.contains("%bs"), "{text}");
        assert!(text.contains("ins(%as, %b : tensor<512x160xf32>, tensor<160x40xf32>)"), "{text}");
        assert!(text.contains("%cs_v = tensor.extract_slice %v[0] [40] [1]"), "{text}");
        assert!(text.contains("into %acc[%o, 0] [512, 40] [1, 1]"), "{text}");
    }

    #[test]
    fn a_bias_is_broadcast_by_each_part_over_its_columns() {
        let text = split_text([197, 64, 197], Split::Both(192, 192), &types(197, 64, 197), "", Start::Rows(197));
        assert!(text.contains("%b: tensor<64x197xf32>, %v: tensor<197xf32>"), "{text}");
        assert!(text.contains("%c0_v = tensor.extract_slice %v[0] [192] [1]"), "{text}");
        assert!(text.contains("%c1_v = tensor.extract_slice %v[192] [5] [1]"), "{text}");
        assert!(text.contains("%c2_v = tensor.extract_slice %v[0] [197] [1]"), "{text}");
        assert!(text.contains("ins(%c1_v : tensor<5xf32>) outs(%e1 : tensor<192x5xf32>)"), "{text}");
        assert!(!text.contains("linalg.fill"), "{text}");
    }

    #[test]
    fn a_filled_slice_is_filled_by_each_part_just_before_its_product() {
        let text = split_text([197, 64, 197], Split::Both(192, 192), &types(197, 64, 197), "", Start::FillInto);
        assert!(text.contains("%b: tensor<64x197xf32>, %c: tensor<197x197xf32>, %v: f32"), "{text}");
        assert!(!text.contains("tensor.empty"), "{text}");
        for (index, part) in ["192x192", "192x5", "5x197"].iter().enumerate() {
            let fill = format!("%c{index} = linalg.fill ins(%v : f32) outs(%c{index}_s : tensor<{part}xf32>)");
            let product = format!("%p{index} = linalg.matmul");
            let (at, next) = (text.find(&fill), text.find(&product));
            assert!(at.zip(next).is_some_and(|(at, next)| at < next), "{text}");
        }
        assert!(text.contains("%c1_s = tensor.extract_slice %i0[0, 192] [192, 5]"), "{text}");
    }
}
