//! `strata-vectorize-elementwise{vector-lanes}`: vectorises the elementwise kernels (every
//! loop parallel: fused elementwise programs, batch-norm and activation epilogues left as
//! kernels, casts, broadcasts, copies and transposes) with MLIR, on buffers, after planning
//! and the thread split.
//!
//! Each such `linalg.generic` is tiled to one vector of `vector-lanes` elements along its
//! innermost loop (1 along the others) and vectorised by `transform.structured.vectorize`
//! with those vector sizes. An innermost extent the vectors do not divide has its last
//! partial vector peeled (`transform.loop.peel`) and vectorised at its own width: every other
//! vector is whole and unmasked, the last one exactly as wide as the rest, so any extent
//! vectorises without a scalar remainder loop and without masks. (Masking the last vector
//! instead made every vector of the row masked, `vmaskmovps` on each: a 100-wide softmax ran
//! 2x slower on Zen3.) An extent under one vector is one vector of that extent. The
//! transfers are then rank-reduced and lowered to 1-D loads and stores (contiguous when the
//! operand's innermost stride is 1; element by element for strided views and transposed
//! reads). A kernel whose operands are all read and written in loop order and whose rows leave
//! a partial vector (or are under one) is first flattened to one loop over
//! `memref.collapse_shape` views of its buffers, where every layout collapses
//! (`transform.structured.flatten_elementwise`), its `strata.*` marks put back: YOLOv8n's SiLU
//! kernels over 20- and 10-wide rows ran as vectors of 16 + 4 and of 10, now of 16 (0.95 ->
//! 0.70 ms). Where an input is read transposed (its innermost dimension walked by another loop:
//! a `linalg.transpose`, or a generic reading through a permuted view), that loop becomes the
//! tile loop just outside the vector loop and is tiled too, by a vector or half of one (the
//! larger that divides it): the tile is a 2-D vector, read as rows contiguous in the input and
//! transposed in registers (`vector.transpose`, a shuffle network after
//! `strata-lower-transposes`). Element by element with the channels outermost, a ConvNeXt
//! block's NHWC -> NCHW transpose (`56 x 56 x 40`) took 51 us, its residual add through the
//! transposed view 56 (ONNX Runtime's Transpose + Add: 20); with that loop inside, 28 and 19;
//! in 16 x 8 tiles, 8.6. The zoo ConvNeXt's NCHW -> NHWC transposes 34 -> 8.7 us.
//!
//! Left to LLVM's loop vectoriser, these loops vectorised badly or blew up: with a short
//! innermost loop (a 32-wide image row) LLVM fully unrolls it, then vectorises the next loop
//! out across rows (a stride of the row length), as gathers of 16 scalar loads each:
//! DenseNet's batch-norm + ReLU kernels became 3700-instruction basic blocks that took most
//! of the JIT's time in the backend schedulers, and ran as scalar loads.
//!
//! A kernel is vectorised only when the rewrite is known good: static shapes, every loop
//! parallel, or a generic's reduction loops outside its parallel innermost loop (a softmax's
//! max and sum over the channels of NCHW: each lane its own reduction, the reduction loop
//! around the vector loop in the scalar loops' order, so the same results; YOLOv8n's DFL softmax
//! and the U-Net's output softmax 3-5% faster), the output written in loop order (the parallel
//! loops in order: the innermost loop walks it contiguously), every input read through a projected permutation (broadcasts and
//! transposes; a kernel that reads a sliced view through its map's offsets, or runs unit loops,
//! is first rewritten onto subviews by [`crate::elementwise_slices`]), 8- to 64-bit integer or 32/64-bit
//! float operands (no `i1` buffers: a vector of `i1` is bit-packed in memory, the buffer is
//! not), a body of `arith`/`math` ops only, no integer division (the masked lanes of a
//! partial vector compute on padding zeros), and an innermost loop of at least 4 (2 for a
//! copy). The others stay loops, as before. Runs after `strata-parallelize` (it tiles the
//! kernels it splits first; a vectorised kernel is no longer a linalg op to split).

