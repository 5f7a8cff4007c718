//! Large softmaxes and normalisations block of rows by block of rows (host).
//!
//! A softmax is five passes over its input's shape (the maximum, the exponentials written
//! over the result, their sum, a reciprocal per row and the products); a normalisation three
//! (the mean, the squared deviations, the normalised values). On a tensor that fits a core's
//! caches that is fine; on a larger one every pass streams the whole tensor from memory: a
//! long sequence's attention probabilities (Whisper's encoder: 6 heads of 1500 x 1500, 54 MB)
//! made 5 passes where one read and one write would do, 16.9 ms against ONNX Runtime's 5.9
//! (which runs the passes row by row); an instance normalisation of 32 planes of 160 x 160
//! (3.3 MB) read its input three times from L3, 1.37x ONNX Runtime's time on one thread.
//!
//! A softmax over an axis other than the last is blocked from a smaller size,
//! [`CHANNEL_SOFTMAX_BYTES`], where its blocks hold at least 8 KiB
//! ([`strided_softmax_blocks`]): its rows are strided, each pass a walk over the whole
//! tensor, and the reductions read and write their statistics' buffer at every step. YOLOv8's box decoding
//! (a softmax over the 16 bins of `[1, 16, 4, 2100]`, 538 KB) ran 0.091 ms on one thread in
//! five passes from L2 and 0.074 in blocks of 27 KB; on two threads, each pass split along
//! another loop and a fork apiece, 0.185 ms against 0.044 (its blocks' chunks one fork).
//!
//! Above [`BLOCKED_BYTES`] the same generics run on blocks of whole rows (every reduced
//! dimension kept whole; the others cut from the outermost in, by divisors so every block is
//! whole) of at most [`BLOCK_BYTES`] where a row is that small, else of one row:
//! `scf.for`s over the blocks carry the result and the block's statistics (filled again for
//! each block: no allocation in the loops), the result is written straight into the
//! result's slice (destination-passing: no buffer of the input's size) and a block's passes
//! read it from L1 or L2. Each row's values are the same operations in the same order as
//! unblocked: the same bits.
//!
//! With `sections` (a host compiled for several threads) the blocks along the first cut
//! dimension are split into at most [`MAX_CHUNKS`] chunks of an `scf.forall` marked
//! `strata.sections` (its generics are kernels of their own for the host's vectorisers, as a
//! recurrence's directions), each with its own statistics (planned as one copy per chunk,
//! `strata_plan_mlir::analyze`).

use crate::kernel::{Kernel, TensorTy};
use std::fmt::Write;
use strata_ir::Error;

/// Bytes of input above which a softmax or normalisation runs block by block: half of a
/// core's L2, beyond which the passes' reads come from L3 or memory.
pub const BLOCKED_BYTES: i64 = 1 << 20;

/// The most input bytes of a block of rows: a softmax's exponentials stay in a 48 KiB L1 for
/// the sum and the products.
pub const BLOCK_BYTES: i64 = 32 << 10;

/// Bytes of input above which a softmax over an axis other than the last runs block by block
/// (two blocks of [`BLOCK_BYTES`]): see the module's documentation.
pub const CHANNEL_SOFTMAX_BYTES: i64 = 2 * BLOCK_BYTES;

/// The most chunks of blocks an `scf.forall` splits across threads: each chunk's statistics
/// are a private copy, which buffer planning takes for at most 16 iterations.
pub const MAX_CHUNKS: i64 = 16;

/// The shape of the blocks of a reduction over the dimensions where `reduced` holds, or
/// `None` where it runs whole (at most `least` bytes, [`BLOCKED_BYTES`] or
/// [`CHANNEL_SOFTMAX_BYTES`], or no dimension to cut).
pub fn block_sizes(ty: &TensorTy, reduced: &[bool], least: i64) -> Option<Vec<i64>> {
    let bytes = element_bytes(ty);
    if ty.numel() * bytes <= least {
        return None;
    }
    let mut sizes = ty.shape.clone();
    for d in (0..ty.rank()).filter(|&d| !reduced[d]) {
        let current = sizes.iter().product::<i64>() * bytes;
        if current <= BLOCK_BYTES {
            break;
        }
        let other = current / sizes[d];
        sizes[d] = (1..=sizes[d]).rev().find(|&b| ty.shape[d] % b == 0 && other * b <= BLOCK_BYTES).unwrap_or(1);
    }
    (sizes != ty.shape).then_some(sizes)
}

