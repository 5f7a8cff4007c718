//! `strata-vectorize-matmul{vector-lanes threads}`: the f32 and f64 matmuls that the register-blocked
//! schedule (`strata-cpu-vectorize`: rows a multiple of 8, columns of 32) does not take, of any
//! shape, as vector loops on buffers after planning.
//!
//! Blocks of 4 rows x 2 vectors of columns (8 rows x one vector when one holds every column)
//! keep their 8 accumulators in registers through the whole reduction (carried by the `k`
//! loop): per step one load of each B vector, a broadcast of each A element and 8 contractible
//! multiply-adds. With four accumulators each waited on its last multiply-add: the 8 columns a
//! 3136 x 160 x 40 product (a ConvNeXt MLP's) leaves past the schedule's 32 took 0.26 -> 0.21
//! ms for the whole product with 8 rows, the same sums. A partial column block is masked (its
//! loads, accumulators and stores), rows that do not fill a block run as one block of their
//! own (one at a time, each row's accumulators were chains waiting on each multiply-add), and
//! a product whose rows' accumulators all fit the registers is one block of all of them (one
//! pass over `B`, not one per block of 4 rows). A
//! classifier head (1 x 1280 x 1000) or a short-time Fourier transform's basis products (98 x
//! 400 x 201, in f64) ran as scalar loop nests. With `threads` above 1 and enough work (or a
//! one-row product past the caches, memory-bound whatever its work: ResNet-18's 512 x 1000
//! classifier 0.024 -> 0.012 ms on two threads), the whole column blocks are one `scf.forall`
//! (OpenMP threads), each block every row: a classifier head's weights stream through every
//! core. On one thread a one-row product whose
//! right operand is past the caches (at least [`STREAM_BYTES`]) streams it in memory order
//! instead ([`Matmul::row_function`]).
//!
//! A `linalg.fill` of `+0.0` into a matmul's result just before it (how the lowering starts
//! every product) is folded into the kernel: its accumulators start at zero instead of
//! loading the zeros the fill stored, and the fill goes (one kernel and one pass over the
//! result less per matmul: a transformer's projections, the matmul ladder's rungs). The sums
//! are the same, bit for bit. The streaming one-row kernel, which adds into the result row on
//! each pass, keeps its fill.
//!
//! `strata-cpu-schedule` leaves exactly these matmuls as named ops ([`handles`]); each is
//! either the vectorising schedule's, this pass's, or (other element types) the loop-order
//! schedule's.

use crate::text_kernels::{element, replace_kernels, unit_inner_stride, ROLLED};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-matmul",
    summary: "Matmuls of any shape (f32, f64) as register-blocked vector loops with masked partial blocks",
    anchor: "builtin.module",
    options: &[crate::vectorize_elementwise::VECTOR_LANES_OPTION, crate::cpu_schedule::THREADS_OPTION],
    statistics: &[
        StatisticInfo { name: "matmuls", help: "Matmuls vectorised" },
        StatisticInfo { name: "fills-folded", help: "Zero fills of a result folded into its matmul's accumulators" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeMatmul { lanes: options.int("vector-lanes").max(4), threads: options.int("threads") })
}

struct VectorizeMatmul {
    lanes: i64,
    threads: i64,
}

/// Rows and column vectors of a register block.
const ROWS: i64 = 4;
const VECTORS: i64 = 2;

/// A matmul this pass takes: `m x k` times `k x n`, element type `f32` or `f64` (the left
/// operand's `a_elem`: the same, or f32 widened to f64 as it is read).
#[derive(Clone, Debug, PartialEq)]
pub struct Matmul {
    m: i64,
    k: i64,
    n: i64,
    elem: &'static str,
    a_elem: &'static str,
}

