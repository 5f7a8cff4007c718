//! `strata-vectorize-reductions{vector-lanes}`: vectorises the f32 reduction kernels whose
//! innermost loop is the reduction (softmax's max and sum, layer norm's mean and variance,
//! ReduceSum/Mean/Max/L2 over the last axes, global pooling rows) with a vector accumulator,
//! on buffers, after planning and the thread split.
//!
//! Each such `linalg.generic` becomes, per output element, a loop over the innermost
//! (contiguous) reduction axis in steps of one vector that carries a vector of partial results
//! in registers (the combining op applied lane by lane), a last partial vector read masked with
//! its dead lanes set to the combiner's identity, and one horizontal `vector.reduction` into the
//! output's initial value. Outer reduction axes (a global pooling's rows) loop around it and
//! carry the same accumulator.
//!
//! Max and min give the same result in any order, so their loop keeps up to four
//! accumulators (consecutive vectors do not wait for each other) combined after it. `maxnumf`
//! and `minnumf` combine lanes by a compare and a select (their accumulators never hold a
//! NaN, so that is the op; one `vmaxps` on x86 where the op also tests and blends) and fold
//! the vector's halves the same way (LLVM's horizontal `maxnum` goes one lane at a time).
//!
//! Left to LLVM, these loops stayed scalar: a floating-point sum cannot be reassociated
//! without fast-math, so every element waited for the previous add (softmax over 128 columns:
//! 0.09 ms for 64K elements, 2.6x ONNX Runtime). Lanes reassociate the sum (max and min are
//! exact): results differ from the sequential order by rounding, as ONNX Runtime's vectorised
//! reductions do; for any thread count they are the same (threads split the output, never a
//! reduction).
//!
//! A kernel is rewritten only when the rewrite is known good: static shapes, one output, the
//! loops every parallel one first then the reductions, f32 operands, the output indexed by
//! parallel loops (or 0), every input by plain loops (or 0) with the innermost loop, when it
//! reads it, as its last and unit-stride index (other inputs are broadcast along the vector),
//! a body of lane-wise float ops (arith/math, constants) whose yield combines the output's
//! value once by `addf`, `mulf`, `maximumf`, `minimumf`, `maxnumf` or `minnumf`, and an
//! innermost loop of at least 4. The others stay loops, as before. Runs after
//! `strata-vectorize-elementwise` (which takes the kernels whose loops are all parallel).

use crate::text_kernels::{element, replace_kernels, unit_inner_stride, ROLLED};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeLike;
use melior::ir::Type;
use std::collections::BTreeMap;
use strata_ir::handle::{MapResult, Val};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-reductions",
    summary: "Vectorise f32 reductions along their innermost loop with a vector accumulator in registers",
    anchor: "builtin.module",
    options: &[crate::vectorize_elementwise::VECTOR_LANES_OPTION],
    statistics: &[StatisticInfo { name: "kernels", help: "Reduction kernels vectorised" }],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeReductions { lanes: options.int("vector-lanes").max(1) })
}

struct VectorizeReductions {
    lanes: i64,
}

/// Shortest innermost reduction worth a vector.
const MIN_INNER: i64 = 4;

/// Accumulators of a max or min reduction's main loop (independent chains).
const ACCUMULATORS: i64 = 4;

/// Lane-wise ops of one or two f32 operands and an f32 result, written `name %a[, %b] : T`.
pub(crate) const LANE_OPS: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
    "arith.negf",
    "math.absf",
    "math.exp",
    "math.exp2",
    "math.log",
    "math.log2",
    "math.sqrt",
    "math.rsqrt",
    "math.tanh",
    "math.erf",
];

/// The combining ops: (op, `vector.reduction` kind, identity as an f32 literal).
const COMBINERS: &[(&str, &str, &str)] = &[
    ("arith.addf", "add", "0.000000e+00"),
    ("arith.mulf", "mul", "1.000000e+00"),
    ("arith.maximumf", "maximumf", "0xFF800000"),
    ("arith.minimumf", "minimumf", "0x7F800000"),
    ("arith.maxnumf", "maxnumf", "0xFF800000"),
    ("arith.minnumf", "minnumf", "0x7F800000"),
];

