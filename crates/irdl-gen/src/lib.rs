//! `strata-irdl-gen` turns a dialect's IRDL file into Rust, from a `build.rs`, so the IRDL file
//! stays the single source of each op. It writes two files into `$OUT_DIR`:
//!
//! - `kinds.rs` ([`kinds`]): the op table as plain Rust, no MLIR. `OpKind` (one variant per
//!   op: name, documentation, operand slots, attributes, class), `Elementwise` and `Reduction`
//!   (the ops of those classes), `ScalarOp` (an elementwise op with its parameters). Crates that
//!   must not link MLIR (the e-graph) use it.
//! - `ops.rs` ([`ops`]): the typed MLIR API. Per op a wrapper with `cast`, typed accessors
//!   (required attributes as plain values) and `build`; the exhaustive op enum (`SgOp` for
//!   `sg`); builders for elementwise ops and reductions; `check_attributes`. It refers to the
//!   table as `super::kinds`.
//!
//! It reads the subset of IRDL described in [`model`] (plus `// traits:` and
//! `// irdl.optional_attributes` lines) and fails the build with the line on anything else. It
//! never links MLIR: build scripts stay fast.
//!
//! ```no_run
//! // In the dialect crate's build.rs, `fn main`:
//! strata_irdl_gen::build("toy.irdl.mlir");
//! // lib.rs:
//! // pub mod kinds { include!(concat!(env!("OUT_DIR"), "/kinds.rs")); }
//! // pub mod ops { include!(concat!(env!("OUT_DIR"), "/ops.rs")); }
//! ```

pub mod kinds;
pub mod model;
pub mod ops;

use std::{env, fs, path::PathBuf};

/// Reads `irdl_file` (relative to the crate's manifest directory) and writes
/// `$OUT_DIR/kinds.rs` and `$OUT_DIR/ops.rs`. Panics with the offending line on unsupported
/// IRDL (a build error).
pub fn build(irdl_file: &str) {
    let dialect = read(irdl_file);
    write("kinds.rs", &kinds::generate(&dialect));
    write("ops.rs", &ops::generate(&dialect));
}

/// Writes only `$OUT_DIR/kinds.rs` (for a crate that holds the table without MLIR).
pub fn build_kinds(irdl_file: &str) {
    write("kinds.rs", &kinds::generate(&read(irdl_file)));
}

/// Writes only `$OUT_DIR/ops.rs` (its crate provides `kinds` from another crate).
pub fn build_ops(irdl_file: &str) {
    write("ops.rs", &ops::generate(&read(irdl_file)));
}

