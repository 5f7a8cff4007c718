//! `strata-vectorize-winograd`: the Winograd F(2x2, 3x3) convolutions `strata-winograd` marked
//! (`strata.winograd`), written as vector kernels after planning (host).
//!
//! The kernel works band by band (`band` rows of 2 x 2 output tiles), each thread in its own
//! slot of the planned scratch (`scf.forall` over the slots, each a contiguous run of bands):
//! 1. **Input transform**: per channel and tile row, vectors of 16 tiles: the four input rows
//!    of the tiles (unit-stride loads of 32 columns, masked past the row, split into even and
//!    odd columns by shuffles) give `V = B^T d B` with additions only, stored as `16 x C x
//!    lanes` (tiles of the band contiguous; lanes past the band's tiles are zero or stale,
//!    never read back into an output).
//! 2. **Products**, per block of 8 filters: for each of the 16 positions, `M = U . V` over the
//!    channels in register blocks of 8 filters by up to 3 vectors of tiles (24 accumulators;
//!    the 8 filters' `U` values of a channel are contiguous, broadcast from memory).
//! 3. **Output transform** of those 8 filters: `Y = A^T M A` per vector of tiles, the two
//!    output columns of each tile interleaved by shuffles, added to the output (the
//!    convolution's initial value, a bias) with loads and stores masked past the row.
//!
//! The zero fill of the scratch that the marked generic reads is absorbed (the kernel writes
//! the scratch before it reads it). Results differ from the direct convolution's by rounding
//! only (the transforms' sums; relative error ~1e-6 on ResNet-18's activations).

use crate::text_kernels::{replace_kernels_with, ROLLED};
use crate::winograd::{Shape, LANES};
use melior::ir::operation::OperationRef;
use std::collections::BTreeSet;
use strata_ir::{attrs, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-winograd",
    summary: "Write the Winograd F(2x2, 3x3) convolutions strata-winograd marked as vector kernels (host, on buffers)",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "convolutions", help: "Winograd convolutions written" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeWinograd)
}

struct VectorizeWinograd;

/// Vectors of tiles in a register block of the products (with 8 filters: 24 accumulators).
const BLOCK_VECTORS: i64 = 3;

