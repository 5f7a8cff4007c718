//! The decision search of the exact solver: do the items fit under a capacity `C`?
//!
//! Search space: *canonical* (gravity) packings, where each item sits on the highest item
//! below it in time: the `floor` of the sections (maximal time spans with a fixed live set)
//! it spans. Every feasible packing can be compacted into one, so the search is complete.
//! A node picks the next item in (offset, rank) order, as MiniMalloc does. Pruning:
//! - canonical order: placements along a path have non-decreasing (offset, rank), so an
//!   item left below the frontier needs a new support above it (its *lift*: the lowest top a
//!   time neighbour placed at or above the frontier can give it), and if no neighbour is left
//!   it can never be placed;
//! - dominance: an item whose offset is at or above the lowest top any unplaced item could
//!   reach is not placed now (that item fits below it and would be placed first);
//! - section inference: in every section, `max(floor, frontier, lowest earliest start of its
//!   unplaced items) + unplaced bytes` must fit under `C`, and a candidate whose offset would
//!   already waste too much of some section is not tried;
//! - hatless pruning: when the item just tried overlaps no unplaced item, its placement is
//!   independent of the rest, so if its subtree failed the node fails;
//! - dynamic decomposition: unplaced items that share no section are independent
//!   sub-problems, solved one after the other;
//! - nogoods: a failed state (its unplaced items, the floors of their sections, the frontier
//!   and the items excluded at the frontier's offset) is remembered with the capacity it
//!   failed at; a later visit at a capacity no larger fails at once. The table is shared by
//!   every restart and every capacity of one solve: a failure is a fact about the state, not
//!   about the order that reached it.

use super::skyline::Skyline;
use crate::dag::OpDag;
use crate::offsets::Item;
use crate::problem::align_up;
use std::collections::HashMap; // tidy: hash-lookup-only (the nogood table is never iterated)
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// Static data of an instance: sections, who is live where, who overlaps whom.
pub(super) struct Instance<'a> {
    pub items: &'a [Item],
    /// Per item, its section range `[first, last)`.
    pub span: Vec<(usize, usize)>,
    /// Per section, the items (of non-zero size) live in it.
    pub covering: Vec<Vec<usize>>,
    /// Per item, the items it may not share memory with: those it overlaps in time and, in
    /// parallel-aware planning, those the DAG does not order with it.
    neighbours: Vec<Vec<usize>>,
    /// Per item, the neighbours it does not overlap in time (parallel-aware planning only):
    /// they tie sub-problems that time alone would separate.
    unordered: Vec<Vec<usize>>,
    /// Whether any item has an unordered neighbour.
    pub tied: bool,
    /// Random keys of the items (unplaced; excluded at the frontier).
    pub zobrist: Vec<(u128, u128)>,
    /// The state before any placement, which every decision run starts from: per section the
    /// bytes and items live in it, per section boundary the items crossing it, and the key.
    pub totals: Vec<u64>,
    pub counts: Vec<u32>,
    pub cuts: Vec<u32>,
    pub key: u128,
    /// Per section boundary `k` (between sections `k - 1` and `k`), the bytes of the items
    /// that end there (their last section is `k - 1`) and of those that start there.
    pub ends: Vec<u64>,
    pub starts: Vec<u64>,
    /// Per section boundary, the items (of non-zero size) that end there and that start there.
    pub ending: Vec<Vec<usize>>,
    pub starting: Vec<Vec<usize>>,
    /// Per section, the bytes of the items live in it alone.
    pub single: Vec<u64>,
}

/// Entries an instance holds beyond O(n): its section lists and neighbour pairs. Beyond
/// this (about 256 MB of lists) the exact search is not started.
pub(super) const MAX_ENTRIES: u64 = 1 << 25;

