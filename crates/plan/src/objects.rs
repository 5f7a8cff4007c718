//! Shared-object strategies (the TFLite GPU delegate family).
//!
//! Each strategy assigns every arena buffer to an object; buffers of one object never live at
//! the same time; an object is as large as its largest buffer. The total is the sum of object
//! sizes. Semantics follow TFLite's `memory_management` (closed intervals there, half-open
//! here); ties are broken by buffer index so results are deterministic. With a dependency
//! DAG (parallel-aware planning) an object is reused only by a buffer whose producer depends
//! on the last use of the object's buffers, as TFLite's reallocation graph restricts it.

use crate::bounds::positional_maxima;
use crate::problem::Problem;
use std::collections::BTreeSet;

/// Buffer → object assignment (for arena buffers; others map to `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedObjects {
    pub object_of: Vec<Option<usize>>,
    pub object_sizes: Vec<u64>,
}

impl SharedObjects {
    /// Sum of object sizes.
    pub fn total(&self) -> u64 {
        self.object_sizes.iter().sum()
    }

    fn new(n: usize) -> Self {
        SharedObjects { object_of: vec![None; n], object_sizes: Vec::new() }
    }

    fn assign(&mut self, buffer: usize, object: Option<usize>, size: u64) -> usize {
        let object = object.unwrap_or_else(|| {
            self.object_sizes.push(0);
            self.object_sizes.len() - 1
        });
        self.object_sizes[object] = self.object_sizes[object].max(size);
        self.object_of[buffer] = Some(object);
        object
    }
}

/// The shared-object strategies by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectStrategy {
    Naive,
    Equality,
    GreedyInOrder,
    GreedyByBreadth,
    GreedyBySize,
    GreedyBest,
    MinCostFlow,
}

impl ObjectStrategy {
    pub const ALL: [ObjectStrategy; 7] = [
        ObjectStrategy::Naive,
        ObjectStrategy::Equality,
        ObjectStrategy::GreedyInOrder,
        ObjectStrategy::GreedyByBreadth,
        ObjectStrategy::GreedyBySize,
        ObjectStrategy::GreedyBest,
        ObjectStrategy::MinCostFlow,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ObjectStrategy::Naive => "naive",
            ObjectStrategy::Equality => "equality",
            ObjectStrategy::GreedyInOrder => "greedy-in-order",
            ObjectStrategy::GreedyByBreadth => "greedy-by-breadth",
            ObjectStrategy::GreedyBySize => "greedy-by-size",
            ObjectStrategy::GreedyBest => "greedy-best",
            ObjectStrategy::MinCostFlow => "min-cost-flow",
        }
    }

    pub fn run(self, problem: &Problem) -> SharedObjects {
        match self {
            ObjectStrategy::Naive => naive(problem),
            ObjectStrategy::Equality => equality(problem),
            ObjectStrategy::GreedyInOrder => greedy_in_order(problem),
            ObjectStrategy::GreedyByBreadth => greedy_by_breadth(problem),
            ObjectStrategy::GreedyBySize => greedy_by_size(problem),
            ObjectStrategy::GreedyBest => {
                let (a, b) = (greedy_by_size(problem), greedy_by_breadth(problem));
                if b.total() < a.total() {
                    b
                } else {
                    a
                }
            }
            ObjectStrategy::MinCostFlow => min_cost_flow(problem),
        }
    }
}

/// Arena buffers sorted by first use (then index): the order the sweeping strategies see.
fn by_first_use(problem: &Problem) -> Vec<usize> {
    let mut order = problem.arena_buffers();
    order.sort_by_key(|&i| (problem.buffers[i].lower, i));
    order
}

/// One object per buffer.
pub fn naive(problem: &Problem) -> SharedObjects {
    let mut plan = SharedObjects::new(problem.buffers.len());
    for i in problem.arena_buffers() {
        plan.assign(i, None, problem.buffers[i].size);
    }
    plan
}

