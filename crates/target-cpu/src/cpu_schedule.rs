//! `strata-cpu-schedule`: applies Strata's host schedule (`schedules/cpu-loop-order.mlir`, a
//! transform-dialect script) to the module with MLIR's transform interpreter. Today the
//! schedule fixes loop order: the pass marks the ops whose reduction and kernel-window loops
//! should run outside (`strata.loop_order = "reduction_outer"`, chosen by
//! [`reduction_outer`] from the op's shapes), and the script interchanges exactly those, so
//! their innermost loop walks contiguous output memory and vectorises.
//!
//! The pass appends the script as a nested `transform.with_named_sequence` module, runs
//! `transform-interpreter` on the module, and removes the script again.

use crate::conv_lanes::Registers;
use crate::matmul_tiles::cache_label;
pub use crate::matmul_tiles::{cache_tiles, parallel_tiles, register_tile, Order};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::BlockLike;
use melior::ir::ValueLike;
use std::collections::BTreeMap;
use strata_ir::rewrite::collect;
use strata_ir::{attrs, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_ir::{Op, Val};
use strata_lower::ops::tensor_type;

/// The schedule script.
pub const SCHEDULE: &str = include_str!("../schedules/cpu-loop-order.mlir");

/// Whether `op` runs faster with its reduction loops outside its contiguous output loops.
/// Measured single-threaded on every convolution shape of MobileNetV2 and on BERT-tiny:
/// depthwise convolutions and pooling always (8-17x); other convolutions when the reduction
/// per output (input channels per group x window) is at least 64 (up to 16x; below that the
/// dot product innermost wins, up to 2.3x); matmuls whose rows are at least 32 wide (3x on
/// BERT-tiny). This is a stop-gap until kernels are tiled and vectorised explicitly.
pub fn reduction_outer(op: OperationRef<'_, '_>) -> bool {
    let name = strata_ir::ods::op_name(op);
    let shape = |index: usize| op.operand(index).ok().and_then(|v| tensor_type(v.r#type()).ok()).map(|t| t.shape);
    match name.as_str() {
        "linalg.depthwise_conv_2d_nchw_chw" | "linalg.pooling_nchw_max" | "linalg.pooling_nchw_sum" => true,
        // Filter: F x C/g x KH x KW, or G x F/g x C/g x KH x KW.
        "linalg.conv_2d_nchw_fchw" | "linalg.conv_2d_ngchw_gfchw" => {
            shape(1).is_some_and(|filter| filter.iter().rev().take(3).product::<i64>() >= 64)
        }
        "linalg.matmul" | "linalg.batch_matmul" => {
            shape(2).and_then(|out| out.last().copied()).is_some_and(|n| n >= 32)
        }
        _ => false,
    }
}

pub static INFO: PassInfo = PassInfo {
    name: "strata-cpu-schedule",
    summary: "Apply the host schedule (transform-dialect scripts, MLIR's transform interpreter): register-blocked vectorised convolutions, loop order for the rest",
    anchor: "builtin.module",
    options: &[
        OptionInfo {
            name: "vector-lanes",
            kind: OptionKind::Int,
            default: "0",
            help: "f32 lanes of a vector register for the convolutions' register blocks: 16 (AVX-512: 32 registers), other counts 16 registers (8: AVX, 4: SSE); 0 = this machine's",
        },
        THREADS_OPTION,
        OptionInfo {
            name: "inject-conv-failure",
            kind: OptionKind::Bool,
            default: "false",
            help: "testing only: make the convolution schedule fail (an untiled convolution vectorised), to exercise the fallback to loop nests",
        },
    ],
    statistics: &[
        StatisticInfo { name: "convolutions", help: "Convolutions register-blocked and vectorised" },
        StatisticInfo { name: "conv-fallbacks", help: "Modules whose convolution schedule failed and whose convolutions run as loop nests instead" },
        StatisticInfo { name: "spatial-convolutions", help: "Of those, convolutions with output columns in the lanes (too few filters or taps for filter lanes, or grouped)" },
        StatisticInfo {
            name: "matmul-convolutions",
            help: "1x1 convolutions no register block takes, run as the matmuls they are",
        },
        StatisticInfo { name: "batch-matmuls", help: "Batch matmuls split into a loop of vectorised matmuls" },
        StatisticInfo {
            name: "column-blocked-matmuls",
            help: "Matmuls with few rows and a big constant weight run 32 columns at a time (the weight then packed by blocks)",
        },
        StatisticInfo { name: "peeled-matmuls", help: "Matmuls split into rows a multiple of 8 (register-blocked) and the rest" },
        StatisticInfo { name: "outer-products", help: "Convolution steps written as vector outer products" },
        StatisticInfo { name: "padded-weights", help: "Matmul weights stored with rows one cache line longer" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    let registers = match options.int("vector-lanes") {
        lanes if lanes > 0 => Registers::for_lanes(lanes),
        _ => Registers::host(),
    };
    Box::new(CpuSchedule {
        registers,
        threads: options.int("threads"),
        inject_failure: options.bool("inject-conv-failure"),
    })
}

/// The `threads` option of the schedules: above 1, the tile loops of the convolutions and
/// matmuls are one `scf.forall` (run by OpenMP threads) instead of nested `scf.for`s.
pub(crate) const THREADS_OPTION: OptionInfo = OptionInfo {
    name: "threads",
    kind: OptionKind::Int,
    default: "1",
    help: "threads the model will run on: above 1, the tile loops are scf.forall (parallel)",
};

struct CpuSchedule {
    registers: Registers,
    threads: i64,
    inject_failure: bool,
}

/// Which part of the schedule failed: the convolutions' (rewrite or script: the pass falls
/// back to loop nests) or another (the pass fails).
enum Failed {
    Convolutions,
    Elsewhere,
}

/// What one application of the schedule did (the pass's statistics).
#[derive(Default)]
struct Scheduled {
    convolutions: usize,
    spatial: usize,
    matmul_convolutions: usize,
    batch_matmuls: usize,
    column_blocked: usize,
    peeled_matmuls: usize,
    outer_products: usize,
    padded_weights: usize,
}

impl Pass for CpuSchedule {
    /// The schedule with register-blocked convolutions; if that fails (a convolution shape the
    /// transform script cannot tile or vectorise: a Strata bug, but never the user's compile
    /// failure), the module as it was, scheduled again with every convolution left to the
    /// loop-order schedule, and a warning saying so.
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let has_convs =
            !collect(&module, |op| op.is("linalg.conv_2d_nchw_fchw") || op.is("linalg.conv_2d_ngchw_gfchw")).is_empty();
        let done = if has_convs {
            let checkpoint = Checkpoint::new(module, cx);
            let outcome = self.schedule(module, cx, true);
            match outcome {
                // Done, or not the convolutions' fault (no fallback): the diagnostics as they are.
                Ok(_) | Err(Failed::Elsewhere) => {
                    checkpoint.keep(cx);
                    outcome.map_err(|_| PassFailed)?
                }
                Err(Failed::Convolutions) => {
                    let why = checkpoint.restore(module, cx);
                    cx.emit_op_warning(
                        module,
                        format!(
                            "the register-blocked convolution schedule failed to apply ({why}); the convolutions run as loop nests instead (same results, slower; a Strata bug, please report it)"
                        ),
                    );
                    cx.bump("conv-fallbacks", 1);
                    self.schedule(module, cx, false).map_err(|_| PassFailed)?
                }
            }
        } else {
            self.schedule(module, cx, false).map_err(|_| PassFailed)?
        };
        cx.bump("convolutions", done.convolutions as u64);
        cx.bump("spatial-convolutions", done.spatial as u64);
        cx.bump("matmul-convolutions", done.matmul_convolutions as u64);
        cx.bump("batch-matmuls", done.batch_matmuls as u64);
        cx.bump("column-blocked-matmuls", done.column_blocked as u64);
        cx.bump("peeled-matmuls", done.peeled_matmuls as u64);
        cx.bump("outer-products", done.outer_products as u64);
        cx.bump("padded-weights", done.padded_weights as u64);
        Ok(())
    }
}

/// A module as it was before a step that may fail (a transform script), with the diagnostics
/// emitted before it: the step's own diagnostics are kept if it succeeds, and dropped, the
/// module put back, if it fails (a fallback then takes over, with a warning of its own).
pub(crate) struct Checkpoint<'c> {
    backup: melior::ir::Operation<'c>,
    earlier: Vec<strata_ir::Diagnostic>,
}

impl<'c> Checkpoint<'c> {
    pub(crate) fn new(module: OperationRef<'c, '_>, cx: &PassContext<'_>) -> Checkpoint<'c> {
        Checkpoint { backup: Op::of(&module).clone_owned(), earlier: cx.strata().sink().take() }
    }

    /// The step succeeded: every diagnostic, earlier and its own, stays (the copy is freed).
    pub(crate) fn keep(self, cx: &PassContext<'_>) {
        let sink = cx.strata().sink();
        let during = sink.take();
        for diagnostic in self.earlier.into_iter().chain(during) {
            sink.push(diagnostic);
        }
    }

    /// The step failed: `module` as it was, the step's diagnostics dropped; the first error's
    /// message (to say why in the fallback's warning).
    pub(crate) fn restore(self, module: OperationRef<'_, '_>, cx: &PassContext<'_>) -> String {
        let sink = cx.strata().sink();
        let during = sink.take();
        for diagnostic in self.earlier {
            sink.push(diagnostic);
        }
        let into = module.region(0).expect("a module has a body");
        let from = self.backup.region(0).expect("its copy too");
        strata_ir::rewrite::take_body(into, from);
        during
            .iter()
            .find(|d| d.severity == strata_ir::Severity::Error)
            .map_or_else(|| "no diagnostic".to_owned(), |d| d.message.clone())
    }
}

impl CpuSchedule {
    /// Applies the schedule, with the register-blocked convolutions when `convolutions`.
    fn schedule(
        &self,
        module: OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
        convolutions: bool,
    ) -> Result<Scheduled, Failed> {
        let mut done = Scheduled::default();
        let convs = if convolutions {
            let (convs, count, spatial) = crate::conv_lanes::rewrite(module, cx, self.registers, self.threads)
                .map_err(|_| Failed::Convolutions)?;
            (done.convolutions, done.spatial) = (count, spatial);
            done.matmul_convolutions =
                crate::conv_matmul::pointwise_as_matmuls(module, cx).map_err(|_| Failed::Convolutions)?;
            convs
        } else {
            Vec::new()
        };
        done.batch_matmuls = split_batch_matmuls(module, cx, self.threads).map_err(|_| Failed::Elsewhere)?;
        done.column_blocked =
            crate::column_blocks::block_columns(module, cx, self.threads).map_err(|_| Failed::Elsewhere)?;
        done.peeled_matmuls =
            crate::peel_matmuls::peel_matmuls(module, cx, self.threads).map_err(|_| Failed::Elsewhere)?;
        done.padded_weights = pad_matmul_weights(module, cx);
        for (value, select) in [
            ("vectorize", vectorizable as fn(OperationRef<'_, '_>) -> bool),
            // The depthwise convolutions and matmuls `strata-vectorize-depthwise` and
            // `strata-vectorize-matmul` take stay named ops.
            ("reduction_outer", |op| {
                !vectorizable(op)
                    && reduction_outer(op)
                    && crate::vectorize_depthwise::handles(op).is_none()
                    && crate::vectorize_matmul::handles(op).is_none()
            }),
        ] {
            for raw in collect(&module, |op| select(op.get())) {
                attrs::LOOP_ORDER.set(raw.get(), value);
            }
        }
        apply_script(module, cx, SCHEDULE, "schedules/cpu-loop-order.mlir", "the host schedule")
            .map_err(|_| Failed::Elsewhere)?;
        if convs.is_empty() {
            return Ok(done);
        }
        let mut script = conv_script(&convs);
        if self.inject_failure {
            // Vectorising a convolution before it is tiled fails ("Attempted to vectorize").
            let anchor = "    %f = transform.structured.match ops{[\"func.func\"]}";
            script = script.replacen(
                anchor,
                &format!("    %untiled = transform.structured.match ops{{[\"linalg.generic\"]}} in %root : (!transform.any_op) -> !transform.any_op\n    transform.structured.vectorize %untiled : !transform.any_op\n{anchor}"),
                1,
            );
        }
        apply_script(module, cx, &script, "schedules/cpu-conv.mlir", "the convolution schedule")
            .map_err(|_| Failed::Convolutions)?;
        done.outer_products = crate::conv_outer::rewrite(cx.strata().mlir(), module);
        Ok(done)
    }
}

/// The convolution script (tensor level).
pub const CONV: &str = include_str!("../schedules/cpu-conv.mlir");

/// [`CONV`] with one tiling per distinct convolution block (parallel blocks: the tile loops
/// are one `scf.forall`).
pub fn conv_script(blocks: &[crate::conv_lanes::ConvBlock]) -> String {
    let (mut tiling, mut epilogues, mut fold, mut vectorize) =
        (String::new(), String::new(), String::new(), String::new());
    for (i, block) in blocks.iter().enumerate() {
        // The tile loops' results: four nested `scf.for`s (five for a grouped convolution or a
        // packed filter), or one `scf.forall`.
        let (forall, loops, loop_types) = match (block.parallel, block.grouped || block.packed) {
            (true, _) => (" {use_forall}", "", "!transform.any_op".to_string()),
            (false, false) => ("", ":4", ["!transform.any_op"; 4].join(", ")),
            (false, true) => ("", ":5", ["!transform.any_op"; 5].join(", ")),
        };
        let [th, tw, tf] = block.tiles;
        let label = block.label();
        // A partial block (`tw` not dividing the columns, or, with columns in the lanes, `tf`
        // not dividing the filters) is tiled in two levels: every loop but the partial one
        // (with a size of 0: whole rows, or every filter), then that one in an `scf.for` of
        // its own, whose last, narrower block is peeled off (its sizes static once the
        // single-iteration rest loop folds: canonicalised right away) and vectorised at its
        // own width. The tiles' reduction loops are stepped after the dead copies go (in
        // the EPILOGUES section), on every copy of the convolution that carries the label.
        let partial_filters = block.partial_filters && block.spatial && !block.grouped && !block.partial;
        let partial = block.partial && !block.grouped || partial_filters;
        // A flattened convolution split into chunks of positions takes a chunk at a time.
        let tw_first = if partial && !partial_filters { block.chunk } else { tw };
        let tf_first = if partial_filters { 0 } else { tf };
        // Sequential tiles of a partial block: every loop but the partial one, plus the chunks
        // of positions where a one-thread convolution takes them (`conv_flatten::cache_chunk`).
        let chunked = usize::from(block.chunk > 0 && !partial_filters);
        let (loops, loop_types) = match (block.parallel, partial, block.packed) {
            (true, _, _) => (loops, loop_types),
            (false, true, false) => {
                (if chunked == 1 { ":4" } else { ":3" }, vec!["!transform.any_op"; 3 + chunked].join(", "))
            }
            (false, true, true) => {
                (if chunked == 1 { ":5" } else { ":4" }, vec!["!transform.any_op"; 4 + chunked].join(", "))
            }
            (false, false, _) => (loops, loop_types),
        };
        // The loop of the partial dimension: its index among the tiled op's loops, and size.
        let peel = |tiled: &str, (dim, size): (usize, i64)| {
            let mut sizes = vec!["0".to_string(); if block.packed { 8 } else { 7 }];
            sizes[dim] = size.to_string();
            format!(
                "    %pt{i}, %pw{i} = transform.structured.fuse {tiled} tile_sizes [{}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %pf{i} = transform.cast %pw{i} : !transform.any_op to !transform.op<\"scf.for\">
    %pp{i} = transform.get_parent_op %pf{i} : (!transform.op<\"scf.for\">) -> !transform.any_op
    %pm{i}, %pr{i} = transform.loop.peel %pf{i} : (!transform.op<\"scf.for\">) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %pp{i} {{
      transform.apply_patterns.canonicalization
    }} : !transform.any_op
",
                sizes.join(", ")
            )
        };
        // The reduction loops of `tiled` (the convolution's tile), one (c, kh, kw) a step; a
        // grouped convolution (g) or a packed filter (fo, fi) has one more parallel loop.
        let parallel_zeros = if block.grouped || block.packed { "0, 0, 0, 0, 0" } else { "0, 0, 0, 0" };
        // With rolled taps (`ConvBlock::rolled_taps`), the window's loops (kh, kw) carry an
        // annotation that keeps LLVM from unrolling them.
        let rolled = if block.rolled_taps {
            format!("    %rolled{i} = transform.param.constant #llvm.loop_annotation<unroll = <disable = true>> -> !transform.any_param\n\
    transform.annotate %crl{i}#1 \"loop_annotation\" = %rolled{i} : !transform.any_op, !transform.any_param\n\
    transform.annotate %crl{i}#2 \"loop_annotation\" = %rolled{i} : !transform.any_op, !transform.any_param\n")
        } else {
            String::new()
        };
        let reduction = |tiled: &str| {
            format!("    %cr{i}, %crl{i}:3 = transform.structured.tile_using_for {tiled} tile_sizes [{parallel_zeros}, 1, 1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)\n{rolled}")
        };
        let matched = format!("    %cv{i} = transform.structured.match ops{{[\"linalg.generic\"]}} attributes{{strata.conv_tiles = \"{label}\"}} in %root : (!transform.any_op) -> !transform.any_op\n");
        if block.epilogue {
            // The epilogue's loops are (n, f, oh, ow): tiled by the convolution's block in the
            // convolution's loop order.
            // Chunks of positions outside the filters, so that a thread's share of the
            // parallel tiles is its chunk's.
            let interchange = match (block.filters_outer, block.spatial) {
                (true, _) => "",
                (false, false) => " interchange [0, 2, 3, 1]",
                (false, true) if block.chunk > 0 => " interchange [0, 2, 3, 1]",
                (false, true) => " interchange [0, 2, 1, 3]",
            };
            tiling += &format!(
                "    %ev{i} = transform.structured.match ops{{[\"linalg.generic\"]}} attributes{{strata.conv_epilogue = \"{label}\"}} in %root : (!transform.any_op) -> !transform.any_op\n\
    %et{i}, %el{i}{loops} = transform.structured.fuse %ev{i} tile_sizes [1, {tf_first}, {th}, {tw_first}]{interchange}{forall} : (!transform.any_op) -> (!transform.any_op, {loop_types})\n"
            );
            if partial {
                // (n, f, oh, ow): the filters are loop 1, the columns loop 3.
                tiling += &peel(&format!("%et{i}"), if partial_filters { (1, tf) } else { (3, tw) });
            }
            epilogues += &matched;
            epilogues += &reduction(&format!("%cv{i}"));
        } else {
            // The convolution's loops: (n, oh, ow, f), or (n, oh, f, ow) with columns in the lanes.
            // A packed filter's: (n, oh, ow, fo, fi).
            let (tw, tf) = (tw_first, tf_first);
            let (sizes, interchange) = match (block.filters_outer, block.spatial) {
                _ if block.grouped => (format!("1, {th}, {tf}, {tw}"), ""),
                (outer, _) if block.packed => {
                    (format!("{th}, {tw}, 1, {tf}"), if outer { " interchange [0, 3, 1, 2, 4, 5, 6, 7]" } else { "" })
                }
                (false, false) => (format!("{th}, {tw}, {tf}"), ""),
                (true, false) => (format!("{th}, {tw}, {tf}"), " interchange [0, 3, 1, 2, 4, 5, 6]"),
                (false, true) if block.chunk > 0 => (format!("{th}, {tf}, {tw}"), " interchange [0, 1, 3, 2, 4, 5, 6]"),
                (false, true) => (format!("{th}, {tf}, {tw}"), ""),
                (true, true) => (format!("{th}, {tf}, {tw}"), " interchange [0, 2, 1, 3, 4, 5, 6]"),
            };
            tiling += &matched;
            tiling += &format!(
                "    %ct{i}, %cl{i}{loops} = transform.structured.fuse %cv{i} tile_sizes [1, {sizes}, 0, 0, 0]{interchange}{forall} : (!transform.any_op) -> (!transform.any_op, {loop_types})\n"
            );
            if partial {
                // The columns: loop 2 of (n, oh, ow, f), 3 of (n, oh, f, ow); the filters
                // loop 2 of (n, oh, f, ow).
                let dim = match (partial_filters, block.spatial) {
                    (true, _) => (2, block.tiles[2]),
                    (false, true) => (3, block.tiles[1]),
                    (false, false) => (2, block.tiles[1]),
                };
                tiling += &peel(&format!("%ct{i}"), dim);
                epilogues += &format!("    %cq{i} = transform.structured.match ops{{[\"linalg.generic\"]}} attributes{{strata.conv_tiles = \"{label}\"}} in %root : (!transform.any_op) -> !transform.any_op\n");
                epilogues += &reduction(&format!("%cq{i}"));
            } else {
                tiling += &reduction(&format!("%ct{i}"));
            }
        }
        fold += &format!(
            "    %cp{i} = transform.get_parent_op %crl{i}#0 : (!transform.any_op) -> !transform.any_op\n\
    transform.foreach %cp{i} : !transform.any_op {{\n\
    ^bb0(%tile: !transform.any_op):\n\
      transform.apply_patterns to %tile {{\n\
        transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices\n\
        transform.apply_patterns.canonicalization\n\
      }} : !transform.any_op\n\
    }}\n"
        );
        vectorize += &format!(
            "    transform.foreach %cp{i} : !transform.any_op {{\n\
    ^bb0(%tile: !transform.any_op):\n\
      %ops = transform.structured.match ops{{[\"linalg.generic\", \"linalg.fill\"]}} in %tile : (!transform.any_op) -> !transform.any_op\n\
      transform.structured.vectorize %ops : !transform.any_op\n\
    }}\n"
        );
    }
    CONV.replace("    // CONVS\n", &tiling)
        .replace("    // EPILOGUES", &format!("{epilogues}    // EPILOGUES"))
        .replace("    // FOLD", &format!("{fold}    // FOLD"))
        .replace("    // VECTORIZE", &format!("{vectorize}    // VECTORIZE"))
}

/// Stores each constant `K x N` right-hand side of an f32 `linalg.matmul` whose rows are an
/// even number of cache lines from 128 columns up with one line more per row, read through a
/// slice (see [`crate::conv_lanes::padded_row`]): the register blocks step down its rows, and
/// rows a power-of-two number of lines apart (GPT-2's 1024 columns: 4 KiB, every row in the
/// same L1 set) evicted each other within a block's reduction. Shared weights are padded once;
/// a constant that something other than these matmuls also reads (tied embeddings) is then
/// stored twice, as it is and padded.
fn pad_matmul_weights(module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> usize {
    let context = cx.strata().mlir();
    let mut padded: BTreeMap<usize, Val> = BTreeMap::new();
    let mut count = 0;
    for raw in collect(&module, |op| op.is("linalg.matmul")) {
        let op = raw.get();
        let Some(weights) = op.operand(1).ok() else { continue };
        let Some(constant) =
            strata_ir::rewrite::defining_op(weights).filter(|d| strata_ir::ods::op_name(*d) == "arith.constant")
        else {
            continue;
        };
        let Ok(ty) = tensor_type(weights.r#type()) else { continue };
        let [k, n] = ty.shape[..] else { continue };
        let row = crate::conv_lanes::padded_row(n);
        if ty.elem.name != "f32" || row == n || !f32_operands(op) {
            continue;
        }
        let stored_ty = ty.with_shape(vec![k, row]);
        let pad_rows = |values: &[f32]| {
            if values.len() as i64 != k * n {
                return None;
            }
            let mut rows = vec![0f32; (k * row) as usize];
            for (r, chunk) in values.chunks(n as usize).enumerate() {
                rows[r * row as usize..][..n as usize].copy_from_slice(chunk);
            }
            Some(rows)
        };
        let Some(stored) = crate::conv_lanes::compile_time_constant(
            &mut padded,
            context,
            op,
            constant,
            &stored_ty,
            "matmul_rows",
            pad_rows,
        ) else {
            continue;
        };
        let slice = crate::vector_ops::build(
            context,
            Op::of(&op),
            "tensor.extract_slice",
            &[stored],
            &ty.to_string(),
            &[
                ("static_offsets", "array<i64: 0, 0>".into()),
                ("static_sizes", format!("array<i64: {k}, {n}>")),
                ("static_strides", "array<i64: 1, 1>".into()),
                ("operandSegmentSizes", "array<i32: 1, 0, 0, 0>".into()),
            ],
        );
        if let Some(slice) = slice {
            Op::of(&op).set_operand(1, slice);
            count += 1;
        }
    }
    count
}

/// Whether a matmul's three operands are f32 tensors.
fn f32_operands(op: OperationRef<'_, '_>) -> bool {
    (0..3).all(|i| op.operand(i).ok().and_then(|v| tensor_type(v.r#type()).ok()).is_some_and(|t| t.elem.name == "f32"))
}

/// The shapes `[b, m, k, n]` of a batch matmul to split into matmuls: static f32 with the
/// default maps. Each matmul then takes the register-blocked schedule when its shape fits the
/// blocks ([`vectorizable`]), else `strata-vectorize-matmul` (masked partial blocks).
fn batch_matmul_shape(op: OperationRef<'_, '_>) -> Option<[i64; 4]> {
    if strata_ir::ods::op_name(op) != "linalg.batch_matmul" || op.operand_count() != 3 {
        return None;
    }
    let ty = |i: usize| op.operand(i).ok().and_then(|v| tensor_type(v.r#type()).ok());
    let (a, b, c) = (ty(0)?, ty(1)?, ty(2)?);
    if [&a, &b, &c].iter().any(|t| t.elem.name != "f32" || t.shape.len() != 3) {
        return None;
    }
    // Transposed or broadcast operands (user-defined maps) are not this rewrite's.
    if op.attribute("indexing_maps").is_ok_and(|maps| !maps.to_string().contains("(d0, d1, d3)")) {
        return None;
    }
    let [batch, m, k] = [a.shape[0], a.shape[1], a.shape[2]];
    let n = b.shape[2];
    let ok = b.shape[..2] == [batch, k] && c.shape == [batch, m, n] && m > 0 && n > 0 && k > 0;
    ok.then_some([batch, m, k, n])
}

/// Rewrites each batch matmul into a loop over the batch of `linalg.matmul`s on slices
/// (attention's scores and context: they ran as a scalar loop nest, 2x ONNX Runtime; with 100
/// frames and heads of 36, a Conformer's context product 0.42 ms against 0.02 split); returns
/// how many.
///
/// With `threads` above 1, a batch that the threads divide (or of at least four matmuls a
/// thread) and enough work ([`crate::conv_lanes::PARALLEL_MACS`]) is an `scf.forall`, each
/// thread taking whole matmuls ([`inside_forall`]: they are not split again). Split inside
/// each matmul instead, attention's 4 x (128 x 32 x 128) scores ran slower on two threads than
/// on one (a fork and join per matmul, each thread reading every row of both).
fn split_batch_matmuls(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    threads: i64,
) -> Result<usize, PassFailed> {
    let mut kernels = strata_lower::kernel::KernelCache::default();
    let mut count = 0;
    for raw in collect(&module, |op| batch_matmul_shape(op.get()).is_some()) {
        let Some([batch, m, k, n]) = batch_matmul_shape(raw.get()) else { continue };
        // The busiest thread's share of whole matmuls against an even split: at most 4/3
        // (three heads on two threads: two and one).
        let t = threads.max(1);
        let even = batch >= 4 * t || 3 * t * ((batch + t - 1) / t) <= 4 * batch;
        let parallel = threads > 1 && batch >= threads && even && batch * m * k * n >= crate::conv_lanes::PARALLEL_MACS;
        let item = if parallel { format!(" {{{}}}", attrs::BATCH_ITEM.in_dictionary()) } else { String::new() };
        let (head, insert) = if parallel {
            (
                format!("%r = scf.forall (%i) in ({batch}) shared_outs(%acc = %c) -> (tensor<{batch}x{m}x{n}xf32>) {{"),
                format!(
                    "scf.forall.in_parallel {{
        tensor.parallel_insert_slice %p into %acc[%i, 0, 0] [1, {m}, {n}] [1, 1, 1] : tensor<{m}x{n}xf32> into tensor<{batch}x{m}x{n}xf32>
      }}"
                ),
            )
        } else {
            (
                format!("%r = scf.for %i = %c0 to %cb step %c1 iter_args(%acc = %c) -> (tensor<{batch}x{m}x{n}xf32>) {{"),
                format!(
                    "%u = tensor.insert_slice %p into %acc[%i, 0, 0] [1, {m}, {n}] [1, 1, 1] : tensor<{m}x{n}xf32> into tensor<{batch}x{m}x{n}xf32>
      scf.yield %u : tensor<{batch}x{m}x{n}xf32>"
                ),
            )
        };
        // Where the product starts from a fill of a new tensor (or a broadcast), each matmul fills its
        // own slice of the result: on the thread that computes it, not the whole result at
        // once before the loop (three heads on two threads: each thread read the rows the
        // other had filled from the other core). A slice, not a new tensor of its own: the
        // matmul's split into register blocks and the rest (`peel_matmuls`) nests its parts'
        // insertions in it, which `eliminate-empty-tensors` would leave a stale slice of.
        let text = |how: crate::peel_matmuls::Start| {
            let (init, start, slice) = crate::peel_matmuls::slice_init(
                how,
                &format!("tensor<{batch}x{m}x{n}xf32>"),
                &format!("[%i, 0, 0] [1, {m}, {n}] [1, 1, 1]"),
                &format!("tensor<{m}x{n}xf32>"),
                ("0", n),
            );
            format!(
                "module {{
  func.func private @batch_matmul(%a: tensor<{batch}x{m}x{k}xf32>, %b: tensor<{batch}x{k}x{n}xf32>, {init}) -> tensor<{batch}x{m}x{n}xf32> {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb = arith.constant {batch} : index
    {start}
    {head}
      %as = tensor.extract_slice %a[%i, 0, 0] [1, {m}, {k}] [1, 1, 1] : tensor<{batch}x{m}x{k}xf32> to tensor<{m}x{k}xf32>
      %bs = tensor.extract_slice %b[%i, 0, 0] [1, {k}, {n}] [1, 1, 1] : tensor<{batch}x{k}x{n}xf32> to tensor<{k}x{n}xf32>
      {slice}
      %p = linalg.matmul{item} ins(%as, %bs : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%cs : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
      {insert}
    }}
    return %r : tensor<{batch}x{m}x{n}xf32>
  }}
}}
"
            )
        };
        // Safety: `raw` is a batch matmul of this module, replaced once and not used afterwards.
        unsafe {
            crate::peel_matmuls::replace_matmul(&mut kernels, cx, Op::of(&raw.get()), text, "batch matmul loop")?
        };
        count += 1;
    }
    Ok(count)
}

/// Whether `op` runs inside an `scf.forall` (a batch matmul's parallel loop): its threads are
/// taken, so it is not split again (a nested OpenMP region would run on one thread anyway,
/// after a fork).
pub fn inside_forall(op: OperationRef<'_, '_>) -> bool {
    Op::of(&op).ancestor("scf.forall").is_some()
}

/// Whether `op` is a matmul the vectorising schedule handles: static f32, rows a multiple of
/// 8 and columns a multiple of 32 (the register block; no partial blocks).
pub fn vectorizable(op: OperationRef<'_, '_>) -> bool {
    if strata_ir::ods::op_name(op) != "linalg.matmul" {
        return false;
    }
    // Every operand f32 (a half-precision matmul accumulating in f32 is not this schedule's).
    let out = op.operand(2).ok().and_then(|v| tensor_type(v.r#type()).ok());
    f32_operands(op)
        && out.is_some_and(|t| {
            t.shape.len() == 2 && t.shape[0] > 0 && t.shape[0] % 8 == 0 && t.shape[1] > 0 && t.shape[1] % 32 == 0
        })
}

/// Appends `text` (a `transform.with_named_sequence` module) to `module`, runs MLIR's
/// transform interpreter on `module`, and removes the script again.
/// The transform interpreter as the schedules run it. Its expensive checks (every handle a
/// transform consumes against every payload op of every live handle: quadratic in the kernels
/// one script transforms) catch scripts that use invalidated handles; they run in debug builds
/// (the tests), and release builds skip them, as MLIR's own option allows.
const INTERPRETER: &str = if cfg!(debug_assertions) {
    "builtin.module(transform-interpreter)"
} else {
    "builtin.module(transform-interpreter{disable-expensive-checks=true})"
};

pub(crate) fn apply_script(
    module: OperationRef<'_, '_>,
    cx: &mut PassContext<'_>,
    text: &str,
    file: &str,
    what: &str,
) -> Result<(), PassFailed> {
    let strata = cx.strata();
    // Wrapped, so that the script's own (attributed) module is an op that can move.
    let script = match strata.parse(&format!("module {{\n{text}\n}}"), file) {
        Ok(script) => script,
        Err(error) => {
            cx.emit_op_error(module, format!("internal error: {file} does not parse: {error}"));
            return Err(PassFailed);
        }
    };
    let Some(schedule) = script.body().first_operation() else {
        cx.emit_op_error(module, format!("internal error: {file} is empty"));
        return Err(PassFailed);
    };
    let Some(body) = Op::of(&module).body(0) else {
        cx.emit_op_error(module, "internal error: the module has no body");
        return Err(PassFailed);
    };
    // The schedule op moves from `script` into the payload module and is erased from there
    // below; `script` is dropped empty.
    let schedule = Op::of(&schedule);
    schedule.detach();
    body.append(schedule);
    let outcome = strata_ir::llvm::run_pipeline_on(strata, Op::of(&module), INTERPRETER);
    // Safety: nothing refers to the schedule after it ran.
    unsafe { schedule.erase() };
    if outcome {
        Ok(())
    } else {
        cx.emit_op_error(module, format!("{what} failed to apply (see the diagnostics above)"));
        Err(PassFailed)
    }
}

/// The vectorising script (memref level).
pub const VECTORIZE: &str = include_str!("../schedules/cpu-vectorize.mlir");

pub static VECTORIZE_INFO: PassInfo = PassInfo {
    name: "strata-cpu-vectorize",
    summary: "Tile and vectorise the matmuls strata-cpu-schedule marked (a transform-dialect script on buffers)",
    anchor: "builtin.module",
    options: &[THREADS_OPTION, crate::vectorize_elementwise::VECTOR_LANES_OPTION],
    statistics: &[
        StatisticInfo {
            name: "zero-accumulators",
            help: "Products whose register blocks start from zero or their bias, the fill or broadcast of their result folded",
        },
        StatisticInfo {
            name: "lowered-regions",
            help: "Top-level ops (or functions) whose contractions, transposing transfers, shape casts and n-D broadcasts were lowered",
        },
    ],
};

pub fn create_vectorize(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(CpuVectorize { threads: options.int("threads"), lanes: options.int("vector-lanes").max(1) })
}

struct CpuVectorize {
    threads: i64,
    lanes: i64,
}

impl Pass for CpuVectorize {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let marked = collect(&module, |op| attrs::LOOP_ORDER.get(op.get()).is_some_and(|order| order == "vectorize"));
        // One tiling per distinct size, matched by a `strata.cache_tiles` mark.
        // (cache tiles, parallel): the big matmuls' (m, n) tiles run in parallel.
        let mut sizes: Vec<([i64; 3], bool, Order)> = Vec::new();
        let starts = crate::zero_accumulators::starts_before(module);
        // Products whose register blocks may start from zero or a bias (`zero_accumulators`).
        let mut zeroed = Vec::new();
        for &raw in &marked {
            let op = raw.get();
            let dims = |i: usize| op.operand(i).ok().and_then(|v| strata_lower::ops::static_shape(v.r#type()).ok());
            let (Some(a), Some(c)) = (dims(0), dims(2)) else {
                cx.emit_op_error(op, "internal error: a matmul marked for vectorisation lacks static memref operands");
                return Err(PassFailed);
            };
            let parallel =
                self.threads > 1 && !inside_forall(op) && c[0] * c[1] * a[1] >= crate::conv_lanes::PARALLEL_MACS;
            let mut tiles = cache_tiles(c[0], c[1], a[1]);
            if parallel {
                tiles = parallel_tiles(tiles, c[0], c[1], self.threads);
            }
            let mut order = Order::for_product(tiles, c[0], c[1], a[1]);
            // In parallel, columns first splits the column tiles alone among the threads: only
            // where they divide them or each takes four at least.
            let column_tiles = c[1] / tiles[1].max(1);
            if parallel && column_tiles % self.threads != 0 && column_tiles < 4 * self.threads {
                order = Order::Rows;
            }
            if !sizes.contains(&(tiles, parallel, order)) {
                sizes.push((tiles, parallel, order));
            }
            attrs::CACHE_TILES.set(op, &cache_label(tiles, parallel, order));
            if let Some(&start) = starts.get(&(raw.raw().ptr as usize)) {
                zeroed.push((raw, start, tiles[2] < a[1]));
            }
        }
        // The convolutions were vectorised on tensors (`strata-cpu-schedule`); their vectors
        // are lowered here with the matmuls'.
        if sizes.is_empty()
            && collect(&module, |op| strata_ir::ods::op_name(op.get()).starts_with("vector.")).is_empty()
        {
            return Ok(());
        }
        let (mut tiling, mut fold) = (String::new(), String::new());
        // Register blocks column block by column block, the rows inside (BLIS's order): a block's
        // `k x columns` slice of the right-hand side stays in L1 while the rows' blocks reuse it,
        // and each row block reads its `rows x k` of the left-hand side. Rows outside re-read the
        // whole `k x n` tile per row block from L2: GPT-2's 64 x 256 x 1024 products (one thread,
        // this AVX2 machine, interleaved minima) 3.49 -> 2.86 ms for the block, BERT-tiny's
        // 128-column ones unchanged.
        let [rows, columns] = register_tile(self.lanes);
        for (i, &([m, n, k], parallel, order)) in sizes.iter().enumerate() {
            let label = cache_label([m, n, k], parallel, order);
            tiling += &format!(
                "    %mm{i} = transform.structured.match ops{{[\"linalg.matmul\"]}} attributes{{strata.cache_tiles = \"{label}\"}} in %root : (!transform.any_op) -> !transform.any_op\n"
            );
            // The cache tiles: (m, n, k) nested loops, or with threads a parallel (m, n) forall
            // around the k loop; `%cl{i}#0` is the outermost either way.
            // The reduction tiles' loop is marked for `zero_accumulators` (`K_TILES`).
            tiling += &if parallel && order == Order::Columns {
                format!(
                    "    %cm{i}, %cl{i}:1 = transform.structured.tile_using_forall %mm{i} tile_sizes [0, {n}, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n\
    %c{i}, %ck{i}:2 = transform.structured.tile_using_for %cm{i} tile_sizes [{m}, 0, {k}] interchange = [2, 1, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n\
    transform.annotate %ck{i}#0 \"{K_TILES}\" : !transform.any_op\n"
                )
            } else if parallel {
                format!(
                    "    %cm{i}, %cl{i}:1 = transform.structured.tile_using_forall %mm{i} tile_sizes [{m}, {n}, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n\
    %c{i}, %ck{i} = transform.structured.tile_using_for %cm{i} tile_sizes [0, 0, {k}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n\
    transform.annotate %ck{i} \"{K_TILES}\" : !transform.any_op\n"
                )
            } else {
                // The loops in their order: (m, n, k), or (n, k, m) interchanged.
                let (interchange, k_loop) = match order {
                    Order::Rows => ("", 2),
                    Order::Columns => (" interchange = [1, 2, 0]", 1),
                };
                format!("    %c{i}, %cl{i}:3 = transform.structured.tile_using_for %mm{i} tile_sizes [{m}, {n}, {k}]{interchange} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)\n\
    transform.annotate %cl{i}#{k_loop} \"{K_TILES}\" : !transform.any_op\n")
            };
            tiling += &format!(
                "\
    %r{i}, %rl{i}:3 = transform.structured.tile_using_for %c{i} tile_sizes [{rows}, {columns}, 1] interchange = [1, 0, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)\n\
    transform.structured.vectorize %r{i} : !transform.any_op\n"
            );
            fold += &format!(
                "    transform.apply_patterns to %cl{i}#0 {{\n\
      transform.apply_patterns.vector.reduction_to_contract\n\
      transform.apply_patterns.vector.transfer_permutation_patterns\n\
      transform.apply_patterns.memref.fold_memref_alias_ops\n\
      transform.apply_patterns.canonicalization\n\
    }} : !transform.any_op\n"
            );
        }
        let script = VECTORIZE.replace("    // TILES\n", &tiling).replace("    // FOLD", &format!("{fold}    // FOLD"));
        let zero: Vec<Op> = zeroed.iter().map(|&(matmul, ..)| matmul).collect();
        accumulator_barriers(cx.strata().mlir(), &marked, &zero);
        crate::zero_accumulators::mark(cx.strata().mlir(), &zeroed);
        apply_script(module, cx, &script, "schedules/cpu-vectorize.mlir", "the vectorising schedule")?;
        let lowered = crate::lower_vectors::lower(module, cx)?;
        cx.bump("lowered-regions", lowered as u64);
        let from_zero = crate::zero_accumulators::start_from_zero(cx.strata().mlir(), module);
        cx.bump("zero-accumulators", from_zero as u64);
        remove_barriers(cx.strata().mlir(), module);
        Ok(())
    }
}

/// `ty` (a memref type with static strides, printed) with its offset dynamic, or, where the
/// offset is dynamic already, its outer strides: the type of [`accumulator_barriers`]' casts
/// (`None` for other types).
fn dynamic_offset(ty: &str) -> Option<String> {
    let inner = ty.strip_prefix("memref<")?.strip_suffix('>')?;
    let (shaped, layout) = match inner.split_once(", ") {
        Some((shaped, layout)) => (shaped, Some(layout)),
        None => (inner, None),
    };
    let mut dims: Vec<&str> = shaped.split('x').collect();
    dims.pop()?;
    let shape: Vec<i64> = dims.iter().map(|d| d.parse().ok()).collect::<Option<_>>()?;
    let strides: Vec<String> = match layout {
        None => strata_ir::types::row_major_strides(&shape).iter().map(|s| s.to_string()).collect(),
        Some(layout) => {
            let list = layout.strip_prefix("strided<[")?.split(']').next()?;
            let mut strides: Vec<String> = list.split(", ").map(str::to_owned).collect();
            if strides.len() != shape.len() || strides.iter().any(|s| s == "?") {
                return None;
            }
            if layout.contains('?') {
                // The offset is dynamic already (a slice of a batch): the outer strides
                // become dynamic instead (the innermost stays 1, so loads stay contiguous).
                let last = strides.len().checked_sub(1)?;
                if last == 0 {
                    return None;
                }
                for stride in &mut strides[..last] {
                    *stride = "?".to_owned();
                }
            }
            strides
        }
    };
    Some(format!("memref<{shaped}, strided<[{}], offset: ?>>", strides.join(", ")))
}

/// The mark of a marked matmul's loop over its reduction tiles (`zero_accumulators`).
pub(crate) const K_TILES: &str = "strata.k_tiles";

/// The mark of [`accumulator_barriers`]' casts.
const BARRIER: &str = "strata.accumulator_barrier";

/// Puts a type-changing `builtin.unrealized_conversion_cast` between each marked matmul and its
/// accumulator buffer (one per buffer), so that the schedule's
/// `hoist_redundant_vector_transfers` keeps the 8 x 32 block in registers across the k loop:
/// MLIR 22 does not hoist transfers whose buffer is defined by a view-like op, and every arena
/// buffer is a `memref.view` (the accumulators were loaded and stored at every k step:
/// BERT-tiny's matmuls ran at about 40 GFLOP/s). Only matmuls use the casts, so nothing else in
/// their loops touches those buffers through them.
/// A matmul of `zero` (one that may start from zero, `zero_accumulators`) gets a cast of its
/// own, for a function argument too: it marks the buffer the register blocks load from.
fn accumulator_barriers(context: &melior::Context, marked: &[Op], zero: &[Op]) {
    let mut barriers: Vec<(strata_ir::Val, strata_ir::Val)> = Vec::new();
    for &op in marked {
        if op.operand_count() != 3 {
            continue;
        }
        let accumulator = op.operand(2);
        // A product that may start from zero gets a cast of its own, which marks its loads
        // alone (CSE made one arena view of the buffers two projections write in turn).
        let own = zero.contains(&op);
        // A function argument is no view: hoisting already works there.
        if accumulator.owner().is_none() && !own {
            continue;
        }
        if let Some(&(_, cast)) = barriers.iter().find(|(buffer, _)| *buffer == accumulator).filter(|_| !own) {
            op.set_operand(2, cast);
            continue;
        }
        let Some(text) = dynamic_offset(&accumulator.r#type().to_string()) else { continue };
        let Some(ty) = melior::ir::Type::parse(context, &text) else { continue };
        let cast = crate::conv_lanes::insert_before(
            context,
            op,
            "builtin.unrealized_conversion_cast",
            &[accumulator],
            ty,
            None,
        );
        if let Some(cast_op) = cast.owner() {
            cast_op.set_attribute(BARRIER, melior::ir::attribute::Attribute::unit(context));
        }
        op.set_operand(2, cast);
        if !own {
            barriers.push((accumulator, cast));
        }
    }
}

/// Replaces [`accumulator_barriers`]' casts by `memref.cast`s (which lower to LLVM).
fn remove_barriers(context: &melior::Context, module: OperationRef<'_, '_>) {
    for op in collect(&module, |op| op.is("builtin.unrealized_conversion_cast") && op.attribute(BARRIER).is_some()) {
        let cast = op.result(0);
        let memref_cast =
            crate::conv_lanes::insert_before(context, op, "memref.cast", &[op.operand(0)], cast.r#type(), None);
        cast.replace_all_uses_with(memref_cast);
        // Safety: the cast has no uses left and no handle to it survives.
        unsafe { op.erase() };
    }
}
