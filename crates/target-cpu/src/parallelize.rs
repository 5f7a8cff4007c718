//! `strata-parallelize{threads}`: splits the model's top-level linalg kernels (elementwise
//! programs, softmax, normalisations, pooling, copies, transposes, the convolutions and
//! matmuls left to loop nests) across `threads` threads, after planning. Each kernel big
//! enough to pay for a fork (at least [`MIN_ITERATIONS`] loop iterations) is tiled with
//! `transform.structured.tile_using_forall num_threads` along one parallel loop: its outermost
//! parallel loop that `threads` divides (each thread's share writing runs of 4 KB of the output
//! at least, [`MIN_RUN`], or a cache line where each output is a long reduction), or that is
//! at least four times `threads` long, and
//! that no reduction loop encloses. The
//! register-blocked convolutions and the vectorised matmuls are already `scf.forall`s over
//! their tiles (`strata-cpu-schedule` and `strata-cpu-vectorize` with the same `threads`);
//! `strata-host-to-llvm` turns every `scf.forall` into an OpenMP worksharing loop.
//!
//! Splitting only parallel loops keeps every reduction in one thread, in its order: results
//! are bit-identical for any thread count. The arena is untouched: tiles read and write
//! disjoint slices of the kernel's own buffers (no per-thread scratch).

