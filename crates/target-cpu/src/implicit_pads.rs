//! `strata-implicit-pads`: a depthwise convolution (or an image's stem) over a zero
//! `tensor.pad` of its input's rows and columns reads the unpadded input, the padding implicit
//! (host, on tensors, before bufferization).
//!
//! The convolution becomes a `linalg.generic` carrying `strata.implicit_pads` (strides,
//! dilations, the padding before the rows and columns) whose operands are the filter and the
//! accumulator and whose body reads the input (`tensor.extract`) where the window lies inside it
//! and zero elsewhere: a correct loop nest on its own. After planning,
//! `strata-vectorize-depthwise` writes it as its register-blocked kernel, the output rows and
//! column blocks whose windows reach into the padding on their own with those taps left out
//! (rows) or masked and shuffled in from zeros (columns), the others in its loops as before.
//!
//! Why: a padded input costs a pass over a buffer larger than the activation, a fill of the
//! whole padded buffer and, where the producer cannot write into its strided interior (a 1x1
//! convolution run over its flattened `H*W` positions), a copy as well. Those fills and copies
//! were ~0.55 ms of MobileNetV2's ~7 ms on one thread (17 depthwise convolutions) and the
//! padded buffer lived beside the activation wherever the producer wrote it in place.
//! `strata-conv-borders` removes padding too, by splitting an operation into one part per class
//! of border outputs (scalar parts below 4 outputs a row, one Presburger-checked slice each at
//! bufferization): it stays for what this pass does not take (pools, grouped and 1-D
//! convolutions), and for the depthwise convolutions the host kernel does not fit.
//!
//! A full convolution over an image (`linalg.conv_2d_nchw_fchw` over at most 4 input channels
//! and 27 taps, at most 16 filters: the 3 x 3 stems of mobile networks and detectors) is taken
//! the same way, its loops `(n, f, oh, ow, c, kh, kw)`: its padded input is a copy of the graph
//! input (read-only), which `strata-band-input-pads` otherwise bands at the peak. MobileNetV3-
//! Small's stem 0.21 -> 0.13 ms (banded copies and a separate HardSwish pass before), the text
//! detector's 0.044 -> 0.029, the YOLO-style detector's 0.014 -> 0.003.
//!
//! Taken: f32, NCHW, the pad of H and W only with zero, the shapes the host's kernel fits
//! (`vectorize_depthwise::Depthwise::with_implicit_pads`: a width stride of 1 or 2, at least 4
//! outputs a row, a bounded number of border blocks, the stems' limits above). Left alone
//! (counted as kept): other padding values, pads of N or C, other shapes.

use crate::vectorize_depthwise::Depthwise;
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::kernel::{Iter, Kernel, KernelCache, Map};
use strata_lower::nn::pair_attribute;
use strata_lower::ops::tensor_type;
use strata_lower::pads::Pad;

pub static INFO: PassInfo = PassInfo {
    name: "strata-implicit-pads",
    summary: "Depthwise convolutions and image stems over a zero pad read their unpadded input, the padding implicit in the host kernel",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "convolutions", help: "Convolutions reading their unpadded input" },
        StatisticInfo { name: "kept", help: "Convolutions over a pad left padded (another value, pad or shape)" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ImplicitPads)
}

struct ImplicitPads;

/// A full convolution: taken over at most `vectorize_depthwise::MAX_FULL_CHANNELS` input
/// channels (an image's), whose stem otherwise reads a padded copy of the graph input.
const FULL: &str = "linalg.conv_2d_nchw_fchw";

/// The kernel text that replaces `op` (a depthwise or full convolution of `padded`, the result
/// of `pad`): arguments the unpadded input, the filter, the accumulator. `None` when not taken.
fn kernel(op: Op, padded: Op, pad: &Pad) -> Option<String> {
    let source = tensor_type(pad.source.r#type()).ok()?;
    let padded = tensor_type(padded.result(0).r#type()).ok()?;
    let filter = tensor_type(op.operand(1).r#type()).ok()?;
    let acc = tensor_type(op.operand(2).r#type()).ok()?;
    let f32 = [&source, &filter, &acc].iter().all(|t| t.elem.to_string() == "f32");
    if !f32 || source.rank() != 4 || padded.shape[..2] != source.shape[..2] || pad.number != 0.0 {
        return None;
    }
    if pad.low.len() != 4 || pad.low[..2] != [0, 0] {
        return None;
    }
    let (strides, dilations, pads) =
        (pair_attribute(op, "strides")?, pair_attribute(op, "dilations")?, [pad.low[2], pad.low[3]]);
    Depthwise::with_implicit_pads(
        source.shape.clone(),
        filter.shape.clone(),
        acc.shape.clone(),
        strides,
        dilations,
        pads,
    )?;
    // Loops (n, c, oh, ow, kh, kw); a full convolution's (n, f, oh, ow, c, kh, kw).
    let full = op.is(FULL);
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
    let filter_map = if full { Map::dims([1, 4, 5, 6]) } else { Map::dims([1, 4, 5]) };
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
            let element = b.emit(format_args!(
                "tensor.extract {x}[{}, {}, {row}, {column}] : {source}",
                index[0], index[channel_at]
            ));
            let zero = b.emit("arith.constant 0.0 : f32");
            let value = b.emit(format_args!("arith.select {inside}, {element}, {zero} : f32"));
            let product = b.emit(format_args!("arith.mulf {value}, {} : f32", args[0]));
            b.emit(format_args!("arith.addf {}, {product} : f32", args[1]))
        },
    );
    k.set_result(result, acc);
    Some(format!("module {{\n{}}}\n", k.function("implicit_pads")))
}

impl Pass for ImplicitPads {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        for raw in collect(&func, |op| op.is("linalg.depthwise_conv_2d_nchw_chw") || op.is(FULL)) {
            let op = Op::of(&raw.get());
            let Some(padded) = op.operand(0).owner() else { continue };
            let Some(pad) = Pad::of(padded.get()) else { continue };
            let Some(text) = kernel(op, padded, &pad) else {
                cx.bump("kept", 1);
                continue;
            };
            let operands = [Val::of(pad.source), op.operand(1), op.operand(2)];
            // Safety: `op` is replaced once and not used afterwards; the operands are defined
            // before it; the pad goes only when nothing else reads it.
            unsafe {
                kernels.replace_op_with(cx, op, &operands, &text, "implicit-padding convolution")?;
                strata_ir::rewrite::erase_if_unused(padded);
            }
            cx.bump("convolutions", 1);
        }
        Ok(())
    }
}
