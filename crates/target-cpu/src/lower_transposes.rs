//! `strata-lower-transposes`: a static `vector.transpose` of a 2-D block, or of rank 3 or more
//! when it swaps two groups of dimensions (permutation `[k, ..., n-1, 0, ..., k-1]`: a 2-D
//! transpose between shape casts), becomes a network of two-source `vector.shuffle`s on its
//! rows. Run in `strata-host-to-llvm` just before `convert-vector-to-llvm`.
//!
//! The register-blocked convolutions keep the filters in the lanes (`conv_outer`): a block of
//! `R` positions by `L` filters is read from (a residual) and written to NCHW memory
//! transposed, `R x L <-> L x R`, `R` often an output row's width (7, 14, 28). MLIR lowers such
//! a transpose element by element, whose extracts and inserts LLVM folds into chains of
//! odd-width shuffles (`<7 x float>` built two lanes at a time) that x86 instruction selection
//! spent most of a CNN's code generation on; or (`shuffle1d`) as one shuffle of the flattened
//! block (`<224 x float>`), selected as about 190 shuffles for a `7 x 32` block.
//!
//! The network works on the rows, padded to powers of two (`R' x C'`; padding rows are never
//! read, padding lanes are don't-care). When `R' <= C'`, `log2(R')` stages each pair row `i`
//! with row `i + R'/2` and interleave them, the first halves into row `2i` and the second
//! halves into row `2i + 1`; after the last stage the rows, one after the other, are the
//! transposed block, so output row `j` is `R` lanes of row `j / (C'/R')`. When `R' > C'` and
//! the rows are narrower than a register (16 lanes), rows `i, i + C', i + 2C', ...` are joined
//! into one value of `R'` lanes first and the stages transpose every group of `C'` lanes at
//! once; with wider rows each band of `C'` rows is transposed that way and output row `j` joins
//! the bands' rows `j`. Each shuffle reads two vectors of one width (`vpermt2ps` on AVX-512): a
//! `7 x 32` block takes 24 shuffles of 32 lanes and 32 extracts, a `16 x 16` one the classic 64.
//! Only the `C` output rows that exist are built. MobileNetV2's `16 -> 96` pointwise
//! convolution, whose short reduction makes the store a large part of each block, runs about
//! 15% faster than with `shuffle1d`.
//!
//! Rows of a width that is not a power of two are whole registers at both ends: rows read from
//! memory (the 1-D reads `convert-vector-to-scf` unrolls a 2-D read into) are read as `C'`
//! lanes by a `vector.maskedload` of the `C` that exist, and output rows only written to memory
//! are written as `R'` lanes by a `vector.maskedstore` of the `R`. A `<7 x float>` read or
//! write is three loads or stores of 4, 2 and 1 lanes, and its shuffles odd-width ones, which
//! x86 instruction selection took 80-200 ms to select per convolution block; masked, ResNet-18's
//! code took 0.9 s of processor time to compile instead of 1.6 (the same values moved: outputs
//! bit-identical).
//!
//! Before lowering, elementwise float ops that read only the transpose's result and splat
//! constants (a block's epilogue: ReLU6) are applied to its source instead
//! ([`hoist_elementwise`]): on the accumulators' whole registers, and the rows then only stored.

use crate::vector_ops::{build, build_void, i64_array, vector_shape};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::ShapedTypeLike;
use melior::Context;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-lower-transposes",
    summary:
        "2-D vector transposes (and rank-3+ swaps of two dimension groups) as two-source shuffle networks on the rows",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "transposes", help: "vector.transpose lowered to shuffle networks" },
        StatisticInfo { name: "hoisted", help: "elementwise ops moved from after a transpose to before it" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(LowerTransposes)
}

struct LowerTransposes;

impl Pass for LowerTransposes {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for op in collect(&func, |op| op.is("vector.transpose")) {
            let (op, hoisted) = hoist_elementwise(context, op);
            cx.bump("hoisted", hoisted);
            if rewrite(context, op).is_some() {
                cx.bump("transposes", 1);
            }
        }
        Ok(())
    }
}

