//! Memory-aware operator order: the order in which a block's independent ops run decides how
//! many of their results are live at once. Exporters list a multi-branch block (an Inception
//! cell, a detector's heads) as the model's code built it, often every branch's first layer
//! before any branch's second, so that every branch's widest tensor is live together.
//!
//! [`Block::order`] looks for an order with a lower peak of live bytes than the given one,
//! under the same model of memory as the in-order references ([`crate::in_order`], "plain"):
//! an op's results are allocated when it runs, beside its operands, and freed after their last
//! reader. It compares the given order with two greedy list schedules (among the ready ops,
//! the one that adds the fewest bytes net of what it frees, which finishes a branch before
//! starting the next; ties broken by the given order, or by continuing from the most recent
//! result) and keeps the lowest peak, then the lowest sum of live bytes over the steps (a
//! lower local peak counts where the highest one cannot move: the estimate's peak may not be
//! the arena's), the given order on a tie: the peak is never above the given order's under
//! the model.
//!
//! One constraint beyond the dependences: a value's last reader in the given order stays its
//! last reader. An op that writes over an operand (an in-place kernel, a convolution
//! accumulating onto a residual) can only do so at the operand's last reader, so every such
//! decision made on the given order stays valid.

use std::cmp::Reverse;

/// A block of ops as the scheduler sees them, in their given order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// Bytes of each op's results (0 for what takes no arena memory: constants, scalars).
    pub bytes: Vec<u64>,
    /// The ops whose results each op reads (earlier ops of the block; repeats allowed).
    pub reads: Vec<Vec<usize>>,
    /// Ops whose results outlive the block (returned): never freed.
    pub kept: Vec<bool>,
}

/// An order of a block's ops and its peak of live bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub order: Vec<usize>,
    pub peak: u64,
}

/// Blocks larger than this keep their order: each greedy step scans the ready ops.
pub const MAX_OPS: usize = 4096;

impl Block {
    fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Each op's distinct readers, in the given order.
    fn readers(&self) -> Vec<Vec<usize>> {
        let mut readers = vec![Vec::new(); self.len()];
        for (op, reads) in self.reads.iter().enumerate() {
            for &value in reads {
                if readers[value].last() != Some(&op) {
                    readers[value].push(op);
                }
            }
        }
        readers
    }

    /// The peak of live bytes when the ops run in `order` (every op once).
    pub fn peak(&self, order: &[usize]) -> u64 {
        self.cost(order).0
    }

    /// The peak of live bytes when the ops run in `order`, and the sum over the steps of the
    /// bytes live at each (which breaks ties between orders of the same peak: lower local
    /// peaks away from the highest one).
    pub fn cost(&self, order: &[usize]) -> (u64, u128) {
        let readers = self.readers();
        let mut left: Vec<usize> = readers.iter().map(Vec::len).collect();
        let (mut live, mut peak, mut area) = (0u64, 0u64, 0u128);
        for &op in order {
            live += self.bytes[op];
            peak = peak.max(live);
            area += u128::from(live);
            live -= self.freed(op, &mut left, &readers);
        }
        (peak, area)
    }

    /// Bytes freed once `op` has run (its operands' last reads, its own unread results), with
    /// `left` (readers not run yet, per op) updated.
    fn freed(&self, op: usize, left: &mut [usize], readers: &[Vec<usize>]) -> u64 {
        let mut freed = 0;
        for (i, &value) in self.reads[op].iter().enumerate() {
            if self.reads[op][..i].contains(&value) {
                continue;
            }
            left[value] -= 1;
            if left[value] == 0 && !self.kept[value] {
                freed += self.bytes[value];
            }
        }
        if readers[op].is_empty() && !self.kept[op] {
            freed += self.bytes[op];
        }
        freed
    }

    /// The ops each op must follow: the producers it reads, and for each value it reads last
    /// (in the given order), the value's other readers.
    fn predecessors(&self, readers: &[Vec<usize>]) -> Vec<Vec<usize>> {
        let mut before: Vec<Vec<usize>> = self.reads.clone();
        for value_readers in readers {
            if let Some((&last, others)) = value_readers.split_last() {
                before[last].extend_from_slice(others);
            }
        }
        for list in &mut before {
            list.sort_unstable();
            list.dedup();
        }
        before
    }

