//! The state both decision searches share: a skyline over the sections, and what is left.
//!
//! Per section, the *floor* is the top of the highest item placed there (or where a search
//! decided to leave the cells below empty): nothing more goes below it. Beside it the state
//! keeps what the searches' inferences read (the unplaced bytes and items per section, the
//! unplaced items crossing each section boundary, ending or starting at it, or live in one
//! section alone) and a Zobrist key of the state (the unplaced items and the floors of the
//! sections that still have some).

use super::search::{section_key, Instance};

#[derive(Clone)]
pub(super) struct Skyline {
    pub floor: Vec<u64>,
    pub unplaced_bytes: Vec<u64>,
    pub unplaced_count: Vec<u32>,
    /// `cuts[k]`: unplaced items crossing the boundary between sections `k - 1` and `k`.
    pub cuts: Vec<u32>,
    /// The unplaced part of [`Instance::ends`], [`Instance::starts`] and [`Instance::single`].
    ends: Vec<u64>,
    starts: Vec<u64>,
    single: Vec<u64>,
    pub placed: Vec<bool>,
    /// Key of every unplaced item and of the floor of every section with unplaced items.
    pub hash: u128,
}

impl Skyline {
    pub fn new(inst: &Instance) -> Self {
        Skyline {
            floor: vec![0; inst.sections()],
            unplaced_bytes: inst.totals.clone(),
            unplaced_count: inst.counts.clone(),
            cuts: inst.cuts.clone(),
            ends: inst.ends.clone(),
            starts: inst.starts.clone(),
            single: inst.single.clone(),
            placed: vec![false; inst.items.len()],
            hash: inst.key,
        }
    }

    /// Places item `i` at `offset`: the floors of its sections become its top (their old
    /// floors are pushed on `log`, for [`Skyline::lift`]).
    pub fn lay(&mut self, inst: &Instance, i: usize, offset: u64, log: &mut Vec<u64>) {
        let size = inst.items[i].size;
        let (a, b) = inst.span[i];
        let top = offset + size;
        for s in a..b {
            log.push(self.floor[s]);
            self.hash ^= section_key(s, self.floor[s]);
            self.floor[s] = top;
            self.unplaced_bytes[s] -= size;
            self.unplaced_count[s] -= 1;
            if self.unplaced_count[s] > 0 {
                self.hash ^= section_key(s, top);
            }
        }
        for cut in &mut self.cuts[a + 1..b] {
            *cut -= 1;
        }
        self.starts[a] -= size;
        self.ends[b] -= size;
        if b == a + 1 {
            self.single[a] -= size;
        }
        self.hash ^= inst.zobrist[i].0;
        self.placed[i] = true;
    }

    /// Undoes the last [`Skyline::lay`], of item `i`.
    pub fn lift(&mut self, inst: &Instance, i: usize, log: &mut Vec<u64>) {
        let size = inst.items[i].size;
        let (a, b) = inst.span[i];
        for s in (a..b).rev() {
            if self.unplaced_count[s] > 0 {
                self.hash ^= section_key(s, self.floor[s]);
            }
            self.floor[s] = log.pop().expect("logged floor");
            self.hash ^= section_key(s, self.floor[s]);
            self.unplaced_bytes[s] += size;
            self.unplaced_count[s] += 1;
        }
        for cut in &mut self.cuts[a + 1..b] {
            *cut += 1;
        }
        self.starts[a] += size;
        self.ends[b] += size;
        if b == a + 1 {
            self.single[a] += size;
        }
        self.hash ^= inst.zobrist[i].0;
        self.placed[i] = false;
    }

    /// The items a decision run places (those of non-zero size), or `None` when some
    /// section's items alone exceed `capacity` (the run fails at once).
    pub fn to_place(&self, inst: &Instance, capacity: u64) -> Option<Vec<usize>> {
        if self.unplaced_bytes.iter().any(|&b| b > capacity) {
            return None;
        }
        Some((0..inst.items.len()).filter(|&i| inst.items[i].size > 0).collect())
    }

    /// Sets the floor of section `s` (leaving the cells below empty).
    pub fn set_floor(&mut self, s: usize, floor: u64) {
        if self.unplaced_count[s] > 0 {
            self.hash ^= section_key(s, self.floor[s]) ^ section_key(s, floor);
        }
        self.floor[s] = floor;
    }

    /// Room above the floor of section `s` that its unplaced items do not need.
    pub fn slack(&self, s: usize, capacity: u64) -> u64 {
        capacity.saturating_sub(self.floor[s] + self.unplaced_bytes[s])
    }

    /// Whether the step between the floors of sections `k - 1` and `k` can still be filled.
    /// An item starts above every floor it spans, so below the higher floor the lower
    /// section's cells can only take items that do not reach the higher section (those ending,
    /// or starting, at the boundary), or stay empty within the lower section's slack.
    fn step_fits(&self, k: usize, capacity: u64) -> bool {
        if k == 0 || k >= self.floor.len() {
            return true;
        }
        let (left, right) = (self.floor[k - 1], self.floor[k]);
        if left < right {
            self.ends[k] + self.slack(k - 1, capacity) >= right - left
        } else {
            self.starts[k] + self.slack(k, capacity) >= left - right
        }
    }

