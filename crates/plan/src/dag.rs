//! Parallel-aware planning: the op dependency DAG and the reuse rule it imposes.
//!
//! Reusing memory orders its users: if buffer `i` takes memory buffer `j` used, `i`'s producer
//! must run after `j`'s last use. Planning must not add such an order between ops the graph
//! leaves independent (they could run concurrently). So with a DAG, two buffers may share
//! memory only if their lifetimes are disjoint *and* a dependency path leads from the last use
//! of one to the producer of the other.

use crate::PlanError;

/// Dependencies between ops `0..ops` (edges point from an op to one that depends on it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpDag {
    ops: usize,
    /// `reach[a]` has bit `b` set iff a path leads from op `a` to op `b` (or `a == b`).
    reach: Vec<Vec<u64>>,
}

/// Ops beyond this make the reachability matrix too large (ops² bits).
pub const MAX_OPS: usize = 20_000;

impl OpDag {
    /// Builds the reachability closure. Edges must go forward (`from < to`): ops are
    /// numbered in a topological (program) order.
    pub fn new(ops: usize, edges: &[(usize, usize)]) -> Result<OpDag, PlanError> {
        if ops > MAX_OPS {
            return Err(PlanError::Unsupported(format!(
                "parallel-aware planning handles up to {MAX_OPS} ops, this graph has {ops}"
            )));
        }
        let words = ops.div_ceil(64);
        let mut successors = vec![Vec::new(); ops];
        for &(from, to) in edges {
            if from >= to || to >= ops {
                return Err(PlanError::Unsupported(format!(
                    "dependency {from} -> {to} is not forward in op order 0..{ops}"
                )));
            }
            successors[from].push(to);
        }
        let mut reach = vec![vec![0u64; words]; ops];
        for a in (0..ops).rev() {
            reach[a][a / 64] |= 1 << (a % 64);
            for &b in &successors[a] {
                let (low, high) = reach.split_at_mut(b);
                for (w, bits) in low[a].iter_mut().zip(&high[0]) {
                    *w |= *bits;
                }
            }
        }
        Ok(OpDag { ops, reach })
    }

    pub fn ops(&self) -> usize {
        self.ops
    }

    /// Whether op `to` depends (transitively) on op `from`.
    pub fn reaches(&self, from: usize, to: usize) -> bool {
        from < self.ops && to < self.ops && self.reach[from][to / 64] >> (to % 64) & 1 == 1
    }

    /// Whether two buffers with half-open lifetimes `[l1, u1)` and `[l2, u2)` (op indices:
    /// producer .. last use + 1) may share memory.
    pub fn may_share(&self, (l1, u1): (u64, u64), (l2, u2): (u64, u64)) -> bool {
        let ordered = |last: u64, producer: u64| last < producer && self.reaches(last as usize, producer as usize);
        ordered(u1 - 1, l2) || ordered(u2 - 1, l1)
    }
}

#[cfg(test)]
mod tests {
    use super::OpDag;

    #[test]
    fn reachability_and_sharing() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3: ops 1 and 2 are independent.
        let dag = OpDag::new(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]).unwrap();
        assert!(dag.reaches(0, 3) && dag.reaches(1, 3) && !dag.reaches(1, 2) && !dag.reaches(3, 0));
        assert!(dag.may_share((0, 1), (1, 2)), "dies at 0, produced at 1 which depends on 0");
        assert!(!dag.may_share((1, 2), (2, 3)), "produced at 2, which does not depend on 1");
        assert!(dag.may_share((1, 2), (3, 4)));
        assert!(OpDag::new(3, &[(2, 1)]).is_err());
    }
}
