//! Tests of the public API against real MLIR: parsing, typed errors, Rust passes in
//! pipelines, verification after each pass.

use crate::*;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRef, WalkOrder, WalkResult};

const TOY: DialectDef = DialectDef {
    name: "toy",
    irdl_path: "<test>",
    irdl: r#"irdl.dialect @toy {
  irdl.operation @twice {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(input: %t)
    irdl.results(output: %t)
  }
}"#,
    verify: Some(verify_toy),
    register_passes,
};

/// A Rust verifier: `toy.twice` must not take a rank-0 tensor.
fn verify_toy(op: OperationRef<'_, '_>, errors: &mut Vec<Diagnostic>) {
    if op.operand(0).is_ok_and(|v| melior::ir::ValueLike::r#type(&v).to_string() == "tensor<f32>") {
        errors.push(Diagnostic::error(SourceLoc::from_mlir(op.location()), "'toy.twice' op needs rank >= 1"));
    }
}

static COUNT: PassInfo = PassInfo {
    name: "toy-count",
    summary: "Counts toy ops",
    anchor: "func.func",
    options: &[OptionInfo { name: "fail-if-more-than", kind: OptionKind::Int, default: "100", help: "limit" }],
    statistics: &[StatisticInfo { name: "ops", help: "toy ops seen" }],
};

static BREAK: PassInfo = PassInfo {
    name: "toy-break",
    summary: "Sets an invalid attribute",
    anchor: "func.func",
    options: &[],
    statistics: &[],
};

fn register_passes(registry: &mut PassRegistry) {
    registry.register(&COUNT, |options| Box::new(Count { limit: options.int("fail-if-more-than") }));
    registry.register(&BREAK, |_| Box::new(Break));
}

struct Count {
    limit: i64,
}

impl Pass for Count {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut seen = 0;
        op.walk(WalkOrder::PreOrder, |nested| {
            seen += u64::from(nested.name().as_string_ref().as_str() == Ok("toy.twice"));
            WalkResult::Advance
        });
        cx.bump("ops", seen);
        if seen as i64 > self.limit {
            cx.emit_op_error(op, format!("has {seen} toy ops, more than {}", self.limit));
            return Err(PassFailed);
        }
        Ok(())
    }
}

/// Makes the function's type attribute invalid, so verification after it must fail.
struct Break;

impl Pass for Break {
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let bad = melior::ir::Attribute::parse(cx.strata().mlir(), "42 : i32").expect("valid attribute");
        unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) }.set_attribute("function_type", bad);
        Ok(())
    }
}

const TWO_OPS: &str = r#"func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "toy.twice"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "toy.twice"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}"#;

#[test]
fn parse_errors_are_typed_and_located() {
    let strata = StrataContext::new(&[TOY]).unwrap();
    let error = strata.parse("func.func @f() {\n  return %x\n}", "bad.mlir").err().unwrap();
    assert_eq!(error.kind(), ErrorKind::InvalidInput);
    let diagnostic = &error.diagnostics()[0];
    assert_eq!(diagnostic.severity, Severity::Error);
    assert_eq!(diagnostic.location.file_line_col(), Some(("bad.mlir", 2, 12)));
    assert_eq!(diagnostic.message, "expected ':'");
}

#[test]
fn dialect_verifiers_run_after_parsing() {
    let strata = StrataContext::new(&[TOY]).unwrap();
    let text = "func.func @f(%x: tensor<f32>) -> tensor<f32> {\n  %0 = \"toy.twice\"(%x) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}";
    let error = strata.parse(text, "t.mlir").err().unwrap();
    assert_eq!(error.diagnostics()[0].message, "'toy.twice' op needs rank >= 1");
    assert_eq!(error.diagnostics()[0].location.file_line_col(), Some(("t.mlir", 2, 8)));
    assert!(strata.parse_without_dialect_verifiers(text, "t.mlir").is_ok());
}