/// An operand of a body op.
#[derive(Clone, Debug, PartialEq)]
enum Arg {
    /// The kernel's input `j` (its element at the current indices).
    Input(usize),
    /// The result of body op `i`.
    Local(usize),
    /// An f32 constant (its literal).
    Constant(String),
}

/// A reduction kernel this pass rewrites, read from its `linalg.generic`.
#[derive(Debug)]
struct Reduction {
    /// Loop extents, outermost first: the parallel loops, then `reductions` reduction loops.
    extents: Vec<i64>,
    reductions: usize,
    /// Operand types (inputs, then the output), as MLIR prints them.
    types: Vec<String>,
    /// Per input, per index: the loop it reads (`None`: index 0).
    inputs: Vec<Vec<Option<usize>>>,
    /// Per output index: the loop (`None`: index 0).
    output: Vec<Option<usize>>,
    /// The body before the combiner: op name and operands.
    body: Vec<(String, Vec<Arg>)>,
    /// The value combined into the output, and the combiner (an index into [`COMBINERS`]).
    combined: Arg,
    combiner: usize,
}

/// The literal of an f32 `arith.constant` (`None` for anything else).
fn f32_constant(op: Op) -> Option<String> {
    if !op.is("arith.constant") || !op.result(0).r#type().is_f32() {
        return None;
    }
    let text = op.attribute("value")?.to_string();
    Some(text.strip_suffix(" : f32")?.trim().to_owned())
}