use crate::cpu_schedule::apply_script;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::Op;
use strata_ir::{attrs, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::ops::static_shape;

mod groups;

pub(crate) use groups::Root;

/// Below this many loop iterations a kernel runs on one thread: a fork and join costs about
/// as much as 10-20 thousand iterations of a simple elementwise loop.
pub const MIN_ITERATIONS: i64 = 32768;

pub static INFO: PassInfo = PassInfo {
    name: "strata-parallelize",
    summary: "Split the top-level linalg kernels along a parallel loop across threads (scf.forall, after planning)",
    anchor: "builtin.module",
    options: &[
        OptionInfo {
            name: "threads",
            kind: OptionKind::Int,
            default: "1",
            help: "threads to split each kernel across (1: none)",
        },
        OptionInfo {
            name: "inject-failure",
            kind: OptionKind::Bool,
            default: "false",
            help: "testing only: make the split script fail, to exercise the fallback to one thread",
        },
    ],
    statistics: &[
        StatisticInfo { name: "kernels", help: "Kernels split across threads" },
        StatisticInfo {
            name: "merged",
            help: "Kernels whose split runs in the loop of the kernel before them (one fork for both)",
        },
        StatisticInfo {
            name: "fallbacks",
            help: "Modules whose split failed to apply and whose kernels run on one thread instead",
        },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(Parallelize { threads: options.int("threads"), inject_failure: options.bool("inject-failure") })
}

struct Parallelize {
    threads: i64,
    inject_failure: bool,
}

/// A linalg op's loops: extent and whether it is parallel, outermost first. `None` for ops
/// this pass does not split (dynamic shapes, unknown ops, tensors).
pub fn loops(op: OperationRef<'_, '_>) -> Option<Vec<(i64, bool)>> {
    let name = strata_ir::ods::op_name(op);
    let shape = |i: usize| -> Option<Vec<i64>> {
        let value = op.operand(i).ok()?;
        strata_ir::types::memref(value.r#type())?;
        static_shape(value.r#type()).ok()
    };
    match name.as_str() {
        // Every loop parallel, one per dimension of the destination (the last operand).
        "linalg.fill" | "linalg.copy" | "linalg.transpose" | "linalg.broadcast" | "linalg.map" => {
            let out = shape(op.operand_count().checked_sub(1)?)?;
            Some(out.into_iter().map(|extent| (extent, true)).collect())
        }
        "linalg.generic" => {
            let iterators = op.attribute("iterator_types").ok()?.to_string();
            let parallel: Vec<bool> =
                iterators
                    .split(',')
                    .map(|kind| {
                        if kind.contains("parallel") {
                            Some(true)
                        } else {
                            kind.contains("reduction").then_some(false)
                        }
                    })
                    .collect::<Option<_>>()?;
            let maps = strata_ir::handle::map_dims(op.attribute("indexing_maps").ok()?)?;
            let mut extents = vec![None; parallel.len()];
            for (i, dims) in maps.iter().enumerate() {
                let shape = shape(i)?;
                for (dim, extent) in dims.iter().zip(shape) {
                    if let Some(d) = *dim {
                        *extents.get_mut(d)? = Some(extent);
                    }
                }
            }
            extents.into_iter().zip(parallel).map(|(extent, parallel)| Some((extent?, parallel))).collect()
        }
        _ => None,
    }
}

/// How a kernel is split across threads: along loop `dim`, first cut at `before` when the
/// threads do not divide the loop (the tiles take `[0, before)`, which they divide; the rest
/// is a kernel of its own on one thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    pub dim: usize,
    pub before: Option<i64>,
}

/// How to split `loops` across `threads`, if the kernel is worth it: along the outermost
/// parallel loop the threads divide ([`split_loop`]), else along the outermost one at least
/// four times `threads` long, cut first at the largest multiple of `threads` (a vision
/// transformer's Softmax over 3 x 197 x 197: 196 rows split, one on its own; it ran on one
/// thread whole).
pub fn split(loops: &[(i64, bool)], threads: i64) -> Option<Split> {
    if let Some(dim) = split_loop(loops, threads) {
        return Some(Split { dim, before: None });
    }
    if !worth_splitting(loops, threads) {
        return None;
    }
    let dim = outside_reductions(loops)
        .enumerate()
        .find(|&(dim, &(extent, parallel))| parallel && extent >= 4 * threads && share(loops, dim, threads))?
        .0;
    let before = (loops[dim].0 % threads != 0).then_some(loops[dim].0 / threads * threads);
    Some(Split { dim, before })
}

/// Whether each thread's share of loop `dim` of `loops` writes a long enough run of the
/// output (the parallel loops inside it, which the output's identity map makes contiguous):
/// [`MIN_RUN`] elements, or where each element is a reduction of at least [`MIN_REDUCTION`]
/// steps (few stores for the work), [`MIN_SHARE`]; or [`MIN_SHARE`] where no loop outside it
/// repeats (each thread then writes one run, not alternate ones). ConvNeXt's LayerNorm sums
/// over `[1, 32, 32, 40]` (40 channels a pixel) ran on one thread, whose 2 KB halves were
/// under [`MIN_RUN`]: on two threads, between kernels split by rows, it read half its input
/// from the other core (0.009 ms on one thread, 0.027 on two).
fn share(loops: &[(i64, bool)], dim: usize, threads: i64) -> bool {
    let inner = &loops[dim + 1..];
    let run = loops[dim].0 / threads * inner.iter().filter(|l| l.1).map(|&(extent, _)| extent).product::<i64>();
    let reduction: i64 = inner.iter().filter(|l| !l.1).map(|&(extent, _)| extent).product();
    let one_run = loops[..dim].iter().all(|&(extent, _)| extent == 1);
    run >= MIN_RUN || ((reduction >= MIN_REDUCTION || one_run) && run >= MIN_SHARE)
}

/// Whether `loops` are enough work for a fork and have no reduction outside a parallel loop.
fn worth_splitting(loops: &[(i64, bool)], threads: i64) -> bool {
    threads > 1
        && loops.iter().map(|&(extent, _)| extent).product::<i64>() >= MIN_ITERATIONS
        && !reduction_outside(loops)
}

/// Whether `loops` have a reduction outside a parallel loop.
fn reduction_outside(loops: &[(i64, bool)]) -> bool {
    // A loop nest with a reduction outside a parallel loop (the schedule's `reduction_outer`
    // convolutions, left to LLVM's vectoriser) stays whole: once its output is a slice at a
    // dynamic offset LLVM can no longer prove it apart from the inputs and runs it scalar
    // (DenseNet's 1x1 convolution: 0.12 ms on one thread, 0.68 ms split across two). The
    // depthwise convolutions that once gained from the split are vectorised before it now.
    let first_reduction = loops.iter().position(|&(extent, parallel)| !parallel && extent > 1);
    first_reduction.is_some_and(|r| loops[r..].iter().any(|&(extent, parallel)| parallel && extent > 1))
}

/// How to split a fill of a padded buffer's side columns (`[.., rows, w]` with rows `w`
/// elements long, under a cache line, a whole row of the buffer apart): along its rows, however
/// small, so that each row's ring is written by the thread that writes the row beside it.
/// Filled on the main thread, every line a ring element shares with the row's interior was the
/// other core's to take back when its thread wrote the interior (the Inception cell's 1x1
/// expansions into 34 x 34 padded buffers, their rows split across threads: 0.97-1.00 ->
/// 0.79-0.81 ms on two threads). Only where the buffer's next writer is a loop over the same
/// rows outermost (a convolution's tiles): OpenMP's static schedule then gives thread `t` the
/// `t`-th contiguous share of either loop. Before a writer split otherwise (YOLOv8n's
/// depthwise steps, by channels), the fills' forks cost 2% and saved nothing.
fn ring_split(op: Op, loops: &[(i64, bool)], threads: i64) -> Option<Split> {
    use melior::ir::r#type::ShapedTypeLike as _;
    if threads <= 1 || !op.is("linalg.fill") || loops.len() < 2 {
        return None;
    }
    let (shape, strides, _) = strata_ir::types::memref_layout(op.operand(1).r#type())?;
    let bytes = strata_ir::handle::bit_width(strata_ir::types::memref(op.operand(1).r#type())?.element())?.div_ceil(8);
    let rank = shape.len();
    let (rows, width, row_stride) = (shape[rank - 2], shape[rank - 1], strides[rank - 2]);
    let narrow = width * i64::try_from(bytes).ok()? < 64 && row_stride > width && strides[rank - 1] == 1;
    if !narrow || rows % threads != 0 || rows < 2 * threads {
        return None;
    }
    // The buffer: the view the ring is a slice of.
    let mut buffer = op.operand(1);
    while let Some(view) = buffer.owner().filter(|o| o.is("memref.subview")) {
        buffer = view.operand(0);
    }
    // The next op that is not a view, a constant or another fill: a forall over the rows first
    // that writes the buffer.
    let mut next = op.next();
    while let Some(o) = next.filter(|o| o.is("linalg.fill") || strata_ir::rewrite::sinkable(&o.name())) {
        next = o.next();
    }
    let forall = next.filter(|o| o.is("scf.forall"))?;
    let first = |name: &str| strata_ir::ods::i64_array(forall.get(), name).and_then(|v| v.first().copied());
    let rows_first = first("staticLowerBound") == Some(0)
        && first("staticUpperBound") == Some(rows)
        && first("staticStep") == Some(1);
    // Through the views of the buffer (its interior, viewed before the loop).
    let writes = strata_ir::rewrite::users_through_views(buffer).iter().any(|user| user.is_inside(forall));
    (rows_first && writes).then_some(Split { dim: rank - 2, before: None })
}

/// The loops outside every reduction (tiles never split a reduction).
fn outside_reductions(loops: &[(i64, bool)]) -> impl Iterator<Item = &(i64, bool)> {
    loops.iter().take_while(|&&(extent, parallel)| parallel || extent == 1)
}

/// The loop to split `loops` along across `threads` evenly, if the kernel is worth it.
pub fn split_loop(loops: &[(i64, bool)], threads: i64) -> Option<usize> {
    if !worth_splitting(loops, threads) {
        return None;
    }
    // Only loops the threads divide: an uneven split gives the tiles dynamic shapes, and the
    // vectorising passes (elementwise, reductions) take static shapes only, so a kernel split
    // 25 + 24 ran as scalar loops on each thread (the speech model's GRU input projection:
    // 8x slower on two threads than vectorised on one). [`split`] cuts such a loop first.
    // And only where each thread's share along it holds a cache line of the output or more
    // ([`share`]): a bilinear Resize's gather of its two taps, `[1, 5, 129, 129, 2]`, split
    // along the taps had the threads write alternate floats of every line, 0.08 ms on one
    // thread and 0.60 on two.
    outside_reductions(loops)
        .enumerate()
        .find(|&(dim, &(extent, parallel))| {
            parallel && extent >= threads && extent % threads == 0 && share(loops, dim, threads)
        })
        .map(|(dim, _)| dim)
}

/// The shortest run of the output a thread's share of a split loop may write: 4 KB of f32.
/// Threads writing alternate shorter runs slow each other down even though no cache line is
/// written by both: the L2 prefetchers pull the neighbour's lines in (measured here, two
/// threads rewriting their own alternate runs of one 900 KB buffer, against one thread doing
/// all of it: 3.6x as long with runs of 128 B to 1 KB, 1.7x with 2 KB, 0.85x with 4 KB). A
/// vision transformer's bias add `[1, 197, 576]` split into column halves (1152 B a row) and
/// its head split `[3, 1, 3, 197, 64]` into halves of rows (128 B) took 2.3x as long on two
/// threads as on one.
const MIN_RUN: i64 = 1024;
/// A thread's share of a split loop whose every output is a reduction of at least
/// [`MIN_REDUCTION`] steps may be as short as a cache line of f32 outputs.
const MIN_SHARE: i64 = 16;
const MIN_REDUCTION: i64 = 64;

/// One `tile_using_forall` of the generated script: the `strata.parallel` label it matches,
/// its `num_threads` (one count per loop), and the loop and point it is cut at first.
struct Tiling {
    label: String,
    counts: String,
    cut: Option<(usize, i64)>,
}

impl Pass for Parallelize {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // Kernels: ops directly in a function's body (not inside loops or conditionals, which
        // a split outer kernel may already run in parallel).
        let kernels = collect(&module, |op| {
            op.name().starts_with("linalg.") && op.parent().is_some_and(|parent| parent.is("func.func"))
        });
        // Kernels cut first are matched one by one (a split of several ops at once hands back
        // their parts in one list).
        let nests: Vec<Option<Vec<(i64, bool)>>> = kernels.iter().map(|k| loops(k.get())).collect();
        let mut splits: Vec<Option<Split>> = kernels
            .iter()
            .zip(&nests)
            .map(|(k, l)| l.as_deref().and_then(|l| split(l, self.threads).or_else(|| ring_split(*k, l, self.threads))))
            .collect();
        // Consecutive kernels over the same rows share one loop (see [`groups`]).
        let groups = groups::plan(&kernels, &nests, &mut splits, self.threads);
        for (g, group) in groups.iter().enumerate() {
            for &i in group {
                attrs::PARALLEL_GROUP.set(kernels[i].get(), g as i64);
            }
        }
        let mut labels: Vec<Tiling> = Vec::new();
        let mut split_kernels = 0;
        for (raw, (loops, split)) in kernels.iter().zip(nests.iter().zip(&splits)) {
            let op = raw.get();
            let (Some(loops), Some(Split { dim, before })) = (loops, *split) else { continue };
            let counts: Vec<String> =
                (0..loops.len()).map(|d| if d == dim { self.threads.to_string() } else { "0".into() }).collect();
            let mut label = counts.join("x");
            if let Some(before) = before {
                label += &format!(" before {before} #{}", labels.len());
            }
            attrs::PARALLEL.set(op, &label);
            if !labels.iter().any(|t| t.label == label) {
                labels.push(Tiling { label, counts: counts.join(", "), cut: before.map(|b| (dim, b)) });
            }
            split_kernels += 1;
        }
        if labels.is_empty() {
            return Ok(());
        }
        let mut script = String::from(
            "module attributes {transform.with_named_sequence} {\n  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {\n",
        );
        for (i, Tiling { label, counts, cut }) in labels.iter().enumerate() {
            script += &format!(
                "    %k{i} = transform.structured.match attributes{{strata.parallel = \"{label}\"}} in %root : (!transform.any_op) -> !transform.any_op\n"
            );
            // The loop cut first: its first part is tiled, the rest stays one kernel.
            let tiled = match cut {
                Some((dim, before)) => {
                    script += &format!(
                        "    %s{i} = transform.structured.split %k{i} after {before} {{dimension = {dim}}} : !transform.any_op\n\
    %p{i}:2 = transform.split_handle %s{i} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
                    );
                    format!("%p{i}#0")
                }
                None => format!("%k{i}"),
            };
            script += &format!(
                "    %t{i}, %f{i} = transform.structured.tile_using_forall {tiled} num_threads [{counts}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
            );
        }
        if self.inject_failure {
            // A function cannot be tiled: the script fails as a bug in it would.
            script += "    %bad = transform.structured.match ops{[\"func.func\"]} in %root : (!transform.any_op) -> !transform.any_op\n    %bt, %bf = transform.structured.tile_using_forall %bad num_threads [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
        }
        script += "    transform.yield\n  }\n}\n";
        // A split that does not apply (a Strata bug) leaves every kernel on one thread, with a
        // warning: never the compile's failure.
        let checkpoint = crate::cpu_schedule::Checkpoint::new(module, cx);
        if apply_script(module, cx, &script, "strata-parallelize (generated)", "the thread split").is_ok() {
            checkpoint.keep(cx);
            cx.bump("kernels", split_kernels);
            cx.bump("merged", groups::merge(Op::of(&module)) as u64);
            return Ok(());
        }
        let why = checkpoint.restore(module, cx);
        for raw in collect(&module, |op| attrs::PARALLEL.get(op.get()).is_some()) {
            attrs::PARALLEL.take(raw.get());
            raw.remove_attribute(attrs::PARALLEL_GROUP.0);
        }
        cx.emit_op_warning(
            module,
            format!(
                "the thread split failed to apply ({why}); the kernels it would have split run on one thread instead (same results, slower; a Strata bug, please report it)"
            ),
        );
        cx.bump("fallbacks", 1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{split, split_loop, Split};

    #[test]
    fn a_loop_the_threads_do_not_divide_is_cut_first() {
        // A vision transformer's Softmax rows, [3, 197, 197]: 196 rows split, one apart.
        assert_eq!(split(&[(3, true), (197, true), (197, false)], 2), Some(Split { dim: 1, before: Some(196) }));
        // A loop that divides still splits evenly, without a cut.
        assert_eq!(split(&[(1, true), (2, true), (128, true), (128, false)], 2), Some(Split { dim: 1, before: None }));
        // Too short to cut (under four per thread), too small, or inside a reduction: whole.
        assert_eq!(split(&[(7, true), (7, true), (1024, false)], 2), None);
        assert_eq!(split(&[(49, true), (95, true)], 2), None);
        assert_eq!(split(&[(64, true), (3, false), (57, true), (57, true)], 2), None);
        assert_eq!(split(&[(197, true), (197, true)], 4), Some(Split { dim: 0, before: Some(196) }));
    }

    #[test]
    fn splits_the_outermost_parallel_loop_that_divides() {
        // [1, 2, 128, 128] softmax rows: the batch loop is too short, heads divide.
        assert_eq!(split_loop(&[(1, true), (2, true), (128, true), (128, false)], 2), Some(1));
        // Never inside a reduction (a pool with its window outside), and a nest with a
        // reduction outside a parallel loop not at all (a loop-order 1x1 convolution).
        assert_eq!(split_loop(&[(3, false), (64, true), (56, true), (56, true)], 2), None);
        assert_eq!(split_loop(&[(1, false), (64, true), (56, true), (56, true)], 2), Some(1));
        assert_eq!(split_loop(&[(64, true), (3, false), (56, true), (56, true)], 2), None);
        assert_eq!(
            split_loop(&[(1, true), (36, true), (72, false), (1, false), (1, false), (32, true), (32, true)], 2),
            None
        );
        assert_eq!(split_loop(&[(64, true), (56, true), (56, true), (3, false)], 2), Some(0));
        // Three channels do not divide by two: the rows split.
        assert_eq!(split_loop(&[(1, true), (3, true), (224, true), (224, true)], 2), Some(2));
        // 49 rows do not divide by two (the tiles would have dynamic shapes): the columns split.
        assert_eq!(split_loop(&[(49, true), (96, true), (320, false)], 2), Some(1));
        assert_eq!(split_loop(&[(49, true), (95, true), (320, false)], 2), None);
        // Never so that a thread's share is under a cache line: a Resize's two taps innermost
        // (the rows, 129, are cut instead by `split`).
        assert_eq!(split_loop(&[(1, true), (5, true), (129, true), (129, true), (2, true)], 2), None);
        assert_eq!(
            split(&[(1, true), (5, true), (129, true), (129, true), (2, true)], 2),
            Some(Split { dim: 2, before: Some(128) })
        );
        // Never so that a thread writes runs of the output under 4 KB, reductions apart: a
        // vision transformer's bias add and head split are cut along their 197 rows instead.
        assert_eq!(split_loop(&[(1, true), (197, true), (576, true)], 2), None);
        assert_eq!(split(&[(1, true), (197, true), (576, true)], 2), Some(Split { dim: 1, before: Some(196) }));
        assert_eq!(
            split(&[(3, true), (1, true), (3, true), (197, true), (64, true)], 2),
            Some(Split { dim: 3, before: Some(196) })
        );
        assert_eq!(split_loop(&[(1, true), (64, true), (1024, true)], 2), Some(1));
        // Runs under 4 KB, but one a thread (no loop outside the split repeats): ConvNeXt's
        // LayerNorm sums over 40 channels a pixel.
        assert_eq!(split_loop(&[(1, true), (32, true), (32, true), (40, false)], 2), Some(1));
        // Too small to pay for a fork, and one thread.
        assert_eq!(split_loop(&[(64, true), (64, true)], 2), None);
        assert_eq!(split_loop(&[(1024, true), (1024, true)], 1), None);
    }
}
