//! `strata-winograd{threads}`: 3 x 3 stride-1 convolutions with many channels run as Winograd
//! F(2x2, 3x3) (host, on tensors, before bufferization).
//!
//! A direct 3 x 3 convolution does 9 multiply-adds per output, input channel and filter, and
//! the register-blocked schedule already runs them at the FMA peak (ResNet-18's 3 x 3
//! convolutions: 64 to 256 channels at 56 x 56 to 14 x 14, as fast as ONNX Runtime's). F(2x2,
//! 3x3) computes each 2 x 2 block of outputs from its 4 x 4 input tile with 16 multiply-adds
//! per channel and filter instead of 36 (2.25x fewer), as 16 matrix products `M[xi] = U[xi] .
//! V[xi]` (`F x C` by `C x tiles`), where `U = G g G^T` is the filter transformed at compile
//! time and `V = B^T d B` the input tile, transformed with additions only; `Y = A^T M A` turns
//! the products back into outputs (Lavin and Gray, "Fast Algorithms for Convolutional Neural
//! Networks", 2016).
//!
//! This pass decides which convolutions take it and writes the transformed filter; the kernel
//! is `strata-vectorize-winograd`'s, after planning. The convolution becomes a `linalg.generic`
//! marked `strata.winograd` (`[band tile rows, scratch slots]`) whose operands are the padded
//! input, the filter, the transformed filter `16 x F/8 x C x 8`, a scratch buffer and the
//! output; its body is the convolution's (the transformed filter times the zero-filled scratch
//! added to each product: the same sums, and operands that canonicalisation keeps), a correct
//! loop nest on its own. The scratch is an ordinary tensor, so the arena planner places it, live
//! only across the convolution: per band of tile rows, the transformed input tiles (`16 x C x
//! tiles`, at most [`V_BYTES`]) and the products of one block of 8 filters, once per thread.
//!
//! Taken: `linalg.conv_2d_nchw_fchw`, f32, unit strides and dilations, a 3 x 3 compile-time
//! filter, even output height and width (whole 2 x 2 blocks; the input is read padded as the
//! convolution reads it), at least [`MIN_CHANNELS`] input channels and filters, filters a
//! multiple of 8, and a band whose tiles fill the vector lanes well enough that the products
//! do at most [`MAX_WORK`] of the direct convolution's multiply-adds. Others keep the direct
//! schedule.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{attrs, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::KernelCache;
use strata_lower::ops::tensor_type;

pub static INFO: PassInfo = PassInfo {
    name: "strata-winograd",
    summary: "Run 3x3 stride-1 convolutions with many channels as Winograd F(2x2, 3x3) (host, on tensors)",
    anchor: "func.func",
    options: &[crate::cpu_schedule::THREADS_OPTION],
    statistics: &[StatisticInfo { name: "convolutions", help: "Convolutions run as Winograd F(2x2, 3x3)" }],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(Winograd { threads: options.int("threads").max(1) })
}

struct Winograd {
    threads: i64,
}

/// Vector lanes the kernel's tiles fill (f32 in a 512-bit register; on narrower machines the
/// vectors are legalised into several).
pub const LANES: i64 = 16;

/// At most this many bytes of transformed input tiles per band (per thread): with the
/// products and the filter blocks they stay in a core's second-level cache.
pub const V_BYTES: i64 = 256 << 10;

/// At least this many input channels and filters: the transforms cost per channel what a
/// filter's products gain, so narrow convolutions gain little.
pub const MIN_CHANNELS: i64 = 32;

/// At most this many bytes of transformed filter (`16 x F x C` floats): every band reads all of
/// it, so it must stay in a core's second-level cache across the bands. ResNet-18's 14 x 14
/// convolutions of 256 channels (4 MiB) ran 1.24x faster than the direct schedule on their own
/// but 1.35x slower inside the model, whose other weights evict the filter from the shared
/// last-level cache between runs: each band then streams it from memory.
pub const MAX_FILTER_BYTES: i64 = 1 << 20;

/// The products' multiply-adds against the direct convolution's, at most (in hundredths):
/// 16 per 4 outputs in whole vectors of tiles is 0.44; a band whose tiles fill few lanes of
/// their last vector does more.
pub const MAX_WORK: i64 = 60;

/// A convolution this pass takes: its shape and the band the kernel works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub n: i64,
    pub c: i64,
    pub f: i64,
    /// The padded input's rows and columns (the output's plus 2).
    pub hp: i64,
    pub wp: i64,
    /// Tile rows (of 2 output rows) in a band.
    pub band: i64,
    /// Scratch slots: threads working on bands at once.
    pub slots: i64,
}

