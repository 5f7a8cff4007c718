//! Fuzzes strata-opt's pass-pipeline parser (`strata_ir::fuzzing`): any text must parse or
//! fail with an error, and what parses must print canonically. Run: `cargo +nightly fuzz run
//! pipeline ../ir/fuzz/corpus/pipeline` in `crates/frontend` (the corpus lives with strata-ir,
//! whose tests replay it; this crate holds the target for its MLIR-linking `main`).
//!
//! The binary defines its own `main`: the statically linked MLIR libraries include mlir-opt's
//! `main` (libMLIRMlirOptMain.a), which the linker would otherwise pick instead of
//! libFuzzer's. This `main` hands control to libFuzzer through `LLVMFuzzerRunDriver`.

use std::ffi::{c_char, c_int, CString};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    strata_ir::fuzzing::parse_pipeline(data);
});

unsafe extern "C" {
    fn LLVMFuzzerRunDriver(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        callback: unsafe extern "C" fn(*const u8, usize) -> c_int,
    ) -> c_int;
    fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> c_int;
}

fn main() {
    let args: Vec<CString> = std::env::args().map(|a| CString::new(a).expect("arguments have no NUL")).collect();
    let mut pointers: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    pointers.push(std::ptr::null_mut());
    let mut argc = args.len() as c_int;
    let mut argv = pointers.as_mut_ptr();
    let status = unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, LLVMFuzzerTestOneInput) };
    std::process::exit(status);
}