use crate::cpu_schedule::apply_script;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::handle::MapResult;
use strata_ir::rewrite::collect;
use strata_ir::{
    attrs, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo,
};
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-elementwise",
    summary: "Vectorise the elementwise linalg kernels on buffers: one (masked) vector along the innermost loop",
    anchor: "builtin.module",
    options: &[VECTOR_LANES_OPTION],
    statistics: &[
        StatisticInfo { name: "kernels", help: "Elementwise kernels vectorised" },
        StatisticInfo { name: "refused", help: "Kernels MLIR's vectorizer refused (left as loops)" },
        StatisticInfo {
            name: "sliced",
            help: "Kernels reading through offsets or over unit loops, rewritten onto subviews first",
        },
        StatisticInfo {
            name: "flattened",
            help: "Kernels run as one loop (operands in loop order, rows leaving a partial vector)",
        },
    ],
};

/// The `vector-lanes` option of the vectorising passes on buffers.
pub(crate) const VECTOR_LANES_OPTION: OptionInfo = OptionInfo {
    name: "vector-lanes",
    kind: OptionKind::Int,
    default: "8",
    help: "f32 lanes of one vector register (8: AVX2, 16: AVX-512)",
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeElementwise { lanes: options.int("vector-lanes").max(1) })
}

struct VectorizeElementwise {
    lanes: i64,
}

/// The ops this pass vectorises: elementwise generics, copies and transposes (copies that read
/// through a permutation).
const KERNELS: [&str; 3] = ["linalg.generic", "linalg.copy", "linalg.transpose"];

/// Shortest innermost loop worth a vector.
pub(crate) const MIN_INNER: i64 = 4;

/// Shortest innermost loop of a copy worth a vector: a copy's rows of 2 or 3 elements (a
/// concatenation's parts, YOLO's box coordinates) move as one short vector each. Left to LLVM,
/// O3 fully unrolled such a nest and its loop vectoriser then spent 107 ms on one 384-element
/// copy's ~128 accesses (13% of that model's optimisation) to make the same 2-lane stores.
const MIN_INNER_COPY: i64 = 2;

/// Element types whose vectors load and store element for element like the buffer.
pub(crate) const ELEMENT_TYPES: &[&str] = &["f32", "f64", "i8", "i16", "i32", "i64"];

/// Integer ops that trap on a zero divisor (a masked lane computes on padding zeros).
const TRAPPING: &[&str] = &[
    "arith.divsi",
    "arith.divui",
    "arith.remsi",
    "arith.remui",
    "arith.ceildivsi",
    "arith.ceildivui",
    "arith.floordivsi",
];

/// How one elementwise kernel is tiled: `sizes` make it one vector of `lanes` along its
/// innermost loop (0: an extent-1 loop, not tiled); `rest` is the innermost extent's last
/// partial vector (0: the vectors divide it), peeled into a tile of its own; `order` is the
/// order of the tile loops, outermost first (empty: the kernel's own), the vector loop last;
/// `strided` says the output's innermost stride is not 1 (see [`script`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorTile {
    pub sizes: Vec<i64>,
    pub rest: i64,
    pub order: Vec<usize>,
    pub strided: bool,
}

/// The loop that walks an input's innermost dimension where that is not the innermost loop (a
/// transposed read: element by element across the vector), for a kernel with `loops` loops
/// whose inputs read through `maps`.
fn walked(loops: usize, maps: &[Vec<MapResult>]) -> Option<usize> {
    let last = loops - 1;
    maps.iter().find_map(|map| match map.last() {
        Some(&MapResult::Dim(d)) if d != last && map.contains(&MapResult::Dim(last)) => Some(d),
        _ => None,
    })
}

