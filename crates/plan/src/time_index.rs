//! A segment tree over time: which placed items overlap a lifetime `[lower, upper)`.
//!
//! Each inserted lifetime is stored at its O(log T) canonical nodes; a query visits the
//! nodes that intersect it and reports each item once. With the short lifetimes of DL
//! graphs this keeps greedy placement near O(n log n).

pub struct TimeIndex {
    times: Vec<u64>,
    nodes: Vec<Vec<usize>>,
    leaves: usize,
    stamp: Vec<u32>,
    epoch: u32,
}

impl TimeIndex {
    /// An empty index over the given time points (every lower and upper that will be used).
    pub fn new(points: impl IntoIterator<Item = u64>) -> Self {
        let mut times: Vec<u64> = points.into_iter().collect();
        times.sort_unstable();
        times.dedup();
        let leaves = times.len().saturating_sub(1).max(1).next_power_of_two();
        TimeIndex { times, nodes: vec![Vec::new(); 2 * leaves], leaves, stamp: Vec::new(), epoch: 0 }
    }

    fn leaf_range(&self, lower: u64, upper: u64) -> (usize, usize) {
        let position = |t: u64| self.times.binary_search(&t).expect("time points are registered up front");
        (position(lower), position(upper))
    }

    /// Adds item `id` with lifetime `[lower, upper)`.
    pub fn insert(&mut self, id: usize, lower: u64, upper: u64) {
        let (mut l, mut r) = self.leaf_range(lower, upper);
        l += self.leaves;
        r += self.leaves;
        while l < r {
            if l & 1 == 1 {
                self.nodes[l].push(id);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.nodes[r].push(id);
            }
            l >>= 1;
            r >>= 1;
        }
        if self.stamp.len() <= id {
            self.stamp.resize(id + 1, 0);
        }
    }

    /// Calls `found` once for every inserted item whose lifetime overlaps `[lower, upper)`.
    pub fn query(&mut self, lower: u64, upper: u64, mut found: impl FnMut(usize)) {
        let (l, r) = self.leaf_range(lower, upper);
        if l >= r {
            return;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        self.visit(1, 0, self.leaves, l, r, &mut found);
    }

    fn visit(&mut self, node: usize, from: usize, to: usize, l: usize, r: usize, found: &mut impl FnMut(usize)) {
        if to <= l || r <= from {
            return;
        }
        for &id in &self.nodes[node] {
            if self.stamp[id] != self.epoch {
                self.stamp[id] = self.epoch;
                found(id);
            }
        }
        if to - from > 1 {
            let mid = (from + to) / 2;
            self.visit(2 * node, from, mid, l, r, found);
            self.visit(2 * node + 1, mid, to, l, r, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TimeIndex;

    #[test]
    fn reports_exactly_the_overlapping_lifetimes() {
        let lifetimes = [(0u64, 3u64), (2, 5), (5, 9), (1, 9), (7, 8)];
        let mut index = TimeIndex::new(lifetimes.iter().flat_map(|&(l, u)| [l, u]).chain([4, 6]));
        for (id, &(l, u)) in lifetimes.iter().enumerate() {
            index.insert(id, l, u);
        }
        for (ql, qu) in [(0, 1), (3, 5), (5, 7), (4, 6), (8, 9), (0, 9)] {
            let mut got = Vec::new();
            index.query(ql, qu, |id| got.push(id));
            got.sort();
            let want: Vec<usize> = (0..lifetimes.len()).filter(|&i| lifetimes[i].0 < qu && ql < lifetimes[i].1).collect();
            assert_eq!(got, want, "query [{ql}, {qu})");
        }
    }
}
