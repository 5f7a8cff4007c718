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
//! Taken: a `vector.transpose` of a 2-D vector (permutation `[1, 0]`) whose only user is an
//! elementwise op (`arith`'s float arithmetic and conversions, `math`'s functions) whose
//! other operands are splat `arith.constant`s, when the transpose's source takes fewer
//! 512-bit registers than its result. That op is rebuilt on the source (the constants rebuilt
//! in its shape, its attributes kept) and transposed after; then the new transpose is looked
//! at the same way. The values are the same element by element: the results are the same bits.
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

/// Moves the one elementwise user of `transpose` above it (see the module's comment); returns
/// the new transpose, or `None` where the pattern does not apply.
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
    let users = result.users();
    let [user] = users.as_slice() else { return None };
    let user = *user;
    if !elementwise(user) || user.result_count() != 1 {
        return None;
    }
    // The user's other operands are splat constants: each one's value and element type,
    // checked before anything is built (a refusal leaves the IR as it was).
    let mut splats: Vec<Option<(String, String)>> = Vec::with_capacity(user.operand_count());
    for operand in user.operands() {
        if operand == result {
            splats.push(None);
            continue;
        }
        let constant = operand.owner().filter(|op| op.is("arith.constant"))?;
        let (_, element) = vector_shape(operand.r#type())?;
        let value = constant.attribute("value")?.to_string();
        // A splat prints as `dense<6.000000e+00> : vector<32x12xf32>`.
        let (splat, _) = value.split_once(" : ")?;
        if !splat.starts_with("dense<") || splat.contains('[') {
            return None;
        }
        splats.push(Some((splat.to_owned(), element)));
    }
    // The operands on the source's shape: the transpose's source, the constants rebuilt.
    let source_shape = |element: &str| format!("vector<{}x{}x{element}>", source_dims[0], source_dims[1]);
    let mut operands: Vec<Val> = Vec::with_capacity(splats.len());
    for splat in splats {
        operands.push(match splat {
            None => source,
            Some((splat, element)) => {
                let ty = source_shape(&element);
                build(context, user, "arith.constant", &[], &ty, &[("value", format!("{splat} : {ty}"))])?
            }
        });
    }
    let (_, user_element) = vector_shape(user.result(0).r#type())?;
    let attributes: Vec<(String, String)> = user
        .get()
        .attributes()
        .filter_map(|(name, value)| Some((name.as_string_ref().as_str().ok()?.to_owned(), value.to_string())))
        .collect();
    let attributes: Vec<(&str, String)> =
        attributes.iter().map(|(name, value)| (name.as_str(), value.clone())).collect();
    let computed = build(context, user, &user.name(), &operands, &source_shape(&user_element), &attributes)?;
    let ty = user.result(0).r#type().to_string();
    let moved = build(context, user, "vector.transpose", &[computed], &ty, &[("permutation", permutation)])?;
    user.result(0).replace_all_uses_with(moved);
    // Safety: `user` has no uses left and no handle to it is used again; the transpose and
    // the constants it read are erased only when nothing else reads them.
    let constants: Vec<Op> =
        user.operands().into_iter().filter_map(|v| v.owner().filter(|op| op.is("arith.constant"))).collect();
    unsafe {
        user.erase();
        strata_ir::rewrite::erase_if_unused(transpose);
        for constant in constants {
            strata_ir::rewrite::erase_if_unused(constant);
        }
    }
    moved.owner()
}