    /// Whether section `s`, where lower than both neighbours, can be filled up to the lower
    /// of them: only items live in `s` alone fit there.
    fn pit_fits(&self, s: usize, capacity: u64) -> bool {
        if s == 0 || s >= self.floor.len().saturating_sub(1) {
            return true;
        }
        let rim = self.floor[s - 1].min(self.floor[s + 1]);
        rim <= self.floor[s] || self.single[s] + self.slack(s, capacity) >= rim - self.floor[s]
    }

    /// The steps and pits around sections `[a, b)` after their floors changed to one value,
    /// and whether every section there and beside it still has an item that can fill its
    /// lowest cell ([`Skyline::support`]).
    pub fn around_fits(&self, inst: &Instance, a: usize, b: usize, capacity: u64) -> bool {
        self.conflict_around(inst, a, b, capacity).is_none()
    }

    /// [`Skyline::around_fits`], saying where it fails: the sections whose floors and
    /// unplaced items make the check fail (with the walls beside them).
    pub fn conflict_around(&self, inst: &Instance, a: usize, b: usize, capacity: u64) -> Option<(usize, usize)> {
        let sections = self.floor.len();
        for k in [a, b] {
            if !self.step_fits(k, capacity) {
                return Some(self.with_walls((k.saturating_sub(1), k + 1)));
            }
        }
        for s in [a.wrapping_sub(1), a, b - 1, b] {
            if !self.pit_fits(s, capacity) {
                return Some(self.with_walls((s, s + 1)));
            }
        }
        let top = self.floor[a];
        let basin = self.basin(a);
        // An item found for one section supports every section it spans: skip past them.
        let mut t = a;
        while t < b {
            match self.support(inst, t, basin, capacity) {
                Some((_, reach)) => t = reach,
                None => return Some(self.with_walls(basin)),
            }
        }
        // Lower sections beside: supports that reached into `[a, b)` are gone. Sections next
        // to each other at one floor share a basin: it is found once per such run, and an
        // item found for one of them supports the others it spans.
        let mut t = a;
        let mut basin = (0, 0);
        while t > 0 && self.floor[t - 1] < top {
            t -= 1;
            if t + 1 == a || self.floor[t] != self.floor[t + 1] {
                basin = self.basin(t);
            }
            let Some((reach, _)) = self.support(inst, t, basin, capacity) else {
                return Some(self.with_walls(basin));
            };
            while t > reach && self.floor[t - 1] == self.floor[t] {
                t -= 1;
            }
        }
        let mut t = b;
        while t < sections && self.floor[t] < top {
            if t == b || self.floor[t] != self.floor[t - 1] {
                basin = self.basin(t);
            }
            let Some((_, reach)) = self.support(inst, t, basin, capacity) else {
                return Some(self.with_walls(basin));
            };
            t += 1;
            while t < reach && self.floor[t] == self.floor[t - 1] {
                t += 1;
            }
        }
        None
    }

    /// `range` with the section on each side of it (its walls), within the sections.
    pub fn with_walls(&self, (first, end): (usize, usize)) -> (usize, usize) {
        (first.saturating_sub(1), (end + 1).min(self.floor.len()))
    }

    /// The sections around `t` whose floors are at most its floor: `[first, end)`.
    pub fn basin(&self, t: usize) -> (usize, usize) {
        let level = self.floor[t];
        let mut first = t;
        while first > 0 && self.floor[first - 1] <= level {
            first -= 1;
        }
        let mut end = t + 1;
        while end < self.floor.len() && self.floor[end] <= level {
            end += 1;
        }
        (first, end)
    }

    /// Whether the lowest free cell of section `t` (in `basin`, from [`Skyline::basin`]) can
    /// still be filled: an item starts above every floor it spans, so only unplaced items
    /// inside the basin can start there. Without one, the section must leave its cells empty
    /// up to the basin's lower wall, which its slack must allow.
    ///
    /// When it can, the sections where the support found works too: those of the item found
    /// (the caller takes the ones in the same basin), or `t` alone.
    fn support(
        &self,
        inst: &Instance,
        t: usize,
        (first, end): (usize, usize),
        capacity: u64,
    ) -> Option<(usize, usize)> {
        if self.unplaced_count[t] == 0 {
            return Some((t, t + 1));
        }
        let inside =
            inst.covering[t].iter().find(|&&i| !self.placed[i] && inst.span[i].0 >= first && inst.span[i].1 <= end);
        if let Some(&i) = inside {
            return Some(inst.span[i]);
        }
        let walls = [first.checked_sub(1), (end < self.floor.len()).then_some(end)];
        let Some(wall) = walls.into_iter().flatten().map(|w| self.floor[w]).min() else { return Some((t, t + 1)) };
        (wall - self.floor[t] <= self.slack(t, capacity)).then_some((t, t + 1))
    }

