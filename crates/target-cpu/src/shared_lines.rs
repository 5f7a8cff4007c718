//! Whether a split kernel's read of a buffer finds lines another core wrote: what
//! `strata-prefetch-channels` asks before prefetching.
//!
//! OpenMP's static schedule gives each thread one contiguous share of an `scf.forall`'s
//! iterations, so the loop's first dimension with more than one iteration decides which part
//! of a buffer each thread writes or reads. A kernel split along the same dimension of a
//! buffer as the kernel that last wrote it (rows after rows: the Inception cell's 3x3
//! convolutions after the 1x1 expansions that wrote their input) finds its lines mostly in its
//! own core's cache, where prefetches only cost; split otherwise (a convolution's rows after a
//! copy split by channels, DeepLab's dilated pyramid), half of what each thread reads is in the
//! other core's cache, and each first read of such a line waits for the transfer, longer than
//! the hardware prefetchers look ahead.
//!
//! The analysis is syntactic and errs towards "shared": a writer it cannot see (a graph input,
//! a kernel on the main thread, a view it does not follow) counts as another core's.

use crate::DYNAMIC;
use melior::ir::r#type::ShapedTypeLike;
use strata_ir::{Blk, Op, Val};

use crate::parallelize::Root;

/// Kernels before a reading one that the search for its buffer's writer looks through.
const LOOK_BACK: usize = 64;

/// The buffers an op writes, each with the view it writes through (`None`: it may write memory
/// this module cannot tell, a call).
type Targets = Option<Vec<(Root, Val)>>;

/// What each top-level op of a function writes, collected once for the reads of its kernels.
pub(crate) struct Writers {
    /// The function body, and its ops in order, each with what it writes.
    body: Option<Blk>,
    ops: Vec<(Op, Targets)>,
}

impl Writers {
    pub(crate) fn of(function: Op) -> Writers {
        let Some(body) = function.body(0) else { return Writers { body: None, ops: Vec::new() } };
        let ops = body
            .ops()
            .into_iter()
            .map(|op| {
                let mut targets = Vec::new();
                for inner in std::iter::once(op).chain(op.collect(|inner| inner != op)) {
                    let Some(views) = written(inner) else { return (op, None) };
                    targets.extend(views.into_iter().map(|view| (Root::of(view), view)));
                }
                (op, Some(targets))
            })
            .collect();
        Writers { body: Some(body), ops }
    }

    /// Whether `read` (an op reading a buffer through its first operand), inside an
    /// `scf.forall` of this function, may find lines of that buffer that another thread's share
    /// of the last kernel writing it wrote: `false` only when that kernel is an `scf.forall`
    /// whose split dimension moves its writes through the buffer by the same stride as the
    /// reading loop's split dimension moves the read.
    pub(crate) fn written_elsewhere(&self, read: Op) -> bool {
        let memref = read.operand(0);
        let Some(forall) = read.ancestor("scf.forall") else { return true };
        let Some(reading) = split_stride(memref, forall) else { return true };
        match self.last_writer(forall, &Root::of(memref)) {
            Some((writer, target)) if writer.is("scf.forall") => split_stride(target, writer) != Some(reading),
            _ => true,
        }
    }

    /// The last op before `kernel`'s top-level op that writes bytes of `root`, and the view it
    /// writes through. Top-level fills (a padded buffer's ring, filled on the main thread
    /// around its interior) are looked through.
    fn last_writer(&self, kernel: Op, root: &Root) -> Option<(Op, Val)> {
        let top = kernel.ancestor_in(self.body?)?;
        let at = self.ops.iter().position(|&(op, _)| op == top)?;
        for (op, targets) in self.ops[..at].iter().rev().take(LOOK_BACK) {
            if op.is("linalg.fill") {
                continue;
            }
            let targets = targets.as_ref()?;
            if let Some(&(_, view)) = targets.iter().find(|(r, _)| r.overlaps(root)) {
                return Some((*op, view));
            }
        }
        None
    }
}