impl Shape {
    /// The shape and band for a convolution of a padded `n x c x hp x wp` input by `f`
    /// filters, `threads` threads; `None` when this pass does not take it.
    pub fn choose(n: i64, c: i64, f: i64, hp: i64, wp: i64, threads: i64) -> Option<Shape> {
        let (h, w) = (hp - 2, wp - 2);
        let small = c >= MIN_CHANNELS && f >= MIN_CHANNELS && 16 * c * f * 4 <= MAX_FILTER_BYTES;
        if !small || f % 8 != 0 || h < 4 || w < 4 || h % 2 != 0 || w % 2 != 0 {
            return None;
        }
        let (th, tw) = (h / 2, w / 2);
        // Of the bands whose transformed tiles fit V_BYTES, the one whose tiles fill most of
        // their vectors, with at least two vectors where one can (a block of one vector of
        // tiles by 8 filters waits on loads: ResNet-18's 28 x 28 convolutions 11% slower than
        // in two), then the shortest (the least scratch; the last band may be shorter).
        let band = (1..=th)
            .filter(|&b| 16 * c * lanes(b * tw) * 4 <= V_BYTES)
            .max_by_key(|&b| (b * tw * 1000 / lanes(b * tw), lanes(b * tw).min(2 * LANES), -b))?;
        let shape = Shape { n, c, f, hp, wp, band, slots: 1 };
        // Products over padded vectors of tiles: 16 per tile against the direct 36 per tile.
        if 16 * shape.lanes() * 100 > MAX_WORK * 36 * band * tw {
            return None;
        }
        Some(Shape { slots: threads.min(shape.bands()).max(1), ..shape })
    }

    /// Bands of tile rows (the last one shorter when the band does not divide them).
    pub fn bands(&self) -> i64 {
        (self.tile_rows() + self.band - 1) / self.band
    }

    pub fn tile_rows(&self) -> i64 {
        (self.hp - 2) / 2
    }

    pub fn tile_columns(&self) -> i64 {
        (self.wp - 2) / 2
    }

    /// Lanes of a band's transformed tiles: its tiles rounded up to whole vectors.
    pub fn lanes(&self) -> i64 {
        lanes(self.band * self.tile_columns())
    }

    /// Floats of one band's products row (one filter, one of the 16 positions): the band's
    /// lanes and one more vector, so a vector of tiles starting in the last row of tiles
    /// reads within it.
    pub fn product_row(&self) -> i64 {
        self.lanes() + LANES
    }

    /// Floats of one slot's transformed tiles, `16 x C x lanes`.
    pub fn tiles_floats(&self) -> i64 {
        16 * self.c * self.lanes()
    }

    /// Floats of one slot: the transformed tiles and the products of 8 filters.
    pub fn slot_floats(&self) -> i64 {
        self.tiles_floats() + 16 * 8 * self.product_row()
    }
}

fn lanes(tiles: i64) -> i64 {
    (tiles + LANES - 1) / LANES * LANES
}

/// `G`, the filter transform of F(2x2, 3x3).
const G: [[f64; 3]; 4] = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]];

/// The filter `F x C x 3 x 3` transformed, `U = G g G^T` per filter and channel, stored as
/// `16 x F/8 x C x 8` (position, block of 8 filters, channel, filter in the block): the
/// kernel's products read a position's 8 filters of one channel together.
pub fn transform_filter(g: &[f32], f: usize, c: usize) -> Vec<f32> {
    let mut u = vec![0.0f32; 16 * f * c];
    for fi in 0..f {
        for ci in 0..c {
            let k = &g[(fi * c + ci) * 9..(fi * c + ci) * 9 + 9];
            for (a, ga) in G.iter().enumerate() {
                for (b, gb) in G.iter().enumerate() {
                    let mut sum = 0.0f64;
                    for (i, gai) in ga.iter().enumerate() {
                        for (j, gbj) in gb.iter().enumerate() {
                            sum += gai * f64::from(k[i * 3 + j]) * gbj;
                        }
                    }
                    let xi = a * 4 + b;
                    u[((xi * (f / 8) + fi / 8) * c + ci) * 8 + fi % 8] = sum as f32;
                }
            }
        }
    }
    u
}

