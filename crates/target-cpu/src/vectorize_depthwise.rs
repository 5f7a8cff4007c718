//! `strata-vectorize-depthwise{vector-lanes threads}`: the f32 depthwise convolutions
//! (`linalg.depthwise_conv_2d_nchw_chw` on buffers, after planning) and max and sum pools
//! (`linalg.pooling_nchw_max` / `_sum`: the same loops with a maximum or a plain sum per tap
//! instead of a multiply-add) as register-blocked vector loops with the output width in the
//! lanes (recipe 3 of `../shared/notes/cpu-codegen.md`).
//!
//! Per channel, the KH x KW weights are broadcast into vectors once; the output is walked in
//! blocks of 4 rows x one vector of `vector-lanes` columns whose accumulators (seeded from the
//! output, which holds the bias; or from the bias itself when a kernel filling the whole
//! output with it comes right before, which then goes: [`bias_fill`]) stay in registers
//! through the window: one input load and one fused multiply-add per tap and row (LLVM shares
//! the loads that neighbouring rows repeat). Stride 1 along the width reads contiguous
//! vectors; stride 2 reads two vectors' worth and keeps the even lanes (one shuffle); the last
//! partial vector of a row is masked, and rows that do not fill a block run one at a time.
//! With `threads` above 1 and enough work the channels are an `scf.forall` (OpenMP threads).
//!
//! Left to the loop-order schedule, MobileNetV2's depthwise convolutions ran at 7-8 GFLOP/s
//! (strided ones read every other element through scalar loads): 2x ONNX Runtime.
//!
//! `strata-cpu-schedule` leaves the convolutions this pass takes as named ops
//! ([`handles`]: static f32 NCHW, width stride 1 or 2, any height stride and dilation, the
//! padding already applied by the producer's padded buffer); the others keep their loop order.

use crate::text_kernels::{element, replace_kernels_with, unit_inner_stride};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::ShapedTypeLike;
use melior::ir::ValueLike;
use strata_ir::handle::dense_ints;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::ops::static_shape;

pub static INFO: PassInfo = PassInfo {
    name: "strata-vectorize-depthwise",
    summary: "Depthwise convolutions and max/sum pools (f32, NCHW) as register-blocked vector loops, output width in the lanes",
    anchor: "builtin.module",
    options: &[crate::vectorize_elementwise::VECTOR_LANES_OPTION, crate::cpu_schedule::THREADS_OPTION],
    statistics: &[
        StatisticInfo { name: "convolutions", help: "Depthwise convolutions and pools vectorised" },
        StatisticInfo { name: "bias-fills", help: "Bias fills of an output folded into its convolution's accumulators" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorizeDepthwise { lanes: options.int("vector-lanes").max(4), threads: options.int("threads") })
}

struct VectorizeDepthwise {
    lanes: i64,
    threads: i64,
}

/// Output rows per register block.
const ROWS: i64 = 4;

/// What a window computes: a depthwise convolution's weighted sum, a max pool's maximum, a
/// sum pool's sum (an average pool's, before its division).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reduce {
    Weighted,
    Max,
    Sum,
}

/// A depthwise convolution's (or pool's) shapes: input `[n, c, ih, iw]` (padded), filter
/// `[c, kh, kw]` (a pool's window `[kh, kw]`, taken as `[c, kh, kw]`), output `[n, c, oh, ow]`,
/// strides and dilations `(h, w)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Depthwise {
    reduce: Reduce,
    input: Vec<i64>,
    filter: Vec<i64>,
    output: Vec<i64>,
    strides: [i64; 2],
    dilations: [i64; 2],
}

