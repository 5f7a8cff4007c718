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

/// One structural mutation of a node: an attribute set to another value of any kind or
/// removed, or an input dropped or renamed.
#[derive(Clone, Debug)]
enum Mutation {
    Int(i64),
    Ints(Vec<i64>),
    Float(f32),
    Text(&'static str),
    RemoveAttribute,
    DropInput,
    RenameInput,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let small = prop_oneof![-3i64..8, Just(i64::MAX), Just(i64::MIN), Just(1 << 40)];
    prop_oneof![
        small.clone().prop_map(Mutation::Int),
        prop::collection::vec(small, 0..6).prop_map(Mutation::Ints),
        prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(-1.0f32), Just(0.0f32), Just(1e30f32)]
            .prop_map(Mutation::Float),
        prop::sample::select(vec![
            "",
            "bogus",
            "linear",
            "cubic",
            "nearest",
            "reflection",
            "border",
            "Tanh",
            "reverse"
        ])
        .prop_map(Mutation::Text),
        Just(Mutation::RemoveAttribute),
        Just(Mutation::DropInput),
        Just(Mutation::RenameInput),
    ]
}

/// Applies `mutation` to node `which` of `graph` (or, when that node carries a subgraph and
/// `deeper` is set, to a node of the subgraph), attribute `attr`.
fn mutate(graph: &mut crate::onnx::GraphProto, which: usize, attr: usize, mutation: &Mutation, deeper: bool) {
    if graph.node.is_empty() {
        return;
    }
    let count = graph.node.len();
    let node = &mut graph.node[which % count];
    if deeper {
        if let Some(body) = node.attribute.iter_mut().find_map(|a| a.g.as_mut()) {
            return mutate(body, which / count, attr, mutation, false);
        }
    }
    match mutation {
        Mutation::DropInput if !node.input.is_empty() => {
            let k = attr % node.input.len();
            node.input.remove(k);
        }
        Mutation::RenameInput if !node.input.is_empty() => {
            let k = attr % node.input.len();
            node.input[k] = "no_such_value".into();
        }
        _ if node.attribute.is_empty() => {}
        Mutation::RemoveAttribute => {
            let k = attr % node.attribute.len();
            node.attribute.remove(k);
        }
        _ => {
            let k = attr % node.attribute.len();
            let a = &mut node.attribute[k];
            match mutation {
                Mutation::Int(v) => a.i = Some(*v),
                Mutation::Ints(v) => a.ints = v.clone(),
                Mutation::Float(v) => a.f = Some(*v),
                Mutation::Text(v) => a.s = Some(v.as_bytes().to_vec()),
                _ => {}
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    /// The operators added for real models (old opsets, If/Loop/Scan, quantized ops, the
    /// composite, indexing, attention, loss, GridSample and RotaryEmbedding subgraphs) with
    /// their attributes and inputs mutated structurally: an error or a module, never a panic.
    #[test]
    fn mutated_attributes_never_panic(
        model in prop::sample::select(vec![
            "legacy.onnx", "if.onnx", "quant.onnx", "composite.onnx", "attention.onnx", "indexing.onnx",
            "loss.onnx", "loop_for.onnx", "loop_while.onnx", "loop_grow.onnx", "scan.onnx", "grid_rotary.onnx",
            "resize_deconv.onnx", "nn.onnx", "upsample7.onnx", "select.onnx", "sequence.onnx", "spectral.onnx",
        ]),
        mutations in prop::collection::vec((any::<usize>(), any::<usize>(), mutation(), any::<bool>()), 1..4),
    ) {
        use prost::Message;
        let strata = context();
        let mut parsed = crate::onnx::ModelProto::decode(fixture(model).as_slice()).expect("a valid fixture");
        let graph = parsed.graph.as_mut().expect("a graph");
        for (which, attr, mutation, deeper) in &mutations {
            mutate(graph, *which, *attr, mutation, *deeper);
        }
        let bytes = parsed.encode_to_vec();
        let _ = import(&strata, &bytes, &ImportOptions { file_name: "mutated.onnx".into(), ..Default::default() });
    }

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
