//! Fuzzes strata-opt's pass-pipeline parser (`strata_ir::fuzzing`): any text must parse or
//! fail with an error, and what parses must print canonically. Run: `cargo +nightly fuzz run
//! pipeline ../ir/fuzz/corpus/pipeline` in `crates/frontend` (the corpus lives with strata-ir,
//! whose tests replay it; this crate holds the target for its MLIR-linking `main`).
//!
//! The binary defines its own `main` (`mlir_main.rs`): the statically linked MLIR libraries
//! carry mlir-opt's.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_ir::fuzzing::parse_pipeline(data);
});

include!("mlir_main.rs");