/// The sections of `items`: the sorted distinct end points and each item's section range.
/// Computed once per solve: [`entries`] sizes an instance from it and [`Instance::new`]
/// builds on it.
pub(super) fn sections_of(items: &[Item]) -> (Vec<u64>, Vec<(usize, usize)>) {
    let mut points: Vec<u64> = items.iter().flat_map(|i| [i.lower, i.upper]).collect();
    points.sort_unstable();
    points.dedup();
    let position = |t: u64| points.binary_search(&t).expect("registered point");
    let span = items.iter().map(|i| (position(i.lower), position(i.upper))).collect();
    (points, span)
}

/// Calls `pair(a, b)` once for every two items of non-zero size that overlap in time: a
/// sweep by start time, O(n log n + pairs) time, O(n) memory.
fn overlapping_pairs(items: &[Item], mut pair: impl FnMut(usize, usize)) {
    let mut order: Vec<usize> = (0..items.len()).filter(|&i| items[i].size > 0).collect();
    order.sort_unstable_by_key(|&i| (items[i].lower, i));
    let mut live: Vec<usize> = Vec::new();
    let mut now = None;
    for i in order {
        let lower = items[i].lower;
        if now != Some(lower) {
            live.retain(|&j| items[j].upper > lower);
            now = Some(lower);
        }
        for &j in &live {
            pair(j, i);
        }
        live.push(i);
    }
}

/// The entries an instance of `items` (with section ranges `span`, from [`sections_of`])
/// would hold (see [`MAX_ENTRIES`]), counted without building it; `None` once the count
/// passes `limit`.
pub(super) fn entries(items: &[Item], span: &[(usize, usize)], dag: Option<&OpDag>, limit: u64) -> Option<u64> {
    let mut total: u64 = span.iter().zip(items).filter(|(_, i)| i.size > 0).map(|(&(a, b), _)| (b - a) as u64).sum();
    if dag.is_some() {
        // Every pair is compared against the DAG.
        let n = items.len() as u64;
        total = total.saturating_add(n.saturating_mul(n) / 2);
    }
    if total > limit {
        return None;
    }
    let mut pairs = 0u64;
    overlapping_pairs(items, |_, _| pairs += 2);
    total = total.saturating_add(pairs);
    (total <= limit).then_some(total)
}

impl<'a> Instance<'a> {
    /// The instance of `items`, on their sections (from [`sections_of`]).
    pub fn new(items: &'a [Item], (points, span): (Vec<u64>, Vec<(usize, usize)>), dag: Option<&OpDag>) -> Self {
        let mut covering = vec![Vec::new(); points.len().saturating_sub(1)];
        for (k, &(a, b)) in span.iter().enumerate() {
            if items[k].size > 0 {
                for list in &mut covering[a..b] {
                    list.push(k);
                }
            }
        }
        let mut neighbours = vec![Vec::new(); items.len()];
        overlapping_pairs(items, |a, b| {
            neighbours[a].push(b);
            neighbours[b].push(a);
        });
        let mut unordered = vec![Vec::new(); items.len()];
        if let Some(dag) = dag {
            for a in 0..items.len() {
                for b in a + 1..items.len() {
                    let (x, y) = (&items[a], &items[b]);
                    let overlap = x.lower < y.upper && y.lower < x.upper;
                    if !overlap && x.size > 0 && y.size > 0 && !dag.may_share((x.lower, x.upper), (y.lower, y.upper)) {
                        unordered[a].push(b);
                        unordered[b].push(a);
                        neighbours[a].push(b);
                        neighbours[b].push(a);
                    }
                }
            }
        }
        for list in &mut neighbours {
            list.sort_unstable();
        }
        let zobrist: Vec<(u128, u128)> =
            (0..items.len() as u64).map(|i| (hash128(1, i, 0), hash128(2, i, 0))).collect();
        let tied = unordered.iter().any(|list| !list.is_empty());
        let totals = covering.iter().map(|list| list.iter().map(|&i| items[i].size).sum()).collect();
        let counts = covering.iter().map(|list| list.len() as u32).collect();
        let mut key = 0;
        for (s, list) in covering.iter().enumerate() {
            if !list.is_empty() {
                key ^= section_key(s, 0);
            }
        }
        let mut cuts = vec![0; covering.len() + 1];
        for (i, &(a, b)) in span.iter().enumerate() {
            if items[i].size > 0 {
                key ^= zobrist[i].0;
                for cut in &mut cuts[a + 1..b] {
                    *cut += 1;
                }
            }
        }
        let (mut ends, mut starts, mut single) = (vec![0; cuts.len()], vec![0; cuts.len()], vec![0; covering.len()]);
        let (mut ending, mut starting) = (vec![Vec::new(); cuts.len()], vec![Vec::new(); cuts.len()]);
        for (i, &(a, b)) in span.iter().enumerate() {
            if items[i].size > 0 {
                starting[a].push(i);
                ending[b].push(i);
            }
            starts[a] += items[i].size;
            ends[b] += items[i].size;
            if b == a + 1 {
                single[a] += items[i].size;
            }
        }
        Instance {
            items,
            span,
            covering,
            neighbours,
            unordered,
            tied,
            zobrist,
            totals,
            counts,
            cuts,
            key,
            ends,
            starts,
            ending,
            starting,
            single,
        }
    }

