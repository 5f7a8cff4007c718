//! Offset strategies: every arena buffer gets a byte offset in one arena.
//!
//! Buffers joined by in-place partnerships are planned as one *item* (same offset, lifetime
//! the union), so every strategy honours them by construction.

use crate::objects::{ObjectStrategy, SharedObjects};
use crate::problem::{align_up, Problem};

/// Offsets of the arena buffers (`None` for other classes) and the arena size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetPlan {
    pub offsets: Vec<Option<u64>>,
    pub arena: u64,
}

/// A group of buffers that must share one offset: an in-place chain, named by its root (the
/// lowest buffer index of the chain).
#[derive(Clone, Debug)]
pub struct Item {
    pub root: usize,
    pub lower: u64,
    pub upper: u64,
    pub size: u64,
    pub align: u64,
}

/// Per buffer, the root of its in-place chain (union-find; a buffer without a partner is its
/// own root).
fn chain_roots(problem: &Problem) -> Vec<usize> {
    let n = problem.buffers.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (i, b) in problem.buffers.iter().enumerate() {
        if let Some(p) = b.inplace {
            let (a, c) = (root(&mut parent, i), root(&mut parent, p));
            parent[a.max(c)] = a.min(c);
        }
    }
    for i in 0..n {
        parent[i] = root(&mut parent, i);
    }
    parent
}

/// The items of a problem: in-place chains merged, arena buffers only, in the order of their
/// roots. No allocation per item: a million buffers cost two vectors.
pub fn items(problem: &Problem) -> Vec<Item> {
    let roots = chain_roots(problem);
    let mut item_of_root = vec![usize::MAX; problem.buffers.len()];
    let mut items: Vec<Item> = Vec::new();
    for i in problem.arena_buffers() {
        let b = &problem.buffers[i];
        let r = roots[i];
        if item_of_root[r] == usize::MAX {
            item_of_root[r] = items.len();
            items.push(Item { root: r, lower: b.lower, upper: b.upper, size: 0, align: 1 });
        }
        let item = &mut items[item_of_root[r]];
        item.lower = item.lower.min(b.lower);
        item.upper = item.upper.max(b.upper);
        item.size = item.size.max(b.size);
        item.align = item.align.max(b.align);
    }
    // Roots are the lowest index of their set, but a set's first arena buffer may come after
    // another set's: order by root.
    if !items.is_sorted_by_key(|item| item.root) {
        items.sort_by_key(|item| item.root);
    }
    items
}

impl OffsetPlan {
    /// Expands per-item offsets (of [`items`] of the same problem) to per-buffer offsets.
    pub fn from_items(problem: &Problem, items: &[Item], item_offsets: &[u64]) -> OffsetPlan {
        let roots = chain_roots(problem);
        let mut offset_of_root = vec![None; problem.buffers.len()];
        let mut arena = 0;
        for (item, &offset) in items.iter().zip(item_offsets) {
            offset_of_root[item.root] = Some(offset);
            arena = arena.max(offset + item.size);
        }
        let offsets = (0..problem.buffers.len())
            .map(|i| if problem.buffers[i].class.in_arena() { offset_of_root[roots[i]] } else { None })
            .collect();
        OffsetPlan { offsets, arena }
    }
}

/// The offset strategies by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetStrategy {
    /// TFLite/XLA: largest first, each into the best-fitting gap among buffers live at the
    /// same time, else on top.
    GreedyBySize,
    /// Ops by breadth (live bytes) descending, their buffers by size descending, best fit.
    GreedyByBreadth,
    /// A shared-object plan laid out object after object.
    Objects(ObjectStrategy),
}

impl OffsetStrategy {
    pub fn name(self) -> String {
        match self {
            OffsetStrategy::GreedyBySize => "greedy-by-size".into(),
            OffsetStrategy::GreedyByBreadth => "greedy-by-breadth".into(),
            OffsetStrategy::Objects(s) => format!("objects:{}", s.name()),
        }
    }

    pub fn run(self, problem: &Problem) -> OffsetPlan {
        let items = items(problem);
        match self {
            OffsetStrategy::GreedyBySize => {
                let mut order: Vec<usize> = (0..items.len()).collect();
                order.sort_by_key(|&k| {
                    (std::cmp::Reverse(items[k].size), std::cmp::Reverse(items[k].upper - items[k].lower), k)
                });
                OffsetPlan::from_items(problem, &items, &best_fit(&items, &order, problem.dag.as_ref()))
            }
            OffsetStrategy::GreedyByBreadth => {
                OffsetPlan::from_items(problem, &items, &best_fit(&items, &breadth_order(&items), problem.dag.as_ref()))
            }
            OffsetStrategy::Objects(strategy) => objects_to_offsets(problem, &strategy.run(problem)),
        }
    }
}

