//! Fuzzes the ONNX importer: any bytes must import or fail with an error, never panic.
//! Run: `cargo +nightly fuzz run import` in `crates/frontend` (corpus in `fuzz/corpus/import`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_frontend::fuzzing::import_bytes(data);
});
