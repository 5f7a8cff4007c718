//! `strata-conv-borders`: a depthwise, grouped or unit-stride full convolution (2-D ones near
//! the peak only) or a pool over a `tensor.pad` reads its unpadded input. Where a window
//! reaches into the padding, it runs with the window cut to the taps inside the input instead.
//!
//! Padding a whole activation costs a buffer of its size plus the border: a padded copy, or,
//! produced in place (`strata-pad-in-place`), a padded buffer that lives from the producer on.
//! At MobileNetV2's peak that border is 173 KB (`1x96x114x114` against `1x96x112x112`).
//!
//! When the padding value is the reduction's identity (zero for a convolution or a sum pool,
//! the lowest value or -inf for a max pool), a tap in the padding adds nothing. Along each
//! axis, the outputs fall into classes of consecutive outputs whose windows keep the same taps
//! inside the input: the interior keeps all of them, each border output its own subset. The
//! operation becomes one of the same operation per (row class, column class): on the slice of
//! the input those outputs read, with the filter (or window) sliced to the taps kept, writing
//! its part of the result (`tensor.extract_slice` of the accumulator, `tensor.insert_slice`
//! back, which bufferization turns into writes through subviews). Nothing is copied and no
//! buffer is added: the filter slices are views of the weights.
//!
//! A grouped convolution reads its pad through the `tensor.expand_shape` that splits the
//! channels into groups; each part expands its own slice of the input the same way. ResNeXt's
//! stride-2 grouped 3x3 reads a 1.72 MB padded copy of a 1.6 MB input that the block's shortcut
//! keeps alive: the zoo's ResNeXt block's peak.
//!
//! Full convolutions (`conv_2d_nchw_fchw`) are split only with unit strides. Their filter
//! slices are constants sliced at compile time by the host schedule (`conv_split`), not
//! transposed in the kernel on every run. Tried (2026-11-28): the host schedule of a strided
//! convolution views its input as `[rows, stride]`, so a split interior of 63 rows became a
//! copy into a 64-row buffer, and splitting loses a pad its producer wrote in place (DenseNet's
//! and the Inception cell's arenas grew 3-7%). 1-D ones (a unit window axis) are cheap splits
//! (two end parts) like the depthwise ones; 2-D ones only ever near the peak, never under the
//! part budget below: splitting every one grew the CRNN's arena 156416 -> 227328 B (its band
//! chains' convolutions, whose pads are a band's already, lost their band buffers: a pad of a
//! slice is kept), and the parts cost time where the border is small (the int8 CNN's 16-channel
//! 32x32 convolutions 18.3 -> 20.8 us: the interior's 30 columns take the filter-lane tiles
//! with their transposed stores instead of whole-row vectors; 18.4 and 19.1 with each part's
//! own initial value, below). At the peak they take the arena to the in-order peak that pads
//! inside the convolution: the int8 CNN's residual block, whose
//! shortcut lives beside its convolutions' padded inputs, 205056 -> 196608 B (1.04x -> 1.00x
//! ONNX Runtime's in-order peak); a 64-channel 56x56 block with `--disable winograd`,
//! 2466816 -> 1605632 B at the same speed.
//!
//! A full convolution whose initial value is a fill or a broadcast bias, read by it alone,
//! gives each part its own (the parts then fill a new tensor): the host schedule fuses such an
//! initial value into the part's tiles, where a slice of the filled whole came from memory,
//! through the filter-lane tiles' transposes, after a pass of its own over the whole result
//! (the int8 CNN's split 16-channel convolutions 21.3 -> 18.4 and 21.2 -> 19.1 us, as fast as
//! before the split).
//!
//! A part whose windows lie wholly in the padding keeps its initial value (the bias). A clamp
//! that follows the operation on its whole result (ReLU, ReLU6, Clip: a `linalg.generic` over
//! it in place whose body is `maximumf`/`minimumf` with constants) is applied to each part
//! instead, so the host's depthwise kernel still runs it in registers.
//!
//! **Dilated convolutions that read mostly padding** are split wherever they are, for speed: a
//! dilated 3x3 convolution over a map not much wider than its dilation (DeepLab's atrous
//! pyramid: dilations 6, 12 and 18 over a 33 x 33 map, padded by the dilation) reads the
//! padding for 23%, 43% and 60% of its multiply-adds, and the parts skip them. Taken where a
//! quarter of the taps or more lie in the padding, whatever the interior (at dilation 18 no
//! output keeps all nine taps): the 18-dilated one of 64 channels into 32, 0.20 -> 0.10 ms
//! (ONNX Runtime's, which cuts its windows at the borders too, 0.135).
//!
//! Left alone (counted as kept): pads of anything but H and W, another padding value, windows
//! reaching so far into the padding that the result would be more than [`MAX_PARTS`] parts,
//! and results whose interior (the outputs that keep every tap) is less than half of them
//! (but for the dilated convolutions above):
//! YOLO's SPPF pools (5x5 on a 4x4 map) would become sixteen one-output parts, a quarter
//! slower, for a border of a few KB.
//!
//! **Full convolutions whose parts would read the filter again for too few outputs** are left
//! padded too (counted `filter-bound`; [`rereads_filter`]): each part reads its slice of the
//! filter, a border part one output wide multiplies each weight once, and a filter beyond L1
//! comes from L2 or L3 for it. So 2-D ones are split only with a filter in L1 (the int8 CNN's
//! 16 channels), 1-D ones while the end parts' reads stay small against the work. A chain of
//! three ResNet-style 512-channel 3 x 3 convolutions at 7 x 7, at the peak, ran 15.0 ms split
//! against 4.4 ms padded (ONNX Runtime 4.5), two 128-channel ones at 28 x 28 4.35 against 2.59
//! (2.56); the iSTFT vocoder's 1-D convolutions 0.33 -> 0.28 ms; no zoo arena changed.
//!
//! **Only near the peak.** Each part is a slice written in place, and One-Shot Bufferization
//! proves the slices of one result disjoint pair by pair (Presburger queries): splitting all of
//! MobileNetV2's 17 depthwise convolutions cost 0.9 s of compile time, for a saving that only
//! counts where the padded input is live at the peak. A function whose splits make at most
//! [`PART_BUDGET`] parts in all (2-D full convolutions not counted) is split everywhere but
//! for its 2-D full convolutions (ResNet-18's max pool, an Inception cell's pools). Beyond
//! that, and for those convolutions always, the pass estimates the function's memory at each op before
//! bufferization ([`pressure`]) and splits an operation only while the estimate's peak lies
//! where its padded buffer is live, each split lowering the estimate ([`at_peak`]; it runs after
//! `strata-band-input-pads`, whose bands it then counts): MobileNetV2 split one of its 17
//! depthwise convolutions. `all=true` splits every one. On the host with its schedule,
//! `strata-implicit-pads` runs first and takes the depthwise convolutions the host kernel fits
//! (the padding implicit in the kernel: no parts, no scalar borders); this pass splits what is
//! left.

