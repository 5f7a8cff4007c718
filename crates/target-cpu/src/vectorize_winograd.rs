//! `strata-vectorize-winograd`: the Winograd F(m x m, 3x3) convolutions `strata-winograd`
//! marked (`strata.winograd`), written as vector kernels after planning (host).
//!
//! The kernel works band by band (`band` rows of m x m output tiles, or one row's run of
//! `chunk` tile columns where the mark has a fifth field: band `b` is then tile row `b /
//! runs` and its run `b % runs`, the last run of a row shorter), each thread in its own
//! slot of the planned scratch (`scf.forall` over the slots, each an equal contiguous run of
//! bands, the bands left over then split as below); where the memory budget holds one slot,
//! `split`: the bands in turn, the threads splitting each band's channels, then its filter
//! blocks, each thread its own products:
//! 1. **Input transform**: per channel and tile row, vectors of 16 tiles: each of the m + 2
//!    input rows of the tiles is read as 2 m unit-stride vectors (masked past the row) and
//!    split into its columns `m tx + j` by halving shuffles; `V = B^T d B` (additions and
//!    small integer multiples) is stored as `positions x C x lanes` (tiles of the band
//!    contiguous; lanes past the band's tiles are zero or stale, never read back into an
//!    output).
//! 2. **Products**, per block of 8 filters: for each position, `M = U . V` over the channels
//!    in register blocks of 8 filters by up to 3 vectors of tiles (24 accumulators; the 8
//!    filters' `U` values of a channel are contiguous, broadcast from memory).
//! 3. **Output transform** of those 8 filters: `Y = A^T M A` per vector of tiles, the m output
//!    columns of each tile interleaved by shuffles, added to the output (the convolution's
//!    initial value, a bias) with loads and stores masked past the row.
//!
//! The zero fill of the scratch that the marked generic reads, the last op before it to use
//! the scratch, is absorbed (the kernel writes the scratch before it reads it). Results differ
//! from the direct convolution's by rounding only, and do not depend on the thread count.

use crate::text_kernels::{replace_kernels_with, ROLLED};
use crate::winograd::{Shape, LANES};
use melior::ir::operation::OperationRef;
use std::collections::BTreeSet;
use strata_ir::rewrite::collect;
use strata_ir::{attrs, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-winograd",
    summary: "Write the Winograd F(4x4, 3x3) and F(2x2, 3x3) convolutions strata-winograd marked as vector kernels (host, on buffers)",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "convolutions", help: "Winograd convolutions written" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeWinograd)
}

struct VectorizeWinograd;

/// Channels ahead of the products' loop that its transformed filter is prefetched: a quarter
/// of the channels, at least this many (ResNet-18's 128-channel convolutions ran 3% slower at
/// 64 ahead than at 32; 256-channel ones, 4% faster at 64).
const MIN_PREFETCH: i64 = 16;

/// Vectors of tiles in a register block of the products (with 8 filters: 24 accumulators).
const BLOCK_VECTORS: i64 = 3;

