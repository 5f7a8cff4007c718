//! `strata-init-per-destination`: every op that writes into a new tensor (a `tensor.empty`,
//! or a `linalg.fill` of one, or a broadcast of constants into one) gets a new tensor of its
//! own.
//!
//! CSE merges identical `tensor.empty`s and identical `linalg.fill`s of them: one empty is the
//! `outs` of every elementwise kernel of a shape, one zero fill the initial value of every
//! convolution of a shape. One-shot bufferization then pays twice:
//!
//! - **Time.** Every op writing into the shared empty is in one alias set, and the analysis
//!   checks each write against every other use of it: a chain of 1000 elementwise ops on one
//!   shape took 32 s in `one-shot-bufferize` alone (0.1 s with an empty per op), 2000 ops did
//!   not finish in minutes.
//! - **Memory.** A shared fill is written once and *copied* into each destination, and the
//!   shared buffer stays live from the first of those ops to the last: DenseNet's four 3x3
//!   convolutions kept a 222 KB zero-padded tensor alive across the whole dense block, a quarter
//!   of its arena.
//!
//! This pass, run before bufferization (by `strata-bufferize-and-plan`, before
//! `eliminate-empty-tensors`: once a producer writes into a slice of a fill, that slice is a
//! reader and the fill must stay one), gives every destination use (a `linalg` op's `outs`, an
//! `insert_slice`'s `dest`, a tiled kernel's loop's initial value) its own clone of the
//! `tensor.empty` (and of the fill), placed right before the user, or before the user's ancestor in the original's block when the user is
//! nested (a clone in a loop body would be a new buffer per iteration). Each bufferizes in place
//! into the user's own buffer, a fill where there was a fill plus a copy, live only from its
//! user on. Uses that only read (a fill read as an input) keep the original (a clone per reader
//! would only multiply buffers); with none left, the original is erased. A Winograd
//! convolution's scratch, which its lowering writes, counts as a destination.
//!
//! A clone takes its user's location: the buffer is that kernel's, and the original's location
//! is, after CSE, the fusion of every merged op's (a 2000-node chain's one empty carried 2000
//! names, which every clone would copy and every report of a buffer would print).