/// The matmul `op` is, when this pass vectorises it (tensors or buffers): a `linalg.matmul`
/// with the default maps, static 2-D operands of one element type, f32 or f64, not marked for
/// the vectorising schedule, at least 4 columns.
pub fn handles(op: OperationRef<'_, '_>) -> Option<Matmul> {
    if strata_ir::ods::op_name(op) != "linalg.matmul" || op.operand_count() != 3 {
        return None;
    }
    if strata_ir::attrs::LOOP_ORDER.get(op).is_some_and(|order| order == "vectorize") {
        return None;
    }
    if op.attribute("indexing_maps").is_ok_and(|maps| !maps.to_string().contains("(d0, d1, d2) -> (d0, d2)")) {
        return None;
    }
    let mut elems = Vec::new();
    let mut shapes = Vec::new();
    for i in 0..3 {
        let ty = op.operand(i).ok()?.r#type();
        elems.push(match element(ty)?.as_str() {
            "f32" => "f32",
            "f64" => "f64",
            _ => return None,
        });
        // Unit-stride rows (identity or `strided<[s, 1]...>` layouts).
        if !unit_inner_stride(&ty.to_string()) {
            return None;
        }
        let shape = static_shape(ty).ok()?;
        (shape.len() == 2).then_some(())?;
        shapes.push(shape);
    }
    // One element type, or an f32 left operand of an f64 product (`widened_sources`).
    let (a_elem, elem) = (elems[0], elems[2]);
    if elems[1] != elem || (a_elem != elem && (a_elem, elem) != ("f32", "f64")) {
        return None;
    }
    let (m, k, n) = (shapes[0][0], shapes[0][1], shapes[1][1]);
    let ok = shapes[1][0] == k && shapes[2] == [m, n] && m > 0 && k > 0 && n >= 4;
    ok.then_some(Matmul { m, k, n, elem, a_elem })
}