use melior::ir::ValueLike;
use std::collections::BTreeMap;
use strata_ir::handle::tensor_bytes;
use strata_ir::rewrite::collect;
use strata_ir::{
    Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val,
};
use strata_lower::kernel::{Iter, Kernel, KernelCache, Map};
use strata_lower::nn::{list, pair_attribute, window_attributes};
use strata_lower::ops::tensor_type;
use strata_lower::pads::{bias_broadcast, bias_value, clamp_in_place, Init, Pad};

pub static INFO: PassInfo = PassInfo {
    name: "strata-conv-borders",
    summary: "Depthwise, grouped and 1-D convolutions, pools, and 2-D convolutions at the peak, over a pad read their unpadded input, with windows cut to the input at the borders",
    anchor: "func.func",
    options: &[OptionInfo {
        name: "all",
        kind: OptionKind::Bool,
        default: "false",
        help: "split every operation it can, not only those that may be at the function's peak",
    }],
    statistics: &[
        StatisticInfo { name: "far-from-peak", help: "Operations left padded: their padded input cannot be at the function's peak" },
        StatisticInfo { name: "split", help: "Operations split into parts with their windows cut to the input" },
        StatisticInfo {
            name: "padding-bound",
            help: "Of those, dilated convolutions split wherever they are: a quarter of their taps or more read padding",
        },
        StatisticInfo { name: "clamps", help: "Clamps that follow a split operation applied to each part" },
        StatisticInfo { name: "kept", help: "Operations over a pad left alone (another padding value or pad, mostly border, or too many parts)" },
        StatisticInfo {
            name: "filter-bound",
            help: "Full convolutions left padded: their parts would read a filter beyond L1 again for too few outputs",
        },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(ConvBorders { all: options.bool("all") })
}

struct ConvBorders {
    all: bool,
}

/// The operations split: their operand 0 is the padded input, operand 1 the filter or window
/// (the window size is its last two dimensions), operand 2 the accumulator.
const OPS: [&str; 5] =
    ["linalg.depthwise_conv_2d_nchw_chw", "linalg.pooling_nchw_max", "linalg.pooling_nchw_sum", GROUPED, FULL];

/// Full convolutions are split only with a unit stride, 2-D ones only near the peak (see the
/// module comment).
const FULL: &str = "linalg.conv_2d_nchw_fchw";

/// A grouped convolution reads its padded input through a `tensor.expand_shape` that splits
/// the channels into groups (`[N, C, H, W]` to `[N, G, C/G, H, W]`); each part expands its slice
/// of the unpadded input the same way.
const GROUPED: &str = "linalg.conv_2d_ngchw_gfchw";

/// How each part of a full convolution starts when the convolution's accumulator, read by it
/// alone, is a fill or a broadcast bias: each part makes its own, so the host schedule fuses it
/// into the part's tiles (a part reading its slice of a filled accumulator takes it from
/// memory, and the whole accumulator is filled first, in a pass of its own).
enum Start {
    Fill(String),
    Bias(Val),
}

fn own_start(op: Op) -> Option<Start> {
    let acc = op.operand(2);
    if !op.is(FULL) || acc.users().len() != 1 {
        return None;
    }
    match Init::of(acc.owner()?.get())? {
        Init::Fill(literal) => Some(Start::Fill(literal)),
        Init::Bias(generic) => Some(Start::Bias(Val::of(bias_value(generic)))),
    }
}

/// An operation the pass can split, as found: `source` its pad's source then, `clamp` the
/// clamp after it that its parts take, `text` the kernel of its parts, `own` whether the parts
/// make their own initial value ([`own_start`]), `planar` a 2-D full convolution.
struct Candidate {
    op: Op,
    source: Val,
    clamp: Option<Op>,
    text: String,
    own: bool,
    planar: bool,
    /// A dilated convolution reading padding for a quarter of its taps or more.
    wasteful: bool,
}

/// Whether `op` is a 2-D full convolution (no unit window axis): split only near the peak.
fn planar_full(op: Op) -> bool {
    op.is(FULL) && tensor_type(op.operand(1).r#type()).is_ok_and(|f| f.rank() == 4 && !f.shape[2..].contains(&1))
}

/// The pad that `op` reads (through the grouped convolutions' expand), with the op it makes.
fn pad_of<'c, 'a>(op: Op) -> Option<(Op, Pad<'c, 'a>)> {
    let mut padded = op.operand(0).owner()?;
    if op.is(GROUPED) {
        if !padded.is("tensor.expand_shape") {
            return None;
        }
        padded = padded.operand(0).owner()?;
    }
    Some((padded, Pad::of(padded.get())?))
}

/// A function split into at most this many parts in all is split everywhere; beyond it, only
/// near the peak (see the module comment).
pub const PART_BUDGET: usize = 48;

/// The most parts an operation is split into (a 5x5 window padded by 2: five classes of
/// outputs along each axis).
pub const MAX_PARTS: usize = 25;

/// One spatial axis of a windowed operation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Axis {
    input: i64,
    output: i64,
    window: i64,
    stride: i64,
    dilation: i64,
    /// Padding before the input.
    low: i64,
}

/// Consecutive outputs `[outputs.0, outputs.1)` whose windows keep taps `[taps.0, taps.1)`
/// inside the input (none when the range is empty).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Class {
    outputs: (i64, i64),
    taps: (i64, i64),
}

