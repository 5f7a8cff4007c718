//! The exact offset solver, MiniMalloc-class, anytime.
//!
//! The decision problem (place every item below a capacity `C`) is searched by
//! [`search`]: canonical gravity packings in (offset, rank) order with MiniMalloc's pruning
//! (dominance, section inference, hatless pruning, dynamic decomposition) plus what goes
//! beyond it: the *lift* of items left below the frontier, candidates filtered by the waste
//! they would cause, nogoods (failed states, shared by every restart and capacity), and the
//! `skyline` inferences (steps, pits and lowest cells that could no longer be filled; in the
//! cell search also runs between walls that their items cannot fill). The `fill` search
//! branches on cells instead of items (the lowest free cell with the fewest options), which
//! finds the packings of full sections that the item order wanders past.
//!
//! Each decision run restarts over a portfolio: the cell search with Luby's sequence of node
//! limits, for a share of the nodes that grows with the sections left without slack, then the
//! item search in each static order with doubling limits; the nogoods make a restart skip what
//! earlier runs proved. Optimisation: the better greedy
//! plan is the first upper bound; the decision problem is tried at the max-load lower bound
//! (two fifths of the budget), then probes bisect between the best plan and a heuristic floor
//! (to nine tenths), then the rest of the budget bisects between the certified bound and the
//! best plan. The result carries the best plan found, the certified lower bound and whether
//! optimality is proved, so the gap is certified. With an allocation granule
//! (`Problem::granule`) the bisections count whole granules and stop once the best plan
//! allocates as many as the certified bound.

use crate::offsets::{items, OffsetPlan, OffsetStrategy};
use crate::problem::Problem;
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
    /// Why the search did not run (the instance is beyond its size limit), if it did not.
    pub note: Option<String>,
}

mod fill;
mod search;
mod skyline;

use fill::Fill;
use search::{Instance, Nogoods, Outcome, Search};

/// What a static order compares, larger first.
#[derive(Clone, Copy)]
enum Key {
    /// Lifetime width times size.
    Area,
    /// Lifetime width.
    Width,
    /// The largest total size of the sections the item spans.
    Total,
}

/// The static orders the restarts cycle through: MiniMalloc's WAT, TWA and TAW, led by
/// area-first. Measured on the MiniMalloc instances, every order alone is heavy-tailed (it
/// solves some instances in a few thousand nodes and others not within a million) and no
/// one order solves all of A-F; together they do.
const PORTFOLIO: [&[Key]; 4] = [
    &[Key::Area, Key::Width],
    &[Key::Width, Key::Area, Key::Total],
    &[Key::Total, Key::Width, Key::Area],
    &[Key::Total, Key::Area, Key::Width],
];

/// The orders of [`PORTFOLIO`] as ranks (lower rank = earlier); ties go to the item index.
fn preorders(inst: &Instance) -> Vec<Vec<usize>> {
    let items = inst.items;
    let value = |key: Key, i: usize| -> u128 {
        let width = u128::from(items[i].upper - items[i].lower);
        match key {
            Key::Area => width * u128::from(items[i].size),
            Key::Width => width,
            Key::Total => u128::from(inst.totals[inst.span[i].0..inst.span[i].1].iter().copied().max().unwrap_or(0)),
        }
    };
    let rank_by = |keys: &[Key]| {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_cached_key(|&i| (keys.iter().map(|&k| std::cmp::Reverse(value(k, i))).collect::<Vec<_>>(), i));
        let mut rank = vec![0; items.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        rank
    };
    PORTFOLIO.iter().map(|keys| rank_by(keys)).collect()
}

/// Where a decision run's restart schedule stopped, so a later run at the same capacity
/// resumes there instead of repeating the small limits.
#[derive(Clone, Copy, Default)]
struct Resume {
    capacity: u64,
    limit: u64,
}

/// The search state shared by every decision run of one solve.
struct Solver<'a> {
    inst: Instance<'a>,
    orders: Vec<Vec<usize>>,
    nogoods: Nogoods,
}

impl<'a> Solver<'a> {
    fn new(inst: Instance<'a>) -> Self {
        Solver { orders: preorders(&inst), inst, nogoods: Nogoods::default() }
    }

