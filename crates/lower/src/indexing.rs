//! Kernels that address elements by computed indices or combine along an axis: gathers and
//! scatters (`gather_elements`, `gather_nd`, `scatter_elements`, `scatter_nd`), `arg_extreme`,
//! `cumulative` and `einsum`.
//!
//! Gathers are one generic over the result whose body reads the index tensor and the input at
//! the computed position (negative indices count from the end, out-of-range ones are clamped
//! to the dimension). Scatters copy the input and then visit every update in order with
//! nested `scf.for` loops, so duplicate indices apply in order (and reductions accumulate), as
//! ONNX's reference does.

use crate::elementwise::{binary, Binary};
use crate::kernel::{Body, Elem, Iter, Kernel, Map, TensorTy};
use std::fmt::Write;
use strata_ir::Error;

/// `raw` (an index of type `elem`) as an index into a dimension of `size`: negative values
/// count from the end, then the result is clamped into range.
fn wrapped_index(b: &mut Body, raw: &str, elem: &Elem, size: i64) -> String {
    let raw = if elem.name == "index" {
        raw.to_owned()
    } else {
        b.emit(format_args!("arith.index_cast {raw} : {elem} to index"))
    };
    let zero = b.emit("arith.constant 0 : index");
    let dim = b.emit(format_args!("arith.constant {size} : index"));
    let last = b.emit(format_args!("arith.constant {} : index", (size - 1).max(0)));
    let wrapped = b.emit(format_args!("arith.addi {raw}, {dim} : index"));
    let negative = b.emit(format_args!("arith.cmpi slt, {raw}, {zero} : index"));
    let index = b.emit(format_args!("arith.select {negative}, {wrapped}, {raw} : index"));
    let low = b.emit(format_args!("arith.maxsi {index}, {zero} : index"));
    b.emit(format_args!("arith.minsi {low}, {last} : index"))
}

/// GatherElements along `axis`.
pub fn gather_elements(k: &mut Kernel, axis: usize, out: &TensorTy) -> String {
    let init = k.empty(out);
    let (data, indices) = (k.arg(0), k.arg(1));
    let (data_ty, idx_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone());
    let dim = data_ty.shape[axis];
    k.generic(
        &[(&indices, &idx_ty, Map::identity(out.rank()))],
        (&init, out, Map::identity(out.rank())),
        &vec![Iter::Parallel; out.rank()],
        |b, a| {
            let index = wrapped_index(b, &a[0], &idx_ty.elem, dim);
            let coords: Vec<String> =
                (0..data_ty.rank()).map(|d| if d == axis { index.clone() } else { b.index(d) }).collect();
            let value = b.emit(format_args!("tensor.extract {data}[{}] : {data_ty}", coords.join(", ")));
            b.from_storage(&value, &data_ty.elem)
        },
    )
}

/// GatherND with `batch` leading batch dimensions.
pub fn gather_nd(k: &mut Kernel, batch: usize, out: &TensorTy) -> String {
    let init = k.empty(out);
    let (data, indices) = (k.arg(0), k.arg(1));
    let (data_ty, idx_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone());
    let q = idx_ty.rank();
    let tuple = idx_ty.shape[q - 1] as usize;
    k.generic(&[], (&init, out, Map::identity(out.rank())), &vec![Iter::Parallel; out.rank()], |b, _| {
        // Result dims: the indices' leading q - 1 dims, then the input's trailing dims.
        let lead: Vec<String> = (0..q - 1).map(|d| b.index(d)).collect();
        let mut coords: Vec<String> = lead[..batch].to_vec();
        for j in 0..tuple {
            let position = b.emit(format_args!("arith.constant {j} : index"));
            let at: Vec<String> = lead.iter().cloned().chain([position]).collect();
            let raw = b.emit(format_args!("tensor.extract {indices}[{}] : {idx_ty}", at.join(", ")));
            coords.push(wrapped_index(b, &raw, &idx_ty.elem, data_ty.shape[batch + j]));
        }
        for d in batch + tuple..data_ty.rank() {
            coords.push(b.index(q - 1 + d - batch - tuple));
        }
        let value = b.emit(format_args!("tensor.extract {data}[{}] : {data_ty}", coords.join(", ")));
        b.from_storage(&value, &data_ty.elem)
    })
}

/// How a scatter combines an update with the value it lands on.
fn combine(b: &mut Body, reduction: i64, old: &str, new: &str, elem: &Elem) -> Result<String, Error> {
    Ok(match reduction {
        0 => new.to_owned(),
        1 => binary(b, Binary::Add, old, new, elem)?,
        2 => binary(b, Binary::Mul, old, new, elem)?,
        3 => binary(b, Binary::Max, old, new, elem)?,
        4 => binary(b, Binary::Min, old, new, elem)?,
        other => return Err(format!("scatter reduction {other} is not 0 to 4").into()),
    })
}

/// Nested `scf.for` loops over `shape` carrying a tensor of type `carried` from `init`; `body`
/// gets the induction variables and the carried value's name and returns the new one's.
fn nested_loops(
    k: &mut Kernel,
    shape: &[i64],
    init: &str,
    carried: &TensorTy,
    body: impl FnOnce(&mut Body, &[String], &str) -> Result<String, Error>,
) -> Result<String, Error> {
    let mut text = String::new();
    let mut b = Body::new("%x", "");
    let n = shape.len();
    let ivs: Vec<String> = (0..n).map(|d| format!("%i{d}")).collect();
    let acc: Vec<String> = (0..=n).map(|d| format!("%t{d}")).collect();
    let result = body(&mut b, &ivs, &acc[n])?;
    let c0 = k.emit("arith.constant 0 : index");
    let c1 = k.emit("arith.constant 1 : index");
    let bounds: Vec<String> = shape.iter().map(|&s| k.emit(format_args!("arith.constant {s} : index"))).collect();
    let loop_result = "%scatter".to_owned();
    for d in 0..n {
        let indent = "  ".repeat(d + 2);
        let name = if d == 0 { format!("{loop_result} = ") } else { format!("%r{d} = ") };
        let _ = writeln!(
            text,
            "{indent}{name}scf.for {} = {c0} to {} step {c1} iter_args({} = {}) -> ({carried}) {{",
            ivs[d],
            bounds[d],
            acc[d + 1],
            if d == 0 { init.to_owned() } else { acc[d].clone() }
        );
    }
    let inner = "  ".repeat(n + 2);
    for line in b.text().lines() {
        let _ = writeln!(text, "{inner}{}", line.trim_start());
    }
    let _ = writeln!(text, "{inner}scf.yield {result} : {carried}");
    for d in (0..n).rev() {
        let indent = "  ".repeat(d + 2);
        let _ = writeln!(text, "{indent}}}");
        if d > 0 {
            let _ = writeln!(text, "{}scf.yield %r{d} : {carried}", "  ".repeat(d + 1));
        }
    }
    k.push_lines(&text);
    Ok(loop_result)
}

