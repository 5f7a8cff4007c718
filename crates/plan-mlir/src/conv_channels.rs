//! `strata-split-conv-channels`: a convolution whose filters do not fit a core's L2 runs as
//! one convolution per block of input channels, each accumulating into the next one's
//! initial value, so that a block's filters stay in L2 across the output's tiles.
//!
//! The host's register-blocked convolution walks a block of 32 filters over every tile of
//! output positions, each tile a sum over all input channels and window taps: the block's
//! filters (32 x C x KH x KW floats) are read once per tile. Where they exceed L2 they come
//! from L3 for every tile: a 5 x 5 convolution of 512 channels at 7 x 7 (1.6 MB of filters a
//! block, 7 tiles) streamed 183 MB of filters, 1.40x ONNX Runtime's time (its GEMM blocks the
//! reduction), twice the time of the same multiply-adds at 14 x 14 over 256 channels. A
//! convolution is a sum over its input channels, so `conv(x, W, init)` is
//! `conv(x[C1..], W[:, C1..], conv(x[..C1], W[:, ..C1], init))`, as `strata-split-concat-convs`
//! splits one over a concatenation: each block's convolution reads a channel slice of the
//! input (a view) and of the filter, and its result is the next one's initial value (the
//! register blocks load it instead of the bias). The sums run over the channels in the same
//! order, each tile's accumulators stored and reloaded between blocks.
//!
//! What makes a candidate: a static f32 `linalg.conv_2d_nchw_fchw` (any stride, dilation and
//! window) whose 32-filter block of filters is over [`FILTER_BLOCK_BYTES`], with more output
//! positions than one tile to reuse them; its channels are cut into blocks of the largest
//! divisor whose filters are at most [`CHANNEL_BLOCK_BYTES`], of at least [`MIN_CHANNELS`]
//! channels. 5 x 5 over 512 channels at 7 x 7: 16.7 -> 10.1 ms one thread (ONNX Runtime
//! 11.0), 3 x 3 over 1024: 20.8 -> 13.9; bit-identical.

use crate::band_chains::{static_f32, Builder};
use strata_ir::rewrite::erase_if_unused;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::TensorTy;

pub static INFO: PassInfo = PassInfo {
    name: "strata-split-conv-channels",
    summary: "A convolution whose filters exceed L2 runs as one convolution per block of input channels, accumulating, so each block's filters stay in L2",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "split", help: "Convolutions run block of input channels by block" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SplitConvChannels)
}

struct SplitConvChannels;

const CONV: &str = "linalg.conv_2d_nchw_fchw";

/// Filters of a register block: its 32 filters' weights for every input channel and tap.
const BLOCK_FILTERS: i64 = 32;

/// A register block's filters above which they are split: a quarter of a core's 2 MiB L2 (the
/// input's rows, the output's tiles and the other thread's data share it). ResNet-18's last
/// 3 x 3 convolutions (576 KiB a block, 7 x 7 outputs) gain 7% of the model's time split.
pub const FILTER_BLOCK_BYTES: i64 = 512 << 10;

/// The most bytes of a register block's filters for one block of input channels.
pub const CHANNEL_BLOCK_BYTES: i64 = 256 << 10;

/// The fewest input channels of a block: fewer, and the accumulators' stores and reloads
/// between blocks cost more than the filters' reads they save.
pub const MIN_CHANNELS: i64 = 32;

/// Output positions of a register block's tile (a row of up to 8 or so): with no more
/// positions than this the block's filters are read once anyway.
const TILE_POSITIONS: i64 = 8;

/// The input channels of each block `conv` is split into, with its input's and filter's types,
/// if it is a candidate.
fn channel_block(conv: Op) -> Option<(i64, TensorTy, TensorTy)> {
    if !conv.is(CONV) {
        return None;
    }
    let input = static_f32(conv.operand(0))?;
    let filter = static_f32(conv.operand(1))?;
    let out = static_f32(conv.result(0))?;
    static_f32(conv.operand(2))?;
    let channels = filter.shape[1];
    let per_channel = BLOCK_FILTERS.min(filter.shape[0]) * filter.shape[2] * filter.shape[3] * 4;
    let positions = out.shape[2] * out.shape[3];
    if per_channel * channels <= FILTER_BLOCK_BYTES || positions <= TILE_POSITIONS || input.shape[1] != channels {
        return None;
    }
    let block = (1..channels).rev().find(|&b| channels % b == 0 && b * per_channel <= CHANNEL_BLOCK_BYTES)?;
    (block >= MIN_CHANNELS).then_some((block, input, filter))
}

impl Pass for SplitConvChannels {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let Some(body) = Op::of(&func).body(0) else { return Ok(()) };
        let context = cx.strata().mlir();
        for conv in body.ops() {
            let Some((block, input, filter)) = channel_block(conv) else { continue };
            let b = Builder { context, anchor: conv };
            let out = static_f32(conv.result(0)).expect("a candidate's result is static");
            let (&[n, channels, h, w], &[f, _, kh, kw]) = (&input.shape[..], &filter.shape[..]) else {
                unreachable!("static_f32 types are 4-D")
            };
            let mut acc = conv.operand(2);
            for first in (0..channels).step_by(block as usize) {
                let x = b.slice(conv.operand(0), &[0, first, 0, 0], &[n, block, h, w]);
                let weights = b.slice(conv.operand(1), &[0, first, 0, 0], &[f, block, kh, kw]);
                acc = b.clone(conv, &[(0, x), (1, weights), (2, acc)], &out);
            }
            conv.result(0).replace_all_uses_with(acc);
            // Safety: its uses were replaced; it is erased once.
            unsafe { erase_if_unused(conv) };
            cx.bump("split", 1);
        }
        Ok(())
    }
}