/// The tile loops' order for a kernel with `loops` loops and a transposed read whose
/// [`walked`] loop is `walked`: that loop just outside the vector loop (where its tile makes the
/// vectors 2-D, see the module documentation). Empty: the kernel's order.
fn tile_order(loops: usize, walked: Option<usize>) -> Vec<usize> {
    let last = loops - 1;
    match walked {
        Some(d) if d + 1 != last => (0..last).filter(|&l| l != d).chain([d, last]).collect(),
        _ => Vec::new(),
    }
}

/// How `op` is tiled into vectors of `lanes`, or `None` when `op` is not an elementwise kernel
/// this pass vectorises (see the module documentation).
pub fn vector_tile(op: OperationRef<'_, '_>, lanes: i64) -> Option<VectorTile> {
    let name = strata_ir::ods::op_name(op);
    let loops = crate::parallelize::loops(op)?;
    // Reduction loops only outside a parallel innermost loop (a softmax over the channels of
    // NCHW: each lane its own reduction), and only in generics.
    let reduces = loops.iter().any(|&(_, parallel)| !parallel);
    if loops.is_empty() || !loops.last()?.1 || (reduces && name != "linalg.generic") {
        return None;
    }
    let operands = op.operand_count();
    let maps = match name.as_str() {
        "linalg.generic" => strata_ir::handle::map_results(op.attribute("indexing_maps").ok()?)?,
        // Copies: both operands in loop order.
        "linalg.copy" => vec![(0..loops.len()).map(MapResult::Dim).collect(); operands],
        // Loops in the result's order; input dimension `p[k]` is walked by loop `k`.
        "linalg.transpose" => {
            let permutation = strata_ir::ods::i64_array(op, "permutation")?;
            let mut input = vec![MapResult::Other; permutation.len()];
            for (k, &p) in permutation.iter().enumerate() {
                *input.get_mut(usize::try_from(p).ok()?)? = MapResult::Dim(k);
            }
            vec![input, (0..loops.len()).map(MapResult::Dim).collect()]
        }
        _ => return None,
    };
    if maps.len() != operands || operands < 1 {
        return None;
    }
    // Inputs: projected permutations (each result a distinct loop), unit dimensions read at 0.
    // (MLIR 22's vectorizer fails on a map with more results than loops, `(0, d1, 0, 0)`.)
    for map in &maps[..operands - 1] {
        if map.len() > loops.len() {
            return None;
        }
        let mut seen = vec![false; loops.len()];
        for result in map {
            match *result {
                MapResult::Dim(d) => {
                    if std::mem::replace(seen.get_mut(d)?, true) {
                        return None;
                    }
                }
                MapResult::Zero => {}
                MapResult::Other => return None,
            }
        }
    }
    // The output: the parallel loops in order.
    let output = maps.last()?;
    let parallel: Vec<MapResult> =
        loops.iter().enumerate().filter(|&(_, &(_, parallel))| parallel).map(|(d, _)| MapResult::Dim(d)).collect();
    if *output != parallel {
        return None;
    }
    for i in 0..operands {
        let ty = op.operand(i).ok()?.r#type();
        let element = strata_ir::types::memref_element_name(ty)?;
        static_shape(ty).ok()?;
        if !ELEMENT_TYPES.contains(&element.as_str()) {
            return None;
        }
    }
    if !plain_body(Op::of(&op)) {
        return None;
    }
    let &(inner, _) = loops.last()?;
    if inner < if name == "linalg.copy" { MIN_INNER_COPY } else { MIN_INNER } {
        return None;
    }
    let last = loops.len() - 1;
    let mut sizes: Vec<i64> = loops
        .iter()
        .enumerate()
        .map(|(d, &(extent, _))| {
            if d == last {
                lanes.min(inner)
            } else if extent == 1 {
                0
            } else {
                1
            }
        })
        .collect();
    // A transposed read's walked loop in tiles too: 2-D vectors, transposed in registers.
    let walked = walked(loops.len(), &maps[..operands - 1]);
    // A transposed read walked by a reduction loop would take that loop into the vector.
    if walked.is_some_and(|d| !loops[d].1) {
        return None;
    }
    if let Some(d) = walked {
        let (extent, _) = loops[d];
        if let Some(rows) = [lanes, lanes / 2].into_iter().find(|&rows| rows >= 4 && extent % rows == 0) {
            sizes[d] = rows;
        }
    }
    let order = tile_order(loops.len(), walked);
    let out = op.operand(operands - 1).ok()?.r#type().to_string();
    let strided = !crate::text_kernels::unit_inner_stride(&out);
    Some(VectorTile { sizes, rest: if inner > lanes { inner % lanes } else { 0 }, order, strided })
}