impl Matmul {
    /// The kernel function (MLIR text) for operand types `types`, `lanes` f32 lanes a register;
    /// with `threads` above 1 and enough work, the whole column blocks are an `scf.forall`.
    /// `from_zero`: the accumulators start at zero, not at the result's values (a fill of zeros
    /// folded in; only for the block kernel, not [`Matmul::by_rows`]'s).
    fn function(&self, types: &[String], lanes: i64, threads: i64, from_zero: bool) -> String {
        if self.by_rows(threads) {
            return self.row_function(types, lanes);
        }
        let Matmul { m, k, n, elem, .. } = *self;
        let registers = crate::conv_lanes::Registers::for_lanes(lanes);
        let lanes = self.element_lanes(lanes).min((n as u64).next_power_of_two() as i64);
        // One vector of columns when one holds them all (a [4, 8] x [8, 8] product: no block of
        // two with its second vector masked off entirely).
        let vectors = if n <= lanes { 1 } else { VECTORS };
        // Eight accumulators either way: with one vector of columns, twice the rows. Rows
        // whose accumulators all fit the registers are one block: every row in one pass over
        // `B`. The 5 rows a 77-row product leaves past its register-blocked 72 (a text
        // encoder's, by a 4 MB weight) were a block of 4 and one of 1, each streaming `B`
        // from memory: 0.28 ms, against 0.14 for 8 rows in the register schedule.
        let rows = if m * vectors <= registers.accumulators { m } else { ROWS * VECTORS / vectors };
        let width = lanes * vectors;
        let vt = format!("vector<{lanes}x{elem}>");
        let mt = format!("vector<{lanes}xi1>");
        let (at, bt, ct) = (&types[0], &types[1], &types[2]);
        let n_main = n / width * width;
        let m_main = m / rows * rows;
        let mut constants: Vec<i64> = vec![0, 1, rows, width, n_main, m_main, m, k, n];
        constants.extend((0..rows.max(vectors)).map(|i| i * lanes));
        constants.extend(0..rows);
        constants.sort();
        constants.dedup();
        let mut s = format!("module {{\n  func.func private @matmul(%a: {at}, %b: {bt}, %c: {ct}) {{\n");
        for c in &constants {
            s += &format!("    %c{c} = arith.constant {c} : index\n");
        }
        s += &format!("    %zero = arith.constant dense<0.0> : {vt}\n");
        let mut id = 0usize;
        // One block: `rows` rows from `row`, column vectors from `col`, masked when `partial`.
        let mut block = |s: &mut String, rows: i64, row: &str, col: &str, partial: bool, indent: &str| {
            id += 1;
            let b = id;
            let mut masks = Vec::new();
            for v in 0..vectors {
                *s += &format!("{indent}%col{b}_{v} = arith.addi {col}, %c{} : index\n", v * lanes);
                if partial {
                    *s += &format!(
                        "{indent}%left{b}_{v} = arith.subi %c{n}, %col{b}_{v} : index\n{indent}%mask{b}_{v} = vector.create_mask %left{b}_{v} : {mt}\n"
                    );
                    masks.push(Some(format!("%mask{b}_{v}")));
                } else {
                    masks.push(None);
                }
            }
            let load = |base: &str, ty: &str, row: &str, v: i64| -> String {
                match &masks[v as usize] {
                    None => format!("vector.load {base}[{row}, %col{b}_{v}] : {ty}, {vt}"),
                    Some(mask) => format!(
                        "vector.maskedload {base}[{row}, %col{b}_{v}], {mask}, %zero : {ty}, {mt}, {vt} into {vt}"
                    ),
                }
            };
            let mut inits = Vec::new();
            for r in 0..rows {
                *s += &format!("{indent}%row{b}_{r} = arith.addi {row}, %c{r} : index\n");
                for v in 0..vectors {
                    if from_zero {
                        inits.push(format!("%acc{b}_{r}_{v} = %zero"));
                        continue;
                    }
                    *s += &format!("{indent}%init{b}_{r}_{v} = {}\n", load("%c", ct, &format!("%row{b}_{r}"), v));
                    inits.push(format!("%acc{b}_{r}_{v} = %init{b}_{r}_{v}"));
                }
            }
            let count = rows * vectors;
            let types = vec![vt.as_str(); count as usize].join(", ");
            *s += &format!(
                "{indent}%sum{b}:{count} = scf.for %k{b} = %c0 to %c{k} step %c1 iter_args({}) -> ({types}) {{\n",
                inits.join(", ")
            );
            let inner = format!("{indent}  ");
            for v in 0..vectors {
                *s += &format!("{inner}%bv{b}_{v} = {}\n", load("%b", bt, &format!("%k{b}"), v));
            }
            let mut next = Vec::new();
            for r in 0..rows {
                self.broadcast_a(s, &inner, &format!("%row{b}_{r}, %k{b}"), &format!("{b}_{r}"), at, &vt);
                for v in 0..vectors {
                    *s += &format!(
                        "{inner}%p{b}_{r}_{v} = arith.mulf %av{b}_{r}, %bv{b}_{v} fastmath<contract> : {vt}\n{inner}%n{b}_{r}_{v} = arith.addf %acc{b}_{r}_{v}, %p{b}_{r}_{v} fastmath<contract> : {vt}\n"
                    );
                    next.push(format!("%n{b}_{r}_{v}"));
                }
            }
            *s += &format!("{inner}scf.yield {} : {types}\n{indent}}} {ROLLED}\n", next.join(", "));
            for r in 0..rows {
                for v in 0..vectors {
                    let value = format!("%sum{b}#{}", r * vectors + v);
                    *s += &match &masks[v as usize] {
                        None => format!("{indent}vector.store {value}, %c[%row{b}_{r}, %col{b}_{v}] : {ct}, {vt}\n"),
                        Some(mask) => format!(
                            "{indent}vector.maskedstore %c[%row{b}_{r}, %col{b}_{v}], {mask}, {value} : {ct}, {mt}, {vt}\n"
                        ),
                    };
                }
            }
        };
        // A one-row product past the caches is memory-bound whatever its multiply-adds: each
        // core streams its share of `B`.
        let parallel = m * k * n >= crate::conv_lanes::PARALLEL_MACS || self.streams();
        if threads > 1 && parallel && n / width >= 2 {
            crate::text_kernels::blocks_parallel_columns(&mut s, "    ", ("m", m, rows), ("n", n, width), &mut block);
        } else {
            crate::text_kernels::blocks(&mut s, "    ", ("m", m, rows), ("n", n, width), &mut block);
        }
        s += "    return\n  }\n}\n";
        s
    }
}

/// Rows of `B` one pass of the streaming one-row kernel adds ([`Matmul::row_function`]).
const ROW_STEPS: i64 = 4;

/// Right operands of a one-row product from this size (bytes) on stream row by row
/// ([`Matmul::row_function`]): about the second-level cache, beyond which the column blocks'
/// strided walk through the rows is memory-bound.
const STREAM_BYTES: i64 = 1 << 20;

impl Matmul {
    /// Whether the kernel for `threads` is the streaming one ([`Matmul::row_function`]): it
    /// adds into the result on every pass, so it cannot start from zero as the block kernel
    /// (which loads every result element once, before its sums) can.
    fn by_rows(&self, threads: i64) -> bool {
        threads <= 1 && self.streams()
    }