impl Pass for Winograd {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        for raw in collect(&func, |op| op.is("linalg.conv_2d_nchw_fchw")) {
            let op = raw.get();
            let Some((shape, g)) = taken(op, self.threads) else { continue };
            let context = cx.strata().mlir();
            let (w_ty, out_ty) = (
                tensor_type(op.operand(1).expect("a filter").r#type()).expect("checked"),
                tensor_type(op.operand(2).expect("an output").r#type()).expect("checked"),
            );
            let u_ty = w_ty.with_shape(vec![16, shape.f / 8, shape.c, 8]);
            let u = transform_filter(&g, shape.f as usize, shape.c as usize);
            let u = crate::conv_lanes::new_f32_constant(context, op, &u_ty, &u, "winograd_filter");
            let x_ty = op.operand(0).expect("an input").r#type().to_string();
            let text = generic_text(&shape, &x_ty, &w_ty.to_string(), &u_ty.to_string(), &out_ty.to_string());
            let values = [raw.operand(0), raw.operand(1), u, raw.operand(2)];
            // Safety: `op` is replaced once and not used afterwards; the operands are defined
            // before it (the new constant right before it).
            unsafe { kernels.replace_op_with(cx, raw, &values, &text, "Winograd convolution")? };
            cx.bump("convolutions", 1);
        }
        Ok(())
    }
}

/// The shape and filter values of `op` when this pass takes it.
fn taken(op: OperationRef<'_, '_>, threads: i64) -> Option<(Shape, Vec<f32>)> {
    if op.operand_count() != 3 || op.result_count() != 1 {
        return None;
    }
    let ty = |i: usize| tensor_type(op.operand(i).ok()?.r#type()).ok();
    let (x, w, out) = (ty(0)?, ty(1)?, ty(2)?);
    if [&x, &w, &out].iter().any(|t| t.elem.name != "f32" || t.rank() != 4) {
        return None;
    }
    if crate::conv_lanes::int_pair(op, "strides") != [1, 1] || crate::conv_lanes::int_pair(op, "dilations") != [1, 1] {
        return None;
    }
    let [f, c, kh, kw] = [w.shape[0], w.shape[1], w.shape[2], w.shape[3]];
    let [n, xc, hp, wp] = [x.shape[0], x.shape[1], x.shape[2], x.shape[3]];
    if kh != 3 || kw != 3 || xc != c || out.shape != [n, f, hp - 2, wp - 2] {
        return None;
    }
    let shape = Shape::choose(n, c, f, hp, wp, threads)?;
    let constant = strata_ir::rewrite::defining_op(op.operand(1).ok()?)
        .filter(|d| strata_ir::ods::op_name(*d) == "arith.constant")?;
    let values = strata_ir::resource::f32_values(constant.attribute("value").ok()?)?;
    (values.len() as i64 == f * c * 9).then_some((shape, values))
}

/// The replacement: a zero-filled scratch and the marked generic (see the module comment).
fn generic_text(shape: &Shape, x: &str, w: &str, u: &str, out: &str) -> String {
    let scratch = format!("tensor<{}xf32>", shape.slot_floats() * shape.slots);
    let mark = attrs::WINOGRAD.in_dictionary(&[shape.band, shape.slots]);
    format!(
        "module {{
  func.func private @winograd(%x: {x}, %w: {w}, %u: {u}, %init: {out}) -> {out} {{
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : {scratch}
    %scratch = linalg.fill ins(%zero : f32) outs(%empty : {scratch}) -> {scratch}
    %r = linalg.generic {{indexing_maps = [
        affine_map<(n, f, y, x, c, i, j) -> (n, c, y + i, x + j)>,
        affine_map<(n, f, y, x, c, i, j) -> (f, c, i, j)>,
        affine_map<(n, f, y, x, c, i, j) -> (0, 0, 0, 0)>,
        affine_map<(n, f, y, x, c, i, j) -> (0)>,
        affine_map<(n, f, y, x, c, i, j) -> (n, f, y, x)>],
      iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\", \"reduction\", \"reduction\", \"reduction\"]}}
      ins(%x, %w, %u, %scratch : {x}, {w}, {u}, {scratch}) outs(%init : {out}) attrs = {{{mark}}} {{
    ^bb0(%a: f32, %b: f32, %t: f32, %s: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %z = arith.mulf %t, %s : f32
      %q = arith.addf %p, %z : f32
      %sum = arith.addf %acc, %q : f32
      linalg.yield %sum : f32
    }} -> {out}
    return %r : {out}
  }}
}}
"
    )
}

#[cfg(test)]
mod tests {
    use super::{transform_filter, Shape};

    #[test]
    fn bands_fit_the_scratch_and_fill_the_lanes() {
        // ResNet-18's stages: 56 x 56 x 64, 28 x 28 x 128, 14 x 14 x 256.
        let s = Shape::choose(1, 64, 64, 58, 58, 1).unwrap();
        assert_eq!((s.band, s.lanes(), s.slots), (1, 32, 1));
        let s = Shape::choose(1, 128, 128, 30, 30, 2).unwrap();
        assert_eq!((s.band, s.lanes(), s.slots), (2, 32, 2));
        // 7 tile rows in bands of 4 (28 of 32 lanes), the last band 3 rows.
        let s = Shape::choose(1, 64, 128, 16, 16, 2).unwrap();
        assert_eq!((s.band, s.lanes(), s.slots, s.bands()), (4, 32, 2, 2));
        // A transformed filter beyond the second-level cache.
        assert_eq!(Shape::choose(1, 256, 256, 16, 16, 1), None);
        // 7 x 7: odd; few channels; filters not a multiple of 8.
        assert_eq!(Shape::choose(1, 512, 512, 9, 9, 1), None);
        assert_eq!(Shape::choose(1, 16, 64, 58, 58, 1), None);
        assert_eq!(Shape::choose(1, 64, 60, 58, 58, 1), None);
    }

    #[test]
    fn the_filter_transform_is_g_g_gt() {
        // One filter, one channel: the centre tap alone gives U[a][b] = G[a][1] G[b][1].
        let mut g = vec![0.0f32; 8 * 9];
        g[4] = 1.0;
        let u = transform_filter(&g, 8, 1);
        let column = [0.0, 0.5, -0.5, 0.0];
        for a in 0..4 {
            for b in 0..4 {
                assert_eq!(u[(a * 4 + b) * 8], (column[a] * column[b]) as f32);
            }
        }
    }
}
