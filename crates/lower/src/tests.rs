//! Every lowering builder, built and parsed for every element type and rank class it takes.
//!
//! For each `sg` op (one exhaustive `match` on [`OpKind`]: a new op needs its samples here) and
//! each element type, sample ops are verified, lowered with [`crate::ops::kernel`], and the
//! kernel text parsed by MLIR. A kernel may refuse an element type only with an `unsupported:`
//! error; a kernel that does not parse fails the test, so "internal error: ... does not parse"
//! can only appear for a case this test lacks.

use crate::kernel::KernelCache;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, RegionLike};
use strata_dialect_sg::{AttrKind, Elementwise, Form, OpKind, SgOp, DIALECT};
use strata_ir::StrataContext;

/// The element types the samples take.
const ELEMENTS: &[&str] = &["f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "ui8", "i1", "f8E4M3FN"];

/// One sample: the op's operand types, result type, attributes (the inside of the dictionary)
/// and the result.
struct Sample {
    operands: Vec<String>,
    /// The result types (most ops have one).
    results: Vec<String>,
    attributes: String,
}

fn sample(operands: &[&str], result: &str, attributes: &str) -> Sample {
    Sample {
        operands: operands.iter().map(|s| s.to_string()).collect(),
        results: vec![result.into()],
        attributes: attributes.into(),
    }
}

/// The samples of `kind` with element type `t` (`tensor<...xT>` written with `t`).
fn samples(kind: OpKind, t: &str) -> Vec<Sample> {
    let ty = |shape: &str| if shape.is_empty() { format!("tensor<{t}>") } else { format!("tensor<{shape}x{t}>") };
    if let Some(e) = kind.elementwise() {
        return elementwise(e, t);
    }
    match kind {
        OpKind::ReduceSum
        | OpKind::ReduceMean
        | OpKind::ReduceMax
        | OpKind::ReduceMin
        | OpKind::ReduceProd
        | OpKind::ReduceL2 => vec![
            sample(&[&ty("2x3x4")], &ty("2x4"), "axes = array<i64: 1>, keepdims = 0 : i64"),
            sample(&[&ty("2x3x4")], &ty("1x1x1"), "axes = array<i64: 0, 1, 2>, keepdims = 1 : i64"),
        ],
        OpKind::Conv2d => {
            let conv = |group: i64| {
                format!(
                    "dilations = array<i64: 1, 1>, group = {group} : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>"
                )
            };
            vec![
                sample(&[&ty("1x4x5x5"), &ty("2x4x3x3"), &ty("2")], &ty("1x2x5x5"), &conv(1)),
                sample(&[&ty("1x4x5x5"), &ty("4x2x3x3")], &ty("1x4x5x5"), &conv(2)),
                sample(&[&ty("1x4x5x5"), &ty("4x1x3x3")], &ty("1x4x5x5"), &conv(4)),
            ]
        }
        OpKind::Matmul => vec![
            sample(&[&ty("2x3"), &ty("3x4")], &ty("2x4"), ""),
            sample(&[&ty("2x2x3"), &ty("3x4")], &ty("2x2x4"), ""),
        ],
        // One element type by definition, whatever `t` is.
        OpKind::QuantizedMatmul => vec![
            sample(
                &["tensor<6x8xui8>", "tensor<2x2x16x4xi8>", "tensor<32xi32>", "tensor<32xf32>"],
                "tensor<6x32xf32>",
                "",
            ),
            sample(
                &["tensor<2x3x8xui8>", "tensor<2x2x16x4xi8>", "tensor<32xi32>", "tensor<32xf32>"],
                "tensor<2x3x32xf32>",
                "",
            ),
            sample(&["tensor<2x3x8xui8>", "tensor<2x2x16x4xi8>", "tensor<32xi32>"], "tensor<2x3x32xi32>", ""),
        ],
        OpKind::QuantizedConv => vec![
            sample(
                &["tensor<1x8x4x4xui8>", "tensor<3x8xi8>", "tensor<3xi32>", "tensor<3xf32>"],
                "tensor<1x3x4x4xf32>",
                "",
            ),
            sample(
                &["tensor<1x4x3x5xui8>", "tensor<2x4xi8>", "tensor<2xi32>", "tensor<2xf32>"],
                "tensor<1x2x3x5xf32>",
                "",
            ),
        ],
        OpKind::MaxPool | OpKind::AveragePool => {
            let extra = if kind == OpKind::AveragePool { ", count_include_pad = 0 : i64" } else { "" };
            vec![sample(&[&ty("1x2x5x5")], &ty("1x2x3x3"), &format!("{}{extra}", window_attributes()))]
        }
        OpKind::MaxPoolIndices => vec![sample(
            &[&ty("1x2x5x5"), &ty("1x2x3x3")],
            "tensor<1x2x3x3xi64>",
            &format!("{}, storage_order = 0 : i64", window_attributes()),
        )],
        OpKind::GlobalAveragePool | OpKind::GlobalMaxPool => vec![sample(&[&ty("1x2x3x3")], &ty("1x2x1x1"), "")],
        OpKind::Softmax | OpKind::LogSoftmax => vec![
            sample(&[&ty("2x3")], &ty("2x3"), "axis = 1 : i64"),
            // Over 1 MiB in f32/f64: blocks of rows on a host (`row_blocks`), chunked with
            // sections; along an inner axis too.
            sample(&[&ty("4x128x1024")], &ty("4x128x1024"), "axis = 2 : i64"),
            sample(&[&ty("1x21x128x128")], &ty("1x21x128x128"), "axis = 1 : i64"),
        ],
        OpKind::LayerNorm => vec![
            sample(&[&ty("2x3"), &ty("3"), &ty("3")], &ty("2x3"), "axis = 1 : i64, epsilon = 1.0e-5 : f64"),
            sample(&[&ty("2x3x4"), &ty("3x4")], &ty("2x3x4"), "axis = 1 : i64, epsilon = 1.0e-5 : f64"),
            // Over 1 MiB: blocks of 20 rows, the parameters whole.
            sample(
                &[&ty("1x1500x384"), &ty("384"), &ty("384")],
                &ty("1x1500x384"),
                "axis = 2 : i64, epsilon = 1.0e-5 : f64",
            ),
        ],
        OpKind::InstanceNorm => vec![
            sample(&[&ty("1x2x3x3"), &ty("2"), &ty("2")], &ty("1x2x3x3"), "epsilon = 1.0e-5 : f64"),
            // Over 1 MiB in f32/f64: a plane at a time on a host (`row_blocks`), each block's
            // scale and shift sliced from the parameters.
            sample(&[&ty("2x16x128x128"), &ty("16"), &ty("16")], &ty("2x16x128x128"), "epsilon = 1.0e-5 : f64"),
        ],
        OpKind::Gather => vec![
            sample(&[&ty("4x3"), "tensor<2xi64>"], &ty("2x3"), "axis = 0 : i64"),
            sample(&[&ty("4x3"), "tensor<i32>"], &ty("4"), "axis = 1 : i64"),
        ],
        OpKind::Cast => ELEMENTS
            .iter()
            .flat_map(|to| {
                [
                    sample(&[&ty("5")], &format!("tensor<5x{to}>"), ""),
                    sample(&[&format!("tensor<5x{to}>")], &ty("5"), ""),
                ]
            })
            .collect(),
        // To every element type of the same width (the verifier's rule).
        OpKind::Bitcast => {
            let bits = |name: &str| -> u32 {
                let digits: String = name
                    .trim_start_matches(|c: char| !c.is_ascii_digit())
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse().unwrap_or(0)
            };
            ELEMENTS
                .iter()
                .filter(|to| bits(to) == bits(t))
                .map(|to| sample(&[&ty("5")], &format!("tensor<5x{to}>"), ""))
                .collect()
        }
        OpKind::Concat => vec![sample(&[&ty("2x3"), &ty("2x1")], &ty("2x4"), "axis = 1 : i64")],
        OpKind::Expand => vec![sample(&[&ty("3")], &ty("2x3"), "")],
        OpKind::Tile => vec![sample(&[&ty("2x3")], &ty("4x3"), "repeats = array<i64: 2, 1>")],
        OpKind::Pad => (0..4)
            .flat_map(|mode| {
                [
                    sample(
                        &[&ty("2x3")],
                        &ty("4x5"),
                        &format!("mode = {mode} : i64, pads = array<i64: 1, 1, 1, 1>, value = 0.0 : f64"),
                    ),
                    // Before the rows, after the columns: a corner of its own.
                    sample(
                        &[&ty("2x3")],
                        &ty("3x5"),
                        &format!("mode = {mode} : i64, pads = array<i64: 1, 0, 0, 2>, value = 0.0 : f64"),
                    ),
                ]
            })
            .collect(),
        OpKind::Slice => vec![
            sample(
                &[&ty("4x5")],
                &ty("2x2"),
                "ends = array<i64: 3, 5>, starts = array<i64: 1, 1>, steps = array<i64: 1, 2>",
            ),
            sample(
                &[&ty("4x5")],
                &ty("2x5"),
                "ends = array<i64: -1, 5>, starts = array<i64: 3, 0>, steps = array<i64: -2, 1>",
            ),
        ],
        OpKind::Transpose => vec![sample(&[&ty("2x3x4")], &ty("4x2x3"), "perm = array<i64: 2, 0, 1>")],
        OpKind::Reshape => vec![sample(&[&ty("2x3")], &ty("6"), ""), sample(&[&ty("2x3")], &ty("2x3"), "")],
        OpKind::View => vec![sample(
            &[&ty("4x4")],
            &ty("2x3"),
            "offset = 1 : i64, sizes = array<i64: 2, 3>, strides = array<i64: 4, 1>",
        )],
        OpKind::Fused => {
            let binary = sample(&[&ty("2x3"), &ty("2x3")], &ty("2x3"), "program = \"mul(i0,i1) relu(s0) neg(s0)\"");
            let mut in_place = sample(&[&ty("2x3"), &ty("2x3")], &ty("2x3"), "program = \"add(i0,i1)\"");
            in_place.attributes += ", in_place = 1 : i64";
            let sum_of_products = sample(
                &[&ty("2x3"), &ty("2x3")],
                &ty("2"),
                "program = \"mul(i0,i1)\", reduce = \"reduce_sum\", axes = array<i64: 1>",
            );
            let max_kept = sample(
                &[&ty("2x3x4")],
                &ty("1x3x1"),
                "program = \"neg(i0)\", reduce = \"reduce_max\", axes = array<i64: 0, 2>",
            );
            vec![binary, in_place, sum_of_products, max_kept]
        }
        OpKind::GatherElements => vec![sample(&[&ty("3x4"), "tensor<3x2xi64>"], &ty("3x2"), "axis = 1 : i64")],
        OpKind::GatherNd => vec![
            sample(&[&ty("2x3x4"), "tensor<2x2xi64>"], &ty("2x4"), "batch_dims = 0 : i64"),
            sample(&[&ty("2x3x4"), "tensor<2x1xi32>"], &ty("2x4"), "batch_dims = 1 : i64"),
        ],
        // x's types are in the samples (f32 and f64): once, under f32.
        OpKind::TreeWalk if t != "f32" => Vec::new(),
        OpKind::TreeWalk => vec![
            sample(
                &["tensor<3x4xf32>", "tensor<5x4xi64>", "tensor<2xi64>"],
                "tensor<3x2xi64>",
                "depth = 2 : i64, modes = 1 : i64",
            ),
            sample(
                &["tensor<3x4xf64>", "tensor<5x4xi64>", "tensor<9xi64>"],
                "tensor<3x9xi64>",
                "depth = 3 : i64, modes = 0x13f : i64",
            ),
            // Leaves aggregated: unrolled columns, and columns in a loop.
            sample(
                &["tensor<3x4xf32>", "tensor<5x4xi64>", "tensor<9xi64>", "tensor<5x2xf32>"],
                "tensor<3x2xf32>",
                "depth = 2 : i64, modes = 1 : i64, aggregate = 0 : i64",
            ),
            sample(
                &["tensor<3x4xf64>", "tensor<5x4xi64>", "tensor<2xi64>", "tensor<5x6xf64>"],
                "tensor<3x6xf64>",
                "depth = 3 : i64, modes = 0x101 : i64, aggregate = 2 : i64",
            ),
        ],
        OpKind::ScatterElements => vec![sample(
            &[&ty("3x4"), "tensor<2x4xi64>", &ty("2x4")],
            &ty("3x4"),
            "axis = 0 : i64, reduction = 1 : i64",
        )],
        OpKind::ScatterNd => {
            vec![sample(&[&ty("4x3"), "tensor<2x1xi64>", &ty("2x3")], &ty("4x3"), "reduction = 0 : i64")]
        }
        OpKind::ArgExtreme => vec![
            sample(
                &[&ty("3x4")],
                "tensor<3xi64>",
                "axis = 1 : i64, keepdims = 0 : i64, largest = 1 : i64, select_last_index = 0 : i64",
            ),
            sample(
                &[&ty("3x4")],
                "tensor<1x4xi64>",
                "axis = 0 : i64, keepdims = 1 : i64, largest = 0 : i64, select_last_index = 1 : i64",
            ),
        ],
        OpKind::TopK => vec![
            sample(&[&ty("3x5")], "tensor<3x2xi64>", "axis = 1 : i64, k = 2 : i64, largest = 1 : i64"),
            sample(&[&ty("5x3")], "tensor<5x3xi64>", "axis = 0 : i64, k = 5 : i64, largest = 0 : i64"),
        ],
        OpKind::Cumulative => vec![sample(
            &[&ty("3x4")],
            &ty("3x4"),
            "axis = 1 : i64, exclusive = 0 : i64, product = 0 : i64, reverse = 1 : i64",
        )],
        OpKind::Einsum => vec![
            sample(&[&ty("2x3"), &ty("3x4")], &ty("2x4"), "equation = \"ij,jk->ik\""),
            sample(&[&ty("3x3")], &ty("3"), "equation = \"ii->i\""),
        ],
        OpKind::Lstm | OpKind::Gru | OpKind::Rnn => {
            let (gates, extra, attributes) = match kind {
                OpKind::Lstm => {
                    (4, vec![ty("1x2x5"), ty("1x15")], "activations = \"sigmoid,tanh,tanh\", input_forget = 0 : i64")
                }
                OpKind::Gru => (3, vec![], "activations = \"sigmoid,tanh\", linear_before_reset = 0 : i64"),
                _ => (1, vec![], "activations = \"tanh\""),
            };
            let mut operands = vec![
                ty("3x2x4"),
                ty(&format!("1x{}x4", gates * 5)),
                ty(&format!("1x{}x5", gates * 5)),
                ty(&format!("1x{}", gates * 10)),
                "tensor<2xi32>".to_owned(),
                ty("1x2x5"),
            ];
            operands.extend(extra);
            let mut results = vec![ty("3x1x2x5"), ty("1x2x5")];
            if kind == OpKind::Lstm {
                results.push(ty("1x2x5"));
            }
            let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
            let mut s = sample(&refs, "", &format!("{attributes}, direction = 1 : i64, hidden_size = 5 : i64"));
            s.results = results.clone();
            // Bidirectional: every per-direction operand and result twice, the activations too.
            let twice = |t: &String| t.replacen("<1x", "<2x", 1).replacen("<3x1x", "<3x2x", 1);
            let operands: Vec<String> =
                operands.iter().enumerate().map(|(i, t)| if i == 0 || i == 4 { t.clone() } else { twice(t) }).collect();
            let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
            let activations = attributes.split('"').nth(1).expect("quoted activations");
            let attributes = attributes.replace(activations, &format!("{activations},{activations}"));
            let mut both = sample(&refs, "", &format!("{attributes}, direction = 2 : i64, hidden_size = 5 : i64"));
            both.results = results.iter().map(twice).collect();
            vec![s, both]
        }
        // Elementwise ops were handled above; a new op fails here until it has samples.
        other => panic!("{other:?} has no samples: add them to crates/lower/src/tests.rs"),
    }
}

fn window_attributes() -> &'static str {
    "ceil_mode = 1 : i64, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>"
}