    pub fn sections(&self) -> usize {
        self.covering.len()
    }
}

/// The section range `[first, end)` the items of `active` span.
pub(super) fn span_of(inst: &Instance, active: &[usize]) -> (usize, usize) {
    let first = active.iter().map(|&i| inst.span[i].0).min().unwrap_or(0);
    let end = active.iter().map(|&i| inst.span[i].1).max().unwrap_or(0);
    (first, end)
}

/// `active` split into groups that share no section and, in parallel-aware planning, no DAG
/// conflict with an unplaced item.
pub(super) fn groups(inst: &Instance, active: &[usize], placed: &[bool]) -> Vec<Vec<usize>> {
    let span = &inst.span;
    let mut order: Vec<usize> = active.to_vec();
    order.sort_unstable_by_key(|&i| span[i]);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut reach = 0;
    for i in order {
        let (a, b) = span[i];
        match groups.last_mut() {
            Some(group) if a < reach => group.push(i),
            _ => groups.push(vec![i]),
        }
        reach = reach.max(b);
    }
    if groups.len() > 1 && active.iter().any(|&i| !inst.unordered[i].is_empty()) {
        // Merge groups tied by unordered pairs (union-find over group indices).
        let mut group_of = vec![usize::MAX; inst.items.len()];
        for (g, group) in groups.iter().enumerate() {
            for &i in group {
                group_of[i] = g;
            }
        }
        let mut parent: Vec<usize> = (0..groups.len()).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for &i in active {
            for &j in &inst.unordered[i] {
                if !placed[j] && group_of[j] != usize::MAX {
                    let (a, b) = (root(&mut parent, group_of[i]), root(&mut parent, group_of[j]));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        let mut merged: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
        for (g, group) in groups.into_iter().enumerate() {
            merged[root(&mut parent, g)].extend(group);
        }
        groups = merged.into_iter().filter(|g| !g.is_empty()).collect();
    }
    groups
}

/// The keys are already uniformly random: hashing them again would only cost time.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 = key as u64;
    }
}

/// Failed states, each with the largest capacity it failed at.
#[derive(Default)]
pub(super) struct Nogoods {
    /// Per key: the capacity, and the sections the failure lies in where the search that
    /// recorded it knows them (the cell search does).
    failed: HashMap<u128, (u64, (u32, u32)), BuildHasherDefault<KeyHasher>>, // tidy: hash-lookup-only
}

/// Entries beyond this are not recorded (about 64 MB).
const MAX_NOGOODS: usize = 1 << 21;

impl Nogoods {
    pub(super) fn fails(&self, key: u128, capacity: u64) -> bool {
        self.failed.get(&key).is_some_and(|&(c, _)| c >= capacity)
    }

    pub(super) fn record(&mut self, key: u128, capacity: u64) {
        self.record_in(key, capacity, (0, u32::MAX));
    }

    /// The sections a failure recorded with [`Nogoods::record_in`] lies in, if `key` fails at
    /// `capacity`.
    pub(super) fn fails_in(&self, key: u128, capacity: u64) -> Option<(usize, usize)> {
        self.failed.get(&key).filter(|&&(c, _)| c >= capacity).map(|&(_, (a, b))| (a as usize, b as usize))
    }

    /// Records that `key` fails at `capacity`, for a reason within sections `region`.
    pub(super) fn record_in(&mut self, key: u128, capacity: u64, region: (u32, u32)) {
        if self.failed.len() < MAX_NOGOODS || self.failed.contains_key(&key) {
            let entry = self.failed.entry(key).or_insert((capacity, region));
            if capacity > entry.0 {
                *entry = (capacity, region);
            }
        }
    }
}

/// Two independent 64-bit mixes of `(a, b, c)` (splitmix64 finalisers), as one 128-bit key.
pub(super) fn hash128(a: u64, b: u64, c: u64) -> u128 {
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let x = mix(a ^ mix(b.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ mix(c)));
    let y = mix(a.rotate_left(17) ^ 0x5851_f42d_4c95_7f2d ^ mix(b ^ mix(c.wrapping_add(0x2545_f491_4f6c_dd1d))));
    (u128::from(x) << 64) | u128::from(y)
}

/// The key term of section `s` at floor `floor`.
pub(super) fn section_key(s: usize, floor: u64) -> u128 {
    hash128(3, s as u64, floor)
}

/// The nodes a decision run has used, against its limits.
pub(super) struct Spent {
    pub nodes: u64,
    limit: u64,
    deadline: Option<Instant>,
    /// A limit was reached: the run's failure proves nothing.
    pub out: bool,
}

impl Spent {
    pub fn new(limit: u64, deadline: Option<Instant>) -> Self {
        Spent { nodes: 0, limit, deadline, out: false }
    }

    /// Counts one node; `false` (and `out` set) once a limit is reached. The clock is read
    /// every 1024 nodes.
    pub fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.limit
            || (self.nodes.is_multiple_of(1024) && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.out = true;
        }
        !self.out
    }
}