/// The memrefs `op` writes, when it is an op whose writes this module knows (stores, copies,
/// linalg ops' outputs), or none for an op that writes no memory itself (views, arithmetic,
/// loads, loops: their bodies are looked at op by op); `None` for anything else with memref
/// operands (a call).
fn written(op: Op) -> Option<Vec<Val>> {
    let is_memref = |v: &Val| strata_ir::types::memref(v.r#type()).is_some();
    // Without a memref operand an op writes no buffer itself (a linalg body's `linalg.yield`
    // and `linalg.index` included).
    if !op.operands().iter().any(is_memref) {
        return Some(Vec::new());
    }
    let name = op.name();
    let memrefs = |range: std::ops::Range<usize>| -> Vec<Val> {
        range.filter(|&i| i < op.operand_count()).map(|i| op.operand(i)).filter(is_memref).collect()
    };
    match name.as_str() {
        "vector.transfer_write" | "vector.store" | "memref.store" | "memref.copy" => Some(memrefs(1..2)),
        "vector.maskedstore" | "vector.scatter" | "vector.compressstore" => Some(memrefs(0..1)),
        // Ops of one input and one output, without operand segments: the output is the last.
        "linalg.transpose" | "linalg.broadcast" => {
            Some(memrefs(op.operand_count().saturating_sub(1)..op.operand_count()))
        }
        _ if name.starts_with("linalg.") => {
            let segments = strata_ir::handle::i32_array(op.attribute("operandSegmentSizes")?)?;
            let inputs = usize::try_from(*segments.first()?).ok()?;
            let outputs = usize::try_from(*segments.get(1)?).ok()?;
            Some(memrefs(inputs..inputs + outputs))
        }
        _ if ["memref.", "vector.", "arith.", "math.", "affine.", "scf.", "index.", "ub."]
            .iter()
            .any(|dialect| name.starts_with(dialect)) =>
        {
            Some(Vec::new())
        }
        _ => None,
    }
}

/// The stride in bytes of the buffer's dimension that `forall`'s split dimension (its first
/// with more than one iteration) offsets an access through `view` along, followed up its views
/// to the buffer (tiles of one row or two compare alike: the dimension is what matters).
fn split_stride(view: Val, forall: Op) -> Option<i64> {
    let dims = strata_ir::ods::i64_array(forall.get(), "staticUpperBound")?.len();
    let iv = (0..dims).find_map(|d| crate::prefetch_filters::iv(forall, d).filter(|iv| iv.trips > 1))?.value;
    let mut value = view;
    for _ in 0..16 {
        let owner = value.owner()?;
        if owner.is("memref.subview") {
            let source = strata_ir::types::memref(owner.operand(0).r#type())?;
            let bytes = i64::try_from(strata_ir::handle::bit_width(source.element())?.div_ceil(8)).ok()?;
            let (strides, _) = source.strides_and_offset();
            let offsets = strata_ir::ods::i64_array(owner.get(), "static_offsets")?;
            let mut dynamic = 1;
            for (&offset, &stride) in offsets.iter().zip(&strides) {
                if offset == DYNAMIC {
                    if depends_on(owner.operand(dynamic), iv, 4) {
                        return (stride != DYNAMIC).then(|| stride.saturating_mul(bytes));
                    }
                    dynamic += 1;
                }
            }
        } else if !["memref.expand_shape", "memref.collapse_shape", "memref.cast"].contains(&owner.name().as_str()) {
            return None;
        }
        value = owner.operand(0);
    }
    None
}

/// Whether `value` is `iv` or computed from it by index arithmetic, within `depth` ops.
fn depends_on(value: Val, iv: Val, depth: usize) -> bool {
    if value == iv {
        return true;
    }
    let Some(owner) = value.owner() else { return false };
    let name = owner.name();
    depth > 0
        && (name.starts_with("arith.") || name == "affine.apply")
        && owner.operands().into_iter().any(|o| depends_on(o, iv, depth - 1))
}
