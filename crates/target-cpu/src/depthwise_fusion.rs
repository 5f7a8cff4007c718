//! What the depthwise kernel (`strata-vectorize-depthwise`) takes into itself from the ops
//! around a convolution: the elementwise program that follows it in place ([`epilogue`],
//! applied to the accumulators before they are stored) and the fill of its output with a
//! per-channel bias before it ([`bias_fill`], the accumulators' seed).

use crate::fuse_casts::signless;
use melior::ir::r#type::{ShapedTypeLike, TypeLike};
use strata_ir::Op;

/// A value an epilogue step reads: the accumulator, an earlier step's result, a splat
/// constant or a scalar argument (by index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Term {
    Value,
    Step(usize),
    Constant(usize),
    Scalar(usize),
}

/// The elementwise program that follows a convolution in place, applied to its accumulators
/// before they are stored: f32 steps (each `(op name, operands)`), the splat constants they
/// read (literals), the 0-d f32 buffers they read (a QDQ activation's scale and bounds: the
/// kernel's arguments after its own, loaded once as `%ev{k}`), the term stored, and the cast
/// of that to bytes after the program, when the kernel applies it too.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Epilogue {
    pub(crate) steps: Vec<(String, Vec<Term>)>,
    pub(crate) constants: Vec<String>,
    pub(crate) scalars: Vec<strata_ir::Val>,
    pub(crate) result: Term,
    pub(crate) bytes: Option<Bytes>,
}

/// A cast of an epilogue's result to 8 bits (`arith.fptoui` or `arith.fptosi`, identity maps)
/// into a contiguous buffer of the output's shape, which the kernel applies after the program
/// and stores (the kernel's last argument, `%yb`): a QDQ activation quantized where it is
/// computed. The f32 result is stored too only when it is read after the cast.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Bytes {
    pub(crate) cast: Op,
    pub(crate) output: strata_ir::Val,
    pub(crate) conversion: String,
    pub(crate) keep_result: bool,
    /// The views between the epilogue and the cast (the output's among them), which the
    /// kernel's caller moves before the convolution.
    pub(crate) between: Vec<Op>,
}