/// `parse` leaves MLIR's verifier to the parser (it does not run it a second time): an op
/// that parses but breaks an upstream verifier is still refused, with its location.
#[test]
fn upstream_verifier_runs_in_the_parser() {
    let strata = StrataContext::new(&[TOY]).unwrap();
    let text = "func.func @f() -> i32 {\n  return\n}";
    for error in [
        strata.parse(text, "t.mlir").err().unwrap(),
        strata.parse_without_dialect_verifiers(text, "t.mlir").err().unwrap(),
    ] {
        let diagnostic = &error.diagnostics()[0];
        assert!(diagnostic.message.contains("has 0 operands, but enclosing function (@f) returns 1"), "{diagnostic:?}");
        assert_eq!(diagnostic.location.file_line_col(), Some(("t.mlir", 2, 3)));
    }
}

#[test]
fn rust_and_upstream_passes_share_one_pipeline() {
    let strata = StrataContext::new(&[TOY]).unwrap();
    let mut module = strata.parse(TWO_OPS, "t.mlir").unwrap();
    let mut pm =
        PassManager::parse(&strata, "builtin.module(func.func(cse,toy-count),canonicalize)", Default::default())
            .unwrap();
    let report = pm.run(&mut module, &mut std::io::sink()).unwrap();
    assert_eq!(
        report.statistics,
        vec![("toy-count".to_owned(), "builtin.module > func.func".to_owned(), vec![("ops", "toy ops seen", 2)])]
    );
    let names: Vec<_> = report.timing.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["'func.func' Pipeline", "canonicalize"]);
    assert_eq!(report.timing[0].children.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["cse", "toy-count"]);
}

#[test]
fn rust_pass_options_and_failures() {
    let strata = StrataContext::new(&[TOY]).unwrap();
    let mut module = strata.parse(TWO_OPS, "t.mlir").unwrap();
    let mut pm =
        PassManager::parse(&strata, "builtin.module(func.func(toy-count{fail-if-more-than=1}))", Default::default())
            .unwrap();
    match pm.run(&mut module, &mut std::io::sink()) {
        Err(IrError::PassFailed { pass, diagnostics, .. }) => {
            assert_eq!(pass, "toy-count{fail-if-more-than=1}");
            assert_eq!(diagnostics[0].message, "'func.func' op has 2 toy ops, more than 1");
            assert_eq!(diagnostics[0].location.file_line_col(), Some(("t.mlir", 1, 1)));
        }
        other => panic!("expected a pass failure, got {other:?}"),
    }
    let bad_value =
        PassManager::parse(&strata, "builtin.module(func.func(toy-count{fail-if-more-than=lots}))", Default::default());
    match bad_value {
        Err(IrError::Pipeline(e)) => assert_eq!(e.message, "option 'fail-if-more-than' expects an integer, got 'lots'"),
        other => panic!("expected a pipeline error, got {:?}", other.err()),
    }
}

#[test]
fn verification_after_each_pass_catches_broken_ir() {
    let strata = StrataContext::new(&[TOY]).unwrap();
    let mut module = strata.parse(TWO_OPS, "t.mlir").unwrap();
    let mut pm =
        PassManager::parse(&strata, "builtin.module(func.func(toy-break),canonicalize)", Default::default()).unwrap();
    match pm.run(&mut module, &mut std::io::sink()) {
        Err(IrError::Verification { after, diagnostics }) => {
            assert_eq!(after, "toy-break");
            assert!(!diagnostics.is_empty());
        }
        other => panic!("expected a verification error, got {other:?}"),
    }
}

#[test]
fn named_pipelines_expand_in_place() {
    let mut strata = StrataContext::new(&[]).unwrap();
    strata.passes_mut().register_pipeline(crate::NamedPipeline {
        name: "test-to-loops",
        summary: "linalg to loops, then affine and scf out",
        passes: "func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf",
    });
    let pm = PassManager::parse(&strata, "builtin.module(cse,test-to-loops)", Default::default()).unwrap();
    assert_eq!(pm.pipeline().to_string(), "builtin.module(cse,test-to-loops)");
    assert_eq!(
        pm.expanded().to_string(),
        "builtin.module(cse,func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf)"
    );
    let nested = PassManager::parse(&strata, "builtin.module(func.func(test-to-loops))", Default::default());
    assert!(
        matches!(nested, Err(IrError::Pipeline(e)) if e.message.contains("runs on 'builtin.module' but is nested under 'func.func'"))
    );
}