/// The convolution `op` is, when this pass vectorises it (tensors or buffers).
pub fn handles(op: OperationRef<'_, '_>) -> Option<Depthwise> {
    let reduce = match strata_ir::ods::op_name(op).as_str() {
        "linalg.depthwise_conv_2d_nchw_chw" => Reduce::Weighted,
        "linalg.pooling_nchw_max" => Reduce::Max,
        "linalg.pooling_nchw_sum" => Reduce::Sum,
        _ => return None,
    };
    if op.operand_count() != 3 {
        return None;
    }
    let shape = |i: usize| -> Option<Vec<i64>> {
        let ty = op.operand(i).ok()?.r#type();
        // A pool's window is read for its shape only.
        if reduce != Reduce::Weighted && i == 1 {
            return static_shape(ty).ok();
        }
        // f32 elements; buffers with identity layouts or unit innermost strides.
        (element(ty)? == "f32" && unit_inner_stride(&ty.to_string())).then_some(())?;
        static_shape(ty).ok()
    };
    let (input, mut filter, output) = (shape(0)?, shape(1)?, shape(2)?);
    if reduce != Reduce::Weighted && filter.len() == 2 {
        filter.insert(0, input[1]);
    }
    let attr = |name: &str| -> Option<[i64; 2]> {
        match op.attribute(name).ok() {
            None => Some([1, 1]),
            Some(a) => {
                let v = dense_ints(a)?;
                (v.len() == 2).then(|| [v[0], v[1]])
            }
        }
    };
    let (strides, dilations) = (attr("strides")?, attr("dilations")?);
    let ok = input.len() == 4
        && filter.len() == 3
        && output.len() == 4
        && input[..2] == output[..2]
        && filter[0] == input[1]
        && matches!(strides[1], 1 | 2)
        && strides[0] >= 1
        && dilations.iter().all(|&d| d >= 1)
        && output[3] >= 4
        && (output[2] - 1) * strides[0] + (filter[1] - 1) * dilations[0] < input[2]
        && (output[3] - 1) * strides[1] + (filter[2] - 1) * dilations[1] < input[3];
    ok.then_some(Depthwise { reduce, input, filter, output, strides, dilations })
}

impl Depthwise {
    fn macs(&self) -> i64 {
        self.output.iter().product::<i64>() * self.filter[1] * self.filter[2]
    }