/// Elementwise samples: rank 0, a broadcast of ranks 1 and 2, rank 4; the element types the
/// op's form takes.
fn elementwise(e: Elementwise, t: &str) -> Vec<Sample> {
    let params: Vec<String> = e
        .op()
        .attributes()
        .iter()
        .enumerate()
        .map(|(i, a)| match a.kind {
            AttrKind::Float => format!("{} = {:?} : f64", a.name, [-0.5f64, 0.75][i]),
            _ => format!("{} = {} : i64", a.name, i),
        })
        .collect();
    let attributes = params.join(", ");
    let (operand, result) = match e.form() {
        Form::Same => (t.to_owned(), t.to_owned()),
        Form::Compare => (t.to_owned(), "i1".to_owned()),
        Form::Select | Form::Bool => (t.to_owned(), t.to_owned()),
    };
    if e.form() == Form::Bool && t != "i1" {
        return Vec::new();
    }
    let shapes: [(&[&str], &str); 3] =
        [(&["", "", ""], ""), (&["2x3", "3", "2x1"], "2x3"), (&["1x2x3x4"; 3], "1x2x3x4")];
    shapes
        .iter()
        .map(|(inputs, out)| {
            let tensor = |shape: &str, elem: &str| {
                if shape.is_empty() {
                    format!("tensor<{elem}>")
                } else {
                    format!("tensor<{shape}x{elem}>")
                }
            };
            let operands: Vec<String> = (0..e.arity())
                .map(|i| tensor(inputs[i], if e.form() == Form::Select && i == 0 { "i1" } else { &operand }))
                .collect();
            let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
            sample(&refs, &tensor(out, &result), &attributes)
        })
        .collect()
}