impl Pass for VectorizeWinograd {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        replace_kernels_with(
            module,
            cx,
            &["linalg.generic"],
            "Winograd convolution kernel",
            "convolutions",
            |op, absorbed| {
                let [band, slots] = attrs::WINOGRAD.get(op.get())?[..] else { return None };
                if op.operand_count() != 5 {
                    return None;
                }
                let (x, u, s, y) = (op.operand(0), op.operand(2), op.operand(3), op.operand(4));
                let types: Vec<String> = [x, u, s, y].iter().map(|v| v.r#type().to_string()).collect();
                if types.iter().any(|t| !t.starts_with("memref<")) {
                    return None;
                }
                let (xs, ys) = (static_shape(x.r#type()).ok()?, static_shape(y.r#type()).ok()?);
                let shape = Shape { n: xs[0], c: xs[1], f: ys[1], hp: xs[2], wp: xs[3], band, slots };
                if static_shape(s.r#type()).ok()? != [shape.slot_floats() * slots] {
                    return None;
                }
                // The zero fill of the scratch: the kernel writes the scratch before reading it.
                let fills: Vec<Op> = s.users().into_iter().filter(|user| user.is("linalg.fill")).collect();
                if let [fill] = fills[..] {
                    if s.users().len() == 2 && fill.operand(1) == s {
                        absorbed.push(fill);
                    }
                }
                Some((kernel(&shape, &types), vec![x, u, s, y]))
            },
        )
    }
}

/// Text of the kernel body, with the index constants it names collected.
struct Text {
    s: String,
    constants: BTreeSet<i64>,
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
    let mut t = Text { s: String::new(), constants: BTreeSet::new(), id: 0 };
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
    let per = (shape.bands() + shape.slots - 1) / shape.slots;
    if shape.slots > 1 {
        t.line(&indent, &format!("scf.forall (%slot) in ({}) {{", shape.slots));
        indent += "  ";
    } else {
        t.line(&indent, &format!("%slot = arith.addi {c0}, {c0} : index"));
    }
    let i = indent.clone();
    t.affine(&i, "sbase", "%slot", shape.slot_floats(), 0);
    t.affine(&i, "mbase", "%slot", shape.slot_floats(), shape.tiles_floats());
    // Lanes past a whole band's tiles: zero, once (bands write the tiles before them).
    let lanes = shape.lanes();
    if lanes > shape.band * shape.tile_columns() {
        let (rows, last) = (t.c(16 * shape.c), t.c(lanes - LANES));
        t.line(&i, &format!("scf.for %zr = {c0} to {rows} step {c1} {{"));
        let cl = t.c(lanes);
        t.line(&i, &format!("  %zo = arith.muli %zr, {cl} : index"));
        t.line(&i, "  %zp = arith.addi %sbase, %zo : index");
        t.line(&i, &format!("  %zq = arith.addi %zp, {last} : index"));
        t.line(&i, &format!("  vector.store %zeros, %s[%zq] : {st}, {VT}"));
        t.line(&i, &format!("}} {ROLLED}"));
    }
    let (cper, cbands) = (t.c(per), t.c(shape.bands()));
    t.line(&i, &format!("%b0 = arith.muli %slot, {cper} : index"));
    t.line(&i, &format!("%b1u = arith.addi %b0, {cper} : index"));
    t.line(&i, &format!("%b1 = arith.minsi %b1u, {cbands} : index"));
    t.line(&i, &format!("scf.for %band = %b0 to %b1 step {c1} {{"));
    let i = format!("{indent}  ");
    // The band's tile rows: `band`, fewer in the last band.
    let (cband, cth) = (t.c(shape.band), t.c(shape.tile_rows()));
    t.line(&i, &format!("%ty0 = arith.muli %band, {cband} : index"));
    t.line(&i, &format!("%left = arith.subi {cth}, %ty0 : index"));
    t.line(&i, &format!("%rows = arith.minsi %left, {cband} : index"));
    input_transform(&mut t, shape, &i, &n, xt, st);
    let cfb = t.c(shape.f / 8);
    t.line(&i, &format!("scf.for %fb = {c0} to {cfb} step {c1} {{"));
    let j = format!("{i}  ");
    products(&mut t, shape, &j, ut, st);
    output_transform(&mut t, shape, &j, &n, st, yt);
    t.line(&i, "}");
    t.line(&indent, &format!("}} {ROLLED}"));
    if shape.slots > 1 {
        indent.truncate(indent.len() - 2);
        t.line(&indent, "}");
    }
    if shape.n > 1 {
        indent.truncate(indent.len() - 2);
        t.line(&indent, "}");
    }
    let mut s = format!("module {{\n  func.func private @winograd(%x: {xt}, %u: {ut}, %s: {st}, %y: {yt}) {{\n");
    for c in &t.constants {
        s += &format!("    %c{c} = arith.constant {c} : index\n");
    }
    s += &format!("    %zeros = arith.constant dense<0.0> : {VT}\n    %pad = arith.constant 0.0 : f32\n");
    s += &t.s;
    s += "    return\n  }\n}\n";
    s
}

/// Even (`odd` false) or odd lanes of the 32 values `lo ++ hi`.
fn deinterleave(odd: bool) -> String {
    let lanes: Vec<String> = (0..16).map(|k| (2 * k + i64::from(odd)).to_string()).collect();
    lanes.join(", ")
}

/// The input transform of the band's tile rows, every channel.
fn input_transform(t: &mut Text, shape: &Shape, i: &str, n: &str, xt: &str, st: &str) {
    let (c0, c1) = (t.c(0), t.c(1));
    let (cc, ctw, c16) = (t.c(shape.c), t.c(shape.tile_columns()), t.c(LANES));
    t.line(i, &format!("scf.for %ci = {c0} to {cc} step {c1} {{"));
    t.line(i, &format!("  scf.for %r = {c0} to %rows step {c1} {{"));
    let j = format!("{i}    ");
    t.line(&j, "%ty = arith.addi %ty0, %r : index");
    let c2 = t.c(2);
    t.line(&j, &format!("%row0 = arith.muli %ty, {c2} : index"));
    t.line(&j, &format!("%tb = arith.muli %r, {ctw} : index"));
    t.line(&j, &format!("scf.for %tx0 = {c0} to {ctw} step {c16} {{"));
    let k = format!("{j}  ");
    t.line(&k, &format!("%col = arith.muli %tx0, {c2} : index"));
    let c18 = t.c(18);
    t.line(&k, &format!("%col16 = arith.addi %col, {c16} : index"));
    t.line(&k, &format!("%col2 = arith.addi %col, {c2} : index"));
    t.line(&k, &format!("%col18 = arith.addi %col, {c18} : index"));
    let (even, odd) = (deinterleave(false), deinterleave(true));
    // Per input row k: its columns B^T-transformed (d0 - d2, d1 + d2, d2 - d1, d1 - d3).
    for row in 0..4 {
        let crow = t.c(row);
        t.line(&k, &format!("%y{row} = arith.addi %row0, {crow} : index"));
        for (name, col) in [("lo", "%col"), ("hi", "%col16"), ("lo2", "%col2"), ("hi2", "%col18")] {
            t.line(&k, &format!("%{name}{row} = vector.transfer_read %x[{n}, %ci, %y{row}, {col}], %pad : {xt}, {VT}"));
        }
        t.line(&k, &format!("%e{row} = vector.shuffle %lo{row}, %hi{row} [{even}] : {VT}, {VT}"));
        t.line(&k, &format!("%o{row} = vector.shuffle %lo{row}, %hi{row} [{odd}] : {VT}, {VT}"));
        t.line(&k, &format!("%ee{row} = vector.shuffle %lo2{row}, %hi2{row} [{even}] : {VT}, {VT}"));
        t.line(&k, &format!("%oo{row} = vector.shuffle %lo2{row}, %hi2{row} [{odd}] : {VT}, {VT}"));
        t.line(&k, &format!("%d{row}_0 = arith.subf %e{row}, %ee{row} : {VT}"));
        t.line(&k, &format!("%d{row}_1 = arith.addf %o{row}, %ee{row} : {VT}"));
        t.line(&k, &format!("%d{row}_2 = arith.subf %ee{row}, %o{row} : {VT}"));
        t.line(&k, &format!("%d{row}_3 = arith.subf %o{row}, %oo{row} : {VT}"));
    }
    t.line(&k, &format!("%valid = arith.subi {ctw}, %tx0 : index"));
    t.line(&k, &format!("%mask = vector.create_mask %valid : {MT}"));
    let clanes = t.c(shape.lanes());
    t.line(&k, "%tt = arith.addi %tb, %tx0 : index");
    for b in 0..4 {
        // The rows B^T-transformed: V[a][b].
        t.line(&k, &format!("%v0_{b} = arith.subf %d0_{b}, %d2_{b} : {VT}"));
        t.line(&k, &format!("%v1_{b} = arith.addf %d1_{b}, %d2_{b} : {VT}"));
        t.line(&k, &format!("%v2_{b} = arith.subf %d2_{b}, %d1_{b} : {VT}"));
        t.line(&k, &format!("%v3_{b} = arith.subf %d1_{b}, %d3_{b} : {VT}"));
    }
    for a in 0..4 {
        for b in 0..4 {
            let xi = a * 4 + b;
            // sbase + (xi * C + ci) * lanes + tt
            let off = t.c(xi * shape.c);
            t.line(&k, &format!("%q{xi}a = arith.addi %ci, {off} : index"));
            t.line(&k, &format!("%q{xi}b = arith.muli %q{xi}a, {clanes} : index"));
            t.line(&k, &format!("%q{xi}c = arith.addi %q{xi}b, %tt : index"));
            t.line(&k, &format!("%q{xi} = arith.addi %q{xi}c, %sbase : index"));
            t.line(&k, &format!("vector.maskedstore %s[%q{xi}], %mask, %v{a}_{b} : {st}, {MT}, {VT}"));
        }
    }
    t.line(&j, "}");
    t.line(i, &format!("  }} {ROLLED}"));
    t.line(i, &format!("}} {ROLLED}"));
}

/// The products of the filter block `%fb` at every position, into the scratch's products.
fn products(t: &mut Text, shape: &Shape, i: &str, ut: &str, st: &str) {
    let (c0, c1, c16) = (t.c(0), t.c(1), t.c(16));
    t.line(i, &format!("scf.for %xi = {c0} to {c16} step {c1} {{"));
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
    let (c0, c1, c8, c2, c16) = (t.c(0), t.c(1), t.c(8), t.c(2), t.c(LANES));
    let (ctw, crow) = (t.c(shape.tile_columns()), t.c(shape.product_row()));
    t.line(i, &format!("scf.for %fl = {c0} to {c8} step {c1} {{"));
    t.line(i, &format!("  %f8 = arith.muli %fb, {c8} : index"));
    t.line(i, "  %f = arith.addi %f8, %fl : index");
    t.line(i, &format!("  %flr = arith.muli %fl, {crow} : index"));
    t.line(i, "  %fbase = arith.addi %mbase, %flr : index");
    t.line(i, &format!("  scf.for %r = {c0} to %rows step {c1} {{"));
    let j = format!("{i}    ");
    t.line(&j, "%ty = arith.addi %ty0, %r : index");
    t.line(&j, &format!("%oy0 = arith.muli %ty, {c2} : index"));
    t.line(&j, &format!("%oy1 = arith.addi %oy0, {c1} : index"));
    t.line(&j, &format!("%tb = arith.muli %r, {ctw} : index"));
    t.line(&j, &format!("scf.for %tx0 = {c0} to {ctw} step {c16} {{"));
    let k = format!("{j}  ");
    t.line(&k, "%tt = arith.addi %tb, %tx0 : index");
    t.line(&k, "%tm = arith.addi %fbase, %tt : index");
    for xi in 0..16 {
        let off = t.c(xi * 8 * shape.product_row());
        t.line(&k, &format!("%mi{xi} = arith.addi %tm, {off} : index"));
        t.line(&k, &format!("%m{xi} = vector.load %s[%mi{xi}] : {st}, {VT}"));
    }
    // Rows of A^T (a): s_b = m0b + m1b + m2b, d_b = m1b - m2b - m3b; then columns (b).
    for b in 0..4 {
        t.line(&k, &format!("%s{b}a = arith.addf %m{b}, %m{} : {VT}", 4 + b));
        t.line(&k, &format!("%s{b} = arith.addf %s{b}a, %m{} : {VT}", 8 + b));
        t.line(&k, &format!("%d{b}a = arith.subf %m{}, %m{} : {VT}", 4 + b, 8 + b));
        t.line(&k, &format!("%d{b} = arith.subf %d{b}a, %m{} : {VT}", 12 + b));
    }
    for (row, v) in [(0, "s"), (1, "d")] {
        t.line(&k, &format!("%y{row}0a = arith.addf %{v}0, %{v}1 : {VT}"));
        t.line(&k, &format!("%y{row}0 = arith.addf %y{row}0a, %{v}2 : {VT}"));
        t.line(&k, &format!("%y{row}1a = arith.subf %{v}1, %{v}2 : {VT}"));
        t.line(&k, &format!("%y{row}1 = arith.subf %y{row}1a, %{v}3 : {VT}"));
    }
    let lo: Vec<String> = (0..8).flat_map(|q| [q.to_string(), (q + 16).to_string()]).collect();
    let hi: Vec<String> = (8..16).flat_map(|q| [q.to_string(), (q + 16).to_string()]).collect();
    t.line(&k, &format!("%ox = arith.muli %tx0, {c2} : index"));
    t.line(&k, &format!("%ox16 = arith.addi %ox, {c16} : index"));
    for row in 0..2 {
        t.line(&k, &format!("%lo{row} = vector.shuffle %y{row}0, %y{row}1 [{}] : {VT}, {VT}", lo.join(", ")));
        t.line(&k, &format!("%hi{row} = vector.shuffle %y{row}0, %y{row}1 [{}] : {VT}, {VT}", hi.join(", ")));
        for (half, col) in [("lo", "%ox"), ("hi", "%ox16")] {
            let at = format!("[{n}, %f, %oy{row}, {col}]");
            t.line(&k, &format!("%old{half}{row} = vector.transfer_read %y{at}, %pad : {yt}, {VT}"));
            t.line(&k, &format!("%new{half}{row} = arith.addf %old{half}{row}, %{half}{row} : {VT}"));
            t.line(&k, &format!("vector.transfer_write %new{half}{row}, %y{at} : {VT}, {yt}"));
        }
    }
    t.line(&j, "}");
    t.line(i, &format!("  }} {ROLLED}"));
    t.line(i, &format!("}} {ROLLED}"));
}