    /// The kernel function (MLIR text) for operand types `types`; `epilogue` (see
    /// [`epilogue`]) is applied to the accumulators before they are stored.
    /// `seeded`: the accumulators start from a per-channel bias, the kernel's fourth argument
    /// (`memref<C x f32>`, see [`bias_fill`]), not from the output's values.
    fn function(
        &self,
        types: &[String],
        lanes: i64,
        parallel: bool,
        epilogue: Option<&Epilogue>,
        seeded: bool,
    ) -> String {
        let [n, c, oh, ow] = [self.output[0], self.output[1], self.output[2], self.output[3]];
        let iw = self.input[3];
        let [kh, kw] = [self.filter[1], self.filter[2]];
        let [sh, sw] = self.strides;
        let [dh, dw] = self.dilations;
        let lanes = lanes.min((ow as u64).next_power_of_two() as i64);
        let vt = format!("vector<{lanes}xf32>");
        let mt = format!("vector<{lanes}xi1>");
        let (ow_main, ow_tail) = (ow / lanes * lanes, ow % lanes);
        let oh_main = oh / ROWS * ROWS;
        let (xt, wt, yt) = (&types[0], &types[1], &types[2]);
        let bias = if seeded { format!(", %bias: {}", types[3]) } else { String::new() };
        let mut s = format!("module {{\n  func.func private @depthwise(%x: {xt}, %w: {wt}, %y: {yt}{bias}) {{\n");
        let mut constants: Vec<i64> = vec![0, 1, ROWS, lanes, ow_main, ow_tail, oh_main, oh, c, n, iw, sh, sw];
        constants.extend(0..ROWS.max(kh).max(kw));
        constants.extend((0..kh).map(|a| a * dh));
        constants.extend((0..kw).map(|t| t * dw));
        constants.sort();
        constants.dedup();
        for k in &constants {
            s += &format!("    %c{k} = arith.constant {k} : index\n");
        }
        s += &format!("    %zero = arith.constant dense<0.000000e+00> : {vt}\n");
        for (k, value) in epilogue.iter().flat_map(|e| &e.constants).enumerate() {
            s += &format!("    %ep{k} = arith.constant dense<{value}> : {vt}\n");
        }
        if sw > 1 {
            s += &format!("    %zerow = arith.constant dense<0.000000e+00> : vector<{}xf32>\n", lanes * sw);
        }
        let batch = if n > 1 {
            s += &format!("    scf.for %n = %c0 to %c{n} step %c1 {{\n");
            "%n"
        } else {
            "%c0"
        };
        if parallel {
            s += &format!("    scf.forall (%ch) in ({c}) {{\n");
        } else {
            s += &format!("    scf.for %ch = %c0 to %c{c} step %c1 {{\n");
        }
        if seeded {
            s += &format!(
                "      %bs = memref.load %bias[%ch] : {}\n      %bv = vector.broadcast %bs : f32 to {vt}\n",
                types[3]
            );
        }
        // The channel's weights, broadcast once (a pool has none).
        if self.reduce == Reduce::Weighted {
            for a in 0..kh {
                for b in 0..kw {
                    s += &format!(
                        "      %ws{a}_{b} = memref.load %w[%ch, %c{a}, %c{b}] : {wt}\n      %wv{a}_{b} = vector.broadcast %ws{a}_{b} : f32 to {vt}\n"
                    );
                }
            }
        }
        let mut id = 0usize;
        let mut block = |s: &mut String, rows: i64, row: &str, col: &str, masked: bool, indent: &str| {
            id += 1;
            let b = id;
            let mask = if masked {
                *s += &format!("{indent}%m{b} = vector.create_mask %c{ow_tail} : {mt}\n");
                Some(format!("%m{b}"))
            } else {
                None
            };
            // Accumulators seeded from the output (which holds the bias), or from the bias.
            let mut seed: Vec<String> = Vec::new();
            for r in 0..rows {
                *s += &format!("{indent}%oh{b}_{r} = arith.addi {row}, %c{r} : index\n");
                seed.push(if seeded { "%bv".to_owned() } else { format!("%a{b}_{r}_0") });
                match &mask {
                    _ if seeded => {}
                    None => *s += &format!("{indent}%a{b}_{r}_0 = vector.load %y[{batch}, %ch, %oh{b}_{r}, {col}] : {yt}, {vt}\n"),
                    Some(m) => {
                        *s += &format!("{indent}%a{b}_{r}_0 = vector.maskedload %y[{batch}, %ch, %oh{b}_{r}, {col}], {m}, %zero : {yt}, {mt}, {vt} into {vt}\n")
                    }
                }
            }
            // The input column of the block's first output at tap 0.
            *s += &format!("{indent}%iw{b} = arith.muli {col}, %c{sw} : index\n");
            let mut step = 0;
            for a in 0..kh {
                for t in 0..kw {
                    *s += &format!("{indent}%iw{b}_{a}_{t} = arith.addi %iw{b}, %c{} : index\n", t * dw);
                    for r in 0..rows {
                        *s += &format!(
                            "{indent}%ih{b}_{a}_{t}_{r}a = arith.muli %oh{b}_{r}, %c{sh} : index\n{indent}%ih{b}_{a}_{t}_{r} = arith.addi %ih{b}_{a}_{t}_{r}a, %c{} : index\n",
                            a * dh
                        );
                        let (ih, iwv) = (format!("%ih{b}_{a}_{t}_{r}"), format!("%iw{b}_{a}_{t}"));
                        let x = format!("%x{b}_{a}_{t}_{r}");
                        let wide = lanes * sw;
                        // A strided read takes `wide` elements for `lanes` outputs, its last
                        // unneeded; whole column blocks stay inside the row when the last one's
                        // widest read does (`col` is at most `ow_main - lanes` there).
                        let inside = !masked && (ow_main - lanes) * sw + (kw - 1) * dw + wide <= iw;
                        let load = if masked || (sw > 1 && !inside) {
                            // Valid input elements left in the row (a partial vector or the
                            // stride-2 read's last, unneeded element past the row).
                            *s += &format!(
                                "{indent}%left{b}_{a}_{t}_{r} = arith.subi %c{iw}, {iwv} : index\n{indent}%lm{b}_{a}_{t}_{r} = vector.create_mask %left{b}_{a}_{t}_{r} : vector<{wide}xi1>\n"
                            );
                            format!(
                                "vector.maskedload %x[{batch}, %ch, {ih}, {iwv}], %lm{b}_{a}_{t}_{r}, {pass} : {xt}, vector<{wide}xi1>, vector<{wide}xf32> into vector<{wide}xf32>",
                                pass = if sw > 1 { "%zerow" } else { "%zero" }
                            )
                        } else {
                            format!("vector.load %x[{batch}, %ch, {ih}, {iwv}] : {xt}, vector<{wide}xf32>")
                        };
                        if sw > 1 {
                            let even: Vec<String> = (0..lanes).map(|l| (l * sw).to_string()).collect();
                            *s += &format!(
                                "{indent}{x}w = {load}\n{indent}{x} = vector.shuffle {x}w, {x}w [{}] : vector<{wide}xf32>, vector<{wide}xf32>\n",
                                even.join(", ")
                            );
                        } else {
                            *s += &format!("{indent}{x} = {load}\n");
                        }
                        let n1 = step + 1;
                        let acc = if step == 0 { seed[r as usize].clone() } else { format!("%a{b}_{r}_{step}") };
                        *s += &match self.reduce {
                            Reduce::Weighted => format!(
                                "{indent}%p{b}_{r}_{n1} = arith.mulf {x}, %wv{a}_{t} fastmath<contract> : {vt}\n{indent}%a{b}_{r}_{n1} = arith.addf {acc}, %p{b}_{r}_{n1} fastmath<contract> : {vt}\n"
                            ),
                            // linalg.pooling_nchw_max's own maximum (NaN propagates).
                            Reduce::Max => format!("{indent}%a{b}_{r}_{n1} = arith.maximumf {acc}, {x} : {vt}\n"),
                            Reduce::Sum => format!("{indent}%a{b}_{r}_{n1} = arith.addf {acc}, {x} : {vt}\n"),
                        };
                    }
                    step += 1;
                }
            }
            for r in 0..rows {
                let value = format!("%a{b}_{r}_{step}");
                let term = |t: Term| match t {
                    Term::Value => value.clone(),
                    Term::Step(k) => format!("%e{b}_{r}_{k}"),
                    Term::Constant(k) => format!("%ep{k}"),
                };
                let mut result = value.clone();
                if let Some(epilogue) = epilogue {
                    for (k, (name, operands)) in epilogue.steps.iter().enumerate() {
                        let operands: Vec<String> = operands.iter().map(|&t| term(t)).collect();
                        *s += &format!("{indent}%e{b}_{r}_{k} = {name} {} : {vt}\n", operands.join(", "));
                    }
                    result = term(epilogue.result);
                }
                match &mask {
                    None => *s += &format!("{indent}vector.store {result}, %y[{batch}, %ch, %oh{b}_{r}, {col}] : {yt}, {vt}\n"),
                    Some(m) => {
                        *s += &format!("{indent}vector.maskedstore %y[{batch}, %ch, %oh{b}_{r}, {col}], {m}, {result} : {yt}, {mt}, {vt}\n")
                    }
                }
            }
        };
        // Whole blocks of ROWS rows, then the rows left one at a time.
        crate::text_kernels::blocks(&mut s, "      ", ("oh", oh, ROWS), ("ow", ow, lanes), &mut block);
        s += "    }\n";
        if n > 1 {
            s += "    }\n";
        }
        s += "    return\n  }\n}\n";
        s
    }
}

