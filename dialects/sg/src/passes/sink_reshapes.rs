//! `sg-sink-reshapes`: an elementwise op on a reshape that drops trailing unit axes runs before
//! the reshape instead: `f(reshape(x), c)` with `x : [.., L, 1]` and the reshape `[.., L]`
//! becomes `reshape(f(x, reshape(c)))`, each other operand given the same trailing unit axes.
//!
//! A 1-D convolution or pool is imported as the 2-D one over a trailing unit axis, its result
//! reshaped back (`crates/frontend/src/conv.rs`). What follows it (a BatchNormalization's
//! scale and shift, a bias, a ReLU) then reads the reshape, not the convolution, so the passes
//! that look for a convolution's reader missed it: `sg-fold-conv-affine` did not fold the
//! BatchNormalization into the weights, `sg-accumulate-residuals` did not find a residual add,
//! and the e-graph fused no epilogue (its epilogue rule needs the kernel's own result). Sunk,
//! the chain reads the convolution directly and the reshape sits after it, where it is a view.
//!
//! Sound because appending unit axes changes no element's row-major position, and right-aligned
//! broadcasting of an operand `[.., K]` against `[.., L]` is that of `[.., K, 1]` against
//! `[.., L, 1]`; a rank-0 operand broadcasts against either. Only ops whose result has the
//! reshape's shape are rewritten (the reshape is not the broadcast operand). The new op takes
//! the old one's location; the old reshape goes when nothing else reads it.

use crate::Reshape;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::{RankedTensorType, ShapedTypeLike};
use melior::ir::{BlockLike, Type, Value, ValueLike};
use strata_ir::rewrite::{collect, erase_if_unused};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-sink-reshapes",
    summary: "Run elementwise ops before a reshape that drops trailing unit axes (a 1-D convolution's result), so they read the convolution",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "sunk", help: "Elementwise ops moved before a reshape" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(SinkReshapes)
}

struct SinkReshapes;

/// How many trailing unit axes `x`'s shape has beyond `reshaped` (`x = reshaped ++ [1; n]`,
/// `n >= 1`), if that is all the reshape does.
fn trailing_units(x: &[i64], reshaped: &[i64]) -> Option<usize> {
    let n = x.len().checked_sub(reshaped.len()).filter(|&n| n > 0)?;
    (x[..reshaped.len()] == *reshaped && x[reshaped.len()..].iter().all(|&d| d == 1)).then_some(n)
}

/// A tensor type of `shape` with `like`'s element type.
fn tensor_like<'c>(like: Type<'c>, shape: &[i64]) -> Option<Type<'c>> {
    let element = RankedTensorType::try_from(like).ok()?.element();
    let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    Some(RankedTensorType::new(&dims, element, None).into())
}

impl Pass for SinkReshapes {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        let mut work: Vec<Op> = collect(&func, |op| Reshape::cast(op.get()).is_some());
        while let Some(raw) = work.pop() {
            let reshape = Reshape::cast(raw.get()).expect("collected reshapes");
            let (source, result) = (reshape.input(), reshape.output());
            let shape = crate::verify::shape(result);
            let Some(units) = trailing_units(&crate::verify::shape(source), &shape) else { continue };
            // Each reader once (an op may read the reshape twice, `mul(r, r)`).
            let mut users = Val::of(result).users();
            users.sort_by_key(|u| u.raw().ptr as usize);
            users.dedup();
            for user in users {
                let Some(crate::SgOp::Elementwise(op)) = crate::SgOp::of(user.get()) else { continue };
                let output = op.output();
                if crate::verify::shape(output) != shape {
                    continue;
                }
                let Some(block) = op.op().block() else { continue };
                let location = op.op().location();
                let Some(wide_type) = tensor_like(output.r#type(), &crate::verify::shape(source)) else { continue };
                // Each operand as the wide op reads it: the reshape's source for the reshape, a
                // scalar as it is, any other with the trailing unit axes (its type found before
                // any op is made, so that nothing is left behind when one has none).
                let widened: Option<Vec<(Value, Option<Type>)>> = (0..op.op().operand_count())
                    .map(|i| {
                        let operand = op.operand(i);
                        let mut extended = crate::verify::shape(operand);
                        if operand == result {
                            return Some((source, None));
                        }
                        if extended.is_empty() {
                            return Some((operand, None));
                        }
                        extended.resize(extended.len() + units, 1);
                        Some((operand, Some(tensor_like(operand.r#type(), &extended)?)))
                    })
                    .collect();
                let Some(widened) = widened else { continue };
                let operands: Vec<Value> = widened
                    .into_iter()
                    .map(|(value, ty)| match ty {
                        None => value,
                        Some(ty) => block
                            .insert_operation_before(op.op(), Reshape::build(context, location, value, ty))
                            .result(0)
                            .expect("one result")
                            .into(),
                    })
                    .collect();
                let wide = crate::build_elementwise(context, location, op.scalar(), &operands, wide_type);
                let wide: Value = block.insert_operation_before(op.op(), wide).result(0).expect("one result").into();
                let back =
                    block.insert_operation_before(op.op(), Reshape::build(context, location, wide, output.r#type()));
                let back_value: Value = back.result(0).expect("one result").into();
                let old = Op::of(&op.op());
                old.result(0).replace_all_uses_with(Val::of(back_value));
                // Safety: every use of the old op was replaced; it is not used after this.
                unsafe { old.erase() };
                cx.bump("sunk", 1);
                // What read the old op now reads the new reshape: sink it in turn.
                work.push(Op::of(&back));
            }
            // Safety: `raw` is erased only when nothing reads it, and not used afterwards.
            unsafe { erase_if_unused(raw) };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::trailing_units;

    #[test]
    fn only_trailing_unit_axes_count() {
        assert_eq!(trailing_units(&[1, 16, 64, 1], &[1, 16, 64]), Some(1));
        assert_eq!(trailing_units(&[2, 3, 1, 1], &[2, 3]), Some(2));
        assert_eq!(trailing_units(&[1, 16, 64], &[1, 16, 64]), None);
        assert_eq!(trailing_units(&[1, 1, 16, 64], &[1, 16, 64]), None);
        assert_eq!(trailing_units(&[16, 64, 1], &[1024, 1]), None);
    }
}