pub(super) enum Outcome {
    Found(Vec<u64>),
    Infeasible,
    OutOfBudget,
}

/// One decision run: a capacity, a static order (ranks), limits.
pub(super) struct Search<'a, 'b> {
    inst: &'b Instance<'a>,
    capacity: u64,
    rank: &'b [usize],
    nogoods: &'b mut Nogoods,
    sky: Skyline,
    /// Each item's gravity offset: its alignment over the highest floor of its sections.
    gravity: Vec<u64>,
    offsets: Vec<u64>,
    /// Undo logs of [`Search::place`]: old floors, old gravity offsets.
    floor_log: Vec<u64>,
    gravity_log: Vec<(usize, u64)>,
    /// Scratch: per item, its earliest start; per section, the last node that marked it as
    /// its own (tied instances only).
    earliest: Vec<u64>,
    section_epoch: Vec<u64>,
    epoch: u64,
    spent: Spent,
}

/// Where the undo logs stood before a placement.
#[derive(Clone, Copy)]
struct Mark {
    floors: usize,
    gravity: usize,
}

/// A copy of the mutable state, restored when a decomposed sub-problem fails.
struct Snapshot {
    sky: Skyline,
    gravity: Vec<u64>,
    mark: Mark,
}

impl<'a, 'b> Search<'a, 'b> {
    pub fn new(
        inst: &'b Instance<'a>,
        capacity: u64,
        rank: &'b [usize],
        nogoods: &'b mut Nogoods,
        node_limit: u64,
        deadline: Option<Instant>,
    ) -> Self {
        let sections = inst.sections();
        let n = inst.items.len();
        Search {
            inst,
            capacity,
            rank,
            nogoods,
            sky: Skyline::new(inst),
            gravity: vec![0; n],
            offsets: vec![0; n],
            floor_log: Vec::new(),
            gravity_log: Vec::new(),
            earliest: vec![0; n],
            section_epoch: vec![0; sections],
            epoch: 0,
            spent: Spent::new(node_limit, deadline),
        }
    }