/// Whether `op`'s body is `arith` and `math` ops only, without integer division (the masked
/// lanes of a partial vector compute on padding zeros).
pub(crate) fn plain_body(op: Op) -> bool {
    op.body(0).is_some_and(|body| {
        body.ops().into_iter().all(|inner| {
            let name = inner.name();
            name == "linalg.yield"
                || ((name.starts_with("arith.") || name.starts_with("math.")) && !TRAPPING.contains(&name.as_str()))
        })
    })
}

/// Whether `op` is a kernel of the function (in its body, or in the model's own control flow
/// there: a recurrence's time loop or side-by-side directions (`strata.sections`), a Loop or
/// Scan body, an If's branch; or one thread's tile
/// of a kernel `strata-parallelize` split), not a loop body of a bigger kernel's schedule (the
/// schedules' tile loops hold vector code, or `scf.forall`s without the split's mark).
pub(crate) fn is_kernel(op: Op) -> bool {
    let mut parent = op.parent();
    while let Some(p) = parent {
        if p.is("func.func") {
            return true;
        }
        if p.is("scf.forall") && !attrs::SECTIONS.is_set(p.get()) {
            let own = attrs::PARALLEL.get(op.get()).is_some() || attrs::BATCH_ITEM.is_set(op.get());
            return own && p.parent().is_some_and(|f| f.is("func.func"));
        }
        let control = ["scf.for", "scf.while", "scf.if", "scf.index_switch", "scf.execute_region", "scf.forall"];
        if !control.iter().any(|name| p.is(name)) {
            return false;
        }
        parent = p.parent();
    }
    false
}

/// The mark of a kernel's peeled last partial vector (see [`script`]).
const REST_MARK: &str = "strata.vector_rest";

/// Kernels per run of the transform interpreter. Its expensive checks (debug builds only, see
/// `cpu_schedule::apply_script`) compare every handle a transform consumes with every payload
/// op of every live handle: quadratic in the kernels of one run (1666 kernels took 4.7 s), so
/// debug builds run batches. Without them one run takes every kernel: each run walks the
/// whole module to match its kernels (a 10k-node graph spent 7 s in 104 batches' walks).
const BATCH: usize = if cfg!(debug_assertions) { 64 } else { usize::MAX };

/// Whether `op` (a kernel [`vector_tile`] takes) is better flattened to one loop: every
/// operand read and written in loop order (no broadcast, no transposed read), at least two
/// loops, and an innermost extent that leaves a partial vector or is under one (a 20-wide row
/// in vectors of 16 and 4, a 10-wide one in one vector of 10; over the whole buffer, whole
/// vectors).
fn flattens(op: OperationRef<'_, '_>, lanes: i64) -> bool {
    let Some(loops) = crate::parallelize::loops(op) else { return false };
    let Some(&(inner, _)) = loops.last() else { return false };
    if loops.len() < 2 || inner % lanes == 0 {
        return false;
    }
    let identity =
        |map: &Vec<MapResult>| map.len() == loops.len() && map.iter().enumerate().all(|(i, r)| *r == MapResult::Dim(i));
    match strata_ir::ods::op_name(op).as_str() {
        "linalg.copy" => true,
        "linalg.generic" => op
            .attribute("indexing_maps")
            .ok()
            .and_then(strata_ir::handle::map_results)
            .is_some_and(|maps| maps.iter().all(identity)),
        _ => false,
    }
}

