//! `strata-vectorize-integer-matmul{threads, amx}`: the products of `sg.quantized_matmul` (a QDQ
//! model's `uint8` activations times a constant `int8` weight packed `[N / 16, K / 4, 16,
//! 4]`) as AVX-512 VNNI dot products on buffers after planning.
//!
//! The lowering writes three generics: the i32 sums' start (each column's offset, the zero
//! points' share), the sums (`extui * extsi`, read through the packing's `floordiv`/`mod`
//! maps) and the f32 result (sum times the column's scale), written over the sums: with a
//! scaling, the sums' buffer is the f32 result, holding the sums as their bits (`arith.bitcast`
//! in and out of each step), so no i32 buffer is planned beside it (an i32 buffer, the other
//! form, is taken too: a `MatMulInteger`'s result). This pass replaces the middle one
//! by blocks of 4 rows x 4 vectors of 16 columns whose 16 accumulators the loop over `K / 4`
//! carries in registers: per step one 64-byte load of each packed weight vector (16 columns x
//! 4 depths), the row's 4 bytes broadcast to every lane, and `vpdpbusd` (each lane adds four
//! products of an unsigned and a signed byte: exact, as the i32 sums are). When the first
//! generic is just before it and the third just after (as the lowering writes them), their
//! work happens in the registers: the accumulators start from the offsets, and each is
//! converted, scaled and stored as f32 (for a convolution's pixels, past the elementwise
//! kernel that follows over the result when there is one: `epilogue.rs`). Otherwise the
//! accumulators start from the sums' buffer and are stored back into it (the other two
//! generics stay). An i32 result (a
//! `MatMulInteger`'s: no scaling) takes the start alone. With `threads` above 1 and enough
//! work, the whole column blocks are one `scf.forall`, or, with fewer than two of them (a
//! convolution's 7 x 7 pixels), the whole row blocks. The sums are exact, so results do not
//! depend on the order or the threads.
//!
//! The driver imports such products only for hosts with AVX-512 VNNI
//! (`strata_machine::host_has_avx512_vnni`); elsewhere the float product runs.
//!
//! With `amx`, products big enough run on AMX tiles instead (`tiles`: 16 x 16 sums per
//! instruction; the same sums, so the same results).

use crate::text_kernels::{element, identity_layout, replace_kernels_with, unit_inner_stride, ROLLED};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use std::collections::BTreeMap;
use strata_ir::rewrite::{collect, WITHIN_SOURCE};
use strata_ir::{Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

mod epilogue;
mod tiles;
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-integer-matmul",
    summary: "Products of uint8 and packed int8 (sg.quantized_matmul) as AVX-512 VNNI dot products in register blocks",
    anchor: "builtin.module",
    options: &[
        crate::cpu_schedule::THREADS_OPTION,
        OptionInfo {
            name: "amx",
            kind: OptionKind::Bool,
            default: "false",
            help: "the sums on AMX tiles (tdpbusd) rather than VNNI registers: hosts with AMX-INT8 whose kernel grants the tiles",
        },
    ],
    statistics: &[
        StatisticInfo { name: "matmuls", help: "Integer products vectorised" },
        StatisticInfo { name: "on-tiles", help: "Integer products on AMX tiles" },
        StatisticInfo { name: "fused", help: "Products whose offsets and scaling run in their registers" },
        StatisticInfo { name: "started", help: "Products with an i32 result whose offsets start their registers" },
        StatisticInfo {
            name: "epilogues",
            help: "Elementwise kernels after a quantized convolution's scaling applied in its registers",
        },
        StatisticInfo { name: "interleaves", help: "Pixels of a quantized convolution packed by shuffles" },
        StatisticInfo {
            name: "from-floats",
            help: "Interleaves that read the f32 activation, converting it themselves (its cast and padding gone)",
        },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeIntegerMatmul { threads: options.int("threads"), amx: options.bool("amx") })
}

struct VectorizeIntegerMatmul {
    threads: i64,
    amx: bool,
}

/// Rows and 16-lane column vectors of a register block.
const ROWS: i64 = 4;
const VECTORS: i64 = 4;
/// i32 lanes of a register, and bytes each lane sums.
const LANES: i64 = 16;
const DEPTH: i64 = 4;

/// A product this pass takes: `m x k` times the packed `k x n` (one of them uint8, the other
/// int8) into i32.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Product {
    m: i64,
    k: i64,
    n: i64,
    form: Form,
    /// The sums' buffer is f32 holding their bits (the lowering's when a scaling follows, which
    /// writes over them).
    bits: bool,
}

/// Which operand of a product is the unsigned one, and what its offsets and scales go with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// `sg.quantized_matmul`'s: the rows (broadcast) `ui8`, the packed weight `i8`; one offset
    /// and scale a column; N a multiple of 16.
    Matmul,
    /// `sg.quantized_conv`'s: the rows the filter (`i8`, broadcast), the packed pixels `ui8`
    /// (16 to a register); one offset and scale a row (an output channel); the last register of
    /// pixels may be partly past N (its lanes left out of the stores).
    Pixels,
}

