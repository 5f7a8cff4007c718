//! `strata-vectorize-integer-matmul{threads}`: the products of `sg.quantized_matmul` (a QDQ
//! model's `uint8` activations times a constant `int8` weight packed `[N / 16, K / 4, 16,
//! 4]`) as AVX-512 VNNI dot products on buffers after planning.
//!
//! The lowering writes three generics: the i32 sums' start (each column's offset, the zero
//! points' share), the sums (`extui * extsi`, read through the packing's `floordiv`/`mod`
//! maps) and the f32 result (sum times the column's scale). This pass replaces the middle one
//! by blocks of 4 rows x 4 vectors of 16 columns whose 16 accumulators the loop over `K / 4`
//! carries in registers: per step one 64-byte load of each packed weight vector (16 columns x
//! 4 depths), the row's 4 bytes broadcast to every lane, and `vpdpbusd` (each lane adds four
//! products of an unsigned and a signed byte: exact, as the i32 sums are). When the first
//! generic is just before it and the third just after (as the lowering writes them), their
//! work happens in the registers: the accumulators start from the offsets, and each is
//! converted, scaled and stored as f32; the i32 buffer is then never touched. Otherwise the
//! accumulators start from the i32 buffer and are stored back into it (the other two generics
//! stay). An i32 result (a `MatMulInteger`'s: no scaling) takes the start alone. With
//! `threads` above 1 and enough work, the whole column blocks are one
//! `scf.forall`. The sums are exact, so results do not depend on the order or the threads.
//!
//! The driver imports such products only for hosts with AVX-512 VNNI
//! (`strata_machine::host_has_avx512_vnni`); elsewhere the float product runs.

use crate::text_kernels::{element, replace_kernels_with, unit_inner_stride, ROLLED};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use std::collections::BTreeMap;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-integer-matmul",
    summary: "Products of uint8 and packed int8 (sg.quantized_matmul) as AVX-512 VNNI dot products in register blocks",
    anchor: "builtin.module",
    options: &[crate::cpu_schedule::THREADS_OPTION],
    statistics: &[
        StatisticInfo { name: "matmuls", help: "Integer products vectorised" },
        StatisticInfo { name: "fused", help: "Products whose offsets and scaling run in their registers" },
        StatisticInfo { name: "started", help: "Products with an i32 result whose offsets start their registers" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeIntegerMatmul { threads: options.int("threads") })
}

struct VectorizeIntegerMatmul {
    threads: i64,
}

/// Rows and 16-lane column vectors of a register block.
const ROWS: i64 = 4;
const VECTORS: i64 = 4;
/// i32 lanes of a register, and bytes each lane sums.
const LANES: i64 = 16;
const DEPTH: i64 = 4;

/// A product this pass takes: `m x k` (uint8) times the packed `k x n` (int8) into i32.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Product {
    m: i64,
    k: i64,
    n: i64,
}

/// The product `op` is, when it is the lowering's sums generic on buffers: inputs `ui8 [M, K]`
/// (unit inner stride) and `i8 [N / 16, K / 4, 16, 4]`, output `i32 [M, N]`, the packed maps.
fn handles(op: OperationRef<'_, '_>) -> Option<Product> {
    if strata_ir::ods::op_name(op) != "linalg.generic" || op.operand_count() != 3 {
        return None;
    }
    let maps = op.attribute("indexing_maps").ok()?.to_string();
    if !maps.contains("d1 floordiv 16, d2 floordiv 4, d1 mod 16, d2 mod 4") {
        return None;
    }
    let mut shapes = Vec::new();
    for (i, expected) in ["ui8", "i8", "i32"].into_iter().enumerate() {
        let ty = op.operand(i).ok()?.r#type();
        if !ty.to_string().starts_with("memref<") || element(ty)? != expected {
            return None;
        }
        if i != 1 && !unit_inner_stride(&ty.to_string()) {
            return None;
        }
        shapes.push(static_shape(ty).ok()?);
    }
    let (&[m, k], &[nb, k4, LANES, DEPTH], &[m2, n]) = (&shapes[0][..], &shapes[1][..], &shapes[2][..]) else {
        return None;
    };
    // The packed weight is a constant of its own: contiguous.
    let packed = op.operand(1).ok()?.r#type().to_string();
    let contiguous = !packed.contains("strided<") && !packed.contains("affine_map");
    (contiguous && m == m2 && k == k4 * DEPTH && n == nb * LANES && m > 0 && k > 0).then_some(Product { m, k, n })
}

/// The operands of `op` when it is a generic whose body is the ops `body` (then its yield):
/// the lowering's start of the sums (a copy: `offsets` into the sums' buffer) or their scaling
/// (`sitofp`, `mulf`: the sums and `scales` into the f32 result).
fn generic_operands(op: Op, body: &[&str]) -> Option<Vec<Val>> {
    let ops: Vec<String> = op.body(0)?.ops().into_iter().map(|o| o.name()).collect();
    let expected = body.iter().copied().chain(["linalg.yield"]);
    (op.is("linalg.generic") && ops.iter().map(String::as_str).eq(expected)).then(|| op.operands())
}

