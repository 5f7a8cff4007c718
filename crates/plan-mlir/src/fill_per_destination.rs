//! `strata-fill-per-destination`: every op that writes into a filled new tensor gets a fill of
//! its own.
//!
//! CSE merges identical `linalg.fill`s of `tensor.empty` (the zero init of two convolutions'
//! outputs, the zero-filled padded inputs of two convolutions of one shape). One-shot
//! bufferization then writes the shared fill once and *copies* it for every op that uses it as
//! its destination (a `linalg` op's `outs`, an `insert_slice`'s `dest`), and the shared buffer
//! stays live from the first of those ops to the last: DenseNet's four 3x3 convolutions kept a
//! 222 KB zero-padded tensor alive across the whole dense block, a quarter of its arena.
//!
//! This pass, run before bufferization (by `strata-bufferize-and-plan`, before
//! `eliminate-empty-tensors`: once a producer writes into a slice of a fill, that slice is a
//! reader and the fill must stay one), gives every destination use its own clone of the
//! `tensor.empty` and the fill, placed right before the user: each bufferizes in place into the
//! user's own buffer, a fill where there was a fill plus a copy, live only from its user on.
//! Uses that only read the fill keep the original (a clone per reader would only multiply
//! buffers); with none left, the original is erased.

use strata_ir::rewrite::{collect, defining_op};
use strata_ir::Op;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-fill-per-destination",
    summary: "Clone a shared fill of a new tensor for every op writing into it, so bufferization fills in place instead of copying",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "fills-cloned", help: "linalg.fill (and tensor.empty) clones made for a destination use" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(FillPerDestination)
}

struct FillPerDestination;

/// Whether operand `index` of `user` is a destination the op writes into: the `outs` of a
/// `linalg` op (its `operandSegmentSizes` counts the `ins` first) or the `dest` of a
/// `tensor.insert_slice`.
fn is_destination(user: Op, index: usize) -> bool {
    let name = user.name();
    if name == "tensor.insert_slice" {
        return index == 1;
    }
    if !name.starts_with("linalg.") {
        return false;
    }
    let ins =
        user.attribute("operandSegmentSizes").and_then(strata_ir::handle::i32_array).and_then(|s| s.first().copied());
    ins.is_some_and(|ins| index >= ins as usize)
}

impl Pass for FillPerDestination {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        for fill in collect(&func, |op| op.is("linalg.fill")) {
            if fill.result_count() != 1 || fill.operand_count() != 2 {
                continue;
            }
            let Some(empty) = defining_op(fill.operand(1).get()).map(|op| Op::of(&op)) else { continue };
            if !empty.is("tensor.empty") || empty.operand_count() != 0 {
                continue;
            }
            let result = fill.result(0);
            // Every (user, operand) reading the fill, in order; an op may use it twice.
            let mut uses: Vec<(Op, usize)> = Vec::new();
            for user in result.users() {
                if uses.iter().any(|&(u, _)| u == user) {
                    continue;
                }
                uses.extend((0..user.operand_count()).filter(|&i| user.operand(i) == result).map(|i| (user, i)));
            }
            if uses.len() < 2 {
                continue;
            }
            let destinations: Vec<(Op, usize)> =
                uses.iter().copied().filter(|&(user, index)| is_destination(user, index)).collect();
            // Every destination gets a clone right before it (the original may sit far above
            // its last destination; keeping it for one of them would keep it live that long).
            for &(user, index) in &destinations {
                let Some(block) = user.block() else { continue };
                let own_empty = empty.clone_detached();
                block.insert_before(user, own_empty);
                let own_fill = fill.clone_detached();
                block.insert_before(user, own_fill);
                own_fill.set_operand(1, own_empty.result(0));
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
