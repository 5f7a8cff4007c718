//! A large softmax block of rows by block of rows (host).
//!
//! The softmax kernel is five passes over its input's shape: the maximum, the exponentials
//! (written over the result), their sum, a reciprocal per row and the products. On a tensor
//! that fits a core's caches that is fine; on a larger one every pass streams the whole tensor
//! from memory: a long sequence's attention probabilities (Whisper's encoder: 6 heads of 1500 x
//! 1500, 54 MB) made 5 passes where one read and one write would do, 16.9 ms against ONNX
//! Runtime's 5.9 (which runs the passes row by row).
//!
//! Above [`BLOCKED_BYTES`] the same five generics run on blocks of whole rows of at most
//! [`BLOCK_BYTES`] (the axis kept whole, the other dimensions cut from the outermost in, by
//! divisors so every block is whole): `scf.for`s over the blocks carry the result and the
//! block's statistics (a maximum and a sum per row, filled again for each block), the
//! exponentials are written straight into the result's slice (destination-passing: no
//! buffer of the input's size) and stay in L1 for the sum and the products. Each row's
//! values are the same operations in the same order as unblocked: the same bits.
//!
//! With `sections` (a host compiled for several threads) the blocks along the first cut
//! dimension are split into at most [`MAX_CHUNKS`] chunks of an `scf.forall` marked
//! `strata.sections` (its generics are kernels of their own for the host's vectorisers, as a
//! recurrence's directions), each with its own statistics (planned as one copy per chunk,
//! `strata_plan_mlir::analyze`).

use crate::kernel::{Kernel, TensorTy};
use crate::reduce::{normalized, row_maxima, row_sums, shifted_exps};
use std::fmt::Write;
use strata_ir::Error;

/// Bytes of input above which a softmax runs block by block: half of a core's L2, beyond
/// which the five passes' reads come from L3 or memory.
pub const BLOCKED_BYTES: i64 = 1 << 20;

/// The most input bytes of a block of rows: its exponentials stay in a 48 KiB L1 for the sum
/// and the products.
pub const BLOCK_BYTES: i64 = 32 << 10;

/// The most chunks of blocks an `scf.forall` splits across threads: each chunk's statistics
/// are a private copy, which buffer planning takes for at most 16 iterations.
pub const MAX_CHUNKS: i64 = 16;

/// The shape of a softmax's blocks along `axis`, or `None` where it runs whole (at most
/// [`BLOCKED_BYTES`], or no dimension to cut).
pub fn block_sizes(ty: &TensorTy, axis: usize) -> Option<Vec<i64>> {
    let bytes = i64::from(ty.elem.bits() / 8).max(1);
    if ty.numel() * bytes <= BLOCKED_BYTES {
        return None;
    }
    let mut sizes = ty.shape.clone();
    for d in (0..ty.rank()).filter(|&d| d != axis) {
        let current = sizes.iter().product::<i64>() * bytes;
        if current <= BLOCK_BYTES {
            break;
        }
        let other = current / sizes[d];
        sizes[d] = (1..=sizes[d]).rev().find(|&b| ty.shape[d] % b == 0 && other * b <= BLOCK_BYTES).unwrap_or(1);
    }
    (sizes != ty.shape).then_some(sizes)
}