/// Reads `op` as a reduction kernel this pass rewrites (see the module documentation).
fn reduction(op: Op) -> Option<Reduction> {
    if !op.is("linalg.generic") {
        return None;
    }
    let raw = op.get();
    let loops = crate::parallelize::loops(raw)?;
    let first_reduction = loops.iter().position(|&(_, parallel)| !parallel)?;
    if loops[first_reduction..].iter().any(|&(_, parallel)| parallel) || loops.last()?.0 < MIN_INNER {
        return None;
    }
    let maps = strata_ir::handle::map_results(raw.attribute("indexing_maps").ok()?)?;
    let operands = op.operand_count();
    let body = op.body(0)?;
    if maps.len() != operands || operands < 2 || body.argument_count() != operands {
        return None;
    }
    // An input that is the output's own buffer would see the partial results of a
    // sequential loop; the rewrite reads it before writing.
    let output_buffer = op.operand(operands - 1);
    if (0..operands - 1).any(|i| op.operand(i) == output_buffer) {
        return None;
    }
    let mut types = Vec::new();
    for i in 0..operands {
        let ty: Type = op.operand(i).r#type();
        static_shape(ty).ok()?;
        strata_ir::types::memref(ty)?;
        if element(ty)? != "f32" {
            return None;
        }
        types.push(ty.to_string());
    }
    let last = loops.len() - 1;
    let plain = |map: &[MapResult]| -> Option<Vec<Option<usize>>> {
        map.iter()
            .map(|r| match *r {
                MapResult::Dim(d) => Some(Some(d)),
                MapResult::Zero => Some(None),
                MapResult::Other => None,
            })
            .collect()
    };
    let mut inputs = Vec::new();
    for (j, map) in maps[..operands - 1].iter().enumerate() {
        let dims = plain(map)?;
        // The vector loop, when read, is the last and contiguous index.
        let reads_inner = dims.iter().position(|&d| d == Some(last));
        if let Some(position) = reads_inner {
            if position + 1 != dims.len() || !unit_inner_stride(&types[j]) {
                return None;
            }
        }
        inputs.push(dims);
    }
    let output = plain(maps.last()?)?;
    if output.iter().flatten().any(|&d| d >= first_reduction) {
        return None;
    }
    // The body: lane-wise ops; the yield combines the output's value once.
    let mut names: BTreeMap<usize, Arg> = BTreeMap::new();
    for j in 0..operands - 1 {
        if !body.argument(j).r#type().is_f32() {
            return None;
        }
        names.insert(key(body.argument(j)), Arg::Input(j));
    }
    let out = body.argument(operands - 1);
    let ops = body.ops_before_terminator();
    let yielded = body.terminator()?.operands();
    let [yielded] = yielded.as_slice() else { return None };
    let combiner_op = yielded.owner()?;
    let in_body = |op: Op| op.block().is_some_and(|b| b.get().to_raw().ptr == body.get().to_raw().ptr);
    if !in_body(combiner_op) || out.users().len() != 1 || out.users()[0].raw().ptr != combiner_op.raw().ptr {
        return None;
    }
    let combiner = COMBINERS.iter().position(|(name, _, _)| combiner_op.is(name))?;
    let arg = |value: Val, names: &BTreeMap<usize, Arg>| -> Option<Arg> {
        if let Some(arg) = names.get(&key(value)) {
            return Some(arg.clone());
        }
        // A value captured from above: only constants.
        let owner = value.owner()?;
        if in_body(owner) {
            return None;
        }
        f32_constant(owner).map(Arg::Constant)
    };
    let mut lanes = Vec::new();
    for inner in ops {
        if inner.raw().ptr == combiner_op.raw().ptr {
            continue;
        }
        if inner.result_count() != 1 || inner.region_count() != 0 {
            return None;
        }
        if let Some(literal) = f32_constant(inner) {
            names.insert(key(inner.result(0)), Arg::Constant(literal));
            continue;
        }
        if !LANE_OPS.contains(&inner.name().as_str()) || !inner.result(0).r#type().is_f32() {
            return None;
        }
        let args = inner.operands().into_iter().map(|v| arg(v, &names)).collect::<Option<Vec<_>>>()?;
        names.insert(key(inner.result(0)), Arg::Local(lanes.len()));
        lanes.push((inner.name(), args));
    }
    // The combiner's other operand.
    let operands_of_combiner = combiner_op.operands();
    let other = operands_of_combiner.iter().find(|v| v.raw().ptr != out.raw().ptr)?;
    if operands_of_combiner.iter().filter(|v| v.raw().ptr == out.raw().ptr).count() != 1 {
        return None;
    }
    let combined = arg(*other, &names)?;
    // The combiner must come last: nothing in the body may read its result but the yield.
    if combiner_op.result(0).users().len() != 1 {
        return None;
    }
    Some(Reduction {
        extents: loops.iter().map(|&(extent, _)| extent).collect(),
        reductions: loops.len() - first_reduction,
        types,
        inputs,
        output,
        body: lanes,
        combined,
        combiner,
    })
}

fn key(value: Val) -> usize {
    value.raw().ptr as usize
}