impl Pass for VectorizeWinograd {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // The direct filters the kernels replace (they read the transformed ones).
        let mut filters: Vec<strata_ir::Val> = Vec::new();
        replace_kernels_with(
            module,
            cx,
            &["linalg.generic"],
            "Winograd convolution kernel",
            "convolutions",
            |op, absorbed| {
                let fields = attrs::WINOGRAD.get(op.get())?;
                let (m, band, slots, split, chunk) = match fields[..] {
                    [m, band, slots, split] => (m, band, slots, split, None),
                    [m, band, slots, split, chunk] => (m, band, slots, split, Some(chunk)),
                    _ => return None,
                };
                if op.operand_count() != 5 || !(m == 2 || m == 4) {
                    return None;
                }
                let (x, u, s, y) = (op.operand(0), op.operand(2), op.operand(3), op.operand(4));
                let types: Vec<String> = [x, u, s, y].iter().map(|v| v.r#type().to_string()).collect();
                if types.iter().any(|t| !t.starts_with("memref<")) {
                    return None;
                }
                let (xs, ys) = (static_shape(x.r#type()).ok()?, static_shape(y.r#type()).ok()?);
                let whole =
                    Shape { n: xs[0], c: xs[1], f: ys[1], hp: xs[2], wp: xs[3], m, band, slots, split, chunk: 0 };
                let shape = Shape { chunk: chunk.unwrap_or(whole.tile_columns()), ..whole };
                // Runs of whole vectors of tiles, one tile row a band.
                if shape.chunks() > 1 && (shape.band != 1 || shape.chunk % LANES != 0) {
                    return None;
                }
                if static_shape(s.r#type()).ok()? != [shape.scratch_floats()] {
                    return None;
                }
                // The zero fill of the scratch: the kernel writes the scratch before reading it.
                if let Some(fill) = previous_user(op, s).filter(|f| f.is("linalg.fill") && f.operand(1) == s) {
                    absorbed.push(fill);
                }
                filters.push(op.operand(1));
                Some((kernel(&shape, &types), vec![x, u, s, y]))
            },
        )?;
        drop_filters(module, &filters);
        Ok(())
    }
}

/// The last op of `op`'s block before it that uses `value` (itself or through an op nested in
/// it). A fill of the scratch found so is its own zero fill (`strata-init-per-destination`
/// gives each Winograd convolution one, right before it), or the last write of another buffer
/// planned at the same offset (CSE makes such views one value): either way nothing reads its
/// zeros but this convolution, whose kernel writes the scratch before reading it.
fn previous_user(op: Op, value: strata_ir::Val) -> Option<Op> {
    let block = op.block()?;
    let users: Vec<Op> = value.users().into_iter().filter_map(|user| user.ancestor_in(block)).collect();
    let mut last = None;
    for current in block.ops() {
        if current == op {
            return last;
        }
        if users.contains(&current) {
            last = Some(current);
        }
    }
    None
}

/// Erases each of `filters` (a `memref.get_global` of a constant) that nothing reads any more,
/// and its global when no other `memref.get_global` names it: the weights blob would otherwise
/// carry every replaced filter beside its transformed copy (ResNet-18: 8 globals, 9 MB). A
/// filter listed twice is looked at once.
fn drop_filters(module: OperationRef<'_, '_>, filters: &[strata_ir::Val]) {
    let mut names = Vec::new();
    // Each value once: convolutions may share a filter (the bands of one convolution, by
    // `strata-band-chains`), and a value is not to be read after its op is erased.
    let mut unique: Vec<strata_ir::Val> = Vec::new();
    for &filter in filters {
        if !unique.contains(&filter) {
            unique.push(filter);
        }
    }
    for filter in unique {
        let Some(get) = filter.owner().filter(|op| op.is("memref.get_global")) else { continue };
        if get.has_uses() {
            continue;
        }
        names.extend(crate::outline_kernels::global_name(get));
        // Safety: nothing reads it.
        unsafe { get.erase() };
    }
    if names.is_empty() {
        return;
    }
    let read: Vec<String> = collect(&module, |op| op.is("memref.get_global"))
        .into_iter()
        .filter_map(|get| crate::outline_kernels::global_name(Op::of(&get.get())))
        .collect();
    for global in collect(&module, |op| op.is("memref.global")) {
        let global = Op::of(&global.get());
        if global.symbol_name().is_some_and(|name| names.contains(&name) && !read.contains(&name)) {
            // Safety: no `memref.get_global` names it, and only those refer to a global.
            unsafe { global.erase() };
        }
    }
}

/// Text of the kernel body, with the index constants it names collected.
struct Text {
    s: String,
    constants: BTreeSet<i64>,
    /// Splat vector constants (the transforms' coefficients), by their printed value.
    splats: Vec<String>,
    id: usize,
}

impl Text {
    fn c(&mut self, value: i64) -> String {
        self.constants.insert(value);
        format!("%c{value}")
    }

    fn line(&mut self, indent: &str, line: &str) {
        self.s += indent;
        self.s += line;
        self.s += "\n";
    }

    /// The splat vector constant `value`.
    fn splat(&mut self, value: f64) -> String {
        // MLIR's float literal: digits, a point and digits (the transforms' input and output
        // coefficients are integers).
        let text = format!("{value:.1}");
        debug_assert_eq!(value.fract(), 0.0, "an integer coefficient");
        let index = match self.splats.iter().position(|s| *s == text) {
            Some(index) => index,
            None => {
                self.splats.push(text);
                self.splats.len() - 1
            }
        };
        format!("%k{index}")
    }

    /// `sum_j coefficients[j] * inputs[j]` (vectors) as `%{name}`, or the one input itself
    /// when it is the only term with coefficient 1; zero terms left out, at least one not.
    fn combine(&mut self, indent: &str, name: &str, coefficients: &[f64], inputs: &[String]) -> String {
        let mut sum: Option<String> = None;
        let mut step = 0;
        for (&k, input) in coefficients.iter().zip(inputs) {
            if k == 0.0 {
                continue;
            }
            step += 1;
            let out = format!("%{name}_{step}");
            let line = match (&sum, k) {
                (None, 1.0) => {
                    sum = Some(input.clone());
                    continue;
                }
                (None, -1.0) => format!("{out} = arith.negf {input} : {VT}"),
                (None, k) => format!("{out} = arith.mulf {input}, {} : {VT}", self.splat(k)),
                (Some(acc), 1.0) => format!("{out} = arith.addf {acc}, {input} : {VT}"),
                (Some(acc), -1.0) => format!("{out} = arith.subf {acc}, {input} : {VT}"),
                (Some(acc), k) => format!("{out} = vector.fma {input}, {}, {acc} : {VT}", self.splat(k)),
            };
            self.line(indent, &line);
            sum = Some(out);
        }
        sum.expect("a transform row with a nonzero coefficient")
    }

    fn fresh(&mut self) -> usize {
        self.id += 1;
        self.id
    }

    /// `a * b + c` on indices as `%name` (`b`, `c` constants).
    fn affine(&mut self, indent: &str, name: &str, a: &str, b: i64, c: i64) {
        let (cb, cc) = (self.c(b), self.c(c));
        self.line(indent, &format!("%{name}_m = arith.muli {a}, {cb} : index"));
        self.line(indent, &format!("%{name} = arith.addi %{name}_m, {cc} : index"));
    }
}

const VT: &str = "vector<16xf32>";
const MT: &str = "vector<16xi1>";

/// The kernel function for `shape`, operand types `[x, u, s, y]`.
pub fn kernel(shape: &Shape, types: &[String]) -> String {
    let (xt, ut, st, yt) = (&types[0], &types[1], &types[2], &types[3]);
    let mut t = Text { s: String::new(), constants: BTreeSet::new(), splats: Vec::new(), id: 0 };
    let c0 = t.c(0);
    let c1 = t.c(1);
    let mut indent = String::from("    ");
    // Images one after the other (the scratch is reused), bands split across the slots.
    let n = if shape.n > 1 {
        let cn = t.c(shape.n);
        t.line(&indent, &format!("scf.for %n = {c0} to {cn} step {c1} {{"));
        indent += "  ";
        "%n".to_owned()
    } else {
        c0.clone()
    };
    banded(&mut t, shape, &mut indent, &n, types);
    if shape.n > 1 {
        indent.truncate(indent.len() - 2);
        t.line(&indent, "}");
    }
    let mut s = format!("module {{\n  func.func private @winograd(%x: {xt}, %u: {ut}, %s: {st}, %y: {yt}) {{\n");
    for c in &t.constants {
        s += &format!("    %c{c} = arith.constant {c} : index\n");
    }
    s += &format!("    %zeros = arith.constant dense<0.0> : {VT}\n    %pad = arith.constant 0.0 : f32\n");
    for (index, value) in t.splats.iter().enumerate() {
        s += &format!("    %k{index} = arith.constant dense<{value}> : {VT}\n");
    }
    s += &t.s;
    s += "    return\n  }\n}\n";
    s
}

/// Lanes past a whole band's tiles: zero, once (bands write the tiles before them).
fn zero_lanes(t: &mut Text, shape: &Shape, i: &str, st: &str) {
    let lanes = shape.lanes();
    if lanes > shape.band * shape.chunk {
        let (c0, c1) = (t.c(0), t.c(1));
        let (rows, last) = (t.c(shape.positions() * shape.c), t.c(lanes - LANES));
        t.line(i, &format!("scf.for %zr = {c0} to {rows} step {c1} {{"));
        let cl = t.c(lanes);
        t.line(i, &format!("  %zo = arith.muli %zr, {cl} : index"));
        t.line(i, "  %zp = arith.addi %sbase, %zo : index");
        t.line(i, &format!("  %zq = arith.addi %zp, {last} : index"));
        t.line(i, &format!("  vector.store %zeros, %s[%zq] : {st}, {VT}"));
        t.line(i, &format!("}} {ROLLED}"));
    }
}

/// The banded kernel: bands split across the slots, each band transformed, multiplied and
/// transformed back block of 8 filters by block. Each slot takes as many bands as the others;
/// the bands left over (fewer than the slots) run one after another with the threads
/// splitting each, in slot 0's tiles and each thread's own products (`split`'s way): ResNet's
/// 14 tile rows in bands of 2 make 7 bands, which two slots took as 4 and 3.
fn banded(t: &mut Text, shape: &Shape, indent: &mut String, n: &str, types: &[String]) {
    let st = &types[2];
    let c0 = t.c(0);
    let bands = shape.bands();
    // The bands the slots take, as many each (all of them with one slot).
    let slotted = bands / shape.slots * shape.slots;
    let per = slotted / shape.slots;
    if shape.slots > 1 {
        t.line(indent, &format!("scf.forall (%slot) in ({}) {{", shape.slots));
        *indent += "  ";
    } else {
        t.line(indent, &format!("%slot = arith.addi {c0}, {c0} : index"));
    }
    let i = indent.clone();
    t.affine(&i, "sbase", "%slot", shape.slot_floats(), 0);
    if shape.split <= 1 {
        t.affine(&i, "mbase", "%slot", shape.slot_floats(), shape.tiles_floats());
    }
    zero_lanes(t, shape, &i, st);
    let (cper, cbands) = (t.c(per), t.c(slotted));
    t.line(&i, &format!("%b0 = arith.muli %slot, {cper} : index"));
    t.line(&i, &format!("%b1u = arith.addi %b0, {cper} : index"));
    t.line(&i, &format!("%b1 = arith.minsi %b1u, {cbands} : index"));
    let products = shape.positions() * 8 * shape.product_row();
    band_loop(t, shape, &i, n, types, ("%b0", "%b1"), (shape.split, products));
    if shape.slots > 1 {
        indent.truncate(indent.len() - 2);
        t.line(indent, "}");
    }
    if slotted < bands {
        // Slot 0's tiles (its lanes past a band's tiles zeroed above); thread k's products in
        // slot k's.
        t.line(indent, &format!("%sbase = arith.addi {c0}, {c0} : index"));
        let (first, end) = (t.c(slotted), t.c(bands));
        band_loop(t, shape, indent, n, types, (&first, &end), (shape.slots, shape.slot_floats()));
    }
}

/// The loop over bands `[first, end)`: each band's tile rows (`band`, fewer in the last band)
/// transformed, multiplied and transformed back; with `threads` > 1 they split the band's
/// channels, then its filter blocks, thread `k`'s products `k * stride` floats after the
/// tiles (`%sbase`).
fn band_loop(
    t: &mut Text,
    shape: &Shape,
    i: &str,
    n: &str,
    types: &[String],
    (first, end): (&str, &str),
    (threads, stride): (i64, i64),
) {
    let (xt, ut, st, yt) = (&types[0], &types[1], &types[2], &types[3]);
    let c1 = t.c(1);
    t.line(i, &format!("scf.for %band = {first} to {end} step {c1} {{"));
    let j = format!("{i}  ");
    let (cband, cth) = (t.c(shape.band), t.c(shape.tile_rows()));
    if shape.chunks() > 1 {
        // Band `b`: tile row b / chunks, its run b % chunks of `chunk` tile columns (the last
        // shorter), from `%cx0`, `%cw` of them.
        let (cchunks, cchunk, ctw) = (t.c(shape.chunks()), t.c(shape.chunk), t.c(shape.tile_columns()));
        t.line(&j, &format!("%brow = arith.divui %band, {cchunks} : index"));
        t.line(&j, &format!("%brun = arith.remui %band, {cchunks} : index"));
        t.line(&j, &format!("%cx0 = arith.muli %brun, {cchunk} : index"));
        t.line(&j, &format!("%cwl = arith.subi {ctw}, %cx0 : index"));
        t.line(&j, &format!("%cw = arith.minsi %cwl, {cchunk} : index"));
        t.line(&j, &format!("%ty0 = arith.muli %brow, {cband} : index"));
    } else {
        t.line(&j, &format!("%ty0 = arith.muli %band, {cband} : index"));
    }
    t.line(&j, &format!("%left = arith.subi {cth}, %ty0 : index"));
    t.line(&j, &format!("%rows = arith.minsi %left, {cband} : index"));
    let inner = format!("{j}  ");
    let (first, end, forall) = split(t, &j, "ct", shape.c, threads);
    input_transform(t, shape, if forall { &inner } else { &j }, n, xt, st, (&first, &end));
    if forall {
        t.line(&j, "}");
    }
    let (first, end, forall) = split(t, &j, "ft", shape.f / 8, threads);
    let k = if forall { inner.clone() } else { j.clone() };
    if forall {
        let (cstride, ctiles) = (t.c(stride), t.c(shape.tiles_floats()));
        t.line(&k, &format!("%mbase_f = arith.muli %ft, {cstride} : index"));
        t.line(&k, &format!("%mbase_t = arith.addi %mbase_f, {ctiles} : index"));
        t.line(&k, "%mbase = arith.addi %mbase_t, %sbase : index");
    }
    t.line(&k, &format!("scf.for %fb = {first} to {end} step {c1} {{"));
    let l = format!("{k}  ");
    products(t, shape, &l, ut, st);
    output_transform(t, shape, &l, n, st, yt);
    t.line(&k, &format!("}} {ROLLED}"));
    if forall {
        t.line(&j, "}");
    }
    t.line(i, &format!("}} {ROLLED}"));
}

/// A loop over `count` items split into `parts` contiguous runs, each an iteration of an
/// `scf.forall` (one part: a plain range): writes the header, returns the run's (first, end)
/// names and whether a forall was opened.
fn split(t: &mut Text, i: &str, name: &str, count: i64, parts: i64) -> (String, String, bool) {
    if parts <= 1 {
        return (t.c(0), t.c(count), false);
    }
    let per = (count + parts - 1) / parts;
    let (cper, ccount) = (t.c(per), t.c(count));
    t.line(i, &format!("scf.forall (%{name}) in ({parts}) {{"));
    t.line(i, &format!("  %{name}0 = arith.muli %{name}, {cper} : index"));
    t.line(i, &format!("  %{name}1u = arith.addi %{name}0, {cper} : index"));
    t.line(i, &format!("  %{name}1 = arith.minsi %{name}1u, {ccount} : index"));
    (format!("%{name}0"), format!("%{name}1"), true)
}

/// The even (`odd` false) or odd lanes of the 32 values `a ++ b`, as `%{name}`.
fn half(t: &mut Text, indent: &str, name: &str, a: &str, b: &str, odd: bool) -> String {
    let lanes: Vec<String> = (0..16).map(|k| (2 * k + i64::from(odd)).to_string()).collect();
    t.line(indent, &format!("%{name} = vector.shuffle {a}, {b} [{}] : {VT}, {VT}", lanes.join(", ")));
    format!("%{name}")
}

/// The `m` phases of `16 m` consecutive values (vectors `v`): phase `j` holds values `j`,
/// `j + m`, ... (columns `m tx + j` of 16 tiles), by halving into even and odd lanes.
fn deinterleave(t: &mut Text, indent: &str, name: &str, v: &[String]) -> Vec<String> {
    let e = |t: &mut Text, n: &str, a: &str, b: &str| half(t, indent, &format!("{name}{n}e"), a, b, false);
    let o = |t: &mut Text, n: &str, a: &str, b: &str| half(t, indent, &format!("{name}{n}o"), a, b, true);
    if v.len() == 2 {
        return vec![e(t, "", &v[0], &v[1]), o(t, "", &v[0], &v[1])];
    }
    let (e01, o01) = (e(t, "a", &v[0], &v[1]), o(t, "a", &v[0], &v[1]));
    let (e23, o23) = (e(t, "b", &v[2], &v[3]), o(t, "b", &v[2], &v[3]));
    let (p0, p2) = (e(t, "c", &e01, &e23), o(t, "c", &e01, &e23));
    let (p1, p3) = (e(t, "d", &o01, &o23), o(t, "d", &o01, &o23));
    vec![p0, p1, p2, p3]
}

/// The inverse of [`deinterleave`]: `m` vectors of 16 consecutive outputs from the `m`
/// phases `y` (output column `m tx + j` from phase `j`'s tile `tx`).
fn interleave(t: &mut Text, indent: &str, name: &str, y: &[String]) -> Vec<String> {
    let zip = |t: &mut Text, n: &str, a: &str, b: &str, high: bool, pairs: bool| {
        let lanes: Vec<String> = if pairs {
            let base = if high { 8 } else { 0 };
            (0..4)
                .flat_map(|q| [base + 2 * q, base + 2 * q + 1, base + 2 * q + 16, base + 2 * q + 17])
                .map(|l| l.to_string())
                .collect()
        } else {
            let base = if high { 8 } else { 0 };
            (0..8).flat_map(|q| [base + q, base + q + 16]).map(|l| l.to_string()).collect()
        };
        t.line(indent, &format!("%{name}{n} = vector.shuffle {a}, {b} [{}] : {VT}, {VT}", lanes.join(", ")));
        format!("%{name}{n}")
    };
    if y.len() == 2 {
        return vec![zip(t, "lo", &y[0], &y[1], false, false), zip(t, "hi", &y[0], &y[1], true, false)];
    }
    let (alo, ahi) = (zip(t, "alo", &y[0], &y[1], false, false), zip(t, "ahi", &y[0], &y[1], true, false));
    let (blo, bhi) = (zip(t, "blo", &y[2], &y[3], false, false), zip(t, "bhi", &y[2], &y[3], true, false));
    vec![
        zip(t, "q0", &alo, &blo, false, true),
        zip(t, "q1", &alo, &blo, true, true),
        zip(t, "q2", &ahi, &bhi, false, true),
        zip(t, "q3", &ahi, &bhi, true, true),
    ]
}

/// The end of a band's tile columns (the loops over vectors of them run to it) and whether the
/// band is a run of a tile row (`%cw` columns from `%cx0`, set by [`band_loop`]) rather than
/// whole rows.
fn columns(t: &mut Text, shape: &Shape) -> (String, bool) {
    if shape.chunks() > 1 {
        ("%cw".to_owned(), true)
    } else {
        (t.c(shape.tile_columns()), false)
    }
}

/// The tile column of the band's tile `tx` (a name): itself, or past the run's start.
fn column(t: &mut Text, indent: &str, tx: &str, run: bool) -> String {
    if !run {
        return tx.to_owned();
    }
    let name = format!("%cx{}", t.fresh());
    t.line(indent, &format!("{name} = arith.addi %cx0, {tx} : index"));
    name
}

/// The input transform of the band's tile rows, channels `channels` (first, end).
fn input_transform(t: &mut Text, shape: &Shape, i: &str, n: &str, xt: &str, st: &str, channels: (&str, &str)) {
    let (m, alpha) = (shape.m, shape.alpha() as usize);
    let (_, bt, _) = crate::winograd::matrices(m);
    let (c0, c1) = (t.c(0), t.c(1));
    let (ctw, c16, cm) = (t.c(shape.chunk), t.c(LANES), t.c(m));
    let (columns_end, run) = columns(t, shape);
    t.line(i, &format!("scf.for %ci = {} to {} step {c1} {{", channels.0, channels.1));
    t.line(i, &format!("  scf.for %r = {c0} to %rows step {c1} {{"));
    let j = format!("{i}    ");
    t.line(&j, "%ty = arith.addi %ty0, %r : index");
    t.line(&j, &format!("%row0 = arith.muli %ty, {cm} : index"));
    t.line(&j, &format!("%tb = arith.muli %r, {ctw} : index"));
    t.line(&j, &format!("scf.for %tx0 = {c0} to {columns_end} step {c16} {{"));
    let k = format!("{j}  ");
    let tx = column(t, &k, "%tx0", run);
    t.line(&k, &format!("%col = arith.muli {tx}, {cm} : index"));
    // Per input row: its columns m tx + j (j < m + 2) of 16 tiles, B^T-transformed.
    let mut columns: Vec<Vec<String>> = Vec::new();
    for row in 0..alpha {
        let crow = t.c(row as i64);
        t.line(&k, &format!("%y{row} = arith.addi %row0, {crow} : index"));
        let mut phases = Vec::new();
        for base in [0, m] {
            let mut loaded = Vec::new();
            for v in 0..m {
                let off = t.c(base + 16 * v);
                t.line(&k, &format!("%x{row}_{base}_{v}i = arith.addi %col, {off} : index"));
                t.line(
                    &k,
                    &format!("%x{row}_{base}_{v} = vector.transfer_read %x[{n}, %ci, %y{row}, %x{row}_{base}_{v}i], %pad : {xt}, {VT}"),
                );
                loaded.push(format!("%x{row}_{base}_{v}"));
            }
            phases.extend(deinterleave(t, &k, &format!("p{row}_{base}"), &loaded));
        }
        phases.truncate(alpha);
        let transformed: Vec<String> =
            (0..alpha).map(|b| t.combine(&k, &format!("d{row}_{b}"), &bt[b], &phases)).collect();
        columns.push(transformed);
    }
    t.line(&k, &format!("%valid = arith.subi {columns_end}, %tx0 : index"));
    t.line(&k, &format!("%mask = vector.create_mask %valid : {MT}"));
    let clanes = t.c(shape.lanes());
    t.line(&k, "%tt = arith.addi %tb, %tx0 : index");
    for (a, bt_a) in bt.iter().enumerate() {
        for b in 0..alpha {
            // The rows B^T-transformed: V[a][b], stored at sbase + (xi C + ci) lanes + tt.
            let inputs: Vec<String> = columns.iter().map(|row| row[b].clone()).collect();
            let v = t.combine(&k, &format!("v{a}_{b}"), bt_a, &inputs);
            let xi = a * alpha + b;
            let off = t.c(xi as i64 * shape.c);
            t.line(&k, &format!("%q{xi}a = arith.addi %ci, {off} : index"));
            t.line(&k, &format!("%q{xi}b = arith.muli %q{xi}a, {clanes} : index"));
            t.line(&k, &format!("%q{xi}c = arith.addi %q{xi}b, %tt : index"));
            t.line(&k, &format!("%q{xi} = arith.addi %q{xi}c, %sbase : index"));
            t.line(&k, &format!("vector.maskedstore %s[%q{xi}], %mask, {v} : {st}, {MT}, {VT}"));
        }
    }
    t.line(&j, "}");
    t.line(i, &format!("  }} {ROLLED}"));
    t.line(i, &format!("}} {ROLLED}"));
}

/// The products of the filter block `%fb` at every position, into the scratch's products.
fn products(t: &mut Text, shape: &Shape, i: &str, ut: &str, st: &str) {
    let (c0, c1, cp) = (t.c(0), t.c(1), t.c(shape.positions()));
    t.line(i, &format!("scf.for %xi = {c0} to {cp} step {c1} {{"));
    let j = format!("{i}  ");
    let (cvrow, cmrow) = (t.c(shape.c * shape.lanes()), t.c(8 * shape.product_row()));
    t.line(&j, &format!("%vx = arith.muli %xi, {cvrow} : index"));
    t.line(&j, "%vrow = arith.addi %sbase, %vx : index");
    t.line(&j, &format!("%mx = arith.muli %xi, {cmrow} : index"));
    t.line(&j, "%mrow = arith.addi %mbase, %mx : index");
    // Blocks of 3 vectors of tiles, the rest in blocks of 2 (never one of 1 beside others).
    let vectors = shape.lanes() / LANES;
    let mut threes = vectors / BLOCK_VECTORS;
    if vectors % BLOCK_VECTORS == 1 && threes > 0 {
        threes -= 1;
    }
    let rest = vectors - threes * BLOCK_VECTORS;
    if threes > 0 {
        let (end, step) = (t.c(threes * BLOCK_VECTORS * LANES), t.c(BLOCK_VECTORS * LANES));
        t.line(&j, &format!("scf.for %t0 = {c0} to {end} step {step} {{"));
        block(t, shape, &format!("{j}  "), "%t0", BLOCK_VECTORS, ut, st);
        t.line(&j, &format!("}} {ROLLED}"));
    }
    let mut start = threes * BLOCK_VECTORS;
    for width in [2; 2].into_iter().take((rest / 2) as usize).chain((rest % 2 == 1).then_some(1)) {
        let at = t.c(start * LANES);
        block(t, shape, &j, &at, width, ut, st);
        start += width;
    }
    t.line(i, &format!("}} {ROLLED}"));
}

/// One register block: 8 filters by `vectors` vectors of tiles from lane `t0`, summed over
/// the channels.
fn block(t: &mut Text, shape: &Shape, i: &str, t0: &str, vectors: i64, ut: &str, st: &str) {
    let b = t.fresh();
    let (c0, c1, cc, clanes) = (t.c(0), t.c(1), t.c(shape.c), t.c(shape.lanes()));
    let count = 8 * vectors;
    let types = vec![VT; count as usize].join(", ");
    let inits: Vec<String> = (0..count).map(|k| format!("%a{b}_{k} = %zeros")).collect();
    t.line(i, &format!("%vt{b} = arith.addi %vrow, {t0} : index"));
    t.line(
        i,
        &format!(
            "%m{b}:{count} = scf.for %ci = {c0} to {cc} step {c1} iter_args({}) -> ({types}) {{",
            inits.join(", ")
        ),
    );
    let j = format!("{i}  ");
    t.line(&j, &format!("%co{b} = arith.muli %ci, {clanes} : index"));
    t.line(&j, &format!("%cv{b} = arith.addi %vt{b}, %co{b} : index"));
    for v in 0..vectors {
        let off = t.c(v * LANES);
        t.line(&j, &format!("%vi{b}_{v} = arith.addi %cv{b}, {off} : index"));
        t.line(&j, &format!("%vv{b}_{v} = vector.load %s[%vi{b}_{v}] : {st}, {VT}"));
    }
    let mut next = Vec::new();
    // The transformed filter streams from memory when it is larger than the caches: fetch it
    // ahead (within the block's run of channels). In ResNet-18, 0.66 -> 0.61 ms (F(2x2, 3x3),
    // 128 channels, 1 MiB of filter read by every band).
    let (cahead, clast) = (t.c((shape.c / 4).max(MIN_PREFETCH)), t.c(shape.c - 1));
    t.line(&j, &format!("%pa{b} = arith.addi %ci, {cahead} : index"));
    t.line(&j, &format!("%pc{b} = arith.minsi %pa{b}, {clast} : index"));
    t.line(&j, &format!("memref.prefetch %u[%xi, %fb, %pc{b}, {c0}], read, locality<3>, data : {ut}"));
    for fl in 0..8 {
        let cfl = t.c(fl);
        t.line(&j, &format!("%us{b}_{fl} = memref.load %u[%xi, %fb, %ci, {cfl}] : {ut}"));
        t.line(&j, &format!("%ub{b}_{fl} = vector.broadcast %us{b}_{fl} : f32 to {VT}"));
        for v in 0..vectors {
            let k = fl * vectors + v;
            t.line(&j, &format!("%p{b}_{k} = arith.mulf %ub{b}_{fl}, %vv{b}_{v} fastmath<contract> : {VT}"));
            t.line(&j, &format!("%n{b}_{k} = arith.addf %a{b}_{k}, %p{b}_{k} fastmath<contract> : {VT}"));
            next.push(format!("%n{b}_{k}"));
        }
    }
    t.line(&j, &format!("scf.yield {} : {types}", next.join(", ")));
    t.line(i, &format!("}} {ROLLED}"));
    let crow = t.c(shape.product_row());
    for fl in 0..8 {
        let cfl = t.c(fl);
        t.line(i, &format!("%mf{b}_{fl} = arith.muli {cfl}, {crow} : index"));
        t.line(i, &format!("%mr{b}_{fl} = arith.addi %mrow, %mf{b}_{fl} : index"));
        t.line(i, &format!("%ms{b}_{fl} = arith.addi %mr{b}_{fl}, {t0} : index"));
        for v in 0..vectors {
            let (k, off) = (fl * vectors + v, t.c(v * LANES));
            t.line(i, &format!("%mi{b}_{k} = arith.addi %ms{b}_{fl}, {off} : index"));
            t.line(i, &format!("vector.store %m{b}#{k}, %s[%mi{b}_{k}] : {st}, {VT}"));
        }
    }
}

/// The output transform of the filter block `%fb`, added to the output.
fn output_transform(t: &mut Text, shape: &Shape, i: &str, n: &str, st: &str, yt: &str) {
    let (m, alpha) = (shape.m, shape.alpha() as usize);
    let (_, _, at) = crate::winograd::matrices(m);
    let (c0, c1, c8, c16, cm) = (t.c(0), t.c(1), t.c(8), t.c(LANES), t.c(m));
    let (ctw, crow) = (t.c(shape.chunk), t.c(shape.product_row()));
    let (columns_end, run) = columns(t, shape);
    t.line(i, &format!("scf.for %fl = {c0} to {c8} step {c1} {{"));
    t.line(i, &format!("  %f8 = arith.muli %fb, {c8} : index"));
    t.line(i, "  %f = arith.addi %f8, %fl : index");
    t.line(i, &format!("  %flr = arith.muli %fl, {crow} : index"));
    t.line(i, "  %fbase = arith.addi %mbase, %flr : index");
    t.line(i, &format!("  scf.for %r = {c0} to %rows step {c1} {{"));
    let j = format!("{i}    ");
    t.line(&j, "%ty = arith.addi %ty0, %r : index");
    t.line(&j, &format!("%oy = arith.muli %ty, {cm} : index"));
    t.line(&j, &format!("%tb = arith.muli %r, {ctw} : index"));
    t.line(&j, &format!("scf.for %tx0 = {c0} to {columns_end} step {c16} {{"));
    let k = format!("{j}  ");
    t.line(&k, "%tt = arith.addi %tb, %tx0 : index");
    t.line(&k, "%tm = arith.addi %fbase, %tt : index");
    let mut products = Vec::new();
    for xi in 0..shape.positions() {
        let off = t.c(xi * 8 * shape.product_row());
        t.line(&k, &format!("%mi{xi} = arith.addi %tm, {off} : index"));
        t.line(&k, &format!("%m{xi} = vector.load %s[%mi{xi}] : {st}, {VT}"));
        products.push(format!("%m{xi}"));
    }
    // Rows of A^T over a (rows of positions), then over b (columns): Y[i][j].
    let rows: Vec<Vec<String>> = (0..m as usize)
        .map(|r| {
            (0..alpha)
                .map(|b| {
                    let inputs: Vec<String> = (0..alpha).map(|a| products[a * alpha + b].clone()).collect();
                    t.combine(&k, &format!("s{r}_{b}"), &at[r], &inputs)
                })
                .collect()
        })
        .collect();
    let tx = column(t, &k, "%tx0", run);
    t.line(&k, &format!("%ox = arith.muli {tx}, {cm} : index"));
    for (r, row) in rows.iter().enumerate() {
        let y: Vec<String> = (0..m as usize).map(|c| t.combine(&k, &format!("y{r}_{c}"), &at[c], row)).collect();
        let chunks = interleave(t, &k, &format!("w{r}"), &y);
        let cr = t.c(r as i64);
        t.line(&k, &format!("%oy{r} = arith.addi %oy, {cr} : index"));
        for (q, chunk) in chunks.iter().enumerate() {
            let off = t.c(16 * q as i64);
            t.line(&k, &format!("%ox{r}_{q} = arith.addi %ox, {off} : index"));
            let at = format!("[{n}, %f, %oy{r}, %ox{r}_{q}]");
            t.line(&k, &format!("%old{r}_{q} = vector.transfer_read %y{at}, %pad : {yt}, {VT}"));
            t.line(&k, &format!("%new{r}_{q} = arith.addf %old{r}_{q}, {chunk} : {VT}"));
            t.line(&k, &format!("vector.transfer_write %new{r}_{q}, %y{at} : {VT}, {yt}"));
        }
    }
    t.line(&j, "}");
    t.line(i, &format!("  }} {ROLLED}"));
    t.line(i, &format!("}} {ROLLED}"));
}
