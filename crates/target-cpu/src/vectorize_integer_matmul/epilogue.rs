//! The elementwise kernel that follows a quantized convolution's scaling over its f32 result
//! in place (a QDQ activation's bias, clamp and fake quantization before a float depthwise
//! convolution; a residual's add and requantization), applied to the VNNI kernel's registers
//! between the scaling and the store (on AMX tiles, to each row's register in the epilogue over
//! the stored tiles): the result is written once, final, instead of being stored, read back
//! and stored again by a pass of its own.
//!
//! The kernel is taken when it is an all-parallel `linalg.generic` right after the scaling
//! (past views) writing the f32 result (or its `memref.expand_shape`) through the identity, its
//! body f32 `arith`/`math` ops without fast-math flags over its block arguments, and each input
//! read one of these ways (indices of the `[M, N]` result: row = output channel, column =
//! pixel):
//! - the result itself through the identity (in place: its element, as the scaling left it);
//! - an f32 buffer of the result's shape through the identity with the identity layout,
//!   collapsed as the result is, apart from the result's bytes (a residual): one vector load
//!   per register (masked as the store is);
//! - one value per row: every index a unit dimension's 0 or the row's dimension, apart from the
//!   result's bytes (a per-channel bias): a load and a broadcast per row;
//! - one value for all (a 0-d buffer: a scale, a bound): loaded once;
//!
//! and f32 `arith.constant`s defined outside it (a clamp's bounds), splat once.
//! Each step is the same op on 16-lane vectors as on scalars, in the same order: the values are
//! the separate kernel's, bit for bit.
//!
//! A QDQ activation's quantization ends in a cast of the kernel's result to bytes (`fptoui` or
//! `fptosi` to 8 bits, through the identity, its output contiguous): the VNNI kernel applies it
//! too and stores the bytes ([`Bytes`]), so the quantized activation the next convolution reads
//! is written once, where the sums are, instead of by a kernel of its own reading the f32
//! result back (0.1 ms of a 16 x 112 x 112 activation). The f32 result is still stored unless
//! it is dead after the cast (`dead_after`); the bytes' output must be apart from everything
//! the kernel reads and from the f32 result (checked where the kernel is made). Without that,
//! or on AMX tiles, the kernel and its cast are left to `strata-fuse-casts`, which merges them.

use crate::text_kernels::{element, identity_layout};
use melior::ir::r#type::TypeLike;
use strata_ir::handle::MapResult;
use strata_ir::{Op, Val};

/// How the kernel reads an epilogue argument.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Read {
    /// An `[M, N]` buffer collapsed from its type by the result's reassociation (empty: none).
    Full { reassociation: String },
    /// One value per row: the indices, `None` where the row goes.
    Row { indices: Vec<Option<i64>> },
    /// One value (the indices all zero).
    Scalar { rank: usize },
}

/// A value a step reads: the result's element, an argument (by index into `reads`), an earlier
/// step's result.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Term {
    Output,
    Arg(usize),
    Step(usize),
    Constant(usize),
}

/// The kernel after the scaling, as the VNNI kernel applies it.
pub(super) struct Epilogue {
    /// The generic, absorbed.
    pub(super) op: Op,
    /// The kernel's arguments beyond the product's, and how each is read.
    pub(super) reads: Vec<(Val, Read)>,
    steps: Vec<(String, Vec<Term>)>,
    /// The f32 constants the steps read (literals).
    constants: Vec<String>,
    result: Term,
    /// The cast to bytes after it, applied too.
    pub(super) bytes: Option<Bytes>,
}

/// A cast of the epilogue's result to bytes that the kernel applies after it.
pub(super) struct Bytes {
    /// The cast generic, absorbed.
    pub(super) op: Op,
    /// Its output: the kernel's last argument (`%xo`).
    pub(super) output: Val,
    /// `arith.fptoui` or `arith.fptosi`.
    pub(super) conversion: String,
    /// How the output collapses to `[M, N]` (empty: it is `[M, N]`).
    reassociation: String,
    /// Whether the f32 result is stored too (read after the cast).
    pub(super) keep_result: bool,
}

/// The ops a step may be: f32 in, f32 out, the same on vectors.
const STEP_OPS: [&str; 13] = [
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.negf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
    "math.roundeven",
    "math.absf",
    "math.floor",
    "math.ceil",
];