    /// A greedy list schedule: among the ready ops, the fewest bytes added net of those freed;
    /// ties by the given order, or (`follow`) by the latest-run operand first.
    fn greedy(&self, follow: bool) -> Vec<usize> {
        let n = self.len();
        let readers = self.readers();
        let before = self.predecessors(&readers);
        let mut after = vec![Vec::new(); n];
        let mut waiting: Vec<usize> = before.iter().map(Vec::len).collect();
        for (op, list) in before.iter().enumerate() {
            for &p in list {
                after[p].push(op);
            }
        }
        let mut left: Vec<usize> = readers.iter().map(Vec::len).collect();
        let mut step_of = vec![0usize; n];
        let mut ready: Vec<usize> = (0..n).filter(|&op| waiting[op] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while !ready.is_empty() {
            let net = |op: usize| -> i128 {
                let mut freed = 0i128;
                for (i, &value) in self.reads[op].iter().enumerate() {
                    if !self.reads[op][..i].contains(&value) && left[value] == 1 && !self.kept[value] {
                        freed += i128::from(self.bytes[value]);
                    }
                }
                i128::from(self.bytes[op]) - freed
            };
            let recent = |op: usize| self.reads[op].iter().map(|&v| step_of[v] + 1).max().unwrap_or(0);
            let (at, _) = ready
                .iter()
                .enumerate()
                .min_by_key(|&(_, &op)| (net(op), if follow { Reverse(recent(op)) } else { Reverse(0) }, op))
                .expect("a ready op");
            let op = ready.swap_remove(at);
            step_of[op] = order.len();
            order.push(op);
            self.freed(op, &mut left, &readers);
            for &next in &after[op] {
                waiting[next] -= 1;
                if waiting[next] == 0 {
                    ready.push(next);
                }
            }
        }
        order
    }

    /// The order with the lowest peak among the given one and the greedy schedules, and among
    /// those of that peak the lowest sum of live bytes over the steps (the given one on a full
    /// tie, and for blocks over [`MAX_OPS`] ops).
    pub fn order(&self) -> Order {
        let given: Vec<usize> = (0..self.len()).collect();
        let mut best_cost = self.cost(&given);
        let mut best = Order { peak: best_cost.0, order: given };
        if self.len() > MAX_OPS {
            return best;
        }
        for follow in [false, true] {
            let order = self.greedy(follow);
            if order.len() != self.len() {
                // Only a cycle would leave ops unscheduled; the reads point backwards.
                continue;
            }
            let cost = self.cost(&order);
            if cost < best_cost {
                best_cost = cost;
                best = Order { peak: cost.0, order };
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input read by `branches` branches, each a wide layer then a narrow one, joined.
    fn inception(branches: usize) -> Block {
        let mut block = Block { bytes: vec![16], reads: vec![vec![]], kept: vec![false] };
        let heads: Vec<usize> = (0..branches)
            .map(|_| {
                block.bytes.push(256);
                block.reads.push(vec![0]);
                block.bytes.len() - 1
            })
            .collect();
        let tails: Vec<usize> = heads
            .iter()
            .map(|&head| {
                block.bytes.push(8);
                block.reads.push(vec![head]);
                block.bytes.len() - 1
            })
            .collect();
        block.bytes.push(8 * branches as u64);
        block.reads.push(tails);
        block.kept = vec![false; block.bytes.len()];
        *block.kept.last_mut().unwrap() = true;
        block
    }

    #[test]
    fn branches_finish_one_at_a_time() {
        let block = inception(4);
        // Given: every wide layer first: 16 + 4 x 256 live at once.
        assert_eq!(block.peak(&(0..block.bytes.len()).collect::<Vec<_>>()), 16 + 4 * 256);
        let best = block.order();
        // One wide layer at a time: the input, one wide layer and three narrow results.
        assert_eq!(best.peak, 16 + 256 + 3 * 8);
        assert_eq!(block.peak(&best.order), best.peak);
    }

    #[test]
    fn lower_local_peaks_count_where_the_highest_cannot_move() {
        // A 1000-byte value first (the peak, whatever the order), then two branches listed
        // breadth first: the greedy order finishes one before starting the other.
        let block = Block {
            bytes: vec![1000, 1, 100, 100, 10, 10, 20],
            reads: vec![vec![], vec![0], vec![1], vec![1], vec![2], vec![3], vec![4, 5]],
            kept: vec![false, false, false, false, false, false, true],
        };
        let given: Vec<usize> = (0..7).collect();
        let best = block.order();
        assert_eq!(best.peak, 1001);
        assert_eq!(best.order, [0, 1, 2, 4, 3, 5, 6]);
        assert!(block.cost(&best.order).1 < block.cost(&given).1);
    }

    #[test]
    fn never_worse_than_the_given_order() {
        // A chain has one order.
        let chain =
            Block { bytes: vec![4, 8, 2], reads: vec![vec![], vec![0], vec![1]], kept: vec![false, false, true] };
        assert_eq!(chain.order(), Order { order: vec![0, 1, 2], peak: 12 });
        // Random blocks: valid orders, never above the given peak.
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..200 {
            let n = 2 + next(30) as usize;
            let mut block = Block::default();
            for op in 0..n {
                block.bytes.push(next(100));
                let reads = if op == 0 { vec![] } else { (0..next(3)).map(|_| next(op as u64) as usize).collect() };
                block.reads.push(reads);
                block.kept.push(next(5) == 0);
            }
            let given: Vec<usize> = (0..n).collect();
            let best = block.order();
            assert!(best.peak <= block.peak(&given));
            assert_eq!(block.peak(&best.order), best.peak);
            // A permutation that respects the reads and keeps each value's last reader.
            let mut position = vec![usize::MAX; n];
            for (step, &op) in best.order.iter().enumerate() {
                position[op] = step;
            }
            assert!(position.iter().all(|&p| p < n));
            let readers = block.readers();
            for (op, reads) in block.reads.iter().enumerate() {
                assert!(reads.iter().all(|&v| position[v] < position[op]));
            }
            for list in readers {
                if let Some((&last, others)) = list.split_last() {
                    assert!(others.iter().all(|&o| position[o] < position[last]));
                }
            }
        }
    }
}