use strata_ir::rewrite::collect;
use strata_ir::{Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-init-per-destination",
    summary: "Give every op writing into a shared new tensor (tensor.empty or a fill of one) its own, so bufferization stays linear and fills in place instead of copying",
    anchor: "func.func",
    options: &[OptionInfo {
        name: "empties",
        kind: OptionKind::Bool,
        default: "true",
        help: "also give each destination of a shared tensor.empty its own (false: only fills)",
    }],
    statistics: &[
        StatisticInfo { name: "empties-cloned", help: "tensor.empty clones made for a destination use" },
        StatisticInfo { name: "fills-cloned", help: "linalg.fill or constant broadcast (with its tensor.empty) clones made for a destination use" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(InitPerDestination { empties: options.bool("empties") })
}

struct InitPerDestination {
    empties: bool,
}

/// Whether operand `index` of `user` is a destination the op writes into: the `dest` of a
/// `tensor.insert_slice`, or an init of an op in destination-passing style, which are its last
/// operands, one per result: a `linalg` op's `outs` (`linalg.transpose`'s `init` too, which
/// has no operand segments), a loop's initial values (an `scf.for`'s `iter_args`, an
/// `scf.forall`'s `shared_outs`), which the host schedule's tiled kernels write into.
pub(crate) fn is_destination(user: Op, index: usize) -> bool {
    let name = user.name();
    if name == "tensor.insert_slice" {
        return index == 1;
    }
    let destination_passing = name.starts_with("linalg.") || name == "scf.for" || name == "scf.forall";
    destination_passing && index + user.result_count() >= user.operand_count()
}

/// A copy of `op` inserted before `anchor` in `block`, with `user`'s location (the buffer is
/// the user's).
fn clone_for(op: Op, user: Op, block: Blk, anchor: Op) -> Op {
    let own = op.clone_detached();
    own.set_location_deep(user.location());
    block.insert_before(anchor, own);
    own
}

/// The destination uses of `init`'s result when it is shared, in use-list order. Not shared: a
/// lone use, or a lone destination whose other uses are slices of it (a result written part by
/// part, each part an `extract_slice` written and inserted back, as `strata-conv-borders`
/// builds it: a clone for the insertion would copy every part).
fn shared_destinations(init: Op) -> Vec<(Op, usize)> {
    let uses = init.result(0).uses();
    let written = |user: Op, index: usize| is_destination(user, index) || is_scratch(user, index);
    let destinations: Vec<(Op, usize)> = uses.iter().copied().filter(|&(user, index)| written(user, index)).collect();
    let parts = uses.iter().all(|&(user, index)| written(user, index) || user.is("tensor.extract_slice"));
    if uses.len() < 2 || (destinations.len() == 1 && parts) {
        return Vec::new();
    }
    destinations
}

/// Whether operand `index` of `user` is a Winograd convolution's scratch (operand 3 of a
/// `linalg.generic` marked `strata.winograd`): an input on tensors, but its lowering
/// (`strata-vectorize-winograd`) writes its transforms there, and absorbs the zero fill right
/// before it. CSE made the scratch of every Winograd convolution of a shape one, live from the
/// first of them to the last: the U-Net's 24 x 24 scratch (184 KB, 368 KB on two threads)
/// across its whole decoder. Consecutive convolutions sharing a scratch found it warm in the
/// caches, but by 0.2% of ResNet-18's time (within this machine's noise), so each gets its own.
fn is_scratch(user: Op, index: usize) -> bool {
    index == 3 && user.is("linalg.generic") && strata_ir::attrs::WINOGRAD.get(user.get()).is_some()
}

/// Whether `op` fills a new tensor from constants alone: a `linalg.generic` whose inputs are
/// `arith.constant`s (a per-channel bias broadcast over a convolution's output), as cheap to
/// repeat per destination as a `linalg.fill`. The convolutions `strata-band-chains` splits
/// into bands each start from such a broadcast; CSE made them one, which bufferization then
/// copied into every band's buffer.
fn constant_broadcast(op: Op) -> bool {
    let inputs = op.operand_count().saturating_sub(1);
    op.is("linalg.generic")
        && op.result_count() == 1
        && inputs > 0
        && (0..inputs).all(|i| op.operand(i).owner().is_some_and(|c| c.is("arith.constant")))
}

impl Pass for InitPerDestination {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        // Empties first, so that each fill below starts with an empty of its own.
        let empties = if self.empties { collect(&func, |op| op.is("tensor.empty")) } else { Vec::new() };
        for empty in empties {
            let Some(block) = empty.block() else { continue };
            for (user, index) in shared_destinations(empty) {
                let Some(anchor) = user.ancestor_in(block) else { continue };
                let own = clone_for(empty, user, block, anchor);
                user.set_operand(index, own.result(0));
                cx.bump("empties-cloned", 1);
            }
            if !empty.has_uses() {
                // Safety: nothing uses it any more, and no handle to it is used after this.
                unsafe { empty.erase() };
            }
        }
        for fill in collect(&func, |op| op.is("linalg.fill") || constant_broadcast(op)) {
            let operands = fill.operand_count();
            if fill.result_count() != 1 || operands < 2 || (fill.is("linalg.fill") && operands != 2) {
                continue;
            }
            let Some(empty) = fill.operand(operands - 1).owner() else { continue };
            if !empty.is("tensor.empty") {
                continue;
            }
            let Some(block) = fill.block() else { continue };
            // Every destination gets a clone right before it (the original may sit far above
            // its last destination; keeping it for one of them would keep it live that long).
            for (user, index) in shared_destinations(fill) {
                let Some(anchor) = user.ancestor_in(block) else { continue };
                let own_empty = clone_for(empty, user, block, anchor);
                let own_fill = clone_for(fill, user, block, anchor);
                own_fill.set_operand(operands - 1, own_empty.result(0));
                user.set_operand(index, own_fill.result(0));
                cx.bump("fills-cloned", 1);
            }
            // Safety: erased only when nothing reads them any more.
            unsafe {
                if !fill.has_uses() {
                    fill.erase();
                    if !empty.has_uses() {
                        empty.erase();
                    }
                }
            }
        }
        Ok(())
    }
}
