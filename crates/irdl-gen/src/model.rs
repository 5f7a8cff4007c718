//! The subset of IRDL the generator reads, as plain data, and its parser.
//!
//! One statement per line. Before an `irdl.operation`, `//` lines are the op's documentation,
//! except a `// traits: ...` line, which gives the op's class (see [`Class`]). Inside an op:
//! `%v = irdl.base "..."` constraint variables, `irdl.operands(...)` (slots `single`,
//! `optional` or `variadic`; at most one that is not single, and it comes last),
//! `irdl.results(...)` (single slots), `irdl.attributes {...}` (required attributes) and
//! `// irdl.optional_attributes {...}` — the same syntax in a comment, for attributes IRDL
//! itself cannot make optional: the generated verifier checks their kind when present.

/// A dialect: its name and ops, in file order.
#[derive(Debug)]
pub struct Dialect {
    pub name: String,
    pub ops: Vec<Op>,
}

#[derive(Debug)]
pub struct Op {
    /// The name without the dialect prefix (`conv2d`).
    pub name: String,
    pub doc: Vec<String>,
    pub operands: Vec<Slot>,
    pub results: Vec<Slot>,
    pub attributes: Vec<Attr>,
    pub class: Class,
}

#[derive(Debug)]
pub struct Slot {
    pub name: String,
    pub arity: Arity,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Single,
    Optional,
    Variadic,
}

#[derive(Debug)]
pub struct Attr {
    pub name: String,
    pub kind: AttrKind,
    pub optional: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    I64Array,
    Integer,
    Float,
    String,
}

/// What the `// traits:` line says of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// No class: matched on its own.
    Plain,
    /// `elementwise` (`(form)`): each result element is a scalar function of the operands'
    /// elements at the same (broadcast) index, parameterised by the op's attributes.
    Elementwise(Form),
    /// `reduction`: a reduction of its operand over `axes`, keeping them as 1 with `keepdims`.
    Reduction,
    /// `view`: the result's elements are some of the operand's, moved (slice, transpose, ...).
    View,
}

/// The element types of an elementwise op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `elementwise`: operands and result share one element type.
    Same,
    /// `elementwise(compare)`: the operands share one, the result is `i1`.
    Compare,
    /// `elementwise(select)`: operand 0 is `i1`, the others and the result share one.
    Select,
    /// `elementwise(bool)`: operands and result are `i1`.
    Bool,
}

impl Form {
    pub fn rust(self) -> &'static str {
        match self {
            Form::Same => "Same",
            Form::Compare => "Compare",
            Form::Select => "Select",
            Form::Bool => "Bool",
        }
    }
}

/// Parses the IRDL text; the error names the line.
pub fn parse(text: &str) -> Result<Dialect, String> {
    let name = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("irdl.dialect @"))
        .map(|rest| rest.trim_end_matches('{').trim().to_owned())
        .ok_or("no `irdl.dialect @name {` line")?;
    let mut ops = Vec::new();
    let mut doc = Vec::new();
    let mut class = Class::Plain;
    let mut current: Option<(Op, Vec<(String, String)>)> = None;
    for (number, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = |m: &str| format!("line {}: {m}: {raw}", number + 1);
        if let Some((op, vars)) = current.as_mut() {
            if let Some(list) = line.strip_prefix("// irdl.optional_attributes {") {
                op.attributes.extend(attributes(list, vars, true).map_err(|e| at(&e))?);
            } else if line.starts_with("//") || line.is_empty() {
            } else if line == "}" {
                let (op, _) = current.take().expect("inside an op");
                check(&op).map_err(|e| at(&e))?;
                ops.push(op);
            } else if let Some((var, rest)) = line.split_once(" = irdl.base ") {
                vars.push((var.trim().to_owned(), rest.trim().trim_matches('"').to_owned()));
            } else if let Some(list) = line.strip_prefix("irdl.operands(") {
                op.operands = slots(list.trim_end_matches(')')).map_err(|e| at(&e))?;
            } else if let Some(list) = line.strip_prefix("irdl.results(") {
                op.results = slots(list.trim_end_matches(')')).map_err(|e| at(&e))?;
            } else if let Some(list) = line.strip_prefix("irdl.attributes {") {
                let required = attributes(list, vars, false).map_err(|e| at(&e))?;
                op.attributes.splice(0..0, required);
            } else {
                return Err(at("unsupported IRDL construct for the generator"));
            }
            continue;
        }
        if let Some(traits) = line.strip_prefix("// traits:") {
            class = parse_class(traits.trim()).map_err(|e| at(&e))?;
        } else if let Some(comment) = line.strip_prefix("//") {
            doc.push(comment.trim().to_owned());
        } else if let Some(rest) = line.strip_prefix("irdl.operation @") {
            let name = rest.trim_end_matches('{').trim().to_owned();
            let op = Op {
                name,
                doc: std::mem::take(&mut doc),
                operands: vec![],
                results: vec![],
                attributes: vec![],
                class: std::mem::replace(&mut class, Class::Plain),
            };
            current = Some((op, Vec::new()));
        } else {
            doc.clear();
            class = Class::Plain;
        }
    }
    if current.is_some() {
        return Err("the file ends inside an irdl.operation".into());
    }
    Ok(Dialect { name, ops })
}

