//! `strata-machine` is what Strata knows of the machines it compiles for, as plain data: the
//! vector registers of a CPU ([`Registers`], detected once by the driver with
//! [`Registers::host`]) and how the host schedule blocks a convolution in them
//! ([`conv_block`]: filters in the lanes, [`conv_tiles`], or output columns, [`spatial_tiles`];
//! a grouped convolution's groups, [`grouped_tiles`]). The host schedule (`strata-target-cpu`) uses the blocking to tile; the
//! e-graph adapter uses it to know which convolutions can run an elementwise epilogue in their
//! tiles, without reading the compiling machine. It must never depend on MLIR or on another
//! Strata crate (only on `libc`, for the one system call AMX tiles need).

/// The host's vector registers, for the register blocking: how many there are, how many may
/// hold accumulators and how many f32 lanes each has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registers {
    pub count: i64,
    pub accumulators: i64,
    pub lanes: i64,
}

impl Registers {
    /// `registers` vector registers of `lanes` f32 lanes each; three quarters hold
    /// accumulators, the rest the broadcast inputs and the filter vectors.
    pub const fn new(registers: i64, lanes: i64) -> Registers {
        Registers { count: registers, accumulators: registers * 3 / 4, lanes }
    }

    /// The vectors `n` f32 values take (the last possibly partial).
    pub const fn vectors(self, n: i64) -> i64 {
        (n + self.lanes - 1) / self.lanes
    }

    /// Whether `f` filters are not a multiple of half a vector: too few to fill the lanes,
    /// which puts the output columns there instead.
    pub const fn few_filters(self, f: i64) -> bool {
        f % (self.lanes / 2) != 0
    }

    /// The registers of a machine whose vector registers hold `lanes` f32 lanes: 32 of 16
    /// (AVX-512), else 16 (AVX's 8 lanes, SSE's 4).
    pub const fn for_lanes(lanes: i64) -> Registers {
        if lanes >= 16 {
            Registers::new(32, lanes)
        } else {
            Registers::new(16, lanes)
        }
    }

    /// The machine this process runs on (the host target compiles for it): AVX-512 has 32
    /// registers of 16 lanes, AVX 16 of 8, SSE 16 of 4; other architectures are taken as 32
    /// of 4 (AArch64's NEON).
    pub fn host() -> Registers {
        #[cfg(target_arch = "x86_64")]
        {
            if host_has_avx512() {
                return Registers::new(32, 16);
            }
            if std::arch::is_x86_feature_detected!("avx") {
                return Registers::new(16, 8);
            }
            Registers::new(16, 4)
        }
        #[cfg(not(target_arch = "x86_64"))]
        Registers::new(32, 4)
    }
}