/// Sweeps buffers by first use. Objects whose last buffer has died return to a pool; `pick`
/// chooses from the free objects (size, object) those `usable` allows (with a DAG, only
/// objects whose last buffer's uses the DAG orders before this buffer) and returns the one to
/// reuse, or none for a new object.
fn sweep(
    problem: &Problem,
    mut pick: impl FnMut(&BTreeSet<(u64, usize)>, u64, &dyn Fn(usize) -> bool) -> Option<(u64, usize)>,
) -> SharedObjects {
    let mut plan = SharedObjects::new(problem.buffers.len());
    let mut in_use: BTreeSet<(u64, usize)> = BTreeSet::new(); // (upper of current buffer, object)
    let mut free: BTreeSet<(u64, usize)> = BTreeSet::new(); // (object size, object)
    let mut last_of: Vec<usize> = Vec::new(); // per object, its latest buffer
    for i in by_first_use(problem) {
        let b = &problem.buffers[i];
        while let Some(&(upper, object)) = in_use.first() {
            if upper > b.lower {
                break;
            }
            in_use.pop_first();
            free.insert((plan.object_sizes[object], object));
        }
        let usable = |object: usize| !problem.conflict(last_of[object], i);
        let chosen = pick(&free, b.size, &usable);
        if let Some(entry) = chosen {
            free.remove(&entry);
        }
        let object = plan.assign(i, chosen.map(|(_, o)| o), b.size);
        if object == last_of.len() {
            last_of.push(i);
        }
        last_of[object] = i;
        in_use.insert((b.upper, object));
    }
    plan
}

/// Reuses a released object only when its size equals the buffer's.
pub fn equality(problem: &Problem) -> SharedObjects {
    sweep(problem, |free, size, usable| free.range((size, 0)..=(size, usize::MAX)).find(|&&(_, o)| usable(o)).copied())
}

/// Reuses the released object closest in size: the smallest one at least as large, or the
/// largest smaller one (which then grows) when that is closer.
pub fn greedy_in_order(problem: &Problem) -> SharedObjects {
    sweep(problem, |free, size, usable| {
        let larger = free.range((size, 0)..).find(|&&(_, o)| usable(o)).copied();
        let smaller = free.range(..(size, 0)).rev().find(|&&(_, o)| usable(o)).copied();
        match (larger, smaller) {
            (Some(l), Some(s)) => Some(if size - s.0 < l.0 - size { s } else { l }),
            (l, s) => l.or(s),
        }
    })
}

/// Lifetimes assigned to each object, for conflict checks.
struct ObjectUses<'a> {
    problem: &'a Problem,
    intervals: Vec<Vec<(u64, u64)>>,
}

impl ObjectUses<'_> {
    fn conflicts(&self, object: usize, lower: u64, upper: u64) -> bool {
        self.intervals[object].iter().any(|&other| self.problem.lifetimes_conflict(other, (lower, upper)))
    }

    /// Time distance to the nearest buffer of `object`, or `None` on a conflict.
    fn distance(&self, object: usize, lower: u64, upper: u64) -> Option<u64> {
        let mut best = u64::MAX;
        for &(l, u) in &self.intervals[object] {
            if self.problem.lifetimes_conflict((l, u), (lower, upper)) {
                return None;
            } else if u <= lower {
                best = best.min(lower - u + 1);
            } else {
                best = best.min(l - upper + 1);
            }
        }
        Some(best)
    }
}

/// Visits ops by breadth (total live size) descending, and in each op its unassigned
/// buffers by size descending. A buffer takes the smallest compatible object at least as
/// large, else the largest compatible smaller one (grown), else a new object.
pub fn greedy_by_breadth(problem: &Problem) -> SharedObjects {
    let arena = problem.arena_buffers();
    let mut times: Vec<u64> = arena.iter().map(|&i| problem.buffers[i].lower).collect();
    times.sort_unstable();
    times.dedup();
    let mut profiles: Vec<(u64, u64, Vec<usize>)> = times
        .iter()
        .map(|&t| {
            let mut live: Vec<usize> = arena
                .iter()
                .copied()
                .filter(|&i| problem.buffers[i].lower <= t && t < problem.buffers[i].upper)
                .collect();
            live.sort_by_key(|&i| (std::cmp::Reverse(problem.buffers[i].size), i));
            (live.iter().map(|&i| problem.buffers[i].size).sum(), t, live)
        })
        .collect();
    profiles.sort_by_key(|&(breadth, t, _)| (std::cmp::Reverse(breadth), t));
    let mut plan = SharedObjects::new(problem.buffers.len());
    let mut uses = ObjectUses { problem, intervals: Vec::new() };
    for (_, _, live) in profiles {
        for i in live {
            if plan.object_of[i].is_some() {
                continue;
            }
            let b = &problem.buffers[i];
            let mut best: Option<usize> = None;
            for object in 0..plan.object_sizes.len() {
                if uses.conflicts(object, b.lower, b.upper) {
                    continue;
                }
                let size = plan.object_sizes[object];
                let better = match best {
                    None => true,
                    Some(current) => {
                        let current = plan.object_sizes[current];
                        (current < b.size && size > current) || (size >= b.size && size < current)
                    }
                };
                if better {
                    best = Some(object);
                }
            }
            let object = plan.assign(i, best, b.size);
            if object == uses.intervals.len() {
                uses.intervals.push(Vec::new());
            }
            uses.intervals[object].push((b.lower, b.upper));
        }
    }
    plan
}