#[test]
fn bad_irdl_is_a_dialect_load_error() {
    let broken = DialectDef { irdl: "irdl.dialect @x { irdl.operation @y { irdl.operands(a: %undefined) } }", ..TOY };
    match StrataContext::new(&[broken]) {
        Err(error @ IrError::DialectLoad { .. }) => assert_eq!(error.kind(), ErrorKind::Internal),
        other => panic!("expected a dialect load error, got {:?}", other.err()),
    }
}

#[test]
fn type_names_match_the_printer() {
    let strata = StrataContext::new(&[]).unwrap();
    let cx = strata.mlir();
    for text in [
        "f32",
        "f16",
        "bf16",
        "f64",
        "index",
        "i1",
        "i8",
        "i32",
        "i64",
        "ui8",
        "si16",
        "f8E4M3FN",
        "tf32",
        "complex<f32>",
        "vector<4xf32>",
        "tensor<2x3xf32>",
        "memref<4xi8>",
    ] {
        let ty = melior::ir::Type::parse(cx, text).unwrap();
        assert_eq!(types::type_name(ty), ty.to_string(), "{text}");
    }
    let tensor = melior::ir::Type::parse(cx, "tensor<2x?xui8>").unwrap();
    assert_eq!(types::tensor_element_name(tensor).as_deref(), Some("ui8"));
    assert!(types::memref(tensor).is_none());
    let memref = melior::ir::Type::parse(cx, "memref<2x3xbf16, strided<[3, 1], offset: 4>>").unwrap();
    assert_eq!(types::memref_element_name(memref).as_deref(), Some("bf16"));
    assert!(types::tensor_element_name(memref).is_none() && types::ranked_tensor(memref).is_none());
}

#[test]
fn structural_keys_ignore_names_and_locations_only() {
    let strata = StrataContext::new(&[TOY]).unwrap();
    let text = r#"
func.func @a(%x: f32) -> f32 {
  %c = arith.constant 2.0 : f32
  %y = arith.mulf %x, %c : f32 loc("here")
  return %y : f32
}
func.func @b(%arg: f32) -> f32 {
  %two = arith.constant 2.0 : f32
  %r = arith.mulf %arg, %two : f32 loc("there")
  return %r : f32
}
func.func @c(%x: f32) -> f32 {
  %c = arith.constant 3.0 : f32
  %y = arith.mulf %x, %c : f32
  return %y : f32
}
func.func @d(%x: f32) -> f32 {
  %c = arith.constant 2.0 : f32
  %y = arith.mulf %c, %x : f32
  return %y : f32
}
"#;
    let module = strata.parse(text, "t.mlir").unwrap();
    let functions = Blk::of(&module.body()).ops();
    let key = |f: Op, tokens: bool| {
        let mut operand = |user: Op, _: usize, value: Val| match value.owner() {
            Some(constant) if tokens && constant.is("arith.constant") && user.is("arith.mulf") => {
                structure::Operand::Token(7)
            }
            _ => structure::Operand::Value,
        };
        let skip = |op: Op| tokens && op.is("arith.constant");
        structure::key(f, &["sym_name"], &mut operand, &skip)
    };
    let [a, b, c, d] = [functions[0], functions[1], functions[2], functions[3]];
    // Renamed values and other locations: the same key; another constant or operand order: not.
    assert_eq!(key(a, false), key(b, false));
    assert_ne!(key(a, false), key(c, false));
    assert_ne!(key(a, false), key(d, false));
    // The constant's use a token and the constant left out: @a and @c are the same shape.
    assert_eq!(key(a, true), key(c, true));
    assert_ne!(key(a, true), key(d, true));
}