/// The blocked softmax of the kernel's argument (type `ty`) along `axis` in blocks of `sizes`
/// ([`block_sizes`]); `sections` splits them across threads; `in_place` writes the result
/// over the argument (its last reader: [`crate::ops::dies_at`]).
pub fn blocked(
    k: &mut Kernel,
    ty: &TensorTy,
    axis: usize,
    sizes: &[i64],
    sections: bool,
    in_place: bool,
) -> Result<String, Error> {
    let elem = ty.elem.clone();
    let rank = ty.rank();
    let input = k.arg(0);
    let looped: Vec<usize> = (0..rank).filter(|&d| sizes[d] < ty.shape[d]).collect();
    let first = looped[0];
    let steps = ty.shape[first] / sizes[first];
    let chunks = if sections { (1..=MAX_CHUNKS.min(steps)).rev().find(|c| steps % c == 0).unwrap_or(1) } else { 1 };
    // The part of the result one chunk writes: the first cut dimension divided by the chunks.
    let mut region = ty.shape.clone();
    region[first] /= chunks;
    let region_ty = ty.with_shape(region.clone());
    let block_ty = ty.with_shape(sizes.to_vec());
    let kept: Vec<usize> = (0..rank).filter(|&d| d != axis).collect();
    let stat_ty = ty.with_shape(kept.iter().map(|&d| sizes[d]).collect());
    let c0 = k.emit("arith.constant 0 : index");
    let lowest = k.stored_constant(&elem.lowest(), &elem);
    let zero = k.stored_constant(&elem.literal(0.0), &elem);
    let bounds: Vec<(String, String)> = looped
        .iter()
        .map(|&d| {
            let bound = k.emit(format_args!("arith.constant {} : index", region[d]));
            let step = k.emit(format_args!("arith.constant {} : index", sizes[d]));
            (bound, step)
        })
        .collect();
    let result = if in_place { input.clone() } else { k.empty(ty) };
    let list = |values: &[String]| values.join(", ");
    let ones = vec!["1".to_owned(); rank];
    let size_list: Vec<String> = sizes.iter().map(i64::to_string).collect();
    let region_list: Vec<String> = region.iter().map(i64::to_string).collect();
    let mut text = String::new();
    let (mut acc, base) = if chunks > 1 {
        let span = k.emit(format_args!("arith.constant {} : index", region[first]));
        let _ = writeln!(text, "%sb = scf.forall (%sb_c) in ({chunks}) shared_outs(%sb_out = {result}) -> ({ty}) {{");
        let _ = writeln!(text, "%sb_base = arith.muli %sb_c, {span} : index");
        let offsets: Vec<String> =
            (0..rank).map(|d| if d == first { "%sb_base".to_owned() } else { "0".to_owned() }).collect();
        let _ = writeln!(
            text,
            "%sb_region = tensor.extract_slice %sb_out[{}] [{}] [{}] : {ty} to {region_ty}",
            list(&offsets),
            list(&region_list),
            list(&ones)
        );
        ("%sb_region".to_owned(), Some("%sb_base"))
    } else {
        (result.clone(), None)
    };
    // Each chunk's statistics, made again for each of its blocks.
    let _ = writeln!(text, "%sb_max = tensor.empty() : {stat_ty}\n%sb_sum = tensor.empty() : {stat_ty}");
    let (mut max, mut sum) = ("%sb_max".to_owned(), "%sb_sum".to_owned());
    let carried = format!("{region_ty}, {stat_ty}, {stat_ty}");
    for (level, (&d, (bound, step))) in looped.iter().zip(&bounds).enumerate() {
        let _ = writeln!(
            text,
            "%sb_l{level}:3 = scf.for %sb_i{d} = {c0} to {bound} step {step} iter_args(%sb_a{level} = {acc}, %sb_m{level} = {max}, %sb_z{level} = {sum}) -> ({carried}) {{"
        );
        (acc, max, sum) = (format!("%sb_a{level}"), format!("%sb_m{level}"), format!("%sb_z{level}"));
    }
    if let Some(base) = base {
        let _ = writeln!(text, "%sb_at = arith.addi {base}, %sb_i{first} : index");
    }
    let offsets = |chunked: bool| -> Vec<String> {
        (0..rank)
            .map(|d| match () {
                _ if d == first && chunked && base.is_some() => "%sb_at".to_owned(),
                _ if looped.contains(&d) => format!("%sb_i{d}"),
                _ => "0".to_owned(),
            })
            .collect()
    };
    let (in_offsets, out_offsets) = (list(&offsets(true)), list(&offsets(false)));
    let (sizes_text, ones_text) = (list(&size_list), list(&ones));
    // In place, a block is read from the carried result: the blocks not yet normalised still
    // hold the input there (reading the argument itself would make bufferization copy it).
    let _ = match in_place {
        true => writeln!(
            text,
            "%sb_x = tensor.extract_slice {acc}[{out_offsets}] [{sizes_text}] [{ones_text}] : {region_ty} to {block_ty}"
        ),
        false => writeln!(
            text,
            "%sb_x = tensor.extract_slice {input}[{in_offsets}] [{sizes_text}] [{ones_text}] : {ty} to {block_ty}"
        ),
    };
    let _ = writeln!(
        text,
        "%sb_y = tensor.extract_slice {acc}[{out_offsets}] [{sizes_text}] [{ones_text}] : {region_ty} to {block_ty}"
    );
    let storage = elem.storage();
    let _ = writeln!(text, "%sb_mf = linalg.fill ins({lowest} : {storage}) outs({max} : {stat_ty}) -> {stat_ty}");
    let _ = writeln!(text, "%sb_zf = linalg.fill ins({zero} : {storage}) outs({sum} : {stat_ty}) -> {stat_ty}");
    k.push_lines(&text);
    let block_max = row_maxima(k, "%sb_x", &block_ty, axis, "%sb_mf", &stat_ty)?;
    let exps = shifted_exps(k, "%sb_x", &block_ty, axis, &block_max, &stat_ty, "%sb_y")?;
    let block_sum = row_sums(k, &exps, &block_ty, axis, "%sb_zf", &stat_ty)?;
    let (y, recip) = normalized(k, &exps, &block_ty, &block_sum, &stat_ty, axis)?;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "%sb_put = tensor.insert_slice {y} into {acc}[{out_offsets}] [{sizes_text}] [{ones_text}] : {block_ty} into {region_ty}"
    );
    let mut done = ("%sb_put".to_owned(), block_max, recip);
    for level in (0..looped.len()).rev() {
        let _ = writeln!(text, "scf.yield {}, {}, {} : {carried}\n}}", done.0, done.1, done.2);
        done = (format!("%sb_l{level}#0"), format!("%sb_l{level}#1"), format!("%sb_l{level}#2"));
    }
    if chunks > 1 {
        let offsets: Vec<String> =
            (0..rank).map(|d| if d == first { "%sb_base".to_owned() } else { "0".to_owned() }).collect();
        let _ = writeln!(
            text,
            "scf.forall.in_parallel {{\ntensor.parallel_insert_slice {} into %sb_out[{}] [{}] [{}] : {region_ty} into {ty}\n}}\n}} {{{}}}",
            done.0,
            list(&offsets),
            list(&region_list),
            list(&ones),
            strata_ir::attrs::SECTIONS.0
        );
        done.0 = "%sb".to_owned();
    }
    k.push_lines(&text);
    Ok(done.0)
}

#[cfg(test)]
mod tests {
    use super::block_sizes;
    use crate::kernel::{Elem, TensorTy};

    fn blocks(shape: &[i64], axis: usize) -> Option<Vec<i64>> {
        block_sizes(&TensorTy::new(shape.to_vec(), Elem::new("f32")), axis)
    }

    #[test]
    fn blocks_are_whole_rows_within_l1() {
        // Whisper's attention probabilities: a head at a time, 5 rows of 6 KB.
        assert_eq!(blocks(&[1, 6, 1500, 1500], 3), Some(vec![1, 1, 5, 1500]));
        assert_eq!(blocks(&[4, 128, 1024], 2), Some(vec![1, 8, 1024]));
        // A segmentation head's softmax over 21 classes (axis 1): rows of one image row cut
        // to 256 positions.
        assert_eq!(blocks(&[1, 21, 512, 512], 1), Some(vec![1, 21, 1, 256]));
        // At most 1 MiB: whole.
        assert_eq!(blocks(&[4, 64, 1024], 2), None);
    }
}