    /// Whether this is a one-row product (a classifier head, a batch-1 projection) whose right
    /// operand is too big for the caches: it then streams `B` once, row after row.
    fn streams(&self) -> bool {
        let bytes = if self.elem == "f64" { 8 } else { 4 };
        self.m == 1 && self.k * self.n * bytes >= STREAM_BYTES
    }

    /// The lanes of a register for this matmul's element type, `lanes` of them for f32.
    fn element_lanes(&self, lanes: i64) -> i64 {
        if self.elem == "f64" {
            (lanes / 2).max(2)
        } else {
            lanes
        }
    }

    /// Loads `a[index]` (`at` its type), widened where the left operand is narrower, and
    /// broadcasts it to `vt` as `%av{tag}`, in `indent`.
    fn broadcast_a(&self, s: &mut String, indent: &str, index: &str, tag: &str, at: &str, vt: &str) {
        let Matmul { elem, a_elem, .. } = *self;
        *s += &format!("{indent}%as{tag} = memref.load %a[{index}] : {at}\n");
        let value = if a_elem == elem {
            format!("%as{tag}")
        } else {
            *s += &format!("{indent}%aw{tag} = arith.extf %as{tag} : {a_elem} to {elem}\n");
            format!("%aw{tag}")
        };
        *s += &format!("{indent}%av{tag} = vector.broadcast {value} : {elem} to {vt}\n");
    }

    /// The one-row product as `k` passes over the result row, each adding `a[0, k]` times row
    /// `k` of `B`: `B` is read once, in memory order, while the column blocks of
    /// [`Matmul::function`] walk it `n` elements apart, one block of columns at a time
    /// (MobileNetV2's 1280 x 1000 classifier on one thread: 0.45 -> 0.19-0.29 ms); the row,
    /// in the first-level cache, is loaded and stored once per [`ROW_STEPS`] rows of `B` (one
    /// per row before: the classifier's warm minimum 0.083 -> 0.066-0.071 ms, ResNet-18's 0.063
    /// -> 0.055), and a partial last vector is masked, in the same passes (as a loop of its
    /// own after them, it walked `B` again, a line every `n` elements: the 1280 x 1000
    /// product alone, `B` warm in L3 of this project's AMD host, 0.075 -> 0.066 ms; in the
    /// model, where `B` comes from memory, no change). On one thread only: split in two
    /// contiguous parts of columns (an `scf.forall`), the same classifier took 0.43-0.60 ms
    /// against the column blocks' 0.21.
    /// The sums are in the other kernel's order (`k` ascending from `C`'s value): results do not
    /// depend on which kernel runs.
    fn row_function(&self, types: &[String], lanes: i64) -> String {
        let Matmul { k, n, elem, .. } = *self;
        let lanes = self.element_lanes(lanes);
        let vt = format!("vector<{lanes}x{elem}>");
        let mt = format!("vector<{lanes}xi1>");
        let (at, bt, ct) = (&types[0], &types[1], &types[2]);
        let vectors = n / lanes;
        let n_main = vectors * lanes;
        let mut s = format!("module {{\n  func.func private @matmul(%a: {at}, %b: {bt}, %c: {ct}) {{\n");
        // Passes of `ROW_STEPS` rows of `B`, then single rows up to `k`: a pass loads and
        // stores the result vector once for its rows (the adds in `k` order either way).
        let k_main = k / ROW_STEPS * ROW_STEPS;
        let mut constants = vec![k, lanes, n, n_main, ROW_STEPS, k_main];
        constants.extend(0..ROW_STEPS);
        constants.sort();
        constants.dedup();
        for c in constants {
            s += &format!("    %c{c} = arith.constant {c} : index\n");
        }
        s += &format!("    %zero = arith.constant dense<0.0> : {vt}\n");
        if n > n_main {
            // The partial last vector's lanes, masked in every pass.
            s += &format!("    %left = arith.subi %c{n}, %c{n_main} : index\n");
            s += &format!("    %mask = vector.create_mask %left : {mt}\n");
        }
        // Adds `steps` rows of `B` (from `%k{tag}0`) into the result's vector at `column`, named
        // `%c{name}{tag}{step}`: loaded and stored once, masked for the partial last vector.
        let update = |s: &mut String, indent: &str, tag: &str, steps: i64, name: &str, column: &str, masked: bool| {
            let load = |memref: &str, ty: &str, row: &str| {
                if masked {
                    format!("vector.maskedload %{memref}[{row}, {column}], %mask, %zero : {ty}, {mt}, {vt} into {vt}")
                } else {
                    format!("vector.load %{memref}[{row}, {column}] : {ty}, {vt}")
                }
            };
            let c = format!("%c{name}{tag}");
            *s += &format!("{indent}{c}0 = {}\n", load("c", ct, "%c0"));
            for step in 0..steps {
                let (b, p) = (format!("%b{name}{tag}{step}"), format!("%p{name}{tag}{step}"));
                *s += &format!("{indent}{b} = {}\n", load("b", bt, &format!("%k{tag}{step}")));
                *s += &format!("{indent}{p} = arith.mulf %av{tag}{step}, {b} fastmath<contract> : {vt}\n");
                *s += &format!("{indent}{c}{} = arith.addf {c}{step}, {p} fastmath<contract> : {vt}\n", step + 1);
            }
            *s += &if masked {
                format!("{indent}vector.maskedstore %c[%c0, {column}], %mask, {c}{steps} : {ct}, {mt}, {vt}\n")
            } else {
                format!("{indent}vector.store {c}{steps}, %c[%c0, {column}] : {ct}, {vt}\n")
            };
        };
        let passes = |s: &mut String, from: i64, to: i64, steps: i64, tag: &str| {
            if from >= to {
                return;
            }
            *s += &format!("    scf.for %k{tag} = %c{from} to %c{to} step %c{steps} {{\n");
            for step in 0..steps {
                *s += &format!("      %k{tag}{step} = arith.addi %k{tag}, %c{step} : index\n");
                self.broadcast_a(s, "      ", &format!("%c0, %k{tag}{step}"), &format!("{tag}{step}"), at, &vt);
            }
            if n_main > 0 {
                *s += &format!("      scf.for %j{tag} = %c0 to %c{n_main} step %c{lanes} {{\n");
                update(s, "        ", tag, steps, "v", &format!("%j{tag}"), false);
                *s += "      }\n";
            }
            if n > n_main {
                // The partial last vector of the same rows, while they stream: on its own
                // loop after the passes, its lines were a second walk through `B`, one line a
                // row `n` elements apart, long after the rows left the caches.
                update(s, "      ", tag, steps, "t", &format!("%c{n_main}"), true);
            }
            *s += &format!("    }} {ROLLED}\n");
        };
        passes(&mut s, 0, k_main, ROW_STEPS, "m");
        passes(&mut s, k_main, k, 1, "r");
        s += "    return\n  }\n}\n";
        s
    }
}

