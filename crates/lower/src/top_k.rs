//! `sg.top_k`: the positions of the `k` largest (or smallest) elements along an axis, best
//! first, of equal ones the lower position first (ONNX TopK's indices; its values are a
//! gather of them).
//!
//! One pass over each row keeps its best `k` so far in order: a value that does not beat the
//! `k`-th best (once there are `k`) costs a read and a compare; one that does is inserted
//! where a binary search puts it, the worse ones after it moved down one place (insertion
//! into a bounded sorted list). On random data a row of `n` takes about `k (1 + ln(n / k))`
//! insertions. The loops are `scf.for`s on
//! tensors: the row's values in a `k`-long scratch tensor, the positions written into the
//! result, both carried and updated in place by bufferization.
//!
//! On the host, a row at least [`PREFILTER`] times `k` long first computes a bound the `k`-th
//! best cannot be worse than, and the scan skips what is strictly worse (most of a long row):
//! a detector's TopK of 100 over 8400 scores 0.025 -> 0.018 ms (ONNX Runtime 0.017). An f32
//! row along its last axis is then scanned in chunks of [`CHUNK`]: one vector compare against
//! the bound and the `k`-th best decides whether any of the chunk's elements would be taken,
//! and only such chunks are scanned element by element (the same steps, so the same result):
//! the detector's TopK 0.018 -> 0.013 ms, a nearest-neighbour classifier's TopK of 5 over 400
//! distances a row 0.127 -> 0.105 ms for the model.
//!
//! It replaced an expansion into `k` rounds of ArgMax over the values not taken yet (`8k`
//! graph ops, `k` passes over the row): a detector's TopK of 100 over 8400 scores ran 3.2 ms
//! against ONNX Runtime's 0.015.
//!
//! Comparisons are strict (`>`/`<`, ordered for floats), so an equal value never passes an
//! earlier one; a NaN beats nothing and nothing beats it, so it stays where it lands (ONNX
//! leaves NaN's order unspecified).

use crate::indexing::extreme_predicate;

/// Rows at least this many times `k` long first bound the `k`-th best from below: cut into
/// `k` or more blocks of `length / k`, each block's best is an element at least as good as
/// the worst of them, so at least `k` elements are, and an element strictly worse than that
/// bound is in no row's top `k` (the scan skips it, even before the kept list is full). On a
/// detector's 8400 random scores and `k` = 100 the bound leaves about 400 candidates: 232
/// insertions instead of 567 (each about 35 ns). A block's best ignores NaNs; a block of
/// NaNs has none, and the bound is then the worst value (no element skipped). Not for
/// unsigned or boolean elements (their constants' signless forms).
const PREFILTER: i64 = 4;

/// The elements of a row of f32 whose scan is decided for all of them by one vector compare
/// (see [`top_k`]'s chunks): one 512-bit vector (two on AVX2).
const CHUNK: i64 = 16;
use crate::kernel::{Kernel, TensorTy};
use std::fmt::Write;
use strata_ir::Error;

