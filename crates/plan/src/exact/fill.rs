//! The exact solver's second decision search: fill the lowest free cell.
//!
//! [`super::search`] branches on *items* in (offset, rank) order. That order breaks the
//! symmetry of equal packings, but it cannot choose where to branch: on instances with no
//! slack (every section already as full as the capacity, the perfect tilings of
//! [`crate::tiling`]) it wanders through the many items that may go next, although only a few
//! can cover the one spot that must be covered first.
//!
//! This search branches on *cells*, as exact-cover solvers do (Knuth's "fewest options
//! first"). The state is a skyline: per section, the floor below which nothing more goes.
//! A *valley* is a run of sections at one floor between higher floors (or the ends of the
//! sub-problem): an item covering one of its cells lies inside it, so the cell at either end
//! of a valley can only be covered by the items that start at its left end (end at its right
//! end). Among the end cells of every valley at the lowest floor, and of every valley higher up
//! whose section has no slack, it picks the one with the fewest such items and tries each of
//! them there, best fit first (sides that meet a neighbour's floor or lean on a higher
//! neighbour). Branching anywhere, not only at the lowest floor, lets the most constrained
//! spot decide: a region that cannot be completed fails before the search has filled the
//! bottom of the whole packing around it (perfect tilings of 400 buffers: 9 -> 17 of 20
//! proved within 1 s).
//! - A section whose unplaced items exactly fill the room above its floor (no slack) must
//!   have its lowest cell covered. If no item can, the state fails; if one only, it goes there.
//! - A section with slack at the lowest floor may leave the cell empty instead: its floor
//!   rises to the next floor of the instance (or as far as its slack allows). That step is a
//!   heuristic, since an item could also have started between the two levels. Once it is
//!   taken, a failed run proves nothing, and the run reports [`Outcome::OutOfBudget`] instead
//!   of infeasibility; no state whose subtree took it is remembered as failed.
//! - After each placement, the runs of sections beside the item with floors below its top
//!   must be fillable up to it by the unplaced items inside them
//!   ([`Skyline::runs_conflict`]): an item crossing into the new wall, or into the wall at a
//!   run's other end, starts at the top or above. This catches a wrong choice when it is
//!   made rather than after the search has filled the region around it (perfect tilings, 1 s
//!   each: 600 buffers 10-12 -> 15 of 20 proved).
//!
//! Independent groups of items (no unplaced item crosses a section boundary between them) are
//! solved one after the other, and failed states are remembered as the item search remembers
//! them (in the same table, under keys of their own, with the sections the failure lies in).
//!
//! A failure comes back with the sections that explain it (the failing section's basin and
//! walls, or the union of its children's). When it lies away from the item just tried, the
//! search *backjumps*: no other item in this cell would change those sections, so it returns
//! at once. The region is a guess at the reason, not a proof: a run that backjumped reports
//! [`Outcome::OutOfBudget`] on failure, and its failed subtrees are not recorded. On perfect
//! tilings of 200 buffers this took the search from 15 of 20 proved to 19 (`docs/notes.md`).
//!
//! The search assumes that conflicts are exactly time overlaps; the solver does not use it in
//! parallel-aware planning (DAG conflicts between items far apart in time).

use super::search::{hash128, Instance, Nogoods, Outcome, Spent};
use super::skyline::Skyline;
use std::time::Instant;

/// Separates this search's nogood keys from the item search's.
const TAG: u128 = 0x6c6f_7765_7374_2d63_656c_6c2d_6669_6c6c;

pub(super) struct Fill<'a, 'b> {
    inst: &'b Instance<'a>,
    capacity: u64,
    /// Candidates of equal fit are tried in this order (lower first), shuffled by `seed`
    /// (restarts differ).
    rank: &'b [usize],
    seed: u64,
    nogoods: &'b mut Nogoods,
    sky: Skyline,
    /// Old floors, for [`Skyline::lift`].
    log: Vec<u64>,
    offsets: Vec<u64>,
    /// A heuristic step (a skipped level) was taken: failures prove nothing.
    heuristic: bool,
    /// Guesses so far (backjumps and skipped levels): a subtree that took one did not try
    /// everything, so neither its root nor any node above it is recorded as failed (a later
    /// run would read such a record as a proof).
    jumps: u64,
    spent: Spent,
}

