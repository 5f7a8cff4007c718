//! One fuzz input of the planner: bytes read as a MiniMalloc CSV. Parsing may fail with an
//! error; a problem that parses must plan with every strategy within its size limit, each plan
//! passing the validator, and must survive a CSV round trip. A panic, or an invalid plan, is
//! the bug the fuzzer looks for (`fuzz/fuzz_targets/csv.rs`; the corpus in `fuzz/corpus/csv`
//! is replayed by an ordinary test).

use crate::{plan, Budget, PlanError, Problem, Strategy};
use std::time::Duration;

/// The most buffers a fuzz input is planned with (parsing has no limit): the quadratic
/// strategies stay fast enough for many executions per second.
const MAX_PLANNED: usize = 200;

/// Parses `bytes` as CSV and plans what parses; panics on a broken invariant.
pub fn plan_csv(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let Ok(problem) = Problem::from_csv(text) else { return };
    let again = Problem::from_csv(&problem.to_csv(None)).expect("a problem's own CSV parses");
    assert_eq!(again.buffers.len(), problem.buffers.len(), "the CSV round trip keeps every buffer");
    for (a, b) in problem.buffers.iter().zip(&again.buffers) {
        assert_eq!((a.lower, a.upper, a.size), (b.lower, b.upper, b.size), "the CSV round trip keeps '{}'", a.id);
    }
    if problem.buffers.len() > MAX_PLANNED {
        return;
    }
    let budget = Budget { nodes: 20_000, time: Some(Duration::from_millis(20)) };
    for strategy in Strategy::all() {
        match plan(&problem, strategy, budget) {
            Ok(report) => {
                assert!(report.arena_bytes >= report.lower_bound, "{}: arena below its lower bound", report.strategy)
            }
            Err(PlanError::TooLarge(_)) => {}
            Err(e @ PlanError::InvalidPlan { .. }) => panic!("{e}"),
            Err(e) => panic!("{}: a problem that parsed failed to plan: {e}", strategy.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    /// The fuzz corpus (seeds and what the fuzzer saved) replays cleanly, without the nightly
    /// toolchain cargo-fuzz needs.
    #[test]
    fn fuzz_corpus_replays_cleanly() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/csv");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
            super::plan_csv(&std::fs::read(entry.path()).unwrap());
            count += 1;
        }
        assert!(count >= 5, "the corpus has only {count} inputs");
    }
}