#[test]
fn dense_ints_reads_each_element_width() {
    let strata = StrataContext::new(&[]).unwrap();
    let read = |text: &str| {
        crate::handle::dense_ints(melior::ir::Attribute::parse(strata.mlir(), text).expect("valid attribute"))
    };
    // i1 elements are bit-packed and i8/i32 narrower than the 64-bit reader: each read at its width.
    assert_eq!(read("dense<[true, true, false, true]> : vector<4xi1>"), Some(vec![1, 1, 0, 1]));
    assert_eq!(read("dense<true> : vector<3xi1>"), Some(vec![1, 1, 1]));
    assert_eq!(read("dense<false> : vector<2xi1>"), Some(vec![0, 0]));
    assert_eq!(read("dense<[-3, 7]> : tensor<2xi32>"), Some(vec![-3, 7]));
    assert_eq!(read("dense<-2> : tensor<3xi8>"), Some(vec![-2, -2, -2]));
    assert_eq!(read("dense<[1, 2]> : tensor<2xi64>"), Some(vec![1, 2]));
    assert_eq!(read("dense<4> : tensor<2xi64>"), Some(vec![4, 4]));
    assert_eq!(read("dense<1.5> : tensor<2xf32>"), None);
}

#[test]
fn map_terms_read_offsets_and_constants() {
    use crate::handle::MapTerm::{Const, Dim, Other};
    let strata = StrataContext::new(&[]).unwrap();
    let maps = "[affine_map<(d0, d1, d2) -> (0, d1 + 64, d2)>, affine_map<(d0, d1) -> (d0 * 2, 3, d1 + d0)>]";
    let attribute = melior::ir::Attribute::parse(strata.mlir(), maps).expect("valid attribute");
    assert_eq!(
        crate::handle::map_terms(attribute),
        Some(vec![vec![Const(0), Dim(1, 64), Dim(2, 0)], vec![Other, Const(3), Other]])
    );
    let strides = melior::ir::Type::parse(strata.mlir(), "memref<8x2100xf32, strided<[2100, 1], offset: ?>>").unwrap();
    assert_eq!(crate::types::memref_strides(strides), Some((vec![8, 2100], vec![2100, 1], None)));
    let plain = melior::ir::Type::parse(strata.mlir(), "memref<2x3xf32>").unwrap();
    assert_eq!(crate::types::memref_strides(plain), Some((vec![2, 3], vec![3, 1], Some(0))));
}

/// Two threads capturing in scopes of their own take only their own diagnostics; what one
/// leaves goes to the scope that started it; the default scope keeps its own.
#[test]
fn isolated_scopes_take_their_own_diagnostics() {
    let sink = DiagnosticSink::default();
    sink.push(Diagnostic::error(SourceLoc::Unknown, "outer"));
    let parent = DiagnosticSink::scope();
    let barrier = std::sync::Barrier::new(2);
    let taken: Vec<Vec<String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = ["a", "b"]
            .map(|name| {
                let (sink, barrier) = (&sink, &barrier);
                scope.spawn(move || {
                    sink.isolated(parent, || {
                        sink.push(Diagnostic::error(SourceLoc::Unknown, format!("{name} taken")));
                        // Both have pushed before either takes.
                        barrier.wait();
                        assert!(sink.has_errors());
                        let mine = sink.take().iter().map(|d| d.message.clone()).collect();
                        sink.push(Diagnostic::error(SourceLoc::Unknown, format!("{name} left")));
                        mine
                    })
                })
            })
            .into_iter()
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert_eq!(taken, [vec!["a taken".to_owned()], vec!["b taken".to_owned()]]);
    let mut rest: Vec<String> = sink.take().iter().map(|d| d.message.clone()).collect();
    rest.sort();
    assert_eq!(rest, ["a left", "b left", "outer"]);
    assert!(!sink.has_errors());
}
