//! `strata-pad-rings`: a padded tensor whose interior is overwritten is filled on its ring only.
//!
//! A pad becomes `linalg.fill` of a new padded tensor and the source inserted into its interior
//! (`strata-pad-in-place`), or its interior is the destination a producer writes into
//! (`eliminate-empty-tensors`). Either way the fill's interior is never read: ResNet-18 zeroed
//! about 7 MB a run that was overwritten at once. When every use of such a fill (of a
//! `tensor.empty`, by a constant) is
//!
//! - a `tensor.insert_slice` into it, or
//! - a `tensor.extract_slice` of it that `eliminate-empty-tensors` made a producer's
//!   destination in place of its `tensor.empty` (marked `strata.overwritten_slice` by
//!   `strata-choose-in-place{mark-overwritten=true}`: a producer that had a new tensor as its
//!   destination never reads it, and writes every element it leaves defined), or whose every
//!   use is the destination of an op that writes all of it without reading it (a fill, a copy,
//!   a transpose or broadcast, a named elementwise op, a parallel `linalg.generic` whose payload
//!   ignores that output and whose map for it is a permutation),
//!
//! all over one static box with unit strides, the fill becomes fills of the slabs around the box
//! (two per padded dimension at most) of a new `tensor.empty`: the same value wherever it is
//! read. Anything else (a reader of the fill, an accumulating producer such as a convolution or
//! matmul over an unmarked slice, boxes that differ) leaves the fill as it is. The pass removes
//! the marks.

use melior::ir::operation::OperationRef;
use melior::ir::ShapedTypeLike;
use strata_ir::handle::{i32_array, map_dims};
use strata_ir::rewrite::{collect, erase_if_unused};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::{Elem, Kernel, KernelCache, TensorTy};
use strata_lower::nn::list;

pub static INFO: PassInfo = PassInfo {
    name: "strata-pad-rings",
    summary: "Fill only the ring of a padded tensor whose interior is overwritten (inserted into, or written by a producer that does not read it)",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "rings", help: "fills narrowed to the ring around an overwritten box" },
        StatisticInfo { name: "bytes-not-filled", help: "bytes of the boxes no longer filled, per run" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(PadRings)
}

struct PadRings;

/// Named linalg ops other than the elementwise ones (`analyze::ELEMENTWISE`) that write every
/// element of their destination (their last operand) without reading it.
const OVERWRITING: &[&str] = &["linalg.fill", "linalg.transpose", "linalg.broadcast", "linalg.map"];

/// Whether `user` writes all of its operand `index` without reading it.
fn overwrites(user: Op, index: usize) -> bool {
    let name = user.name();
    if OVERWRITING.contains(&name.as_str()) || crate::analyze::ELEMENTWISE.contains(&name.as_str()) {
        return index + 1 == user.operand_count();
    }
    if name != "linalg.generic" {
        return false;
    }
    let Some(inputs) =
        user.attribute("operandSegmentSizes").and_then(i32_array).and_then(|s| s.first().map(|&n| n as usize))
    else {
        return false;
    };
    if index < inputs || user.operands()[..inputs].contains(&user.operand(index)) {
        return false;
    }
    let parallel = user.attribute("iterator_types").is_some_and(|t| !t.to_string().contains("reduction"));
    let Some(dims) = user.attribute("indexing_maps").and_then(map_dims) else { return false };
    let Some(map) = dims.get(index) else { return false };
    let loops = dims.iter().flatten().flatten().max().map_or(0, |&d| d + 1);
    let mut seen = vec![false; loops];
    let permutation = map.len() == loops
        && map.iter().all(|d| d.is_some_and(|d| d < loops && !std::mem::replace(&mut seen[d], true)));
    let unread = user.body(0).is_some_and(|b| !b.argument(index).has_uses());
    parallel && permutation && unread
}

/// A slice's box (`static_offsets`, `static_sizes`) if it is static with unit strides.
fn static_box(slice: Op) -> Option<(Vec<i64>, Vec<i64>)> {
    let slice = strata_ir::ods::SliceBox::static_of(slice.get())?;
    slice.unit_strides().then_some((slice.offsets, slice.sizes))
}

/// The box every use of `fill`'s result overwrites, if every use is an insertion into it or an
/// overwritten slice of it over one box.
fn overwritten_box(fill: Op) -> Option<(Vec<i64>, Vec<i64>)> {
    let result = fill.result(0);
    let mut found: Option<(Vec<i64>, Vec<i64>)> = None;
    for (user, index) in result.uses() {
        let ok = match user.name().as_str() {
            "tensor.insert_slice" => index == 1,
            "tensor.extract_slice" => {
                let uses = user.result(0).uses();
                strata_ir::attrs::OVERWRITTEN_SLICE.is_set(user.get())
                    || (!uses.is_empty() && uses.into_iter().all(|(writer, at)| overwrites(writer, at)))
            }
            _ => false,
        };
        let bounds = static_box(user)?;
        if !ok || found.as_ref().is_some_and(|b| *b != bounds) {
            return None;
        }
        found = Some(bounds);
    }
    found
}