/// The product `op` is, when it is the lowering's sums generic on buffers: inputs `[M, K]`
/// (unit inner stride) and the packed `[ceil(N / 16), K / 4, 16, 4]` (contiguous), `ui8` and
/// `i8` or `i8` and `ui8`, output `i32 [M, N]`, the packed maps.
fn handles(op: OperationRef<'_, '_>) -> Option<Product> {
    if strata_ir::ods::op_name(op) != "linalg.generic" || op.operand_count() != 3 {
        return None;
    }
    let maps = op.attribute("indexing_maps").ok()?.to_string();
    if !maps.contains("d1 floordiv 16, d2 floordiv 4, d1 mod 16, d2 mod 4") {
        return None;
    }
    let elements: Vec<String> = (0..3).map(|i| element(op.operand(i).ok()?.r#type())).collect::<Option<_>>()?;
    let (form, bits) = match elements.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["ui8", "i8", sums @ ("i32" | "f32")] => (Form::Matmul, sums == "f32"),
        ["i8", "ui8", sums @ ("i32" | "f32")] => (Form::Pixels, sums == "f32"),
        _ => return None,
    };
    let mut shapes = Vec::new();
    for i in 0..3 {
        let ty = op.operand(i).ok()?.r#type();
        if !ty.to_string().starts_with("memref<") || (i != 1 && !unit_inner_stride(&ty.to_string())) {
            return None;
        }
        shapes.push(static_shape(ty).ok()?);
    }
    let (&[m, k], &[nb, k4, LANES, DEPTH], &[m2, n]) = (&shapes[0][..], &shapes[1][..], &shapes[2][..]) else {
        return None;
    };
    // The packed operand is a constant or a buffer of its own: contiguous.
    let contiguous = identity_layout(&op.operand(1).ok()?.r#type().to_string());
    let columns = match form {
        Form::Matmul => n == nb * LANES,
        Form::Pixels => n > (nb - 1) * LANES && n <= nb * LANES,
    };
    (contiguous && m == m2 && k == k4 * DEPTH && columns && m > 0 && k > 0).then_some(Product { m, k, n, form, bits })
}

/// The interleave `op` is, when it is `sg.quantized_conv`'s packing generic on buffers: input
/// `ui8 [C, P]` (unit inner stride), output the contiguous `ui8 [P / 16, C / 4, 16, 4]`, its
/// input map `(d1 * 4 + d3, d0 * 16 + d2)`; returns `(C, P)`.
fn interleaves(op: OperationRef<'_, '_>) -> Option<(i64, i64)> {
    if strata_ir::ods::op_name(op) != "linalg.generic" || op.operand_count() != 2 {
        return None;
    }
    let maps = op.attribute("indexing_maps").ok()?.to_string();
    if !maps.contains("-> (d1 * 4 + d3, d0 * 16 + d2)") {
        return None;
    }
    let (input, output) = (op.operand(0).ok()?.r#type(), op.operand(1).ok()?.r#type());
    let out = output.to_string();
    let plain = |t: &str| t.starts_with("memref<") && element_is(t, "ui8");
    if !plain(&input.to_string()) || !plain(&out) || !unit_inner_stride(&input.to_string()) {
        return None;
    }
    if !identity_layout(&out) {
        return None;
    }
    let (&[c, p], &[b, q, LANES, DEPTH]) = (&static_shape(input).ok()?[..], &static_shape(output).ok()?[..]) else {
        return None;
    };
    (c == q * DEPTH && p == b * LANES && c > 0 && p > 0).then_some((c, p))
}

/// Whether the memref type `ty` (printed) has elements `elem`.
fn element_is(ty: &str, elem: &str) -> bool {
    ty.split(['x', '<', ',', '>']).any(|part| part == elem)
}

/// The kernel of [`interleaves`]: for each 4 rows of the input, each 16 columns of them (four
/// 16-byte loads) interleaved by two levels of shuffles into one 64-byte store, `[16 columns
/// x 4 rows]`. With a [`Quantized`] source, the four loads are of its f32 rows (masked past
/// its `pixels`: the padding's zeros), converted as the cast converted them (`fptoui`).
fn interleave_function((c, p): (i64, i64), input: &str, output: &str, source: Option<&Quantized>) -> String {
    let (q, b) = (c / DEPTH, p / LANES);
    let bytes = if source.is_some() { format!("vector<{LANES}xi8>") } else { format!("vector<{LANES}xui8>") };
    let elem = if source.is_some() { "i8" } else { "ui8" };
    let pair_t = format!("vector<{}x{elem}>", 2 * LANES);
    let list = |indices: Vec<i64>| indices.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    // `ab[2i + j] = a_j[i]`, then `v[4i + j] = a_j[i]`: pixel i's four channels together.
    let pairs = list((0..LANES).flat_map(|i| [i, i + LANES]).collect());
    let quads = list((0..LANES).flat_map(|i| [2 * i, 2 * i + 1, 2 * LANES + 2 * i, 2 * LANES + 2 * i + 1]).collect());
    let flat = format!("memref<{b}x{q}x{}xui8>", LANES * DEPTH);
    let mut s = format!("module {{\n  func.func private @interleave(%x: {input}, %p: {output}) {{\n");
    for (name, value) in [("0", 0), ("1", 1), ("2", 2), ("3", 3), ("4", DEPTH), ("16", LANES), ("q", q), ("b", b)] {
        s += &format!("    %c{name} = arith.constant {value} : index\n");
    }
    s += &format!("    %pf = memref.collapse_shape %p [[0], [1], [2, 3]] : {output} into {flat}\n");
    let rows = match source {
        // The f32 rows `[C, pixels]` of the source.
        Some(quantized) => {
            let rows = format!("memref<{c}x{}xf32>", quantized.pixels);
            if quantized.rank == 4 {
                s += &format!("    %xr = memref.collapse_shape %x [[0, 1], [2, 3]] : {input} into {rows}\n");
            } else {
                s += &format!("    %xr = memref.cast %x : {input} to {rows}\n");
            }
            s += &format!(
                "    %cpixels = arith.constant {} : index\n    %fzero = arith.constant dense<0.0> : vector<{LANES}xf32>\n",
                quantized.pixels
            );
            rows
        }
        None => input.to_owned(),
    };
    let x = if source.is_some() { "%xr" } else { "%x" };
    s += "    scf.for %q = %c0 to %cq step %c1 {\n      %r0 = arith.muli %q, %c4 : index\n";
    for j in 1..DEPTH {
        s += &format!("      %r{j} = arith.addi %r0, %c{j} : index\n");
    }
    s += "      scf.for %b = %c0 to %cb step %c1 {\n        %col = arith.muli %b, %c16 : index\n";
    match source {
        Some(quantized) => {
            let padded = quantized.pixels != p;
            if padded {
                s += &format!(
                    "        %left = arith.subi %cpixels, %col : index\n        %mask = vector.create_mask %left : vector<{LANES}xi1>\n"
                );
            }
            for j in 0..DEPTH {
                if padded {
                    s += &format!(
                        "        %f{j} = vector.maskedload {x}[%r{j}, %col], %mask, %fzero : {rows}, vector<{LANES}xi1>, vector<{LANES}xf32> into vector<{LANES}xf32>\n"
                    );
                } else {
                    s += &format!("        %f{j} = vector.load {x}[%r{j}, %col] : {rows}, vector<{LANES}xf32>\n");
                }
                s += &format!("        %a{j} = arith.fptoui %f{j} : vector<{LANES}xf32> to {bytes}\n");
            }
        }
        None => {
            for j in 0..DEPTH {
                s += &format!("        %a{j} = vector.load {x}[%r{j}, %col] : {rows}, {bytes}\n");
            }
        }
    }
    s += &format!(
        "        %ab = vector.shuffle %a0, %a1 [{pairs}] : {bytes}, {bytes}\n\
         \x20       %cd = vector.shuffle %a2, %a3 [{pairs}] : {bytes}, {bytes}\n\
         \x20       %v = vector.shuffle %ab, %cd [{quads}] : {pair_t}, {pair_t}\n"
    );
    let stored = if source.is_some() {
        s += &format!(
            "        %vw = vector.bitcast %v : vector<{n}xi8> to vector<{LANES}xi32>\n\
             \x20       %vu = vector.bitcast %vw : vector<{LANES}xi32> to vector<{n}xui8>\n",
            n = LANES * DEPTH
        );
        "%vu"
    } else {
        "%v"
    };
    s += &format!(
        "        vector.store {stored}, %pf[%b, %q, %c0] : {flat}, vector<{}xui8>\n\
         \x20     }} {ROLLED}\n    }} {ROLLED}\n    return\n  }}\n}}\n",
        LANES * DEPTH
    );
    s
}

/// The f32 source of an interleave's `uint8` pixels: the cast (`fptoui`, a QDQ activation's
/// last step) that made them, just before it (past the padding's fill and copy when the pixels
/// were padded), whose buffers nothing else reads.
struct Quantized {
    /// The cast's f32 input (`[C, pixels]` or `[1, C, H, W]`, contiguous).
    source: Val,
    rank: usize,
    pixels: i64,
    /// The cast, and the padding's fill and copy.
    absorbed: Vec<Op>,
}

/// The op before `op` in its block past views, constants and casts between storage types.
pub(crate) fn before(op: Op) -> Option<Op> {
    let ops = op.block()?.ops();
    let at = ops.iter().position(|&o| o == op)?;
    ops[..at].iter().rev().copied().find(|&o| !is_view(o) && !o.is("builtin.unrealized_conversion_cast"))
}

/// The bytes of the arena `view` (a `memref.view` of a function argument at a constant
/// offset, or a view of one) spans: the argument, the first byte and the end.
pub(crate) fn arena_bytes(view: Val) -> Option<(Val, i64, i64)> {
    let owner = view.owner()?;
    if owner.is("memref.view") {
        let offset = owner.operand(1).constant_int()?;
        let size = i64::try_from(strata_plan_mlir::analyze::memref_bytes(view.r#type()).ok()?).ok()?;
        let base = owner.operand(0);
        return base.argument_number().map(|_| (base, offset, offset + size));
    }
    // A subview, reshape or cast lies within its source.
    (WITHIN_SOURCE.iter().any(|name| owner.is(name))).then(|| arena_bytes(owner.operand(0))).flatten()
}

/// Whether the arena bytes of `buffer` are dead after `op`: each is overwritten (by `op`'s
/// output, a `linalg.fill` or a generic that does not read its output) before anything after
/// `op` in its block reads it (an op reads a byte when it, or an op nested in it, has an
/// operand viewing it other than such an output), or nothing after reads it.
pub(crate) fn dead_after(op: Op, buffer: Val) -> bool {
    let Some((arena, start, end)) = arena_bytes(buffer) else { return false };
    // The byte ranges still holding the buffer's value.
    let mut live = vec![(start, end)];
    let overwrite = |live: &mut Vec<(i64, i64)>, out: Val| {
        // Only a view of whole bytes: a subview's bytes (its source's, for reads) may have gaps.
        if let Some((_, s, e)) = arena_bytes(out).filter(|&(a, ..)| a == arena && !through_subview(out)) {
            *live = live
                .iter()
                .flat_map(|&(l0, l1)| [(l0, l1.min(s)), (l0.max(e), l1)])
                .filter(|(l0, l1)| l0 < l1)
                .collect();
        }
    };
    let hits = |live: &[(i64, i64)], value: Val| {
        arena_bytes(value).is_some_and(|(a, s, e)| a == arena && live.iter().any(|&(l0, l1)| s < l1 && l0 < e))
    };
    if let Some(&out) = op.operands().last() {
        overwrite(&mut live, out);
    }
    let Some(ops) = op.block().map(|b| b.ops()) else { return false };
    let Some(at) = ops.iter().position(|&o| o == op) else { return false };
    for &next in &ops[at + 1..] {
        if live.is_empty() {
            return true;
        }
        if is_view(next) || next.is("builtin.unrealized_conversion_cast") {
            continue;
        }
        if !next.collect(|_| true).into_iter().flat_map(|o| o.operands()).any(|v| hits(&live, v)) {
            continue;
        }
        let operands = next.operands();
        let Some((&out, inputs)) = operands.split_last() else { return false };
        let reads_out =
            next.is("linalg.generic") && next.body(0).is_some_and(|b| b.argument(b.argument_count() - 1).has_uses());
        let writer = (next.is("linalg.fill") || next.is("linalg.generic")) && !reads_out;
        if !writer || inputs.iter().any(|&v| hits(&live, v)) {
            return false;
        }
        overwrite(&mut live, out);
    }
    true
}

/// Whether `value` is a subview, or a view of one.
fn through_subview(value: Val) -> bool {
    match value.owner() {
        Some(o) if o.is("memref.subview") => true,
        Some(o) if WITHIN_SOURCE.iter().any(|name| o.is(name)) => through_subview(o.operand(0)),
        _ => false,
    }
}

/// Whether `op` fills `buffer` with zeros (the padding's value: the masked loads' too).
fn zero_fill(op: Op, buffer: Val) -> bool {
    let value = |v: Val| match v.owner() {
        Some(cast) if cast.is("builtin.unrealized_conversion_cast") => cast.operand(0).constant_int(),
        _ => v.constant_int(),
    };
    op.is("linalg.fill") && op.operand(1) == buffer && value(op.operand(0)) == Some(0)
}

/// Whether `value` is `base` or a view of it (subviews, reshapes, casts).
fn view_of(value: Val, base: Val) -> bool {
    if value == base {
        return true;
    }
    value.owner().filter(|o| WITHIN_SOURCE.iter().any(|name| o.is(name))).is_some_and(|o| view_of(o.operand(0), base))
}

/// The [`Quantized`] source of the interleave `op` of `C` rows of `P` pixels ([`interleaves`]), when its f32 rows may be read where the
/// interleave runs: their bytes and the packed output's are provably apart (planning may have
/// given the output the source's bytes once the cast had read them).
fn quantized_source(op: Op, (c, p): (i64, i64)) -> Option<Quantized> {
    let (input, output) = (op.operand(0), op.operand(1));
    let mut absorbed = Vec::new();
    let mut previous = before(op)?;
    // The padding: the pixels copied into a window of the input after a fill of all of it, or
    // (planning's choice where it could) cast straight into that window.
    if previous.is("linalg.copy") {
        let fill = before(previous).filter(|&f| zero_fill(f, input))?;
        if !view_of(previous.operand(1), input) {
            return None;
        }
        absorbed.extend([previous, fill]);
        previous = before(fill)?;
    } else if previous.operand_count() == 2 && view_of(previous.operand(1), input) {
        if let Some(fill) = before(previous).filter(|&f| zero_fill(f, input)) {
            absorbed.push(fill);
        }
    }
    // The cast: f32 to ui8 elementwise, into the pixels (or their window of the input).
    let body: Vec<String> = previous.body(0)?.ops().into_iter().map(|o| o.name()).collect();
    let cast = previous.is("linalg.generic")
        && previous.operand_count() == 2
        && body == ["arith.fptoui", "builtin.unrealized_conversion_cast", "linalg.yield"];
    let (source, cast_out) = (previous.operand(0), previous.operand(1));
    let copied = absorbed.first().is_some_and(|c| c.is("linalg.copy") && view_of(c.operand(0), cast_out));
    let contiguous = identity_layout(&source.r#type().to_string());
    let written = copied || view_of(cast_out, input) || view_of(input, cast_out);
    if !cast || !written || !contiguous || element(source.r#type())? != "f32" {
        return None;
    }
    let shape = static_shape(source.r#type()).ok()?;
    let rank = shape.len();
    let (channels, pixels) = match shape[..] {
        [1, c, h, w] => (c, h * w),
        [c, p] => (c, p),
        _ => return None,
    };
    if channels != c || pixels > p || (pixels < p && absorbed.is_empty()) {
        return None;
    }
    absorbed.push(previous);
    // Nothing reads the pixels or their padded copy after the interleave: the next op that
    // touches their bytes (if any) overwrites them. (Planning gives values of one type at one
    // offset one `memref.view`, so the views' users include values of other times.)
    if !dead_after(op, cast_out) || !dead_after(op, input) {
        return None;
    }
    // The source's bytes and the output's apart: a function argument and the arena, or two
    // disjoint ranges of one arena.
    let apart = match (arena_bytes(source), arena_bytes(output)) {
        (Some((a, a0, a1)), Some((b, b0, b1))) => a != b || a1 <= b0 || b1 <= a0,
        (None, Some(_)) => source.argument_number().is_some(),
        _ => false,
    };
    apart.then_some(Quantized { source, rank, pixels, absorbed })
}

/// The operands of `op` when it is a generic whose body is the ops `body` (then its yield):
/// the lowering's start of the sums (a copy: `offsets` into the sums' buffer) or their scaling
/// (`sitofp`, `mulf`: the sums and `scales` into the f32 result).
fn generic_operands(op: Op, body: &[&str]) -> Option<Vec<Val>> {
    let ops: Vec<String> = op.body(0)?.ops().into_iter().map(|o| o.name()).collect();
    let expected = body.iter().copied().chain(["linalg.yield"]);
    (op.is("linalg.generic") && ops.iter().map(String::as_str).eq(expected)).then(|| op.operands())
}

/// The views right after `op` ([`is_view`]), in order, and the op after them.
fn past_views(op: Op) -> (Vec<Op>, Option<Op>) {
    let mut views = Vec::new();
    let mut next = op.next();
    while let Some(view) = next.filter(|n| is_view(*n)) {
        views.push(view);
        next = view.next();
    }
    (views, next)
}

/// Ops that only name memory (views of the arena, constants): nothing reads or writes
/// through them, so a kernel's neighbours are looked for past them.
pub(crate) fn is_view(op: Op) -> bool {
    const VIEWS: [&str; 8] = [
        "memref.view",
        "memref.subview",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.reinterpret_cast",
        "memref.cast",
        "memref.get_global",
        "arith.constant",
    ];
    VIEWS.iter().any(|name| op.is(name))
}

/// What the kernel does beside the sums: which of the lowering's generics it absorbs.
#[derive(Clone, Copy, PartialEq)]
enum Absorbed {
    /// None: the sums go from and into their i32 buffer (arguments `a, b, c`).
    Nothing,
    /// The start: the sums go from the offsets into their buffer (`a, b, offsets, c`; an i32
    /// result, a `MatMulInteger`'s).
    Start,
    /// The start and the scaling: from the offsets into the f32 result (`a, b, offsets,
    /// scales, out`).
    StartAndScaling,
}

/// The start of a kernel function (MLIR text): its signature (`args`), the index `constants`
/// it uses (sorted, once each), and `%bf`, the packed operand of type `packed_t` with its
/// groups of 16 x 4 bytes flattened (`flat_b`).
fn kernel_head(args: &str, mut constants: Vec<i64>, packed_t: &str, flat_b: &str) -> String {
    constants.sort();
    constants.dedup();
    let mut s = format!("module {{\n  func.func private @integer_matmul({args}) {{\n");
    for c in &constants {
        s += &format!("    %c{c} = arith.constant {c} : index\n");
    }
    s + &format!("    %bf = memref.collapse_shape %b [[0], [1], [2, 3]] : {packed_t} into {flat_b}\n")
}

impl Absorbed {
    /// The kernel function's arguments (MLIR text) for their `types`, as the variants list them.
    fn arguments(self, types: &[String]) -> String {
        let (at, packed_t) = (&types[0], &types[1]);
        match self {
            Absorbed::StartAndScaling => {
                format!("%a: {at}, %b: {packed_t}, %offsets: {}, %scales: {}, %out: {}", types[2], types[3], types[4])
            }
            Absorbed::Start => format!("%a: {at}, %b: {packed_t}, %offsets: {}, %c: {}", types[2], types[3]),
            Absorbed::Nothing => format!("%a: {at}, %b: {packed_t}, %c: {}", types[2]),
        }
    }
}

impl Product {
    /// The kernel function (MLIR text) for its arguments' `types` (as [`Absorbed`] lists them).
    fn function(
        &self,
        types: &[String],
        threads: i64,
        absorbed: Absorbed,
        epilogue: Option<&epilogue::Epilogue>,
    ) -> String {
        let Product { m, k, n, form, bits } = *self;
        let width = LANES * VECTORS;
        let vt = format!("vector<{LANES}xi32>");
        let bt = "vector<64xi8>";
        let (at, packed_t) = (&types[0], &types[1]);
        let k4 = k / DEPTH;
        // The columns in whole registers (N itself but for the pixels' last partial one).
        let blocks = (n + LANES - 1) / LANES;
        let nn = blocks * LANES;
        let pixels = form == Form::Pixels;
        let (a_elem, b_elem) = if pixels { ("i8", "ui8") } else { ("ui8", "i8") };
        let flat_b = format!("memref<{blocks}x{k4}x{}x{b_elem}>", LANES * DEPTH);
        // Stores of the last register leave out its lanes past N.
        let masked = nn != n;
        let args = absorbed.arguments(types) + &epilogue.map(epilogue::Epilogue::arguments).unwrap_or_default();
        let (start, scaled) = (absorbed != Absorbed::Nothing, absorbed == Absorbed::StartAndScaling);
        // The sums' buffer, when the kernel stores them.
        let ct = types.last().cloned().unwrap_or_default();
        let mut constants: Vec<i64> =
            vec![0, 1, DEPTH, ROWS, LANES, width, k4, m, n, nn, m / ROWS * ROWS, nn / width * width];
        constants.extend((0..VECTORS).map(|v| v * LANES));
        constants.extend(0..ROWS);
        let mut s = kernel_head(&args, constants, packed_t, &flat_b);
        let mut id = 0usize;
        let ft = format!("vector<{LANES}xf32>");
        s += &format!("    %zero = arith.constant dense<0> : {vt}\n    %fzero = arith.constant dense<0.0> : {ft}\n");
        if let Some(e) = epilogue {
            s += &e.head((m, n), &ft);
        }
        let mut block = |s: &mut String, rows: i64, row: &str, col: &str, partial: bool, indent: &str| {
            id += 1;
            let b = id;
            // The last, narrower block of columns has the vectors left (whole registers).
            let vectors = if partial { (nn % width) / LANES } else { VECTORS };
            for v in 0..vectors {
                *s += &format!("{indent}%col{b}_{v} = arith.addi {col}, %c{} : index\n", v * LANES);
                *s += &format!("{indent}%nb{b}_{v} = arith.divui %col{b}_{v}, %c{LANES} : index\n");
                if masked {
                    *s += &format!(
                        "{indent}%left{b}_{v} = arith.subi %c{n}, %col{b}_{v} : index\n\
                         {indent}%mask{b}_{v} = vector.create_mask %left{b}_{v} : vector<{LANES}xi1>\n"
                    );
                }
            }
            // `value` (a register of `ty`) stored at row `r`, column register `v` of `memory`.
            let store = |value: &str, memory: &str, memory_t: &str, ty: &str, r: i64, v: i64| {
                if masked {
                    format!(
                        "{indent}vector.maskedstore {memory}[%row{b}_{r}, %col{b}_{v}], %mask{b}_{v}, {value} : {memory_t}, vector<{LANES}xi1>, {ty}\n"
                    )
                } else {
                    format!("{indent}vector.store {value}, {memory}[%row{b}_{r}, %col{b}_{v}] : {memory_t}, {ty}\n")
                }
            };
            let mut inits = Vec::new();
            for r in 0..rows {
                *s += &format!("{indent}%row{b}_{r} = arith.addi {row}, %c{r} : index\n");
            }
            // A row's offset or scale in every lane, or a register of the columns'.
            let per_output = |s: &mut String, name: &str, memory: &str, memory_t: &str, ty: &str, elem: &str| {
                if pixels {
                    for r in 0..rows {
                        *s += &format!(
                            "{indent}%{name}s{b}_{r} = memref.load {memory}[%row{b}_{r}] : {memory_t}\n\
                             {indent}%{name}{b}_{r} = vector.broadcast %{name}s{b}_{r} : {elem} to {ty}\n"
                        );
                    }
                } else {
                    for v in 0..vectors {
                        *s +=
                            &format!("{indent}%{name}{b}_{v} = vector.load {memory}[%col{b}_{v}] : {memory_t}, {ty}\n");
                    }
                }
            };
            let which = |r: i64, v: i64| if pixels { r } else { v };
            if start {
                per_output(s, "off", "%offsets", &types[2], &vt, "i32");
            }
            for r in 0..rows {
                for v in 0..vectors {
                    if start {
                        inits.push(format!("%acc{b}_{r}_{v} = %off{b}_{}", which(r, v)));
                    } else {
                        // The sums' buffer's type: i32, or f32 holding their bits.
                        let (ht, zero) = if bits { (&ft, "%fzero") } else { (&vt, "%zero") };
                        let load = if masked {
                            format!("vector.maskedload %c[%row{b}_{r}, %col{b}_{v}], %mask{b}_{v}, {zero} : {ct}, vector<{LANES}xi1>, {ht} into {ht}")
                        } else {
                            format!("vector.load %c[%row{b}_{r}, %col{b}_{v}] : {ct}, {ht}")
                        };
                        if bits {
                            *s += &format!(
                                "{indent}%held{b}_{r}_{v} = {load}\n\
                                 {indent}%init{b}_{r}_{v} = arith.bitcast %held{b}_{r}_{v} : {ft} to {vt}\n"
                            );
                        } else {
                            *s += &format!("{indent}%init{b}_{r}_{v} = {load}\n");
                        }
                        inits.push(format!("%acc{b}_{r}_{v} = %init{b}_{r}_{v}"));
                    }
                }
            }
            let count = rows * vectors;
            let acc_types = vec![vt.as_str(); count as usize].join(", ");
            *s += &format!(
                "{indent}%sum{b}:{count} = scf.for %q{b} = %c0 to %c{k4} step %c1 iter_args({}) -> ({acc_types}) {{\n",
                inits.join(", ")
            );
            let inner = format!("{indent}  ");
            *s += &format!("{inner}%k{b} = arith.muli %q{b}, %c{DEPTH} : index\n");
            for v in 0..vectors {
                if pixels {
                    // Signless for the intrinsic.
                    *s += &format!(
                        "{inner}%bu{b}_{v} = vector.load %bf[%nb{b}_{v}, %q{b}, %c0] : {flat_b}, vector<64xui8>\n\
                         {inner}%bw{b}_{v} = vector.bitcast %bu{b}_{v} : vector<64xui8> to {vt}\n\
                         {inner}%bv{b}_{v} = vector.bitcast %bw{b}_{v} : {vt} to {bt}\n"
                    );
                } else {
                    *s += &format!("{inner}%bv{b}_{v} = vector.load %bf[%nb{b}_{v}, %q{b}, %c0] : {flat_b}, {bt}\n");
                }
            }
            let mut next = Vec::new();
            for r in 0..rows {
                // The row's four bytes at `k`, as one i32 in every lane.
                *s += &format!(
                    "{inner}%a4{b}_{r} = vector.load %a[%row{b}_{r}, %k{b}] : {at}, vector<4x{a_elem}>\n\
                     {inner}%a1{b}_{r} = vector.bitcast %a4{b}_{r} : vector<4x{a_elem}> to vector<1xi32>\n\
                     {inner}%as{b}_{r} = vector.extract %a1{b}_{r}[0] : i32 from vector<1xi32>\n\
                     {inner}%ab{b}_{r} = vector.broadcast %as{b}_{r} : i32 to {vt}\n\
                     {inner}%av{b}_{r} = vector.bitcast %ab{b}_{r} : {vt} to {bt}\n"
                );
                for v in 0..vectors {
                    // `vpdpbusd` multiplies its second operand's unsigned bytes by its third's
                    // signed ones.
                    let (unsigned, signed) = if pixels {
                        (format!("%bv{b}_{v}"), format!("%av{b}_{r}"))
                    } else {
                        (format!("%av{b}_{r}"), format!("%bv{b}_{v}"))
                    };
                    *s += &format!(
                        "{inner}%n{b}_{r}_{v} = llvm.call_intrinsic \"llvm.x86.avx512.vpdpbusd.512\"(%acc{b}_{r}_{v}, {unsigned}, {signed}) : ({vt}, {bt}, {bt}) -> {vt}\n"
                    );
                    next.push(format!("%n{b}_{r}_{v}"));
                }
            }
            *s += &format!("{inner}scf.yield {} : {acc_types}\n{indent}}} {ROLLED}\n", next.join(", "));
            if scaled {
                per_output(s, "scale", "%scales", &types[3], &ft, "f32");
                if let Some(e) = epilogue {
                    for r in 0..rows {
                        *s += &e.row(&format!("{b}_{r}"), &format!("%row{b}_{r}"), &ft, indent);
                    }
                }
            }
            for r in 0..rows {
                for v in 0..vectors {
                    let value = format!("%sum{b}#{}", r * vectors + v);
                    if scaled {
                        *s += &format!(
                            "{indent}%f{b}_{r}_{v} = arith.sitofp {value} : {vt} to {ft}\n\
                             {indent}%y{b}_{r}_{v} = arith.mulf %f{b}_{r}_{v}, %scale{b}_{} : {ft}\n",
                            which(r, v)
                        );
                        let mut stored = format!("%y{b}_{r}_{v}");
                        if let Some(e) = epilogue {
                            let mask = masked.then(|| format!("%mask{b}_{v}"));
                            let (at, name) = (format!("{b}_{r}"), format!("{b}_{r}_{v}"));
                            let (row, col) = (format!("%row{b}_{r}"), format!("%col{b}_{v}"));
                            let register = (&stored[..], &ft[..], mask.as_deref());
                            stored = e.apply(s, (&at, &name), (&row, &col), register, (m, n), indent);
                        }
                        *s += &store(&stored, "%out", &types[4], &ft, r, v);
                    } else if bits {
                        *s += &format!("{indent}%bits{b}_{r}_{v} = arith.bitcast {value} : {vt} to {ft}\n");
                        *s += &store(&format!("%bits{b}_{r}_{v}"), "%c", &ct, &ft, r, v);
                    } else {
                        *s += &store(&value, "%c", &ct, &vt, r, v);
                    }
                }
            }
        };
        let parallel = m * k * n >= crate::conv_lanes::PARALLEL_MACS;
        if threads > 1 && parallel && nn / width >= 2 {
            crate::text_kernels::blocks_parallel_columns(&mut s, "    ", ("m", m, ROWS), ("n", nn, width), &mut block);
        } else if threads > 1 && parallel && m / ROWS >= 2 {
            // Too few columns (a convolution's 7 x 7 pixels) to split: the rows (output channels).
            crate::text_kernels::blocks_parallel_rows(&mut s, "    ", ("m", m, ROWS), ("n", nn, width), &mut block);
        } else {
            crate::text_kernels::blocks(&mut s, "    ", ("m", m, ROWS), ("n", nn, width), &mut block);
        }
        s += "    return\n  }\n}\n";
        s
    }
}

impl Pass for VectorizeIntegerMatmul {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let (threads, amx) = (self.threads, self.amx);
        let (mut fused, mut started, mut on_tiles, mut epilogues) = (0u64, 0u64, 0u64, 0u64);
        let mut from_floats = 0u64;
        replace_kernels_with(module, cx, &["linalg.generic"], "interleave kernel", "interleaves", |op, absorbed| {
            let shape = interleaves(op.get())?;
            let output = op.operand(1);
            let quantized = quantized_source(op, shape);
            let input = quantized.as_ref().map_or(op.operand(0), |q| q.source);
            let text = interleave_function(
                shape,
                &input.r#type().to_string(),
                &output.r#type().to_string(),
                quantized.as_ref(),
            );
            if let Some(q) = quantized {
                absorbed.extend(q.absorbed);
                from_floats += 1;
            }
            Some((text, vec![input, output]))
        })?;
        cx.bump("from-floats", from_floats);
        // Between the three generics, planning leaves views of the arena (and their constants):
        // those after the sums move before them, so the scaling's buffers are defined where the
        // kernel goes; then each generic's predecessor among the kernels, by its address (the
        // C API has no previous-op walk).
        for op in collect(&module, |op| op.is("linalg.generic") && handles(op.get()).is_some()) {
            let (mut between, next) = past_views(op);
            if let Some(scaling) = next.filter(|n| n.is("linalg.generic")) {
                // And those between the scaling and an epilogue after it (`epilogue::find`).
                let (views, after) = past_views(scaling);
                if after.is_some_and(|n| n.is("linalg.generic")) {
                    between.extend(views);
                }
                for view in between {
                    view.move_before(op);
                }
            }
        }
        let previous: BTreeMap<usize, Op> = collect(&module, |op| op.is("linalg.generic"))
            .into_iter()
            .filter_map(|op| Some((past_views(op).1?.raw().ptr as usize, op)))
            .collect();
        replace_kernels_with(module, cx, &["linalg.generic"], "integer matmul kernel", "matmuls", |op, absorbed| {
            let product = handles(op.get())?;
            let operands = op.operands();
            let sums = operands[2];
            // The start just before (offsets into the sums' buffer) and the scaling just after
            // (the sums and the scales into an f32 buffer of the same shape).
            let outputs = if product.form == Form::Pixels { product.m } else { product.n };
            let vector_of = |value: Val, elem: &str| {
                element(value.r#type()).is_some_and(|e| e == elem)
                    && static_shape(value.r#type()).is_ok_and(|shape| shape == [outputs])
            };
            let start = previous.get(&(op.raw().ptr as usize)).copied().and_then(|prev| {
                let o = generic_operands(prev, if product.bits { &["arith.bitcast"] } else { &[] })?;
                (o.len() == 2 && o[1] == sums && o[0] != sums && vector_of(o[0], "i32")).then_some((prev, o[0]))
            });
            let scaling = op.next().and_then(|next| {
                if product.bits {
                    // Over the sums in place: the scales, then the sums as the output.
                    let o = generic_operands(next, &["arith.bitcast", "arith.sitofp", "arith.mulf"])?;
                    return (o.len() == 2 && o[1] == sums && o[0] != sums && vector_of(o[0], "f32"))
                        .then_some((next, o[0], sums));
                }
                let o = generic_operands(next, &["arith.sitofp", "arith.mulf"])?;
                let f32_out = element(o.get(2)?.r#type()).is_some_and(|e| e == "f32")
                    && static_shape(o[2].r#type()).ok()? == [product.m, product.n]
                    && unit_inner_stride(&o[2].r#type().to_string());
                let scales = o.len() == 3 && o[1] != sums && vector_of(o[1], "f32");
                (scales && o[0] == sums && o[2] != sums && f32_out).then_some((next, o[1], o[2]))
            });
            let mut epilogue = None;
            let (kernel_operands, kind) = match (start, scaling) {
                (Some((prev, offsets)), Some((next, scales, out))) => {
                    absorbed.extend([prev, next]);
                    // A pixels product's next kernel over its result, in its registers.
                    if product.form == Form::Pixels {
                        epilogue = epilogue::find(next, out, (product.m, product.n));
                    }
                    let mut kernel_operands = vec![operands[0], operands[1], offsets, scales, out];
                    if let Some(e) = &epilogue {
                        absorbed.push(e.op);
                        kernel_operands.extend(e.reads.iter().map(|(v, _)| *v));
                        crate::text_kernels::name_after_both(op, e.op);
                    }
                    (kernel_operands, Absorbed::StartAndScaling)
                }
                // An i32 result (a MatMulInteger's): the start only.
                (Some((prev, offsets)), None) => {
                    absorbed.push(prev);
                    (vec![operands[0], operands[1], offsets, sums], Absorbed::Start)
                }
                _ => (operands.clone(), Absorbed::Nothing),
            };
            let types: Vec<String> = kernel_operands.iter().map(|v| v.r#type().to_string()).collect();
            let threads = if crate::cpu_schedule::inside_forall(op.get()) { 1 } else { threads };
            fused += u64::from(kind == Absorbed::StartAndScaling);
            started += u64::from(kind == Absorbed::Start);
            let tiled = amx && tiles::takes(&product, kind);
            on_tiles += u64::from(tiled);
            epilogues += u64::from(epilogue.is_some());
            let text = if tiled {
                product.tile_function(&types, threads, kind, epilogue.as_ref())
            } else {
                product.function(&types, threads, kind, epilogue.as_ref())
            };
            Some((text, kernel_operands))
        })?;
        cx.bump("on-tiles", on_tiles);
        cx.bump("fused", fused);
        cx.bump("started", started);
        cx.bump("epilogues", epilogues);
        Ok(())
    }
}
