//! Lower bounds that every plan is reported against.

use crate::problem::Problem;

/// The max-load bound for offsets: the largest total size live at one time (arena buffers
/// only). No offset assignment can use less. Sizes count as given (alignment padding can
/// make the optimum larger).
pub fn max_load(problem: &Problem) -> u64 {
    let mut events: Vec<(u64, i128)> = Vec::new();
    for b in problem.buffers.iter().filter(|b| b.class.in_arena()) {
        events.push((b.lower, b.size as i128));
        events.push((b.upper, -(b.size as i128)));
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
    let arena: Vec<_> = problem.buffers.iter().filter(|b| b.class.in_arena()).collect();
    let mut times: Vec<u64> = arena.iter().map(|b| b.lower).collect();
    times.sort_unstable();
    times.dedup();
    let mut maxima: Vec<u64> = Vec::new();
    for t in times {
        let mut live: Vec<u64> = arena.iter().filter(|b| b.lower <= t && t < b.upper).map(|b| b.size).collect();
        live.sort_unstable_by(|a, b| b.cmp(a));
        for (i, size) in live.into_iter().enumerate() {
            if i == maxima.len() {
                maxima.push(size);
            } else {
                maxima[i] = maxima[i].max(size);
            }
        }
    }
    maxima
}

/// The shared-object lower bound: the sum of the positional maximums.
pub fn shared_objects_bound(problem: &Problem) -> u64 {
    positional_maxima(problem).iter().sum()
}