/// Whether the machine this process runs on has AVX-512 (`avx512f`): what [`Registers::host`]
/// and the host's AVX-512-only instruction choices (`strata-approximate-math`) go by.
pub fn host_has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the machine this process runs on has AVX-512 VNNI (`vpdpbusd`: sums of four
/// products of unsigned and signed bytes into each 32-bit lane): where a QDQ model's
/// products and 1x1 convolutions run on the quantized integers (`sg.quantized_matmul`,
/// `sg.quantized_conv`).
pub fn host_has_avx512_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the machine this process runs on has AMX tiles with int8 products (`tdpbusd`: a
/// tile of up to 16 x 64 unsigned bytes times one of signed bytes into a 16 x 16 tile of i32
/// sums, a whole register block in one instruction) and its kernel grants this process the
/// tiles' state ([`request_tile_state`]): where quantized products run on tiles rather than
/// with VNNI. Asked once a process (a grant is for the process's life); the driver asks at
/// every compile.
pub fn host_has_amx_int8() -> bool {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        static TILES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *TILES.get_or_init(|| {
            use std::arch::x86_64::{__cpuid, __cpuid_count};
            // CPUID leaf 7, EDX: bit 24 AMX-TILE, bit 25 AMX-INT8.
            #[allow(unused_unsafe)]
            // Safety: CPUID exists on every x86-64 CPU; leaf 7 is read only when the CPU has it.
            let tiles = unsafe { __cpuid(0).eax >= 7 && __cpuid_count(7, 0).edx & (3 << 24) == 3 << 24 };
            tiles && request_tile_state()
        })
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        false
    }
}

/// Linux's `arch_prctl` system call number on x86-64 (`SYS_arch_prctl`).
pub const SYS_ARCH_PRCTL: i64 = 158;
/// `arch_prctl`'s request for an extended state component (Linux's `ARCH_REQ_XCOMP_PERM`).
pub const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
/// The AMX tile data's state component (`XFEATURE_XTILEDATA`).
pub const XFEATURE_XTILEDATA: i64 = 18;

/// Asks Linux for this process's permission to use the AMX tile data (8 KiB more state a
/// thread, so the kernel grants it only on request; without it the first tile instruction
/// faults); whether granted. Idempotent; compiled code using tiles makes the same request
/// when it starts (`strata-target-cpu`'s entry point).
pub fn request_tile_state() -> bool {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        // Safety: `arch_prctl` with this request reads no memory; it only changes the
        // process's permitted state components.
        unsafe { libc::syscall(SYS_ARCH_PRCTL, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 }
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        false
    }
}

/// The register block `[th, tw, tf]` for an `oh x ow` output with `f` filters of `window`
/// taps (`kh * kw`): `tf` filters
/// (two registers' worth, one or half a register, dividing `f`; never 1.5 registers, whose
/// non-power-of-two vectors LLVM legalises with shuffles: 24 filters ran at a seventh of the
/// speed of 8-filter half registers), and as many output
/// positions as the accumulators allow, `tw` dividing `ow` and `th` dividing `oh` so that every
/// tile is whole. Of the filter widths, the one that keeps the most accumulators busy (FMAs per
/// reduction step), the wider on a tie: a 7 x 7 output with 160 filters on AVX2 takes 7
/// positions x 8 filters (7 FMAs a step), not 1 position x 16 filters (2).
///
/// A filter count that is no multiple of half a register (DenseNet's growth rate 12, 36) takes
/// quarter registers (4 lanes) when the convolution has a window: DenseNet's 3x3 convolutions
/// of 12 filters ran 6.5x faster than the loop nest LLVM vectorises along the output row; a 1x1
/// convolution (a matmul) ran 20% slower blocked that way than in that loop nest, so it keeps
/// it.
///
/// A single output row (a 1x1 convolution whose positions the host schedule flattens into
/// one row, a 1-D convolution along the width) may take a *partial* block instead: `tw` as
/// many positions as the accumulators hold, not dividing `ow`, the last block of the row
/// narrower (the schedule peels it off; see [`partial`]). It is chosen when its FMAs per
/// cycle ([`block_cycles`]), then per step, averaged over the row's blocks, beat the whole
/// blocks': on AVX2, MobileNetV2's 1x1 convolutions at 7 x 7 flattened to 49 positions take
/// 6 positions x 16 filters (8 whole blocks of 12 FMAs and one of 2) instead of 7 x 8 (7 FMAs
/// a step, each waiting on the latency): 960 channels into 320 filters ran 1.6x faster on a
/// Zen3 core; on AVX-512 the whole 7 x 32 blocks keep the FMAs busy where 12 x 32 ones leave a
/// block of 2 accumulators. Outputs of several rows take a partial block where the whole one
/// has fewer than eight accumulators (it waits on the latency): the 94 x 94 interior
/// `strata-conv-borders` cuts from a 96 x 96 convolution has whole blocks of 2 x 2 positions
/// (94 = 2 x 47), which ran 1.8x slower than the padded whole (a U-Net's last decoder stage,
/// 32 -> 16 channels: 0.66 against 0.37 ms); one row of 24 positions, peeled, runs as fast.
/// They also take one where the whole block would span several rows of an output wider than a
/// block (`ow`'s largest divisor that fits is small): one row of as many positions as fit,
/// the last block of each row narrower. An unpadded 64 -> 32 convolution to 222 x 222 (222 =
/// 2 x 3 x 37, the interior `strata-conv-borders` cuts from a 224 x 224 one) took blocks of 2
/// x 6 positions by 32 filters and ran 14.4 ms against 9.5 in rows of 12 positions (a
/// 224-wide one, rows of 8, 10.0): the same 24 accumulators, but LLVM spills and shuffles the
/// two-row tile's. Outputs no wider than a block keep their rows: there it depends on the shape (an 8
/// x 8 map of 16 filters ran 1.7 us in blocks of 2 x 8 positions against 3.4 in rows of 8; a
/// 6 x 6 map of 256 channels into 32 filters 0.032 ms in 2 x 6 against 0.025 in rows of 6),
/// and the zoo's models gained in some and lost in others (docs/notes.md).
/// `None` when no width applies.
pub fn conv_tiles(oh: i64, ow: i64, f: i64, window: i64, registers: Registers) -> Option<[i64; 3]> {
    let lanes = registers.lanes;
    let quarter = if window > 1 && registers.few_filters(f) { lanes / 4 } else { 0 };
    blocks_of(oh, ow, f, registers, [2 * lanes, lanes, lanes / 2, quarter])
}

/// The most input bytes for which a flattened 1x1 convolution on one thread keeps
/// [`conv_tiles`]' block of at most two registers of filters; above, it takes four
/// ([`wide_filter_tiles`]).
pub const WIDE_FILTERS_INPUT_BYTES: i64 = 768 << 10;

/// The register block of a flattened 1x1 convolution (`positions` in one row, `f` filters)
/// with four registers of filters (64 on AVX-512), as [`conv_tiles`] places positions in it;
/// `None` when four registers do not divide `f`. With two registers of filters, every filter
/// block streams the whole input again, and once the input is past about a third of L2
/// ([`WIDE_FILTERS_INPUT_BYTES`]) it no longer stays there between blocks: YOLOv8n's 192 -> 64
/// filter convolution at 40 x 40 (1.2 MB of input) in blocks of 6 positions x 64 filters ran
/// 0.275 ms instead of 0.318 in 12 x 32 (58 -> 72 GMAC/s), 128 -> 64 at 56 x 56 0.348 against
/// 0.411, 128 -> 64 at 40 x 40 (819 KB) 0.178 against 0.190; with 614 KB of input (96 -> 64 at
/// 40 x 40) the wider block was 7% slower. One thread; five fewer accumulators a step wait on
/// the four filter loads.
pub fn wide_filter_tiles(positions: i64, f: i64, registers: Registers) -> Option<[i64; 3]> {
    blocks_of(1, positions, f, registers, [4 * registers.lanes, 0, 0, 0])
}

/// The best register block of [`conv_tiles`] among filter widths `widths` (0: none).
fn blocks_of(oh: i64, ow: i64, f: i64, registers: Registers, widths: [i64; 4]) -> Option<[i64; 3]> {
    let divisor = |extent: i64, most: i64| largest_divisor(extent, most.max(1)).unwrap_or(1);
    // FMAs per reduction step, in thousandths, averaged over a row's blocks.
    let per_step = |[th, tw, _]: [i64; 3], vectors: i64| th * ow * vectors * 1000 / ((ow + tw - 1) / tw);
    // FMAs per cycle of a row's blocks, in thousandths (see [`block_cycles`]): a block whose
    // accumulators are too few for the multiply-adds' latency waits on it.
    let per_cycle = |[th, tw, _]: [i64; 3], vectors: i64| {
        let (full, rest) = (ow / tw, ow % tw);
        let cycles = full * block_cycles(th * tw, vectors) + block_cycles(th * rest, vectors);
        th * ow * vectors * 1000 / cycles.max(1)
    };
    widths
        .into_iter()
        .filter(|&tf| tf >= 4 && f % tf == 0)
        .flat_map(|tf| {
            let vectors = registers.vectors(tf);
            let positions = (registers.accumulators / vectors).max(1);
            let tw = divisor(ow, positions);
            let th = divisor(oh, positions / tw);
            // Several rows only where the output is no wider than a block: on a wide one, a
            // row of positions with a partial last block instead (see above).
            let rows = th > 1 && ow > positions;
            let whole = (!rows).then_some([th, tw, tf]);
            // Several rows only where the whole block waits on the multiply-adds' latency.
            let latency_bound = th * tw * vectors < 8;
            let rest =
                ((oh == 1 || latency_bound || rows) && tw < positions && ow > positions).then_some([1, positions, tf]);
            [whole, rest]
                .into_iter()
                .flatten()
                .map(move |tiles| ((per_cycle(tiles, vectors), per_step(tiles, vectors)), tf, tiles))
        })
        .max_by_key(|&(fmas, tf, tiles)| (fmas, tf, -tiles[1]))
        .map(|(_, _, tiles)| tiles)
}

/// Cycles in half-cycle units (so that integer division stays exact) that one reduction step of
/// a block of `positions` output positions by `vectors` filter vectors takes: its
/// multiply-adds at two a cycle, its loads (a broadcast per position, a load per filter
/// vector) at two a cycle, and never under the multiply-add's latency (four cycles), which a
/// block of fewer than eight accumulators waits on (each accumulator's chain advances one
/// multiply-add a step). A row of MobileNetV2's 7 x 7 1x1 convolutions, 49 positions, in blocks
/// of 12 positions x 32 filters costs 4 x 12 + 4 cycles a step (the last block's 2
/// accumulators wait), in blocks of 7 x 32 filters 7 x 7: the whole blocks ran 960 -> 320
/// filters 0.194 -> 0.175 ms. Zero positions cost nothing.
pub fn block_cycles(positions: i64, vectors: i64) -> i64 {
    if positions == 0 {
        return 0;
    }
    (positions * vectors).max(positions + vectors).max(8)
}

/// Whether a block `[th, tw, tf]` of [`conv_tiles`] is partial on an output `ow` wide: its
/// last block of columns is narrower, and the schedule peels it off.
pub fn partial([_, tw, _]: [i64; 3], ow: i64) -> bool {
    ow % tw != 0
}

/// The most taps (input channels x window) per output for which a convolution whose filters
/// fill registers may put its output columns in the lanes ([`conv_block`]). With filters in
/// the lanes, each tile ends in a transposed store of its accumulators into the NCHW output,
/// which few taps do not amortise: MobileNetV2's 1x1 expansions (16 and 24 channels) ran
/// 1.3-1.6x faster with columns in the lanes, its 96- and 144-channel projections 1.2-1.3x; at
/// 256 taps (a 1x1 convolution of 256 channels, or 3x3 of 32) both layouts reach the FMA peak,
/// and at 576 (ResNet's 3x3 of 64 channels) filter lanes were 15% faster.
pub const SPATIAL_TAPS: i64 = 256;

/// At most this many taps per output, the transposed store dominates whatever the blocks
/// (MobileNetV2's 24-channel expansion ran 1.3x faster in columns with fewer outputs a tile);
/// above it, up to [`SPATIAL_TAPS`], columns go in the lanes only when their tile holds at
/// least as many outputs as the filter-lane tile: ResNeXt's 56-wide 1x1 convolutions of 64 and
/// 128 channels into 128 filters (8-column tiles of 8 filters in two rows against 8 positions
/// of 32 filters) ran 10-25% slower in columns, and MobileNetV2's 32-channel expansions at
/// 28 x 28 on AVX2 (half vectors of 4 columns by 12 filters, whose 12 accumulators and
/// broadcasts spilled, against 4 positions of 16 filters) 1.8x slower.
pub const STORE_BOUND_TAPS: i64 = 24;

/// The register block `[th, tw, tf]` with output columns in the lanes (recipe 2 of
/// ../shared/notes/cpu-codegen.md) for an output `ow` columns wide with `f` filters, at column stride
/// `sw` (unit only: each reduction step loads `tw` contiguous input columns and does `tf`
/// fused multiply-adds per vector of columns and row, one broadcast filter value each).
/// Filters that fill less than half a register (DenseNet's growth rate 12, its transitions'
/// 36) take whole vectors of columns only; others also half vectors (equal FMA throughput on
/// Zen4, as [`conv_tiles`] takes them). The widest `tw` of two vectors, one or half of one that
/// divides `ow`, one row (two rows of one vector each ran slower: DenseNet +30%, MobileNetV2
/// +6%), `tf` the largest divisor of `f` the accumulators hold. DenseNet's 3x3 convolutions of
/// 12 filters ran 2x faster than with 12 filters in quarter registers, its 1x1 transition of
/// 36 filters 2.5x faster than the loop nest.
///
/// Where a wider `tw` (two vectors, or one) does not divide `ow` but leaves a multiple of half
/// a vector, and its block does as many FMAs a step, it is taken as a partial block (the last
/// block of each row narrower, peeled by the schedule; see [`partial`]): each step then loads
/// more columns per broadcast filter value. MobileNetV2's 56-wide 1x1 convolutions on AVX2
/// take 16 columns x 6 filters (2 loads and 6 broadcasts for 12 FMAs) instead of 8 x 12 (1 and
/// 12): 24 channels into 144 filters ran 1.2x faster. The rest must be at most one vector or
/// whole vectors: on AVX-512 two vectors of 56 columns leave 24, a vector and a half, which
/// LLVM legalises with shuffles (the same 24 -> 144 convolution ran 10x slower than ONNX
/// Runtime); one vector leaves half of one.
///
/// A block whose columns divide `ow` may also take a partial block of *filters*: as many as
/// the accumulators hold when the largest divisor of `f` is fewer and the blocks' average
/// (`f` over their count) is more, the last block narrower (see [`partial_filters`]). 128
/// filters over two vectors of columns on AVX2 take 6 (21 blocks and one of 2) instead of 4:
/// 8 FMAs a step become 11.6; 64 channels into 128 filters at 32 x 32 ran 1.3x faster (the
/// phases of a stride-2 transposed convolution).
pub fn spatial_tiles(ow: i64, f: i64, sw: i64, registers: Registers) -> Option<[i64; 3]> {
    let (whole, wider) = spatial_candidates(ow, f, sw, registers)?;
    let fmas = |[_, tw, tf]: [i64; 3]| registers.vectors(tw) * tf;
    let chosen = match (whole, wider) {
        (Some(whole), Some(wider)) if fmas(wider) < fmas(whole) => whole,
        (whole, wider) => wider.or(whole)?,
    };
    let [th, tw, tf] = chosen;
    let most = registers.accumulators / registers.vectors(tw);
    // Filters per block on average (thousandths) with `most` a block.
    let average = f * 1000 / ((f + most - 1) / most);
    if ow % tw == 0 && !registers.few_filters(f) && tf < most && f > most && average > tf * 1000 {
        return Some([th, tw, most]);
    }
    Some(chosen)
}

/// Whether a block `[th, tw, tf]` of [`spatial_tiles`] is partial on `f` filters: its last
/// block of filters is narrower, and the schedule peels it off.
pub fn partial_filters([_, _, tf]: [i64; 3], f: i64) -> bool {
    f % tf != 0
}

/// `tiles` with whole blocks of filters: `tf` lowered to the largest divisor of `f` (a
/// [`partial_filters`] block made whole; others unchanged).
pub fn whole_filters([th, tw, tf]: [i64; 3], f: i64) -> [i64; 3] {
    [th, tw, largest_divisor(f, tf).unwrap_or(1)]
}

/// A register block `[th, tw, tf]`.
type Tiles = [i64; 3];

/// The blocks [`spatial_tiles`] chooses from: the widest whole one and the wider partial one,
/// if any (`None`: no columns in the lanes at all).
fn spatial_candidates(ow: i64, f: i64, sw: i64, registers: Registers) -> Option<(Option<Tiles>, Option<Tiles>)> {
    let lanes = registers.lanes;
    if sw != 1 || f <= 0 || lanes < 4 {
        return None;
    }
    let few_filters = registers.few_filters(f);
    let dividing =
        if few_filters { [2 * lanes, lanes].into_iter().find(|&w| ow % w == 0) } else { column_tile(ow, lanes, false) };
    let block = |tw: i64| largest_divisor(f, registers.accumulators / registers.vectors(tw)).map(|tf| [1, tw, tf]);
    let whole = dividing.and_then(block);
    // The rest of a row: a multiple of half a vector, and at most one vector or whole ones.
    let rest_fits = |w: i64| ow % (lanes / 2) == 0 && (ow % w <= lanes || ow % w % lanes == 0);
    let wider = [2 * lanes, lanes]
        .into_iter()
        .find(|&w| !few_filters && w < ow && ow % w != 0 && rest_fits(w) && w > dividing.unwrap_or(0))
        .and_then(block);
    Some((whole, wider))
}

/// The largest divisor of `n` (positive) that is at most `most`; `None` when `most` is below 1.
fn largest_divisor(n: i64, most: i64) -> Option<i64> {
    (1..=most.min(n)).rev().find(|d| n % d == 0)
}

/// The columns of a register tile with the output columns in the lanes, for an output `ow`
/// wide: two whole vectors, one, or half of one, the first that divides `ow`; else, with
/// `partial`, the widest divisor of `ow` from a quarter of a vector to a whole one (28 and 14
/// take 14 lanes of one vector, 7 takes 7: LLVM widens such a vector to the register, and
/// 14 of 16 lanes ran 30% faster than whole quarter vectors on ResNeXt's 28-wide groups).
fn column_tile(ow: i64, lanes: i64, partial: bool) -> Option<i64> {
    if let Some(w) = [2 * lanes, lanes, lanes / 2].into_iter().find(|&w| w >= 4 && ow % w == 0) {
        return Some(w);
    }
    if !partial {
        return None;
    }
    (lanes / 4..=lanes).rev().find(|&w| w >= 4 && ow % w == 0)
}

/// The register block `[th, tw, tf]` of one group of a grouped convolution (`oh x ow` output,
/// `f` filters per group, column strides `[sh, sw]`), output columns in the lanes: `tw` from
/// [`column_tile`] with partial vectors (ResNeXt's 56 take half vectors, 28 and 14 take 14
/// lanes of one, 7 takes 7), `tf` the largest divisor of `f` the accumulators
/// hold, then as many rows `th` (dividing `oh`; one at row stride `sh` above 1) as the
/// remaining accumulators allow: a group has few filters (ResNeXt's 4), so rows are what fills
/// the registers.
pub fn grouped_tiles(oh: i64, ow: i64, f: i64, [sh, sw]: [i64; 2], registers: Registers) -> Option<[i64; 3]> {
    let lanes = registers.lanes;
    if sw != 1 || sh < 1 || f <= 0 || lanes < 4 {
        return None;
    }
    let tw = column_tile(ow, lanes, true)?;
    let per_row = registers.accumulators / registers.vectors(tw);
    let tf = largest_divisor(f, per_row)?;
    // Strided rows: one a tile (a block of several would read rows at a stride, which the
    // vectoriser does not take).
    let rows = if sh == 1 { (per_row / tf).max(1) } else { 1 };
    let th = largest_divisor(oh, rows)?;
    Some([th, tw, tf])
}

/// The fewest output positions of a 1x1 convolution on one thread that puts its columns in the
/// lanes whatever [`conv_block`]'s store-bound rule says, with at most
/// [`POINTWISE_COLUMN_TAPS`] channels and [`POINTWISE_COLUMN_FILTERS`] filters. Filters in the
/// lanes, a block reads a few positions of every channel (a fraction of each line, its lines
/// read again by the next blocks); columns in the lanes, whole lines of positions, each once
/// per block of filters. On an Intel host with AVX-512 (2 MB of L2), one thread, in the model:
/// YOLOv8n's 1x1 convolutions at 40 x 40 and 80 x 80 (32-192 channels into 32-64 filters)
/// 9-30% faster, ResNeXt's 128 -> 128 and 32 -> 128 at 56 x 56 21% and 41% (the model 10%);
/// at 20 x 20 (YOLOv8n's 192-384 channels into 128 filters) 7-12% slower, hence the floor;
/// standalone, 256 -> 128 at 40 x 40 9% slower (the channels' bound) and 32 -> 192 at 28 x 28
/// 39% slower (784 positions). Two threads gained nothing (YOLOv8n and ResNet-50 1-2% slower,
/// within noise): one thread only; and 32 vector registers only (measured on AVX-512).
pub const POINTWISE_COLUMN_POSITIONS: i64 = 1600;

/// See [`POINTWISE_COLUMN_POSITIONS`].
pub const POINTWISE_COLUMN_TAPS: i64 = 192;

/// See [`POINTWISE_COLUMN_POSITIONS`].
pub const POINTWISE_COLUMN_FILTERS: i64 = 128;

/// How the host schedule blocks a convolution (`oh x ow` output, `f` filters of `taps` taps,
/// `window` of them per input channel, column stride `sw`, on `threads` threads):
/// [`spatial_tiles`] where they apply, else [`conv_tiles`]; with whether the columns are in the
/// lanes. `None`: the convolution keeps the loop-order schedule.
#[allow(clippy::too_many_arguments)]
pub fn conv_block(
    oh: i64,
    ow: i64,
    f: i64,
    taps: i64,
    window: i64,
    sw: i64,
    registers: Registers,
    threads: i64,
) -> Option<([i64; 3], bool)> {
    if registers.lanes < 4 {
        return None;
    }
    let lanes = conv_tiles(oh, ow, f, window, registers);
    // Columns or filters in the lanes: decided on the whole column block where there is one
    // (the partial one only changes the tile's shape).
    let decided = spatial_candidates(ow, f, sw, registers).and_then(|(whole, wider)| whole.or(wider));
    let pointwise = threads <= 1
        && registers.count >= 32
        && window == 1
        && oh * ow >= POINTWISE_COLUMN_POSITIONS
        && taps <= POINTWISE_COLUMN_TAPS
        && f <= POINTWISE_COLUMN_FILTERS;
    let columns = decided.filter(|&columns| {
        let outputs = |[th, tw, tf]: [i64; 3]| th * tw * tf;
        pointwise
            || registers.few_filters(f)
            || taps <= STORE_BOUND_TAPS
            || (taps <= SPATIAL_TAPS && lanes.is_none_or(|lanes| outputs(columns) >= outputs(lanes)))
    });
    let columns = columns.and_then(|_| spatial_tiles(ow, f, sw, registers));
    match columns {
        Some(tiles) => Some((tiles, true)),
        None => lanes.map(|tiles| (tiles, false)),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        conv_block, conv_tiles, grouped_tiles, partial, partial_filters, spatial_tiles, whole_filters,
        wide_filter_tiles, Registers,
    };

    const AVX512: Registers = Registers::new(32, 16);
    const AVX2: Registers = Registers::new(16, 8);

    #[test]
    fn lanes_name_the_register_file() {
        assert_eq!(Registers::for_lanes(16), AVX512);
        assert_eq!(Registers::for_lanes(8), AVX2);
    }

    #[test]
    fn register_blocks_divide_the_output() {
        // ResNet-18's stages: 8 or 7 positions x 32 filters (16 zmm accumulators or 14).
        assert_eq!(conv_tiles(56, 56, 64, 9, AVX512), Some([1, 8, 32]));
        assert_eq!(conv_tiles(28, 28, 128, 9, AVX512), Some([1, 7, 32]));
        assert_eq!(conv_tiles(7, 7, 512, 9, AVX512), Some([1, 7, 32]));
        // MobileNetV2: 24 filters take half registers (14 positions); 16 filters leave room
        // for 16 positions.
        assert_eq!(conv_tiles(56, 56, 24, 9, AVX512), Some([1, 14, 8]));
        assert_eq!(conv_tiles(112, 112, 16, 9, AVX512), Some([1, 16, 16]));
        // Small outputs take rows too; odd filter counts are not blocked.
        assert_eq!(conv_tiles(4, 3, 32, 9, AVX512), Some([4, 3, 32]));
        assert_eq!(conv_tiles(8, 8, 30, 9, AVX512), None);
        // DenseNet's growth rate: 12 filters take quarter registers (4 lanes) under a 3x3
        // window; a 1x1 convolution of 36 filters is left to the loop nest.
        assert_eq!(conv_tiles(32, 32, 12, 9, AVX512), Some([1, 16, 4]));
        assert_eq!(conv_tiles(32, 32, 36, 1, AVX512), None);
        // Four registers of filters: 6 positions (24 accumulators), the last block of 1600
        // positions 4 wide.
        assert_eq!(wide_filter_tiles(1600, 64, AVX512), Some([1, 6, 64]));
        assert_eq!(wide_filter_tiles(1600, 80, AVX512), None);
        assert_eq!(conv_tiles(32, 32, 36, 9, AVX512), Some([1, 16, 4]));
        // AVX2: 16 registers of 8 lanes. A prime 7 x 7 output cannot take two rows of 16
        // filters' accumulators; 7 positions of 8 filters keep more registers busy.
        assert_eq!(conv_tiles(56, 56, 64, 9, AVX2), Some([1, 4, 16]));
        assert_eq!(conv_tiles(7, 7, 160, 9, AVX2), Some([1, 7, 8]));
        // A prime extent above the register count leaves whole blocks of one position (2
        // accumulators, waiting on the latency): a partial block of each row instead, as
        // conv-borders' 94 x 94 interiors (2 x 2 positions whole) take.
        assert_eq!(conv_tiles(13, 13, 64, 9, AVX2), Some([1, 6, 16]));
        assert!(partial([1, 6, 16], 13));
        assert_eq!(conv_tiles(94, 94, 16, 9, AVX512), Some([1, 24, 16]));
        assert!(partial([1, 24, 16], 94));
        // A wide output whose largest fitting divisor is small (222 = 2 x 3 x 37) takes a row
        // of 12 positions with a partial last block, not 2 x 6; a map no wider than a block
        // keeps its rows.
        assert_eq!(conv_tiles(222, 222, 32, 9, AVX512), Some([1, 12, 32]));
        assert!(partial([1, 12, 32], 222));
        assert_eq!(conv_tiles(8, 8, 16, 9, AVX512), Some([2, 8, 16]));
        assert_eq!(conv_tiles(6, 6, 32, 9, AVX512), Some([2, 6, 32]));
        // One row: a partial block where whole ones keep few accumulators busy. 49 positions
        // (MobileNetV2's 7 x 7, flattened): 6 x 16 filters, the last block 1 wide; 196: the
        // last 4 wide; 48 and 36 have whole blocks as good.
        assert_eq!(conv_tiles(1, 49, 320, 1, AVX2), Some([1, 6, 16]));
        assert!(partial([1, 6, 16], 49));
        assert_eq!(conv_tiles(1, 196, 96, 1, AVX2), Some([1, 6, 16]));
        assert_eq!(conv_tiles(1, 48, 320, 1, AVX2), Some([1, 6, 16]));
        assert!(!partial([1, 6, 16], 48));
        assert_eq!(conv_tiles(1, 36, 64, 1, AVX2), Some([1, 6, 16]));
        // On AVX-512 the 12 x 32 blocks' last one (2 accumulators) would wait on the latency:
        // whole 7 x 32 blocks, every one at the FMA peak.
        assert_eq!(conv_tiles(1, 49, 32, 1, AVX512), Some([1, 7, 32]));
        assert_eq!(conv_tiles(1, 196, 320, 1, AVX512), Some([1, 12, 32]));
        // Not for several rows, nor for a row narrower than a block.
        assert_eq!(conv_tiles(7, 7, 320, 1, AVX2), Some([1, 7, 8]));
        assert_eq!(conv_tiles(1, 5, 320, 1, AVX2), Some([1, 5, 16]));
    }

    #[test]
    fn few_filters_put_columns_in_the_lanes() {
        // DenseNet: 12 filters x two vectors of columns (24 accumulators); 36 filters at 16
        // columns take one vector and 18 filters (the largest divisor within 24).
        assert_eq!(spatial_tiles(32, 12, 1, AVX512), Some([1, 32, 12]));
        assert_eq!(spatial_tiles(16, 36, 1, AVX512), Some([1, 16, 18]));
        assert_eq!(spatial_tiles(32, 36, 1, AVX512), Some([1, 32, 12]));
        // Filters that fill registers: MobileNetV2's 112 columns (two vectors a tile, the last
        // of a row one), its 56 (one vector, the last half of one: two would leave one and a
        // half); 64 has whole blocks.
        assert_eq!(spatial_tiles(112, 96, 1, AVX512), Some([1, 32, 12]));
        assert!(partial([1, 32, 12], 112));
        assert_eq!(spatial_tiles(56, 24, 1, AVX512), Some([1, 16, 24]));
        assert!(partial([1, 16, 24], 56));
        assert_eq!(spatial_tiles(64, 24, 1, AVX512), Some([1, 32, 12]));
        // AVX2: 56 columns take two vectors (the last of a row one), where one vector held as
        // many FMAs with twice the broadcasts; 28 one vector and a rest of half of one (two
        // would leave one and a half).
        assert_eq!(spatial_tiles(56, 24, 1, AVX2), Some([1, 16, 6]));
        assert_eq!(spatial_tiles(28, 144, 1, AVX2), Some([1, 8, 12]));
        assert!(partial([1, 8, 12], 28));
        // A partial block of filters where their divisors fill few accumulators: 128 filters
        // take 6 (the last block 2), 160 take 6 (the last 4); 96 have whole blocks of 6.
        assert_eq!(spatial_tiles(32, 128, 1, AVX2), Some([1, 16, 6]));
        assert!(partial_filters([1, 16, 6], 128));
        assert_eq!(spatial_tiles(32, 160, 1, AVX2), Some([1, 16, 6]));
        assert_eq!(spatial_tiles(32, 96, 1, AVX2), Some([1, 16, 6]));
        assert!(!partial_filters([1, 16, 6], 96));
        assert_eq!(whole_filters([1, 16, 6], 128), [1, 16, 4]);
        assert_eq!(whole_filters([1, 16, 6], 96), [1, 16, 6]);
        // Not for strided columns, widths no vector divides, few filters at half vectors.
        assert_eq!(spatial_tiles(32, 12, 2, AVX512), None);
        assert_eq!(spatial_tiles(28, 12, 1, AVX512), None);
        assert_eq!(spatial_tiles(56, 12, 1, AVX512), None);
        // AVX2: 6 filters over 8 columns.
        assert_eq!(spatial_tiles(8, 6, 1, AVX2), Some([1, 8, 6]));
        // The block: columns for few filters, for few taps, and for up to 256 taps when their
        // tile holds as many outputs; filter lanes otherwise.
        assert_eq!(conv_block(32, 32, 12, 432, 9, 1, AVX512, 2), Some(([1, 32, 12], true)));
        assert_eq!(conv_block(28, 28, 12, 432, 9, 1, AVX512, 2), Some(([1, 14, 4], false)));
        // MobileNetV2's 24 -> 144 expansion at 56 x 56: one vector of columns by 24 filters,
        // the last 8 columns of a row half a vector (two vectors left 24 columns: 3.4 ms
        // against 0.3-0.45 on an AVX-512 Xeon).
        assert_eq!(conv_block(56, 56, 144, 24, 1, 1, AVX512, 2), Some(([1, 16, 24], true)));
        assert_eq!(conv_block(56, 56, 24, 96, 1, 1, AVX512, 2), Some(([1, 16, 24], true)));
        assert_eq!(conv_block(112, 112, 96, 16, 1, 1, AVX512, 2), Some(([1, 32, 12], true)));
        assert_eq!(conv_block(56, 56, 128, 128, 1, 1, AVX512, 2), Some(([1, 8, 32], false)));
        // One thread: a big 1x1 convolution's columns in the lanes; not under 1600 positions,
        // over 192 channels or 128 filters, nor on AVX2.
        assert_eq!(conv_block(56, 56, 128, 128, 1, 1, AVX512, 1), Some(([1, 16, 16], true)));
        assert_eq!(conv_block(20, 20, 128, 192, 1, 1, AVX512, 1).map(|(_, columns)| columns), Some(false));
        assert_eq!(conv_block(40, 40, 128, 256, 1, 1, AVX512, 1).map(|(_, columns)| columns), Some(false));
        assert_eq!(conv_block(40, 40, 144, 96, 1, 1, AVX512, 1).map(|(_, columns)| columns), Some(false));
        assert_eq!(conv_block(56, 56, 128, 128, 1, 1, AVX2, 1), conv_block(56, 56, 128, 128, 1, 1, AVX2, 2));
        assert_eq!(conv_block(56, 56, 128, 128, 1, 1, AVX2, 2), Some(([1, 16, 4], true)));
        assert_eq!(conv_block(56, 56, 64, 576, 9, 1, AVX512, 2), Some(([1, 8, 32], false)));
        assert_eq!(conv_block(28, 28, 36, 72, 1, 1, AVX512, 2), None);
        // AVX2: MobileNetV2's 24-channel expansion at 56 keeps its columns (as many outputs a
        // tile, in two vectors); its 32-channel one at 28 takes filter lanes (half vectors hold
        // fewer).
        assert_eq!(conv_block(56, 56, 144, 24, 1, 1, AVX2, 2), Some(([1, 16, 6], true)));
        assert_eq!(conv_block(28, 28, 192, 32, 1, 1, AVX2, 2), Some(([1, 4, 16], false)));
    }

    #[test]
    fn groups_fill_registers_with_rows() {
        // ResNeXt's groups of 4 filters: 8 columns at 56, 14 lanes of a vector at 28, 7 at 7;
        // rows fill the 24 accumulators.
        assert_eq!(grouped_tiles(56, 56, 4, [1, 1], AVX512), Some([4, 8, 4]));
        assert_eq!(grouped_tiles(28, 28, 4, [1, 1], AVX512), Some([4, 14, 4]));
        assert_eq!(grouped_tiles(7, 7, 4, [1, 1], AVX512), Some([1, 7, 4]));
        assert_eq!(grouped_tiles(3, 3, 4, [1, 1], AVX512), None);
        // Strided rows one at a time; strided columns not at all.
        assert_eq!(grouped_tiles(14, 28, 4, [2, 1], AVX512), Some([1, 14, 4]));
        assert_eq!(grouped_tiles(28, 28, 4, [1, 2], AVX512), None);
    }
}
