//! Spans of entry-block ops that a host pass after planning runs as one kernel: every buffer
//! any op of a span uses is live over the whole span ([`analyze`](crate::analyze)), so planning
//! never gives two of them the same bytes.
//!
//! One kind: a depthwise convolution, the elementwise chain over its result in place (a QDQ
//! activation's rounding and clamp) and the cast of that to 8 bits.
//! `strata-vectorize-depthwise` applies the chain and the cast to its accumulators and stores
//! the bytes as each block of rows is done, while later blocks still read the convolution's
//! input: planned op by op, the bytes would take the bytes of that input, which dies at the
//! convolution (MobileNetV2's first depthwise convolution's did), and the cast stayed a kernel
//! of its own reading the f32 result back. The span costs at most the bytes' buffer over the
//! convolution and the chain, and the input over the chain and the cast. (The 1x1 quantized
//! kernels' casts need none: the next convolution's packing reads the f32 result and converts
//! it, `strata-vectorize-integer-matmul`'s `from-floats`.)

use strata_ir::{Blk, Op, Val};

/// Ops that only name memory or allocate it (not a use), skipped between a span's ops.
fn naming(op: Op) -> bool {
    crate::analyze::VIEW_LIKE.iter().any(|name| op.is(name))
        || ["memref.alloc", "memref.get_global", "arith.constant", "builtin.unrealized_conversion_cast"]
            .iter()
            .any(|name| op.is(name))
}

/// The spans `(first, last)` (indices of `block`'s ops, both in the span) of `block`.
pub fn spans(block: Blk) -> Vec<(u64, u64)> {
    let ops = block.ops();
    let mut found = Vec::new();
    for (at, &op) in ops.iter().enumerate() {
        if let Some(end) = depthwise_span(&ops, at, op) {
            found.push((at as u64, end as u64));
        }
    }
    found
}

/// The index of the op after `at` (past the naming ops), and that op.
fn next(ops: &[Op], at: usize) -> Option<(usize, Op)> {
    (at + 1..ops.len()).map(|i| (i, ops[i])).find(|&(_, o)| !naming(o))
}

/// The memory `value` names: itself, or what the view it is views.
fn root(value: Val) -> Val {
    match value.owner() {
        Some(view) if crate::analyze::VIEW_LIKE.iter().any(|name| view.is(name)) => root(view.operand(0)),
        _ => value,
    }
}

/// The names of the ops of `op`'s body (its yield last).
fn body(op: Op) -> Vec<String> {
    op.body(0).map(|b| b.ops().into_iter().map(|o| o.name()).collect()).unwrap_or_default()
}

fn is_8bit(value: Val) -> bool {
    strata_ir::types::memref_element_name(value.r#type()).is_some_and(|e| e == "i8" || e == "ui8")
}

/// The index of the cast to 8 bits after the chain at `at` (past naming ops) that reads
/// `result` (a root), if there is one.
fn cast_of(ops: &[Op], at: usize, result: Val) -> Option<usize> {
    let (cast_at, cast) = next(ops, at)?;
    let converts = body(cast).first().is_some_and(|n| n == "arith.fptoui" || n == "arith.fptosi");
    let reads_result = cast.operand_count() == 2 && root(cast.operand(0)) == result;
    (cast.is("linalg.generic") && converts && reads_result && is_8bit(cast.operand(1))).then_some(cast_at)
}

/// Whether `op` is an elementwise generic (every loop parallel) writing `result` (a root).
fn chain_over(op: Op, result: Val) -> bool {
    let parallel = op.attribute("iterator_types").is_some_and(|t| !t.to_string().contains("reduction"));
    let converts = body(op).first().is_some_and(|n| n.starts_with("arith.fpto"));
    op.is("linalg.generic") && parallel && !converts && op.operands().last().is_some_and(|&v| root(v) == result)
}

/// The end of the span that the depthwise convolution `op` (at `at`) starts, if it starts one.
fn depthwise_span(ops: &[Op], at: usize, op: Op) -> Option<usize> {
    if !op.is("linalg.depthwise_conv_2d_nchw_chw") {
        return None;
    }
    let result = root(*op.operands().last()?);
    let (chain_at, chain) = next(ops, at)?;
    chain_over(chain, result).then_some(())?;
    cast_of(ops, chain_at, result)
}
