//! `strata-implicit-pads`: a depthwise convolution (or an image's stem, a grouped
//! convolution, a max or sum pool) over a `tensor.pad` of its input's rows and columns with
//! the value that changes no window's result (zero; a max pool's -inf) reads the unpadded
//! input, the padding implicit (host, on tensors, before bufferization).
//!
//! The operation becomes a `linalg.generic` carrying `strata.implicit_pads` (strides,
//! dilations, the padding before the rows and columns) whose operands are the filter (a pool's
//! window) and the accumulator and whose body reads the input (`tensor.extract`) where the
//! window lies inside it and the padding value elsewhere: a correct loop nest on its own. After
//! planning, `strata-vectorize-depthwise` writes it as its register-blocked kernel, the output
//! rows and column blocks whose windows reach into the padding on their own with those taps
//! left out (rows) or masked and shuffled in from the padding value (columns), the others in
//! its loops as before.
//!
//! Why: a padded input costs a pass over a buffer larger than the activation, a fill of the
//! whole padded buffer and, where the producer cannot write into its strided interior (a 1x1
//! convolution run over its flattened `H*W` positions), a copy as well. Those fills and copies
//! were ~0.55 ms of MobileNetV2's ~7 ms on one thread (17 depthwise convolutions) and the
//! padded buffer lived beside the activation wherever the producer wrote it in place.
//! `strata-conv-borders` removes padding too, by splitting an operation into one part per class
//! of border outputs (scalar parts below 4 outputs a row, one Presburger-checked slice each at
//! bufferization): it stays for what this pass does not take (1-D convolutions, pools over
//! other shapes), and for the depthwise convolutions the host kernel does not fit. Its scalar
//! border parts had made a pool 1.3-1.6x slower than this kernel (ResNet's 3 x 3 stride-2 max
//! pool 0.154 -> 0.136 ms standalone, Inception's 3 x 3 0.050 -> 0.030, YOLO's 5 x 5 SPPF
//! pool 0.100 -> 0.065; with the -inf fill folded too, 0.025 and 0.054).
//!
//! A full convolution over an image (`linalg.conv_2d_nchw_fchw` over at most 4 input channels
//! and 36 taps, at most 16 filters: the 3 x 3 stems of mobile networks and detectors) is taken
//! the same way, its loops `(n, f, oh, ow, c, kh, kw)`: its padded input is a copy of the graph
//! input (read-only), which `strata-band-input-pads` otherwise bands at the peak. MobileNetV3-
//! Small's stem 0.21 -> 0.13 ms (banded copies and a separate HardSwish pass before), the text
//! detector's 0.044 -> 0.029, the YOLO-style detector's 0.014 -> 0.003.
//!
//! A grouped convolution (`linalg.conv_2d_ngchw_gfchw`, see [`GROUPED`]) is taken the same
//! way, padded or not, whatever its groups' sizes, as a full convolution whose filter `[F,
//! C/G, KH, KW]` reads channel `f / (F/G) * (C/G) + c` of the input: the kernel runs each
//! group's blocks of filters over its own channels.
//!
//! A pool (`linalg.pooling_nchw_max` over a pad of -inf, `linalg.pooling_nchw_sum` over a
//! zero pad: an average pool's sum, its division after) keeps the depthwise loops `(n, c, oh,
//! ow, kh, kw)`, its window `[KH, KW]` the generic's first operand (read for its shape), its
//! body a maximum or a sum.
//!
//! Taken: f32, NCHW, the pad of H and W only with that value, the shapes the host's kernel fits
//! (`vectorize_depthwise::Depthwise::with_implicit_pads`: a width stride of 1 or 2, at least 4
//! outputs a row, a bounded number of border blocks, the stems' limits above). Left alone
//! (counted as kept): other padding values, pads of N or C, other shapes.

use crate::vectorize_depthwise::{Depthwise, Reduce};
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::kernel::{Iter, Kernel, KernelCache, Map};
use strata_lower::nn::pair_attribute;
use strata_lower::ops::tensor_type;
use strata_lower::pads::Pad;