impl<'a, 'b> Fill<'a, 'b> {
    pub fn new(
        inst: &'b Instance<'a>,
        capacity: u64,
        rank: &'b [usize],
        seed: u64,
        nogoods: &'b mut Nogoods,
        node_limit: u64,
        deadline: Option<Instant>,
    ) -> Self {
        Fill {
            inst,
            capacity,
            rank,
            seed,
            nogoods,
            sky: Skyline::new(inst),
            log: Vec::new(),
            offsets: vec![0; inst.items.len()],
            heuristic: false,
            jumps: 0,
            spent: Spent::new(node_limit, deadline),
        }
    }

    /// Runs the search over every item of non-zero size; returns the outcome and the nodes.
    pub fn run(mut self) -> (Outcome, u64) {
        let Some(all) = self.sky.to_place(self.inst, self.capacity) else { return (Outcome::Infeasible, 0) };
        let range = super::search::span_of(self.inst, &all);
        let found = all.is_empty() || self.dfs(&all, 0, range).is_ok();
        let outcome = if found {
            Outcome::Found(self.offsets)
        } else if self.spent.out || self.heuristic {
            Outcome::OutOfBudget
        } else {
            Outcome::Infeasible
        };
        (outcome, self.spent.nodes)
    }

    fn dfs(&mut self, active: &[usize], mask: u128, range: Region) -> Result<(), Region> {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.dfs_node(active, mask, range))
    }

    /// Places every item of `active` (all unplaced), or fails with the sections that explain
    /// the failure. The sub-problem's key is the skyline's key `^ mask`.
    fn dfs_node(&mut self, active: &[usize], mask: u128, range: Region) -> Result<(), Region> {
        if active.is_empty() {
            return Ok(());
        }
        if !self.spent.tick() {
            return Err(range);
        }
        let ((first, end), groups) = self.sky.trim_and_split(self.inst, active, range);
        if let Some(groups) = groups {
            return self.decompose(&groups);
        }
        let key = self.sky.hash ^ mask ^ TAG;
        if let Some((a, b)) = self.nogoods.fails_in(key, self.capacity) {
            return Err((a.max(first.saturating_sub(1)), b.min(end + 1)));
        }
        let jumps = self.jumps;
        // The lowest floor, and whether every section can still hold its unplaced items.
        let mut low = u64::MAX;
        for s in first..end {
            if self.sky.unplaced_count[s] > 0 {
                if self.sky.floor[s] + self.sky.unplaced_bytes[s] > self.capacity {
                    return Err((s, s + 1));
                }
                low = low.min(self.sky.floor[s]);
            }
        }
        // The cell with the fewest items able to cover it. The lowest free cell of a section
        // must be covered unless the section has slack, and when the section lies in a
        // *valley* (a run of sections at one floor with higher floors, or the ends of the
        // sub-problem, on both sides) only items inside the run can start there: at the
        // lowest floor, and in every valley whose section has no slack. Branching on the
        // valley with the fewest options anywhere (not only at the lowest floor) finds a
        // region that cannot be completed before the search has filled the rest of the
        // packing's bottom around it.
        let mut best: Option<Cell> = None;
        let mut scratch = Vec::new();
        let floor = &self.sky.floor;
        let mut p = first;
        'runs: while p < end {
            let level = floor[p];
            let mut q = p + 1;
            while q < end && floor[q] == level {
                q += 1;
            }
            let valley = (p == first || floor[p - 1] > level) && (q == end || floor[q] > level);
            let run = (p, q);
            p = q;
            if !valley {
                continue;
            }
            // Its two end cells: only items starting at its left end (ending at its right
            // end) can cover them.
            for (side, s) in [run.0, run.1 - 1].into_iter().enumerate() {
                if self.sky.unplaced_count[s] == 0 || (side == 1 && run.1 - 1 == run.0) {
                    continue;
                }
                let slack = self.sky.slack(s, self.capacity);
                if level != low && slack > 0 {
                    continue;
                }
                scratch.clear();
                let list = if side == 0 { &self.inst.starting[run.0] } else { &self.inst.ending[run.1] };
                for &i in list {
                    let (a, b) = self.inst.span[i];
                    let item = &self.inst.items[i];
                    if !self.sky.placed[i]
                        && a >= run.0
                        && b <= run.1
                        && level.is_multiple_of(item.align)
                        && level + item.size <= self.capacity
                    {
                        scratch.push(i);
                    }
                }
                if scratch.is_empty() && slack == 0 {
                    let region = self.near_basin(s);
                    self.nogoods.record_in(key, self.capacity, narrow(region));
                    return Err(region);
                }
                // Fewer options first; a section that cannot stay empty beats one that can;
                // on ties, the lowest floor.
                let tie = if self.seed == 0 { 0 } else { hash128(7, self.seed, s as u64) as u64 };
                let options = (scratch.len() + usize::from(slack > 0), level, tie);
                if best.as_ref().is_none_or(|cell| options < cell.options) {
                    best = Some(Cell { section: s, level, candidates: scratch.clone(), options });
                    if options.0 <= 1 {
                        break 'runs;
                    }
                }
            }
        }
        let Some(Cell { section: s, level, mut candidates, .. }) = best else { return Err((first, end)) };
        // Best fit first: sides that close a step (the top meets the neighbour's floor) or
        // lean on a wall (the neighbour is higher), as skyline packers choose.
        let fit = |i: usize| -> u32 {
            let (a, b) = self.inst.span[i];
            let top = level + self.inst.items[i].size;
            let side = |t: Option<usize>| match t.map(|t| self.sky.floor[t]) {
                None => 2,
                Some(f) if f == top => 2,
                Some(f) if f > level => 1,
                _ => 0,
            };
            side(a.checked_sub(1)) + side((b < self.sky.floor.len()).then_some(b))
        };
        let order =
            |i: usize| if self.seed == 0 { self.rank[i] as u128 } else { hash128(6, self.seed, self.rank[i] as u64) };
        candidates.sort_by_cached_key(|&i| (std::cmp::Reverse(fit(i)), order(i)));
        let mut conflict = self.near_basin(s);
        let mut rest: Vec<usize> = Vec::with_capacity(active.len());
        for i in candidates {
            self.place(i, level);
            let (a, b) = self.inst.span[i];
            let top = level + self.inst.items[i].size;
            if let Some(region) =
                self.sky.conflict_around(self.inst, a, b, self.capacity).or_else(|| self.runs(a, b, top))
            {
                self.unplace(i);
                conflict = union(conflict, region);
                continue;
            }
            rest.clear();
            rest.extend(active.iter().copied().filter(|&j| j != i));
            let failed = match self.dfs(&rest, mask, (first, end)) {
                Ok(()) => return Ok(()),
                Err(region) => region,
            };
            self.unplace(i);
            if self.spent.out {
                return Err(failed);
            }
            // Backjump: the failure lies away from this choice, so no other item in this
            // cell would mend it. A heuristic (the region is a guess at the reason).
            if failed.1 + 1 < a || b + 1 < failed.0 {
                self.heuristic = true;
                self.jumps += 1;
                return Err(failed);
            }
            conflict = union(conflict, failed);
        }
        // Leave the cell empty: the floor rises to the next floor above it, or as far as the
        // section's slack allows.
        let slack = self.sky.slack(s, self.capacity);
        if slack > 0 && level == low {
            let next = (first..end).map(|t| self.sky.floor[t]).filter(|&f| f > low).min().unwrap_or(u64::MAX);
            let raised = next.min(low + slack);
            self.heuristic = true;
            self.jumps += 1;
            self.sky.set_floor(s, raised);
            let result = match self
                .sky
                .conflict_around(self.inst, s, s + 1, self.capacity)
                .or_else(|| self.runs(s, s + 1, raised))
            {
                Some(region) => Err(region),
                None => self.dfs(active, mask, (first, end)),
            };
            match result {
                Ok(()) => return Ok(()),
                Err(region) => conflict = union(conflict, region),
            }
            self.sky.set_floor(s, low);
            if self.spent.out {
                return Err(conflict);
            }
        }
        if self.jumps == jumps {
            self.nogoods.record_in(key, self.capacity, narrow(conflict));
        }
        Err(conflict)
    }

    /// Section `s`'s basin with its walls: what decides whether its lowest cell is filled.
    fn near_basin(&self, s: usize) -> Region {
        self.sky.with_walls(self.sky.basin(s))
    }

    /// [`Skyline::runs_conflict`] beside sections `[a, b)`, whose floors just rose to `top`.
    /// Only this search checks it: with it the item search too proved MiniMalloc's A, B, C
    /// and F in the same nodes (F in one fewer), so there it would mostly cost time.
    fn runs(&self, a: usize, b: usize, top: u64) -> Option<Region> {
        self.sky.runs_conflict(self.inst, a, b, top, self.capacity)
    }

    fn place(&mut self, i: usize, offset: u64) {
        self.sky.lay(self.inst, i, offset, &mut self.log);
        self.offsets[i] = offset;
    }

    fn unplace(&mut self, i: usize) {
        self.sky.lift(self.inst, i, &mut self.log);
    }

    /// Solves independent groups one after the other.
    fn decompose(&mut self, groups: &[Vec<usize>]) -> Result<(), Region> {
        let (snapshot, logged) = (self.sky.clone(), self.log.len());
        for group in groups {
            let mask = self.sky.hash ^ self.sky.group_key(self.inst, group);
            if let Err(region) = self.dfs(group, mask, super::search::span_of(self.inst, group)) {
                self.sky = snapshot;
                self.log.truncate(logged);
                return Err(region);
            }
        }
        Ok(())
    }
}