impl Pass for VectorizeMatmul {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // Each matmul right after a fill of +0.0 into its result (by its operation's address),
        // with that fill.
        let filled = crate::zero_accumulators::fills_before(module);
        let mut folded: Vec<Op> = Vec::new();
        replace_kernels(module, cx, &["linalg.matmul"], "matmul kernel", "matmuls", |op| {
            let matmul = handles(op.get())?;
            let types: Vec<String> = (0..3).map(|i| op.operand(i).r#type().to_string()).collect();
            if types.iter().any(|t| !t.starts_with("memref<")) {
                return None;
            }
            // A batch matmul's matmuls run on one thread each when the batch is split.
            let threads = if crate::cpu_schedule::inside_forall(op.get()) { 1 } else { self.threads };
            let fill = filled.get(&(op.raw().ptr as usize)).copied().filter(|_| !matmul.by_rows(threads));
            folded.extend(fill);
            Some(matmul.function(&types, self.lanes, threads, fill.is_some()))
        })?;
        for fill in &folded {
            // Safety: the matmul right after it now starts from zero and writes every element
            // of the result; nothing read it in between (it was the op just before).
            unsafe { fill.erase() };
        }
        cx.bump("fills-folded", folded.len() as u64);
        Ok(())
    }
}

/// Whether `value` is the constant `+0.0` (f32 or f64).
pub(crate) fn is_positive_zero(value: Val) -> bool {
    value.owner().filter(|op| op.is("arith.constant")).and_then(|op| op.get().attribute("value").ok()).is_some_and(
        |attribute| {
            let text = attribute.to_string();
            text == "0.000000e+00 : f32" || text == "0.000000e+00 : f64"
        },
    )
}
