//! `strata-prefetch-channels`: in a convolution split across threads, whose items walk every
//! input channel (`for c { [for kh { for kw {] read row segment [} }] }`: the taps inside, or a
//! flattened 1x1 convolution's channels alone), prefetches at each read the same segment
//! [`AHEAD`] channels on ([`AHEAD_ALONE`] for a channel loop alone), where another core wrote
//! the input ([`crate::shared_lines`]).
//!
//! Such an item reads a few lines of each channel, one channel plane apart (8 KB on DeepLab's
//! 45 x 45 padded maps): a stride no hardware prefetcher follows, so every line waits for
//! whoever holds it. On one thread that is this core's L2 (measured: no gain, DeepLab 1.5%
//! slower with them). On several, when the input's writer split it otherwise than the
//! convolution splits its rows (a padded copy split by channels before a convolution split by
//! rows; a depthwise step split by channels before a 1x1 projection split by positions), half
//! the lines sit in the other core's cache and each first read waits for the transfer:
//! DeepLab's dilation-6 pyramid convolution (64 -> 32 channels, 33 x 33) ran 0.21 ms on two
//! threads, no faster than on one, and 0.147 ms with these prefetches (ONNX Runtime 0.152);
//! MobileNetV2 and ResNeXt 5-6% faster on two threads (their 1x1 convolutions).
//!
//! A read is taken when it is a 1-D contiguous vector read of at least 16 bytes inside one or
//! more nested `scf.for`s carrying vector accumulators (the outermost of at least twice as many
//! iterations as the channels ahead), from a chain of `memref.subview`s one of which is offset
//! by the outermost such loop's induction variable (the channel), of a buffer that is not a
//! constant (weights are packed and prefetched by `strata-prefetch-filters`), inside an
//! `scf.forall` whose input lines another core may have written. The prefetch clones the
//! subviews from that one down with the channel plus the channels ahead and prefetches the
//! first line of the segment, each further line and its last element: a segment of 11 floats
//! can straddle two lines. Past the last channel the addresses lie outside the view, which a
//! prefetch may: it never faults.

use melior::ir::operation::OperationLike;
use melior::ir::BlockLike;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

use crate::shared_lines::Writers;

pub static INFO: PassInfo = PassInfo {
    name: "strata-prefetch-channels",
    summary: "Prefetch a split convolution's input a few channels ahead where another core wrote it",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "prefetches", help: "memref.prefetch ops added" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(PrefetchChannels)
}

struct PrefetchChannels;

/// Channels ahead where the taps are inside the channel loop. A channel's taps take ~100
/// cycles on 32 filters; two channels ahead was too close (DeepLab's pyramid convolution in
/// bands 0.22-0.24 ms), eight too far for the L1 (0.225), four 0.213.
const AHEAD: i64 = 4;

/// Channels ahead for a channel loop alone (a 1x1 convolution), whose step is one tap:
/// MobileNetV2 on two threads 2% faster than at [`AHEAD`] (2.76-2.82 -> 2.72-2.73 ms; 16: as 8).
const AHEAD_ALONE: i64 = 8;

/// Bytes of a cache line.
const LINE: i64 = 64;

impl Pass for PrefetchChannels {
    fn run(
        &mut self,
        module: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let mut added = 0;
        for function in collect(&module, |op| op.is("func.func")) {
            let reads = function.collect(|op| op.is("vector.transfer_read") || op.is("vector.load"));
            if reads.iter().all(|read| read.ancestor("scf.forall").is_none()) {
                continue;
            }
            let writers = Writers::of(function);
            for read in reads {
                let Some(site) = site(read) else { continue };
                if writers.written_elsewhere(read) {
                    added += insert(cx.strata().mlir(), read, &site).unwrap_or(0);
                }
            }
        }
        cx.bump("prefetches", added);
        Ok(())
    }
}

/// A read this pass prefetches for.
struct Site {
    /// The channel loop's induction variable.
    channel: Val,
    /// The subviews from the read's view up to the one the channel offsets, innermost first.
    views: Vec<Op>,
    /// The elements the read takes and their bytes.
    lanes: i64,
    bytes: i64,
    /// Channels ahead.
    ahead: i64,
}

/// The site of `read`, if this pass takes it (see the module's documentation).
fn site(read: Op) -> Option<Site> {
    let memref = read.operand(0);
    let (lanes, bytes) = crate::prefetch_rows::contiguous_read(read)?;
    // The nest of loops carrying vectors around the read: the outermost walks the channels.
    let carries = crate::prefetch_rows::carries_vectors;
    let mut nest = Vec::new();
    let mut parent = read.parent();
    while let Some(op) = parent.filter(|&op| nest.is_empty() || carries(op)) {
        if carries(op) {
            nest.push(op);
        } else if op.is("func.func") {
            return None;
        }
        parent = op.parent();
    }
    if nest.is_empty() {
        return None;
    }
    // Enough channels that prefetching some ahead leaves more than that many to run (a stem's
    // three input channels have none to prefetch for).
    let ahead = if nest.len() == 1 { AHEAD_ALONE } else { AHEAD };
    let outer = crate::prefetch_filters::iv(*nest.last()?, 0)?;
    if outer.trips < 2 * ahead {
        return None;
    }
    let channel = outer.value;
    // Up the subviews to the one the channel offsets; above it, no constant.
    let mut views = Vec::new();
    let mut value = memref;
    loop {
        let owner = value.owner().filter(|o| o.is("memref.subview"))?;
        views.push(owner);
        if owner.operands().iter().skip(1).any(|&o| o == channel) {
            break;
        }
        value = owner.operand(0);
    }
    if matches!(crate::parallelize::Root::of(memref), crate::parallelize::Root::Global(_)) {
        return None;
    }
    Some(Site { channel, views, lanes, bytes, ahead })
}

/// Adds `site`'s prefetches before `read`; how many (`None` when an op could not be built:
/// what was added is dead code for `canonicalize`).
fn insert(context: &melior::Context, read: Op, site: &Site) -> Option<u64> {
    let anchor = read.get();
    let block = read.block()?;
    let next = crate::prefetch_rows::index_plus(context, anchor, site.channel, site.ahead)?;
    // The views again, outermost first, on the channel ahead.
    let mut source: Option<Val> = None;
    for view in site.views.iter().rev() {
        let copy = view.clone_detached();
        block.insert_before(read, copy);
        if let Some(source) = source {
            copy.set_operand(0, source);
        }
        for i in 1..copy.operand_count() {
            if copy.operand(i) == site.channel {
                copy.set_operand(i, next);
            }
        }
        source = Some(copy.result(0));
    }
    let view = source?;
    // The first element of each line the segment spans from its start, and its last.
    let lines = (site.lanes * site.bytes + LINE - 1) / LINE;
    let mut offsets: Vec<i64> = (0..lines).map(|line| line * LINE / site.bytes).collect();
    offsets.push(site.lanes - 1);
    offsets.dedup();
    let index = read.operand(1);
    for &offset in &offsets {
        let at = crate::prefetch_rows::index_plus(context, anchor, index, offset)?;
        let prefetch = crate::prefetch_rows::prefetch_operation(context, anchor.location(), view, at).ok()?;
        block.get().insert_operation_before(anchor, prefetch);
    }
    u64::try_from(offsets.len()).ok()
}
