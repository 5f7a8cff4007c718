//! The exact offset solver, MiniMalloc-class, anytime.
//!
//! Decision problem: place every item below a capacity `C`. Search space: *canonical*
//! (gravity) solutions, where each item sits on the highest item below it in time — the
//! skyline `floor` of the sections (maximal time spans with a fixed live set) it spans.
//! Every feasible packing can be compacted into one, so the search is complete. Pruning:
//! - canonical order: placements along a path have non-decreasing (offset, rank);
//! - dominance: an item whose offset is at or above the lowest top any unplaced item could
//!   reach is not placed now (that item fits below it and would be placed first);
//! - section inference: in every section, `max(floor, lowest unplaced offset) + unplaced
//!   bytes` must fit under `C`;
//! - hatless pruning: when the item just tried overlaps no unplaced item, its placement is
//!   independent of the rest, so if its subtree failed the node fails.
//!
//! Optimisation: the best greedy plan is the first upper bound; the decision problem is
//! solved at the max-load lower bound, then by bisection, each run with a node budget;
//! restarts cycle three static orders (WAT, TAW, TWA: width, area, section total) with
//! doubling node limits. The result carries the best plan found, the lower bound and whether
//! optimality is proved, so the gap is certified.

use crate::offsets::{items, Item, OffsetPlan, OffsetStrategy};
use crate::problem::{align_up, Problem};
use std::time::{Duration, Instant};

/// Limits of one exact solve. Tests use `nodes` (machine-independent); the CLI uses `time`.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub nodes: u64,
    pub time: Option<Duration>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { nodes: 50_000_000, time: Some(Duration::from_secs(1)) }
    }
}

/// What the exact solver found.
#[derive(Clone, Debug)]
pub struct ExactResult {
    pub plan: OffsetPlan,
    pub lower_bound: u64,
    /// `plan.arena == lower_bound`, or every smaller capacity was proved infeasible.
    pub optimal: bool,
    pub nodes: u64,
}

enum Outcome {
    Found(Vec<u64>),
    Infeasible,
    OutOfBudget,
}

struct Search<'a> {
    items: &'a [Item],
    capacity: u64,
    /// Per item, its section range [first, last).
    span: Vec<(usize, usize)>,
    /// Items overlapping each item in time.
    neighbours: Vec<Vec<usize>>,
    rank: Vec<usize>,
    floor: Vec<u64>,
    /// Each item's current skyline offset (aligned max floor over its sections), kept up to
    /// date incrementally: placing an item only raises its time neighbours.
    off: Vec<u64>,
    unplaced_bytes: Vec<u64>,
    placed: Vec<bool>,
    offsets: Vec<u64>,
    scratch: Vec<i32>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    out_of_budget: bool,
}

