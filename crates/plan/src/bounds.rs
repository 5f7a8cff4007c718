//! Lower bounds that every plan is reported against.

use crate::problem::Problem;

/// The max-load bound for offsets: the largest total size live at one time (arena buffers
/// only, in-place partners counted once since they may share). No offset assignment can use
/// less. Sizes count as given (alignment padding can make the optimum larger).
pub fn max_load(problem: &Problem) -> u64 {
    let mut events: Vec<(u64, i128)> = Vec::new();
    for item in crate::offsets::items(problem) {
        events.push((item.lower, item.size as i128));
        events.push((item.upper, -(item.size as i128)));
    }
    // Ends before starts at the same time: lifetimes are half-open.
    events.sort_by_key(|&(t, delta)| (t, delta > 0));
    let (mut load, mut best) = (0i128, 0i128);
    for (_, delta) in events {
        load += delta;
        best = best.max(load);
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
