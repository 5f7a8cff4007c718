//! One fuzz input of the pass-pipeline parser (`strata-opt --pass-pipeline`): any text must
//! parse or fail with an error whose column lies inside it, and what parses must print in a
//! canonical form that parses back to the same pipeline. The target is
//! `crates/frontend/fuzz/fuzz_targets/pipeline.rs` (it shares that crate's MLIR-linking
//! `main`); the corpus in `fuzz/corpus/pipeline` here is replayed by an ordinary test.

use crate::pipeline::Pipeline;

/// Parses `bytes` as a pipeline; panics on a broken invariant.
pub fn parse_pipeline(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    match Pipeline::parse(text) {
        Err(error) => assert!(error.column <= text.len(), "column {} past the text: {error}", error.column),
        Ok(pipeline) => {
            let canonical = pipeline.to_string();
            let again = Pipeline::parse(&canonical).unwrap_or_else(|e| panic!("canonical form {canonical:?}: {e}"));
            assert_eq!(again.to_string(), canonical, "the canonical form is stable");
            assert_eq!(again.flatten().len(), pipeline.flatten().len(), "no pass lost in printing");
        }
    }
}

#[cfg(test)]
mod tests {
    /// The fuzz corpus replays cleanly, without the nightly toolchain cargo-fuzz needs.
    #[test]
    fn fuzz_corpus_replays_cleanly() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/pipeline");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
            super::parse_pipeline(&std::fs::read(entry.path()).unwrap());
            count += 1;
        }
        assert!(count >= 5, "the corpus has only {count} inputs");
    }
}