/// The transient marks of [`flatten`]: a kernel to flatten, and its flattened op (numbered).
const FLATTEN_MARK: &str = "strata.flatten";
const FLATTENED_MARK: &str = "strata.flattened";

/// Flattens `kernels` (see [`flattens`]) to one loop over `memref.collapse_shape` views of
/// their operands (MLIR's `transform.structured.flatten_elementwise`: it checks that each
/// operand's layout collapses, and leaves the others as they are). The flattened op keeps the
/// kernel's `strata.*` attributes (its thread split's mark, say), which MLIR does not carry:
/// kernels are marked by their set of those (a handful of sets), one match per set, so the
/// script's matches do not walk the module once per kernel.
fn flatten(module: OperationRef<'_, '_>, cx: &mut PassContext<'_>, kernels: &[Op]) -> Result<(), PassFailed> {
    let mut sets: Vec<Vec<(&str, melior::ir::Attribute)>> = Vec::new();
    for op in kernels {
        let attributes: Vec<(&str, melior::ir::Attribute)> =
            attrs::ALL.iter().filter_map(|h| Some((h.name, op.attribute(h.name)?))).collect();
        let set = match sets.iter().position(|s| *s == attributes) {
            Some(set) => set,
            None => {
                sets.push(attributes);
                sets.len() - 1
            }
        };
        attrs::set_int(op.get(), FLATTEN_MARK, set as i64);
    }
    let mut script = String::from(
        "module attributes {transform.with_named_sequence} {\n  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {\n",
    );
    for i in 0..sets.len() {
        script += &format!(
            "    %k{i} = transform.structured.match attributes{{{FLATTEN_MARK} = {i} : i64}} in %root : (!transform.any_op) -> !transform.any_op\n\
    %n{i} = transform.param.constant {i} : i64 -> !transform.param<i64>\n\
    transform.foreach %k{i} : !transform.any_op {{\n\
    ^bb0(%one: !transform.any_op):\n\
      transform.sequence %one : !transform.any_op failures(suppress) {{\n\
      ^bb1(%op: !transform.any_op):\n\
        %flat = transform.structured.flatten_elementwise %op : (!transform.any_op) -> !transform.any_op\n\
        transform.annotate %flat \"{FLATTENED_MARK}\" = %n{i} : !transform.any_op, !transform.param<i64>\n\
      }}\n\
    }}\n"
        );
    }
    script += "    transform.yield\n  }\n}\n";
    apply_script(
        module,
        cx,
        &script,
        "strata-vectorize-elementwise (flatten, generated)",
        "the elementwise flattening",
    )?;
    // Not flattened: the mark goes. Flattened: the kernel's attributes come back.
    for op in collect(&module, |op| op.attribute(FLATTEN_MARK).is_some()) {
        op.remove_attribute(FLATTEN_MARK);
    }
    let flattened = collect(&module, |op| op.attribute(FLATTENED_MARK).is_some());
    for op in &flattened {
        let set = op.int_attribute(FLATTENED_MARK).and_then(|i| usize::try_from(i).ok());
        op.remove_attribute(FLATTENED_MARK);
        for &(name, value) in set.and_then(|i| sets.get(i)).into_iter().flatten() {
            op.set_attribute(name, value);
        }
    }
    cx.bump("flattened", flattened.len() as u64);
    Ok(())
}

