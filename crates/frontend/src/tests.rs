//! Robustness: whatever the bytes, import returns a value or an error, never panics.

use crate::{import, ImportOptions};
use proptest::prelude::*;
use strata_ir::StrataContext;

fn context() -> StrataContext {
    StrataContext::new(&[strata_dialect_sg::DIALECT]).unwrap()
}

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lit-tests/frontend/inputs").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_truncation_of_a_model_fails_cleanly() {
    let strata = context();
    let bytes = fixture("conv_relu.onnx");
    let options = ImportOptions { file_name: "conv_relu.onnx".into(), ..Default::default() };
    assert!(import(&strata, &bytes, &options).is_ok());
    let mut errors = 0;
    for length in 0..bytes.len() {
        errors += usize::from(import(&strata, &bytes[..length], &options).is_err());
    }
    assert!(errors > bytes.len() / 2, "most truncations are invalid models");
}

/// The fuzz corpus (seeds and anything the fuzzer saved) replays cleanly: a regression test
/// that runs in CI without the nightly toolchain cargo-fuzz needs.
#[test]
fn fuzz_corpus_replays_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/import");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        crate::fuzzing::import_bytes(&std::fs::read(entry.path()).unwrap());
        count += 1;
    }
    assert!(count >= 10, "the corpus has only {count} inputs");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let strata = context();
        let _ = import(&strata, &bytes, &ImportOptions { file_name: "fuzz.onnx".into(), ..Default::default() });
    }

    /// Flipping bytes of a real model (structure mostly intact) reaches deeper code paths: a
    /// plain graph, and one with a Loop body (unrolled at import).
    #[test]
    fn mutated_models_never_panic(model in prop::sample::select(vec!["layout.onnx", "loop.onnx"]), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let strata = context();
        let mut bytes = fixture(model);
        for (index, value) in flips {
            let i = index.index(bytes.len());
            bytes[i] = value;
        }
        let _ = import(&strata, &bytes, &ImportOptions { file_name: "mutated.onnx".into(), ..Default::default() });
    }
}
