//! Lower bounds that every plan is reported against.

use crate::problem::Problem;

/// The max-load bound for offsets: the largest total size live at one time (arena buffers
/// only, in-place partners counted once since they may share), with alignment: every offset
/// is a multiple of the smallest alignment `g` (alignments are powers of two), so of the
/// buffers live at one time every one but the highest takes its size rounded up to `g` (the
/// next one starts at a multiple of `g` at or past its end). No offset assignment can use
/// less. With alignment 1 this is the plain largest live total; with 64-byte alignment it
/// proved a vision transformer's plan optimal at once (its plain bound was 24 bytes short,
/// and the exact solver spent its whole second failing to meet it).
pub fn max_load(problem: &Problem) -> u64 {
    let items = crate::offsets::items(problem);
    let g = items.iter().map(|item| item.align.max(1)).min().unwrap_or(1);
    // (time, is a start, rounded size, padding): ends before starts at the same time, as
    // lifetimes are half-open.
    let mut events: Vec<(u64, bool, u64, u64)> = Vec::new();
    for item in &items {
        let rounded = crate::problem::align_up(item.size, g);
        events.push((item.lower, true, rounded, rounded - item.size));
        events.push((item.upper, false, rounded, rounded - item.size));
    }
    events.sort_by_key(|&(t, start, ..)| (t, start));
    // The live buffers' rounded sizes, and their paddings as a multiset (the highest buffer
    // needs none: the one with the most is best put there).
    let (mut load, mut best) = (0u128, 0u128);
    let mut paddings: std::collections::BTreeMap<u64, usize> = std::collections::BTreeMap::new();
    for (_, start, rounded, padding) in events {
        if start {
            load += u128::from(rounded);
            *paddings.entry(padding).or_insert(0) += 1;
        } else {
            load -= u128::from(rounded);
            if let Some(count) = paddings.get_mut(&padding) {
                *count -= 1;
                if *count == 0 {
                    paddings.remove(&padding);
                }
            }
        }
        let top = paddings.keys().next_back().copied().unwrap_or(0);
        best = best.max(load - u128::from(top));
    }
    best as u64
}

/// Positional maximums (TFLite): `pm[i]` is the largest i-th largest size over all times.
/// Their sum bounds any shared-object plan from below.
pub fn positional_maxima(problem: &Problem) -> Vec<u64> {
    // Sweep the start times (a maximum of the live set occurs at one); the live sizes are
    // kept in a sorted multiset. Cost: the sum of the live-set sizes at start times.
    let mut starts: Vec<(u64, u64)> = Vec::new();
    let mut ends: Vec<(u64, u64)> = Vec::new();
    for b in problem.buffers.iter().filter(|b| b.class.in_arena()) {
        starts.push((b.lower, b.size));
        ends.push((b.upper, b.size));
    }
    starts.sort_unstable();
    ends.sort_unstable();
    let mut live: std::collections::BTreeMap<u64, usize> = std::collections::BTreeMap::new();
    let mut maxima: Vec<u64> = Vec::new();
    let (mut s, mut e) = (0, 0);
    while s < starts.len() {
        let t = starts[s].0;
        while e < ends.len() && ends[e].0 <= t {
            let count = live.get_mut(&ends[e].1).expect("ended buffers were live");
            *count -= 1;
            if *count == 0 {
                live.remove(&ends[e].1);
            }
            e += 1;
        }
        while s < starts.len() && starts[s].0 == t {
            *live.entry(starts[s].1).or_insert(0) += 1;
            s += 1;
        }
        let sizes = live.iter().rev().flat_map(|(&size, &count)| std::iter::repeat_n(size, count));
        for (i, size) in sizes.enumerate() {
            if i == maxima.len() {
                maxima.push(size);
            } else if maxima[i] < size {
                maxima[i] = size;
            }
        }
    }
    maxima
}

/// The shared-object lower bound: the sum of the positional maximums.
pub fn shared_objects_bound(problem: &Problem) -> u64 {
    positional_maxima(problem).iter().sum()
}