#[test]
fn every_lowering_parses_for_every_element_type() {
    let strata = StrataContext::new(&[DIALECT]).expect("the sg dialect loads");
    let mut kernels = KernelCache::default();
    let (mut parsed, mut unsupported) = (0, 0);
    let mut lowered_kinds = std::collections::BTreeSet::new();
    for &kind in OpKind::ALL {
        for &t in ELEMENTS {
            for (index, s) in samples(kind, t).into_iter().enumerate() {
                let args: Vec<String> = s.operands.iter().enumerate().map(|(i, ty)| format!("%a{i}: {ty}")).collect();
                let names: Vec<String> = (0..s.operands.len()).map(|i| format!("%a{i}")).collect();
                let attributes = if s.attributes.is_empty() { String::new() } else { format!(" {{{}}}", s.attributes) };
                let results = s.results.join(", ");
                let count = s.results.len();
                let returned: Vec<String> = (0..count).map(|k| format!("%r#{k}")).collect();
                let text = format!(
                    "func.func @f({}) -> ({results}) {{\n  %r:{count} = \"{}\"({}){attributes} : ({}) -> ({results})\n  return {} : {results}\n}}\n",
                    args.join(", "),
                    kind.full_name(),
                    names.join(", "),
                    s.operands.join(", "),
                    returned.join(", ")
                );
                let case = format!("{} sample {index} on {t}", kind.full_name());
                let module = strata
                    .parse(&text, &case)
                    .unwrap_or_else(|e| panic!("{case}: the sample is invalid:\n{e}\n{text}"));
                let function = module.body().first_operation().expect("the function");
                let op = function.region(0).unwrap().first_block().unwrap().first_operation().expect("the sample op");
                assert!(SgOp::of(op).is_some_and(|sg| sg.kind() == kind), "{case}");
                match crate::ops::kernel(op, crate::ops::Placement::default()) {
                    Ok(Some(lowered)) => {
                        let kernel = format!("module {{\n{}}}\n", lowered.kernel.function("kernel"));
                        if let Err(error) = kernels.function(&strata, &kernel, &case) {
                            panic!("{case}: the kernel does not parse:\n{error}\n{kernel}");
                        }
                        // Side-by-side sections (bidirectional recurrences, a tree walk's rows) and
                        // GPU forms (a tree walk); the same kernel elsewhere.
                        for (what, placement) in [
                            ("sections", crate::ops::Placement { sections: true, gpu: false }),
                            ("a GPU", crate::ops::Placement { sections: false, gpu: true }),
                        ] {
                            let lowered =
                                crate::ops::kernel(op, placement).expect("lowers as without it").expect("an sg op");
                            let kernel = format!("module {{\n{}}}\n", lowered.kernel.function("kernel"));
                            if let Err(error) = kernels.function(&strata, &kernel, &case) {
                                panic!("{case} for {what}: the kernel does not parse:\n{error}\n{kernel}");
                            }
                        }
                        parsed += 1;
                        lowered_kinds.insert(kind);
                    }
                    Ok(None) => panic!("{case}: no kernel for an sg op"),
                    Err(error) if error.kind == strata_ir::ErrorKind::Unsupported => unsupported += 1,
                    Err(error) => panic!("{case}: {error}"),
                }
            }
        }
    }
    // Every op lowers for some element type; the refusals are element types an op does not take
    // (exp of integers, arithmetic on float8).
    let missing: Vec<&OpKind> = OpKind::ALL.iter().filter(|k| !lowered_kinds.contains(k)).collect();
    assert!(missing.is_empty(), "ops without a kernel for any element type: {missing:?}");
    assert!(parsed > 1000, "{parsed} kernels parsed, {unsupported} unsupported");
}