/// The slabs of `shape` around the box (`offsets`, `sizes`): per dimension, the part before and
/// after the box, the dimensions before it restricted to the box.
fn ring(shape: &[i64], offsets: &[i64], sizes: &[i64]) -> Vec<(Vec<i64>, Vec<i64>)> {
    let mut slabs = Vec::new();
    for d in 0..shape.len() {
        let (low, high) = (offsets[d], offsets[d] + sizes[d]);
        for (from, to) in [(0, low), (high, shape[d])] {
            if to > from {
                let mut at: Vec<i64> = offsets[..d].to_vec();
                let mut extent: Vec<i64> = sizes[..d].to_vec();
                at.push(from);
                extent.push(to - from);
                at.extend(std::iter::repeat_n(0, shape.len() - d - 1));
                extent.extend_from_slice(&shape[d + 1..]);
                slabs.push((at, extent));
            }
        }
    }
    slabs
}

/// The kernel text of `shape` (element `element`) filled with `value` (an `arith.constant`'s
/// attribute) on `slabs` only.
fn kernel(shape: &[i64], element: &str, value: &str, slabs: &[(Vec<i64>, Vec<i64>)]) -> String {
    let ty = |dims: &[i64]| TensorTy::new(dims.to_vec(), Elem::new(element));
    let whole = ty(shape);
    let mut k = Kernel::new(Vec::new());
    let scalar = k.emit(format_args!("arith.constant {value}"));
    let mut acc = k.empty(&whole);
    let ones = list(&vec![1; shape.len()]);
    for (at, extent) in slabs {
        let slab = ty(extent);
        let (at, extent) = (list(at), list(extent));
        let part = k.emit(format_args!("tensor.extract_slice {acc}[{at}] [{extent}] [{ones}] : {whole} to {slab}"));
        let filled = k.emit(format_args!("linalg.fill ins({scalar} : {element}) outs({part} : {slab}) -> {slab}"));
        acc = k.emit(format_args!(
            "tensor.insert_slice {filled} into {acc}[{at}] [{extent}] [{ones}] : {slab} into {whole}"
        ));
    }
    k.set_result(acc, whole);
    format!("module {{\n{}}}\n", k.function("ring"))
}

impl Pass for PadRings {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        for raw in collect(&func, |op| op.is("linalg.fill")) {
            let fill = Op::of(&raw.get());
            let (Some(empty), Some(constant)) = (fill.operand(1).owner(), fill.operand(0).owner()) else { continue };
            if !empty.is("tensor.empty") || empty.operand_count() != 0 || !constant.is("arith.constant") {
                continue;
            }
            let Some(tensor) = strata_ir::types::ranked_tensor(fill.result(0).r#type()) else { continue };
            let Ok(shape) = strata_lower::ops::static_shape(fill.result(0).r#type()) else { continue };
            let element = strata_ir::types::type_name(tensor.element());
            if element.starts_with("ui") || element.starts_with("si") {
                continue; // an `arith.constant` is signless
            }
            let Some(value) = constant.attribute("value") else { continue };
            let Some((offsets, sizes)) = overwritten_box(fill) else { continue };
            let slabs = ring(&shape, &offsets, &sizes);
            let text = kernel(&shape, &element, &value.to_string(), &slabs);
            let bytes = strata_ir::handle::tensor_bytes(fill.result(0).r#type()).unwrap_or(0);
            let total: i64 = shape.iter().product();
            let inside: i64 = sizes.iter().product();
            // Safety: `fill` is replaced once and not used afterwards.
            unsafe {
                kernels.replace_op_with(cx, fill, &[], &text, "pad ring kernel")?;
                erase_if_unused(empty);
            }
            cx.bump("rings", 1);
            cx.bump("bytes-not-filled", bytes * inside as u64 / total.max(1) as u64);
        }
        for slice in collect(&func, |op| op.is("tensor.extract_slice")) {
            slice.remove_attribute(strata_ir::attrs::OVERWRITTEN_SLICE.0);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ring;

    #[test]
    fn ring_slabs_cover_the_complement_once() {
        let (shape, offsets, sizes) = ([1i64, 2, 5, 6], [0i64, 0, 1, 2], [1i64, 2, 3, 3]);
        let slabs = ring(&shape, &offsets, &sizes);
        assert_eq!(slabs.len(), 4);
        let mut covered = vec![0; 60];
        for (at, extent) in &slabs {
            for n in 0..extent[0] {
                for c in 0..extent[1] {
                    for h in 0..extent[2] {
                        for w in 0..extent[3] {
                            let (n, c, h, w) = (at[0] + n, at[1] + c, at[2] + h, at[3] + w);
                            covered[(((n * 2 + c) * 5 + h) * 6 + w) as usize] += 1;
                        }
                    }
                }
            }
        }
        for (i, &count) in covered.iter().enumerate() {
            let (h, w) = ((i / 6) % 5, i % 6);
            let inside = (1..4).contains(&h) && (2..5).contains(&w);
            assert_eq!(count, usize::from(!inside), "element {i}");
        }
    }
}