/// Items ordered by the breadth of the op they are live at: ops by total live size
/// descending, items of each op by size descending, each item at its first appearance.
/// Computed per item as the maximum breadth over its lifetime (a sparse-table range query),
/// which is the first op in that order to contain it.
fn breadth_order(items: &[Item]) -> Vec<usize> {
    let mut events: Vec<(u64, i128)> =
        items.iter().flat_map(|i| [(i.lower, i.size as i128), (i.upper, -(i.size as i128))]).collect();
    events.sort_by_key(|&(t, d)| (t, d > 0));
    let mut ops: Vec<(u64, u64)> = Vec::new(); // (time, live bytes from this time on)
    let mut load = 0i128;
    for (index, &(t, d)) in events.iter().enumerate() {
        load += d;
        if events.get(index + 1).is_none_or(|&(next, _)| next != t) {
            ops.push((t, load as u64));
        }
    }
    // A segment tree of the best op (largest breadth, then earliest) over ranges of ops:
    // two words per op, where a sparse table would take one per op and level.
    let better = |a: u32, b: u32| {
        if (ops[b as usize].1, std::cmp::Reverse(b)) > (ops[a as usize].1, std::cmp::Reverse(a)) {
            b
        } else {
            a
        }
    };
    let width = ops.len().max(1);
    let mut tree = vec![0u32; 2 * width];
    for (k, slot) in tree[width..].iter_mut().enumerate() {
        *slot = k as u32;
    }
    for k in (1..width).rev() {
        tree[k] = better(tree[2 * k], tree[2 * k + 1]);
    }
    let best_op = |from: usize, to: usize| {
        let (mut l, mut r) = (from + width, to + width);
        let mut best: Option<u32> = None;
        while l < r {
            if l & 1 == 1 {
                best = Some(best.map_or(tree[l], |b| better(b, tree[l])));
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                best = Some(best.map_or(tree[r], |b| better(b, tree[r])));
            }
            l >>= 1;
            r >>= 1;
        }
        best.expect("an item spans at least one op") as usize
    };
    let position = |t: u64| ops.partition_point(|&(time, _)| time < t);
    use std::cmp::Reverse;
    // Largest breadth first, then by op, then largest item first; `k` keeps it deterministic.
    let mut keyed: Vec<(Reverse<u64>, usize, Reverse<u64>, usize)> = items
        .iter()
        .enumerate()
        .map(|(k, item)| {
            let op = best_op(position(item.lower), position(item.upper));
            (Reverse(ops[op].1), op, Reverse(item.size), k)
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(.., k)| k).collect()
}

/// Places items in `order`, each at the smallest gap that fits among the already placed
/// items it conflicts with (sorted by offset), or on top of them. Items conflict when they
/// are live at the same time or, with a `dag` (parallel-aware), when it does not order them.
pub fn best_fit(items: &[Item], order: &[usize], dag: Option<&crate::dag::OpDag>) -> Vec<u64> {
    let lifetimes: Vec<(u64, u64)> = items.iter().map(|i| (i.lower, i.upper)).collect();
    let mut index = crate::time_index::TimeIndex::new(&lifetimes);
    let mut offsets = vec![0u64; items.len()];
    let mut placed_overlaps: Vec<(u64, u64)> = Vec::new();
    let mut placed: Vec<usize> = Vec::new();
    for &k in order {
        let item = &items[k];
        placed_overlaps.clear();
        match dag {
            None => index.query(k, |other| placed_overlaps.push((offsets[other], items[other].size))),
            Some(dag) => {
                for &other in &placed {
                    let o: &Item = &items[other];
                    let overlap = o.lower < item.upper && item.lower < o.upper;
                    if overlap || !dag.may_share((item.lower, item.upper), (o.lower, o.upper)) {
                        placed_overlaps.push((offsets[other], o.size));
                    }
                }
            }
        }
        placed_overlaps.sort_unstable();
        let (mut end, mut best): (u64, Option<(u64, u64)>) = (0, None);
        for &(offset, size) in &placed_overlaps {
            let candidate = align_up(end, item.align);
            if offset >= candidate + item.size {
                let gap = offset - candidate;
                if best.is_none_or(|(_, g)| gap < g) {
                    best = Some((candidate, gap));
                }
            }
            end = end.max(offset + size);
        }
        offsets[k] = best.map_or_else(|| align_up(end, item.align), |(o, _)| o);
        index.insert(k);
        if dag.is_some() {
            placed.push(k);
        }
    }
    offsets
}

/// Lays objects out end to end (each aligned to the largest alignment of its buffers).
pub fn objects_to_offsets(problem: &Problem, objects: &SharedObjects) -> OffsetPlan {
    let mut align = vec![1u64; objects.object_sizes.len()];
    for (i, object) in objects.object_of.iter().enumerate() {
        if let Some(o) = object {
            align[*o] = align[*o].max(problem.buffers[i].align);
        }
    }
    let mut base = Vec::with_capacity(objects.object_sizes.len());
    let mut end = 0;
    for (o, &size) in objects.object_sizes.iter().enumerate() {
        let start = align_up(end, align[o]);
        base.push(start);
        end = start + size;
    }
    let offsets = objects.object_of.iter().map(|o| o.map(|o| base[o])).collect();
    OffsetPlan { offsets, arena: end }
}