impl Search<'_> {
    /// Places item `i` at `offset`; returns the undo record for [`Search::unplace`].
    fn place(&mut self, i: usize, offset: u64) -> (Vec<u64>, Vec<(usize, u64)>) {
        let (a, b) = self.span[i];
        let saved_floor = self.floor[a..b].to_vec();
        let top = offset + self.items[i].size;
        for s in a..b {
            self.floor[s] = top;
            self.unplaced_bytes[s] -= self.items[i].size;
        }
        let mut saved_off = Vec::new();
        for &j in &self.neighbours[i] {
            let raised = align_up(top, self.items[j].align);
            if !self.placed[j] && self.off[j] < raised {
                saved_off.push((j, self.off[j]));
                self.off[j] = raised;
            }
        }
        self.placed[i] = true;
        self.offsets[i] = offset;
        (saved_floor, saved_off)
    }

    fn unplace(&mut self, i: usize, (saved_floor, saved_off): (Vec<u64>, Vec<(usize, u64)>)) {
        let (a, b) = self.span[i];
        for s in a..b {
            self.floor[s] = saved_floor[s - a];
            self.unplaced_bytes[s] += self.items[i].size;
        }
        for (j, old) in saved_off.into_iter().rev() {
            self.off[j] = old;
        }
        self.placed[i] = false;
    }

    /// Places every item of `active` (all unplaced), or fails. `last` is the (offset, rank)
    /// of the previous placement on this path: later placements never go below it.
    fn dfs(&mut self, active: &[usize], last: (u64, usize)) -> bool {
        if active.is_empty() {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.node_limit || (self.nodes % 4096 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d)) {
            self.out_of_budget = true;
            return false;
        }
        // Dynamic decomposition: groups of unplaced items that share no section are
        // independent; solve them one by one, and fail as soon as one fails. Each group keeps
        // the canonical frontier `last`: a canonical completion orders every group's items
        // by (offset, rank) after it, whatever the interleaving.
        let groups = self.components(active);
        if groups.len() > 1 {
            let saved = (self.floor.clone(), self.unplaced_bytes.clone(), self.off.clone());
            for group in &groups {
                if !self.dfs(group, last) {
                    for &i in active {
                        self.placed[i] = false;
                    }
                    (self.floor, self.unplaced_bytes, self.off) = saved;
                    return false;
                }
            }
            return true;
        }
        let mut offsets = Vec::with_capacity(active.len());
        // Dominance: the lowest top an item that may be placed now can reach.
        let mut min_height = u64::MAX;
        for &i in active {
            let offset = self.off[i];
            if offset + self.items[i].size > self.capacity {
                return false;
            }
            offsets.push(offset);
            if (offset, self.rank[i]) >= last {
                min_height = min_height.min(offset + self.items[i].size);
            }
        }
        // Section inference over the group's sections. Placements along a path never go
        // below the last offset, so no unplaced item of a section starts below
        // max(floor, last offset, its own offset).
        let first = active.iter().map(|&i| self.span[i].0).min().unwrap_or(0);
        let end = active.iter().map(|&i| self.span[i].1).max().unwrap_or(0);
        let mut lowest = vec![u64::MAX; end - first];
        for (k, &i) in active.iter().enumerate() {
            let (a, b) = self.span[i];
            for low in &mut lowest[a - first..b - first] {
                *low = (*low).min(offsets[k]);
            }
        }
        for s in first..end {
            if self.unplaced_bytes[s] > 0 && self.floor[s].max(lowest[s - first]).max(last.0) + self.unplaced_bytes[s] > self.capacity {
                return false;
            }
        }
        let mut candidates: Vec<(u64, usize, usize)> = active
            .iter()
            .zip(&offsets)
            .filter(|&(&i, &o)| o < min_height && (o, self.rank[i]) >= last)
            .map(|(&i, &o)| (o, self.rank[i], i))
            .collect();
        candidates.sort_unstable();
        let mut rest: Vec<usize> = Vec::with_capacity(active.len());
        for (offset, rank, i) in candidates {
            let undo = self.place(i, offset);
            rest.clear();
            rest.extend(active.iter().copied().filter(|&j| j != i));
            if self.dfs(&rest, (offset, rank)) {
                return true;
            }
            self.unplace(i, undo);
            if self.out_of_budget {
                return false;
            }
            // Hatless: nothing unplaced overlaps i, so its placement did not cause the failure.
            if self.neighbours[i].iter().all(|&j| self.placed[j]) {
                return false;
            }
        }
        false
    }

    /// `active` split into groups whose section spans do not touch: a coverage sweep over
    /// the sections finds the uncovered gaps (no sorting on the common, unsplit path).
    fn components(&mut self, active: &[usize]) -> Vec<Vec<usize>> {
        let first = active.iter().map(|&i| self.span[i].0).min().unwrap_or(0);
        let end = active.iter().map(|&i| self.span[i].1).max().unwrap_or(0);
        // Items crossing each inner section boundary k: those with a < k < b. A boundary
        // nobody crosses separates independent groups.
        let ends = &mut self.scratch;
        ends.clear();
        ends.resize(end - first + 1, 0);
        let mut starts = vec![0i32; end - first + 1];
        for &i in active {
            let (a, b) = self.span[i];
            starts[a - first] += 1;
            ends[b - first] += 1;
        }
        let mut live = 0i32; // items with a < k and b >= k, for boundary k
        let mut split = false;
        for k in 1..end - first {
            live += starts[k - 1];
            live -= ends[k - 1];
            if live - ends[k] == 0 {
                split = true;
                break;
            }
        }
        if !split {
            return vec![active.to_vec()];
        }
        let mut order: Vec<usize> = active.to_vec();
        order.sort_unstable_by_key(|&i| self.span[i]);
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut reach = 0;
        for i in order {
            let (a, b) = self.span[i];
            match groups.last_mut() {
                Some(group) if a < reach => group.push(i),
                _ => groups.push(vec![i]),
            }
            reach = reach.max(b);
        }
        groups
    }
}

