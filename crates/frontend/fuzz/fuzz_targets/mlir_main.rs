// The `main` of the fuzz targets that link MLIR (included by each): the statically linked MLIR
// libraries include mlir-opt's `main` (libMLIRMlirOptMain.a), which the linker would otherwise
// pick instead of libFuzzer's. This one hands control to libFuzzer through
// `LLVMFuzzerRunDriver`.

use std::ffi::{c_char, c_int, CString};

unsafe extern "C" {
    fn LLVMFuzzerRunDriver(argc: *mut c_int, argv: *mut *mut *mut c_char, callback: unsafe extern "C" fn(*const u8, usize) -> c_int) -> c_int;
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