    /// Runs the search over every item of non-zero size; returns the outcome and the nodes.
    pub fn run(mut self) -> (Outcome, u64) {
        let Some(all) = self.sky.to_place(self.inst, self.capacity) else { return (Outcome::Infeasible, 0) };
        let found = all.is_empty() || self.dfs(&all, (0, 0), 0, span_of(self.inst, &all));
        let outcome = if found {
            Outcome::Found(self.offsets)
        } else if self.spent.out {
            Outcome::OutOfBudget
        } else {
            Outcome::Infeasible
        };
        (outcome, self.spent.nodes)
    }

    fn mark(&self) -> Mark {
        Mark { floors: self.floor_log.len(), gravity: self.gravity_log.len() }
    }

    /// Places `i` at `offset`. Returns `None` (nothing changed) if a time neighbour's gravity
    /// offset would no longer fit under the capacity, or a section next to `i` could no
    /// longer be filled up to it ([`Skyline::around_fits`]).
    fn place(&mut self, i: usize, offset: u64) -> Option<Mark> {
        let items = self.inst.items;
        let top = offset + items[i].size;
        for &j in &self.inst.neighbours[i] {
            if !self.sky.placed[j] && align_up(top, items[j].align).max(self.gravity[j]) + items[j].size > self.capacity
            {
                return None;
            }
        }
        let mark = self.mark();
        self.sky.lay(self.inst, i, offset, &mut self.floor_log);
        let (a, b) = self.inst.span[i];
        if !self.sky.around_fits(self.inst, a, b, self.capacity) {
            self.sky.lift(self.inst, i, &mut self.floor_log);
            return None;
        }
        for &j in &self.inst.neighbours[i] {
            let raised = align_up(top, items[j].align);
            if !self.sky.placed[j] && self.gravity[j] < raised {
                self.gravity_log.push((j, self.gravity[j]));
                self.gravity[j] = raised;
            }
        }
        self.offsets[i] = offset;
        Some(mark)
    }

    fn unplace(&mut self, i: usize, mark: Mark) {
        self.sky.lift(self.inst, i, &mut self.floor_log);
        debug_assert_eq!(self.floor_log.len(), mark.floors);
        while self.gravity_log.len() > mark.gravity {
            let (j, old) = self.gravity_log.pop().expect("logged gravity");
            self.gravity[j] = old;
        }
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot { sky: self.sky.clone(), gravity: self.gravity.clone(), mark: self.mark() }
    }

    fn restore(&mut self, snapshot: Snapshot) {
        self.sky = snapshot.sky;
        self.gravity = snapshot.gravity;
        self.floor_log.truncate(snapshot.mark.floors);
        self.gravity_log.truncate(snapshot.mark.gravity);
    }