/// Sections and spans of the items.
fn sections(items: &[Item]) -> (Vec<(usize, usize)>, Vec<Vec<usize>>) {
    let mut points: Vec<u64> = items.iter().flat_map(|i| [i.lower, i.upper]).collect();
    points.sort_unstable();
    points.dedup();
    let position = |t: u64| points.binary_search(&t).expect("registered point");
    let span: Vec<(usize, usize)> = items.iter().map(|i| (position(i.lower), position(i.upper))).collect();
    let mut section_items = vec![Vec::new(); points.len().saturating_sub(1)];
    for (k, &(a, b)) in span.iter().enumerate() {
        for list in &mut section_items[a..b] {
            list.push(k);
        }
    }
    (span, section_items)
}

/// The three static orders of MiniMalloc, as ranks (lower rank = earlier).
fn preorders(items: &[Item], span: &[(usize, usize)], section_items: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let totals: Vec<u64> = section_items.iter().map(|list| list.iter().map(|&i| items[i].size).sum()).collect();
    let width = |i: usize| items[i].upper - items[i].lower;
    let area = |i: usize| width(i) as u128 * items[i].size as u128;
    let total = |i: usize| totals[span[i].0..span[i].1].iter().copied().max().unwrap_or(0);
    let rank_by = |key: &dyn Fn(usize) -> (u128, u128, u128)| {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(key(i)), i));
        let mut rank = vec![0; items.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        rank
    };
    vec![
        rank_by(&|i| (width(i) as u128, area(i), total(i) as u128)),
        rank_by(&|i| (total(i) as u128, area(i), width(i) as u128)),
        rank_by(&|i| (total(i) as u128, width(i) as u128, area(i))),
    ]
}

/// Where a decision run's restart schedule stopped, so a later run at the same capacity
/// resumes there instead of repeating the small limits.
#[derive(Clone, Copy, Default)]
struct Resume {
    capacity: u64,
    limit: u64,
}

/// Decides whether the items fit under `capacity`, restarting over the preorders with
/// doubling node limits until `budget` is spent.
fn decide(items: &[Item], capacity: u64, budget: &mut Budget, deadline: Option<Instant>, used: &mut u64, resume: &mut Resume) -> Outcome {
    if items.is_empty() {
        return Outcome::Found(Vec::new());
    }
    let (span, section_items) = sections(items);
    let orders = preorders(items, &span, &section_items);
    let mut neighbours = vec![Vec::new(); items.len()];
    for list in &section_items {
        for &a in list {
            for &b in list {
                if a != b {
                    neighbours[a].push(b);
                }
            }
        }
    }
    for list in &mut neighbours {
        list.sort_unstable();
        list.dedup();
    }
    let unplaced_bytes: Vec<u64> = section_items.iter().map(|list| list.iter().map(|&i| items[i].size).sum()).collect();
    let mut limit = 2 * items.len() as u64;
    if resume.capacity == capacity {
        limit = limit.max(resume.limit);
    }
    *resume = Resume { capacity, limit };
    loop {
        resume.limit = limit;
        for rank in &orders {
            let remaining = budget.nodes.saturating_sub(*used);
            if remaining == 0 || deadline.is_some_and(|d| Instant::now() >= d) {
                return Outcome::OutOfBudget;
            }
            let mut search = Search {
                items,
                capacity,
                span: span.clone(),
                neighbours: neighbours.clone(),
                rank: rank.clone(),
                floor: vec![0; section_items.len()],
                off: vec![0; items.len()],
                unplaced_bytes: unplaced_bytes.clone(),
                placed: vec![false; items.len()],
                offsets: vec![0; items.len()],
                scratch: Vec::new(),
                nodes: 0,
                node_limit: limit.min(remaining),
                deadline,
                out_of_budget: false,
            };
            let all: Vec<usize> = (0..items.len()).filter(|&i| items[i].size > 0).collect();
            let found = search.dfs(&all, (0, 0));
            *used += search.nodes;
            if found {
                return Outcome::Found(search.offsets);
            }
            if !search.out_of_budget {
                return Outcome::Infeasible;
            }
        }
        limit = limit.saturating_mul(2);
    }
}