impl Reduction {
    /// The kernel function: the reduction with a vector accumulator of `lanes` f32.
    fn function(&self, lanes: i64) -> String {
        let n = self.extents.len();
        let last = n - 1;
        let inner = self.extents[last];
        let lanes = lanes.min((inner as u64).next_power_of_two() as i64).max(4);
        let (main, tail) = (inner / lanes * lanes, inner % lanes);
        let vt = format!("vector<{lanes}xf32>");
        let (combine, kind, identity) = COMBINERS[self.combiner];
        let mut s = String::from("module {\n  func.func private @reduce(");
        let args: Vec<String> = self.types.iter().enumerate().map(|(i, t)| format!("%a{i}: {t}")).collect();
        s += &args.join(", ");
        s += ") {\n";
        // Max, min and sums keep several accumulators (carried through the outer reduction
        // loops), so consecutive vectors do not wait for each other: a NaN-propagating
        // `maximumf` is six dependent instructions on x86 (softmax's row maxima over 128
        // columns took a quarter of the kernel, one chain of eight), and a sum of a 160 x 160
        // plane in L2 one chain of 1600 four-cycle adds (an instance normalisation's mean and
        // variance: 60% of the kernel). Max and min give the same result in any order; a sum
        // is reassociated once more (as ONNX Runtime's unrolled sums are). Products keep one.
        let several = matches!(kind, "maximumf" | "minimumf" | "maxnumf" | "minnumf" | "add");
        let accumulators = if several { ACCUMULATORS.min(main / lanes).max(1) } else { 1 };
        let step = accumulators * lanes;
        let unrolled = main / step * step;
        let mut indices: Vec<i64> = vec![0, 1, lanes, main, tail, step, unrolled];
        indices.extend((1..accumulators).map(|j| j * lanes));
        indices.extend((unrolled..main).step_by(lanes as usize));
        indices.extend(self.extents.iter().copied());
        indices.sort();
        indices.dedup();
        for c in &indices {
            s += &format!("    %c{c} = arith.constant {c} : index\n");
        }
        s += &format!("    %identity = arith.constant dense<{identity}> : {vt}\n");
        s += &format!("    %zero = arith.constant dense<0.000000e+00> : {vt}\n");
        let iv = |d: usize, k: &str| -> String {
            if d == last {
                k.to_owned()
            } else if self.extents[d] == 1 {
                "%c0".to_owned()
            } else {
                format!("%i{d}")
            }
        };
        let mut indent = String::from("    ");
        let parallel = n - self.reductions;
        let mut closers = Vec::new();
        for d in 0..parallel {
            if self.extents[d] > 1 {
                s += &format!("{indent}scf.for %i{d} = %c0 to %c{} step %c1 {{\n", self.extents[d]);
                closers.push(format!("{indent}}} {ROLLED}\n"));
                indent += "  ";
            }
        }
        let output_indices: Vec<String> =
            self.output.iter().map(|d| d.map_or("%c0".to_owned(), |d| iv(d, "%c0"))).collect();
        let output_indices = output_indices.join(", ");
        // Outer reduction loops carry the accumulators.
        let group = |name: &str, j: i64| if accumulators > 1 { format!("{name}#{j}") } else { name.to_owned() };
        let types = vec![vt.as_str(); accumulators as usize].join(", ");
        let mut partial: Vec<String> = vec!["%identity".to_owned(); accumulators as usize];
        let mut reduction_closers: Vec<(String, String)> = Vec::new();
        for d in parallel..last {
            if self.extents[d] > 1 {
                let carried: Vec<String> =
                    partial.iter().enumerate().map(|(j, value)| format!("%acc{d}_{j} = {value}")).collect();
                let results = if accumulators > 1 { format!("%r{d}:{accumulators}") } else { format!("%r{d}") };
                s += &format!(
                    "{indent}{results} = scf.for %i{d} = %c0 to %c{} step %c1 iter_args({}) -> ({types}) {{\n",
                    self.extents[d],
                    carried.join(", ")
                );
                reduction_closers.push((indent.clone(), format!("%r{d}")));
                partial = (0..accumulators).map(|j| format!("%acc{d}_{j}")).collect();
                indent += "  ";
            }
        }
        let mut counter = 0usize;
        let mut fresh = || {
            counter += 1;
            format!("%v{counter}")
        };
        if main > 0 {
            let inits: Vec<String> =
                partial.iter().enumerate().map(|(j, value)| format!("%part{j} = {value}")).collect();
            s += &format!(
                "{indent}%main:{accumulators} = scf.for %k = %c0 to %c{unrolled} step %c{step} iter_args({}) -> ({types}) {{\n",
                inits.join(", ")
            );
            let inner_indent = format!("{indent}  ");
            let mut nexts = Vec::new();
            for j in 0..accumulators {
                let k = if j == 0 {
                    "%k".to_owned()
                } else {
                    let k = fresh();
                    s += &format!("{inner_indent}{k} = arith.addi %k, %c{} : index\n", j * lanes);
                    k
                };
                let x = self.lanes(&mut s, &inner_indent, lanes, &k, None, &iv, &mut fresh);
                let next = self.combine(&mut s, &inner_indent, lanes, &format!("%part{j}"), &x, &mut fresh);
                nexts.push(next);
            }
            s += &format!("{inner_indent}scf.yield {} : {types}\n{indent}}}\n", nexts.join(", "));
            partial = (0..accumulators).map(|j| format!("%main#{j}")).collect();
            // The vectors left over after the unrolled loop, each into its own accumulator.
            for (j, r) in (unrolled..main).step_by(lanes as usize).enumerate() {
                let x = self.lanes(&mut s, &indent, lanes, &format!("%c{r}"), None, &iv, &mut fresh);
                partial[j] = self.combine(&mut s, &indent, lanes, &partial[j], &x, &mut fresh);
            }
        }
        if tail > 0 {
            let mask = fresh();
            s += &format!("{indent}{mask} = vector.create_mask %c{tail} : vector<{lanes}xi1>\n");
            let k = format!("%c{main}");
            let x = self.lanes(&mut s, &indent, lanes, &k, Some(&mask), &iv, &mut fresh);
            let kept = fresh();
            s += &format!("{indent}{kept} = arith.select {mask}, {x}, %identity : vector<{lanes}xi1>, {vt}\n");
            let last = partial.len() - 1;
            partial[last] = self.combine(&mut s, &indent, lanes, &partial[last], &kept, &mut fresh);
        }
        for (closer_indent, result) in reduction_closers.into_iter().rev() {
            s += &format!("{indent}scf.yield {} : {types}\n{closer_indent}}}\n", partial.join(", "));
            indent = closer_indent;
            partial = (0..accumulators).map(|j| group(&result, j)).collect();
        }
        // The accumulators pairwise.
        while partial.len() > 1 {
            let mut paired = Vec::new();
            for pair in partial.chunks(2) {
                match pair {
                    [a, b] => paired.push(self.combine(&mut s, &indent, lanes, a, b, &mut fresh)),
                    [a] => paired.push(a.clone()),
                    _ => unreachable!("chunks of two"),
                }
            }
            partial = paired;
        }
        let mut acc = partial.swap_remove(0);
        let out = self.types.len() - 1;
        let init = fresh();
        s += &format!("{indent}{init} = memref.load %a{out}[{output_indices}] : {}\n", self.types[out]);
        let reduced = fresh();
        if self.select_combine() && (lanes as u64).is_power_of_two() {
            // Halves folded onto each other by the same compare and select (LLVM's own
            // `maxnum` reduction is one lane at a time), then the output's initial value by
            // the op itself.
            let mut width = lanes / 2;
            while width >= 1 {
                let mask: Vec<String> = (0..lanes).map(|i| ((i + width) % lanes).to_string()).collect();
                let turned = fresh();
                s += &format!("{indent}{turned} = vector.shuffle {acc}, {acc} [{}] : {vt}, {vt}\n", mask.join(", "));
                acc = self.combine(&mut s, &indent, lanes, &acc, &turned, &mut fresh);
                width /= 2;
            }
            let first = fresh();
            s += &format!("{indent}{first} = vector.extract {acc}[0] : f32 from {vt}\n");
            s += &format!("{indent}{reduced} = {combine} {init}, {first} : f32\n");
        } else {
            s += &format!(
                "{indent}{reduced} = vector.reduction <{kind}>, {acc}, {init} fastmath<reassoc> : {vt} into f32\n"
            );
        }
        s += &format!("{indent}memref.store {reduced}, %a{out}[{output_indices}] : {}\n", self.types[out]);
        for closer in closers.into_iter().rev() {
            s += &closer;
        }
        s += "    return\n  }\n}\n";
        s
    }

