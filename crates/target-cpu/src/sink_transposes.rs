//! `strata-sink-transposes`: elementwise ops applied to a transposed 2-D vector run on the
//! vector before the transpose instead, where it fills its registers better; the transpose
//! moves below them.
//!
//! A register-blocked convolution accumulates `positions x filters` (`vector<12x32xf32>`: the
//! filters in the lanes) and transposes the block to the NCHW `filters x positions` of its
//! output just before the store. Its epilogue (bias, clamps, a bf16 model's rounding: one op
//! after another, with splat constants) ran on the transposed block, whose rows are the
//! positions: 32 rows of 12 lanes (a tail block: of 2, 4 or 7), each a register of its own once
//! `convert-vector-to-llvm` splits the block into rows, where the block before the transpose
//! fills 24 (4, 8, 14) registers. A bf16 MobileNetV2 rounds every block (9 integer ops a row
//! after `strata-expand-bf16`).
//!
//! Taken: a `vector.transpose` of a 2-D vector (permutation `[1, 0]`), when the transpose's
//! source takes fewer 512-bit registers than its result, and the elementwise ops after it in
//! its block (`arith`'s float arithmetic and conversions, `math`'s functions) computed from its
//! result and splat `arith.constant`s only have one value read after them (not the transposed
//! block itself): a chain (bias, clamps, rounding) or a DAG that reads the block more than once,
//! MobileNetV3's hard-swish `x * min(max(x + 3, 0), 6) / 6`, whose two reads of `x` kept the
//! whole epilogue on the transposed block when only a single reader was taken (MobileNetV3-Small
//! 2% faster on one and two threads moved). Those ops are rebuilt on the source, in order (the
//! constants rebuilt in its shape once each, attributes kept), and their one result transposed
//! where it was computed. The values are the same element by element: the results are the same
//! bits.
//! MLIR's `populateSinkVectorOpsPatterns` makes the same move unconditionally, also where the
//! source is the narrower shape; this pass only makes it where the rows get wider. Run first
//! in `strata-host-to-llvm`, before `strata-expand-bf16` expands the roundings.

use crate::vector_ops::{build, vector_shape};
use melior::ir::operation::{OperationLike, OperationRef};
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-sink-transposes",
    summary: "Elementwise ops on a transposed 2-D vector computed before the transpose, where its rows are wider",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "sunk", help: "Elementwise ops moved above a transpose" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SinkTransposes)
}

struct SinkTransposes;

/// The elementwise ops taken beside the float lane ops (`vectorize_reductions::LANE_OPS`): each
/// result element a function of the operands' elements at the same position.
const CONVERSIONS: &[&str] = &["arith.truncf", "arith.extf", "math.fma"];

fn elementwise(op: Op) -> bool {
    crate::vectorize_reductions::LANE_OPS.iter().chain(CONVERSIONS).any(|name| op.is(name))
}

impl Pass for SinkTransposes {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for mut transpose in collect(&func, |op| op.is("vector.transpose")) {
            while let Some(moved) = sink_one(context, transpose) {
                cx.bump("sunk", 1);
                transpose = moved;
            }
        }
        Ok(())
    }
}

/// Registers of 512 bits a 2-D vector of `dims` with `bits`-bit elements takes, a row each.
fn registers(dims: &[i64], bits: i64) -> i64 {
    dims[0] * (dims[1] * bits + 511) / 512
}

/// The width in bits of a float element type (printed).
fn bits(element: &str) -> Option<i64> {
    match element {
        "f64" => Some(64),
        "f32" => Some(32),
        "f16" | "bf16" => Some(16),
        _ => None,
    }
}

/// The most ops after a transpose looked at for its elementwise region.
const MOST_REGION_OPS: usize = 256;