impl Axis {
    /// The taps of output `o`'s window that read inside the input.
    fn taps(&self, o: i64) -> (i64, i64) {
        // The input index tap 0 reads.
        let first = o * self.stride - self.low;
        let lo = if first >= 0 { 0 } else { (-first + self.dilation - 1) / self.dilation }.min(self.window);
        let room = self.input - 1 - first;
        let hi = if room < 0 { 0 } else { (room / self.dilation + 1).min(self.window) };
        (lo, hi.max(lo))
    }

    /// The outputs grouped into classes of equal taps, in order.
    fn classes(&self) -> Vec<Class> {
        let mut classes: Vec<Class> = Vec::new();
        for o in 0..self.output {
            let taps = self.taps(o);
            match classes.last_mut() {
                Some(last) if last.taps == taps => last.outputs.1 = o + 1,
                _ => classes.push(Class { outputs: (o, o + 1), taps }),
            }
        }
        classes
    }

    /// The input range `[start, size)` that the windows of `class` read with its taps.
    fn reads(&self, class: Class) -> (i64, i64) {
        let (a, b) = class.outputs;
        let (t0, t1) = class.taps;
        (a * self.stride - self.low + t0 * self.dilation, (b - 1 - a) * self.stride + (t1 - 1 - t0) * self.dilation + 1)
    }
}

/// Whether splitting a full convolution into the parts of `rows` x `cols` would cost more in
/// filter reads than it is worth. A filter of at most [`L1_FILTER_BYTES`] stays in L1, where
/// the parts' loads cost what the interior's do: always split. Beyond L1:
/// - A 2-D one (no unit window axis) never: its left and right border parts are one output wide, so
///   their kernel multiplies each weight it loads (from L2 or L3) once per output row
///   instead of once per block of 7-8 outputs, and the interior's rows (the map's width
///   less the border) lose the whole-row blocks. 128 channels at 28 x 28, two in a chain at
///   the peak: 4.35 ms split against 2.59 padded (ONNX Runtime 2.56), for 7% of the arena.
/// - A 1-D one (two end parts) while the tap slices its parts read again stay under ~5% of
///   the work: a multiply-add takes a 32nd of a cycle at the FMA peak, a byte of filter about
///   a 32nd from L2 and a 10th from L3, so while `k * (taps read by the parts - taps) <=
///   outputs * taps`, with `k` [`REREAD_L2`] for a filter in L2 (at most
///   [`L2_FILTER_BYTES`]) and [`REREAD_L3`] beyond. A 3-tap one padded by one then splits from
///   107 outputs on with a filter in L2, from 342 with a larger one.
///
/// ResNet's 512-channel 7 x 7 convolutions, whose 9.4 MB filter the eight border parts read
/// again from L3 for one to five outputs each, ran 3.4x slower split (5.0 against 1.5 ms,
/// three in a chain).
fn rereads_filter(rows: &[Class], cols: &[Class], axes: &[Axis; 2], outputs: i64, filter_bytes: u64) -> bool {
    if filter_bytes <= L1_FILTER_BYTES {
        return false;
    }
    if axes.iter().all(|a| a.window > 1) {
        return true;
    }
    let taps = |classes: &[Class]| -> i64 { classes.iter().map(|c| c.taps.1 - c.taps.0).sum() };
    let all = axes[0].window * axes[1].window;
    let k = if filter_bytes <= L2_FILTER_BYTES { REREAD_L2 } else { REREAD_L3 };
    k * (taps(rows) * taps(cols) - all) > outputs * all
}

/// The filter size up to which the parts of a split convolution read it again from L1 (two
/// thirds of a 48 KiB L1).
pub const L1_FILTER_BYTES: u64 = 32 << 10;

/// The filter size up to which the parts of a split convolution read it again from L2 (half
/// of a 2 MiB L2, the rest for the activations).
pub const L2_FILTER_BYTES: u64 = 1 << 20;

/// Multiply-adds a tap of filter read again must be worth when it comes from L2 (see
/// [`rereads_filter`]): 4 bytes a weight, 32 bytes a cycle, 20 times the work for 5%.
pub const REREAD_L2: i64 = 80;

/// The same from L3: about 10 bytes a cycle.
pub const REREAD_L3: i64 = 256;