/// The blocks of a softmax over an axis other than the last (`reduced`): [`block_sizes`] from
/// [`CHANNEL_SOFTMAX_BYTES`], or `None` where they would hold under a quarter of
/// [`BLOCK_BYTES`] (an extent with no divisor near the block's width, 2099 positions cut one by
/// one: each block's loops and five kernels would cost more than the passes save).
pub fn strided_softmax_blocks(ty: &TensorTy, reduced: &[bool]) -> Option<Vec<i64>> {
    let sizes = block_sizes(ty, reduced, CHANNEL_SOFTMAX_BYTES)?;
    (sizes.iter().product::<i64>() * element_bytes(ty) >= BLOCK_BYTES / 4).then_some(sizes)
}

/// Bytes of one element of `ty` (at least one: sub-byte types count whole bytes).
fn element_bytes(ty: &TensorTy) -> i64 {
    i64::from(ty.elem.bits() / 8).max(1)
}

/// One block of a [`blocked`] kernel, as its body sees it.
pub struct Block {
    /// The block of the input, and its type.
    pub x: String,
    pub ty: TensorTy,
    /// The block of the result: the destination of the body's last generic.
    pub y: String,
    /// The statistics' type: the block's kept dimensions.
    pub stat_ty: TensorTy,
    /// The statistics, filled with their identities.
    pub stats: Vec<String>,
    /// Where the block starts in the whole input, per dimension (index values).
    pub offsets: Vec<String>,
}

