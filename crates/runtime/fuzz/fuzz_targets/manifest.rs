//! Fuzzes the manifest parser and validator: any bytes must parse or fail with an error.
//! Run: `cargo +nightly fuzz run manifest` in `crates/runtime`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_runtime::fuzzing::parse_manifest(data);
});
