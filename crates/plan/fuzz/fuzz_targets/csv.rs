//! Fuzzes the planner through its CSV reader: any bytes must parse or fail with an error, and
//! a problem that parses must plan validly with every strategy.
//! Run: `cargo +nightly fuzz run csv` in `crates/plan` (corpus in `fuzz/corpus/csv`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_plan::fuzzing::plan_csv(data);
});