    /// Decides whether the items fit under `capacity`, restarting over the preorders with
    /// doubling node limits until `budget` is spent.
    fn decide(
        &mut self,
        capacity: u64,
        budget: &mut Budget,
        deadline: Option<Instant>,
        used: &mut u64,
        resume: &mut Resume,
    ) -> Outcome {
        if self.inst.items.is_empty() {
            return Outcome::Found(Vec::new());
        }
        let mut limit = 2 * self.inst.items.len() as u64;
        if resume.capacity == capacity {
            limit = limit.max(resume.limit);
        }
        *resume = Resume { capacity, limit };
        // The cell search's share of the nodes against the item search's: the sections
        // without slack at this capacity against the others (from none to sixteen times as
        // many). The cell search is the one that packs sections without slack (perfect
        // tilings: every section is), the item search the others (MiniMalloc's A-F: 5-80% of
        // the sections are tight at the bound).
        let sections = self.inst.sections() as u64;
        let tight = self.inst.totals.iter().filter(|&&total| total >= capacity).count() as u64;
        let (share, of) = if 16 * (sections - tight) <= tight { (16, 1) } else { (tight, sections - tight) };
        let base = 2 * self.inst.items.len() as u64;
        let mut restarts = 0u64;
        loop {
            resume.limit = limit;
            // Each round: the cell search (not with DAG conflicts, which it does not model),
            // restarted with Luby's sequence of limits (its runs are heavy-tailed: a fresh
            // order, ties broken by the run's seed, finds in a few thousand nodes what one run
            // misses in a million) until it has its share of the round; then the item search
            // in each static order, with limits that double every round.
            let round_nodes = limit.saturating_mul(self.orders.len() as u64);
            let fill_target = round_nodes / of.max(1) * share;
            let mut fill_nodes = 0u64;
            while !self.inst.tied && (fill_nodes == 0 || fill_nodes < fill_target) {
                let remaining = budget.nodes.saturating_sub(*used);
                if remaining == 0 || deadline.is_some_and(|d| Instant::now() >= d) {
                    return Outcome::OutOfBudget;
                }
                restarts += 1;
                let rank = &self.orders[restarts as usize % self.orders.len()];
                let seed = restarts / self.orders.len() as u64;
                let runs = base.saturating_mul(luby(restarts)).min(remaining);
                let (outcome, nodes) =
                    Fill::new(&self.inst, capacity, rank, seed, &mut self.nogoods, runs, deadline).run();
                *used += nodes;
                fill_nodes += nodes.max(1);
                if !matches!(outcome, Outcome::OutOfBudget) {
                    return outcome;
                }
            }
            for rank in &self.orders {
                let remaining = budget.nodes.saturating_sub(*used);
                if remaining == 0 || deadline.is_some_and(|d| Instant::now() >= d) {
                    return Outcome::OutOfBudget;
                }
                let (outcome, nodes) =
                    Search::new(&self.inst, capacity, rank, &mut self.nogoods, limit.min(remaining), deadline).run();
                *used += nodes;
                if !matches!(outcome, Outcome::OutOfBudget) {
                    return outcome;
                }
            }
            limit = limit.saturating_mul(2);
        }
    }
}

/// The `i`-th term (from 1) of Luby's restart sequence: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...
fn luby(mut i: u64) -> u64 {
    loop {
        let mut k = 1;
        while (1u64 << k) - 1 < i {
            k += 1;
        }
        if (1u64 << k) - 1 == i {
            return 1 << (k - 1);
        }
        i -= (1u64 << (k - 1)) - 1;
    }
}

/// Minimises the arena size exactly, within `budget`. The greedy plans come first (the
/// better one is the first upper bound, and the answer when it meets the max-load bound);
/// the search starts only on instances whose lists stay under a fixed size (see
/// `search::MAX_ENTRIES`; beyond it the result says why in `note`), and its recursion grows
/// its stack on the heap, so any size is planned in bounded memory.
pub fn solve(problem: &Problem, budget: Budget) -> ExactResult {
    solve_within(problem, budget, search::MAX_ENTRIES)
}

