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
//! transposed block, so output row `j` is `R` lanes of row `j / (C'/R')`. When `R' > C'`, each
//! band of `C'` rows is transposed that way and output row `j` joins the bands' rows `j`. Each
//! shuffle reads two vectors of one width (`vpermt2ps` on AVX-512): a `7 x 32` block takes 24
//! shuffles of 32 lanes and 32 extracts, a `16 x 16` one the classic 64. Only the `C` output
//! rows (`R` lanes each) that exist are built. MobileNetV2's `16 -> 96` pointwise convolution,
//! whose short reduction makes the store a large part of each block, runs about 15% faster
//! than with `shuffle1d`.

use crate::vector_ops::{build, i64_array, vector_shape};
use melior::ir::operation::OperationRef;
use melior::Context;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-lower-transposes",
    summary:
        "2-D vector transposes (and rank-3+ swaps of two dimension groups) as two-source shuffle networks on the rows",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "transposes", help: "vector.transpose lowered to shuffle networks" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(LowerTransposes)
}

struct LowerTransposes;

impl Pass for LowerTransposes {
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
/// `0..rows` are the input rows (`columns` lanes each); each shuffle appends one value; the
/// result names, for each output row `j < columns`, the value holding it (`rows` lanes).
pub fn network(rows: usize, columns: usize) -> (Vec<Shuffle>, Vec<usize>) {
    let (r2, c2) = (rows.next_power_of_two(), columns.next_power_of_two());
    let mut net = Network { shuffles: Vec::new(), values: rows };
    // Each row widened to `c2` lanes (the extra lanes are never read); padding rows are `None`.
    let mut current: Vec<Option<usize>> =
        (0..r2).map(|r| (r < rows).then(|| if c2 == columns { r } else { net.resize(r, columns, c2) })).collect();
    let mut outputs = Vec::with_capacity(columns);
    if r2 <= c2 {
        net.interleave(&mut current, c2);
        let per = c2 / r2;
        for j in 0..columns {
            let source = current[j / per].expect("every value of the last stage holds real rows");
            let first = ((j % per) * r2) as i64;
            outputs.push(net.push([source, source], (first..first + rows as i64).collect()));
        }
    } else {
        let bands: Vec<Vec<Option<usize>>> = current
            .chunks(c2)
            .map(|band| {
                let mut band = band.to_vec();
                net.interleave(&mut band, c2);
                band
            })
            .collect();
        for j in 0..columns {
            // The bands' rows `j` (`c2` lanes each; bands of padding rows left out), joined
            // pairwise, then cut to `rows` lanes.
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
            outputs.push(if width == rows { value } else { net.push([value, value], (0..rows as i64).collect()) });
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

    /// `log2(n)` interleaving stages over the `n` rows of `band` (`width` lanes each): row `i`
    /// with row `i + n/2`, first halves into row `2i`, second halves into row `2i + 1`. A
    /// padding row reads as its partner (its lanes are never used); two padding rows stay one.
    fn interleave(&mut self, band: &mut Vec<Option<usize>>, width: usize) {
        let n = band.len();
        let half = width / 2;
        let mut stage = 1;
        while stage < n {
            let mut next = Vec::with_capacity(n);
            for i in 0..n / 2 {
                let (a, b) = (band[i], band[i + n / 2]);
                for part in 0..2 {
                    next.push(a.or(b).map(|first| {
                        let second = b.unwrap_or(first);
                        let first = a.unwrap_or(first);
                        let mask = (0..half)
                            .flat_map(|k| {
                                let k = (part * half + k) as i64;
                                [k, width as i64 + k]
                            })
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
    let row_type = vector(&[columns]);
    let mut values: Vec<strata_ir::Val> = (0..rows)
        .map(|r| {
            build(context, transpose, "vector.extract", &[source], &row_type, &[("static_position", i64_array([r]))])
        })
        .collect::<Option<_>>()?;
    let (shuffles, outputs) = network(rows as usize, columns as usize);
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
    let flat_type = vector(&[columns, rows]);
    let mut result = build(context, transpose, "ub.poison", &[], &flat_type, &[("value", "#ub.poison".to_owned())])?;
    for (j, &output) in outputs.iter().enumerate() {
        result = build(
            context,
            transpose,
            "vector.insert",
            &[values[output], result],
            &flat_type,
            &[("static_position", i64_array([j as i64]))],
        )?;
    }
    let ty = transpose.result(0).r#type().to_string();
    if ty != flat_type {
        result = build(context, transpose, "vector.shape_cast", &[result], &ty, &[])?;
    }
    transpose.result(0).replace_all_uses_with(result);
    // Safety: the transpose has no uses left and no handle to it is used afterwards.
    unsafe { transpose.erase() };
    Some(())
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
                let mut values: Vec<Vec<(usize, usize)>> =
                    (0..rows).map(|r| (0..columns).map(|c| (r, c)).collect()).collect();
                let (shuffles, outputs) = network(rows, columns);
                for s in &shuffles {
                    let (a, b) = (&values[s.sources[0]], &values[s.sources[1]]);
                    assert_eq!(a.len(), b.len(), "{rows}x{columns}");
                    let lanes =
                        s.mask
                            .iter()
                            .map(|&m| if (m as usize) < a.len() { a[m as usize] } else { b[m as usize - a.len()] });
                    values.push(lanes.collect());
                }
                assert_eq!(outputs.len(), columns);
                for (j, &o) in outputs.iter().enumerate() {
                    let expected: Vec<_> = (0..rows).map(|r| (r, j)).collect();
                    assert_eq!(values[o], expected, "{rows}x{columns} row {j}");
                }
            }
        }
        // The classic sizes: 16 x 16 in 4 stages of 16 shuffles (and 16 row picks); 7 x 32 in
        // 3 stages of 8 (and 32 picks).
        assert_eq!(network(16, 16).0.len(), 64 + 16);
        assert_eq!(network(7, 32).0.len(), 24 + 32);
    }
}
