//! The plan validator. It is independent of the strategies (it shares no code with them
//! beyond the problem types) and every plan goes through it before it is used.
//!
//! Invariants checked, all violations collected:
//! - every arena buffer has an offset, and no other buffer has one;
//! - every offset is a multiple of the buffer's alignment;
//! - every buffer fits in the arena (`offset + size <= arena`);
//! - two buffers live at the same time never overlap in memory, except in-place partners
//!   placed at exactly the same offset whose lifetimes meet at one op (the input's last use
//!   is the op that produces the output);
//! - parallel-aware problems (with a DAG): buffers the DAG does not order never overlap in
//!   memory either, even when their lifetimes are disjoint;
//! - for shared-object plans: buffers of one object never live at the same time (nor, with a
//!   DAG, unordered by it) and every object is at least as large as its buffers.

use crate::objects::SharedObjects;
use crate::offsets::OffsetPlan;
use crate::problem::Problem;
use std::collections::BTreeMap;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation(pub String);

/// Whether `a` and `b` are in-place partners whose lifetimes meet at exactly one op.
fn partners(problem: &Problem, a: usize, b: usize) -> bool {
    let linked = |out: usize, input: usize| {
        problem.buffers[out].inplace == Some(input) && problem.buffers[input].upper == problem.buffers[out].lower + 1
    };
    linked(a, b) || linked(b, a)
}

/// Checks an offset plan.
pub fn validate_offsets(problem: &Problem, plan: &OffsetPlan) -> Result<(), Vec<Violation>> {
    let mut violations = Vec::new();
    if plan.offsets.len() != problem.buffers.len() {
        return Err(vec![Violation(format!("{} offsets for {} buffers", plan.offsets.len(), problem.buffers.len()))]);
    }
    let mut events: Vec<(u64, bool, usize)> = Vec::new(); // (time, is_start, buffer)
    for (i, b) in problem.buffers.iter().enumerate() {
        match (b.class.in_arena(), plan.offsets[i]) {
            (true, None) => violations.push(Violation(format!("buffer '{}' has no offset", b.id))),
            (false, Some(_)) => {
                violations.push(Violation(format!("buffer '{}' is not an arena buffer but has an offset", b.id)))
            }
            (true, Some(offset)) => {
                if offset % b.align != 0 {
                    violations
                        .push(Violation(format!("buffer '{}' at {offset} breaks its alignment {}", b.id, b.align)));
                }
                if offset + b.size > plan.arena {
                    violations.push(Violation(format!(
                        "buffer '{}' [{offset}, {}) ends past the arena ({})",
                        b.id,
                        offset + b.size,
                        plan.arena
                    )));
                }
                if b.size > 0 {
                    events.push((b.lower, true, i));
                    events.push((b.upper, false, i));
                }
            }
            (false, None) => {}
        }
    }
    // Sweep over time; the live buffers are kept sorted by offset. Live buffers never
    // overlap, so a new buffer overlaps some live one iff it overlaps a neighbour.
    events.sort_unstable();
    let mut live: BTreeMap<(u64, usize), u64> = BTreeMap::new(); // (offset, buffer) -> end
    for (_, start, i) in events {
        let offset = plan.offsets[i].expect("arena buffers checked above");
        if !start {
            live.remove(&(offset, i));
            continue;
        }
        let end = offset + problem.buffers[i].size;
        let clash = |other: usize, other_offset: u64| !(partners(problem, i, other) && other_offset == offset);
        let mut report = |other: usize, other_offset: u64, other_end: u64| {
            violations.push(Violation(format!(
                "buffers '{}' [{offset}, {end}) and '{}' [{other_offset}, {other_end}) are live at the same time and overlap",
                problem.buffers[i].id, problem.buffers[other].id
            )));
        };
        let before = live.range(..=(offset, usize::MAX)).next_back().map(|(&(o, b), &e)| (o, b, e));
        let after = live.range((offset, usize::MAX)..).next().map(|(&(o, b), &e)| (o, b, e));
        // Every live buffer at the same offset (in-place partners may stack there), and the
        // neighbours below and above.
        let same = live.range((offset, 0)..=(offset, usize::MAX)).map(|(&(o, b), &e)| (o, b, e));
        let neighbours =
            before.filter(|&(o, _, _)| o != offset).into_iter().chain(after.filter(|&(o, _, _)| o != offset));
        for (o, b, e) in same.chain(neighbours) {
            if o < end && offset < e && clash(b, o) {
                report(b, o, e);
            }
        }
        live.insert((offset, i), end);
    }
    if let Some(dag) = &problem.dag {
        let placed: Vec<usize> =
            (0..problem.buffers.len()).filter(|&i| plan.offsets[i].is_some() && problem.buffers[i].size > 0).collect();
        for (k, &a) in placed.iter().enumerate() {
            for &b in &placed[k + 1..] {
                let (x, y) = (&problem.buffers[a], &problem.buffers[b]);
                let (oa, ob) = (plan.offsets[a].unwrap_or(0), plan.offsets[b].unwrap_or(0));
                let memory = oa < ob + y.size && ob < oa + x.size;
                if memory && !x.overlaps_in_time(y) && !dag.may_share((x.lower, x.upper), (y.lower, y.upper)) {
                    violations.push(Violation(format!(
                        "buffers '{}' and '{}' share memory but the dependency graph does not order their uses",
                        x.id, y.id
                    )));
                }
            }
        }
    }
    if violations.is_empty() {
        Ok(())
    } else {
        Err(violations)
    }
}

/// Checks a shared-object plan.
pub fn validate_objects(problem: &Problem, plan: &SharedObjects) -> Result<(), Vec<Violation>> {
    let mut violations = Vec::new();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); plan.object_sizes.len()];
    for (i, b) in problem.buffers.iter().enumerate() {
        match (b.class.in_arena(), plan.object_of.get(i).copied().flatten()) {
            (true, None) => violations.push(Violation(format!("buffer '{}' has no object", b.id))),
            (true, Some(o)) if o >= plan.object_sizes.len() => {
                violations.push(Violation(format!("buffer '{}' names object {o}, which does not exist", b.id)))
            }
            (true, Some(o)) => {
                if plan.object_sizes[o] < b.size {
                    violations.push(Violation(format!(
                        "object {o} ({} bytes) is smaller than buffer '{}' ({})",
                        plan.object_sizes[o], b.id, b.size
                    )));
                }
                members[o].push(i);
            }
            (false, Some(_)) => {
                violations.push(Violation(format!("buffer '{}' is not an arena buffer but has an object", b.id)))
            }
            (false, None) => {}
        }
    }
    for (o, list) in members.iter_mut().enumerate() {
        list.sort_by_key(|&i| problem.buffers[i].lower);
        for pair in list.windows(2) {
            let (a, b) = (&problem.buffers[pair[0]], &problem.buffers[pair[1]]);
            if a.upper > b.lower {
                violations.push(Violation(format!(
                    "object {o} holds '{}' and '{}', which are live at the same time",
                    a.id, b.id
                )));
            }
        }
        if let Some(dag) = &problem.dag {
            for (k, &x) in list.iter().enumerate() {
                for &y in &list[k + 1..] {
                    let (a, b) = (&problem.buffers[x], &problem.buffers[y]);
                    if !a.overlaps_in_time(b) && !dag.may_share((a.lower, a.upper), (b.lower, b.upper)) {
                        violations.push(Violation(format!(
                            "object {o} holds '{}' and '{}', whose uses the dependency graph does not order",
                            a.id, b.id
                        )));
                    }
                }
            }
        }
    }
    if violations.is_empty() {
        Ok(())
    } else {
        Err(violations)
    }
}
