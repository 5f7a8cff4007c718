//! What the depthwise kernel (`strata-vectorize-depthwise`) takes into itself from the ops
//! around a convolution: the elementwise program that follows it in place ([`epilogue`],
//! applied to the accumulators before they are stored) and the fill of its output with a
//! per-channel bias before it ([`bias_fill`], the accumulators' seed).

use melior::ir::r#type::{ShapedTypeLike, TypeLike};
use strata_ir::Op;

/// A value an epilogue step reads: the accumulator, an earlier step's result, or a splat
/// constant (by index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Term {
    Value,
    Step(usize),
    Constant(usize),
}

/// The elementwise program that follows a convolution in place, applied to its accumulators
/// before they are stored: `arith` steps on f32 (each `(op name, operands)`), the splat
/// constants they read (literals), and the term stored.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Epilogue {
    pub(crate) steps: Vec<(String, Vec<Term>)>,
    pub(crate) constants: Vec<String>,
    pub(crate) result: Term,
}

impl Epilogue {
    /// Writes the steps that apply the epilogue to `value` (a `vt` vector) at `indent`, their
    /// results named `%e{name}_{k}`; returns the value to store.
    pub(crate) fn apply(&self, s: &mut String, indent: &str, name: &str, value: &str, vt: &str) -> String {
        let term = |t: Term| match t {
            Term::Value => value.to_owned(),
            Term::Step(k) => format!("%e{name}_{k}"),
            Term::Constant(k) => format!("%ep{k}"),
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

/// The elementwise program that follows `conv` in place, when there is one: the next op is an
/// elementwise `linalg.generic` that reads and writes `conv`'s output buffer (identity maps,
/// every loop parallel) and computes each element with the `arith` ops of the reductions' lane
/// ops (f32 arithmetic, clamps, negation; no fast-math flags)
/// of the element and of f32 constants: a clamp (ReLU, ReLU6, Clip), a HardSwish
/// (`x * min(max(x / 6 + 1 / 2, 0), 1)`), a HardSigmoid, a scale. MobileNetV3's HardSwish after
/// each depthwise convolution ran as a pass of its own over the result.
pub(crate) fn epilogue(conv: Op, output: strata_ir::Val) -> Option<(Op, Epilogue)> {
    let next = conv.next().filter(|op| op.result_count() == 0)?;
    strata_lower::pads::elementwise_in_place(next, output).then_some(())?;
    let body = next.body(0)?;
    // Both block arguments are the element (the generic reads and writes one buffer).
    let mut terms: Vec<(strata_ir::Val, Term)> = vec![(body.argument(0), Term::Value), (body.argument(1), Term::Value)];
    let mut epilogue = Epilogue { steps: Vec::new(), constants: Vec::new(), result: Term::Value };
    let lookup =
        |v: strata_ir::Val, terms: &[(strata_ir::Val, Term)]| terms.iter().find(|(t, _)| *t == v).map(|&(_, t)| t);
    for op in body.ops() {
        if op.is("linalg.yield") {
            epilogue.result = lookup(op.operand(0), &terms).filter(|_| op.operand_count() == 1)?;
            return (!epilogue.steps.is_empty()).then_some((next, epilogue));
        }
        let name = op.name();
        let plain = op.attribute("fastmath").is_none_or(|f| f.to_string().contains("none"));
        let arith = name.starts_with("arith.") && crate::vectorize_reductions::LANE_OPS.contains(&name.as_str());
        if !arith || !plain || op.result_count() != 1 || !op.result(0).r#type().is_f32() {
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
