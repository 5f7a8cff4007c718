//! `strata-ring-in-producer`: a padded buffer's side columns filled by the kernel that writes
//! its rows, each row's two ring elements beside the row, instead of by fills of their own.
//!
//! A convolution's output produced inside the padded buffer the next convolution reads
//! (`strata-pad-in-place`) leaves the ring to `strata-pad-rings`' fills: the top and bottom rows
//! (contiguous) and the left and right columns, one element a row, each in a line of its own
//! that the producer writes right after (its row's interior shares it). On one thread the
//! column fills are a pass of scattered stores (the Inception cell's 96-channel 34 x 34 buffers:
//! 6144 lines, 8 us each); on two, each line is often in the other core's cache (20 us, split
//! by rows or not). Written by the producer, in the iteration that writes the row, the lines
//! are already in this core's cache.
//!
//! Taken where the fill's view is column 0 or the last of rows `1..=H` of every channel of a
//! buffer `P` (`[1, C, H + 2, W + 2]`), and the next op that is not a fill, view or constant
//! is a loop (`scf.for` or `scf.forall`) whose only write into `P` is one
//! `vector.transfer_write` of a whole `[nc, W]` block (in bounds, at index 0) into
//! `P[0, c, r + 1, 1 ..= W]` through the interior view `P[0, 0, 1, 1] [1, C, H, W]`, where `c`
//! and `r` are induction variables of loops around it (nothing else between) walking
//! `0..C` by `nc` and `0..H` by 1: every row of every channel is written exactly once. The fill
//! then moves into that iteration, on `P[0, c, r + 1, col] [1, nc, 1, 1]`, right after the
//! write: the lines are then this core's, modified. Right before it, each of the fill's stores
//! missed a line the write then took, and the producers ran 40-50% slower on two threads.
//! Anything else keeps its fill. Measured (alternating A/B, session 41): DenseNet's block 9%
//! faster on two threads, the Inception cell 3.5% on one, ResNet-18 and ResNet-50 within noise.
//! Run between `strata-vectorize-depthwise` and `strata-parallelize` (host, with the schedule).

