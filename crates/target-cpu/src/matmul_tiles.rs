//! Cache and register tiles of the host's vectorised matmuls (`strata-cpu-vectorize`): the
//! register block for the vector width, cache tiles that divide the shape, their split across
//! threads, and the order the sequential tiles run in.

use crate::conv_lanes::Registers;

/// The register block `[rows, columns]` of the marked matmuls for vectors of `lanes` f32: two
/// vectors of columns by as many rows (8, 4 or 2: they divide the marked matmuls' multiples
/// of 8) as the accumulator registers hold ([`Registers::for_lanes`]). AVX-512 takes 8 x 32
/// (16 of its 24 accumulators); AVX2 4 x 16 (8 of 12). AVX2 used to take 8 x 32 too: 32
/// accumulators in 16 ymm registers, spilled on every step (GPT-2's 64 x 256 x 1024 products
/// ran at a third of ONNX Runtime's speed on a Zen3 core).
pub fn register_tile(lanes: i64) -> [i64; 2] {
    let columns = (2 * lanes).min(32);
    let registers = Registers::for_lanes(lanes);
    let vectors = registers.vectors(columns);
    let rows = [8, 4, 2].into_iter().find(|&r| r * vectors <= registers.accumulators).unwrap_or(1);
    [rows, columns]
}

/// Cache tile sizes for an `m x n x k` matmul: the whole dimension up to 64 / 128 / 256, else
/// the largest of those and their halves that divides it (`m` is a multiple of 8 and `n` of 32
/// when marked), so every tile is whole and vectorises with static shapes. The reduction takes
/// no tile under 64 ([`reduction_tile`]): each reduction tile loads and stores the register
/// block's accumulators once.
pub fn cache_tiles(m: i64, n: i64, k: i64) -> [i64; 3] {
    let pick = |extent: i64, largest: i64| {
        if extent <= largest {
            extent
        } else {
            (0..).map(|s| largest >> s).find(|&t| t <= 1 || extent % t == 0).unwrap_or(1)
        }
    };
    [pick(m, 64), pick(n, 128), reduction_tile(k)]
}

/// The reduction tile of a `k`-long product: all of it up to 256; else 256, 128 or 64 where
/// one divides it, else its largest divisor from 64 to 256, else all of it (a prime). Halving
/// down to a divisor, magika's one-hot product (`k` = 257, prime) took tiles of one step: its
/// accumulators were loaded and stored at every step (0.75 ms against ONNX Runtime's 0.36).
/// The tiles only group the steps: every sum still runs over `k` in order.
fn reduction_tile(k: i64) -> i64 {
    const LARGEST: i64 = 256;
    const SMALLEST: i64 = 64;
    if k <= LARGEST {
        return k;
    }
    [LARGEST, LARGEST / 2, SMALLEST].into_iter().chain((SMALLEST..=LARGEST).rev()).find(|&t| k % t == 0).unwrap_or(k)
}

/// Cache tiles `[m, n, k]` of a product split across `threads`, from [`cache_tiles`]': halved
/// (columns first, then rows, down to a register block) until there is a tile for every
/// thread, and until the threads divide the tiles or each has four at least. A 64 x 256 x 64
/// projection was one 64 x 64 tile: a fork and join for one thread's work (8% slower on two
/// threads than on one); ConvNeXt's 64 x 160 x 640 products were five tiles of 128 columns,
/// three for one thread and two for the other (1.27x faster on two threads than on one).
pub fn parallel_tiles([mut tm, mut tn, k]: [i64; 3], m: i64, n: i64, threads: i64) -> [i64; 3] {
    let short = |tiles: i64| tiles < threads || (tiles % threads != 0 && tiles < 4 * threads);
    while short((m / tm) * (n / tn)) {
        if tn >= 64 && (tn / 2) % 32 == 0 {
            tn /= 2;
        } else if tm >= 16 && (tm / 2) % 8 == 0 {
            tm /= 2;
        } else {
            break;
        }
    }
    [tm, tn, k]
}

/// The order of a sequential product's cache tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Row tiles outermost, then column and reduction tiles: each row tile reads the whole
    /// right-hand side, its own `rows x k` panel of the left-hand side staying in cache.
    Rows,
    /// Column tiles outermost, then reduction tiles, the row tiles innermost: each `k x n`
    /// tile of the right-hand side stays in L2 while every row tile reads it, and the
    /// left-hand side is read once per column tile.
    Columns,
}