    /// `range` without its leading and trailing sections that hold no unplaced item, and the
    /// groups of `active` that are independent sub-problems when there are several (no
    /// unplaced item crosses a boundary between them: `search::groups`).
    pub fn trim_and_split(
        &self,
        inst: &Instance,
        active: &[usize],
        range: (usize, usize),
    ) -> ((usize, usize), Option<Vec<Vec<usize>>>) {
        let (mut first, mut end) = range;
        while self.unplaced_count[first] == 0 {
            first += 1;
        }
        while self.unplaced_count[end - 1] == 0 {
            end -= 1;
        }
        let groups = (first + 1..end)
            .any(|k| self.cuts[k] == 0)
            .then(|| super::search::groups(inst, active, &self.placed))
            .filter(|groups| groups.len() > 1);
        ((first, end), groups)
    }

    /// The key of the sub-problem of `group` (unplaced items), computed from scratch.
    pub fn group_key(&self, inst: &Instance, group: &[usize]) -> u128 {
        let (first, end) = super::search::span_of(inst, group);
        let mut key = 0;
        for &i in group {
            key ^= inst.zobrist[i].0;
        }
        for s in first..end {
            if self.unplaced_count[s] > 0 {
                key ^= section_key(s, self.floor[s]);
            }
        }
        key
    }

    /// Whether the runs of sections beside `[a, b)` (whose floors just rose to `top`) with
    /// floors below `top` can still be filled up to it: an item crossing a run's end starts at
    /// or above `top` (the floor there is that high), so the cells of the run below `top` can
    /// only take the unplaced items inside the run, or stay empty within a section's slack.
    /// On failure, the run with its walls.
    pub fn runs_conflict(
        &self,
        inst: &Instance,
        a: usize,
        b: usize,
        top: u64,
        capacity: u64,
    ) -> Option<(usize, usize)> {
        let mut first = a;
        while first > 0 && self.floor[first - 1] < top {
            first -= 1;
        }
        let mut end = b;
        while end < self.floor.len() && self.floor[end] < top {
            end += 1;
        }
        [(first, a), (b, end)]
            .into_iter()
            .find(|&(l, r)| !self.run_fits(inst, l, r, top, capacity))
            .map(|run| self.with_walls(run))
    }

    /// Whether sections `[l, r)`, with floors below `level` and walls (or the ends) at or above
    /// it, can be filled up to `level` by the unplaced items inside them: one sweep adds each
    /// such item's bytes over its sections.
    fn run_fits(&self, inst: &Instance, l: usize, r: usize, level: u64, capacity: u64) -> bool {
        let mut inside = 0u64;
        for s in l..r {
            for &j in &inst.starting[s] {
                if !self.placed[j] && inst.span[j].1 <= r {
                    inside += inst.items[j].size;
                }
            }
            if self.unplaced_count[s] > 0 && self.floor[s] + self.slack(s, capacity) + inside < level {
                return false;
            }
            for &j in &inst.ending[s + 1] {
                if !self.placed[j] && inst.span[j].0 >= l {
                    inside -= inst.items[j].size;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::search::{sections_of, Instance};
    use super::Skyline;
    use crate::offsets::items;
    use crate::problem::{Buffer, Problem};

    /// A run the older inferences pass but that cannot be filled: after `p` (section 0) and
    /// `x` (section 3) are placed at 0, sections 1 and 2 lie at floor 0 between walls 2 high.
    /// Section 1 must be filled up to 2 (at capacity 4 it has no slack), but of its items
    /// `z` crosses into section 0 and `q` into section 3, so both start at 2 or above, and
    /// `y` alone (1 byte) is left below. Every step, pit and lowest cell still looks fillable.
    #[test]
    fn runs_between_walls_must_fill_up_to_them() {
        let problem = Problem::new(vec![
            Buffer::new("p", 0, 1, 2),
            Buffer::new("z", 0, 2, 2),
            Buffer::new("y", 1, 3, 1),
            Buffer::new("q", 1, 4, 1),
            Buffer::new("r", 2, 3, 2),
            Buffer::new("x", 3, 4, 2),
            Buffer::new("s", 3, 4, 1),
        ]);
        let list = items(&problem);
        let inst = Instance::new(&list, sections_of(&list), None);
        assert_eq!(inst.totals, vec![4, 4, 4, 4]);
        let mut sky = Skyline::new(&inst);
        let mut log = Vec::new();
        sky.lay(&inst, 0, 0, &mut log);
        sky.lay(&inst, 5, 0, &mut log);
        assert_eq!(sky.floor, vec![2, 0, 0, 2]);
        assert_eq!(sky.conflict_around(&inst, 3, 4, 4), None);
        assert_eq!(sky.runs_conflict(&inst, 3, 4, 2, 4), Some((0, 4)));
        // One byte of slack leaves section 1's second cell empty: nothing to prune.
        assert_eq!(sky.conflict_around(&inst, 3, 4, 5), None);
        assert_eq!(sky.runs_conflict(&inst, 3, 4, 2, 5), None);
    }
}