/// The epilogue of the product whose f32 result is `out` (`[m, n]`), scaled by `scaling`.
pub(super) fn find(scaling: Op, out: Val, (m, n): (i64, i64)) -> Option<Epilogue> {
    let op = super::past_views(scaling).1?;
    let operands = op.operands();
    let (&written, inputs) = operands.split_last()?;
    // The result, or its expansion (its reassociation collapses a full-size argument alike).
    let reassociation = if written == out {
        String::new()
    } else {
        let expand = written.owner().filter(|e| e.is("memref.expand_shape") && e.operand(0) == out)?;
        expand.attribute("reassociation")?.to_string()
    };
    let shape = strata_lower::ops::static_shape(written.r#type()).ok()?;
    let iterators = op.attribute("iterator_types")?.to_string();
    let maps = strata_ir::handle::map_results(op.attribute("indexing_maps")?)?;
    if !op.is("linalg.generic") || op.result_count() != 0 || iterators.contains("reduction") {
        return None;
    }
    let identity =
        |map: &[MapResult]| map.len() == shape.len() && map.iter().enumerate().all(|(i, r)| *r == MapResult::Dim(i));
    if !maps.last().is_some_and(|map| identity(map)) || element(written.r#type())? != "f32" {
        return None;
    }
    // The row's dimension: the one dimension of the rows' group of `m` (the others unit).
    let row_dim = match reassociation.is_empty() {
        true => 0,
        false => (0..shape.len()).find(|&d| {
            shape[d] == m && shape[..d].iter().all(|&s| s == 1) && shape[d + 1..].iter().product::<i64>() == n
        })?,
    };
    if shape.iter().product::<i64>() != m * n || (shape.len() == 2 && shape != [m, n]) {
        return None;
    }
    // A constant, or a function argument other than the one the result may be a view of.
    let apart = |value: Val| match (super::arena_bytes(value), super::arena_bytes(out)) {
        (Some((a, a0, a1)), Some((b, b0, b1))) => a != b || a1 <= b0 || b1 <= a0,
        (None, _) => {
            value.owner().is_some_and(|o| o.is("memref.get_global"))
                || (value.argument_number().is_some() && value != view_root(out))
        }
        _ => false,
    };
    let mut reads: Vec<(Val, Read)> = Vec::new();
    let mut terms: Vec<Term> = Vec::new();
    for (&input, map) in inputs.iter().zip(&maps) {
        let ty = input.r#type();
        if element(ty)? != "f32" {
            return None;
        }
        if input == written && identity(map) {
            terms.push(Term::Output);
            continue;
        }
        if !apart(input) {
            return None;
        }
        let read = if identity(map) {
            let same = strata_lower::ops::static_shape(ty).ok()? == shape && identity_layout(&ty.to_string());
            same.then(|| Read::Full { reassociation: reassociation.clone() })?
        } else if map.iter().all(|r| *r == MapResult::Zero) {
            Read::Scalar { rank: map.len() }
        } else {
            // Indices of the row's dimension or a unit one (read at 0).
            let indices = map
                .iter()
                .map(|r| match *r {
                    MapResult::Zero => Some(Some(0)),
                    MapResult::Dim(d) if d == row_dim => Some(None),
                    MapResult::Dim(d) if shape[d] == 1 => Some(Some(0)),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Read::Row { indices }
        };
        let index = match reads.iter().position(|(v, r)| *v == input && *r == read) {
            Some(index) => index,
            None => {
                reads.push((input, read));
                reads.len() - 1
            }
        };
        terms.push(Term::Arg(index));
    }
    let body = op.body(0)?;
    // The output's block argument is the result's element too (the generic writes it in place).
    let mut values: Vec<(Val, Term)> = (0..inputs.len()).map(|i| (body.argument(i), terms[i])).collect();
    values.push((body.argument(inputs.len()), Term::Output));
    let lookup = |v: Val, values: &[(Val, Term)]| values.iter().find(|(w, _)| *w == v).map(|&(_, t)| t);
    let mut steps = Vec::new();
    let mut constants: Vec<String> = Vec::new();
    for step in body.ops() {
        if step.is("linalg.yield") {
            let result = lookup(step.operand(0), &values).filter(|_| step.operand_count() == 1)?;
            // A cast after it is applied too, or the pair is left to `strata-fuse-casts`.
            let bytes = match cast_after(op, written, out) {
                Some(cast) => Some(cast_to_bytes(cast, written, out, &reassociation)?),
                None => None,
            };
            return (!steps.is_empty()).then_some(Epilogue { op, reads, steps, constants, result, bytes });
        }
        let name = step.name();
        let plain = step.attribute("fastmath").is_none_or(|f| f.to_string().contains("none"));
        if !STEP_OPS.contains(&name.as_str()) || !plain || step.result_count() != 1 || !step.result(0).r#type().is_f32()
        {
            return None;
        }
        let mut operands = Vec::new();
        for operand in step.operands() {
            let term = match lookup(operand, &values) {
                Some(term) => term,
                // An f32 constant defined outside (a clamp's bound).
                None => Term::Constant(crate::depthwise_fusion::outside_constant(operand, op, &mut constants)?),
            };
            operands.push(term);
        }
        values.push((step.result(0), Term::Step(steps.len())));
        steps.push((name, operands));
    }
    None
}

/// The value `view` views (through subviews, reshapes and casts), or `view` itself.
fn view_root(view: Val) -> Val {
    let mut value = view;
    while let Some(owner) = value.owner().filter(|o| super::WITHIN_SOURCE.iter().any(|name| o.is(name))) {
        value = owner.operand(0);
    }
    value
}

/// The cast of the result (`written`, a view of `out`, collapsed to `out` by `reassociation`)
/// to bytes, `cast`, as the kernel applies it (see the module docs), if it can.
fn cast_to_bytes(cast: Op, written: Val, out: Val, reassociation: &str) -> Option<Bytes> {
    let conversion = crate::fuse_casts::cast(cast)?;
    let converts = conversion.op == "arith.fptoui" || conversion.op == "arith.fptosi";
    if !converts || conversion.from != "f32" || conversion.to != "i8" {
        return None;
    }
    let source = cast.operand(0);
    let reassociation = match source.owner() {
        _ if source == out => String::new(),
        _ if source == written => reassociation.to_owned(),
        Some(expand) if expand.is("memref.expand_shape") && expand.operand(0) == out => {
            expand.attribute("reassociation")?.to_string()
        }
        _ => return None,
    };
    let output = cast.operand(1);
    if !identity_layout(&output.r#type().to_string()) {
        return None;
    }
    let keep_result = !super::dead_after(cast, out);
    Some(Bytes { op: cast, output, conversion: conversion.op, reassociation, keep_result })
}

/// The op after `op` (past views) when it is a generic of two operands reading the result
/// (`written`, a view of `out`) and converting it to another element type first: a cast, which
/// the kernel applies too ([`cast_to_bytes`]) or `strata-fuse-casts` merges into `op`.
fn cast_after(op: Op, written: Val, out: Val) -> Option<Op> {
    let next = super::past_views(op).1;
    let next = next.filter(|n| n.is("linalg.generic") && n.operand_count() == 2)?;
    let source = next.operand(0);
    let reads_result = source == written || source == out || super::view_of(source, out);
    let converts = next.body(0).is_some_and(|b| {
        b.ops().first().is_some_and(|o| {
            let name = o.name();
            name.starts_with("arith.fpto") || name == "arith.truncf" || name == "arith.extf"
        })
    });
    (reads_result && converts).then_some(next)
}

impl Epilogue {
    /// The kernel's arguments for the reads (MLIR text), after the product's.
    pub(super) fn arguments(&self) -> String {
        let reads = self.reads.iter().enumerate().map(|(k, (v, _))| format!(", %x{k}: {}", v.r#type()));
        let bytes = self.bytes.iter().map(|b| format!(", %xo: {}", b.output.r#type()));
        reads.chain(bytes).collect()
    }

    /// The kernel's operands beyond the product's (as [`Epilogue::arguments`] names them).
    pub(super) fn operands(&self) -> Vec<Val> {
        self.reads.iter().map(|(v, _)| *v).chain(self.bytes.iter().map(|b| b.output)).collect()
    }

    /// Where the bytes go (`%xob`) and their types: the `[M, N]` memref, the register.
    pub(super) fn bytes_types((m, n): (i64, i64)) -> (String, String) {
        (format!("memref<{m}x{n}xi8>"), "vector<16xi8>".to_owned())
    }

    /// What the kernel computes once, at its start: each full argument collapsed to `[m, n]`,
    /// each scalar loaded and broadcast to `vt`.
    pub(super) fn head(&self, (m, n): (i64, i64), vt: &str) -> String {
        let mut s = String::new();
        for (j, literal) in self.constants.iter().enumerate() {
            s += &format!("    %xc{j} = arith.constant dense<{literal}> : {vt}\n");
        }
        for (k, (value, read)) in self.reads.iter().enumerate() {
            let ty = value.r#type();
            match read {
                Read::Full { reassociation } if reassociation.is_empty() => {
                    s += &format!("    %xf{k} = memref.cast %x{k} : {ty} to memref<{m}x{n}xf32>\n");
                }
                Read::Full { reassociation } => {
                    s += &format!(
                        "    %xf{k} = memref.collapse_shape %x{k} {reassociation} : {ty} into memref<{m}x{n}xf32>\n"
                    );
                }
                Read::Scalar { rank } => {
                    let zeros = vec!["%c0"; *rank].join(", ");
                    s += &format!(
                        "    %xs{k} = memref.load %x{k}[{zeros}] : {ty}\n    %xv{k} = vector.broadcast %xs{k} : f32 to {vt}\n"
                    );
                }
                Read::Row { .. } => {}
            }
        }
        if let Some(bytes) = &self.bytes {
            // Signless (the vector ops take no unsigned types), then `[M, N]`.
            let ty = bytes.output.r#type().to_string();
            let signless = ty.replace("xui8>", "xi8>");
            let mut name = "%xo";
            if signless != ty {
                s += &format!("    %xos = builtin.unrealized_conversion_cast %xo : {ty} to {signless}\n");
                name = "%xos";
            }
            let (flat, _) = Self::bytes_types((m, n));
            s += &match bytes.reassociation.is_empty() {
                true => format!("    %xob = memref.cast {name} : {signless} to {flat}\n"),
                false => format!(
                    "    %xob = memref.collapse_shape {name} {} : {signless} into {flat}\n",
                    bytes.reassociation
                ),
            };
        }
        s
    }

    /// The per-row values of the row at index `row` (an index value), named after `at`, at
    /// `indent`.
    pub(super) fn row(&self, at: &str, row: &str, vt: &str, indent: &str) -> String {
        let mut s = String::new();
        for (k, (value, read)) in self.reads.iter().enumerate() {
            if let Read::Row { indices } = read {
                let index: Vec<String> =
                    indices.iter().map(|i| i.map_or(row.to_owned(), |_| "%c0".to_owned())).collect();
                s += &format!(
                    "{indent}%xr{at}_{k} = memref.load %x{k}[{}] : {}\n{indent}%xrv{at}_{k} = vector.broadcast %xr{at}_{k} : f32 to {vt}\n",
                    index.join(", "),
                    value.r#type()
                );
            }
        }
        s
    }

    /// The steps on register `value` (of type `vt`) at `(row, col)` of the `[m, n]` result
    /// (index values), its row's values named after `at` ([`Epilogue::row`]), its own after
    /// `name`, at `indent`; `mask`: the store's mask, for the full arguments' loads. Returns the
    /// value to store.
    pub(super) fn apply(
        &self,
        s: &mut String,
        (at, name): (&str, &str),
        (row, col): (&str, &str),
        (value, vt, mask): (&str, &str, Option<&str>),
        (m, n): (i64, i64),
        indent: &str,
    ) -> String {
        for (k, (_, read)) in self.reads.iter().enumerate() {
            if matches!(read, Read::Full { .. }) {
                let memory = format!("memref<{m}x{n}xf32>");
                *s += &match mask {
                    Some(mask) => format!(
                        "{indent}%xl{name}_{k} = vector.maskedload %xf{k}[{row}, {col}], {mask}, %fzero : {memory}, vector<16xi1>, {vt} into {vt}\n"
                    ),
                    None => format!("{indent}%xl{name}_{k} = vector.load %xf{k}[{row}, {col}] : {memory}, {vt}\n"),
                };
            }
        }
        let term = |t: Term| match t {
            Term::Output => value.to_owned(),
            Term::Step(j) => format!("%ep{name}_{j}"),
            Term::Constant(j) => format!("%xc{j}"),
            Term::Arg(k) => match self.reads[k].1 {
                Read::Full { .. } => format!("%xl{name}_{k}"),
                Read::Row { .. } => format!("%xrv{at}_{k}"),
                Read::Scalar { .. } => format!("%xv{k}"),
            },
        };
        for (j, (op, operands)) in self.steps.iter().enumerate() {
            let operands: Vec<String> = operands.iter().map(|&t| term(t)).collect();
            *s += &format!("{indent}%ep{name}_{j} = {op} {} : {vt}\n", operands.join(", "));
        }
        term(self.result)
    }
}