impl Order {
    /// The order that reads fewer bytes from beyond L2 for an `m x n x k` f32 product cut into
    /// `tiles`: rows first reads the left-hand side once and the right-hand side once per row
    /// tile, columns first the reverse. Columns first only where that reads under half as
    /// much and the right-hand side does not fit in L2 (where it fits, either order reads it
    /// from L2: BERT's and the zoo's transformer products keep their order). A 77-row
    /// product by a 512 x 2048 weight (a text encoder's projection) was tiled 8 rows at a
    /// time (the largest of 64, 32, 16, 8 dividing the 72 rows of its register blocks), so it
    /// read the 4 MB weight 9 times from L3: 2.3 ms against ONNX Runtime's 0.94.
    ///
    /// A product of one column tile whose right-hand side tiles fit in L1 (a block of
    /// `strata-cpu-schedule`'s column blocks, [`crate::column_blocks`]) takes columns first
    /// too when it has several row and reduction tiles: each right-hand side tile is read from
    /// L2 once and stays in L1 while every row tile reads it, where rows first read the whole
    /// column of tiles from L2 per row tile (the text encoder's blocks, 72 x 512 x 32: 0.98 ->
    /// 0.95 ms for the whole product).
    pub fn for_product([tm, tn, tk]: [i64; 3], m: i64, n: i64, k: i64) -> Order {
        let (lhs, rhs) = (m * k * 4, k * n * 4);
        let rows_first = lhs + (m / tm.max(1)) * rhs;
        let columns_first = rhs + (n / tn.max(1)) * lhs;
        let in_l1 = tn == n && tk * tn * 4 <= L1_BYTES && m > tm && k > tk;
        if (rhs > L2_BYTES && 2 * columns_first < rows_first) || in_l1 {
            Order::Columns
        } else {
            Order::Rows
        }
    }
}

/// Half a core's second-level cache, for [`Order::for_product`]: the right-hand sides that fit
/// in it are read from L2 whatever the order (the other half for the left-hand side's and
/// the result's tiles).
const L2_BYTES: i64 = 1 << 20;

/// A core's first-level data cache (32 KiB or more), for [`Order::for_product`].
const L1_BYTES: i64 = 32 << 10;

/// The `strata.cache_tiles` mark: `MxNxK`, `p` appended for parallel (m, n) tiles, `c` for
/// column tiles outermost ([`Order::Columns`]).
pub(crate) fn cache_label([m, n, k]: [i64; 3], parallel: bool, order: Order) -> String {
    let order = if order == Order::Columns { "c" } else { "" };
    format!("{m}x{n}x{k}{}{order}", if parallel { "p" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::{cache_tiles, parallel_tiles, Order};

    #[test]
    fn large_weights_take_column_tiles_outermost() {
        // A text encoder's 72 (+5) x 512 x 2048 projection: tiles of 8 rows, a 4 MB weight.
        assert_eq!(cache_tiles(72, 2048, 512), [8, 128, 256]);
        assert_eq!(Order::for_product([8, 128, 256], 72, 2048, 512), Order::Columns);
        // BERT-tiny's 128 x 128 x 512 FFN: its 256 KB weight stays in L2 either way.
        assert_eq!(Order::for_product(cache_tiles(128, 512, 128), 128, 512, 128), Order::Rows);
        // One row tile: either order reads the weight once.
        assert_eq!(Order::for_product(cache_tiles(64, 3072, 768), 64, 3072, 768), Order::Rows);
        // A column block of that projection: each 32 KiB weight tile stays in L1 for all the
        // row tiles.
        assert_eq!(cache_tiles(72, 32, 512), [8, 32, 256]);
        assert_eq!(Order::for_product([8, 32, 256], 72, 32, 512), Order::Columns);
        // One reduction tile: the orders are the same loops.
        assert_eq!(Order::for_product([8, 32, 256], 72, 32, 256), Order::Rows);
    }

    #[test]
    fn parallel_tiles_give_every_thread_one() {
        assert_eq!(parallel_tiles(cache_tiles(64, 64, 256), 64, 64, 2), [64, 32, 256]);
        assert_eq!(parallel_tiles(cache_tiles(32, 32, 256), 32, 32, 2), [16, 32, 256]);
        assert_eq!(parallel_tiles(cache_tiles(128, 768, 128), 128, 768, 2), cache_tiles(128, 768, 128));
        // A register block is as small as a tile gets.
        assert_eq!(parallel_tiles(cache_tiles(8, 32, 64), 8, 32, 4), [8, 32, 64]);
    }

    #[test]
    fn parallel_tiles_are_shared_evenly() {
        // Five tiles of 128 columns for two threads: ten of 64.
        assert_eq!(parallel_tiles(cache_tiles(64, 640, 160), 64, 640, 2), [64, 64, 160]);
        // Five of 32 columns (no smaller column tile): rows halved instead.
        assert_eq!(parallel_tiles(cache_tiles(64, 160, 640), 64, 160, 2), [32, 32, 128]);
        // Nine tiles are four or five a thread: left as they are.
        assert_eq!(parallel_tiles([8, 32, 64], 72, 32, 2), [8, 32, 64]);
    }

    #[test]
    fn cache_tiles_divide_the_shape() {
        assert_eq!(cache_tiles(128, 512, 128), [64, 128, 128]);
        assert_eq!(cache_tiles(16, 64, 48), [16, 64, 48]);
        assert_eq!(cache_tiles(72, 160, 384), [8, 32, 128]);
        assert_eq!(cache_tiles(8, 96, 7), [8, 96, 7]);
        assert_eq!(cache_tiles(24, 32, 1024), [24, 32, 256]);
    }

    #[test]
    fn reduction_tiles_are_never_short() {
        assert_eq!(cache_tiles(2048, 64, 257), [64, 64, 257]);
        assert_eq!(cache_tiles(64, 64, 1000), [64, 64, 250]);
        assert_eq!(cache_tiles(64, 64, 384), [64, 64, 128]);
        assert_eq!(cache_tiles(64, 64, 4099), [64, 64, 4099]);
        assert_eq!(cache_tiles(64, 64, 3 * 67), [64, 64, 201]);
    }
}
