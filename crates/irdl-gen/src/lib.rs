//! `strata-irdl-gen` turns a dialect's IRDL file into its typed Rust API, from the dialect
//! crate's `build.rs`. For each `irdl.operation @name` it emits a wrapper struct with typed
//! accessors (operands, results, attributes), a `cast` and a `build` function, plus
//! `OP_NAMES`. The IRDL file stays the single source of an op's structure. It reads the
//! subset of IRDL that Strata's dialects use (one statement per line, `irdl.base`
//! constraints, `optional` operands) and fails the build with the line on anything else. It
//! never links MLIR: build scripts stay fast.
//!
//! ```no_run
//! // In the dialect crate's build.rs, `fn main`:
//! strata_irdl_gen::build("toy.irdl.mlir");
//! // lib.rs: pub mod ops { include!(concat!(env!("OUT_DIR"), "/ops.rs")); }
//! ```

use std::fmt::Write;
use std::{env, fs, path::PathBuf};

struct Slot {
    name: String,
    optional: bool,
}

struct Attr {
    name: String,
    kind: AttrKind,
}

#[derive(Clone, Copy)]
enum AttrKind {
    I64Array,
    Integer,
    Float,
}

struct Op {
    name: String,
    doc: Vec<String>,
    operands: Vec<Slot>,
    results: Vec<Slot>,
    attributes: Vec<Attr>,
}

/// Reads `irdl_file` (relative to the crate's manifest directory) and writes
/// `$OUT_DIR/ops.rs`. Panics with the offending line on unsupported IRDL (a build error).
pub fn build(irdl_file: &str) {
    let path = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("run from build.rs")).join(irdl_file);
    println!("cargo::rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let code = generate_from_text(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let out = PathBuf::from(env::var("OUT_DIR").expect("run from build.rs")).join("ops.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

/// The generated Rust source for an IRDL text.
pub fn generate_from_text(text: &str) -> Result<String, String> {
    let dialect = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("irdl.dialect @"))
        .map(|rest| rest.trim_end_matches('{').trim().to_owned())
        .ok_or("no `irdl.dialect @name {` line")?;
    Ok(generate(&dialect, &parse(text)?))
}

fn parse(text: &str) -> Result<Vec<Op>, String> {
    let mut ops = Vec::new();
    let mut doc = Vec::new();
    let mut current: Option<(Op, Vec<(String, String)>)> = None;
    for (number, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = |m: &str| format!("line {}: {m}: {raw}", number + 1);
        if let Some(comment) = line.strip_prefix("//") {
            doc.push(comment.trim().to_owned());
            continue;
        }
        if let Some(rest) = line.strip_prefix("irdl.operation @") {
            let name = rest.trim_end_matches('{').trim().to_owned();
            let op = Op { name, doc: std::mem::take(&mut doc), operands: vec![], results: vec![], attributes: vec![] };
            current = Some((op, Vec::new()));
            continue;
        }
        doc.clear();
        let Some((op, vars)) = current.as_mut() else { continue };
        if line == "}" {
            ops.push(current.take().unwrap().0);
        } else if let Some((var, rest)) = line.split_once(" = irdl.base ") {
            vars.push((var.trim().to_owned(), rest.trim().trim_matches('"').to_owned()));
        } else if let Some(list) = line.strip_prefix("irdl.operands(") {
            op.operands = slots(list.trim_end_matches(')')).map_err(|e| at(&e))?;
        } else if let Some(list) = line.strip_prefix("irdl.results(") {
            op.results = slots(list.trim_end_matches(')')).map_err(|e| at(&e))?;
        } else if let Some(list) = line.strip_prefix("irdl.attributes {") {
            for entry in list.trim_end_matches('}').split(',') {
                let (name, var) = entry.split_once('=').ok_or_else(|| at("expected \"name\" = %var"))?;
                let base = vars.iter().find(|(v, _)| v == var.trim()).map(|(_, b)| b.as_str());
                let kind = match base {
                    Some("#builtin.dense_array") => AttrKind::I64Array,
                    Some("#builtin.integer") => AttrKind::Integer,
                    Some("#builtin.float") => AttrKind::Float,
                    other => return Err(at(&format!("unsupported attribute constraint {other:?}"))),
                };
                op.attributes.push(Attr { name: name.trim().trim_matches('"').to_owned(), kind });
            }
        } else if !line.is_empty() {
            return Err(at("unsupported IRDL construct for the generator"));
        }
    }
    for op in &ops {
        if op.operands.iter().filter(|s| s.optional).count() > 1 {
            return Err(format!("op {}: at most one optional operand is supported", op.name));
        }
    }
    Ok(ops)
}