impl Pass for VectorizeElementwise {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let lanes = self.lanes;
        // Kernels refused only for how they index their buffers read subviews instead.
        let refused: Vec<Op> = collect(&module, |op| op.is("linalg.generic") && is_kernel(op))
            .into_iter()
            .filter(|op| vector_tile(op.get(), lanes).is_none())
            .collect();
        cx.bump("sliced", crate::elementwise_slices::rewrite_all(&refused, cx.strata().mlir()));
        let tiled = || -> Vec<(Op, VectorTile)> {
            collect(&module, |op| KERNELS.iter().any(|name| op.is(name)) && is_kernel(op))
                .into_iter()
                .filter_map(|raw| Some((raw, vector_tile(raw.get(), lanes)?)))
                .collect()
        };
        let mut kernels = tiled();
        // Flattened kernels are new ops, tiled anew; otherwise the kernels stay as found.
        let flat: Vec<Op> = kernels.iter().filter(|(op, _)| flattens(op.get(), lanes)).map(|&(op, _)| op).collect();
        if !flat.is_empty() {
            flatten(module, cx, &flat)?;
            kernels = tiled();
        }
        let attempted = kernels.len() as u64;
        let mut refused = 0u64;
        for batch in kernels.chunks(BATCH) {
            let mut labels: Vec<&VectorTile> = Vec::new();
            for (op, tile) in batch {
                attrs::VECTOR_TILE.set(op.get(), &label(tile));
                if !labels.contains(&tile) {
                    labels.push(tile);
                }
            }
            apply_script(
                module,
                cx,
                &script(&labels),
                "strata-vectorize-elementwise (generated)",
                "the elementwise vectorisation",
            )?;
            // A kernel MLIR's vectorizer refused stays a (tiled) loop nest, still marked: the
            // mark goes, or the next batch (debug builds) would tile it again. Its peeled rest
            // (the same body: refused with it) is not counted twice.
            for op in collect(&module, |op| attrs::VECTOR_TILE.get(op.get()).is_some()) {
                refused += u64::from(!op.remove_attribute(REST_MARK));
                op.remove_attribute(attrs::VECTOR_TILE.0);
            }
        }
        cx.bump("kernels", attempted.saturating_sub(refused));
        cx.bump("refused", refused);
        Ok(())
    }
}