use crate::DYNAMIC;
use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{BlockLike, Identifier, Type};
use strata_ir::rewrite::{collect, sinkable};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-ring-in-producer",
    summary: "Fill a padded buffer's side columns in the loop that writes its rows, row by row",
    anchor: "builtin.module",
    options: &[],
    statistics: &[StatisticInfo { name: "moved", help: "side-column fills moved into their rows' producer" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(RingInProducer)
}

struct RingInProducer;

/// A side-column fill and where it goes.
struct Site {
    fill: Op,
    /// The padded buffer, its column, and the write the fill moves after.
    buffer: Val,
    column: i64,
    write: Op,
    /// The channel and row the write's iteration takes, and its channels.
    channel: Val,
    row: Val,
    channels: i64,
}

impl Pass for RingInProducer {
    fn run(
        &mut self,
        module: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let mut moved = 0;
        for function in collect(&module, |op| op.is("func.func")) {
            let Some(body) = function.body(0) else { continue };
            let ops = body.ops();
            // Every site first: a moved fill is a write of the producer the next one would see.
            let sites: Vec<Site> = ops.iter().enumerate().filter_map(|(i, &fill)| site(fill, &ops[i + 1..])).collect();
            for site in sites {
                if insert(cx.strata().mlir(), &site).is_some() {
                    // Safety: the fill has no results and no handle to it is used again.
                    unsafe { site.fill.erase() };
                    moved += 1;
                }
            }
        }
        cx.bump("moved", moved);
        Ok(())
    }
}

/// Static `[offsets, sizes, strides]` of a subview (dynamic offsets as [`DYNAMIC`]).
fn slice(view: Op) -> Option<[Vec<i64>; 3]> {
    let strata_ir::ods::SliceBox { offsets, sizes, strides } = strata_ir::ods::SliceBox::of(view.get())?;
    Some([offsets, sizes, strides])
}

/// The static shape of a memref value.
fn shape(value: Val) -> Option<Vec<i64>> {
    strata_ir::types::memref_layout(value.r#type()).map(|(shape, _, _)| shape)
}

/// The site of `fill` (a top-level op followed by `rest`), if this pass takes it.
fn site(fill: Op, rest: &[Op]) -> Option<Site> {
    if !fill.is("linalg.fill") || fill.operand_count() != 2 {
        return None;
    }
    let view = fill.operand(1).owner().filter(|v| v.is("memref.subview") && v.operand_count() == 1)?;
    let buffer = view.operand(0);
    let [c_all, h_padded, w_padded] = match shape(buffer)?[..] {
        [1, c, h, w] => [c, h, w],
        _ => return None,
    };
    let [offsets, sizes, strides] = slice(view)?;
    let (h, w) = (h_padded - 2, w_padded - 2);
    let column = offsets[3];
    let side = offsets[..3] == [0, 0, 1] && sizes == [1, c_all, h, 1] && (column == 0 || column == w_padded - 1);
    if !side || strides.iter().any(|&s| s != 1) || h < 1 || w < 1 {
        return None;
    }
    // The producer: the next op that is not a fill, a view or a constant.
    let producer = *rest.iter().find(|op| !(op.is("linalg.fill") || sinkable(&op.name())))?;
    if !(producer.is("scf.for") || producer.is("scf.forall")) {
        return None;
    }
    // Its writes into the buffer: exactly one, a whole-row block through the interior view.
    let root = crate::parallelize::Root::of(buffer);
    let mut writes = producer.collect(|op| {
        let target = match op.name().as_str() {
            "vector.transfer_write" | "vector.store" | "memref.store" | "memref.copy" => op.operand(1),
            "vector.maskedstore" | "vector.scatter" | "vector.compressstore" => op.operand(0),
            name if name.starts_with("linalg.") => return true,
            "func.call" => return true,
            _ => return false,
        };
        crate::parallelize::Root::of(target).overlaps(&root)
    });
    let write = writes.pop().filter(|_| writes.is_empty())?;
    if !write.is("vector.transfer_write") || write.operand_count() != 4 {
        return None;
    }
    let in_bounds = write.attribute("in_bounds").map(|a| a.to_string()).unwrap_or_default();
    let identity = write.attribute("permutation_map").map(|a| a.to_string());
    if identity.as_deref() != Some("affine_map<(d0, d1) -> (d0, d1)>")
        || in_bounds.contains("false")
        || in_bounds.is_empty()
    {
        return None;
    }
    if [2, 3].iter().any(|&i| write.operand(i).constant_int() != Some(0)) {
        return None;
    }
    // The write's view: a rank-reducing whole view of `P_interior[0, c, r, 0] [1, nc, 1, w]`.
    let flat = write.operand(1).owner().filter(|v| v.is("memref.subview") && v.operand_count() == 1)?;
    let [flat_offsets, flat_sizes, _] = slice(flat)?;
    let block = flat.operand(0).owner().filter(|v| v.is("memref.subview") && v.operand_count() == 3)?;
    let [block_offsets, block_sizes, block_strides] = slice(block)?;
    let channels = block_sizes.get(1).copied()?;
    let whole = flat_offsets.iter().all(|&o| o == 0) && flat_sizes == block_sizes;
    let dynamic = |i: usize| block_offsets.get(i) == Some(&DYNAMIC);
    let block_ok = block_sizes == [1, channels, 1, w]
        && block_offsets[0] == 0
        && dynamic(1)
        && dynamic(2)
        && block_offsets[3] == 0
        && block_strides.iter().all(|&s| s == 1);
    let written = crate::vector_ops::vector_shape(write.operand(0).r#type())?.0;
    if !whole || !block_ok || written != [channels, w] {
        return None;
    }
    let interior = block.operand(0).owner().filter(|v| v.is("memref.subview") && v.operand_count() == 1)?;
    if interior.operand(0) != buffer || slice(interior)? != [vec![0, 0, 1, 1], vec![1, c_all, h, w], vec![1; 4]] {
        return None;
    }
    let (channel, row) = (block.operand(1), block.operand(2));
    // Every iteration of the loops around the write, up to the producer, writes: only loops
    // between, one walking the channels by the block, one the rows by one.
    let mut covered = (false, false);
    let mut op = write.parent()?;
    loop {
        let walks = |value: Val, upper: i64, step: i64| walks(op, value, upper, step);
        if !(op.is("scf.for") || op.is("scf.forall")) {
            return None;
        }
        covered.0 |= walks(channel, c_all, channels);
        covered.1 |= walks(row, h, 1);
        if op == producer {
            break;
        }
        op = op.parent()?;
    }
    (covered == (true, true) && channel != row).then_some(Site { fill, buffer, column, write, channel, row, channels })
}

/// Whether `value` is an induction variable of `loop_op` walking `0..upper` by `step`.
fn walks(loop_op: Op, value: Val, upper: i64, step: i64) -> bool {
    let dimensions = if loop_op.is("scf.for") { 1 } else { loop_op.body(0).map_or(0, |b| b.argument_count()) };
    (0..dimensions)
        .filter_map(|d| crate::prefetch_filters::iv(loop_op, d))
        .any(|iv| iv.value == value && iv.lower == 0 && iv.upper == upper && iv.step == step)
}

/// Puts a copy of the site's fill, on the written rows' ring column, right after its write.
fn insert(context: &melior::Context, site: &Site) -> Option<()> {
    let anchor = site.write.get();
    let block = site.write.block()?;
    let location = anchor.location();
    let padded_row = crate::prefetch_rows::index_plus(context, anchor, site.row, 1)?;
    let (_, strides, _) = strata_ir::types::memref_layout(site.buffer.r#type())?;
    let element = strata_ir::types::memref_element_name(site.buffer.r#type())?;
    let list = strides.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    let ty = Type::parse(context, &format!("memref<1x{}x1x1x{element}, strided<[{list}], offset: ?>>", site.channels))?;
    let view = OperationBuilder::new("memref.subview", location)
        .add_operands(&[site.buffer.get(), site.channel.get(), padded_row.get()])
        .add_attributes(&[
            (
                Identifier::new(context, "operandSegmentSizes"),
                DenseI32ArrayAttribute::new(context, &[1, 2, 0, 0]).into(),
            ),
            (
                Identifier::new(context, "static_offsets"),
                DenseI64ArrayAttribute::new(context, &[0, DYNAMIC, DYNAMIC, site.column]).into(),
            ),
            (
                Identifier::new(context, "static_sizes"),
                DenseI64ArrayAttribute::new(context, &[1, site.channels, 1, 1]).into(),
            ),
            (Identifier::new(context, "static_strides"), DenseI64ArrayAttribute::new(context, &[1, 1, 1, 1]).into()),
        ])
        .add_results(&[ty])
        .build()
        .ok()?;
    let view = Val::from(block.get().insert_operation_before(anchor, view).result(0).ok()?);
    let fill = site.fill.clone_detached();
    block.insert_before(site.write.next()?, fill);
    fill.set_operand(1, view);
    Some(())
}