fn parse_class(text: &str) -> Result<Class, String> {
    Ok(match text {
        "elementwise" => Class::Elementwise(Form::Same),
        "elementwise(compare)" => Class::Elementwise(Form::Compare),
        "elementwise(select)" => Class::Elementwise(Form::Select),
        "elementwise(bool)" => Class::Elementwise(Form::Bool),
        "reduction" => Class::Reduction,
        "view" => Class::View,
        other => return Err(format!("unknown traits '{other}' (elementwise[(compare|select|bool)], reduction, view)")),
    })
}

/// What the generated code relies on for each class.
fn check(op: &Op) -> Result<(), String> {
    let name = &op.name;
    if op.operands.iter().filter(|s| s.arity != Arity::Single).count() > 1 {
        return Err(format!("op {name}: at most one optional or variadic operand is supported"));
    }
    if op.operands.iter().rev().skip(1).any(|s| s.arity != Arity::Single) {
        return Err(format!("op {name}: an optional or variadic operand must be the last"));
    }
    if op.results.iter().any(|s| s.arity != Arity::Single) {
        return Err(format!("op {name}: results must be single"));
    }
    match op.class {
        Class::Elementwise(_) => {
            if op.operands.is_empty() || op.operands.len() > 3 || op.operands.iter().any(|s| s.arity != Arity::Single) {
                return Err(format!("elementwise op {name}: one to three single operands"));
            }
            if op.results.len() != 1 {
                return Err(format!("elementwise op {name}: one result"));
            }
            let params_ok = op.attributes.len() <= 2
                && op.attributes.iter().all(|a| !a.optional && matches!(a.kind, AttrKind::Float | AttrKind::Integer));
            if !params_ok {
                return Err(format!("elementwise op {name}: at most two required float or integer attributes"));
            }
        }
        Class::Reduction => {
            let attrs: Vec<(&str, AttrKind)> = op.attributes.iter().map(|a| (a.name.as_str(), a.kind)).collect();
            if !name.starts_with("reduce_")
                || attrs != [("axes", AttrKind::I64Array), ("keepdims", AttrKind::Integer)]
                || op.operands.len() != 1
            {
                return Err(format!("reduction op {name}: named reduce_*, one operand, attributes axes and keepdims"));
            }
        }
        Class::View | Class::Plain => {}
    }
    Ok(())
}

fn slots(list: &str) -> Result<Vec<Slot>, String> {
    list.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|entry| {
            let (name, constraint) = entry.split_once(':').ok_or("expected name: %var")?;
            let constraint = constraint.trim();
            let arity = if constraint.starts_with("variadic ") {
                Arity::Variadic
            } else if constraint.starts_with("optional ") {
                Arity::Optional
            } else {
                Arity::Single
            };
            Ok(Slot { name: name.trim().to_owned(), arity })
        })
        .collect()
}

fn attributes(list: &str, vars: &[(String, String)], optional: bool) -> Result<Vec<Attr>, String> {
    list.trim_end_matches('}')
        .split(',')
        .filter(|e| !e.trim().is_empty())
        .map(|entry| {
            let (name, var) = entry.split_once('=').ok_or("expected \"name\" = %var")?;
            let base = vars.iter().find(|(v, _)| v == var.trim()).map(|(_, b)| b.as_str());
            let kind = match base {
                Some("#builtin.dense_array") => AttrKind::I64Array,
                Some("#builtin.integer") => AttrKind::Integer,
                Some("#builtin.float") => AttrKind::Float,
                Some("#builtin.string") => AttrKind::String,
                other => return Err(format!("unsupported attribute constraint {other:?}")),
            };
            Ok(Attr { name: name.trim().trim_matches('"').to_owned(), kind, optional })
        })
        .collect()
}

/// `snake_case` to `CamelCase`.
pub fn camel(name: &str) -> String {
    name.split('_').filter(|p| !p.is_empty()).map(|part| part[..1].to_uppercase() + &part[1..]).collect()
}

/// A Rust identifier for an IRDL name (`-` is not allowed in Rust).
pub fn ident(name: &str) -> String {
    name.replace('-', "_")
}