/// A value an epilogue step reads: the accumulator, an earlier step's result, or a splat
/// constant (by index).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Term {
    Value,
    Step(usize),
    Constant(usize),
}

/// The elementwise program that follows a convolution in place, applied to its accumulators
/// before they are stored: `arith` steps on f32 (each `(op name, operands)`), the splat
/// constants they read (literals), and the term stored.
#[derive(Clone, Debug, PartialEq)]
struct Epilogue {
    steps: Vec<(String, Vec<Term>)>,
    constants: Vec<String>,
    result: Term,
}

/// The elementwise program that follows `conv` in place, when there is one: the next op is an
/// elementwise `linalg.generic` that reads and writes `conv`'s output buffer (identity maps,
/// every loop parallel) and computes each element with the `arith` ops of the reductions' lane
/// ops (f32 arithmetic, clamps, negation; no fast-math flags)
/// of the element and of f32 constants: a clamp (ReLU, ReLU6, Clip), a HardSwish
/// (`x * min(max(x / 6 + 1 / 2, 0), 1)`), a HardSigmoid, a scale. MobileNetV3's HardSwish after
/// each depthwise convolution ran as a pass of its own over the result.
fn epilogue(conv: Op) -> Option<(Op, Epilogue)> {
    let next = conv.next().filter(|op| op.result_count() == 0)?;
    strata_lower::pads::elementwise_in_place(next, conv.operand(2)).then_some(())?;
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
        if !arith || !plain || op.result_count() != 1 || op.result(0).r#type().to_string() != "f32" {
            return None;
        }
        let mut operands = Vec::new();
        for operand in op.operands() {
            let term = match lookup(operand, &terms) {
                Some(term) => term,
                None => {
                    let constant = operand.owner().filter(|c| c.is("arith.constant") && !c.is_inside(next))?;
                    let literal = constant.attribute("value")?.to_string().strip_suffix(" : f32")?.to_owned();
                    let index = match epilogue.constants.iter().position(|c| *c == literal) {
                        Some(index) => index,
                        None => {
                            epilogue.constants.push(literal);
                            epilogue.constants.len() - 1
                        }
                    };
                    Term::Constant(index)
                }
            };
            operands.push(term);
        }
        terms.push((op.result(0), Term::Step(epilogue.steps.len())));
        epilogue.steps.push((name, operands));
    }
    None
}

