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
//! the separate kernel's, bit for bit. A kernel followed by a cast of its result that
//! `strata-fuse-casts` merges into it (f32 to bytes) is left alone: merged, it reads the f32
//! result once and writes the bytes, which absorbing it here would not save.

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
                || (value.argument_number().is_some() && value != strata_ir::rewrite::view_root(out))
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
            let fused_cast = cast_after(op, written, out);
            return (!steps.is_empty() && !fused_cast).then_some(Epilogue { op, reads, steps, constants, result });
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

/// Whether the op after `op` (past views) is a cast generic of the result (`written`, a view of
/// `out`) to another element type, which `strata-fuse-casts` would merge into `op`.
fn cast_after(op: Op, written: Val, out: Val) -> bool {
    let next = super::past_views(op).1;
    let Some(next) = next.filter(|n| n.is("linalg.generic") && n.operand_count() == 2) else { return false };
    let source = next.operand(0);
    let reads_result = source == written || source == out || super::view_of(source, out);
    let converts = next.body(0).is_some_and(|b| {
        b.ops().first().is_some_and(|o| {
            let name = o.name();
            name.starts_with("arith.fpto") || name == "arith.truncf" || name == "arith.extf"
        })
    });
    reads_result && converts
}

impl Epilogue {
    /// The kernel's arguments for the reads (MLIR text), after the product's.
    pub(super) fn arguments(&self) -> String {
        self.reads.iter().enumerate().map(|(k, (v, _))| format!(", %x{k}: {}", v.r#type())).collect()
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