/// ScatterElements along `axis`.
pub fn scatter_elements(k: &mut Kernel, axis: usize, reduction: i64) -> Result<String, Error> {
    let (data, indices, updates) = (k.arg(0), k.arg(1), k.arg(2));
    let (data_ty, idx_ty, upd_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone(), k.arg_type(2).clone());
    let elem = data_ty.elem.clone();
    nested_loops(k, &idx_ty.shape, &data, &data_ty, |b, ivs, t| {
        let at = ivs.join(", ");
        let raw = b.emit(format_args!("tensor.extract {indices}[{at}] : {idx_ty}"));
        let index = wrapped_index(b, &raw, &idx_ty.elem, data_ty.shape[axis]);
        let coords: Vec<String> =
            (0..data_ty.rank()).map(|d| if d == axis { index.clone() } else { ivs[d].clone() }).collect();
        let coords = coords.join(", ");
        let new = b.emit(format_args!("tensor.extract {updates}[{at}] : {upd_ty}"));
        let old = b.emit(format_args!("tensor.extract {t}[{coords}] : {data_ty}"));
        let (old_s, new_s) = (b.from_storage(&old, &elem), b.from_storage(&new, &elem));
        let value = combine(b, reduction, &old_s, &new_s, &elem)?;
        let value = b.to_storage(&value, &elem);
        Ok(b.emit(format_args!("tensor.insert {value} into {t}[{coords}] : {data_ty}")))
    })
}

/// ScatterND.
pub fn scatter_nd(k: &mut Kernel, reduction: i64) -> Result<String, Error> {
    let (data, indices, updates) = (k.arg(0), k.arg(1), k.arg(2));
    let (data_ty, idx_ty, upd_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone(), k.arg_type(2).clone());
    let elem = data_ty.elem.clone();
    let q = idx_ty.rank();
    let tuple = idx_ty.shape[q - 1] as usize;
    nested_loops(k, &upd_ty.shape, &data, &data_ty, |b, ivs, t| {
        let lead = &ivs[..q - 1];
        let mut coords = Vec::new();
        for j in 0..tuple {
            let position = b.emit(format_args!("arith.constant {j} : index"));
            let at: Vec<String> = lead.iter().cloned().chain([position]).collect();
            let raw = b.emit(format_args!("tensor.extract {indices}[{}] : {idx_ty}", at.join(", ")));
            coords.push(wrapped_index(b, &raw, &idx_ty.elem, data_ty.shape[j]));
        }
        coords.extend(ivs[q - 1..].iter().cloned());
        let coords = coords.join(", ");
        let new = b.emit(format_args!("tensor.extract {updates}[{}] : {upd_ty}", ivs.join(", ")));
        let old = b.emit(format_args!("tensor.extract {t}[{coords}] : {data_ty}"));
        let (old_s, new_s) = (b.from_storage(&old, &elem), b.from_storage(&new, &elem));
        let value = combine(b, reduction, &old_s, &new_s, &elem)?;
        let value = b.to_storage(&value, &elem);
        Ok(b.emit(format_args!("tensor.insert {value} into {t}[{coords}] : {data_ty}")))
    })
}

/// The index of the largest (or smallest) element along `axis` (first or last among equal
/// ones), as i64; `out` has the keepdims shape or not.
pub fn arg_extreme(k: &mut Kernel, axis: usize, largest: bool, last: bool, out: &TensorTy) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let elem = ty.elem.clone();
    // Booleans too (the first true or false): the importer's ArgMax of masks.
    if !(elem.is_float() || elem.is_int() || (elem.is_bool() && ty.shape[axis] > 0)) {
        return Err(elem.unsupported("argmax/argmin"));
    }
    let input = k.arg(0);
    let kept: Vec<i64> = ty.shape.iter().enumerate().filter(|(d, _)| *d != axis).map(|(_, &s)| s).collect();
    if ty.shape[axis] > 0 {
        return Ok(arg_extreme_scan(k, (axis, largest, last), &kept, out));
    }
    let values_ty = TensorTy::new(kept.clone(), elem.clone());
    let index_ty = TensorTy::new(kept, Elem::new("i64"));
    let start = if largest { elem.lowest() } else { elem.highest() };
    let values = k.filled(&start, &values_ty);
    let indices = k.filled("-1", &index_ty);
    let rank = ty.rank();
    let kept_map = Map::dims((0..rank).filter(|&d| d != axis));
    let maps = [Map::identity(rank), kept_map.clone(), kept_map];
    let maps: Vec<String> = maps.iter().map(|m| m.render(rank)).collect();
    let iterators: Vec<&str> = (0..rank).map(|d| if d == axis { "\"reduction\"" } else { "\"parallel\"" }).collect();
    let mut b = Body::new("%s", "      ");
    let x = b.from_storage("%in0", &elem);
    let best = b.from_storage("%out0", &elem);
    let position = b.index(axis);
    let position = b.emit(format_args!("arith.index_cast {position} : index to i64"));
    let predicate = extreme_predicate(&elem, largest, last);
    // The first element always wins (the start value may equal it).
    let better = b.emit(format_args!("{predicate} {x}, {best} : {elem}"));
    let unset = b.emit("arith.constant -1 : i64");
    let first = b.emit(format_args!("arith.cmpi eq, %out1, {unset} : i64"));
    let take = b.emit(format_args!("arith.ori {better}, {first} : i1"));
    let value = b.emit(format_args!("arith.select {take}, {x}, {best} : {elem}"));
    let value = b.to_storage(&value, &elem);
    let index = b.emit(format_args!("arith.select {take}, {position}, %out1 : i64"));
    let results = "%extreme";
    k.push_lines(&format!(
        "    {results}:2 = linalg.generic {{indexing_maps = [{}], iterator_types = [{}]}} ins({input} : {ty}) outs({values}, {indices} : {values_ty}, {index_ty}) {{\n    ^bb0(%in0: {}, %out0: {}, %out1: i64):\n{}      linalg.yield {value}, {index} : {}, i64\n    }} -> ({values_ty}, {index_ty})\n",
        maps.join(", "),
        iterators.join(", "),
        elem.storage(),
        elem.storage(),
        b.text(),
        elem.storage()
    ));
    Ok(crate::layout::reshape(k, &format!("{results}#1"), &index_ty, out))
}