    /// Whether lanes combine by a compare and a select: `maxnumf` and `minnumf`, whose
    /// accumulators start at the identity and only ever take a value that compared greater
    /// (smaller), so they never hold a NaN, and a NaN element is skipped as the op skips it.
    /// (x86: one `vmaxps`; the op itself also tests for NaN and blends.)
    fn select_combine(&self) -> bool {
        matches!(COMBINERS[self.combiner].0, "arith.maxnumf" | "arith.minnumf")
    }

    /// Emits the combiner of the accumulator `acc` and the vector `x`; returns its name.
    fn combine(
        &self,
        s: &mut String,
        indent: &str,
        lanes: i64,
        acc: &str,
        x: &str,
        fresh: &mut dyn FnMut() -> String,
    ) -> String {
        let vt = format!("vector<{lanes}xf32>");
        let combine = COMBINERS[self.combiner].0;
        let name = fresh();
        if self.select_combine() {
            let predicate = if combine == "arith.maxnumf" { "ogt" } else { "olt" };
            let test = fresh();
            *s += &format!("{indent}{test} = arith.cmpf {predicate}, {x}, {acc} : {vt}\n");
            *s += &format!("{indent}{name} = arith.select {test}, {x}, {acc} : vector<{lanes}xi1>, {vt}\n");
        } else {
            *s += &format!("{indent}{name} = {combine} {acc}, {x} : {vt}\n");
        }
        name
    }