/// The kernel of `sg.top_k` over the kernel's one argument: `out` is the i64 result (the
/// input's shape with `k` along `axis`); with `prefilter` (the host), long rows skip what
/// [`PREFILTER`]'s bound rules out.
pub fn top_k(
    k: &mut Kernel,
    axis: usize,
    (count, largest): (i64, bool),
    prefilter: bool,
    out: &TensorTy,
) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let elem = ty.elem.clone();
    if !(elem.is_float() || elem.is_int()) {
        return Err(elem.unsupported("TopK"));
    }
    let length = ty.shape[axis];
    if !(1..=length).contains(&count) {
        return Err(format!("TopK: k {count} is not in 1..={length}").into());
    }
    let input = k.arg(0);
    let storage = elem.storage();
    let vals_ty = format!("tensor<{count}x{storage}>");
    let predicate = extreme_predicate(&elem, largest, false);
    let (c0, c1) = (k.emit("arith.constant 0 : index"), k.emit("arith.constant 1 : index"));
    let tru = k.emit("arith.constant true");
    let n = k.emit(format_args!("arith.constant {length} : index"));
    let kk = k.emit(format_args!("arith.constant {count} : index"));
    let last = k.emit(format_args!("arith.constant {} : index", count - 1));
    let result = k.empty(out);
    // The scratch starts as the worst value, so the first row's reads of it are defined.
    let start = if largest { elem.lowest() } else { elem.highest() };
    let scratch = k.filled(&start, &TensorTy::new(vec![count], elem.clone()));
    let outer: Vec<usize> = (0..ty.rank()).filter(|&d| d != axis).collect();
    // Coordinates of the input or the result with `at` along the axis.
    let coords = |at: &str| -> String {
        (0..ty.rank())
            .map(|d| if d == axis { at.to_owned() } else { format!("%tk_i{d}") })
            .collect::<Vec<_>>()
            .join(", ")
    };
    // A signless twin of a stored value (a cast for unsigned elements).
    let signless = |text: &mut String, name: &str, value: &str| -> String {
        if elem.unsigned {
            let _ = writeln!(text, "{name} = builtin.unrealized_conversion_cast {value} : {storage} to {elem}");
            name.to_owned()
        } else {
            value.to_owned()
        }
    };
    let carried = format!("{out}, {vals_ty}");
    let mut text = String::new();
    let (mut r, mut v) = (result, scratch);
    for (level, &d) in outer.iter().enumerate() {
        let size = k.emit(format_args!("arith.constant {} : index", ty.shape[d]));
        let _ = writeln!(
            text,
            "%tk_o{level}:2 = scf.for %tk_i{d} = {c0} to {size} step {c1} iter_args(%tk_r{level} = {r}, %tk_v{level} = {v}) -> ({carried}) {{"
        );
        (r, v) = (format!("%tk_r{level}"), format!("%tk_v{level}"));
    }
    // The prefilter's bound (see [`PREFILTER`]): the worst of the row's block bests.
    let bound = (prefilter && !elem.unsigned && !elem.is_bool() && length >= PREFILTER * count).then(|| {
        // `blocks` (at least `k`) blocks of `block` elements; the elements past them are in none.
        let block = length / count;
        let blocks = length / block;
        let (best, worst) = if largest { (elem.lowest(), elem.highest()) } else { (elem.highest(), elem.lowest()) };
        // Each block's best by an op without a compare and select chain: NaN-ignoring for
        // floats, NaN only where every element is.
        let best_of = match (elem.is_float(), largest) {
            (true, true) => "arith.maxnumf",
            (true, false) => "arith.minnumf",
            (false, true) => "arith.maxsi",
            (false, false) => "arith.minsi",
        };
        let row_ty = format!("tensor<{length}x{storage}>");
        let bests_ty = format!("tensor<{blocks}x{storage}>");
        let offsets = coords("0");
        let sizes: Vec<String> = (0..ty.rank()).map(|d| if d == axis { length.to_string() } else { "1".into() }).collect();
        let strides = vec!["1"; ty.rank()].join(", ");
        let _ = writeln!(
            text,
            "%tk_row1 = tensor.extract_slice {input}[{offsets}] [{}] [{strides}] : {ty} to {row_ty}",
            sizes.join(", ")
        );
        // Block `b` is every `blocks`-th element from `b`: the bests are elementwise maxima
        // (or minima) of the row's `block` runs of `blocks` elements, vectorised across the
        // blocks (a reduction along each block waited on its horizontal steps).
        let _ = writeln!(text, "%tk_worst = arith.constant {worst} : {elem}");
        let _ = writeln!(text, "%tk_best = arith.constant {best} : {elem}");
        let _ = writeln!(text, "%tk_be = tensor.empty() : {bests_ty}");
        let _ = writeln!(text, "%tk_bf = linalg.fill ins(%tk_best : {elem}) outs(%tk_be : {bests_ty}) -> {bests_ty}");
        let _ = writeln!(text, "%tk_runs = arith.constant {block} : index");
        let _ = writeln!(text, "%tk_nb = arith.constant {blocks} : index");
        let _ = writeln!(
            text,
            "%tk_bests = scf.for %tk_ri = {c0} to %tk_runs step {c1} iter_args(%tk_bacc = %tk_bf) -> ({bests_ty}) {{"
        );
        let _ = writeln!(text, "%tk_roff = arith.muli %tk_ri, %tk_nb : index");
        let _ = writeln!(
            text,
            "%tk_run = tensor.extract_slice %tk_row1[%tk_roff] [{blocks}] [1] : {row_ty} to {bests_ty}"
        );
        let _ = writeln!(
            text,
            "%tk_bnext = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} ins(%tk_run : {bests_ty}) outs(%tk_bacc : {bests_ty}) {{"
        );
        let _ = writeln!(text, "^bb0(%tk_ba: {elem}, %tk_bo: {elem}):");
        let _ = writeln!(text, "%tk_bx = {best_of} %tk_ba, %tk_bo : {elem}");
        let _ = writeln!(text, "linalg.yield %tk_bx : {elem}\n}} -> {bests_ty}");
        let _ = writeln!(text, "scf.yield %tk_bnext : {bests_ty}\n}}");
        // The worst of the bests; a block of NaNs has no best: no bound (the worst value).
        let _ = writeln!(
            text,
            "%tk_bound:1 = scf.for %tk_b = {c0} to %tk_nb step {c1} iter_args(%tk_tb = %tk_worst) -> ({elem}) {{"
        );
        let _ = writeln!(text, "%tk_bm = tensor.extract %tk_bests[%tk_b] : {bests_ty}");
        let _ = writeln!(text, "%tk_tlose = {predicate} %tk_tb, %tk_bm : {elem}");
        let _ = writeln!(text, "%tk_tb1 = arith.select %tk_tlose, %tk_bm, %tk_tb : {elem}");
        let last = if elem.is_float() {
            let _ = writeln!(text, "%tk_nan = arith.cmpf uno, %tk_bm, %tk_bm : {elem}");
            let _ = writeln!(text, "%tk_tb2 = arith.select %tk_nan, %tk_worst, %tk_tb1 : {elem}");
            "%tk_tb2"
        } else {
            "%tk_tb1"
        };
        let _ = writeln!(text, "scf.yield {last} : {elem}\n}}");
        "%tk_bound#0".to_owned()
    });
    let at_p = coords("%tk_p");
    let at_pos = coords("%tk_pos");
    let at_before = coords("%tk_jm1");
    let at_slot = coords("%tk_bs#0");
    // The scan's step for element `%tk_p`, carrying `%tk_m` (how many are kept), `%tk_v` (their
    // values) and `%tk_r` (their positions): emitted once per loop that scans.
    let before_step = std::mem::take(&mut text);
    let _ = writeln!(text, "%tk_xs = tensor.extract {input}[{at_p}] : {ty}");
    let x = signless(&mut text, "%tk_x", "%tk_xs");
    let _ = writeln!(text, "%tk_full = arith.cmpi eq, %tk_m, {kk} : index");
    let _ = writeln!(text, "%tk_lasts = tensor.extract %tk_v[{last}] : {vals_ty}");
    let worst = signless(&mut text, "%tk_last", "%tk_lasts");
    let _ = writeln!(text, "%tk_beats = {predicate} {x}, {worst} : {elem}");
    let _ = writeln!(text, "%tk_open = arith.xori %tk_full, {tru} : i1");
    let _ = writeln!(text, "%tk_take0 = arith.ori %tk_open, %tk_beats : i1");
    let take = match &bound {
        Some(bound) => {
            let _ = writeln!(text, "%tk_below = {predicate} {bound}, {x} : {elem}");
            let _ = writeln!(text, "%tk_keep = arith.xori %tk_below, {tru} : i1");
            let _ = writeln!(text, "%tk_take = arith.andi %tk_take0, %tk_keep : i1");
            "%tk_take"
        }
        None => "%tk_take0",
    };
    let _ = writeln!(text, "%tk_upd:3 = scf.if {take} -> (index, {vals_ty}, {out}) {{");
    // Where the new value goes: past the filled ones, or over the k-th (`start`), then before
    // every worse one: a binary search of the sorted values for the first it beats (steps of
    // a fixed count, idle once the range is empty), then the ones from there to `start`
    // moved down one place.
    let _ = writeln!(text, "%tk_start = arith.minui %tk_m, {last} : index");
    let steps = k.emit(format_args!("arith.constant {} : index", 64 - (count as u64).leading_zeros()));
    let _ = writeln!(
        text,
        "%tk_bs:2 = scf.for %tk_s = {c0} to {steps} step {c1} iter_args(%tk_lo = {c0}, %tk_hi = %tk_start) -> (index, index) {{"
    );
    let _ = writeln!(text, "%tk_sum = arith.addi %tk_lo, %tk_hi : index");
    let _ = writeln!(text, "%tk_mid = arith.shrui %tk_sum, {c1} : index");
    let _ = writeln!(text, "%tk_mvs = tensor.extract %tk_v[%tk_mid] : {vals_ty}");
    let middle = signless(&mut text, "%tk_mv", "%tk_mvs");
    let _ = writeln!(text, "%tk_wins = {predicate} {x}, {middle} : {elem}");
    let _ = writeln!(text, "%tk_open2 = arith.cmpi ult, %tk_lo, %tk_hi : index");
    let _ = writeln!(text, "%tk_down = arith.andi %tk_open2, %tk_wins : i1");
    let _ = writeln!(text, "%tk_lose = arith.xori %tk_wins, {tru} : i1");
    let _ = writeln!(text, "%tk_up = arith.andi %tk_open2, %tk_lose : i1");
    let _ = writeln!(text, "%tk_mid1 = arith.addi %tk_mid, {c1} : index");
    let _ = writeln!(text, "%tk_hi2 = arith.select %tk_down, %tk_mid, %tk_hi : index");
    let _ = writeln!(text, "%tk_lo2 = arith.select %tk_up, %tk_mid1, %tk_lo : index");
    let _ = writeln!(text, "scf.yield %tk_lo2, %tk_hi2 : index, index");
    let _ = writeln!(text, "}}");
    let _ = writeln!(text, "%tk_moves = arith.subi %tk_start, %tk_bs#0 : index");
    let state = format!("{vals_ty}, {out}");
    let _ = writeln!(
        text,
        "%tk_sh:2 = scf.for %tk_t = {c0} to %tk_moves step {c1} iter_args(%tk_sv = %tk_v, %tk_sr = %tk_r) -> ({state}) {{"
    );
    let _ = writeln!(text, "%tk_pos = arith.subi %tk_start, %tk_t : index");
    let _ = writeln!(text, "%tk_jm1 = arith.subi %tk_pos, {c1} : index");
    let _ = writeln!(text, "%tk_pvs = tensor.extract %tk_sv[%tk_jm1] : {vals_ty}");
    let _ = writeln!(text, "%tk_sv2 = tensor.insert %tk_pvs into %tk_sv[%tk_pos] : {vals_ty}");
    let _ = writeln!(text, "%tk_pi = tensor.extract %tk_sr[{at_before}] : {out}");
    let _ = writeln!(text, "%tk_sr2 = tensor.insert %tk_pi into %tk_sr[{at_pos}] : {out}");
    let _ = writeln!(text, "scf.yield %tk_sv2, %tk_sr2 : {state}");
    let _ = writeln!(text, "}}");
    let _ = writeln!(text, "%tk_v3 = tensor.insert %tk_xs into %tk_sh#0[%tk_bs#0] : {vals_ty}");
    let _ = writeln!(text, "%tk_p64 = arith.index_cast %tk_p : index to i64");
    let _ = writeln!(text, "%tk_r3 = tensor.insert %tk_p64 into %tk_sh#1[{at_slot}] : {out}");
    let _ = writeln!(text, "%tk_m2 = arith.addi %tk_m, {c1} : index");
    let _ = writeln!(text, "%tk_m3 = arith.minui %tk_m2, {kk} : index");
    let _ = writeln!(text, "scf.yield %tk_m3, %tk_v3, %tk_r3 : index, {vals_ty}, {out}");
    let _ = writeln!(text, "}} else {{\nscf.yield %tk_m, %tk_v, %tk_r : index, {vals_ty}, {out}\n}}");
    let _ = writeln!(text, "scf.yield %tk_upd#0, %tk_upd#1, %tk_upd#2 : index, {vals_ty}, {out}");
    let step = std::mem::replace(&mut text, before_step);
    let state = format!("index, {vals_ty}, {out}");
    // A row of f32 along the last axis with a bound runs in chunks of [`CHUNK`] elements: one
    // vector compare tells whether any of a chunk's elements would be taken with the state it
    // starts with (the state only gets stricter, so a chunk none of which passes then is one
    // the element-wise scan would skip whole), and only such chunks are scanned element by
    // element; the rest of the row after the chunks.
    let chunked = bound.as_ref().filter(|_| elem.name == "f32" && axis + 1 == ty.rank() && length >= CHUNK);
    let (mut from, mut init) = (c0.clone(), [c0.clone(), v.clone(), r.clone()]);
    if let Some(bound) = chunked {
        let chunks = length / CHUNK;
        let vt = format!("vector<{CHUNK}x{elem}>");
        let mt = format!("vector<{CHUNK}xi1>");
        let at_chunk = coords("%tk_cb");
        let _ = writeln!(text, "%tk_lanes = arith.constant {CHUNK} : index");
        let _ = writeln!(text, "%tk_nc = arith.constant {chunks} : index");
        let _ = writeln!(text, "%tk_pad = arith.constant 0.0 : {elem}");
        let _ = writeln!(text, "%tk_all = arith.constant dense<true> : {mt}");
        let _ = writeln!(text, "%tk_boundv = vector.broadcast {bound} : {elem} to {vt}");
        let _ = writeln!(text, "%tk_chunks:3 = scf.for %tk_c = {c0} to %tk_nc step {c1} iter_args(%tk_cm = {c0}, %tk_cv = {v}, %tk_cr = {r}) -> ({state}) {{");
        let _ = writeln!(text, "%tk_cb = arith.muli %tk_c, %tk_lanes : index");
        let _ = writeln!(
            text,
            "%tk_xv = vector.transfer_read {input}[{at_chunk}], %tk_pad {{in_bounds = [true]}} : {ty}, {vt}"
        );
        let _ = writeln!(text, "%tk_cfull = arith.cmpi eq, %tk_cm, {kk} : index");
        let _ = writeln!(text, "%tk_clast = tensor.extract %tk_cv[{last}] : {vals_ty}");
        let _ = writeln!(text, "%tk_clastv = vector.broadcast %tk_clast : {elem} to {vt}");
        let _ = writeln!(text, "%tk_cbeats = {predicate} %tk_xv, %tk_clastv : {vt}");
        let _ = writeln!(text, "%tk_copen = arith.xori %tk_cfull, {tru} : i1");
        let _ = writeln!(text, "%tk_copenv = vector.broadcast %tk_copen : i1 to {mt}");
        let _ = writeln!(text, "%tk_ctake0 = arith.ori %tk_copenv, %tk_cbeats : {mt}");
        let _ = writeln!(text, "%tk_cbelow = {predicate} %tk_boundv, %tk_xv : {vt}");
        let _ = writeln!(text, "%tk_ckeep = arith.xori %tk_cbelow, %tk_all : {mt}");
        let _ = writeln!(text, "%tk_ctake = arith.andi %tk_ctake0, %tk_ckeep : {mt}");
        let _ = writeln!(text, "%tk_cany = vector.reduction <or>, %tk_ctake : {mt} into i1");
        let _ = writeln!(text, "%tk_cres:3 = scf.if %tk_cany -> ({state}) {{");
        let _ = writeln!(text, "%tk_ce = arith.addi %tk_cb, %tk_lanes : index");
        let _ = writeln!(text, "%tk_in:3 = scf.for %tk_p = %tk_cb to %tk_ce step {c1} iter_args(%tk_m = %tk_cm, %tk_v = %tk_cv, %tk_r = %tk_cr) -> ({state}) {{");
        text.push_str(&step);
        let _ = writeln!(text, "}}");
        let _ = writeln!(text, "scf.yield %tk_in#0, %tk_in#1, %tk_in#2 : {state}");
        let _ = writeln!(text, "}} else {{\nscf.yield %tk_cm, %tk_cv, %tk_cr : {state}\n}}");
        let _ = writeln!(text, "scf.yield %tk_cres#0, %tk_cres#1, %tk_cres#2 : {state}");
        let _ = writeln!(text, "}}");
        let _ = writeln!(text, "%tk_tail = arith.constant {} : index", chunks * CHUNK);
        from = "%tk_tail".to_owned();
        init = ["%tk_chunks#0", "%tk_chunks#1", "%tk_chunks#2"].map(str::to_owned);
    }
    let [m0, v0, r0] = &init;
    let _ = writeln!(text, "%tk_row:3 = scf.for %tk_p = {from} to {n} step {c1} iter_args(%tk_m = {m0}, %tk_v = {v0}, %tk_r = {r0}) -> ({state}) {{");
    text.push_str(&step);
    let _ = writeln!(text, "}}");
    let mut done = ("%tk_row#2".to_owned(), "%tk_row#1".to_owned());
    for level in (0..outer.len()).rev() {
        let _ = writeln!(text, "scf.yield {}, {} : {carried}\n}}", done.0, done.1);
        done = (format!("%tk_o{level}#0"), format!("%tk_o{level}#1"));
    }
    let indented: String = text.lines().map(|line| format!("    {line}\n")).collect();
    k.push_lines(&indented);
    Ok(done.0)
}
