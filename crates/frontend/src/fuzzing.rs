//! One fuzz input: import `bytes` into a per-thread context and drop the result. Errors are
//! expected; a panic (or a crash) is the bug the fuzzer looks for.

use crate::{import, ImportOptions};
use strata_ir::StrataContext;

thread_local! {
    static CONTEXT: StrataContext = StrataContext::new(&[strata_dialect_sg::DIALECT]).expect("the sg dialect loads");
}

/// Imports `bytes` as an ONNX model, discarding the outcome.
pub fn import_bytes(bytes: &[u8]) {
    CONTEXT.with(|strata| {
        let options = ImportOptions { file_name: "fuzz.onnx".into(), ..Default::default() };
        let _ = import(strata, bytes, &options);
    });
}