    /// Emits the loads and the body for one vector at `k` (masked by `mask` for the last
    /// partial one); returns the name of the value to combine.
    #[allow(clippy::too_many_arguments)]
    fn lanes(
        &self,
        s: &mut String,
        indent: &str,
        lanes: i64,
        k: &str,
        mask: Option<&str>,
        iv: &dyn Fn(usize, &str) -> String,
        fresh: &mut dyn FnMut() -> String,
    ) -> String {
        let last = self.extents.len() - 1;
        let vt = &format!("vector<{lanes}xf32>");
        let mut inputs = Vec::new();
        for (j, dims) in self.inputs.iter().enumerate() {
            let indices: Vec<String> = dims.iter().map(|d| d.map_or("%c0".to_owned(), |d| iv(d, k))).collect();
            let indices = indices.join(", ");
            let ty = &self.types[j];
            let name = fresh();
            if dims.contains(&Some(last)) {
                match mask {
                    None => *s += &format!("{indent}{name} = vector.load %a{j}[{indices}] : {ty}, {vt}\n"),
                    Some(mask) => {
                        *s += &format!(
                            "{indent}{name} = vector.maskedload %a{j}[{indices}], {mask}, %zero : {ty}, vector<{lanes}xi1>, {vt} into {vt}\n"
                        )
                    }
                }
            } else {
                let scalar = fresh();
                *s += &format!("{indent}{scalar} = memref.load %a{j}[{indices}] : {ty}\n");
                *s += &format!("{indent}{name} = vector.broadcast {scalar} : f32 to {vt}\n");
            }
            inputs.push(name);
        }
        let mut locals: Vec<String> = Vec::new();
        let value = |arg: &Arg, s: &mut String, fresh: &mut dyn FnMut() -> String, locals: &[String]| -> String {
            match arg {
                Arg::Input(j) => inputs[*j].clone(),
                Arg::Local(i) => locals[*i].clone(),
                Arg::Constant(literal) => {
                    let name = fresh();
                    *s += &format!("{indent}{name} = arith.constant dense<{literal}> : {vt}\n");
                    name
                }
            }
        };
        for (op, args) in &self.body {
            let operands: Vec<String> = args.iter().map(|a| value(a, s, fresh, &locals)).collect();
            let name = fresh();
            *s += &format!("{indent}{name} = {op} {} : {vt}\n", operands.join(", "));
            locals.push(name);
        }
        value(&self.combined, s, fresh, &locals)
    }
}

impl Pass for VectorizeReductions {
    fn run(
        &mut self,
        module: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        replace_kernels(module, cx, &["linalg.generic"], "vectorised reduction", "kernels", |op| {
            Some(reduction(op)?.function(self.lanes))
        })
    }
}