/// Elementwise float ops [`hoist_elementwise`] moves before a transpose.
const ELEMENTWISE: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.negf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
    "math.absf",
    "math.exp",
    "math.tanh",
    "math.erf",
    "math.sqrt",
    "math.rsqrt",
    "math.fma",
];

/// Applies the elementwise ops that are `transpose`'s only user, one after the other, to its
/// source instead (their other operands splat constants, remade in the source's shape), and
/// transposes their result: a convolution block's epilogue (ReLU6's `maximumf` and `minimumf`)
/// runs on the accumulators' whole registers (8 ops of 32 lanes for a `8 x 32` block) rather
/// than on the transposed rows (64 of 8 lanes, of 7 on a row of 7), and the rows the transpose
/// yields are then only stored (what [`rewrite`] writes whole). The same operations on the same
/// values: results bit-identical. Returns the transpose left last and how many ops moved.
fn hoist_elementwise(context: &Context, mut transpose: Op) -> (Op, u64) {
    let mut hoisted = 0;
    loop {
        let result = transpose.result(0);
        let [(user, _)] = result.uses()[..] else { break };
        if !ELEMENTWISE.contains(&user.name().as_str())
            || user.result_count() != 1
            || user.region_count() != 0
            || user.result(0).r#type() != result.r#type()
        {
            break;
        }
        let ty = result.r#type().to_string();
        let source = transpose.operand(0);
        let source_type = source.r#type().to_string();
        let operands: Option<Vec<strata_ir::Val>> = user
            .operands()
            .into_iter()
            .map(
                |operand| if operand == result { Some(source) } else { splat_as(context, user, operand, &source_type) },
            )
            .collect();
        let Some(operands) = operands else { break };
        let attributes: Vec<(String, String)> = user
            .get()
            .attributes()
            .map(|(name, value)| (name.as_string_ref().as_str().unwrap_or_default().to_owned(), value.to_string()))
            .collect();
        let attributes: Vec<(&str, String)> = attributes.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
        let Some(applied) = build(context, user, &user.name(), &operands, &source_type, &attributes) else { break };
        let Some(permutation) = transpose.attribute("permutation").map(|p| p.to_string()) else { break };
        let Some(moved) = build(context, user, "vector.transpose", &[applied], &ty, &[("permutation", permutation)])
        else {
            break;
        };
        user.result(0).replace_all_uses_with(moved);
        // Safety: both have no uses left (the user's result replaced, the transpose's only user
        // erased); neither is used afterwards.
        unsafe {
            user.erase();
            transpose.erase();
        }
        transpose = moved.owner().expect("a built op's result");
        hoisted += 1;
    }
    (transpose, hoisted)
}

/// `value`, a splat `arith.constant`, as a splat of type `ty` built before `before`.
fn splat_as(context: &Context, before: Op, value: strata_ir::Val, ty: &str) -> Option<strata_ir::Val> {
    let constant = value.owner().filter(|op| op.is("arith.constant"))?;
    let text = constant.attribute("value")?.to_string();
    // `dense<c> : vector<...>`, one value for every element.
    let element = text.strip_prefix("dense<")?.split_once('>')?.0;
    if element.starts_with('[') {
        return None;
    }
    build(context, before, "arith.constant", &[], ty, &[("value", format!("dense<{element}> : {ty}"))])
}

/// Rows (padded to a power of two) narrower than this many lanes are joined before the
/// stages when there are more rows than columns (a register of f32 on AVX-512).
const JOIN_FIRST_BELOW: usize = 16;

/// The largest block lowered to a network (elements): bigger transposes stay MLIR's.
const MAX_ELEMENTS: i64 = 4096;

/// Where the trailing group starts: `k` when `permutation` is `[k, ..., n-1, 0, ..., k-1]` with
/// `0 < k < n` (`[1, 0]` for rank 2).
pub fn rotation(permutation: &[i64]) -> Option<usize> {
    let n = permutation.len();
    let k = usize::try_from(*permutation.first()?).ok().filter(|&k| k > 0 && k < n)?;
    let expected = (k..n).chain(0..k);
    permutation.iter().zip(expected).all(|(&p, e)| p == e as i64).then_some(k)
}

