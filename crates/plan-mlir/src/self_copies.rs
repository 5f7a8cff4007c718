//! `strata-erase-self-copies`: a copy whose source and target are the same elements of one
//! buffer, in the same order, is erased.
//!
//! A producer written into the slice of a destination it is then inserted into bufferizes to a
//! copy of that slice onto itself, which upstream folds when both sides are one value (the
//! subviews of the producer's destination and of the insertion, equal after CSE). Seen through
//! reshapes they are not one value: a part of an interleaving concatenation (a linear Resize's
//! phase along its last axis, `strata-eliminate-reshaped-empties`) writes
//! `collapse_shape(subview)` and is inserted as `expand_shape` of that, whose unit dimension's
//! stride differs from the subview's (2 against 1), so the copy stayed: a pass over the value
//! reading and writing the same addresses.
//!
//! For `memref.copy %a, %b` (and `linalg.copy`), both traced back through views that keep their
//! source's base (`strata_ir::rewrite::view_root`: subviews, reshapes, casts; not a
//! `memref.view`, whose layout counts from a new base) to one value, with static layouts of
//! equal sizes and offset and equal strides on every dimension of more than one element (a unit
//! dimension's stride is never used), the copy goes: every element is copied
//! onto itself. Runs after bufferization, before `memref-copy-to-linalg` and planning.

use strata_ir::rewrite::view_root;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-erase-self-copies",
    summary: "Erase copies whose source and target are the same elements of one buffer (seen through views)",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "erased", help: "copies of elements onto themselves erased" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(EraseSelfCopies)
}

struct EraseSelfCopies;

impl Pass for EraseSelfCopies {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let copies = Op::of(&func).collect(|op| {
            (op.is("memref.copy") || op.is("linalg.copy")) && op.operand_count() == 2 && op.result_count() == 0
        });
        for copy in copies {
            if same_elements(copy.operand(0), copy.operand(1)) {
                // Safety: a copy has no results, and its handle is not used again.
                unsafe { copy.erase() };
                cx.bump("erased", 1);
            }
        }
        Ok(())
    }
}

/// Whether `a` and `b` are views of one value holding the same elements in the same order:
/// static layouts with equal sizes and offsets, and equal strides wherever a size is not 1.
fn same_elements(a: Val, b: Val) -> bool {
    if a == b {
        return true;
    }
    if view_root(a) != view_root(b) {
        return false;
    }
    let (Some((sizes_a, strides_a, offset_a)), Some((sizes_b, strides_b, offset_b))) =
        (strata_ir::types::memref_layout(a.r#type()), strata_ir::types::memref_layout(b.r#type()))
    else {
        return false;
    };
    sizes_a == sizes_b
        && offset_a == offset_b
        && sizes_a.iter().zip(strides_a.iter().zip(&strides_b)).all(|(&size, (sa, sb))| size == 1 || sa == sb)
}