/// The comparison that makes `x` replace the best so far in an ArgMax (`largest`) or ArgMin,
/// `last` keeping the last of equal ones.
pub(crate) fn extreme_predicate(elem: &Elem, largest: bool, last: bool) -> String {
    let strict = if last { "e" } else { "t" };
    let (kind, sign) = if elem.is_float() {
        ("cmpf", "o")
    } else if elem.unsigned || elem.is_bool() {
        ("cmpi", "u")
    } else {
        ("cmpi", "s")
    };
    let direction = if largest { "g" } else { "l" };
    format!("arith.{kind} {sign}{direction}{strict},")
}

/// ArgMax/ArgMin of a non-empty axis: one all-parallel generic over the kept positions, each
/// a scan of the axis in an `scf.for` carrying the best value and its position (in registers:
/// a two-result reduction generic kept them in its output buffers, a load and a store per
/// element, 4.6 ns an element), starting from the first element, which always wins, and
/// replacing the best where the next is strictly better (or as good, for the last of equal
/// ones): the reduction generic's answers exactly, NaN included (a leading NaN stays, later
/// ones never compare better).
fn arg_extreme_scan(
    k: &mut Kernel,
    (axis, largest, last): (usize, bool, bool),
    kept: &[i64],
    out: &TensorTy,
) -> String {
    let ty = k.arg_type(0).clone();
    let elem = ty.elem.clone();
    let input = k.arg(0);
    let index_ty = TensorTy::new(kept.to_vec(), Elem::new("i64"));
    let init = k.empty(&index_ty);
    let (c0, c1) = (k.emit("arith.constant 0 : index"), k.emit("arith.constant 1 : index"));
    let length = k.emit(format_args!("arith.constant {} : index", ty.shape[axis]));
    let predicate = extreme_predicate(&elem, largest, last);
    let kept_rank = kept.len();
    let result = k.generic(&[], (&init, &index_ty, Map::identity(kept_rank)), &vec![Iter::Parallel; kept_rank], |b, _| {
        let outer: Vec<String> = (0..kept_rank).map(|d| b.index(d)).collect();
        let at = |position: &str| -> String {
            let mut indices = outer.clone();
            indices.insert(axis, position.to_string());
            indices.join(", ")
        };
        let first = b.emit(format_args!("tensor.extract {input}[{}] : {ty}", at(&c0)));
        let first = b.from_storage(&first, &elem);
        let zero = b.emit("arith.constant 0 : i64");
        let mut w = Body::new("%am", "          ");
        let x = w.emit(format_args!("tensor.extract {input}[{}] : {ty}", at("%am_p")));
        let x = w.from_storage(&x, &elem);
        let better = w.emit(format_args!("{predicate} {x}, %am_v : {elem}"));
        let value = w.emit(format_args!("arith.select {better}, {x}, %am_v : {elem}"));
        let position = w.emit("arith.index_cast %am_p : index to i64");
        let index = w.emit(format_args!("arith.select {better}, {position}, %am_i : i64"));
        let scan = b.emit_n(2, format_args!(
            "scf.for %am_p = {c1} to {length} step {c1} iter_args(%am_v = {first}, %am_i = {zero}) -> ({elem}, i64) {{\n{}          \
             scf.yield {value}, {index} : {elem}, i64\n        }}",
            w.text()
        ));
        format!("{scan}#1")
    });
    crate::layout::reshape(k, &result, &index_ty, out)
}

/// CumSum or CumProd along `axis`: out[.., j, ..] combines x[.., i, ..] over i <= j (i < j
/// when exclusive; i >= j or i > j in reverse).
pub fn cumulative(
    k: &mut Kernel,
    axis: usize,
    exclusive: bool,
    reverse: bool,
    product: bool,
    out: &TensorTy,
) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let elem = ty.elem.clone();
    let rank = ty.rank();
    let input = k.arg(0);
    let start = k.filled(&elem.literal(if product { 1.0 } else { 0.0 }), out);
    // Loops: the result's dims, then the summed position (the last loop, a reduction).
    let source: Vec<usize> = (0..rank).map(|d| if d == axis { rank } else { d }).collect();
    let mut iterators = vec![Iter::Parallel; rank];
    iterators.push(Iter::Reduction);
    let op = if product { Binary::Mul } else { Binary::Add };
    k.try_generic(&[(&input, &ty, Map::dims(source))], (&start, out, Map::identity(rank)), &iterators, |b, a| {
        let (j, i) = (b.index(axis), b.index(rank));
        let predicate = match (reverse, exclusive) {
            (false, false) => "ule",
            (false, true) => "ult",
            (true, false) => "uge",
            (true, true) => "ugt",
        };
        let counts = b.emit(format_args!("arith.cmpi {predicate}, {i}, {j} : index"));
        let combined = binary(b, op, &a[1], &a[0], &elem)?;
        Ok(b.emit(format_args!("arith.select {counts}, {combined}, {} : {elem}", a[1])))
    })
}