/// One shuffle of the network: two source values and the lanes taken, numbered across both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shuffle {
    pub sources: [usize; 2],
    pub mask: Vec<i64>,
}

/// The shuffle network transposing `rows x columns` (see the module documentation). Values
/// `0..rows` are the input rows (`columns` lanes each, or already `columns.next_power_of_two()`
/// when `wide_rows`: the lanes past `columns` are never read); each shuffle appends one value;
/// the result names, for each output row `j < columns`, the value holding it: `rows` lanes, or
/// with `wide_outputs` `rows.next_power_of_two()` whose first `rows` are the row's.
pub fn network(rows: usize, columns: usize, wide_rows: bool, wide_outputs: bool) -> (Vec<Shuffle>, Vec<usize>) {
    let (r2, c2) = (rows.next_power_of_two(), columns.next_power_of_two());
    let mut net = Network { shuffles: Vec::new(), values: rows };
    // Each row as `c2` lanes (the extra lanes are never read); padding rows are `None`.
    let mut current: Vec<Option<usize>> = (0..r2)
        .map(|r| (r < rows).then(|| if c2 == columns || wide_rows { r } else { net.resize(r, columns, c2) }))
        .collect();
    let mut outputs = Vec::with_capacity(columns);
    if r2 <= c2 {
        net.interleave(&mut current, c2, c2);
        let per = c2 / r2;
        let lanes = if wide_outputs { r2 } else { rows };
        for j in 0..columns {
            let source = current[j / per].expect("every value of the last stage holds real rows");
            let first = ((j % per) * r2) as i64;
            outputs.push(if lanes == c2 {
                source
            } else {
                net.push([source, source], (first..first + lanes as i64).collect())
            });
        }
    } else if c2 < JOIN_FIRST_BELOW {
        // Rows narrower than a register joined first: value `i < c2` holds rows `i, i + c2,
        // i + 2 c2, ...` (`r2 / c2` groups of `c2` lanes; a padding row repeats row `i`, which
        // exists as `rows > r2 / 2 >= c2`). The stages then transpose every group at once, `r2`
        // lanes wide: after them value `j` is column `j` of every row, in order. A `32 x 7`
        // block takes 24 joins and 24 shuffles of 32 lanes; x86 instruction selection took ten
        // times longer on its bands of 8 lanes transposed one by one and then joined (about
        // 80 ms per convolution reading its initial values so).
        let mut wide: Vec<Option<usize>> = (0..c2)
            .map(|i| {
                let row = current[i].expect("the first rows exist");
                let mut pieces: Vec<(usize, usize)> =
                    (0..r2 / c2).map(|group| (current[i + group * c2].unwrap_or(row), c2)).collect();
                while pieces.len() > 1 {
                    pieces = pieces.chunks(2).map(|pair| net.join(pair[0], pair[1])).collect();
                }
                Some(pieces[0].0)
            })
            .collect();
        net.interleave(&mut wide, r2, c2);
        for value in wide.into_iter().take(columns) {
            let value = value.expect("every value of the last stage holds real rows");
            outputs.push(if r2 == rows || wide_outputs {
                value
            } else {
                net.push([value, value], (0..rows as i64).collect())
            });
        }
    } else {
        // Rows of a register or more: each band of `c2` rows transposed on its own (no lane
        // spent on padding rows past the last band), output row `j` joined from the bands'
        // rows `j`.
        let bands: Vec<Vec<Option<usize>>> = current
            .chunks(c2)
            .map(|band| {
                let mut band = band.to_vec();
                net.interleave(&mut band, c2, c2);
                band
            })
            .collect();
        for j in 0..columns {
            let mut pieces: Vec<(usize, usize)> = bands.iter().filter_map(|band| band[j]).map(|v| (v, c2)).collect();
            while pieces.len() > 1 {
                pieces = pieces
                    .chunks(2)
                    .map(|pair| match *pair {
                        [a, b] => net.join(a, b),
                        _ => pair[0],
                    })
                    .collect();
            }
            let (value, width) = pieces[0];
            let lanes = if wide_outputs { r2 } else { rows };
            outputs.push(match width.cmp(&lanes) {
                std::cmp::Ordering::Equal => value,
                std::cmp::Ordering::Greater => net.push([value, value], (0..lanes as i64).collect()),
                std::cmp::Ordering::Less => net.resize(value, width, lanes),
            });
        }
    }
    (net.shuffles, outputs)
}