/// Moves the elementwise ops computed from `transpose` above it (see the module's comment);
/// returns the new transpose, or `None` where the pattern does not apply.
fn sink_one(context: &melior::Context, transpose: Op) -> Option<Op> {
    let source = transpose.operand(0);
    let result = transpose.result(0);
    let (source_dims, source_element) = vector_shape(source.r#type())?;
    let (result_dims, _) = vector_shape(result.r#type())?;
    let permutation = transpose.attribute("permutation")?.to_string();
    if source_dims.len() != 2 || permutation != "array<i64: 1, 0>" {
        return None;
    }
    let element_bits = bits(&source_element)?;
    if registers(&source_dims, element_bits) >= registers(&result_dims, element_bits) {
        return None;
    }
    let (region, exit) = region(transpose)?;
    // The operands on the source's shape: the transpose's source, the region's results, the
    // constants rebuilt (once each).
    let source_shape = |element: &str| format!("vector<{}x{}x{element}>", source_dims[0], source_dims[1]);
    let mut moved: Vec<(Val, Val)> = vec![(result, source)];
    let mut constants: Vec<Op> = Vec::new();
    for &op in &region {
        let mut operands: Vec<Val> = Vec::with_capacity(op.operand_count());
        for operand in op.operands() {
            if let Some(&(_, to)) = moved.iter().find(|(from, _)| *from == operand) {
                operands.push(to);
                continue;
            }
            let (splat, element) = splat(operand)?;
            let ty = source_shape(&element);
            let rebuilt = build(context, op, "arith.constant", &[], &ty, &[("value", format!("{splat} : {ty}"))])?;
            constants.extend(operand.owner());
            moved.push((operand, rebuilt));
            operands.push(rebuilt);
        }
        let (_, element) = vector_shape(op.result(0).r#type())?;
        let attributes: Vec<(String, String)> = op
            .get()
            .attributes()
            .filter_map(|(name, value)| Some((name.as_string_ref().as_str().ok()?.to_owned(), value.to_string())))
            .collect();
        let attributes: Vec<(&str, String)> =
            attributes.iter().map(|(name, value)| (name.as_str(), value.clone())).collect();
        let computed = build(context, op, &op.name(), &operands, &source_shape(&element), &attributes)?;
        moved.push((op.result(0), computed));
    }
    let computed = moved.iter().find(|(from, _)| *from == exit).map(|&(_, to)| to)?;
    let ty = exit.r#type().to_string();
    // Right after the exit's new op (before the old one): above every read of the exit.
    let transposed =
        build(context, exit.owner()?, "vector.transpose", &[computed], &ty, &[("permutation", permutation)])?;
    exit.replace_all_uses_with(transposed);
    // Safety: every op of the region is only read inside it now (its exit's uses replaced),
    // erased last first; no handle to them is used again. The transpose and the constants
    // are erased only when nothing else reads them.
    unsafe {
        for op in region.into_iter().rev() {
            op.erase();
        }
        strata_ir::rewrite::erase_if_unused(transpose);
        for constant in constants {
            strata_ir::rewrite::erase_if_unused(constant);
        }
    }
    transposed.owner()
}

/// The elementwise ops after `transpose` in its block computed from its result and splat
/// constants only (in order), when they have one value read outside them (their exit, not the
/// transpose's result itself): a bias add and clamps (a chain), or `x * sigmoid(x)`, which
/// reads the transposed block twice. `None` when there is no such op or more than one exit.
fn region(transpose: Op) -> Option<(Vec<Op>, Val)> {
    let mut inside: Vec<Val> = vec![transpose.result(0)];
    let mut region: Vec<Op> = Vec::new();
    let mut next = transpose.next();
    for _ in 0..MOST_REGION_OPS {
        let Some(op) = next else { break };
        next = op.next();
        let operands = op.operands();
        let takes = elementwise(op)
            && op.result_count() == 1
            && operands.iter().any(|v| inside.contains(v))
            && operands.iter().all(|&v| inside.contains(&v) || splat(v).is_some());
        if takes {
            inside.push(op.result(0));
            region.push(op);
        }
    }
    // The values read after the region: one, computed in it.
    let mut exits = inside.iter().copied().filter(|v| v.users().iter().any(|user| !region.contains(user)));
    let exit = exits.next()?;
    (exits.next().is_none() && exit != transpose.result(0)).then_some((region, exit))
}

/// The splat value (`dense<6.000000e+00>`) and element type of a splat vector `arith.constant`.
fn splat(value: Val) -> Option<(String, String)> {
    let constant = value.owner().filter(|op| op.is("arith.constant"))?;
    let (_, element) = vector_shape(value.r#type())?;
    let printed = constant.attribute("value")?.to_string();
    // A splat prints as `dense<6.000000e+00> : vector<32x12xf32>`.
    let (splat, _) = printed.split_once(" : ")?;
    (splat.starts_with("dense<") && !splat.contains('[')).then(|| (splat.to_owned(), element))
}
