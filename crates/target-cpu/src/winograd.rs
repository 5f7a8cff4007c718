//! `strata-winograd{threads}`: 3 x 3 stride-1 convolutions with many channels run as Winograd
//! F(4x4, 3x3) or F(2x2, 3x3) (host, on tensors, before bufferization).
//!
//! A direct 3 x 3 convolution does 9 multiply-adds per output, input channel and filter, and
//! the register-blocked schedule already runs them at the FMA peak (ResNet-18's 3 x 3
//! convolutions: 64 to 256 channels at 56 x 56 to 14 x 14, as fast as ONNX Runtime's).
//! F(m x m, 3x3) computes each m x m block of outputs from its (m+2) x (m+2) input tile with
//! (m+2)^2 multiply-adds per channel and filter instead of 9 m^2 (F(2x2, 3x3): 16 for 36,
//! 2.25x fewer; F(4x4, 3x3): 36 for 144, 4x fewer), as (m+2)^2 matrix products `M[xi] = U[xi]
//! . V[xi]` (`F x C` by `C x tiles`), where `U = G g G^T` is the filter transformed at compile
//! time and `V = B^T d B` the input tile (additions and small integer multiples); `Y = A^T M
//! A` turns the products back into outputs (Lavin and Gray, "Fast Algorithms for
//! Convolutional Neural Networks", 2016). F(4x4, 3x3)'s larger coefficients cost accuracy:
//! errors about 1e-5 of the outputs' magnitude in f32 against F(2x2, 3x3)'s 1e-6 (both within
//! the 1e-4 the zoo's references are checked to); `--disable winograd` keeps the direct sums.
//!
//! This pass decides which convolutions take it and writes the transformed filter; the kernel
//! is `strata-vectorize-winograd`'s, after planning. The convolution becomes a `linalg.generic`
//! marked `strata.winograd` (`[m, band tile rows, scratch slots]`) whose operands are the
//! padded input, the filter, the transformed filter `positions x F/8 x C x 8`, a scratch buffer
//! and the output; its body is the convolution's (the transformed filter times the zero-filled
//! scratch added to each product: the same sums, and operands that canonicalisation keeps), a
//! correct loop nest on its own. The scratch is an ordinary tensor, so the arena planner places
//! it, live only across the convolution: per band of tile rows (on a map whose one tile row
//! is more than [`V_BYTES`] of transformed tiles, per run of whole vectors of one tile row's
//! tiles: ESPCN's 224 x 224 x 64 convolution, 56 tiles a row in runs of 32, 20 -> 12 ms), the
//! transformed input tiles (`positions x C x tiles`, at most [`V_BYTES`]) and the products of
//! one block of 8 filters, once per thread. The scratch may raise the function's estimated
//! memory peak by at most an eighth per thread ([`PEAK_ALLOWANCE`]): the convolution takes
//! fewer slots, a shorter band, or stays direct. Whether it is taken, and in which tile size, is what one thread's budget allows on
//! any thread count: the results do not depend on the thread count (the band height, which
//! does not change a result, is chosen for the threads: `span`).
//!
//! Taken: `linalg.conv_2d_nchw_fchw`, f32, unit strides and dilations, a 3 x 3 compile-time
//! filter, an output of whole m x m tiles (the input is read padded as the convolution reads
//! it) of at least [`MIN_TILES`] tiles, at least [`MIN_CHANNELS`] input channels and filters,
//! filters a multiple of 8, a transformed filter of at most [`MAX_FILTER_BYTES`], and a band
//! whose tiles fill the vector lanes well enough that the products do at most [`MAX_WORK`] of
//! the direct convolution's multiply-adds; F(4x4, 3x3) where it is taken, else F(2x2, 3x3).
//! Others keep the direct schedule.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use std::collections::BTreeMap;
use strata_ir::rewrite::collect;
use strata_ir::{attrs, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::kernel::{KernelCache, TensorTy};
use strata_lower::ops::tensor_type;

pub static INFO: PassInfo = PassInfo {
    name: "strata-winograd",
    summary:
        "Run 3x3 stride-1 convolutions with many channels as Winograd F(4x4, 3x3) or F(2x2, 3x3) (host, on tensors)",
    anchor: "func.func",
    options: &[crate::cpu_schedule::THREADS_OPTION],
    statistics: &[StatisticInfo {
        name: "convolutions",
        help: "Convolutions run as Winograd F(4x4, 3x3) or F(2x2, 3x3)",
    }],
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
pub const V_BYTES: i64 = 320 << 10;

/// At least this many input channels and filters: the transforms cost per channel what a
/// filter's products gain, so narrow convolutions gain little.
pub const MIN_CHANNELS: i64 = 32;

/// At most this many bytes of transformed filter (`positions x F x C` floats): every band reads
/// all of it, so it must stay in a core's second-level cache across the bands. ResNet-18's
/// 14 x 14 convolutions of 256 channels (4 MiB in F(2x2, 3x3)) ran 1.24x faster than the
/// direct schedule on their own but 1.35x slower inside the model, whose other weights evict
/// the filter from the shared last-level cache between runs: each band then streams it from
/// memory. (A whole-image kernel reading it once ran them 0.92 -> 0.78 ms, but its 2.3 MB
/// scratch and ResNet-50's 11 MB more of transformed filters took the compiler's peak memory
/// 505 -> 533 MB, past #19's 504: dropped, see docs/notes.md.)
pub const MAX_FILTER_BYTES: i64 = 1 << 20;

/// The scratch may raise the function's memory (estimated before bufferization,
/// `strata_plan_mlir::conv_borders::pressure`) above its peak by at most this fraction of the
/// peak (1/8): ResNet-18's peak, its first stage, is where its 56 x 56 convolutions run.
/// Where the budget holds no scratch, the convolution stays direct: the CRNN's 64-channel
/// convolutions on small maps would have doubled its arena.
pub const PEAK_ALLOWANCE: u64 = 8;

/// At least this many output tiles (two vectors of them) in a tile size: with fewer, the
/// transforms, the scratch and the filter streamed per band cost more than the products save.
/// Measured in a YOLOv8n-style detector at 320 x 320 (one thread, per-kernel minima of
/// alternating runs): F(4x4, 3x3) over 20 x 20 x 64 (25 tiles) 0.19 ms against the direct
/// schedule's 0.15 and F(2x2, 3x3)'s (100 tiles) 0.13, now taken instead; F(2x2, 3x3) over
/// 10 x 10 x 128 (25 tiles) 0.17-0.25 against the direct 0.13-0.14, now kept direct; the
/// model 12.2 -> 11.2 ms. A U-Net's 12 x 12 x 128 in F(2x2, 3x3) (36 tiles) stays: 0.175 ms
/// against the direct 0.28.
pub const MIN_TILES: i64 = 32;

/// The products' multiply-adds against the direct convolution's, at most (in hundredths):
/// 16 per 4 outputs (F(2x2, 3x3)) in whole vectors of tiles is 0.44, 36 per 16 (F(4x4, 3x3))
/// 0.25; a band whose tiles fill few lanes of their last vector does more.
pub const MAX_WORK: i64 = 60;

/// A convolution this pass takes: its shape, the tiles and the band the kernel works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub n: i64,
    pub c: i64,
    pub f: i64,
    /// The padded input's rows and columns (the output's plus 2).
    pub hp: i64,
    pub wp: i64,
    /// Output tile side: F(m x m, 3 x 3), 2 or 4.
    pub m: i64,
    /// Tile rows (of `m` output rows) in a band.
    pub band: i64,
    /// Scratch slots: threads working on bands at once.
    pub slots: i64,
    /// Threads that split each band's phases (channels, filter blocks), sharing its
    /// transformed tiles, each with its own products: where the budget holds one slot, not one
    /// per thread (1: none).
    pub split: i64,
    /// Tile columns in a band: all of them, or, where one tile row's transformed tiles exceed
    /// [`V_BYTES`], a run of whole vectors of them (a band is then one tile row's run, the
    /// last run of each row shorter).
    pub chunk: i64,
}

impl Shape {
    /// The shape, tiles and band for a convolution of a padded `n x c x hp x wp` input by `f`
    /// filters, `threads` threads; `None` when this pass does not take it. F(4x4, 3x3) where
    /// its transformed filter fits [`MAX_FILTER_BYTES`] and the output is whole 4 x 4 tiles,
    /// else F(2x2, 3x3).
    pub fn choose(n: i64, c: i64, f: i64, hp: i64, wp: i64, threads: i64, budget: i64) -> Option<Shape> {
        let (h, w) = (hp - 2, wp - 2);
        if c < MIN_CHANNELS || f < MIN_CHANNELS || f % 8 != 0 || h < 4 || w < 4 {
            return None;
        }
        [4, 2].into_iter().find_map(|m| {
            let positions = (m + 2) * (m + 2);
            if h % m != 0 || w % m != 0 {
                return None;
            }
            if positions * c * f * 4 > MAX_FILTER_BYTES {
                return None;
            }
            let (th, tw) = (h / m, w / m);
            if th * tw < MIN_TILES {
                return None;
            }
            // The bands whose transformed tiles fit V_BYTES, best first: the least time the
            // threads take over every band ([`span`]), then the tiles filling most of their
            // vectors, with at least two vectors where one can, then the shortest (the least
            // scratch; the last band may be shorter).
            let mut bands: Vec<i64> = (1..=th).filter(|&b| positions * c * lanes(b * tw) * 4 <= V_BYTES).collect();
            bands.sort_by_key(|&b| {
                let fill = b * tw * 1000 / lanes(b * tw);
                (span(th, tw, b, threads), std::cmp::Reverse((fill, lanes(b * tw).min(2 * LANES))), b)
            });
            // A wide map's tile row alone over V_BYTES (an ESPCN's 224 x 224 x 64: 56 tiles,
            // 590 KB in F(4x4, 3x3)): bands of one tile row's runs of whole vectors of tiles, the
            // most that fit.
            let most = V_BYTES / (positions * c * 4) / LANES * LANES;
            let chunk = if bands.is_empty() && most >= LANES && most < tw {
                bands.push(1);
                most
            } else {
                tw
            };
            let shape = Shape { n, c, f, hp, wp, m, band: 1, slots: 1, split: 1, chunk };
            // In order of preference: a slot for every thread in the first band whose scratch the
            // budget holds so (a shorter band before a split one: ResNet-18's 56 x 56
            // convolutions ran 14% faster on two threads in a slot each than splitting bands of
            // the same tile row), else one band the threads split (they ran no faster than on
            // one thread with one slot). One of the two fits wherever one thread's slot fits
            // its share of the budget (below), which is the condition to be taken at all.
            let fits = |s: &Shape| s.scratch_floats() * 4 <= budget;
            let shapes: Vec<Shape> = bands
                .into_iter()
                .map(|band| Shape { band, ..shape })
                // Products over padded vectors of tiles against the direct 9 per output.
                .filter(|s| positions * s.lanes() * s.chunks() * 100 <= MAX_WORK * 9 * m * m * s.band * tw)
                .collect();
            // Taken, and in this tile size, only where one thread would take it (its budget, one
            // slot): the results then do not depend on the thread count (the CRNN took F(2x2,
            // 3x3) for one convolution on two threads and the direct one on one).
            let single = |s: &Shape| Shape { slots: 1, split: 1, ..*s }.scratch_floats() * 4 <= budget / threads.max(1);
            if !shapes.iter().any(single) {
                return None;
            }
            let slotted = |s: &Shape| Shape { slots: threads.min(s.bands()).max(1), ..*s };
            shapes
                .iter()
                .map(slotted)
                .find(|s| s.slots == threads && fits(s))
                .or_else(|| shapes.iter().map(|s| Shape { split: threads, ..*s }).find(|s| threads > 1 && fits(s)))
        })
    }

    /// The transformed tile's side (`m + 2`).
    pub fn alpha(&self) -> i64 {
        self.m + 2
    }

    /// Positions of a transformed tile, `(m + 2)^2`: the products per filter block.
    pub fn positions(&self) -> i64 {
        self.alpha() * self.alpha()
    }

    /// Bands of tile rows (the last one shorter when the band does not divide them), times the
    /// runs of tile columns of each.
    pub fn bands(&self) -> i64 {
        (self.tile_rows() + self.band - 1) / self.band * self.chunks()
    }

    /// Runs of [`Shape::chunk`] tile columns a tile row takes (1: whole rows).
    pub fn chunks(&self) -> i64 {
        (self.tile_columns() + self.chunk - 1) / self.chunk
    }

    pub fn tile_rows(&self) -> i64 {
        (self.hp - 2) / self.m
    }

    pub fn tile_columns(&self) -> i64 {
        (self.wp - 2) / self.m
    }

    /// Lanes of a band's transformed tiles: its tiles rounded up to whole vectors.
    pub fn lanes(&self) -> i64 {
        lanes(self.band * self.chunk)
    }

    /// Floats of one band's products row (one filter, one position): the band's lanes and one
    /// more vector, so a vector of tiles starting in the last row of tiles reads within it.
    pub fn product_row(&self) -> i64 {
        self.lanes() + LANES
    }

    /// Floats of one slot's transformed tiles, `positions x C x lanes`.
    pub fn tiles_floats(&self) -> i64 {
        self.positions() * self.c * self.lanes()
    }

    /// Floats of one slot: the transformed tiles and the products of a block of 8 filters.
    pub fn slot_floats(&self) -> i64 {
        self.tiles_floats() + self.positions() * 8 * self.product_row()
    }

    /// Floats of the scratch: a slot per thread; with `split`, one band's tiles and the
    /// products of each thread.
    pub fn scratch_floats(&self) -> i64 {
        if self.split > 1 {
            self.tiles_floats() + self.split * self.positions() * 8 * self.product_row()
        } else {
            self.slot_floats() * self.slots
        }
    }
}

/// What the threads' longest share of a convolution's products costs with bands of `band` of
/// its `rows` x `columns` tiles, in vector lanes times the threads, weighted: every band works
/// on its whole lanes (the last, shorter band too: its lanes past the tiles are zero), `threads`
/// slots take as many bands each and the threads split each band left over; with fewer bands
/// than threads one thread's time (a band the threads split ran no faster). A band of one
/// vector costs 12% more (a block of one vector of tiles by 8 filters waits on loads:
/// ResNet-18's 28 x 28 convolutions ran 11% slower than in two). The last band's waste and the
/// threads' balance used to be left out, so a U-Net's 24 x 24 convolution took bands of 5 of
/// its 6 tile rows, the second band a whole band's work for one row, and two threads ran it no
/// faster than one.
fn span(rows: i64, columns: i64, band: i64, threads: i64) -> i64 {
    let (count, width, t) = ((rows + band - 1) / band, lanes(band * columns), threads.max(1));
    let per_thread_times_t = if count >= t { count / t * width * t + count % t * width } else { count * width * t };
    per_thread_times_t * if width < 2 * LANES { 112 } else { 100 }
}

fn lanes(tiles: i64) -> i64 {
    (tiles + LANES - 1) / LANES * LANES
}

/// A small matrix, row by row.
pub type Matrix = Vec<Vec<f64>>;

/// F(m x m, 3 x 3)'s transforms (Lavin and Gray; interpolation points 0, 1, -1 and, for m = 4,
/// 2, -2, and infinity): `G` (filter, `(m+2) x 3`), `B^T` (input, `(m+2) x (m+2)`) and `A^T`
/// (output, `m x (m+2)`), row by row.
pub fn matrices(m: i64) -> (Matrix, Matrix, Matrix) {
    let rows = |rows: &[&[f64]]| rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>();
    if m == 2 {
        (
            rows(&[&[1.0, 0.0, 0.0], &[0.5, 0.5, 0.5], &[0.5, -0.5, 0.5], &[0.0, 0.0, 1.0]]),
            rows(&[&[1.0, 0.0, -1.0, 0.0], &[0.0, 1.0, 1.0, 0.0], &[0.0, -1.0, 1.0, 0.0], &[0.0, 1.0, 0.0, -1.0]]),
            rows(&[&[1.0, 1.0, 1.0, 0.0], &[0.0, 1.0, -1.0, -1.0]]),
        )
    } else {
        let (sixth, twelfth, quarter, twentyfourth) = (1.0 / 6.0, 1.0 / 12.0, 0.25, 1.0 / 24.0);
        (
            rows(&[
                &[quarter, 0.0, 0.0],
                &[-sixth, -sixth, -sixth],
                &[-sixth, sixth, -sixth],
                &[twentyfourth, twelfth, sixth],
                &[twentyfourth, -twelfth, sixth],
                &[0.0, 0.0, 1.0],
            ]),
            rows(&[
                &[4.0, 0.0, -5.0, 0.0, 1.0, 0.0],
                &[0.0, -4.0, -4.0, 1.0, 1.0, 0.0],
                &[0.0, 4.0, -4.0, -1.0, 1.0, 0.0],
                &[0.0, -2.0, -1.0, 2.0, 1.0, 0.0],
                &[0.0, 2.0, -1.0, -2.0, 1.0, 0.0],
                &[0.0, 4.0, 0.0, -5.0, 0.0, 1.0],
            ]),
            rows(&[
                &[1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
                &[0.0, 1.0, -1.0, 2.0, -2.0, 0.0],
                &[0.0, 1.0, 1.0, 4.0, 4.0, 0.0],
                &[0.0, 1.0, -1.0, 8.0, -8.0, 1.0],
            ]),
        )
    }
}

/// The filter `F x C x 3 x 3` transformed, `U = G g G^T` per filter and channel, stored as
/// `positions x F/8 x C x 8` (position, block of 8 filters, channel, filter in the block): the
/// kernel's products read a position's 8 filters of one channel together.
pub fn transform_filter(g: &[f32], f: usize, c: usize, m: i64) -> Vec<f32> {
    let (gm, _, _) = matrices(m);
    let alpha = gm.len();
    let mut u = vec![0.0f32; alpha * alpha * f * c];
    for fi in 0..f {
        for ci in 0..c {
            let k = &g[(fi * c + ci) * 9..(fi * c + ci) * 9 + 9];
            for (a, ga) in gm.iter().enumerate() {
                for (b, gb) in gm.iter().enumerate() {
                    let mut sum = 0.0f64;
                    for (i, gai) in ga.iter().enumerate() {
                        for (j, gbj) in gb.iter().enumerate() {
                            sum += gai * f64::from(k[i * 3 + j]) * gbj;
                        }
                    }
                    let xi = a * alpha + b;
                    u[((xi * (f / 8) + fi / 8) * c + ci) * 8 + fi % 8] = sum as f32;
                }
            }
        }
    }
    u
}

impl Pass for Winograd {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let Some(body) = strata_ir::Op::of(&func).body(0) else { return Ok(()) };
        // The function's memory by op (before bufferization), for each convolution's budget.
        let (ops, bytes) = strata_plan_mlir::conv_borders::pressure(body);
        let peak = bytes.iter().copied().max().unwrap_or(0);
        let mut kernels = KernelCache::default();
        // The transformed filters made so far, by tile side and filter constant: convolutions
        // sharing a filter share its transformed copy.
        let mut transformed: BTreeMap<i64, BTreeMap<usize, Val>> = BTreeMap::new();
        for raw in collect(&func, |op| op.is("linalg.conv_2d_nchw_fchw")) {
            let op = raw.get();
            // Top-level convolutions only: the estimate is the function body's.
            let Some(at) = ops.iter().position(|&o| o == raw) else { continue };
            // Within the estimated headroom under the peak plus an eighth, and never more than an
            // eighth of the peak, per thread: the estimate counts what the plan later keeps live
            // only roughly (ResNet-18's arena grew 37% on the headroom alone). (Per thread: on two
            // threads ResNet-18's 56 x 56 convolutions ran 14% faster in a slot each than
            // splitting one slot's bands, for 5.5% more arena.)
            let headroom = (peak + peak / PEAK_ALLOWANCE).saturating_sub(bytes[at]);
            let budget = i64::try_from(headroom.min(peak / PEAK_ALLOWANCE)).unwrap_or(0) * self.threads;
            let Some(Taken { shape, constant, w_ty, out_ty }) = taken(op, self.threads, budget) else { continue };
            let u_ty = w_ty.with_shape(vec![shape.positions(), shape.f / 8, shape.c, 8]);
            let memo = transformed.entry(shape.m).or_default();
            let (f, c) = (shape.f as usize, shape.c as usize);
            let Some(u) = crate::conv_lanes::compile_time_constant(
                memo,
                cx.strata().mlir(),
                op,
                constant,
                &u_ty,
                "winograd_filter",
                |g| (g.len() == f * c * 9).then(|| transform_filter(g, f, c, shape.m)),
            ) else {
                continue;
            };
            let x_ty = op.operand(0).expect("an input").r#type().to_string();
            let text = generic_text(&shape, &x_ty, &w_ty.to_string(), &u_ty.to_string(), &out_ty);
            let values = [raw.operand(0), raw.operand(1), u, raw.operand(2)];
            // Safety: `op` is replaced once and not used afterwards; the operands are defined
            // before it (the transformed filter right before it or a convolution before it).
            unsafe { kernels.replace_op_with(cx, raw, &values, &text, "Winograd convolution")? };
            cx.bump("convolutions", 1);
        }
        Ok(())
    }
}

/// A convolution this pass takes: its shape, its filter constant and its filter and output
/// types.
struct Taken<'c, 'a> {
    shape: Shape,
    constant: OperationRef<'c, 'a>,
    w_ty: TensorTy,
    out_ty: TensorTy,
}

/// The convolution `op` when this pass takes it.
fn taken<'c, 'a>(op: OperationRef<'c, 'a>, threads: i64, budget: i64) -> Option<Taken<'c, 'a>> {
    if op.operand_count() != 3 || op.result_count() != 1 {
        return None;
    }
    let ty = |i: usize| tensor_type(op.operand(i).ok()?.r#type()).ok();
    let (x, w_ty, out_ty) = (ty(0)?, ty(1)?, ty(2)?);
    if [&x, &w_ty, &out_ty].iter().any(|t| t.elem.name != "f32" || t.rank() != 4) {
        return None;
    }
    if crate::conv_lanes::int_pair(op, "strides") != [1, 1] || crate::conv_lanes::int_pair(op, "dilations") != [1, 1] {
        return None;
    }
    let [f, c, kh, kw] = [w_ty.shape[0], w_ty.shape[1], w_ty.shape[2], w_ty.shape[3]];
    let [n, xc, hp, wp] = [x.shape[0], x.shape[1], x.shape[2], x.shape[3]];
    if kh != 3 || kw != 3 || xc != c || out_ty.shape != [n, f, hp - 2, wp - 2] {
        return None;
    }
    // An output of no whole tiles in either size (a DeepLab's 65 x 65): Winograd over its
    // largest part of whole 4 x 4 tiles, the rows and columns past it direct (see
    // `generic_text`). Partial tiles instead would waste lanes: 17 tiles of 4 a row take two
    // vectors, and ran no faster than the direct convolution.
    let (h, w) = (hp - 2, wp - 2);
    let shape = Shape::choose(n, c, f, hp, wp, threads, budget)
        .or_else(|| Shape::choose(n, c, f, h - h % 4 + 2, w - w % 4 + 2, threads, budget))?;
    let constant = strata_ir::rewrite::defining_op(op.operand(1).ok()?)
        .filter(|d| strata_ir::ods::op_name(*d) == "arith.constant")?;
    Some(Taken { shape, constant, w_ty, out_ty })
}

/// The replacement: a zero-filled scratch and the marked generic (see the module comment).
/// Where the shape's output is only part of the convolution's `out` (its whole tiles), the
/// generic computes that part (of the matching part of the input, both slices) and two direct
/// convolutions the rows below it and the columns right of it, each into its part of the
/// initial value.
fn generic_text(shape: &Shape, x: &str, w: &str, u: &str, out: &TensorTy) -> String {
    let [n, c, f, hi, wi] = [shape.n, shape.c, shape.f, shape.hp - 2, shape.wp - 2];
    let (h, wo) = (out.shape[2], out.shape[3]);
    let tensor = |dims: [i64; 4]| out.with_shape(dims.to_vec()).to_string();
    let full = out.to_string();
    let (xw, ow) = (tensor([n, c, hi + 2, wi + 2]), tensor([n, f, hi, wi]));
    let slice = |name: &str, of: &str, ty: &str, at: [i64; 2], dims: [i64; 4], to: &str| {
        let sizes = dims.map(|d| d.to_string()).join(", ");
        format!(
            "    %{name} = tensor.extract_slice {of}[0, 0, {}, {}] [{sizes}] [1, 1, 1, 1] : {ty} to {to}\n",
            at[0], at[1]
        )
    };
    let insert = |name: &str, part: &str, into: &str, ty: &str, at: [i64; 2], dims: [i64; 4]| {
        let sizes = dims.map(|d| d.to_string()).join(", ");
        format!(
            "    %{name} = tensor.insert_slice {part} into {into}[0, 0, {}, {}] [{sizes}] [1, 1, 1, 1] : {ty} into {full}\n",
            at[0], at[1]
        )
    };
    let whole = (hi, wi) == (h, wo);
    let (mut head, mut tail) = (String::new(), String::new());
    let (operands, init, mut result) = if whole {
        (format!("%x, %w, %u, %scratch : {x}"), "%init", "%r".to_owned())
    } else {
        head += &slice("xw", "%x", x, [0, 0], [n, c, hi + 2, wi + 2], &xw);
        head += &slice("iw", "%init", &full, [0, 0], [n, f, hi, wi], &ow);
        tail += &insert("rw", "%r", "%init", &ow, [0, 0], [n, f, hi, wi]);
        (format!("%xw, %w, %u, %scratch : {xw}"), "%iw", "%rw".to_owned())
    };
    // The rows below the whole tiles (every column), then the columns right of them.
    for (name, at, [rows, cols]) in [("b", [hi, 0], [h - hi, wo]), ("r", [0, wi], [hi, wo - wi])] {
        if whole || rows == 0 || cols == 0 {
            continue;
        }
        let (xs, os) = (tensor([n, c, rows + 2, cols + 2]), tensor([n, f, rows, cols]));
        tail += &slice(&format!("x{name}"), "%x", x, at, [n, c, rows + 2, cols + 2], &xs);
        tail += &slice(&format!("i{name}"), &result, &full, at, [n, f, rows, cols], &os);
        tail += &format!(
            "    %d{name} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%x{name}, %w : {xs}, {w}) outs(%i{name} : {os}) -> {os}\n"
        );
        tail += &insert(&format!("r{name}"), &format!("%d{name}"), &result, &os, at, [n, f, rows, cols]);
        result = format!("%r{name}");
    }
    let scratch = format!("tensor<{}xf32>", shape.scratch_floats());
    // The run of tile columns only where a band is less than whole rows.
    let mut fields = vec![shape.m, shape.band, shape.slots, shape.split];
    if shape.chunks() > 1 {
        fields.push(shape.chunk);
    }
    let mark = attrs::WINOGRAD.in_dictionary(&fields);
    format!(
        "module {{
  func.func private @winograd(%x: {x}, %w: {w}, %u: {u}, %init: {full}) -> {full} {{
{head}    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : {scratch}
    %scratch = linalg.fill ins(%zero : f32) outs(%empty : {scratch}) -> {scratch}
    %r = linalg.generic {{indexing_maps = [
        affine_map<(n, f, y, x, c, i, j) -> (n, c, y + i, x + j)>,
        affine_map<(n, f, y, x, c, i, j) -> (f, c, i, j)>,
        affine_map<(n, f, y, x, c, i, j) -> (0, 0, 0, 0)>,
        affine_map<(n, f, y, x, c, i, j) -> (0)>,
        affine_map<(n, f, y, x, c, i, j) -> (n, f, y, x)>],
      iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\", \"reduction\", \"reduction\", \"reduction\"]}}
      ins({operands}, {w}, {u}, {scratch}) outs({init} : {ow}) attrs = {{{mark}}} {{
    ^bb0(%a: f32, %b: f32, %t: f32, %s: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %z = arith.mulf %t, %s : f32
      %q = arith.addf %p, %z : f32
      %sum = arith.addf %acc, %q : f32
      linalg.yield %sum : f32
    }} -> {ow}
{tail}    return {result} : {full}
  }}
}}
"
    )
}

#[cfg(test)]
mod tests {
    use super::{matrices, transform_filter, Shape};

    #[test]
    fn tiles_and_bands_fit_the_caches_and_fill_the_lanes() {
        // ResNet-18's 56 x 56 x 64: F(4x4, 3x3) (590 KB of filter), 14 tiles a row, two rows a
        // band in two vectors.
        let s = Shape::choose(1, 64, 64, 58, 58, 1, i64::MAX).unwrap();
        assert_eq!((s.m, s.band, s.lanes(), s.slots, s.positions()), (4, 2, 32, 1, 36));
        // 28 x 28 x 128: F(4x4, 3x3)'s 2.4 MB filter is too big, F(2x2, 3x3)'s 1 MiB is not.
        let s = Shape::choose(1, 128, 128, 30, 30, 2, i64::MAX).unwrap();
        assert_eq!((s.m, s.band, s.lanes(), s.slots), (2, 2, 32, 2));
        // 7 tile rows in bands of 4 (28 of 32 lanes), the last band 3 rows.
        let s = Shape::choose(1, 64, 128, 16, 16, 2, i64::MAX).unwrap();
        assert_eq!((s.m, s.band, s.lanes(), s.slots, s.bands()), (2, 4, 32, 2, 2));
        // A U-Net's 24 x 24 x 32 -> 64: 6 tile rows of 6. One thread takes them as one band
        // (36 tiles in 48 lanes), not bands of 5 (30 of 32 lanes) and 1 (the same 32 lanes of
        // products for 6 tiles); two threads take bands of 2, a slot each and the third split.
        let s = Shape::choose(1, 32, 64, 26, 26, 1, i64::MAX).unwrap();
        assert_eq!((s.m, s.band, s.lanes(), s.slots, s.bands()), (4, 6, 48, 1, 1));
        let s = Shape::choose(1, 32, 64, 26, 26, 2, i64::MAX).unwrap();
        assert_eq!((s.m, s.band, s.lanes(), s.slots, s.bands()), (4, 2, 16, 2, 3));
        // 20 x 20 x 64: 25 tiles of 4 x 4 are too few, 100 of 2 x 2 are not; 10 x 10 x 128
        // has 25 tiles of 2 x 2 (and no whole 4 x 4 ones): direct.
        assert_eq!(Shape::choose(1, 64, 64, 22, 22, 1, i64::MAX).map(|s| s.m), Some(2));
        assert_eq!(Shape::choose(1, 128, 128, 12, 12, 1, i64::MAX), None);
        // 14 x 14 x 256: a 4 MiB transformed filter, beyond the cache.
        assert_eq!(Shape::choose(1, 256, 256, 16, 16, 1, i64::MAX), None);
        // The memory budget bounds the bands' slots: a slot per thread in a shorter band.
        let s = Shape::choose(1, 64, 64, 58, 58, 2, 1200 << 10).unwrap();
        assert_eq!((s.m, s.band, s.slots, s.split), (4, 2, 2, 1));
        let s = Shape::choose(1, 64, 64, 58, 58, 2, 600 << 10).unwrap();
        assert_eq!((s.m, s.band, s.slots, s.split), (4, 1, 2, 1));
        // The tile size and whether to take it are one thread's choice, on its share of the
        // budget: 160 KB holds no F(4x4, 3x3) slot, so two threads take F(2x2, 3x3) as one would.
        let s = Shape::choose(1, 64, 64, 58, 58, 2, 320 << 10).unwrap();
        assert_eq!((s.m, s.slots, s.split), (2, 2, 1));
        assert_eq!(Shape::choose(1, 64, 64, 58, 58, 1, 160 << 10).map(|s| s.m), Some(2));
        // A 224 x 224 x 64 map (ESPCN's): one tile row of F(4x4, 3x3) is 56 tiles, 590 KB of
        // transformed tiles; bands are runs of 32 tile columns of a row, 56 rows of two runs.
        let s = Shape::choose(1, 64, 64, 226, 226, 1, i64::MAX).unwrap();
        assert_eq!((s.m, s.band, s.chunk, s.lanes(), s.chunks(), s.bands()), (4, 1, 32, 32, 2, 112));
        // Whole rows where one fits: the chunk is the row.
        let s = Shape::choose(1, 64, 64, 58, 58, 1, i64::MAX).unwrap();
        assert_eq!((s.chunk, s.chunks()), (14, 1));
        // 7 x 7 (odd); few channels; filters not a multiple of 8.
        assert_eq!(Shape::choose(1, 512, 512, 9, 9, 1, i64::MAX), None);
        assert_eq!(Shape::choose(1, 16, 64, 58, 58, 1, i64::MAX), None);
        assert_eq!(Shape::choose(1, 64, 60, 58, 58, 1, i64::MAX), None);
    }

    /// `rows x columns` of `a` times `b` (row-major `Vec<Vec<f64>>`).
    fn product(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
        a.iter().map(|row| (0..b[0].len()).map(|j| row.iter().zip(b).map(|(x, r)| x * r[j]).sum()).collect()).collect()
    }

    fn transpose(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
        (0..a[0].len()).map(|j| a.iter().map(|row| row[j]).collect()).collect()
    }

    #[test]
    fn the_transforms_compute_the_correlation() {
        for m in [2usize, 4] {
            let (g, bt, at) = matrices(m as i64);
            let alpha = m + 2;
            let d: Vec<Vec<f64>> =
                (0..alpha).map(|i| (0..alpha).map(|j| ((i * 7 + j * 3) as f64).sin()).collect()).collect();
            let k: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| ((i * 5 + j) as f64).cos()).collect()).collect();
            let u = product(&product(&g, &k), &transpose(&g));
            let v = product(&product(&bt, &d), &transpose(&bt));
            let uv: Vec<Vec<f64>> = (0..alpha).map(|i| (0..alpha).map(|j| u[i][j] * v[i][j]).collect()).collect();
            let y = product(&product(&at, &uv), &transpose(&at));
            for i in 0..m {
                for j in 0..m {
                    let direct: f64 =
                        (0..3).flat_map(|a| (0..3).map(move |b| (a, b))).map(|(a, b)| d[i + a][j + b] * k[a][b]).sum();
                    assert!(
                        (y[i][j] - direct).abs() < 1e-12,
                        "F({m}x{m}, 3x3) output {i},{j}: {} vs {direct}",
                        y[i][j]
                    );
                }
            }
        }
    }

    #[test]
    fn the_filter_is_stored_by_position_block_channel_filter() {
        // One channel, 8 filters, the centre tap alone: U[a][b] = G[a][1] G[b][1] for filter 0.
        let mut g = vec![0.0f32; 8 * 9];
        g[4] = 1.0;
        let u = transform_filter(&g, 8, 1, 2);
        let column = [0.0, 0.5, -0.5, 0.0];
        for a in 0..4 {
            for b in 0..4 {
                assert_eq!(u[(a * 4 + b) * 8], (column[a] * column[b]) as f32);
                assert_eq!(u[(a * 4 + b) * 8 + 1], 0.0);
            }
        }
    }
}