/// Einsum of one or two operands over explicit subscripts: one generic over the output's
/// letters then the summed ones, multiplying the operands and accumulating (in f32 for half
/// precision).
pub fn einsum(k: &mut Kernel, operands: &[Vec<char>], output: &[char], out: &TensorTy) -> Result<String, Error> {
    let elem = out.elem.clone();
    if !(elem.is_float() || elem.is_int()) {
        return Err(elem.unsupported("einsum"));
    }
    let mut loops: Vec<char> = output.to_vec();
    for letters in operands {
        for &c in letters {
            if !loops.contains(&c) {
                loops.push(c);
            }
        }
    }
    let dim = |c: char| format!("d{}", loops.iter().position(|&l| l == c).expect("every letter is a loop"));
    let names: Vec<String> = (0..operands.len()).map(|i| k.arg(i)).collect();
    let types: Vec<TensorTy> = (0..operands.len()).map(|i| k.arg_type(i).clone()).collect();
    let inputs: Vec<(&str, &TensorTy, Map)> = operands
        .iter()
        .enumerate()
        .map(|(i, letters)| (names[i].as_str(), &types[i], Map(letters.iter().map(|&c| dim(c)).collect())))
        .collect();
    let acc_elem = if elem.is_float() && elem.bits() < 32 { Elem::new("f32") } else { elem.clone() };
    let acc_ty = out.with_elem(acc_elem.clone());
    let zero = k.filled(&acc_elem.literal(0.0), &acc_ty);
    let mut iterators = vec![Iter::Parallel; output.len()];
    iterators.resize(loops.len(), Iter::Reduction);
    let sum =
        k.try_generic(&inputs, (&zero, &acc_ty, Map(output.iter().map(|&c| dim(c)).collect())), &iterators, |b, a| {
            let n = operands.len();
            let mut product = crate::elementwise::cast(b, &a[0], &elem, &acc_elem)?;
            for value in &a[1..n] {
                let wide = crate::elementwise::cast(b, value, &elem, &acc_elem)?;
                product = binary(b, Binary::Mul, &product, &wide, &acc_elem)?;
            }
            binary(b, Binary::Add, &a[n], &product, &acc_elem)
        })?;
    if acc_elem == elem {
        return Ok(sum);
    }
    let empty = k.empty(out);
    k.try_generic(
        &[(&sum, &acc_ty, Map::identity(out.rank()))],
        (&empty, out, Map::identity(out.rank())),
        &vec![Iter::Parallel; out.rank()],
        |b, a| crate::elementwise::cast(b, &a[0], &acc_elem, &elem),
    )
}

/// Walks interleaved in one loop: independent dependency chains (node, its record, that
/// feature of the row, the comparison, the next node) that the core overlaps. One chain
/// waits on a load of the node records (an L2 hit on large forests) per step.
const INTERLEAVED_WALKS: i64 = 8;

/// What a step of a tree walk reads (`tree_walk`'s arguments x, nodes, roots), and the
/// constants it needs, defined at the kernel's top.
struct Walk {
    x: String,
    x_ty: TensorTy,
    records: String,
    records_ty: TensorTy,
    modes: i64,
    last_node: String,
    last_feature: String,
    low_half: String,
    c32: String,
    /// Indices 0 to 3: the record's columns.
    columns: Vec<String>,
}

impl Walk {
    fn new(k: &mut Kernel, modes: i64) -> Walk {
        let (x_ty, records_ty) = (k.arg_type(0).clone(), k.arg_type(1).clone());
        let (nodes, features) = (records_ty.shape[0], x_ty.shape[1]);
        Walk {
            x: k.arg(0),
            records: k.arg(1),
            modes,
            last_node: k.emit(format_args!("arith.constant {} : i64", (nodes - 1).max(0))),
            last_feature: k.emit(format_args!("arith.constant {} : i64", (features - 1).max(0))),
            low_half: k.emit("arith.constant 4294967295 : i64"),
            c32: k.emit("arith.constant 32 : i64"),
            columns: (0..4).map(|c| k.emit(format_args!("arith.constant {c} : index"))).collect(),
            x_ty,
            records_ty,
        }
    }

    /// Node `at` (i64) as an index into the records, clamped into range as unsigned.
    fn node(&self, w: &mut Body, at: &str) -> String {
        let clamped = w.emit(format_args!("arith.minui {at}, {} : i64", self.last_node));
        w.emit(format_args!("arith.index_cast {clamped} : i64 to index"))
    }