    /// Places every item of `active` (all unplaced), or fails. `last` is the (offset, rank)
    /// of the previous placement on this path: later placements never go below it. The
    /// sub-problem's key is the skyline's key `^ mask` (`mask` cancels what lies outside it).
    ///
    /// A path places one item per level, so the recursion is as deep as the instance is
    /// large: the stack grows on the heap (`stacker`) rather than overflowing.
    fn dfs(&mut self, active: &[usize], last: (u64, usize), mask: u128, range: (usize, usize)) -> bool {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.dfs_node(active, last, mask, range))
    }

    fn dfs_node(&mut self, active: &[usize], last: (u64, usize), mask: u128, range: (usize, usize)) -> bool {
        if active.is_empty() {
            return true;
        }
        if !self.spent.tick() {
            return false;
        }
        let ((first, end), groups) = self.sky.trim_and_split(self.inst, active, range);
        if let Some(groups) = groups {
            return self.decompose(&groups, last);
        }
        let items = self.inst.items;
        let capacity = self.capacity;
        // Earliest starts, dominance height, and the items excluded at the frontier.
        let mut key = self.sky.hash ^ mask ^ hash128(4, last.0, 0);
        let mut min_height = u64::MAX;
        for &i in active {
            let g = self.gravity[i];
            let earliest = if (g, self.rank[i]) >= last {
                min_height = min_height.min(g + items[i].size);
                g
            } else {
                if g == last.0 {
                    key ^= self.inst.zobrist[i].1;
                }
                let neighbours = &self.inst.neighbours[i];
                let lift = neighbours
                    .iter()
                    .filter(|&&j| !self.sky.placed[j])
                    .map(|&j| self.gravity[j].max(last.0) + items[j].size)
                    .min();
                match lift {
                    Some(top) => align_up(top, items[i].align),
                    None => return false,
                }
            };
            if earliest + items[i].size > capacity {
                return false;
            }
            self.earliest[i] = earliest;
        }
        if self.nogoods.fails(key, capacity) {
            return false;
        }
        // Section inference: some unplaced item must be able to start low enough in every
        // section. `highest` is the largest offset the next placement may take without
        // wasting too much of some section.
        let mut highest = u64::MAX;
        if self.inst.tied {
            // Tied groups need not be contiguous in time: mark the sections this one covers.
            self.epoch += 1;
            for &i in active {
                let (a, b) = self.inst.span[i];
                self.section_epoch[a..b].fill(self.epoch);
            }
        }
        for s in first..end {
            if self.sky.unplaced_count[s] == 0 || (self.inst.tied && self.section_epoch[s] != self.epoch) {
                continue;
            }
            let limit = capacity.saturating_sub(self.sky.unplaced_bytes[s]);
            let supported = self.inst.covering[s].iter().any(|&i| !self.sky.placed[i] && self.earliest[i] <= limit);
            if !supported || self.sky.floor[s].max(last.0) > limit {
                return false;
            }
            highest = highest.min(limit);
        }
        let mut candidates: Vec<(u64, usize, usize)> = active
            .iter()
            .filter(|&&i| {
                let g = self.gravity[i];
                g < min_height && g <= highest && (g, self.rank[i]) >= last
            })
            .map(|&i| (self.gravity[i], self.rank[i], i))
            .collect();
        candidates.sort_unstable();
        let mut rest: Vec<usize> = Vec::with_capacity(active.len());
        let explored = !candidates.is_empty();
        for (offset, rank, i) in candidates {
            let Some(mark) = self.place(i, offset) else { continue };
            rest.clear();
            rest.extend(active.iter().copied().filter(|&j| j != i));
            if self.dfs(&rest, (offset, rank), mask, (first, end)) {
                return true;
            }
            self.unplace(i, mark);
            if self.spent.out {
                return false;
            }
            // Hatless: nothing unplaced overlaps i, so its placement did not cause the failure.
            if self.inst.neighbours[i].iter().all(|&j| self.sky.placed[j]) {
                break;
            }
        }
        if explored && !self.spent.out {
            self.nogoods.record(key, capacity);
        }
        false
    }

    /// Solves independent groups one after the other; each keeps the canonical frontier
    /// `last` (a canonical completion orders every group's items by (offset, rank) after it,
    /// whatever the interleaving).
    fn decompose(&mut self, groups: &[Vec<usize>], last: (u64, usize)) -> bool {
        let snapshot = self.snapshot();
        for group in groups {
            let mask = self.sky.hash ^ self.sky.group_key(self.inst, group);
            if !self.dfs(group, last, mask, span_of(self.inst, group)) {
                self.restore(snapshot);
                return false;
            }
        }
        true
    }
}