/// `KernelCache::parse_all` parses the texts it is given on every core, once each: `function`
/// then finds them parsed; a text that does not parse is left to `function`, which reports it.
#[test]
fn kernel_texts_parse_once_on_every_core() {
    let strata = StrataContext::new(&[DIALECT]).expect("the sg dialect loads");
    let mut kernels = KernelCache::default();
    // Enough text for more than one thread (`PARALLEL_PARSE_BYTES`), each kernel distinct.
    let texts: Vec<String> = (0..400)
        .map(|i| {
            format!(
                "module {{\n  func.func private @kernel(%a: f32) -> f32 {{\n    %c = arith.constant {i}.0 : f32\n    %r = arith.addf %a, %c : f32\n    return %r : f32\n  }}\n}}\n"
            )
        })
        .collect();
    let broken = "module {\n  func.func private @kernel(%a: f32) -> f32 {\n    return\n  }\n}\n";
    let all = texts.iter().map(String::as_str).chain([broken, texts[0].as_str()]);
    kernels.parse_all(&strata, all, "test kernel");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(kernels.len(), if cores > 1 { texts.len() } else { 0 });
    for text in &texts {
        let function = kernels.function(&strata, text, "test kernel").expect("a kernel parses");
        assert_eq!(function.symbol_name().as_deref(), Some("kernel"));
    }
    assert_eq!(kernels.len(), texts.len());
    let Err(error) = kernels.function(&strata, broken, "test kernel") else { panic!("the broken kernel was accepted") };
    assert!(error.to_string().contains("returns 1"), "{error}");
    assert_eq!(kernels.len(), texts.len());
}
