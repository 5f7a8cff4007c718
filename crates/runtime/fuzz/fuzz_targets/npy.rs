//! Fuzzes the `.npy` reader: any bytes must read or fail with an error, without allocating
//! more than the input justifies. Run: `cargo +nightly fuzz run npy` in `crates/runtime`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_runtime::fuzzing::read_npy(data);
});