/// Ops that only name memory (views of the arena, constants): nothing reads or writes
/// through them, so a kernel's neighbours are looked for past them.
fn is_view(op: Op) -> bool {
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

impl Product {
    /// The kernel function (MLIR text) for its arguments' `types` (as [`Absorbed`] lists them).
    fn function(&self, types: &[String], threads: i64, absorbed: Absorbed) -> String {
        let Product { m, k, n } = *self;
        let width = LANES * VECTORS;
        let vt = format!("vector<{LANES}xi32>");
        let bt = "vector<64xi8>";
        let (at, packed_t) = (&types[0], &types[1]);
        let k4 = k / DEPTH;
        let blocks = n / LANES;
        let flat_b = format!("memref<{blocks}x{k4}x{}xi8>", LANES * DEPTH);
        let args = match absorbed {
            Absorbed::StartAndScaling => {
                format!("%a: {at}, %b: {packed_t}, %offsets: {}, %scales: {}, %out: {}", types[2], types[3], types[4])
            }
            Absorbed::Start => format!("%a: {at}, %b: {packed_t}, %offsets: {}, %c: {}", types[2], types[3]),
            Absorbed::Nothing => format!("%a: {at}, %b: {packed_t}, %c: {}", types[2]),
        };
        let (start, scaled) = (absorbed != Absorbed::Nothing, absorbed == Absorbed::StartAndScaling);
        // The sums' buffer, when the kernel stores them.
        let ct = types.last().cloned().unwrap_or_default();
        let mut constants: Vec<i64> =
            vec![0, 1, DEPTH, ROWS, LANES, width, k4, m, n, m / ROWS * ROWS, n / width * width];
        constants.extend((0..VECTORS).map(|v| v * LANES));
        constants.extend(0..ROWS);
        constants.sort();
        constants.dedup();
        let mut s = format!("module {{\n  func.func private @integer_matmul({args}) {{\n");
        for c in &constants {
            s += &format!("    %c{c} = arith.constant {c} : index\n");
        }
        s += &format!("    %bf = memref.collapse_shape %b [[0], [1], [2, 3]] : {packed_t} into {flat_b}\n");
        let mut id = 0usize;
        let mut block = |s: &mut String, rows: i64, row: &str, col: &str, partial: bool, indent: &str| {
            id += 1;
            let b = id;
            // The last, narrower block of columns has the vectors left (no masks: N % 16 == 0).
            let vectors = if partial { (n % width) / LANES } else { VECTORS };
            for v in 0..vectors {
                *s += &format!("{indent}%col{b}_{v} = arith.addi {col}, %c{} : index\n", v * LANES);
                *s += &format!("{indent}%nb{b}_{v} = arith.divui %col{b}_{v}, %c{LANES} : index\n");
            }
            let mut inits = Vec::new();
            for r in 0..rows {
                *s += &format!("{indent}%row{b}_{r} = arith.addi {row}, %c{r} : index\n");
            }
            if start {
                for v in 0..vectors {
                    *s += &format!("{indent}%off{b}_{v} = vector.load %offsets[%col{b}_{v}] : {}, {vt}\n", types[2]);
                }
            }
            for r in 0..rows {
                for v in 0..vectors {
                    if start {
                        inits.push(format!("%acc{b}_{r}_{v} = %off{b}_{v}"));
                    } else {
                        *s += &format!(
                            "{indent}%init{b}_{r}_{v} = vector.load %c[%row{b}_{r}, %col{b}_{v}] : {ct}, {vt}\n"
                        );
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
                *s += &format!("{inner}%bv{b}_{v} = vector.load %bf[%nb{b}_{v}, %q{b}, %c0] : {flat_b}, {bt}\n");
            }
            let mut next = Vec::new();
            for r in 0..rows {
                // The row's four bytes at `k`, as one i32 in every lane.
                *s += &format!(
                    "{inner}%a4{b}_{r} = vector.load %a[%row{b}_{r}, %k{b}] : {at}, vector<4xui8>\n\
                     {inner}%a1{b}_{r} = vector.bitcast %a4{b}_{r} : vector<4xui8> to vector<1xi32>\n\
                     {inner}%as{b}_{r} = vector.extract %a1{b}_{r}[0] : i32 from vector<1xi32>\n\
                     {inner}%ab{b}_{r} = vector.broadcast %as{b}_{r} : i32 to {vt}\n\
                     {inner}%av{b}_{r} = vector.bitcast %ab{b}_{r} : {vt} to {bt}\n"
                );
                for v in 0..vectors {
                    *s += &format!(
                        "{inner}%n{b}_{r}_{v} = llvm.call_intrinsic \"llvm.x86.avx512.vpdpbusd.512\"(%acc{b}_{r}_{v}, %av{b}_{r}, %bv{b}_{v}) : ({vt}, {bt}, {bt}) -> {vt}\n"
                    );
                    next.push(format!("%n{b}_{r}_{v}"));
                }
            }
            *s += &format!("{inner}scf.yield {} : {acc_types}\n{indent}}} {ROLLED}\n", next.join(", "));
            if scaled {
                for v in 0..vectors {
                    *s += &format!(
                        "{indent}%scale{b}_{v} = vector.load %scales[%col{b}_{v}] : {}, vector<{LANES}xf32>\n",
                        types[3]
                    );
                }
            }
            for r in 0..rows {
                for v in 0..vectors {
                    let value = format!("%sum{b}#{}", r * vectors + v);
                    if scaled {
                        *s += &format!(
                            "{indent}%f{b}_{r}_{v} = arith.sitofp {value} : {vt} to vector<{LANES}xf32>\n\
                             {indent}%y{b}_{r}_{v} = arith.mulf %f{b}_{r}_{v}, %scale{b}_{v} : vector<{LANES}xf32>\n\
                             {indent}vector.store %y{b}_{r}_{v}, %out[%row{b}_{r}, %col{b}_{v}] : {}, vector<{LANES}xf32>\n",
                            types[4]
                        );
                    } else {
                        *s += &format!("{indent}vector.store {value}, %c[%row{b}_{r}, %col{b}_{v}] : {ct}, {vt}\n");
                    }
                }
            }
        };
        let parallel = m * k * n >= crate::conv_lanes::PARALLEL_MACS;
        if threads > 1 && parallel && n / width >= 2 {
            crate::text_kernels::blocks_parallel_columns(&mut s, "    ", ("m", m, ROWS), ("n", n, width), &mut block);
        } else {
            crate::text_kernels::blocks(&mut s, "    ", ("m", m, ROWS), ("n", n, width), &mut block);
        }
        s += "    return\n  }\n}\n";
        s
    }
}

impl Pass for VectorizeIntegerMatmul {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let threads = self.threads;
        let (mut fused, mut started) = (0u64, 0u64);
        // Between the three generics, planning leaves views of the arena (and their constants):
        // those after the sums move before them, so the scaling's buffers are defined where the
        // kernel goes; then each generic's predecessor among the kernels, by its address (the
        // C API has no previous-op walk).
        for op in collect(&module, |op| op.is("linalg.generic") && handles(op.get()).is_some()) {
            let mut between = Vec::new();
            let mut next = op.next();
            while let Some(view) = next.filter(|n| is_view(*n)) {
                between.push(view);
                next = view.next();
            }
            if next.is_some_and(|n| n.is("linalg.generic")) {
                for view in between {
                    view.move_before(op);
                }
            }
        }
        let previous: BTreeMap<usize, Op> = collect(&module, |op| op.is("linalg.generic"))
            .into_iter()
            .filter_map(|op| {
                let mut next = op.next()?;
                while is_view(next) {
                    next = next.next()?;
                }
                Some((next.raw().ptr as usize, op))
            })
            .collect();
        replace_kernels_with(module, cx, &["linalg.generic"], "integer matmul kernel", "matmuls", |op, absorbed| {
            let product = handles(op.get())?;
            let operands = op.operands();
            let sums = operands[2];
            // The start just before (offsets into the sums' buffer) and the scaling just after
            // (the sums and the scales into an f32 buffer of the same shape).
            let vector_of = |value: Val, elem: &str| {
                element(value.r#type()).is_some_and(|e| e == elem)
                    && static_shape(value.r#type()).is_ok_and(|shape| shape == [product.n])
            };
            let start = previous.get(&(op.raw().ptr as usize)).copied().and_then(|prev| {
                let o = generic_operands(prev, &[])?;
                (o.len() == 2 && o[1] == sums && o[0] != sums && vector_of(o[0], "i32")).then_some((prev, o[0]))
            });
            let scaling = op.next().and_then(|next| {
                let o = generic_operands(next, &["arith.sitofp", "arith.mulf"])?;
                let f32_out = element(o.get(2)?.r#type()).is_some_and(|e| e == "f32")
                    && static_shape(o[2].r#type()).ok()? == [product.m, product.n]
                    && unit_inner_stride(&o[2].r#type().to_string());
                let scales = o.len() == 3 && o[1] != sums && vector_of(o[1], "f32");
                (scales && o[0] == sums && o[2] != sums && f32_out).then_some((next, o[1], o[2]))
            });
            let (kernel_operands, kind) = match (start, scaling) {
                (Some((prev, offsets)), Some((next, scales, out))) => {
                    absorbed.extend([prev, next]);
                    (vec![operands[0], operands[1], offsets, scales, out], Absorbed::StartAndScaling)
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
            Some((product.function(&types, threads, kind), kernel_operands))
        })?;
        cx.bump("fused", fused);
        cx.bump("started", started);
        Ok(())
    }
}
