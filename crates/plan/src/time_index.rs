//! A segment tree over time: which inserted lifetimes overlap a lifetime `[lower, upper)`.
//!
//! The lifetimes are known up front (one per id), so their end points are ranked once and
//! each id's leaf range is stored. An inserted lifetime is kept at its O(log T) canonical
//! nodes; a query walks the ancestors of its leaves bottom-up, level by level, and reports
//! each id once. With the short lifetimes of DL graphs this keeps greedy placement near
//! O(n log n).

pub struct TimeIndex {
    /// Per id, its leaf range `[first, last)`.
    leaves_of: Vec<(u32, u32)>,
    /// Per node, where its slots start in `slots` (CSR: node `k` owns the slots up to where
    /// node `k + 1`'s start) and how many of them are filled, side by side for locality.
    nodes: Vec<(u32, u32)>,
    /// The ids stored at each node, in insertion order. Every lifetime's canonical nodes are
    /// known up front, so the slots are allocated once: no allocation per insertion.
    slots: Vec<u32>,
    leaves: usize,
    /// The highest level (0 = leaves) at which anything is stored: queries stop there.
    top: u32,
    stamp: Vec<u32>,
    epoch: u32,
}

/// Calls `visit(node, level)` for each canonical node of the leaf range `[l, r)`.
fn canonical(leaves: usize, (l, r): (u32, u32), mut visit: impl FnMut(usize, u32)) {
    let (mut l, mut r) = (l as usize + leaves, r as usize + leaves);
    let mut level = 0;
    while l < r {
        if l & 1 == 1 {
            visit(l, level);
            l += 1;
        }
        if r & 1 == 1 {
            r -= 1;
            visit(r, level);
        }
        l >>= 1;
        r >>= 1;
        level += 1;
    }
}

impl TimeIndex {
    /// An empty index for the lifetimes `[lower, upper)` of ids `0..lifetimes.len()`.
    pub fn new(lifetimes: &[(u64, u64)]) -> Self {
        // A lifetime has at most two canonical nodes per level (64 levels at most), so the
        // slot count fits in u32 below this.
        assert!(lifetimes.len() <= (u32::MAX / 128) as usize, "the time index holds at most 2^25 lifetimes");
        let mut points: Vec<u64> = lifetimes.iter().flat_map(|&(l, u)| [l, u]).collect();
        points.sort_unstable();
        points.dedup();
        let position = |t: u64| points.partition_point(|&p| p < t) as u32;
        let leaves_of: Vec<(u32, u32)> = lifetimes.iter().map(|&(l, u)| (position(l), position(u))).collect();
        let leaves = points.len().saturating_sub(1).max(1).next_power_of_two();
        let mut nodes = vec![(0u32, 0u32); 2 * leaves];
        for &range in &leaves_of {
            canonical(leaves, range, |node, _| nodes[node].1 += 1);
        }
        let mut total = 0u32;
        for node in &mut nodes {
            let count = node.1;
            *node = (total, 0);
            total += count;
        }
        TimeIndex {
            leaves_of,
            nodes,
            slots: vec![0; total as usize],
            leaves,
            top: 0,
            stamp: vec![0; lifetimes.len()],
            epoch: 0,
        }
    }

    /// Adds id `id` with its lifetime.
    pub fn insert(&mut self, id: usize) {
        let (nodes, slots, top) = (&mut self.nodes, &mut self.slots, &mut self.top);
        canonical(self.leaves, self.leaves_of[id], |node, level| {
            let (start, filled) = &mut nodes[node];
            slots[(*start + *filled) as usize] = id as u32;
            *filled += 1;
            *top = (*top).max(level);
        });
    }

    /// Calls `found` once for every inserted id whose lifetime overlaps id `of`'s.
    pub fn query(&mut self, of: usize, mut found: impl FnMut(usize)) {
        let (l, r) = self.leaves_of[of];
        let (l, r) = (l as usize, r as usize);
        if l >= r {
            return;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        // A stored lifetime overlaps the query iff it is kept at an ancestor of one of the
        // query's leaves: walk those ancestors level by level.
        let (mut first, mut last) = (l + self.leaves, r - 1 + self.leaves);
        for _ in 0..=self.top {
            for node in first..=last {
                let (start, filled) = self.nodes[node];
                let slots = start as usize..(start + filled) as usize;
                for &id in &self.slots[slots] {
                    let id = id as usize;
                    if self.stamp[id] != self.epoch {
                        self.stamp[id] = self.epoch;
                        found(id);
                    }
                }
            }
            first >>= 1;
            last >>= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TimeIndex;

    #[test]
    fn reports_exactly_the_overlapping_lifetimes() {
        let stored = [(0u64, 3u64), (2, 5), (5, 9), (1, 9), (7, 8)];
        let queries = [(0, 1), (3, 5), (5, 7), (4, 6), (8, 9), (0, 9)];
        let all: Vec<(u64, u64)> = stored.iter().chain(&queries).copied().collect();
        let mut index = TimeIndex::new(&all);
        for id in 0..stored.len() {
            index.insert(id);
        }
        for (q, &(ql, qu)) in queries.iter().enumerate() {
            let mut got = Vec::new();
            index.query(stored.len() + q, |id| got.push(id));
            got.sort();
            let want: Vec<usize> = (0..stored.len()).filter(|&i| stored[i].0 < qu && ql < stored[i].1).collect();
            assert_eq!(got, want, "query [{ql}, {qu})");
        }
    }
}