impl Epilogue {
    /// The kernel's arguments after its own (MLIR text, each after `, `): the scalars, then the
    /// bytes' output.
    pub(crate) fn arguments(&self) -> String {
        let scalars = self.scalars.iter().enumerate().map(|(k, v)| format!(", %es{k}: {}", v.r#type()));
        let bytes = self.bytes.iter().map(|b| format!(", %yb: {}", b.output.r#type()));
        scalars.chain(bytes).collect()
    }

    /// The kernel's operands for [`Epilogue::arguments`].
    pub(crate) fn operands(&self) -> Vec<strata_ir::Val> {
        self.scalars.iter().copied().chain(self.bytes.iter().map(|b| b.output)).collect()
    }

    /// What the kernel does once at its start, for registers of type `vt`: the constants
    /// splat, the scalars loaded and splat, the bytes' output viewed signless (`%ybs`).
    pub(crate) fn head(&self, vt: &str) -> String {
        let mut s = String::new();
        for (k, value) in self.constants.iter().enumerate() {
            s += &format!("    %ep{k} = arith.constant dense<{value}> : {vt}\n");
        }
        for (k, scalar) in self.scalars.iter().enumerate() {
            let ty = scalar.r#type();
            s += &format!(
                "    %esv{k} = memref.load %es{k}[] : {ty}\n    %ev{k} = vector.broadcast %esv{k} : f32 to {vt}\n"
            );
        }
        if let Some(bytes) = &self.bytes {
            let ty = bytes.output.r#type().to_string();
            s += &format!("    %ybs = builtin.unrealized_conversion_cast %yb : {ty} to {}\n", signless(&ty));
        }
        s
    }

    /// The bytes' store of `result` (a `vt` register of `lanes`) at `indices` of the output, at
    /// `indent`, its conversion named after `name`; `mask`: the f32 store's mask and its type.
    pub(crate) fn store_bytes(
        &self,
        (indent, name): (&str, &str),
        (result, vt, lanes): (&str, &str, i64),
        indices: &str,
        mask: Option<(&str, &str)>,
    ) -> String {
        let Some(bytes) = &self.bytes else { return String::new() };
        let (bt, memory) = (format!("vector<{lanes}xi8>"), signless(&bytes.output.r#type().to_string()));
        let mut s = format!("{indent}%eb{name} = {} {result} : {vt} to {bt}\n", bytes.conversion);
        s += &match mask {
            None => format!("{indent}vector.store %eb{name}, %ybs[{indices}] : {memory}, {bt}\n"),
            Some((m, mt)) => {
                format!("{indent}vector.maskedstore %ybs[{indices}], {m}, %eb{name} : {memory}, {mt}, {bt}\n")
            }
        };
        s
    }

    /// Whether the f32 result is stored.
    pub(crate) fn stores_result(&self) -> bool {
        self.bytes.as_ref().is_none_or(|b| b.keep_result)
    }

    /// Writes the steps that apply the epilogue to `value` (a `vt` vector) at `indent`, their
    /// results named `%e{name}_{k}`; returns the value to store.
    pub(crate) fn apply(&self, s: &mut String, indent: &str, name: &str, value: &str, vt: &str) -> String {
        let term = |t: Term| match t {
            Term::Value => value.to_owned(),
            Term::Step(k) => format!("%e{name}_{k}"),
            Term::Constant(k) => format!("%ep{k}"),
            Term::Scalar(k) => format!("%ev{k}"),
        };
        for (k, (op, operands)) in self.steps.iter().enumerate() {
            let operands: Vec<String> = operands.iter().map(|&t| term(t)).collect();
            *s += &format!("{indent}%e{name}_{k} = {op} {} : {vt}\n", operands.join(", "));
        }
        term(self.result)
    }
}

/// The index in `constants` (literals, each once) of `value` when it is an f32 `arith.constant`
/// defined outside `op` (a clamp's bound read by an epilogue's body), added if new.
pub(crate) fn outside_constant(value: strata_ir::Val, op: Op, constants: &mut Vec<String>) -> Option<usize> {
    let constant = value.owner().filter(|c| c.is("arith.constant") && !c.is_inside(op))?;
    let literal = constant.attribute("value")?.to_string().strip_suffix(" : f32")?.to_owned();
    Some(constants.iter().position(|c| *c == literal).unwrap_or_else(|| {
        constants.push(literal);
        constants.len() - 1
    }))
}

/// A pool's NaN-propagating maximum of `prev` and `x` (`vt` vectors, `mt` their masks) named
/// `{next}`, at `indent`: `x` where it is NaN or greater, else `prev`. A compare and a select
/// each way; `arith.maximumf`, which also orders -0 below +0, is six instructions on x86 and
/// made LLVM build the strided reads around it from scalar loads (a 3 x 3 stride-2 max pool
/// over 64 x 112 x 112: 0.17 -> 0.086 ms). On ties the earlier value stays, as in PyTorch's
/// max pools.
pub(crate) fn nan_max(indent: &str, next: &str, prev: &str, x: &str, vt: &str, mt: &str) -> String {
    format!(
        "{indent}{next}g = arith.cmpf ogt, {x}, {prev} : {vt}\n{indent}{next}m = arith.select {next}g, {x}, {prev} : {mt}, {vt}\n{indent}{next}n = arith.cmpf uno, {x}, {x} : {vt}\n{indent}{next} = arith.select {next}n, {x}, {next}m : {mt}, {vt}\n"
    )
}

/// The ops an epilogue step may be besides the reductions' lane ops (f32 in and out, the same
/// on vectors): a QDQ activation's rounding.
const ROUNDING: [&str; 3] = ["math.roundeven", "math.floor", "math.ceil"];

/// The elementwise program that follows `conv` in place, when there is one: the next op is an
/// elementwise `linalg.generic` that reads and writes `conv`'s output buffer (identity maps,
/// every loop parallel; its other inputs 0-d f32 buffers, a QDQ activation's scale and bounds)
/// and computes each element with the `arith` ops of the reductions' lane ops (f32 arithmetic,
/// clamps, negation; no fast-math flags) or a rounding, of the element, those scalars and f32
/// constants: a clamp (ReLU, ReLU6, Clip), a HardSwish (`x * min(max(x / 6 + 1 / 2, 0), 1)`),
/// a HardSigmoid, a scale, a quantization's `round(x / scale)` and clamp. MobileNetV3's
/// HardSwish after each depthwise convolution ran as a pass of its own over the result. A cast
/// of the result to bytes right after ([`Bytes`]) is applied too where `bytes` allows it (the
/// kernel's pool form takes neither scalars nor a cast).
pub(crate) fn epilogue(conv: Op, output: strata_ir::Val, bytes: bool) -> Option<(Op, Epilogue)> {
    let next = conv.next().filter(|op| op.result_count() == 0)?;
    let scalars = in_place_with_scalars(next, output)?;
    let body = next.body(0)?;
    // The first and last block arguments are the element (the generic reads and writes one
    // buffer); those between, the scalars.
    let last = body.argument_count() - 1;
    let mut terms: Vec<(strata_ir::Val, Term)> =
        vec![(body.argument(0), Term::Value), (body.argument(last), Term::Value)];
    terms.extend((1..last).map(|i| (body.argument(i), Term::Scalar(i - 1))));
    let mut epilogue = Epilogue { steps: Vec::new(), constants: Vec::new(), scalars, result: Term::Value, bytes: None };
    let lookup =
        |v: strata_ir::Val, terms: &[(strata_ir::Val, Term)]| terms.iter().find(|(t, _)| *t == v).map(|&(_, t)| t);
    for op in body.ops() {
        if op.is("linalg.yield") {
            epilogue.result = lookup(op.operand(0), &terms).filter(|_| op.operand_count() == 1)?;
            if epilogue.steps.is_empty() || (!bytes && !epilogue.scalars.is_empty()) {
                return None;
            }
            epilogue.bytes = if bytes { cast_to_bytes(next, output) } else { None };
            return Some((next, epilogue));
        }
        let name = op.name();
        let plain = op.attribute("fastmath").is_none_or(|f| f.to_string().contains("none"));
        let arith = name.starts_with("arith.") && crate::vectorize_reductions::LANE_OPS.contains(&name.as_str());
        if !(arith || ROUNDING.contains(&name.as_str()))
            || !plain
            || op.result_count() != 1
            || !op.result(0).r#type().is_f32()
        {
            return None;
        }
        let mut operands = Vec::new();
        for operand in op.operands() {
            let term = match lookup(operand, &terms) {
                Some(term) => term,
                None => Term::Constant(outside_constant(operand, next, &mut epilogue.constants)?),
            };
            operands.push(term);
        }
        terms.push((op.result(0), Term::Step(epilogue.steps.len())));
        epilogue.steps.push((name, operands));
    }
    None
}

/// The inputs of `op` between the first and the output when it is a 4-D elementwise generic
/// over `value` in place (`ins(%v, ...) outs(%v)`, identity maps for those two, every loop
/// parallel) whose other inputs are 0-d f32 buffers (read through `() `); `None` otherwise.
fn in_place_with_scalars(op: Op, value: strata_ir::Val) -> Option<Vec<strata_ir::Val>> {
    if strata_lower::pads::elementwise_in_place(op, value) {
        return Some(Vec::new());
    }
    let operands = op.operands();
    let n = operands.len();
    if !op.is("linalg.generic") || n < 3 || operands[0] != value || operands[n - 1] != value {
        return None;
    }
    let parallel = op.attribute("iterator_types").is_some_and(|i| !i.to_string().contains("reduction"));
    let maps = strata_ir::handle::map_results(op.attribute("indexing_maps")?)?;
    use strata_ir::handle::MapResult::Dim;
    let identity = |m: &Vec<strata_ir::handle::MapResult>| *m == [Dim(0), Dim(1), Dim(2), Dim(3)];
    if !parallel || !identity(&maps[0]) || !identity(&maps[n - 1]) {
        return None;
    }
    let scalar = |v: &strata_ir::Val, m: &Vec<strata_ir::handle::MapResult>| {
        let ty = v.r#type().to_string();
        m.is_empty() && ty == "memref<f32>"
    };
    operands[1..n - 1].iter().zip(&maps[1..n - 1]).all(|(v, m)| scalar(v, m)).then(|| operands[1..n - 1].to_vec())
}

/// The cast after the epilogue `op` over `output` when the kernel can apply it ([`Bytes`]):
/// the next op (past views) a generic converting `output` (identity maps) to 8 bits into a
/// contiguous buffer. Whether its output is apart from the kernel's reads is the caller's to
/// check.
fn cast_to_bytes(op: Op, output: strata_ir::Val) -> Option<Bytes> {
    let mut cast = op.next()?;
    let mut between = Vec::new();
    while crate::vectorize_integer_matmul::is_view(cast) || cast.is("builtin.unrealized_conversion_cast") {
        between.push(cast);
        cast = cast.next()?;
    }
    let conversion = crate::fuse_casts::cast(cast)?;
    let converts = conversion.op == "arith.fptoui" || conversion.op == "arith.fptosi";
    // An unsigned output `strata-fuse-casts` left written through its signless view: the
    // buffer itself (the kernel makes its own view).
    let target = match cast.operand(1).owner() {
        Some(view) if view.is("builtin.unrealized_conversion_cast") => view.operand(0),
        _ => cast.operand(1),
    };
    let contiguous = crate::text_kernels::identity_layout(&target.r#type().to_string());
    if !converts || conversion.from != "f32" || conversion.to != "i8" || cast.operand(0) != output || !contiguous {
        return None;
    }
    let keep_result = !crate::vectorize_integer_matmul::dead_after(cast, output);
    Some(Bytes { cast, output: target, conversion: conversion.op, keep_result, between })
}

/// Whether `fill` is followed by `conv` with only address and value computations (views,
/// constants: `sinkable`) in between.
fn right_before(fill: Op, conv: Op) -> bool {
    let mut next = fill.next();
    while let Some(op) = next.filter(|&op| op != conv) {
        if !strata_ir::rewrite::sinkable(&op.name()) {
            return false;
        }
        next = op.next();
    }
    next == Some(conv)
}

/// The `linalg.fill` of `pool`'s whole output with `identity` (a max pool's -inf, a sum's
/// zero) just before it, when there is one (only address and value computations between): the
/// kernel then starts its accumulators from that constant instead of loading the output, and
/// the fill goes (a pass over the output: ResNet's 3 x 3 stride-2 max pool wrote 0.8 MB of -inf
/// before reading it back).
pub(crate) fn identity_fill(pool: Op, output: strata_ir::Val, identity: f64) -> Option<Op> {
    output.users().into_iter().find(|&user| {
        let constant = user.operand_count() == 2
            && user
                .operand(0)
                .owner()
                .filter(|c| c.is("arith.constant"))
                .and_then(|c| strata_ir::ods::float(c.get(), "value"))
                .is_some_and(|v| v == identity);
        user.is("linalg.fill") && constant && user.operand(1) == output && right_before(user, pool)
    })
}

/// The kernel that fills `conv`'s whole output with a per-channel bias just before it, when
/// there is one: a `linalg.generic` broadcasting a `memref<C x f32>` along `(d1)` into exactly
/// the convolution's output buffer, with only views (or other address and value computations)
/// between the two. The convolution can then
/// start its accumulators from the bias and the fill go: one pass less over the output, and
/// none of the fill's masked row tails (on MobileNetV2, ~0.8 ms of ~15 on one thread, slower
/// still on two). Returns the fill and the bias.
pub(crate) fn bias_fill(conv: Op, output: strata_ir::Val) -> Option<(Op, strata_ir::Val)> {
    let fill = output.users().into_iter().find(|&user| {
        user.is("linalg.generic") && user.operand_count() == 2 && user.operand(1) == output && right_before(user, conv)
    })?;
    let maps = strata_ir::handle::map_results(fill.attribute("indexing_maps")?)?;
    use strata_ir::handle::MapResult::Dim;
    if maps.len() != 2 || maps[0] != [Dim(1)] || maps[1] != [Dim(0), Dim(1), Dim(2), Dim(3)] {
        return None;
    }
    let bias = fill.operand(0);
    let bias_type = strata_ir::types::memref(bias.r#type())?;
    let plain = bias_type.rank() == 1
        && strata_ir::types::type_name(bias_type.element()) == "f32"
        && strata_ir::handle::is_identity_layout(bias_type.layout())
        && bias_type.memory_space().is_none();
    if !plain {
        return None;
    }
    // The body yields the bias element unchanged.
    let body = fill.body(0)?;
    let ops = body.ops();
    let yields_input = ops.len() == 1 && ops[0].is("linalg.yield") && ops[0].operand(0) == body.argument(0);
    yields_input.then_some((fill, bias))
}