fn slots(list: &str) -> Result<Vec<Slot>, String> {
    list.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|entry| {
            let (name, constraint) = entry.split_once(':').ok_or("expected name: %var")?;
            let constraint = constraint.trim();
            if constraint.starts_with("variadic") {
                return Err("variadic slots are not supported by the generator yet".into());
            }
            Ok(Slot { name: name.trim().to_owned(), optional: constraint.starts_with("optional") })
        })
        .collect()
}

fn camel(name: &str) -> String {
    name.split('_').map(|part| part[..1].to_uppercase() + &part[1..]).collect()
}

fn generate(dialect: &str, ops: &[Op]) -> String {
    let mut s = format!("// Generated by strata-irdl-gen from the `{dialect}` IRDL file. Do not edit.\n\n");
    s.push_str("use ::strata_ir::melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};\n");
    s.push_str("#[allow(unused_imports)]\nuse ::strata_ir::melior::ir::attribute::{DenseI64ArrayAttribute, FloatAttribute, IntegerAttribute};\n");
    s.push_str("use ::strata_ir::melior::ir::r#type::IntegerType;\n");
    s.push_str("use ::strata_ir::melior::ir::{Identifier, Location, Operation, Type, Value};\n");
    s.push_str("use ::strata_ir::melior::Context;\n");
    s.push_str("#[allow(unused_imports)]\nuse ::strata_ir::ods::{float, i64_array, integer, op_name};\n\n");
    let names: Vec<String> = ops.iter().map(|o| format!("\"{dialect}.{}\"", o.name)).collect();
    let _ = writeln!(
        s,
        "/// Every op of the dialect, by full name.\npub const OP_NAMES: &[&str] = &[{}];\n",
        names.join(", ")
    );
    for op in ops {
        let ty = camel(&op.name);
        for line in &op.doc {
            let _ = writeln!(s, "/// {line}");
        }
        let _ = writeln!(s, "#[derive(Clone, Copy)]\npub struct {ty}<'c, 'a> {{ op: OperationRef<'c, 'a> }}\n");
        let _ = writeln!(s, "#[allow(clippy::self_named_constructors)]\nimpl<'c, 'a> {ty}<'c, 'a> {{");
        let _ = writeln!(s, "    /// The full op name.\n    pub const NAME: &'static str = \"{dialect}.{}\";", op.name);
        let _ = writeln!(s, "    /// Wraps `op` if it is a `{dialect}.{}`.\n    pub fn cast(op: OperationRef<'c, 'a>) -> Option<Self> {{ (op_name(op) == Self::NAME).then_some(Self {{ op }}) }}", op.name);
        let _ =
            writeln!(s, "    /// The wrapped operation.\n    pub fn op(&self) -> OperationRef<'c, 'a> {{ self.op }}");
        let required = op.operands.iter().filter(|o| !o.optional).count();
        for (index, slot) in op.operands.iter().enumerate() {
            if slot.optional {
                let _ = writeln!(s, "    /// Optional operand `{0}`.\n    pub fn {0}(&self) -> Option<Value<'c, 'a>> {{ (self.op.operand_count() > {required}).then(|| self.op.operand({index}).expect(\"counted\")) }}", slot.name);
            } else {
                let _ = writeln!(s, "    /// Operand `{0}`.\n    pub fn {0}(&self) -> Value<'c, 'a> {{ self.op.operand({index}).expect(\"IRDL guarantees the operand\") }}", slot.name);
            }
        }
        for (index, slot) in op.results.iter().enumerate() {
            let _ = writeln!(s, "    /// Result `{0}`.\n    pub fn {0}(&self) -> Value<'c, 'a> {{ self.op.result({index}).expect(\"IRDL guarantees the result\").into() }}", slot.name);
        }
        for attr in &op.attributes {
            match attr.kind {
                AttrKind::I64Array => {
                    let _ = writeln!(s, "    /// Attribute `{0}`, or `None` if it is not an `array<i64: ...>`.\n    pub fn {1}(&self) -> Option<Vec<i64>> {{ i64_array(self.op, \"{0}\") }}", attr.name, attr.name.replace('-', "_"));
                }
                AttrKind::Integer => {
                    let _ = writeln!(s, "    /// Attribute `{0}`, or `None` if it is not an integer.\n    pub fn {1}(&self) -> Option<i64> {{ integer(self.op, \"{0}\") }}", attr.name, attr.name.replace('-', "_"));
                }
                AttrKind::Float => {
                    let _ = writeln!(s, "    /// Attribute `{0}`, or `None` if it is not a float.\n    pub fn {1}(&self) -> Option<f64> {{ float(self.op, \"{0}\") }}", attr.name, attr.name.replace('-', "_"));
                }
            }
        }
        // Builder.
        let mut params = vec!["context: &'c Context".to_owned(), "location: Location<'c>".to_owned()];
        // Required operands in a `vec!`, then the optional one (at most one, and last).
        let mut required = Vec::new();
        let mut optional = None;
        for slot in &op.operands {
            if slot.optional {
                params.push(format!("{}: Option<Value<'c, '_>>", slot.name));
                optional = Some(slot.name.clone());
            } else {
                params.push(format!("{}: Value<'c, '_>", slot.name));
                required.push(slot.name.clone());
            }
        }
        let mut attrs = Vec::new();
        for attr in &op.attributes {
            let ident = attr.name.replace('-', "_");
            match attr.kind {
                AttrKind::I64Array => {
                    params.push(format!("{ident}: &[i64]"));
                    attrs.push(format!(
                        "(Identifier::new(context, \"{}\"), DenseI64ArrayAttribute::new(context, {ident}).into())",
                        attr.name
                    ));
                }
                AttrKind::Integer => {
                    params.push(format!("{ident}: i64"));
                    attrs.push(format!("(Identifier::new(context, \"{}\"), IntegerAttribute::new(IntegerType::new(context, 64).into(), {ident}).into())", attr.name));
                }
                AttrKind::Float => {
                    params.push(format!("{ident}: f64"));
                    attrs.push(format!("(Identifier::new(context, \"{}\"), FloatAttribute::new(context, Type::float64(context), {ident}).into())", attr.name));
                }
            }
        }
        for slot in &op.results {
            params.push(format!("{}_type: Type<'c>", slot.name));
        }
        let results: Vec<String> = op.results.iter().map(|r| format!("{}_type", r.name)).collect();
        let _ = writeln!(
            s,
            "    /// Builds a `{dialect}.{}` (not inserted, not verified: call the dialect verifier).",
            op.name
        );
        let _ = writeln!(
            s,
            "    #[allow(clippy::too_many_arguments)]\n    pub fn build({}) -> Operation<'c> {{",
            params.join(", ")
        );
        let _ = writeln!(s, "        let _ = context;");
        match &optional {
            Some(name) => {
                let _ = writeln!(s, "        let mut operands: Vec<Value<'c, '_>> = vec![{}];", required.join(", "));
                let _ = writeln!(s, "        operands.extend({name});");
            }
            None => {
                let _ = writeln!(s, "        let operands: Vec<Value<'c, '_>> = vec![{}];", required.join(", "));
            }
        }
        let _ = writeln!(s, "        OperationBuilder::new(Self::NAME, location).add_operands(&operands).add_results(&[{}]).add_attributes(&[{}]).build().expect(\"valid operation state\")", results.join(", "), attrs.join(", "));
        let _ = writeln!(s, "    }}\n}}\n");
    }
    s
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
    irdl.operands(input: %t, bias: optional %t)
    irdl.results(output: %t)
    irdl.attributes {"factor" = %f, "axes" = %a, "epsilon" = %e}
  }
}"##;

    #[test]
    fn generates_typed_api() {
        let code = generate_from_text(TOY).unwrap();
        assert!(code.contains("pub const OP_NAMES: &[&str] = &[\"toy.scale\"];"), "{code}");
        assert!(code.contains("/// Doubles.\n#[derive(Clone, Copy)]\npub struct Scale<'c, 'a>"), "{code}");
        assert!(code.contains("pub fn bias(&self) -> Option<Value<'c, 'a>>"), "{code}");
        assert!(code.contains("pub fn factor(&self) -> Option<i64>"), "{code}");
        assert!(code.contains("pub fn axes(&self) -> Option<Vec<i64>>"), "{code}");
        assert!(code.contains("pub fn epsilon(&self) -> Option<f64>"), "{code}");
        assert!(
            code.contains(
                "bias: Option<Value<'c, '_>>, factor: i64, axes: &[i64], epsilon: f64, output_type: Type<'c>"
            ),
            "{code}"
        );
    }

    #[test]
    fn rejects_what_it_cannot_generate() {
        let variadic = TOY.replace("bias: optional %t", "rest: variadic %t");
        assert!(generate_from_text(&variadic).unwrap_err().contains("variadic"));
        let region = TOY.replace("irdl.results(output: %t)", "irdl.results(output: %t)\n    irdl.region(%r)");
        assert!(generate_from_text(&region).unwrap_err().contains("line 10: unsupported IRDL construct"));
        assert!(generate_from_text("irdl.operation @x {}").unwrap_err().contains("irdl.dialect"));
    }
}