/// The kernel that fills `conv`'s whole output with a per-channel bias just before it, when
/// there is one: a `linalg.generic` broadcasting a `memref<C x f32>` along `(d1)` into exactly
/// the convolution's output buffer, with only views (or other address and value computations)
/// between the two. The convolution can then
/// start its accumulators from the bias and the fill go: one pass less over the output, and
/// none of the fill's masked row tails (on MobileNetV2, ~0.8 ms of ~15 on one thread, slower
/// still on two). Returns the fill and the bias.
fn bias_fill(conv: Op) -> Option<(Op, strata_ir::Val)> {
    let output = conv.operand(2);
    // A generic writing the output, followed by the convolution with only address and value
    // computations (views, constants: `sinkable`) in between.
    let right_before = |fill: Op| {
        let mut next = fill.next();
        while let Some(op) = next.filter(|&op| op != conv) {
            if !strata_ir::rewrite::sinkable(&op.name()) {
                return false;
            }
            next = op.next();
        }
        next == Some(conv)
    };
    let fill = output.users().into_iter().find(|&user| {
        user.is("linalg.generic") && user.operand_count() == 2 && user.operand(1) == output && right_before(user)
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

impl Pass for VectorizeDepthwise {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let names = ["linalg.depthwise_conv_2d_nchw_chw", "linalg.pooling_nchw_max", "linalg.pooling_nchw_sum"];
        let mut seeded = 0u64;
        let replaced = replace_kernels_with(module, cx, &names, "depthwise convolution kernel", "convolutions", |op| {
            let conv = handles(op.get())?;
            let mut types: Vec<String> = (0..3).map(|i| op.operand(i).r#type().to_string()).collect();
            if types.iter().any(|t| !t.starts_with("memref<")) {
                return None;
            }
            let parallel = self.threads > 1 && conv.macs() >= crate::conv_lanes::PARALLEL_MACS;
            let (next, program) = epilogue(op).unzip();
            let mut operands = op.operands();
            let seed = bias_fill(op).filter(|_| conv.reduce == Reduce::Weighted);
            if let Some((_, bias)) = seed {
                types.push(bias.r#type().to_string());
                operands.push(bias);
            }
            let text = conv.function(&types, self.lanes, parallel, program.as_ref(), seed.is_some());
            if let Some((fill, _)) = seed {
                // Safety: the kernel seeds its accumulators with what the fill wrote, and
                // nothing else read the output in between; nothing refers to the fill.
                unsafe { fill.erase() };
                seeded += 1;
            }
            if let Some(next) = next {
                // The kernel runs both ONNX nodes: profiles name it after both.
                let context = op.get().context();
                // Safety: the context outlives this pass run.
                let context = unsafe { context.to_ref() };
                let both = melior::ir::Location::fused(
                    context,
                    &[op.location(), next.location()],
                    melior::ir::Attribute::unit(context),
                );
                op.set_location_deep(both);
                // Safety: the epilogue is applied by the kernel's stores; nothing refers to it.
                unsafe { next.erase() };
            }
            Some((text, operands))
        });
        cx.bump("bias-fills", seeded);
        replaced
    }
}