pub static INFO: PassInfo = PassInfo {
    name: "strata-implicit-pads",
    summary: "Depthwise, stem and grouped convolutions and pools over a pad of their identity read their unpadded input, the padding implicit in the host kernel",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "convolutions", help: "Convolutions and pools reading their unpadded input" },
        StatisticInfo { name: "kept", help: "Convolutions and pools over a pad left padded (another value, pad or shape)" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ImplicitPads)
}

struct ImplicitPads;

/// A full convolution: taken over at most `vectorize_depthwise::MAX_FULL_CHANNELS` input
/// channels (an image's), whose stem otherwise reads a padded copy of the graph input.
const FULL: &str = "linalg.conv_2d_nchw_fchw";

/// A grouped convolution in the lowering's form: `[N, G, C/G, H, W]`, `[G, F/G, C/G, KH, KW]`
/// and `[N, G, F/G, OH, OW]` operands, each a `tensor.expand_shape` of an NCHW input (padded or
/// not), an FCHW filter and an NFHW accumulator. The host kernel takes it as a full
/// convolution per group, whatever the groups' sizes: ResNeXt's 3 x 3 convolutions of 4 channels a group ran 2.3-2.5x faster than in
/// `strata-cpu-schedule`'s register blocks (`conv_lanes::rewrite_grouped`; 7.2M multiply-adds
/// at 56 x 56 0.17 -> 0.07 ms on one thread), and 5.5x faster at stride 2, which those blocks
/// do not take (a scalar loop nest: 3.6M multiply-adds in 0.30 ms, no faster on two threads).
const GROUPED: &str = "linalg.conv_2d_ngchw_gfchw";

/// What a convolution or pool reads: the input (unpadded), its padding before the rows and
/// columns, the filter (a pool's window) and the accumulator (4-D each, a grouped
/// convolution's taken out of its `tensor.expand_shape`s), and the ops that go with it (a
/// pad, expand_shapes).
struct Operands {
    source: Val,
    pads: [i64; 2],
    filter: Val,
    acc: Val,
    /// The ops the convolution alone read, erased after it when unused (innermost first).
    dead: Vec<Op>,
    /// Whether the padding (if any) is the reduction's identity (zero; a max pool's -inf) on the
    /// rows and columns only: the others are kept.
    identity: bool,
}