/// The transform script that tiles and vectorises the kernels marked with each of `labels`.
fn script(labels: &[&VectorTile]) -> String {
    let mut script = String::from(
        "module attributes {transform.with_named_sequence} {\n  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {\n",
    );
    // The loops around the innermost one stay loops in LLVM too: fully unrolled (their
    // trip counts are constants and the vector bodies small) a 16 x 32 nest became a
    // 1024-copy basic block that LLVM's backend schedulers spend seconds on.
    script += "    %rolled = transform.param.constant #llvm.loop_annotation<unroll = <disable = true>> -> !transform.any_param\n";
    // No canonicalization among the patterns applied to each kernel's loops: `apply_patterns`
    // builds its pattern set once per payload op, and the canonicalizer's (every loaded op's
    // patterns) took 0.5 ms a kernel; the pipeline canonicalizes once afterwards (the zoo's
    // memref IR is the same byte for byte).
    let ops = KERNELS.map(|name| format!("\"{name}\"")).join(", ");
    for (i, tile) in labels.iter().enumerate() {
        let loops = tile.sizes.iter().filter(|&&t| t != 0).count();
        let handles = vec!["!transform.any_op"; loops + 1].join(", ");
        let sizes: Vec<String> = tile.sizes.iter().map(|t| t.to_string()).collect();
        let vector = |last: i64| {
            let mut vector: Vec<String> = tile.sizes.iter().map(|t| t.max(&1).to_string()).collect();
            if let Some(v) = vector.last_mut() {
                *v = last.to_string();
            }
            vector.join(", ")
        };
        let lanes = tile.sizes.last().copied().unwrap_or(1);
        script += &format!(
            "    %k{i} = transform.structured.match ops{{[{ops}]}} attributes{{strata.vector_tile = \"{label}\"}} in %root : (!transform.any_op) -> !transform.any_op\n\
    %t{i}, %l{i}:{loops} = transform.structured.tile_using_for %k{i} tile_sizes [{sizes}]{interchange} : (!transform.any_op) -> ({handles})\n",
            label = label(tile),
            sizes = sizes.join(", "),
            interchange = if tile.order.is_empty() {
                String::new()
            } else {
                format!(" interchange = [{}]", tile.order.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", "))
            },
        );
        for l in 0..loops - 1 {
            script += &format!(
                "    transform.annotate %l{i}#{l} \"loop_annotation\" = %rolled : !transform.any_op, !transform.any_param\n"
            );
        }
        // The loops that hold the kernel's vector code, for the transfers' lowering patterns.
        let mut scopes = vec![format!("%l{i}#0")];
        if tile.rest == 0 {
            script += &vectorize(&format!("%t{i}"), &vector(lanes));
        } else {
            // The innermost loop's last partial vector peeled off: every other vector is
            // whole (its mask folds away: plain loads and stores, not `vmaskmovps` on every
            // vector of a row, slow on AMD's cores), the last one exactly `rest` wide.
            let innermost = loops - 1;
            script += &format!(
                "    %for{i} = transform.cast %l{i}#{innermost} : !transform.any_op to !transform.op<\"scf.for\">\n\
    %main{i}, %rest{i} = transform.loop.peel %for{i} : (!transform.op<\"scf.for\">) -> (!transform.any_op, !transform.any_op)\n"
            );
            for (part, last) in [("main", lanes), ("rest", tile.rest)] {
                // A rest the vectorizer refuses keeps a second mark: not counted as a kernel.
                let rest_mark = if part == "rest" {
                    format!("    transform.annotate %rest_ops{i} \"{REST_MARK}\" : !transform.any_op\n")
                } else {
                    String::new()
                };
                script += &format!(
                    "    transform.foreach %{part}{i} : !transform.any_op {{\n\
    ^bb0(%{part}_loop{i}: !transform.any_op):\n\
    %{part}_ops{i} = transform.structured.match ops{{[{ops}]}} in %{part}_loop{i} : (!transform.any_op) -> !transform.any_op\n{rest_mark}{}\
    }}\n",
                    vectorize(&format!("%{part}_ops{i}"), &vector(last))
                );
            }
            if loops == 1 {
                scopes = vec![format!("%main{i}"), format!("%rest{i}")];
            }
        }
        // A write into a strided output (innermost stride not 1) is not one `lower_transfer`
        // lowers (convert-vector-to-llvm does, later), and each time that pattern fails on it
        // MLIR prints the write into its failure reason (the whole module's SSA names set up
        // for it): ddddocr's YOLOX detector spent 0.55 of this pass's 0.59 s doing that.
        let lower = if tile.strided {
            ""
        } else {
            "      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1\n"
        };
        for scope in scopes {
            script += &format!(
                "    transform.apply_patterns to {scope} {{\n\
      transform.apply_patterns.vector.lower_masked_transfers\n\
    }} : !transform.any_op\n\
    transform.apply_patterns to {scope} {{\n\
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n\
      transform.apply_patterns.vector.transfer_permutation_patterns\n{lower}\
    }} : !transform.any_op\n"
            );
        }
    }
    script += "    transform.yield\n  }\n}\n";
    script
}

/// Vectorises each op of `handle` with `vector` sizes (a refusal leaves it a loop nest).
fn vectorize(handle: &str, vector: &str) -> String {
    format!(
        "    transform.foreach {handle} : !transform.any_op {{\n\
    ^bb0(%one: !transform.any_op):\n\
      transform.sequence %one : !transform.any_op failures(suppress) {{\n\
      ^bb1(%op: !transform.any_op):\n\
        transform.structured.vectorize %op vector_sizes [{vector}] : !transform.any_op\n\
      }}\n\
    }}\n"
    )
}

/// The `strata.vector_tile` mark: the tile sizes, `AxBx...`, the peeled rest, `+R`, and the
/// loop order where it is not the kernel's, `/2,0,1,3`.
fn label(tile: &VectorTile) -> String {
    let mut label = tile.sizes.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("x");
    if tile.rest != 0 {
        label += &format!("+{}", tile.rest);
    }
    if !tile.order.is_empty() {
        label += &format!("/{}", tile.order.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(","));
    }
    if tile.strided {
        label += "~s";
    }
    label
}