    /// One step from node `at` (i64) for row `row` (index): the next node. Reads the node's
    /// record, that feature of the row, compares (the node's own comparison picked by its
    /// flags where `modes` names several, the NaN rule where `modes` has one) and selects a
    /// child. Node and feature numbers are clamped as unsigned (`minui`, one op on the chain:
    /// a negative one reads the last entry).
    fn step(&self, w: &mut Body, at: &str, row: &str) -> String {
        let Walk { x, x_ty, records, records_ty, modes, .. } = self;
        let elem = &x_ty.elem;
        let node = self.node(w, at);
        let record = |w: &mut Body, c: usize| {
            w.emit(format_args!("tensor.extract {records}[{node}, {}] : {records_ty}", self.columns[c]))
        };
        let head = record(w, 0);
        let f = w.emit(format_args!("arith.andi {head}, {} : i64", self.low_half));
        let f = w.emit(format_args!("arith.minui {f}, {} : i64", self.last_feature));
        let column = w.emit(format_args!("arith.index_cast {f} : i64 to index"));
        let value = w.emit(format_args!("tensor.extract {x}[{row}, {column}] : {x_ty}"));
        let bits = record(w, 1);
        let bound = if elem.name == "f64" {
            w.emit(format_args!("arith.bitcast {bits} : i64 to f64"))
        } else {
            let low = w.emit(format_args!("arith.trunci {bits} : i64 to i32"));
            w.emit(format_args!("arith.bitcast {low} : i32 to f32"))
        };
        let comparisons: Vec<(i64, &str)> = [(0, "ole"), (1, "olt"), (2, "oge"), (3, "ogt"), (4, "oeq"), (5, "une")]
            .into_iter()
            .filter(|(code, _)| modes & (1 << code) != 0)
            .collect();
        let needs_flags = comparisons.len() > 1 || modes & 0x100 != 0;
        let flags = needs_flags.then(|| w.emit(format_args!("arith.shrui {head}, {} : i64", self.c32)));
        let mut cond = String::new();
        for (i, (code, predicate)) in comparisons.iter().enumerate() {
            let c = w.emit(format_args!("arith.cmpf {predicate}, {value}, {bound} : {elem}"));
            cond = match (i, &flags) {
                (0, _) | (_, None) => c,
                (_, Some(flags)) => {
                    let seven = w.emit("arith.constant 7 : i64");
                    let mode = w.emit(format_args!("arith.andi {flags}, {seven} : i64"));
                    let wanted = w.emit(format_args!("arith.constant {code} : i64"));
                    let this = w.emit(format_args!("arith.cmpi eq, {mode}, {wanted} : i64"));
                    w.emit(format_args!("arith.select {this}, {c}, {cond} : i1"))
                }
            };
        }
        if let (true, Some(flags)) = (modes & 0x100 != 0, &flags) {
            let nan = w.emit(format_args!("arith.cmpf uno, {value}, {value} : {elem}"));
            let eight = w.emit("arith.constant 8 : i64");
            let bit = w.emit(format_args!("arith.andi {flags}, {eight} : i64"));
            let zero = w.emit("arith.constant 0 : i64");
            let tracks = w.emit(format_args!("arith.cmpi ne, {bit}, {zero} : i64"));
            let both = w.emit(format_args!("arith.andi {nan}, {tracks} : i1"));
            cond = w.emit(format_args!("arith.ori {cond}, {both} : i1"));
        }
        let (yes, no) = (record(w, 2), record(w, 3));
        w.emit(format_args!("arith.select {cond}, {yes}, {no} : i64"))
    }
}

/// How a tree walk with leaves (`tree_walk`'s fourth argument) combines the trees' leaf
/// values, and the value it starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    Sum,
    Min,
    Max,
}

impl Aggregate {
    /// `tree_walk`'s `aggregate` attribute (0 sum, 1 minimum, 2 maximum).
    pub fn of(code: i64) -> Result<Aggregate, Error> {
        match code {
            0 => Ok(Aggregate::Sum),
            1 => Ok(Aggregate::Min),
            2 => Ok(Aggregate::Max),
            other => Err(format!("tree_walk: unknown aggregate {other}").into()),
        }
    }

    fn start(self, elem: &Elem) -> String {
        match self {
            Aggregate::Sum => elem.literal(0.0),
            Aggregate::Min => elem.highest(),
            Aggregate::Max => elem.lowest(),
        }
    }

    fn combine(self, b: &mut Body, acc: &str, value: &str, elem: &Elem) -> String {
        let op = match self {
            Aggregate::Sum => "arith.addf",
            Aggregate::Min => "arith.minimumf",
            Aggregate::Max => "arith.maximumf",
        };
        b.emit(format_args!("{op} {acc}, {value} : {elem}"))
    }
}