/// [`solve`] with the search's size limit as a parameter (tests use a small one).
pub(crate) fn solve_within(problem: &Problem, mut budget: Budget, max_entries: u64) -> ExactResult {
    let start = Instant::now();
    let deadline = budget.time.map(|t| start + t);
    let items = items(problem);
    let lower_bound = crate::bounds::max_load(problem);
    // Upper bound: the better greedy. By size first; by breadth only when that one missed
    // the bound and the budget leaves room for it (it takes about 1.5 times as long).
    let mut best = OffsetStrategy::GreedyBySize.run(problem);
    let by_size = start.elapsed();
    if best.arena > lower_bound && deadline.is_none_or(|d| Instant::now() + by_size * 3 / 2 < d) {
        let breadth = OffsetStrategy::GreedyByBreadth.run(problem);
        if breadth.arena < best.arena {
            best = breadth;
        }
    }
    // Phases 1 and 2 decide capacities in whole granules: a plan under `k * granule` bytes
    // allocates `k` granules.
    let granule = problem.granule.max(1);
    let units = |bytes: u64| bytes.div_ceil(granule);
    let greedy = |best: OffsetPlan, note: Option<String>| ExactResult {
        optimal: best.arena <= lower_bound,
        lower_bound,
        nodes: 0,
        plan: best,
        note,
    };
    if best.arena <= lower_bound {
        return greedy(best, None);
    }
    // The search's lists grow with the overlap pairs: beyond a fixed size it is not started,
    // and the greedy plan stands (with the max-load bound), so memory stays bounded.
    let sections = search::sections_of(&items);
    if search::entries(&items, &sections.1, problem.dag.as_ref(), max_entries).is_none() {
        let note = format!(
            "{} items are beyond the exact search's size limit ({max_entries} list entries): the greedy plan \
             stands",
            items.len(),
        );
        return greedy(best, Some(note));
    }
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return greedy(best, Some("the time budget was spent by the greedy plans".into()));
    }
    let mut solver = Solver::new(Instance::new(&items, sections, problem.dag.as_ref()));
    let mut used = 0u64;
    let mut proved_low = lower_bound; // certified: every smaller capacity is infeasible
    let mut resume = Resume::default();
    // Phase 0 (two fifths of the budget): the tight bound, which most instances meet. Four
    // fifths when every section is at the bound: then the bound is met only by a perfect
    // packing, which is what the cell search finds, while every larger capacity leaves slack
    // in every section, where the searches are weak (phase 1 rarely improves on the greedy
    // plan there). With a granule that the bound is not a multiple of, the bound gets a
    // tenth, then the rest goes to the bound's whole granules (a plan there allocates no
    // more; ViT-tiny's 20 bytes below it took the whole second).
    if best.arena > lower_bound {
        let perfect = solver.inst.totals.iter().all(|&total| total == 0 || total == lower_bound);
        let fifths = if perfect { 4 } else { 2 };
        let rounded = units(lower_bound) * granule;
        let tenths = if rounded > lower_bound { 1 } else { 2 * fifths };
        let probes =
            std::iter::once((lower_bound, tenths)).chain((rounded > lower_bound).then_some((rounded, 2 * fifths)));
        for (capacity, tenths) in probes {
            if best.arena <= capacity || proved_low > capacity {
                break;
            }
            let probe_deadline = deadline.map(|d| start + (d - start) * tenths / 10);
            let mut probe = Budget { nodes: budget.nodes / 10 * tenths as u64, time: None };
            match solver.decide(capacity, &mut probe, probe_deadline, &mut used, &mut resume) {
                Outcome::Found(offsets) => best = OffsetPlan::from_items(problem, &items, &offsets),
                Outcome::Infeasible => proved_low = capacity + 1,
                Outcome::OutOfBudget => {}
            }
        }
    }
    // Phase 1 (up to nine tenths): improve from above. Probes bisect between a heuristic
    // floor and the best plan; a probe that runs out of its share raises the floor (it says
    // nothing about feasibility, so the certified bound is left alone).
    let phase_end = deadline.map(|d| start + (d - start) * 9 / 10);
    let phase_nodes = budget.nodes / 10 * 9;
    // Floors and capacities count granules here and in phase 2.
    let mut floor = units(proved_low);
    while units(best.arena) > floor + 1 && phase_end.is_none_or(|e| Instant::now() < e) && used < phase_nodes {
        let capacity = (floor + (units(best.arena) - 1 - floor) / 2) * granule;
        let now = Instant::now();
        let probe_deadline = phase_end.map(|e| now + e.saturating_duration_since(now) / 3);
        let probe_nodes = used + (phase_nodes - used) / 3 + 1;
        match solver.decide(
            capacity,
            &mut Budget { nodes: probe_nodes, time: None },
            probe_deadline,
            &mut used,
            &mut Resume::default(),
        ) {
            Outcome::Found(offsets) => best = OffsetPlan::from_items(problem, &items, &offsets),
            Outcome::Infeasible => {
                proved_low = proved_low.max(capacity + 1);
                floor = units(capacity + 1);
            }
            Outcome::OutOfBudget => floor = units(capacity + 1),
        }
    }
    // Phase 2 (whatever is left, e.g. on a node budget): bisection between the certified
    // bound and the best plan.
    let mut low = proved_low;
    while units(low) < units(best.arena) {
        let capacity = (units(low) + (units(best.arena) - 1 - units(low)) / 2) * granule;
        match solver.decide(capacity, &mut budget, deadline, &mut used, &mut resume) {
            Outcome::Found(offsets) => {
                let plan = OffsetPlan::from_items(problem, &items, &offsets);
                debug_assert!(plan.arena <= capacity);
                best = plan;
            }
            Outcome::Infeasible => low = capacity + 1,
            Outcome::OutOfBudget => break,
        }
    }
    let lower_bound = low.max(lower_bound);
    ExactResult { optimal: best.arena <= lower_bound, lower_bound, nodes: used, plan: best, note: None }
}