/// TFLite's greedy by size with distance priority. Each buffer gets a position: the last
/// index whose positional maximum is at least its size. Repeatedly, the unassigned buffer
/// with the smallest position, then the smallest time distance to a compatible object, then
/// the largest size, goes into its nearest compatible object (or a new one).
pub fn greedy_by_size(problem: &Problem) -> SharedObjects {
    let maxima = positional_maxima(problem);
    let arena = problem.arena_buffers();
    let position: Vec<usize> = arena
        .iter()
        .map(|&i| maxima.iter().take_while(|&&m| m >= problem.buffers[i].size).count().saturating_sub(1))
        .collect();
    let mut plan = SharedObjects::new(problem.buffers.len());
    let mut uses = ObjectUses { problem, intervals: Vec::new() };
    // (distance, object) of the nearest compatible object, per arena buffer.
    let mut nearest: Vec<Option<(u64, usize)>> = vec![None; arena.len()];
    let mut assigned = vec![false; arena.len()];
    for _ in 0..arena.len() {
        let pick = (0..arena.len())
            .filter(|&k| !assigned[k])
            .min_by_key(|&k| {
                let distance = nearest[k].map_or(u64::MAX, |(d, _)| d);
                (position[k], distance, std::cmp::Reverse(problem.buffers[arena[k]].size), k)
            })
            .expect("an unassigned buffer remains");
        assigned[pick] = true;
        let b = &problem.buffers[arena[pick]];
        let object = plan.assign(arena[pick], nearest[pick].map(|(_, o)| o), b.size);
        if object == uses.intervals.len() {
            uses.intervals.push(Vec::new());
        }
        uses.intervals[object].push((b.lower, b.upper));
        for k in (0..arena.len()).filter(|&k| !assigned[k]) {
            let other = &problem.buffers[arena[k]];
            nearest[k] = (0..plan.object_sizes.len())
                .filter_map(|o| uses.distance(o, other.lower, other.upper).map(|d| (d, o)))
                .min();
        }
    }
    plan
}

/// Min-cost flow (TFLite): a bipartite graph of left copies L_i and right copies R_i.
/// source→L_i and R_i→sink cost 0; source→R_i costs size_i (a new object); L_j→R_i, when j
/// dies before i starts, costs max(0, size_i − size_j) (i reuses j's object). Each R_i gets one
/// unit; chains of L→R edges are objects, sized to the largest buffer on the chain.
pub fn min_cost_flow(problem: &Problem) -> SharedObjects {
    let order = by_first_use(problem);
    let n = order.len();
    let (source, sink) = (2 * n, 2 * n + 1);
    let mut graph = crate::flow::Graph::new(2 * n + 2);
    for (k, &buffer) in order.iter().enumerate() {
        let size = problem.buffers[buffer].size;
        graph.add_edge(source, k, 1, 0);
        graph.add_edge(n + k, sink, 1, 0);
        graph.add_edge(source, n + k, 1, size as i64);
    }
    let mut reuse_edges = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (bj, bi) = (&problem.buffers[order[j]], &problem.buffers[order[i]]);
            if bj.upper <= bi.lower && !problem.conflict(order[j], order[i]) {
                let edge = graph.add_edge(j, n + i, 1, bi.size.saturating_sub(bj.size) as i64);
                reuse_edges.push((edge, j, i));
            }
        }
    }
    graph.min_cost_max_flow(source, sink);
    let mut next: Vec<Option<usize>> = vec![None; n];
    let mut has_prev = vec![false; n];
    for (edge, j, i) in reuse_edges {
        if graph.flow(edge) > 0 {
            next[j] = Some(i);
            has_prev[i] = true;
        }
    }
    let mut plan = SharedObjects::new(problem.buffers.len());
    for start in (0..n).filter(|&k| !has_prev[k]) {
        let mut object = None;
        let mut k = Some(start);
        while let Some(current) = k {
            object = Some(plan.assign(order[current], object, problem.buffers[order[current]].size));
            k = next[current];
        }
    }
    plan
}