/// Minimises the arena size exactly, within `budget`.
pub fn solve(problem: &Problem, mut budget: Budget) -> ExactResult {
    let start = Instant::now();
    let deadline = budget.time.map(|t| start + t);
    let items = items(problem);
    let lower_bound = crate::bounds::max_load(problem);
    // Upper bound: the better greedy.
    let mut best = [OffsetStrategy::GreedyBySize, OffsetStrategy::GreedyByBreadth]
        .into_iter()
        .map(|s| s.run(problem))
        .min_by_key(|p| p.arena)
        .expect("two strategies");
    let mut used = 0u64;
    let mut proved_low = lower_bound; // certified: every smaller capacity is infeasible
    let mut resume = Resume::default();
    // Phase 0 (nine tenths of the budget): the tight bound, which most instances meet.
    if best.arena > lower_bound {
        let probe_deadline = deadline.map(|d| start + (d - start) * 9 / 10);
        let mut probe = Budget { nodes: budget.nodes / 10 * 9, time: None };
        match decide(&items, lower_bound, &mut probe, probe_deadline, &mut used, &mut resume) {
            Outcome::Found(offsets) => best = OffsetPlan::from_items(problem, &items, &offsets),
            Outcome::Infeasible => proved_low = lower_bound + 1,
            Outcome::OutOfBudget => {}
        }
    }
    // Phase 1 (the last tenth): improve from above. Probes bisect between a heuristic
    // floor and the best plan; a probe that runs out of its share raises the floor (it says
    // nothing about feasibility, so the certified bound is left alone).
    let mut floor = lower_bound;
    while best.arena > floor + 1 && deadline.is_none_or(|e| Instant::now() < e) && used < budget.nodes {
        let capacity = floor + (best.arena - 1 - floor) / 2;
        let now = Instant::now();
        let probe_deadline = deadline.map(|e| now + e.saturating_duration_since(now) / 3);
        let probe_nodes = used + (budget.nodes - used) / 3 + 1;
        match decide(&items, capacity, &mut Budget { nodes: probe_nodes, time: None }, probe_deadline, &mut used, &mut Resume::default()) {
            Outcome::Found(offsets) => best = OffsetPlan::from_items(problem, &items, &offsets),
            Outcome::Infeasible => {
                proved_low = proved_low.max(capacity + 1);
                floor = capacity + 1;
            }
            Outcome::OutOfBudget => floor = capacity + 1,
        }
    }
    // Phase 2 (whatever is left, e.g. on a node budget): bisection between the certified
    // bound and the best plan.
    let mut low = proved_low;
    let mut proved = best.arena <= low;
    while !proved && low < best.arena {
        let capacity = low + (best.arena - 1 - low) / 2;
        match decide(&items, capacity, &mut budget, deadline, &mut used, &mut resume) {
            Outcome::Found(offsets) => {
                let plan = OffsetPlan::from_items(problem, &items, &offsets);
                debug_assert!(plan.arena <= capacity);
                best = plan;
            }
            Outcome::Infeasible => low = capacity + 1,
            Outcome::OutOfBudget => break,
        }
        proved = best.arena <= low;
    }
    ExactResult { optimal: proved, lower_bound: low.max(lower_bound), nodes: used, plan: best }
}
