//! Fuzzes the ONNX importer: any bytes must import or fail with an error, never panic.
//! Run: `cargo +nightly fuzz run import` in `crates/frontend` (corpus in `fuzz/corpus/import`).
//!
//! The binary defines its own `main` (`mlir_main.rs`): the statically linked MLIR libraries
//! carry mlir-opt's.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_frontend::fuzzing::import_bytes(data);
});

include!("mlir_main.rs");