/// A shuffle network being built: its shuffles and how many values exist.
struct Network {
    shuffles: Vec<Shuffle>,
    values: usize,
}

impl Network {
    /// Appends a shuffle; returns its value.
    fn push(&mut self, sources: [usize; 2], mask: Vec<i64>) -> usize {
        self.shuffles.push(Shuffle { sources, mask });
        self.values += 1;
        self.values - 1
    }

    /// `value` (`from` lanes) as `to` lanes: its own first, then copies of its last (never read).
    fn resize(&mut self, value: usize, from: usize, to: usize) -> usize {
        let last = from as i64 - 1;
        self.push([value, value], (0..to as i64).map(|l| l.min(last)).collect())
    }

    /// `a` then `b` in one value (each `(value, lanes)`); the narrower is widened first, as
    /// both sources of a shuffle have one type.
    fn join(&mut self, (a, wa): (usize, usize), (b, wb): (usize, usize)) -> (usize, usize) {
        let wide = wa.max(wb);
        let a = if wa < wide { self.resize(a, wa, wide) } else { a };
        let b = if wb < wide { self.resize(b, wb, wide) } else { b };
        let mask = (0..wa as i64).chain((wide as i64)..(wide + wb) as i64).collect();
        (self.push([a, b], mask), wa + wb)
    }

    /// `log2(n)` interleaving stages over the `n` values of `band` (`width` lanes each, in
    /// groups of `group` lanes, each group transposed on its own): value `i` with value
    /// `i + n/2`, each group's first halves into value `2i`, its second halves into value
    /// `2i + 1`. A padding value reads as its partner (its lanes are never used); two padding
    /// values stay one.
    fn interleave(&mut self, band: &mut Vec<Option<usize>>, width: usize, group: usize) {
        let n = band.len();
        let half = group / 2;
        let mut stage = 1;
        while stage < n {
            let mut next = Vec::with_capacity(n);
            for i in 0..n / 2 {
                let (a, b) = (band[i], band[i + n / 2]);
                for part in 0..2 {
                    next.push(a.or(b).map(|first| {
                        let second = b.unwrap_or(first);
                        let first = a.unwrap_or(first);
                        let mask = (0..width / group)
                            .flat_map(|g| (0..half).map(move |k| (g * group + part * half + k) as i64))
                            .flat_map(|k| [k, width as i64 + k])
                            .collect();
                        self.push([first, second], mask)
                    }));
                }
            }
            *band = next;
            stage *= 2;
        }
    }
}

