//! `sg-fold-conv-affine`: a per-channel scale or shift of a convolution's result folds into
//! the convolution's constant weights and bias: `mul(conv(x, w, b), s)` becomes
//! `conv(x, w * s, b * s)` and `add(conv(x, w, b), t)` becomes `conv(x, w, b + t)`.
//!
//! This is what an exporter's Conv + BatchNormalization (imported as a multiply and an add by
//! per-channel constants) costs when it is not folded at export time: two elementwise passes,
//! and, worse, a residual add that no longer follows a convolution directly
//! (`sg-accumulate-residuals`, which runs after this pass, then finds it).
//!
//! Folded when the convolution's result has no other reader, is f32, its weights are an f32
//! constant, its bias (if any) an f32 constant `[F]`, and the other operand an f32 constant
//! with one value per output channel (`[F, 1, 1]`, `[1, F, 1, 1]`) or one value in all
//! (`[]`, `[1]`, ...). The products and sums are computed once, in f32, at compile time (the
//! values are those of the two ops up to the rounding of the reassociated product). The new
//! convolution takes the folded op's place and both locations.

use crate::{Add, Conv2d, Mul};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::{RankedTensorType, ShapedTypeLike, TypeLike};
use melior::ir::{BlockLike, Location, Type, Value, ValueLike};
use strata_ir::rewrite::{collect, defining_op, erase_if_unused};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-fold-conv-affine",
    summary: "Fold a per-channel scale or shift of a convolution's result (an unfolded BatchNormalization) into its constant weights and bias",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "scales-folded", help: "Multiplies folded into a convolution's weights and bias" },
        StatisticInfo { name: "shifts-folded", help: "Adds folded into a convolution's bias" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(FoldConvAffine)
}

struct FoldConvAffine;

/// The f32 values of `value` when it is an `arith.constant` (or a reshape of one: the same
/// values in the same order, as `sg-sink-reshapes` makes them), with its shape.
fn constant_f32(value: Value<'_, '_>) -> Option<(Vec<f32>, Vec<i64>)> {
    let source = defining_op(value).and_then(crate::Reshape::cast).map_or(value, |r| r.input());
    let constant = defining_op(source).filter(|d| strata_ir::ods::op_name(*d) == "arith.constant")?;
    let ty = strata_ir::types::ranked_tensor(value.r#type())?;
    if !ty.element().is_f32() {
        return None;
    }
    let values = strata_ir::resource::f32_values(constant.attribute("value").ok()?)?;
    Some((values, crate::verify::shape(value)))
}

/// One value per output channel of a result with `features` channels, from a constant
/// broadcast against `[N, F, H, W]`: `[F, 1, 1]`, `[1, F, 1, 1]`, or a single value.
fn per_channel(value: Value<'_, '_>, features: usize) -> Option<Vec<f32>> {
    let (values, shape) = constant_f32(value)?;
    if values.len() == 1 {
        return Some(vec![values[0]; features]);
    }
    let channel_axis = shape.len().checked_sub(3)?;
    let only_channels =
        shape.iter().enumerate().all(|(axis, &d)| if axis == channel_axis { d as usize == features } else { d == 1 });
    (only_channels && shape.len() <= 4 && values.len() == features).then_some(values)
}

/// `op`'s operands as (convolution, other) when one is a convolution the fold may replace.
fn conv_and_other<'c, 'a>(lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Option<(Conv2d<'c, 'a>, Value<'c, 'a>)> {
    [(lhs, rhs), (rhs, lhs)].into_iter().find_map(|(conv, other)| Some((super::sole_f32_conv(conv)?, other)))
}

impl Pass for FoldConvAffine {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for raw in collect(&func, |op| Mul::cast(op.get()).is_some() || Add::cast(op.get()).is_some()) {
            let op = raw.get();
            let scale = Mul::cast(op).is_some();
            let (lhs, rhs, output) = match (Mul::cast(op), Add::cast(op)) {
                (Some(m), _) => (m.lhs(), m.rhs(), m.output()),
                (_, Some(a)) => (a.lhs(), a.rhs(), a.output()),
                _ => continue,
            };
            let Some((conv, other)) = conv_and_other(lhs, rhs) else { continue };
            if output.r#type() != conv.output().r#type() {
                continue;
            }
            let features = crate::verify::shape(conv.filter()).first().copied().unwrap_or(0) as usize;
            let Some(factors) = per_channel(other, features) else { continue };
            // The bias: absent, or a constant [F].
            let bias = match conv.bias() {
                None => None,
                Some(b) => match constant_f32(b) {
                    Some((values, shape)) if shape == [features as i64] => Some(values),
                    _ => continue,
                },
            };
            let (weights, bias_values) = if scale {
                let Some((mut w, _)) = constant_f32(conv.filter()) else { continue };
                let per_filter = w.len() / features.max(1);
                for (f, chunk) in w.chunks_mut(per_filter.max(1)).enumerate() {
                    chunk.iter_mut().for_each(|v| *v *= factors[f]);
                }
                let b = bias.as_ref().map(|values| values.iter().zip(&factors).map(|(b, s)| b * s).collect());
                (Some(w), b)
            } else {
                let b: Vec<f32> = match &bias {
                    Some(values) => values.iter().zip(&factors).map(|(b, t)| b + t).collect(),
                    None => factors,
                };
                (None, Some(b))
            };
            let Some(block) = op.block() else { continue };
            let filter = match &weights {
                Some(w) => match super::insert_f32_constant(cx, op, conv.filter().r#type(), "folded", w) {
                    Some(v) => v,
                    None => continue,
                },
                None => Val::of(conv.filter()),
            };
            let bias_value = match bias_values {
                Some(b) => {
                    let ty: Type = RankedTensorType::new(&[features as u64], Type::float32(context), None).into();
                    match super::insert_f32_constant(cx, op, ty, "folded", &b) {
                        Some(v) => Some(v),
                        None => continue,
                    }
                }
                None => None,
            };
            let location =
                Location::fused(context, &[conv.op().location(), op.location()], melior::ir::Attribute::unit(context));
            let folded = Conv2d::build(
                context,
                location,
                conv.input(),
                filter.get(),
                bias_value.map(|b| b.get()),
                &conv.strides(),
                &conv.pads(),
                &conv.dilations(),
                conv.group(),
                output.r#type(),
            );
            let folded = block.insert_operation_before(op, folded);
            let (this, conv_op) = (Op::of(&op), Op::of(&conv.op()));
            let replaced: Vec<Option<Op>> = [Some(conv.filter()), conv.bias(), Some(other)]
                .into_iter()
                .map(|v| v.and_then(|v| Val::of(v).owner()))
                .collect();
            this.result(0).replace_all_uses_with(Val::of(folded.result(0).expect("one result")));
            // Safety: the folded op's uses are replaced and the convolution's only reader was
            // it; neither is used after this, nor are the constants they alone read.
            unsafe {
                this.erase();
                conv_op.erase();
                for constant in replaced.into_iter().flatten() {
                    if constant.is("arith.constant") {
                        erase_if_unused(constant);
                    }
                }
            }
            cx.bump(if scale { "scales-folded" } else { "shifts-folded" }, 1);
        }
        Ok(())
    }
}
