//! Planning instances built backwards from a perfect packing, whose optimum is known.
//!
//! A `width` × `height` rectangle of (time × bytes) is cut, again and again, into pieces; each
//! piece becomes a buffer live over its time span with its height as its size. Every instant
//! is then covered exactly `height` bytes deep, so the max-load bound is `height` and the
//! packing the cuts came from reaches it: the optimum is exactly `height`.
//!
//! Guillotine cuts split a piece in two along time or bytes. A *pinwheel* splits it into five
//! (four pieces turning around a centre one) so that no straight cut separates them; its
//! packings cannot be found by cutting the arena recursively, which is what greedy and
//! section-by-section searches implicitly do. The exact solver's benchmark rows and tests
//! use both (`#20`: proved optimal within 1 s up to 600 buffers).

use crate::problem::{Buffer, Problem};

/// The cuts a tiling is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cuts {
    /// Straight cuts only.
    Guillotine,
    /// Pinwheels wherever a piece is large enough (three steps each way), straight cuts
    /// elsewhere.
    Pinwheel,
}

/// An instance and the packing it was cut from.
#[derive(Clone, Debug)]
pub struct Tiling {
    pub problem: Problem,
    /// The packing the cuts left: a solution with arena `height`.
    pub offsets: Vec<u64>,
    pub height: u64,
    /// Pinwheels among the cuts.
    pub pinwheels: usize,
}

/// A piece: time `[lower, upper)`, bytes `[offset, offset + size)`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    lower: u64,
    upper: u64,
    offset: u64,
    size: u64,
}

/// xorshift64*: deterministic, seedable, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `[low, high)`; `high > low`.
    fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low)
    }
}

/// Cuts a `width` × `height` rectangle into `buffers` pieces (fewer if the rectangle runs out
/// of unit cells), seeded. Sizes are multiples of `unit` bytes (`height` is in units; `unit`
/// is a power of two and every buffer's alignment), so offsets stay multiples of it too.
pub fn tiling(buffers: usize, width: u64, height: u64, unit: u64, cuts: Cuts, seed: u64) -> Tiling {
    assert!(unit.is_power_of_two(), "the unit is an alignment: a power of two");
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut pieces = vec![Piece { lower: 0, upper: width, offset: 0, size: height }];
    let mut pinwheels = 0;
    let mut stuck = 0;
    while pieces.len() < buffers && stuck < 64 * buffers {
        // Larger pieces are cut more often: pick the larger of two random ones.
        let (a, b) = (rng.range(0, pieces.len() as u64) as usize, rng.range(0, pieces.len() as u64) as usize);
        let area = |p: &Piece| (p.upper - p.lower) * p.size;
        let index = if area(&pieces[a]) >= area(&pieces[b]) { a } else { b };
        let p = pieces[index];
        let (w, h) = (p.upper - p.lower, p.size);
        let room_for_five = pieces.len() + 4 <= buffers;
        if cuts == Cuts::Pinwheel && w >= 3 && h >= 3 && room_for_five && rng.next().is_multiple_of(2) {
            let x1 = rng.range(p.lower + 1, p.upper - 1);
            let x2 = rng.range(x1 + 1, p.upper);
            let top = p.offset + h;
            let y1 = rng.range(p.offset + 1, top - 1);
            let y2 = rng.range(y1 + 1, top);
            let piece = |lower, upper, offset, end| Piece { lower, upper, offset, size: end - offset };
            pieces[index] = piece(p.lower, x2, p.offset, y1); // bottom, left and centre
            pieces.push(piece(x2, p.upper, p.offset, y2)); // right, lower and middle
            pieces.push(piece(x1, p.upper, y2, top)); // top, centre and right
            pieces.push(piece(p.lower, x1, y1, top)); // left, middle and upper
            pieces.push(piece(x1, x2, y1, y2)); // the centre
            pinwheels += 1;
            continue;
        }
        let along_time = if w >= 2 && h >= 2 { rng.next().is_multiple_of(2) } else { w >= 2 };
        if along_time {
            let mid = rng.range(p.lower + 1, p.upper);
            pieces[index].upper = mid;
            pieces.push(Piece { lower: mid, ..p });
        } else if h >= 2 {
            let mid = rng.range(1, h);
            pieces[index].size = mid;
            pieces.push(Piece { offset: p.offset + mid, size: h - mid, ..p });
        } else {
            stuck += 1;
        }
    }
    let problem = Problem::new(
        pieces
            .iter()
            .enumerate()
            .map(|(i, p)| Buffer { align: unit, ..Buffer::new(i.to_string(), p.lower, p.upper, p.size * unit) })
            .collect(),
    );
    Tiling { problem, offsets: pieces.iter().map(|p| p.offset * unit).collect(), height: height * unit, pinwheels }
}