/// `tree_walk` (arguments x, nodes, roots, and leaves with `aggregate`) for a CPU. With
/// leaves of at most [`SCALAR_LEAF_COLUMNS`] columns and several rows, [`tree_walk_rows`]
/// (rows in the lanes). Otherwise for each
/// row, the trees in blocks of [`INTERLEAVED_WALKS`], each block one `scf.for` of `depth`
/// steps ([`Walk::step`]) carrying one node per tree (the last block's extra trees repeat the
/// last tree); a walk that reaches a leaf stays there (a leaf names itself). Without leaves
/// each walk's node is written to its tree's column; with them each tree's leaf row is
/// combined into the row's result, tree after tree in order (the extra trees masked off), in
/// one scalar per column carried across the blocks where the leaves have at most
/// [`SCALAR_LEAF_COLUMNS`] columns (in registers), else in the row's slice. With `parallel` (a
/// host compiled for several threads) and at least [`PARALLEL_STEPS`] steps the rows are an
/// `scf.forall`, else an `scf.for`; each row is a slice of the result written in place. For a
/// GPU, [`tree_walk_per_element`].
pub fn tree_walk(
    k: &mut Kernel,
    depth: i64,
    modes: i64,
    aggregate: Option<Aggregate>,
    out: &TensorTy,
    parallel: bool,
) -> String {
    let (roots, roots_ty) = (k.arg(2), k.arg_type(2).clone());
    let (rows, width) = (out.shape[0], out.shape[1]);
    let parallel = parallel && rows * roots_ty.shape[0] * depth >= PARALLEL_STEPS;
    if let Some(a) = aggregate.filter(|_| width <= SCALAR_LEAF_COLUMNS && rows > 1) {
        return tree_walk_rows(k, (depth, modes), a, out, parallel);
    }
    let trees = roots_ty.shape[0];
    let lanes = INTERLEAVED_WALKS.min(trees.max(1));
    let walk = Walk::new(k, modes);
    let init = match aggregate {
        Some(a) => k.filled(&a.start(&out.elem), out),
        None => k.empty(out),
    };
    let (c0, c1) = (walk.columns[0].clone(), walk.columns[1].clone());
    let (c_rows, c_trees, c_lanes, c_depth) = (
        k.emit(format_args!("arith.constant {rows} : index")),
        k.emit(format_args!("arith.constant {trees} : index")),
        k.emit(format_args!("arith.constant {lanes} : index")),
        k.emit(format_args!("arith.constant {} : index", depth.max(0))),
    );
    let last_tree = k.emit(format_args!("arith.constant {} : index", (trees - 1).max(0)));
    let lane_offsets: Vec<String> = (0..lanes).map(|j| k.emit(format_args!("arith.constant {j} : index"))).collect();
    let mut w = Body::new("%w", "          ");
    let nexts: Vec<String> = (0..lanes).map(|j| walk.step(&mut w, &format!("%walk_p{j}"), "%walk_n")).collect();
    let row_ty = TensorTy::new(vec![1, width], out.elem.clone());
    let elem = out.elem.to_string();
    let i64s = vec!["i64"; lanes as usize].join(", ");
    // What the blocks carry: the row's slice, or one scalar per column.
    let scalars = aggregate.is_some() && width <= SCALAR_LEAF_COLUMNS;
    let column_indices: Vec<String> = if scalars {
        (0..width).map(|c| k.emit(format_args!("arith.constant {c} : index"))).collect()
    } else {
        Vec::new()
    };
    let mut body = String::new();
    let _ = writeln!(
        body,
        "      %walk_row = tensor.extract_slice %walk_acc[%walk_n, 0] [1, {width}] [1, 1] : {out} to {row_ty}"
    );
    let (carried, carried_ty): (Vec<String>, String) = if scalars {
        for (c, index) in column_indices.iter().enumerate() {
            let _ = writeln!(body, "      %walk_x{c} = tensor.extract %walk_row[{c0}, {index}] : {row_ty}");
        }
        (
            (0..width).map(|c| format!("%walk_r{c} = %walk_x{c}")).collect(),
            vec![elem.as_str(); width as usize].join(", "),
        )
    } else {
        (vec!["%walk_r = %walk_row".into()], row_ty.to_string())
    };
    let _ = writeln!(
        body,
        "      %walk_done:{} = scf.for %walk_tb = {c0} to {c_trees} step {c_lanes} iter_args({}) -> ({carried_ty}) {{",
        carried.len(),
        carried.join(", ")
    );
    let mut starts = Vec::new();
    for (j, offset) in lane_offsets.iter().enumerate() {
        let _ = writeln!(body, "        %walk_u{j} = arith.addi %walk_tb, {offset} : index");
        let _ = writeln!(body, "        %walk_t{j} = arith.minui %walk_u{j}, {last_tree} : index");
        let _ = writeln!(body, "        %walk_root{j} = tensor.extract {roots}[%walk_t{j}] : {roots_ty}");
        starts.push(format!("%walk_p{j} = %walk_root{j}"));
    }
    let _ = writeln!(
        body,
        "        %walk_end:{lanes} = scf.for %walk_s = {c0} to {c_depth} step {c1} iter_args({}) -> ({i64s}) {{",
        starts.join(", ")
    );
    body += w.text();
    let _ = writeln!(body, "          scf.yield {} : {i64s}", nexts.join(", "));
    let _ = writeln!(body, "        }}");
    let yielded = match aggregate {
        None => {
            let mut row = "%walk_r".to_string();
            for j in 0..lanes {
                let _ = writeln!(
                    body,
                    "        %walk_i{j} = tensor.insert %walk_end#{j} into {row}[{c0}, %walk_t{j}] : {row_ty}"
                );
                row = format!("%walk_i{j}");
            }
            row
        }
        Some(a) => {
            let mut b = Body::new("%walk_a", "        ");
            let leaves = (k.arg(3), k.arg_type(3).clone());
            let blocks = (lanes, c_trees.as_str());
            let yielded = if scalars {
                let mut accs: Vec<String> = (0..width).map(|c| format!("%walk_r{c}")).collect();
                aggregate_leaves(&mut b, &walk, blocks, |b, leaf, valid| {
                    for (acc, c) in accs.iter_mut().zip(&column_indices) {
                        let value = b.emit(format_args!("tensor.extract {}[{leaf}, {c}] : {}", leaves.0, leaves.1));
                        let new = a.combine(b, acc, &value, &out.elem);
                        *acc = b.emit(format_args!("arith.select {valid}, {new}, {acc} : {elem}"));
                    }
                });
                accs.join(", ")
            } else {
                let mut row = "%walk_r".to_string();
                let c_width = k.emit(format_args!("arith.constant {width} : index"));
                aggregate_leaves(&mut b, &walk, blocks, |b, leaf, valid| {
                    row = leaf_row_into(b, (&leaves, leaf, valid), a, &row, &row_ty, [&c0, &c1, &c_width]);
                });
                row
            };
            body += b.text();
            yielded
        }
    };
    let _ = writeln!(body, "        scf.yield {yielded} : {carried_ty}");
    let _ = writeln!(body, "      }}");
    let mut done = "%walk_done#0".to_string();
    for (c, index) in column_indices.iter().enumerate() {
        let into = if c == 0 { "%walk_row".to_string() } else { format!("%walk_o{}", c - 1) };
        let _ = writeln!(body, "      %walk_o{c} = tensor.insert %walk_done#{c} into {into}[{c0}, {index}] : {row_ty}");
        done = format!("%walk_o{c}");
    }
    let text = if parallel {
        format!(
            "    %walk = scf.forall (%walk_n) in ({rows}) shared_outs(%walk_acc = {init}) -> ({out}) {{\n{body}      \
             scf.forall.in_parallel {{\n        tensor.parallel_insert_slice {done} into %walk_acc[%walk_n, 0] [1, \
             {width}] [1, 1] : {row_ty} into {out}\n      }}\n    }}\n"
        )
    } else {
        format!(
            "    %walk = scf.for %walk_n = {c0} to {c_rows} step {c1} iter_args(%walk_acc = {init}) -> ({out}) {{\n{body}      \
             %walk_next = tensor.insert_slice {done} into %walk_acc[%walk_n, 0] [1, {width}] [1, 1] : {row_ty} into \
             {out}\n      scf.yield %walk_next : {out}\n    }}\n"
        )
    };
    k.push_lines(&text);
    "%walk".to_string()
}

/// The fewest steps (rows x trees x depth) a walk splits across threads: a split of fewer
/// costs more in the fork and join than it saves (the isolation forest's one-tree walks of 64
/// rows, ~500 steps each, took 0.052 ms on two threads and 0.031 on one).
const PARALLEL_STEPS: i64 = 8192;