/// Whether `value` is the identity of what operation `name` reduces: a tap of it changes no
/// output.
fn identity(name: &str, value: f64) -> bool {
    if name == "linalg.pooling_nchw_max" {
        value <= f64::from(f32::MIN)
    } else {
        value == 0.0
    }
}

/// The kernel text that replaces `op` (and the clamp after it, whose ops are `clamp`):
/// arguments the unpadded input, the filter or window, the accumulator. `None` when `op` is
/// not split; [`FilterBound`] when it could be but its parts would cost too many filter reads.
fn kernel(
    op: Op,
    padded: Op,
    pad: &Pad,
    clamp: Option<&[(String, String)]>,
) -> Option<Result<(String, Split), FilterBound>> {
    let source = tensor_type(pad.source.r#type()).ok()?;
    let padded = tensor_type(padded.result(0).r#type()).ok()?;
    let operand = tensor_type(op.operand(0).r#type()).ok()?;
    let filter = tensor_type(op.operand(1).r#type()).ok()?;
    let acc = tensor_type(op.operand(2).r#type()).ok()?;
    let name = op.name();
    let grouped = name == GROUPED;
    // Only H and W padded, with the reduction's identity; a grouped convolution's operands
    // have the groups as a leading dimension of their own.
    let rank = if grouped { 5 } else { 4 };
    if source.rank() != 4 || padded.rank() != 4 || acc.rank() != rank || operand.rank() != rank {
        return None;
    }
    if filter.rank() < 2 || pad.low[..2] != [0, 0] {
        return None;
    }
    if padded.shape[..2] != source.shape[..2] || !identity(&name, pad.number) {
        return None;
    }
    let (strides, dilations) = (pair_attribute(op, "strides")?, pair_attribute(op, "dilations")?);
    // Full convolutions: unit strides (see the module comment).
    if name == FULL && strides != [1, 1] {
        return None;
    }
    let window_at = filter.rank() - 2;
    let axis = |i: usize| Axis {
        input: source.shape[2 + i],
        output: acc.shape[rank - 2 + i],
        window: filter.shape[window_at + i],
        stride: strides[i],
        dilation: dilations[i],
        low: pad.low[2 + i],
    };
    let axes = [axis(0), axis(1)];
    let (rows, cols) = (axes[0].classes(), axes[1].classes());
    // Mostly border (a window as large as the map): many small parts, each slower than the
    // padded whole, for a border that is small in bytes.
    let full = |classes: &[Class], window: i64| -> i64 {
        classes.iter().filter(|c| c.taps == (0, window)).map(|c| c.outputs.1 - c.outputs.0).sum()
    };
    let inner = full(&rows, axes[0].window) * full(&cols, axes[1].window);
    // The taps the windows keep, against all of them: a dilated convolution over a small map
    // (DeepLab's atrous pyramid) reads mostly padding, whatever its interior.
    let kept = |classes: &[Class]| -> i64 {
        classes.iter().map(|c| (c.outputs.1 - c.outputs.0) * (c.taps.1 - c.taps.0)).sum()
    };
    let all_taps = |a: &Axis| a.output * a.window;
    let wasteful = name == FULL
        && dilations != [1, 1]
        && 4 * kept(&rows) * kept(&cols) <= 3 * all_taps(&axes[0]) * all_taps(&axes[1]);
    if rows.len() * cols.len() > MAX_PARTS || (!wasteful && 2 * inner < acc.shape[rank - 2] * acc.shape[rank - 1]) {
        return None;
    }
    let filter_bytes = tensor_bytes(op.operand(1).r#type()).unwrap_or(u64::MAX);
    if name == FULL
        && !wasteful
        && rereads_filter(&rows, &cols, &axes, acc.shape[rank - 2] * acc.shape[rank - 1], filter_bytes)
    {
        return Some(Err(FilterBound));
    }
    let mut parts: Vec<[Class; 2]> = rows.iter().flat_map(|&r| cols.iter().map(move |&c| [r, c])).collect();
    // The largest part (the interior) first.
    parts.sort_by_key(|[r, c]| std::cmp::Reverse((r.outputs.1 - r.outputs.0) * (c.outputs.1 - c.outputs.0)));
    // Each part of a full convolution makes its own initial value where the whole one was a
    // fill or a broadcast bias (and every part computes: none lies wholly in the padding).
    let every_part = parts.iter().all(|part| part.iter().all(|class| class.taps.1 > class.taps.0));
    let start = own_start(op).filter(|_| every_part);
    let mut args = vec![source.clone(), filter.clone()];
    match &start {
        None => args.push(acc.clone()),
        Some(Start::Bias(bias)) => args.push(tensor_type(bias.r#type()).ok()?),
        Some(Start::Fill(_)) => {}
    }
    let mut k = Kernel::new(args);
    let (x, w) = (k.arg(0), k.arg(1));
    let attrs = window_attributes(&strides, &dilations);
    // The result's leading dimensions (batch, channels; batch, groups, filters per group).
    let leading = &acc.shape[..rank - 2];
    let zeros = vec!["0"; rank - 2].join(", ");
    let mut result = if start.is_some() { k.empty(&acc) } else { k.arg(2) };
    for part in parts {
        let empty = part.iter().any(|class| class.taps.1 <= class.taps.0);
        if empty && clamp.is_none() {
            // The windows read only padding: the part keeps its initial value.
            continue;
        }
        let mut out_shape = leading.to_vec();
        out_shape.extend([part[0].outputs.1 - part[0].outputs.0, part[1].outputs.1 - part[1].outputs.0]);
        let out_ty = acc.with_shape(out_shape);
        let offsets = format!(
            "[{zeros}, {}, {}] [{}] [{}]",
            part[0].outputs.0,
            part[1].outputs.0,
            list(&out_ty.shape),
            list(&vec![1; rank])
        );
        let mut value = match &start {
            None => k.emit(format_args!("tensor.extract_slice {result}{offsets} : {acc} to {out_ty}")),
            Some(Start::Fill(literal)) => {
                let (scalar, empty) = (k.constant(literal, &out_ty.elem), k.empty(&out_ty));
                k.emit(format_args!("linalg.fill ins({scalar} : {}) outs({empty} : {out_ty}) -> {out_ty}", out_ty.elem))
            }
            Some(Start::Bias(_)) => {
                let (bias, bias_ty, empty) = (k.arg(2), k.arg_type(2).clone(), k.empty(&out_ty));
                let broadcast = bias_broadcast(&bias, &bias_ty.to_string(), &empty, &out_ty.to_string(), "");
                k.emit(format_args!("{broadcast}"))
            }
        };
        if !empty {
            let reads = [axes[0].reads(part[0]), axes[1].reads(part[1])];
            let slice_ty = source.with_shape(vec![source.shape[0], source.shape[1], reads[0].1, reads[1].1]);
            let mut input = k.emit(format_args!(
                "tensor.extract_slice {x}[0, 0, {}, {}] [{}] [1, 1, 1, 1] : {source} to {slice_ty}",
                reads[0].0,
                reads[1].0,
                list(&slice_ty.shape)
            ));
            let mut input_ty = slice_ty.clone();
            if grouped {
                // [N, C, h, w] as [N, G, C/G, h, w], as the whole input was.
                input_ty = slice_ty.with_shape(vec![
                    operand.shape[0],
                    operand.shape[1],
                    operand.shape[2],
                    reads[0].1,
                    reads[1].1,
                ]);
                input = k.emit(format_args!(
                    "tensor.expand_shape {input} [[0], [1, 2], [3], [4]] output_shape [{}] : {slice_ty} into {input_ty}",
                    list(&input_ty.shape)
                ));
            }
            // The filter (or window) cut to the taps kept.
            let mut shape = filter.shape.clone();
            let mut offsets = vec![0; filter.rank()];
            for (i, class) in part.iter().enumerate() {
                offsets[window_at + i] = class.taps.0;
                shape[window_at + i] = class.taps.1 - class.taps.0;
            }
            let cut_ty = filter.with_shape(shape);
            let cut = if cut_ty == filter {
                w.clone()
            } else {
                k.emit(format_args!(
                    "tensor.extract_slice {w}[{}] [{}] [{}] : {filter} to {cut_ty}",
                    list(&offsets),
                    list(&cut_ty.shape),
                    list(&vec![1; filter.rank()])
                ))
            };
            value = k.emit(format_args!(
                "{name} {attrs} ins({input}, {cut} : {input_ty}, {cut_ty}) outs({value} : {out_ty}) -> {out_ty}"
            ));
        }
        if let Some(ops) = clamp {
            value = k.generic(
                &[(&value, &out_ty, Map::identity(rank))],
                (&value, &out_ty, Map::identity(rank)),
                &vec![Iter::Parallel; rank],
                |b, args| {
                    let mut v = args[0].clone();
                    for (op, literal) in ops {
                        let bound = b.constant(literal, &out_ty.elem);
                        v = b.emit(format_args!("{op} {v}, {bound} : {}", out_ty.elem));
                    }
                    v
                },
            );
        }
        result = k.emit(format_args!("tensor.insert_slice {value} into {result}{offsets} : {out_ty} into {acc}"));
    }
    k.set_result(result, acc);
    let split = Split { parts: rows.len() * cols.len(), own: start.is_some(), wasteful };
    Some(Ok((format!("module {{\n{}}}\n", k.function("borders")), split)))
}

/// A full convolution left padded: its parts would read the filter again for too few outputs
/// ([`rereads_filter`]).
struct FilterBound;

/// How [`kernel`] splits an operation: into how many parts, whether they make their own
/// initial value, and whether it is a dilated convolution whose windows read padding for a
/// quarter or more of their taps (split wherever it is: see the module comment).
struct Split {
    parts: usize,
    own: bool,
    wasteful: bool,
}

/// The clamp that follows `op` on its whole result, in place (its only reader), and its ops
/// (see [`clamp_in_place`]).
fn clamp_after(op: Op) -> Option<(Op, Vec<(String, String)>)> {
    let result = op.result(0);
    let users = result.users();
    let next = *users.first()?;
    if users.iter().any(|&u| u != next) || next.result_count() != 1 {
        return None;
    }
    let elem = tensor_type(result.r#type()).ok()?.elem;
    Some((next, clamp_in_place(next, result, &elem.to_string())?))
}

/// Ops whose result is a view of their first operand once bufferized (a slice read, a
/// reshape): not a tensor of their own for [`pressure`], but their readers keep the source live.
fn is_view(op: Op) -> bool {
    ["tensor.extract_slice", "tensor.expand_shape", "tensor.collapse_shape"].iter().any(|name| op.is(name))
}

/// The position in `block` (ops by `index`) of the last op that reads `value` (defined at
/// `at`), through views ([`is_view`]): an op that writes over it as its destination ends it
/// one op earlier (its result takes the buffer), and so does the pad it is produced inside
/// ([`padded_in_place`]).
fn last_use(block: Blk, index: &BTreeMap<usize, usize>, value: Val, at: usize) -> usize {
    let key = |op: Op| op.raw().ptr as usize;
    let uses = value.uses();
    let padded = padded_in_place(block, value).is_some();
    let mut last = at;
    for &(user, operand) in &uses {
        let Some(position) = user.ancestor_in(block).and_then(|top| index.get(&key(top)).copied()) else { continue };
        let in_block = user.block() == Some(block);
        // Written over by the user (read by it too or not: an elementwise op in place).
        let destination = uses.iter().any(|&(u, o)| u == user && crate::init_per_destination::is_destination(u, o));
        let ends = in_block && (destination || padded);
        let reach = if in_block && is_view(user) && operand == 0 {
            user.results().into_iter().map(|r| last_use(block, index, r, position)).max().unwrap_or(position)
        } else if ends {
            position.saturating_sub(1)
        } else {
            position
        };
        last = last.max(reach);
    }
    last
}

/// The pad that `value` is produced inside (`strata-pad-in-place`), if any: its only reader,
/// in `block`, and `value` not a view (a slice or reshape is read, not produced, so its pad is
/// a copy).
fn padded_in_place(block: Blk, value: Val) -> Option<Op> {
    let users = value.users();
    let produced = value.owner().is_some_and(|op| !is_view(op));
    match users[..] {
        [pad] if produced && pad.block() == Some(block) && Pad::of(pad.get()).is_some() => Some(pad),
        _ => None,
    }
}

/// Bytes of the static tensors computed in `block` live at each of its ops, from the op that
/// computes one to the last op that reads it (a reader nested in an op counts at that op): the
/// function's memory before bufferization, by op, as an estimate. A value written over as an
/// op's destination (`outs`, read by the same op or not) ends before that op, whose result
/// takes its buffer, and so does a value whose only reader is a pad (it is produced inside the
/// padded buffer, `strata-pad-in-place`, so it counts the padded value's bytes). Not counted:
/// constants (weights), `tensor.empty` (no contents), views (slices, reshapes: their readers
/// keep the source live instead) and the function's results (written into the caller's
/// buffers, not the arena). MobileNetV3-Small's stem (its padded input copy beside its result,
/// the arena's peak) was estimated below a depthwise convolution split into border parts
/// (`strata-conv-borders`), each of whose input slices counted as a tensor of its own.
pub fn pressure(block: Blk) -> (Vec<Op>, Vec<u64>) {
    let ops = block.ops();
    let key = |op: Op| op.raw().ptr as usize;
    let index: BTreeMap<usize, usize> = ops.iter().enumerate().map(|(i, &op)| (key(op), i)).collect();
    let mut delta = vec![0i128; ops.len() + 1];
    for (i, op) in ops.iter().enumerate() {
        if op.is("arith.constant") || op.is("tensor.empty") || is_view(*op) {
            continue;
        }
        for result in op.results() {
            // A value produced inside its padded buffer counts the padded bytes.
            let buffer = padded_in_place(block, result).map_or(result, |pad| pad.result(0));
            let Some(bytes) = tensor_bytes(buffer.r#type()) else { continue };
            // A result of the function is the caller's buffer, not the arena's.
            if result.users().iter().any(|user| user.is("func.return")) {
                continue;
            }
            let last = last_use(block, &index, result, i);
            delta[i] += i128::from(bytes);
            delta[last + 1] -= i128::from(bytes);
        }
    }
    let mut live = 0i128;
    let bytes = delta[..ops.len()]
        .iter()
        .map(|d| {
            live += d;
            u64::try_from(live).unwrap_or(0)
        })
        .collect();
    (ops, bytes)
}

/// The most bytes [`pressure`] (`ops`, `bytes`) counts live from `from` (a pad) to `to` (the
/// op that reads it), each located by its ancestor in `body`: what a rewrite of the op that
/// drops the pad can take away.
pub(crate) fn live_between(body: Blk, ops: &[Op], bytes: &[u64], from: Option<Op>, to: Op) -> u64 {
    let position = |op: Op| position_in(body, ops, op);
    match (from.and_then(position), position(to)) {
        (Some(a), Some(b)) => bytes[a.min(b)..=a.max(b)].iter().copied().max().unwrap_or(0),
        (a, b) => a.or(b).map_or(0, |i| bytes[i]),
    }
}

/// The position among `ops` (a block's, as [`pressure`] lists them) of `op`'s ancestor in `body`.
fn position_in(body: Blk, ops: &[Op], op: Op) -> Option<usize> {
    op.ancestor_in(body).and_then(|top| ops.iter().position(|&o| o == top))
}

/// Which candidates to split, each its span of ops in the pressure estimate `bytes` and the bytes
/// its split saves over it (`None`: not in the block), those `forced` split regardless (their
/// savings taken off the estimate first): while the estimate's peak lies in a
/// candidate's span, the one saving the most there is split and the estimate lowered over its
/// span. A candidate away from the peak stays whole (its parts cost time: scalar border loops,
/// and compile time), as does every candidate once the peak lies where no split reaches it.
/// MobileNetV3-Small's 88-channel depthwise convolution was split (its four edges and corners
/// scalar: 2x slower) for nothing: the arena was the same without it.
pub(crate) fn at_peak(mut bytes: Vec<u64>, spans: &[Option<(usize, usize, u64)>], forced: Vec<bool>) -> Vec<bool> {
    let mut chosen = forced;
    for (span, _) in spans.iter().zip(&chosen).filter(|&(_, &c)| c) {
        if let Some((first, last, saves)) = *span {
            for b in &mut bytes[first..=last] {
                *b = b.saturating_sub(saves);
            }
        }
    }
    while let Some((peak, _)) = bytes.iter().enumerate().max_by_key(|&(i, &b)| (b, std::cmp::Reverse(i))) {
        let next = (0..spans.len())
            .filter(|&k| !chosen[k])
            .filter_map(|k| spans[k].map(|span| (k, span)))
            .filter(|&(_, (first, last, saves))| saves > 0 && (first..=last).contains(&peak))
            .max_by_key(|&(k, (_, _, saves))| (saves, std::cmp::Reverse(k)));
        let Some((k, (first, last, saves))) = next else { break };
        chosen[k] = true;
        for b in &mut bytes[first..=last] {
            *b = b.saturating_sub(saves);
        }
    }
    chosen
}

/// Which candidates to split, each `(pressure at its op, bytes its split saves)`: those whose
/// op may be at the peak once splitting has lowered it. Splitting every candidate lowers the
/// peak estimate by at most the sum of the savings, so a candidate whose pressure is lower than
/// the peak by more than that can never be at the peak, split or not.
pub(crate) fn near_peak(peak: u64, candidates: &[(u64, u64)]) -> Vec<bool> {
    let saving: u64 = candidates.iter().map(|&(_, saves)| saves).sum();
    candidates.iter().map(|&(pressure, _)| pressure.saturating_add(saving) >= peak).collect()
}

impl Pass for ConvBorders {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let mut splits: Vec<Candidate> = Vec::new();
        let mut total_parts = 0;
        for raw in collect(&func, |op| OPS.iter().any(|name| op.is(name))) {
            let op = Op::of(&raw.get());
            let Some((padded, pad)) = pad_of(op) else {
                continue;
            };
            let clamp = clamp_after(op);
            match kernel(op, padded, &pad, clamp.as_ref().map(|(_, ops)| ops.as_slice())) {
                Some(Err(FilterBound)) => cx.bump("filter-bound", 1),
                Some(Ok((text, Split { parts, own, wasteful }))) => {
                    let planar = planar_full(op);
                    // A band chain's convolution pads a band of its input already (see the
                    // module comment).
                    if planar && Val::of(pad.source).owner().is_some_and(|o| o.is("tensor.extract_slice")) {
                        cx.bump("kept", 1);
                        continue;
                    }
                    splits.push(Candidate {
                        op,
                        source: Val::of(pad.source),
                        clamp: clamp.map(|(c, _)| c),
                        text,
                        own,
                        planar,
                        wasteful,
                    });
                    if !planar {
                        total_parts += parts;
                    }
                }
                None => cx.bump("kept", 1),
            }
        }
        let Some(body) = Op::of(&func).body(0) else { return Ok(()) };
        // Split regardless of the peak: everything with `all`, the cheap splits of a function
        // with few parts; 2-D full convolutions only near the peak (see the module comment).
        let forced: Vec<bool> =
            splits.iter().map(|s| self.all || s.wasteful || (total_parts <= PART_BUDGET && !s.planar)).collect();
        let chosen = if forced.iter().all(|&f| f) {
            forced
        } else {
            let (ops, bytes) = pressure(body);
            let position = |op: Op| position_in(body, &ops, op);
            // Where the padded buffer lives (from the source's producer, which writes into it,
            // or the pad, to the operation) and the border bytes the split takes off it.
            let border = |op: Op, source: Val| -> u64 {
                let size = |v: Val| tensor_bytes(v.r#type()).unwrap_or(0);
                size(op.operand(0)).saturating_sub(size(source))
            };
            let spans: Vec<Option<(usize, usize, u64)>> = splits
                .iter()
                .map(|&Candidate { op, source, .. }| {
                    let end = position(op)?;
                    let start = source.owner().and_then(position).or_else(|| op.operand(0).owner().and_then(position));
                    Some((start.unwrap_or(end).min(end), end, border(op, source)))
                })
                .collect();
            at_peak(bytes, &spans, forced)
        };
        let mut kernels = KernelCache::default();
        for (Candidate { op, clamp, text, own, wasteful, .. }, chosen) in splits.into_iter().zip(chosen) {
            if !chosen {
                cx.bump("far-from-peak", 1);
                continue;
            }
            // Read again: an earlier split may have replaced the pad's source (a clamp it took).
            let expand = op.operand(0).owner().filter(|_| op.is(GROUPED));
            let Some((padded, pad)) = pad_of(op) else {
                continue;
            };
            let mut operands = vec![Val::of(pad.source), op.operand(1)];
            let acc = op.operand(2).owner();
            match own_start(op).filter(|_| own) {
                None => operands.push(op.operand(2)),
                Some(Start::Bias(bias)) => operands.push(bias),
                Some(Start::Fill(_)) => {}
            }
            // The kernel replaces the last op it covers: the clamp, or the operation itself.
            // Safety: each op is erased once and not used afterwards; the operands are defined
            // before `op`, which comes before the clamp.
            unsafe {
                kernels.replace_op_with(cx, clamp.unwrap_or(op), &operands, &text, "border kernel")?;
                if clamp.is_some() {
                    op.erase();
                    cx.bump("clamps", 1);
                }
                if let Some(expand) = expand {
                    strata_ir::rewrite::erase_if_unused(expand);
                }
                strata_ir::rewrite::erase_if_unused(padded);
                if let Some(acc) = acc.filter(|_| own) {
                    strata_ir::rewrite::erase_if_unused(acc);
                }
            }
            cx.bump("split", 1);
            cx.bump("padding-bound", u64::from(wasteful));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_candidates_that_can_reach_the_peak_are_split() {
        // Peak 100; the three candidates save 10 in all: one at 95 may still be the peak after
        // the others' savings, one at 80 cannot.
        assert_eq!(near_peak(100, &[(100, 4), (95, 3), (80, 3)]), [true, true, false]);
        assert_eq!(near_peak(0, &[]), Vec::<bool>::new());
    }

    #[test]
    fn splits_go_where_the_peak_is_until_it_lies_out_of_reach() {
        // The peak (position 2) lies in the first two spans: the one saving more goes first,
        // then it lies at 1, in the first; then at 4, which no span reaches.
        let bytes = vec![50, 90, 100, 60, 85, 40];
        let spans = [Some((1, 2, 10)), Some((2, 3, 20)), Some((5, 5, 30)), None];
        assert_eq!(at_peak(bytes.clone(), &spans, vec![false; 4]), [true, true, false, false]);
        // A split made regardless lowers the estimate first: alone the larger saving goes
        // (then the peak lies at 2); with the smaller one forced, the peak already lies at 2.
        let (bytes, spans) = (vec![10, 100, 90], [Some((1, 1, 20)), Some((1, 1, 30))]);
        assert_eq!(at_peak(bytes.clone(), &spans, vec![false; 2]), [false, true]);
        assert_eq!(at_peak(bytes, &spans, vec![true, false]), [true, false]);
        // A span away from the peak is never split.
        assert_eq!(at_peak(vec![10, 100, 10], &[Some((0, 0, 5)), Some((2, 2, 5))], vec![false; 2]), [false, false]);
    }

    fn axis(input: i64, output: i64, window: i64, stride: i64, low: i64) -> Axis {
        Axis { input, output, window, stride, dilation: 1, low }
    }

    fn classes(axis: Axis) -> Vec<((i64, i64), (i64, i64))> {
        axis.classes().into_iter().map(|c| (c.outputs, c.taps)).collect()
    }

    #[test]
    fn outputs_fall_into_classes_of_equal_taps() {
        // 3x3, stride 1, pad 1 on 8: the first and last outputs lose one tap each.
        assert_eq!(classes(axis(8, 8, 3, 1, 1)), [((0, 1), (1, 3)), ((1, 7), (0, 3)), ((7, 8), (0, 2))]);
        // Stride 2, pad 1 (only the top reaches the padding): 112 -> 56.
        assert_eq!(classes(axis(112, 56, 3, 2, 1)), [((0, 1), (1, 3)), ((1, 56), (0, 3))]);
        // 5x5, pad 2: two border classes on each side.
        assert_eq!(classes(axis(6, 6, 5, 1, 2)).len(), 5);
        // A window larger than the input: every output is a border class of its own.
        assert_eq!(classes(axis(2, 2, 5, 1, 2)), [((0, 1), (2, 4)), ((1, 2), (1, 3))]);
        // Ceil mode: the last window starts in the padding past the input.
        assert_eq!(classes(axis(4, 3, 2, 2, 0)), [((0, 2), (0, 2)), ((2, 3), (0, 0))]);
        // Dilation 2 reaches two inputs past each edge.
        let dilated = Axis { input: 10, output: 10, window: 3, stride: 1, dilation: 2, low: 2 };
        assert_eq!(classes(dilated), [((0, 2), (1, 3)), ((2, 8), (0, 3)), ((8, 10), (0, 2))]);
    }

    #[test]
    fn a_class_reads_inside_the_input() {
        for a in [axis(8, 8, 3, 1, 1), axis(112, 56, 3, 2, 1), axis(7, 4, 3, 2, 1), axis(6, 6, 5, 1, 2)] {
            for class in a.classes() {
                let (start, size) = a.reads(class);
                assert!(start >= 0 && start + size <= a.input, "{a:?} {class:?}");
                // Every output's kept taps read exactly inside.
                for o in class.outputs.0..class.outputs.1 {
                    for t in class.taps.0..class.taps.1 {
                        let i = o * a.stride - a.low + t * a.dilation;
                        assert!((start..start + size).contains(&i));
                    }
                }
            }
        }
    }

    #[test]
    fn filters_beyond_l1_keep_2d_convolutions_padded() {
        // A 3 x 3 convolution padded by one on an n x n map.
        let planar = |n: i64, filter_bytes: u64| {
            let a = axis(n, n, 3, 1, 1);
            rereads_filter(&a.classes(), &a.classes(), &[a, a], n * n, filter_bytes)
        };
        assert!(planar(7, 512 * 512 * 9 * 4));
        assert!(planar(56, 64 * 64 * 9 * 4));
        // In L1 the parts' reads cost what the interior's do.
        assert!(!planar(4, L1_FILTER_BYTES));
        // A 3-tap 1-D one on n outputs: in L2 from 107 on; beyond, from 342 on.
        let line = |n: i64, filter_bytes: u64| {
            let (a, unit) = (axis(1, 1, 1, 1, 0), axis(n, n, 3, 1, 1));
            rereads_filter(&a.classes(), &unit.classes(), &[a, unit], n, filter_bytes)
        };
        assert!(line(106, L2_FILTER_BYTES) && !line(107, L2_FILTER_BYTES));
        assert!(line(341, L2_FILTER_BYTES + 1) && !line(342, L2_FILTER_BYTES + 1));
        assert!(!line(8, L1_FILTER_BYTES));
    }
}