/// The cell a node branches on: the lowest free cell of `section`, at `level`, the items
/// that can cover it, and how it ranks (options, level, a tie-break by the run's seed).
struct Cell {
    section: usize,
    level: u64,
    candidates: Vec<usize>,
    options: (usize, u64, u64),
}

/// Sections `[first, end)`: where a failure lies.
type Region = (usize, usize);

fn narrow((a, b): Region) -> (u32, u32) {
    (a.try_into().unwrap_or(u32::MAX), b.try_into().unwrap_or(u32::MAX))
}

fn union(a: Region, b: Region) -> Region {
    (a.0.min(b.0), a.1.max(b.1))
}

#[cfg(test)]
mod tests {
    use super::super::search::{sections_of, Instance, Nogoods, Outcome};
    use super::Fill;
    use crate::offsets::{items, OffsetPlan};
    use crate::tests::{aligned_problem, brute_force_optimum};
    use crate::validate::validate_offsets;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

        /// On its own, the cell search never packs under the optimum, never calls the
        /// optimum infeasible, and every packing it finds is valid.
        #[test]
        fn fill_agrees_with_brute_force(
            records in prop::collection::vec((0u64..8, 1u64..6, 1u64..12, 0u32..3), 1..7),
            seed in 0u64..3,
        ) {
            let problem = aligned_problem(&records);
            let optimum = brute_force_optimum(&problem);
            let list = items(&problem);
            let inst = Instance::new(&list, sections_of(&list), None);
            let rank: Vec<usize> = (0..list.len()).collect();
            for capacity in [optimum - 1, optimum, optimum + 3] {
                let mut nogoods = Nogoods::default();
                let (outcome, _) = Fill::new(&inst, capacity, &rank, seed, &mut nogoods, 1_000_000, None).run();
                match outcome {
                    Outcome::Found(offsets) => {
                        let plan = OffsetPlan::from_items(&problem, &list, &offsets);
                        prop_assert!(validate_offsets(&problem, &plan).is_ok());
                        prop_assert!(plan.arena <= capacity && capacity >= optimum);
                    }
                    Outcome::Infeasible => prop_assert!(capacity < optimum, "called {} infeasible", capacity),
                    Outcome::OutOfBudget => {}
                }
            }
        }
    }
}