/// The kernel's argument 0 (type `ty`) reduced over the dimensions where `reduced` holds,
/// block by block in blocks of `sizes` ([`block_sizes`]): `body` computes a block's result
/// into [`Block::y`] and returns it with its statistics (values made from [`Block::stats`],
/// one per identity in `identities`, in place). `sections` splits the blocks across threads;
/// `in_place` writes the result over the argument (its last reader: [`crate::ops::dies_at`]).
pub fn blocked(
    k: &mut Kernel,
    ty: &TensorTy,
    (reduced, sizes): (&[bool], &[i64]),
    (sections, in_place): (bool, bool),
    identities: &[String],
    body: impl FnOnce(&mut Kernel, &Block) -> Result<(String, Vec<String>), Error>,
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
    let stat_ty = ty.with_shape((0..rank).filter(|&d| !reduced[d]).map(|d| sizes[d]).collect());
    let c0 = k.emit("arith.constant 0 : index");
    let fills: Vec<String> = identities.iter().map(|identity| k.stored_constant(identity, &elem)).collect();
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
    // A chunk's part of the result: from `%sb_base` along the first cut dimension.
    let chunk_offsets: Vec<String> =
        (0..rank).map(|d| if d == first { "%sb_base".to_owned() } else { "0".to_owned() }).collect();
    let region_box = format!("{}] [{}] [{}", list(&chunk_offsets), list(&region_list), list(&ones));
    let mut text = String::new();
    let (mut acc, base) = if chunks > 1 {
        let span = k.emit(format_args!("arith.constant {} : index", region[first]));
        let _ = writeln!(text, "%sb = scf.forall (%sb_c) in ({chunks}) shared_outs(%sb_out = {result}) -> ({ty}) {{");
        let _ = writeln!(text, "%sb_base = arith.muli %sb_c, {span} : index");
        let _ = writeln!(text, "%sb_region = tensor.extract_slice %sb_out[{region_box}] : {ty} to {region_ty}");
        ("%sb_region".to_owned(), Some("%sb_base"))
    } else {
        (result.clone(), None)
    };
    // Each chunk's statistics, made again for each of its blocks.
    let mut stats: Vec<String> = (0..fills.len()).map(|s| format!("%sb_s{s}")).collect();
    for stat in &stats {
        let _ = writeln!(text, "{stat} = tensor.empty() : {stat_ty}");
    }
    let count = 1 + stats.len();
    let carried: Vec<String> =
        std::iter::once(region_ty.to_string()).chain(stats.iter().map(|_| stat_ty.to_string())).collect();
    let carried = list(&carried);
    for (level, (&d, (bound, step))) in looped.iter().zip(&bounds).enumerate() {
        let mut args = vec![format!("%sb_a{level} = {acc}")];
        args.extend(stats.iter().enumerate().map(|(s, stat)| format!("%sb_t{level}_{s} = {stat}")));
        let _ = writeln!(
            text,
            "%sb_l{level}:{count} = scf.for %sb_i{d} = {c0} to {bound} step {step} iter_args({}) -> ({carried}) {{",
            list(&args)
        );
        acc = format!("%sb_a{level}");
        stats = (0..stats.len()).map(|s| format!("%sb_t{level}_{s}")).collect();
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
    let absolute: Vec<String> = offsets(true);
    let (in_offsets, out_offsets) = (list(&absolute), list(&offsets(false)));
    let (sizes_text, ones_text) = (list(&size_list), list(&ones));
    // In place, a block is read from the carried result: the blocks not yet computed still
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
    let filled: Vec<String> = (0..stats.len()).map(|s| format!("%sb_f{s}")).collect();
    for ((name, fill), stat) in filled.iter().zip(&fills).zip(&stats) {
        let _ = writeln!(text, "{name} = linalg.fill ins({fill} : {storage}) outs({stat} : {stat_ty}) -> {stat_ty}");
    }
    k.push_lines(&text);
    let block = Block {
        x: "%sb_x".to_owned(),
        ty: block_ty.clone(),
        y: "%sb_y".to_owned(),
        stat_ty: stat_ty.clone(),
        stats: filled,
        offsets: absolute,
    };
    let (y, block_stats) = body(k, &block)?;
    if block_stats.len() != stats.len() {
        return Err(
            format!("a blocked kernel's body returned {} statistics for {}", block_stats.len(), stats.len()).into()
        );
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "%sb_put = tensor.insert_slice {y} into {acc}[{out_offsets}] [{sizes_text}] [{ones_text}] : {block_ty} into {region_ty}"
    );
    let mut done: Vec<String> = std::iter::once("%sb_put".to_owned()).chain(block_stats).collect();
    for level in (0..looped.len()).rev() {
        let _ = writeln!(text, "scf.yield {} : {carried}\n}}", list(&done));
        done = (0..count).map(|v| format!("%sb_l{level}#{v}")).collect();
    }
    let mut value = done.swap_remove(0);
    if chunks > 1 {
        let _ = writeln!(
            text,
            "scf.forall.in_parallel {{\ntensor.parallel_insert_slice {value} into %sb_out[{region_box}] : {region_ty} into {ty}\n}}\n}} {{{}}}",
            strata_ir::attrs::SECTIONS.0
        );
        value = "%sb".to_owned();
    }
    k.push_lines(&text);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::{block_sizes, strided_softmax_blocks, BLOCKED_BYTES};
    use crate::kernel::{Elem, TensorTy};

    fn blocks(shape: &[i64], axis: usize) -> Option<Vec<i64>> {
        let reduced: Vec<bool> = (0..shape.len()).map(|d| d == axis).collect();
        block_sizes(&TensorTy::new(shape.to_vec(), Elem::new("f32")), &reduced, BLOCKED_BYTES)
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

    #[test]
    fn channel_softmaxes_block_from_two_blocks() {
        let f32 = |shape: &[i64]| TensorTy::new(shape.to_vec(), Elem::new("f32"));
        // YOLOv8's box decoding, 538 KB over its 16 bins: a fifth of a row of 2100 a block.
        let bins = [false, true, false, false];
        assert_eq!(strided_softmax_blocks(&f32(&[1, 16, 4, 2100]), &bins), Some(vec![1, 16, 1, 420]));
        // Two blocks' worth or less: whole.
        assert_eq!(strided_softmax_blocks(&f32(&[1, 16, 1, 1024]), &bins), None);
        // A prime row would be cut into single positions (64 B blocks): whole.
        assert_eq!(strided_softmax_blocks(&f32(&[1, 16, 4, 2099]), &bins), None);
    }

    #[test]
    fn normalisation_blocks_keep_reduced_dimensions_whole() {
        let sizes = |shape: &[i64], from: usize| {
            let reduced: Vec<bool> = (0..shape.len()).map(|d| d >= from).collect();
            block_sizes(&TensorTy::new(shape.to_vec(), Elem::new("f32")), &reduced, BLOCKED_BYTES)
        };
        // An instance normalisation of 32 planes of 160 x 160: a plane (100 KB) at a time.
        assert_eq!(sizes(&[1, 32, 160, 160], 2), Some(vec![1, 1, 160, 160]));
        // A layer normalisation of 1500 rows of 384: 21 rows (32 KB) at a time, by divisors.
        assert_eq!(sizes(&[1, 1500, 384], 2), Some(vec![1, 20, 384]));
        assert_eq!(sizes(&[64, 56, 56], 1), None);
    }
}