/// Replaces `transpose` by its shuffle network, when it is one this pass lowers.
fn rewrite(context: &Context, transpose: Op) -> Option<()> {
    let k = rotation(&strata_ir::ods::i64_array(transpose.get(), "permutation")?)?;
    let (dims, element) = vector_shape(transpose.operand(0).r#type())?;
    let rows: i64 = dims[..k].iter().product();
    let columns: i64 = dims[k..].iter().product();
    if rows < 2 || columns < 2 || rows * columns > MAX_ELEMENTS {
        return None;
    }
    let vector = |shape: &[i64]| {
        format!("vector<{}x{element}>", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"))
    };
    let mut source = transpose.operand(0);
    if dims.len() > 2 {
        source = build(context, transpose, "vector.shape_cast", &[source], &vector(&[rows, columns]), &[])?;
    }
    // Rows read from memory whose width is not a power of two are read again, masked, as
    // whole registers.
    let wide = (columns as u64).next_power_of_two() as i64;
    // Every row checked first: a block with one row not so read keeps its rows as they are.
    let reads = (dims.len() == 2 && wide != columns)
        .then(|| (0..rows).map(|r| row_read(source, r, columns, &element)).collect::<Option<Vec<_>>>())
        .flatten();
    let wide_rows = reads.is_some();
    let mut values: Vec<strata_ir::Val> = match reads {
        Some(reads) => {
            reads.into_iter().map(|read| widened_read(context, read, wide, &element)).collect::<Option<_>>()?
        }
        None => {
            let row_type = vector(&[columns]);
            (0..rows)
                .map(|r| {
                    let position = [("static_position", i64_array([r]))];
                    build(context, transpose, "vector.extract", &[source], &row_type, &position)
                })
                .collect::<Option<_>>()?
        }
    };
    // Output rows whose width is not a power of two, each only stored to memory, are stored
    // as whole registers, masked.
    let wide_out = (rows as u64).next_power_of_two() as i64;
    let stores = (dims.len() == 2 && wide_out != rows).then(|| row_stores(transpose, columns)).flatten();
    let (shuffles, outputs) = network(rows as usize, columns as usize, wide_rows, stores.is_some());
    for shuffle in &shuffles {
        let (a, b) = (values[shuffle.sources[0]], values[shuffle.sources[1]]);
        let lanes = shuffle.mask.len() as i64;
        let value = build(
            context,
            transpose,
            "vector.shuffle",
            &[a, b],
            &vector(&[lanes]),
            &[("mask", i64_array(shuffle.mask.iter().copied()))],
        )?;
        values.push(value);
    }
    if let Some(stores) = stores {
        // Before the transpose: before every write of its rows.
        let mask_type = format!("vector<{wide_out}xi1>");
        let mask = [("mask_dim_sizes", i64_array([rows]))];
        let mask = build(context, transpose, "vector.constant_mask", &[], &mask_type, &mask)?;
        for (extract, row, writes) in stores {
            for write in writes {
                // The row, then the destination and its indices (`vector.maskedstore`'s base,
                // indices, mask, value).
                let mut operands: Vec<strata_ir::Val> = write.operands().into_iter().skip(1).collect();
                operands.extend([mask, values[outputs[row]]]);
                build_void(write, "vector.maskedstore", &operands)?;
                // Safety: replaced by the masked store; a write has no results.
                unsafe { write.erase() };
            }
            // Safety: its only users, the writes, are gone.
            unsafe { extract.erase() };
        }
    } else {
        let flat_type = vector(&[columns, rows]);
        let poison = [("value", "#ub.poison".to_owned())];
        let mut result = build(context, transpose, "ub.poison", &[], &flat_type, &poison)?;
        for (j, &output) in outputs.iter().enumerate() {
            let position = [("static_position", i64_array([j as i64]))];
            result = build(context, transpose, "vector.insert", &[values[output], result], &flat_type, &position)?;
        }
        let ty = transpose.result(0).r#type().to_string();
        if ty != flat_type {
            result = build(context, transpose, "vector.shape_cast", &[result], &ty, &[])?;
        }
        transpose.result(0).replace_all_uses_with(result);
    }
    // Safety: the transpose has no uses left (its rows' extracts erased, or its uses replaced)
    // and no handle to it is used afterwards.
    unsafe { transpose.erase() };
    if wide_rows {
        erase_dead_rows(source);
    }
    Some(())
}

/// Erases the chain of `vector.insert`s building `value` once nothing reads it, and each row
/// read nothing else reads (the reads [`widened_row`] replaced).
fn erase_dead_rows(mut value: strata_ir::Val) {
    while !value.has_uses() {
        let Some(insert) = value.owner().filter(|op| op.is("vector.insert")) else { return };
        let (row, rest) = (insert.operand(0), insert.operand(1));
        // Safety: its result has no uses.
        unsafe { insert.erase() };
        if let Some(read) =
            row.owner().filter(|op| !row.has_uses() && (op.is("vector.transfer_read") || op.is("vector.load")))
        {
            // Safety: its result has no uses; reads have no other effect.
            unsafe { read.erase() };
        }
        value = rest;
    }
}

/// The uses of `transpose`'s result (`columns` rows) when each is a `vector.extract` of one
/// row whose every use is a 1-D `vector.transfer_write` of it to memory (in bounds, minor
/// identity, unmasked): what `convert-vector-to-scf` makes of a 2-D write. Each extract with its
/// row and its writes, the writes' operands then being the row, the memref and one index per
/// dimension.
fn row_stores(transpose: Op, columns: i64) -> Option<Vec<(Op, usize, Vec<Op>)>> {
    let mut stores = Vec::new();
    for (user, _) in transpose.result(0).uses() {
        if !user.is("vector.extract") || user.operand_count() != 1 {
            return None;
        }
        let [row] = strata_ir::ods::i64_array(user.get(), "static_position")?[..] else { return None };
        let row = usize::try_from(row).ok().filter(|&r| (r as i64) < columns)?;
        let mut writes = Vec::new();
        for (write, operand) in user.result(0).uses() {
            if !write.is("vector.transfer_write") || operand != 0 || write.operand_count() < 2 {
                return None;
            }
            let rank = strata_ir::types::memref(write.operand(1).r#type())?.rank();
            let plain = write.operand_count() == rank + 2
                && write.attribute("permutation_map").is_some_and(|map| map.to_string() == minor_identity(rank))
                && write.attribute("in_bounds").is_some_and(|b| b.to_string() == "[true]");
            if !plain {
                return None;
            }
            writes.push(write);
        }
        stores.push((user, row, writes));
    }
    Some(stores)
}

/// The printed minor identity map of a 1-D transfer on a memref of `rank` dimensions.
fn minor_identity(rank: usize) -> String {
    let dims: Vec<String> = (0..rank).map(|d| format!("d{d}")).collect();
    format!("affine_map<({}) -> (d{})>", dims.join(", "), rank.saturating_sub(1))
}

/// The op reading row `row` of the 2-D vector `source` from memory: a 1-D
/// `vector.transfer_read` (in bounds, minor identity, unmasked) or `vector.load` of `columns`
/// lanes inserted into a chain of `vector.insert`s (how `convert-vector-to-scf` unrolls a 2-D
/// read). `None` when the row is not such a read.
fn row_read(source: strata_ir::Val, row: i64, columns: i64, element: &str) -> Option<Op> {
    // The insert chain: the last insert at `row` is the row's value.
    let mut at = source.owner()?;
    let value = loop {
        if !at.is("vector.insert") || at.operand_count() != 2 {
            return None;
        }
        if strata_ir::ods::i64_array(at.get(), "static_position")? == [row] {
            break at.operand(0);
        }
        at = at.operand(1).owner()?;
    };
    let read = value.owner().filter(|op| op.is("vector.transfer_read") || op.is("vector.load"))?;
    let rank = strata_ir::types::memref(read.operands().first()?.r#type())?.rank();
    let plain = if read.is("vector.transfer_read") {
        // Source, indices and padding: no mask.
        read.operand_count() == rank + 2
            && read.attribute("permutation_map").is_some_and(|map| map.to_string() == minor_identity(rank))
            && read.attribute("in_bounds").is_some_and(|b| b.to_string() == "[true]")
    } else {
        read.operand_count() == rank + 1
    };
    (plain && value.r#type().to_string() == format!("vector<{columns}x{element}>")).then_some(read)
}

/// `read` (a [`row_read`]) again as `wide` lanes, by a `vector.maskedload` of the lanes it
/// reads (the others are not accessed) just before it.
fn widened_read(context: &Context, read: Op, wide: i64, element: &str) -> Option<strata_ir::Val> {
    let base = read.operand(0);
    let rank = strata_ir::types::memref(base.r#type())?.rank();
    let (columns, _) = vector_shape(read.result(0).r#type())?;
    let indices = (1..=rank).map(|i| read.operand(i));
    let mask_type = format!("vector<{wide}xi1>");
    let mask =
        build(context, read, "vector.constant_mask", &[], &mask_type, &[("mask_dim_sizes", i64_array(columns))])?;
    let ty = format!("vector<{wide}x{element}>");
    let pass = build(context, read, "ub.poison", &[], &ty, &[("value", "#ub.poison".to_owned())])?;
    let operands: Vec<strata_ir::Val> = std::iter::once(base).chain(indices).chain([mask, pass]).collect();
    build(context, read, "vector.maskedload", &operands, &ty, &[])
}

#[cfg(test)]
mod tests {
    use super::{network, rotation};

    #[test]
    fn rotations_only() {
        assert_eq!(rotation(&[1, 0]), Some(1));
        assert_eq!(rotation(&[2, 0, 1]), Some(2));
        assert_eq!(rotation(&[1, 2, 0]), Some(1));
        assert_eq!(rotation(&[2, 3, 0, 1]), Some(2));
        assert_eq!(rotation(&[0, 1]), None);
        assert_eq!(rotation(&[0, 2, 1]), None);
        assert_eq!(rotation(&[2, 1, 0]), None);
    }

    /// Runs each network on labelled lanes: every output row holds its column, in row order,
    /// and every shuffle reads two vectors of one width.
    #[test]
    fn networks_transpose() {
        for rows in 2..40usize {
            for columns in 2..40usize {
                for (wide_rows, wide_outputs) in [(false, false), (true, false), (false, true), (true, true)] {
                    // Lanes past `columns` of a row read whole are junk (`usize::MAX`).
                    let lanes = if wide_rows { columns.next_power_of_two() } else { columns };
                    let mut values: Vec<Vec<(usize, usize)>> = (0..rows)
                        .map(|r| (0..lanes).map(|c| (r, if c < columns { c } else { usize::MAX })).collect())
                        .collect();
                    let (shuffles, outputs) = network(rows, columns, wide_rows, wide_outputs);
                    for s in &shuffles {
                        let (a, b) = (&values[s.sources[0]], &values[s.sources[1]]);
                        assert_eq!(a.len(), b.len(), "{rows}x{columns}");
                        let lanes = s.mask.iter().map(|&m| {
                            if (m as usize) < a.len() {
                                a[m as usize]
                            } else {
                                b[m as usize - a.len()]
                            }
                        });
                        values.push(lanes.collect());
                    }
                    assert_eq!(outputs.len(), columns);
                    for (j, &o) in outputs.iter().enumerate() {
                        let expected: Vec<_> = (0..rows).map(|r| (r, j)).collect();
                        // Whole outputs: the row's lanes first, then any.
                        let lanes = if wide_outputs { rows.next_power_of_two() } else { rows };
                        assert_eq!(values[o].len(), lanes, "{rows}x{columns} row {j}");
                        assert_eq!(values[o][..rows], expected, "{rows}x{columns} row {j} {wide_rows} {wide_outputs}");
                    }
                }
            }
        }
        // The classic sizes: 16 x 16 in 4 stages of 16 shuffles (its output rows the last
        // stage's values); 7 x 32 in 3 stages of 8 (and 32 picks).
        assert_eq!(network(16, 16, false, false).0.len(), 64);
        assert_eq!(network(7, 32, false, false).0.len(), 24 + 32);
        // 7 x 32 stored as rows of 8 lanes: each a quarter of a last stage's value.
        assert_eq!(network(7, 32, false, true).0.len(), 24 + 32);
        // 32 x 7 read as rows of 8: 8 values of 4 rows joined (24 shuffles), 3 stages of 8.
        assert_eq!(network(32, 7, true, false).0.len(), 24 + 24);
        // 18 x 16, rows of a whole register: a band of 16 rows (64), one of 2 rows and 14 of
        // padding (4 + 8 + 16 + 16), each output row joined (16) and cut (16).
        assert_eq!(network(18, 16, false, false).0.len(), 64 + 44 + 16 + 16);
    }
}