fn read(irdl_file: &str) -> model::Dialect {
    let path = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("run from build.rs")).join(irdl_file);
    println!("cargo::rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    model::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write(name: &str, code: &str) {
    let out = PathBuf::from(env::var("OUT_DIR").expect("run from build.rs")).join(name);
    fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOY: &str = r##"irdl.dialect @toy {
  // Doubles.
  irdl.operation @scale {
    %t = irdl.base "!builtin.tensor"
    %f = irdl.base "#builtin.integer"
    %a = irdl.base "#builtin.dense_array"
    %e = irdl.base "#builtin.float"
    %s = irdl.base "#builtin.string"
    irdl.operands(input: %t, bias: optional %t)
    irdl.results(output: %t)
    irdl.attributes {"factor" = %f, "axes" = %a, "epsilon" = %e}
    // irdl.optional_attributes {"mode" = %s}
  }

  // x + y.
  // traits: elementwise
  irdl.operation @plus {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %t, rhs: %t)
    irdl.results(output: %t)
  }

  // traits: reduction
  irdl.operation @reduce_sum {
    %t = irdl.base "!builtin.tensor"
    %a = irdl.base "#builtin.dense_array"
    %k = irdl.base "#builtin.integer"
    irdl.operands(input: %t)
    irdl.results(output: %t)
    irdl.attributes {"axes" = %a, "keepdims" = %k}
  }

  irdl.operation @join {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(first: %t, rest: variadic %t)
    irdl.results(output: %t)
  }
}"##;

    fn dialect(text: &str) -> Result<model::Dialect, String> {
        model::parse(text)
    }

    #[test]
    fn generates_the_table() {
        let code = kinds::generate(&dialect(TOY).unwrap());
        assert!(code.contains("pub enum OpKind {"), "{code}");
        assert!(
            code.contains(
                "pub const ALL: &'static [OpKind] = &[OpKind::Scale, OpKind::Plus, OpKind::ReduceSum, OpKind::Join];"
            ),
            "{code}"
        );
        assert!(code.contains("OpKind::Plus => Some(Elementwise::Plus),"), "{code}");
        assert!(code.contains("OpKind::ReduceSum => Some(Reduction::Sum),"), "{code}");
        assert!(code.contains("AttrInfo { name: \"mode\", kind: AttrKind::String, optional: true }"), "{code}");
        assert!(code.contains("Elementwise::Plus => Form::Same,"), "{code}");
        assert!(code.contains("OpKind::Scale => \"Doubles.\","), "the documentation is kept: {code}");
        assert!(!code.contains("melior"), "the table links no MLIR");
    }

    #[test]
    fn generates_typed_api() {
        let code = ops::generate(&dialect(TOY).unwrap());
        assert!(code.contains("/// Doubles.\n#[derive(Clone, Copy)]\npub struct Scale<'c, 'a>"), "{code}");
        assert!(code.contains("pub fn bias(&self) -> Option<Value<'c, 'a>>"), "{code}");
        assert!(code.contains("pub fn factor(&self) -> i64"), "required attributes are plain values: {code}");
        assert!(code.contains("pub fn axes(&self) -> Vec<i64>"), "{code}");
        assert!(code.contains("pub fn epsilon(&self) -> f64"), "{code}");
        assert!(code.contains("pub fn mode(&self) -> Option<String>"), "optional attributes are options: {code}");
        assert!(code.contains("pub fn rest(&self) -> Vec<Value<'c, 'a>>"), "{code}");
        assert!(
            code.contains("bias: Option<Value<'c, '_>>, factor: i64, axes: &[i64], epsilon: f64, mode: Option<&str>, output_type: Type<'c>"),
            "{code}"
        );
        assert!(code.contains("pub enum ToyOp<'c, 'a> {"), "{code}");
        assert!(
            code.contains("OpKind::Plus => ToyOp::Elementwise(ElementwiseOp { op, kind: Elementwise::Plus }),"),
            "{code}"
        );
        assert!(code.contains("OpKind::Join => ToyOp::Join(Join { op }),"), "{code}");
    }

    #[test]
    fn rejects_what_it_cannot_generate() {
        let two = TOY.replace(
            "irdl.operands(first: %t, rest: variadic %t)",
            "irdl.operands(first: optional %t, rest: variadic %t)",
        );
        assert!(dialect(&two).unwrap_err().contains("at most one optional or variadic operand"));
        let region = TOY.replace(
            "irdl.results(output: %t)\n    irdl.attributes {\"factor\"",
            "irdl.region(%r)\n    irdl.attributes {\"factor\"",
        );
        assert!(
            dialect(&region).unwrap_err().contains("line 10: unsupported IRDL construct"),
            "{}",
            dialect(&region).unwrap_err()
        );
        let traits = TOY.replace("// traits: elementwise", "// traits: magic");
        assert!(dialect(&traits).unwrap_err().contains("unknown traits 'magic'"));
        let bad_reduction =
            TOY.replace("irdl.attributes {\"axes\" = %a, \"keepdims\" = %k}", "irdl.attributes {\"axes\" = %a}");
        assert!(dialect(&bad_reduction).unwrap_err().contains("reduction op reduce_sum"));
        assert!(dialect("irdl.operation @x {}").unwrap_err().contains("irdl.dialect"));
    }
}