/// The 4-D value a grouped convolution's operand `index` expands, its dimensions `[at, at +
/// 1]` merged (the filter's `[G, F/G]`, the others' `[G, C/G]`), and the expand_shape.
fn unexpanded(op: Op, index: usize, at: usize) -> Option<(Val, Op)> {
    let expand = op.operand(index).owner().filter(|e| e.is("tensor.expand_shape"))?;
    let (source, grouped) =
        (tensor_type(expand.operand(0).r#type()).ok()?, tensor_type(expand.result(0).r#type()).ok()?);
    let (s, g) = (&source.shape, &grouped.shape);
    let merged =
        s.len() == 4 && g.len() == 5 && s[..at] == g[..at] && s[at] == g[at] * g[at + 1] && s[at + 1..] == g[at + 2..];
    merged.then(|| (expand.operand(0), expand))
}

/// A max pool, over a pad of -inf: the padding leaves every window's maximum as it is.
const MAX_POOL: &str = "linalg.pooling_nchw_max";

/// A sum pool (an average pool's sum), over a zero pad.
const SUM_POOL: &str = "linalg.pooling_nchw_sum";

/// What `op` reduces its windows with.
fn reduction(op: Op) -> Reduce {
    if op.is(MAX_POOL) {
        Reduce::Max
    } else if op.is(SUM_POOL) {
        Reduce::Sum
    } else {
        Reduce::Weighted
    }
}

/// The operands of `op` when this pass looks at it: a depthwise or full convolution or a pool
/// over a `tensor.pad`, or a grouped convolution over its input, padded or not.
fn operands(op: Op) -> Option<Operands> {
    let mut dead = Vec::new();
    let (input, filter, acc) = if op.is(GROUPED) {
        let [(input, a), (filter, b), (acc, c)] = [unexpanded(op, 0, 1)?, unexpanded(op, 1, 0)?, unexpanded(op, 2, 1)?];
        dead.extend([a, b, c]);
        (input, filter, acc)
    } else {
        (op.operand(0), op.operand(1), op.operand(2))
    };
    let padded = input.owner();
    let pad = padded.and_then(|p| Pad::of(p.get()));
    let (source, pads, identity) = match (&pad, padded) {
        (Some(pad), Some(padded)) => {
            let source = tensor_type(pad.source.r#type()).ok()?;
            let padded_ty = tensor_type(padded.result(0).r#type()).ok()?;
            let identity = source.rank() == 4
                && padded_ty.shape[..2] == source.shape[..2]
                && pad.number == reduction(op).identity()
                && pad.low.len() == 4
                && pad.low[..2] == [0, 0];
            dead.push(padded);
            let pads = if identity { [pad.low[2], pad.low[3]] } else { [0, 0] };
            (Val::of(pad.source), pads, identity)
        }
        _ if op.is(GROUPED) => (input, [0, 0], true),
        _ => return None,
    };
    Some(Operands { source, pads, filter, acc, dead, identity })
}

/// The kernel text that replaces `op` (a depthwise, full or grouped convolution, or a pool)
/// reading `operands`: arguments the unpadded input, the filter (a pool's window, read for its
/// shape), the accumulator (4-D; a grouped convolution's result expanded back into its
/// groups). `None` when not taken.
fn kernel(op: Op, operands: &Operands) -> Option<String> {
    let source = tensor_type(operands.source.r#type()).ok()?;
    let filter = tensor_type(operands.filter.r#type()).ok()?;
    let acc = tensor_type(operands.acc.r#type()).ok()?;
    let reduce = reduction(op);
    let pool = reduce != Reduce::Weighted;
    let f32 = [&source, &filter, &acc].iter().all(|t| t.elem.to_string() == "f32" || (pool && t.shape.len() == 2));
    if !f32 || source.rank() != 4 || !operands.identity {
        return None;
    }
    let (strides, dilations, pads) = (pair_attribute(op, "strides")?, pair_attribute(op, "dilations")?, operands.pads);
    let conv = Depthwise::with_implicit_pads(
        reduce,
        source.shape.clone(),
        filter.shape.clone(),
        acc.shape.clone(),
        strides,
        dilations,
        pads,
    )?;
    // Loops (n, c, oh, ow, kh, kw); a full (or grouped) convolution's (n, f, oh, ow, c, kh, kw).
    let full = op.is(FULL) || op.is(GROUPED);
    // A grouped convolution's filters and input channels per group (the kernel checked that
    // its groups divide both).
    let per_group = op.is(GROUPED).then(|| (acc.shape[1] / conv.groups(), filter.shape[1]));
    let (loops, taps_at, channel_at) = if full { (7, 5, 4) } else { (6, 4, 1) };
    let mut k = Kernel::new(vec![source.clone(), filter.clone(), acc.clone()]);
    let (x, w, init) = (k.arg(0), k.arg(1), k.arg(2));
    let attribute = strata_ir::attrs::IMPLICIT_PADS.in_dictionary(&[
        strides[0],
        strides[1],
        dilations[0],
        dilations[1],
        pads[0],
        pads[1],
    ]);
    let iterators: Vec<Iter> = (0..loops).map(|d| if d < 4 { Iter::Parallel } else { Iter::Reduction }).collect();
    let filter_map = match (full, pool) {
        (true, _) => Map::dims([1, 4, 5, 6]),
        (false, true) => Map::dims([4, 5]),
        (false, false) => Map::dims([1, 4, 5]),
    };
    let result = k.generic_with_attributes(
        &attribute,
        &[(&w, &filter, filter_map)],
        (&init, &acc, Map::identity(4)),
        &iterators,
        |b, args| {
            let index: Vec<String> = (0..loops).map(|d| b.index(d)).collect();
            let zero = b.emit("arith.constant 0 : index");
            // The input index of output `o`'s tap `t` along one axis, clamped into the input,
            // and whether it lies inside.
            let mut coordinate = |axis: usize| -> (String, String) {
                let (o, t) = (&index[2 + axis], &index[taps_at + axis]);
                let stride = b.emit(format_args!("arith.constant {} : index", strides[axis]));
                let dilation = b.emit(format_args!("arith.constant {} : index", dilations[axis]));
                let low = b.emit(format_args!("arith.constant {} : index", pads[axis]));
                let last = b.emit(format_args!("arith.constant {} : index", source.shape[2 + axis] - 1));
                let at = b.emit(format_args!("arith.muli {o}, {stride} : index"));
                let tap = b.emit(format_args!("arith.muli {t}, {dilation} : index"));
                let padded = b.emit(format_args!("arith.addi {at}, {tap} : index"));
                let i = b.emit(format_args!("arith.subi {padded}, {low} : index"));
                let above = b.emit(format_args!("arith.maxsi {i}, {zero} : index"));
                let clamped = b.emit(format_args!("arith.minsi {above}, {last} : index"));
                let inside = b.emit(format_args!("arith.cmpi eq, {i}, {clamped} : index"));
                (clamped, inside)
            };
            let (row, row_inside) = coordinate(0);
            let (column, column_inside) = coordinate(1);
            let inside = b.emit(format_args!("arith.andi {row_inside}, {column_inside} : i1"));
            // A grouped convolution's input channel: its filter's group's first, plus `c`.
            let channel = match per_group {
                Some((filters, channels)) => {
                    let filters = b.emit(format_args!("arith.constant {filters} : index"));
                    let channels = b.emit(format_args!("arith.constant {channels} : index"));
                    let group = b.emit(format_args!("arith.divui {}, {filters} : index", index[1]));
                    let first = b.emit(format_args!("arith.muli {group}, {channels} : index"));
                    b.emit(format_args!("arith.addi {first}, {} : index", index[channel_at]))
                }
                None => index[channel_at].clone(),
            };
            let element =
                b.emit(format_args!("tensor.extract {x}[{}, {channel}, {row}, {column}] : {source}", index[0]));
            // Outside the input: the padding value (a maximum's -inf, zero otherwise).
            let padding = b.emit(format_args!("arith.constant {} : f32", reduce.identity_literal()));
            let value = b.emit(format_args!("arith.select {inside}, {element}, {padding} : f32"));
            match reduce {
                // linalg.pooling_nchw_max's own maximum (NaN propagates).
                Reduce::Max => b.emit(format_args!("arith.maximumf {}, {value} : f32", args[1])),
                Reduce::Sum => b.emit(format_args!("arith.addf {}, {value} : f32", args[1])),
                Reduce::Weighted => {
                    let product = b.emit(format_args!("arith.mulf {value}, {} : f32", args[0]));
                    b.emit(format_args!("arith.addf {}, {product} : f32", args[1]))
                }
            }
        },
    );
    match per_group {
        Some(_) => {
            let grouped = tensor_type(op.result(0).r#type()).ok()?;
            let shape: Vec<String> = grouped.shape.iter().map(i64::to_string).collect();
            let expanded = k.emit(format_args!(
                "tensor.expand_shape {result} [[0], [1, 2], [3], [4]] output_shape [{}] : {acc} into {grouped}",
                shape.join(", ")
            ));
            k.set_result(expanded, grouped);
        }
        None => k.set_result(result, acc),
    }
    Some(format!("module {{\n{}}}\n", k.function("implicit_pads")))
}

impl Pass for ImplicitPads {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        let names = ["linalg.depthwise_conv_2d_nchw_chw", FULL, GROUPED, MAX_POOL, SUM_POOL];
        for raw in collect(&func, |op| names.iter().any(|name| op.is(name))) {
            let op = Op::of(&raw.get());
            let Some(read) = operands(op) else { continue };
            let Some(text) = kernel(op, &read) else {
                cx.bump("kept", 1);
                continue;
            };
            let values = [read.source, read.filter, read.acc];
            // Safety: `op` is replaced once and not used afterwards; the operands are defined
            // before it; the pad and expand_shapes go only when nothing else reads them.
            unsafe {
                kernels.replace_op_with(cx, op, &values, &text, "implicit-padding convolution")?;
                for dead in read.dead {
                    strata_ir::rewrite::erase_if_unused(dead);
                }
            }
            cx.bump("convolutions", 1);
        }
        Ok(())
    }
}
