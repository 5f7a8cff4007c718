//! Fuzz inputs of the runtime's readers (`fuzz/fuzz_targets/{npy,manifest}.rs`; the corpora
//! in `fuzz/corpus/` are replayed by ordinary tests). Errors are expected; a panic, an
//! allocation the input's size does not justify, or a broken round trip is the bug.

use crate::{Manifest, Tensor};

/// Reads `bytes` as a `.npy` file; what reads must survive a write and a second read.
pub fn read_npy(bytes: &[u8]) {
    let Ok(tensor) = Tensor::from_npy_bytes(bytes) else { return };
    let values = tensor.to_f64();
    assert_eq!(values.len(), tensor.len());
    let Ok(written) = tensor.to_npy_bytes() else { return };
    let again = Tensor::from_npy_bytes(&written).expect("a tensor's own .npy reads");
    assert_eq!((again.dtype(), again.shape(), again.bytes()), (tensor.dtype(), tensor.shape(), tensor.bytes()));
}

/// Parses `bytes` as a manifest; one that parses must describe buffers that fit memory,
/// survive a write and a second parse, and match its own embedded signature.
pub fn parse_manifest(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let Ok(manifest) = Manifest::parse(text) else { return };
    let signature = manifest.signature();
    for spec in signature.inputs.iter().chain(&signature.outputs) {
        assert!(spec.bytes().is_some(), "'{}' was validated to fit memory", spec.name);
    }
    let written = serde_json::to_string_pretty(&manifest).expect("a manifest serialises");
    assert_eq!(Manifest::parse(&written).expect("a manifest's own JSON parses"), manifest);
    let embedded = manifest.embedded().to_json();
    manifest.check_embedded(Some(&embedded), std::path::Path::new("code")).expect("its own signature matches");
}

#[cfg(test)]
mod tests {
    /// Replays `fuzz/corpus/<target>` through `run`.
    fn replay(target: &str, run: fn(&[u8])) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
            run(&std::fs::read(entry.path()).unwrap());
            count += 1;
        }
        assert!(count >= 5, "the {target} corpus has only {count} inputs");
    }

    #[test]
    fn npy_corpus_replays_cleanly() {
        replay("npy", super::read_npy);
    }

    #[test]
    fn manifest_corpus_replays_cleanly() {
        replay("manifest", super::parse_manifest);
    }
}