/// Rows walked together by [`tree_walk_rows`]: on `tabular_gbm` (250 trees of depth 6, 64
/// rows) one thread took 0.205 / 0.192 / 0.140 / 0.120 / 0.108 / 0.110 / 0.142 ms with 4 / 8 /
/// 12 / 16 / 24 / 32 / 64 rows a block (0.209 walking each row's trees in blocks of eight);
/// sixteen leaves four blocks of 64 rows to share between threads.
const ROW_LANES: i64 = 16;

/// `tree_walk` with leaves of at most [`SCALAR_LEAF_COLUMNS`] columns, rows in the lanes:
/// the rows in blocks of [`ROW_LANES`] (the last block shorter), each block one
/// `scf.for` over the trees, each tree one `scf.for` of `depth` steps carrying one node per
/// row of the block; each row's leaf values combined into scalars carried across the trees,
/// tree after tree in order (the sums of the tree-major walk: bit-identical), then written as
/// the block's rows. The rows of a block walk the same tree at once, so its nodes near the root
/// are read from L1 by all but the first (a forest is hundreds of KB: walking every tree for
/// one row before the next read each node from L2). With `parallel` the full blocks are an
/// `scf.forall`.
fn tree_walk_rows(k: &mut Kernel, (depth, modes): (i64, i64), a: Aggregate, out: &TensorTy, parallel: bool) -> String {
    let (roots, roots_ty) = (k.arg(2), k.arg_type(2).clone());
    let (leaves, leaves_ty) = (k.arg(3), k.arg_type(3).clone());
    let (rows, width) = (out.shape[0], out.shape[1]);
    let trees = roots_ty.shape[0];
    let walk = Walk::new(k, modes);
    let (c0, c1) = (walk.columns[0].clone(), walk.columns[1].clone());
    let c_trees = k.emit(format_args!("arith.constant {trees} : index"));
    let c_depth = k.emit(format_args!("arith.constant {} : index", depth.max(0)));
    let lanes = ROW_LANES.min(rows);
    let c_lanes = k.emit(format_args!("arith.constant {lanes} : index"));
    let indices: Vec<String> =
        (0..lanes.max(width)).map(|i| k.emit(format_args!("arith.constant {i} : index"))).collect();
    let elem = out.elem.to_string();
    let start = k.emit(format_args!("arith.constant {} : {elem}", a.start(&out.elem)));
    let (full, tail) = (rows / lanes, rows % lanes);
    // One block of `n` rows from row `first` (an index value): its code and its [n, width]
    // rows' value.
    let block = |tag: &str, first: &str, n: i64| -> (String, String, TensorTy) {
        let mut text = String::new();
        let rows_of: Vec<String> = (0..n as usize)
            .map(|j| {
                let _ = writeln!(text, "      %wr{tag}_row{j} = arith.addi {first}, {} : index", indices[j]);
                format!("%wr{tag}_row{j}")
            })
            .collect();
        let (walks, combines) = if tag == "m" { ("%wrm_w", "%wrm_c") } else { ("%wrt_w", "%wrt_c") };
        let mut w = Body::new(walks, "          ");
        let nexts: Vec<String> =
            rows_of.iter().enumerate().map(|(j, row)| walk.step(&mut w, &format!("%wr{tag}_p{j}"), row)).collect();
        let i64s = vec!["i64"; n as usize].join(", ");
        let count = (n * width) as usize;
        let elems = vec![elem.as_str(); count].join(", ");
        let accs: Vec<String> = (0..count).map(|i| format!("%wr{tag}_a{i}")).collect();
        let mut b = Body::new(combines, "        ");
        let mut combined = Vec::with_capacity(count);
        for j in 0..n as usize {
            let leaf = walk.node(&mut b, &format!("%wr{tag}_end#{j}"));
            for c in 0..width as usize {
                let value = b.emit(format_args!("tensor.extract {leaves}[{leaf}, {}] : {leaves_ty}", indices[c]));
                combined.push(a.combine(&mut b, &accs[j * width as usize + c], &value, &out.elem));
            }
        }
        let _ = writeln!(
            text,
            "      %wr{tag}_done:{count} = scf.for %wr{tag}_t = {c0} to {c_trees} step {c1} iter_args({}) -> ({elems}) {{",
            accs.iter().map(|acc| format!("{acc} = {start}")).collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(text, "        %wr{tag}_root = tensor.extract {roots}[%wr{tag}_t] : {roots_ty}");
        let _ = writeln!(
            text,
            "        %wr{tag}_end:{n} = scf.for %wr{tag}_s = {c0} to {c_depth} step {c1} iter_args({}) -> ({i64s}) {{",
            (0..n).map(|j| format!("%wr{tag}_p{j} = %wr{tag}_root")).collect::<Vec<_>>().join(", ")
        );
        text += w.text();
        let _ = writeln!(text, "          scf.yield {} : {i64s}", nexts.join(", "));
        let _ = writeln!(text, "        }}");
        text += b.text();
        let _ = writeln!(text, "        scf.yield {} : {elems}", combined.join(", "));
        let _ = writeln!(text, "      }}");
        let tile_ty = TensorTy::new(vec![n, width], out.elem.clone());
        let _ = writeln!(text, "      %wr{tag}_tile = tensor.empty() : {tile_ty}");
        let mut tile = format!("%wr{tag}_tile");
        for i in 0..count {
            let (j, c) = (i / width as usize, i % width as usize);
            let next = format!("%wr{tag}_tile{i}");
            let _ = writeln!(
                text,
                "      {next} = tensor.insert %wr{tag}_done#{i} into {tile}[{}, {}] : {tile_ty}",
                indices[j], indices[c]
            );
            tile = next;
        }
        (text, tile, tile_ty)
    };
    let init = k.empty(out);
    let (body, tile, tile_ty) = block("m", "%wr_first", lanes);
    let text = if parallel {
        format!(
            "    %wr = scf.forall (%wr_b) in ({full}) shared_outs(%wr_acc = {init}) -> ({out}) {{\n      \
             %wr_first = arith.muli %wr_b, {c_lanes} : index\n{body}      scf.forall.in_parallel {{\n        \
             tensor.parallel_insert_slice {tile} into %wr_acc[%wr_first, 0] [{lanes}, {width}] [1, 1] : {tile_ty} into \
             {out}\n      }}\n    }}\n"
        )
    } else {
        let c_rows = k.emit(format_args!("arith.constant {} : index", full * lanes));
        format!(
            "    %wr = scf.for %wr_first = {c0} to {c_rows} step {c_lanes} iter_args(%wr_acc = {init}) -> ({out}) {{\n{body}      \
             %wr_next = tensor.insert_slice {tile} into %wr_acc[%wr_first, 0] [{lanes}, {width}] [1, 1] : {tile_ty} into \
             {out}\n      scf.yield %wr_next : {out}\n    }}\n"
        )
    };
    k.push_lines(&text);
    if tail == 0 {
        return "%wr".to_string();
    }
    let first = k.emit(format_args!("arith.constant {} : index", full * lanes));
    let (body, tile, tile_ty) = block("t", &first, tail);
    let text = format!(
        "{body}    %wr_all = tensor.insert_slice {tile} into %wr[{}, 0] [{tail}, {width}] [1, 1] : {tile_ty} into {out}\n",
        full * lanes
    );
    k.push_lines(&text);
    "%wr_all".to_string()
}

/// Leaves with at most this many columns are aggregated in scalars (registers), wider ones
/// in the row's slice of the result, their columns in an `scf.for`.
const SCALAR_LEAF_COLUMNS: i64 = 4;

/// Inside a block of walks (lane `j`'s leaf `%walk_end#j`, its tree `%walk_u{j}`): for each
/// lane in order, `combine` with `b`, the lane's leaf (an index into `tree_walk`'s fourth
/// argument) and whether its tree is one of the `trees` (lanes past the last tree are left
/// out).
fn aggregate_leaves(
    b: &mut Body,
    walk: &Walk,
    (lanes, trees): (i64, &str),
    mut combine: impl FnMut(&mut Body, &str, &str),
) {
    for j in 0..lanes {
        let valid = b.emit(format_args!("arith.cmpi ult, %walk_u{j}, {trees} : index"));
        let leaf = walk.node(b, &format!("%walk_end#{j}"));
        combine(b, &leaf, &valid);
    }
}

/// One leaf's row of `leaves` combined by `a` into the result row `row` (`[1, width]` of type
/// `row_ty`) where `valid`, in an `scf.for` over the columns (the index constants 0, 1 and
/// `width`, defined at the kernel's top): the row after.
fn leaf_row_into(
    b: &mut Body,
    ((leaves, leaves_ty), leaf, valid): (&(String, TensorTy), &str, &str),
    a: Aggregate,
    row: &str,
    row_ty: &TensorTy,
    [c0, one, width]: [&str; 3],
) -> String {
    let elem = &row_ty.elem;
    let mut inner = Body::new("%walk_c", "          ");
    let value = inner.emit(format_args!("tensor.extract {leaves}[{leaf}, %walk_ci] : {leaves_ty}"));
    let old = inner.emit(format_args!("tensor.extract %walk_cr[{c0}, %walk_ci] : {row_ty}"));
    let new = a.combine(&mut inner, &old, &value, elem);
    let kept = inner.emit(format_args!("arith.select {valid}, {new}, {old} : {elem}"));
    let updated = inner.emit(format_args!("tensor.insert {kept} into %walk_cr[{c0}, %walk_ci] : {row_ty}"));
    b.emit(format_args!(
        "scf.for %walk_ci = {c0} to {width} step {one} iter_args(%walk_cr = {row}) -> ({row_ty}) {{\n{}          \
         scf.yield {updated} : {row_ty}\n        }}",
        inner.text()
    ))
}

/// `tree_walk` for a GPU: one generic over [rows, trees], each element one walk of `depth`
/// steps ([`Walk::step`] in an `scf.for`): one GPU thread per walk. With leaves, one generic
/// over [rows, columns, trees], the trees a reduction: each (row, column) one thread walking
/// every tree in order and combining its leaf's value.
pub fn tree_walk_per_element(
    k: &mut Kernel,
    depth: i64,
    modes: i64,
    aggregate: Option<Aggregate>,
    out: &TensorTy,
) -> String {
    let (roots, roots_ty) = (k.arg(2), k.arg_type(2).clone());
    let walk = Walk::new(k, modes);
    let (c0, c1) = (walk.columns[0].clone(), walk.columns[1].clone());
    let steps = k.emit(format_args!("arith.constant {} : index", depth.max(0)));
    let walked = |b: &mut Body, root: &str| {
        let row = b.index(0);
        let mut w = Body::new("%w", "        ");
        let next = walk.step(&mut w, "%walk_at", &row);
        b.emit(format_args!(
            "scf.for %walk_step = {c0} to {steps} step {c1} iter_args(%walk_at = {root}) -> (i64) {{\n{}        \
             scf.yield {next} : i64\n      }}",
            w.text()
        ))
    };
    let Some(a) = aggregate else {
        let init = k.empty(out);
        return k.generic(
            &[(&roots, &roots_ty, Map::dims([1]))],
            (&init, out, Map::identity(2)),
            &[Iter::Parallel; 2],
            |b, args| walked(b, &args[0]),
        );
    };
    let init = k.filled(&a.start(&out.elem), out);
    let (leaves, leaves_ty) = (k.arg(3), k.arg_type(3).clone());
    k.generic(
        &[(&roots, &roots_ty, Map::dims([2]))],
        (&init, out, Map::dims([0, 1])),
        &[Iter::Parallel, Iter::Parallel, Iter::Reduction],
        |b, args| {
            let end = walked(b, &args[0]);
            let leaf = walk.node(b, &end);
            let column = b.index(1);
            let value = b.emit(format_args!("tensor.extract {leaves}[{leaf}, {column}] : {leaves_ty}"));
            a.combine(b, &args[1], &value, &out.elem)
        },
    )
}
