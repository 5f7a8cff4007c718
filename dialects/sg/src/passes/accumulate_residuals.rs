//! `sg-accumulate-residuals`: a residual added to a convolution's result,
//! `add(conv(x, w, b), r)`, becomes `conv(x, w, r) + b`: the convolution starts its sums from
//! the residual instead of from its bias, which is added after.
//!
//! The values are the same up to rounding (the sum is reassociated). What changes is memory:
//! lowered, a convolution accumulates into its initial value, so bufferization writes its
//! result into the residual's buffer when the residual dies there, as it does at the end of
//! a ResNet block. The block's output then needs no buffer of its own beside the residual
//! (ONNX Runtime's and oneDNN's "sum" post-op). The host schedule runs what follows (the
//! bias, a Relu) as an elementwise kernel of its own, not as the convolution's epilogue (see
//! `strata_target_cpu::conv_lanes`).
//!
//! Rewritten when the convolution's result has no other reader, is f32 (an integer
//! convolution accumulates in i32, so its initial value would be a converted copy), and the
//! residual has the result's type (no broadcast). When both addends are such convolutions,
//! the one later in the block takes the other as its residual: the earlier one's result is
//! ready when the later one starts, and it is the one already live. The new convolution
//! takes the add's place and both locations; a `[F]` bias is reshaped to `[F, 1, 1]` and
//! added after it (an elementwise op, which the e-graph fuses with a Relu that follows and
//! writes in place).

use crate::{Add, Conv2d, Reshape};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::{RankedTensorType, ShapedTypeLike};
use melior::ir::{BlockLike, Location, Type, Value, ValueLike};
use std::collections::BTreeMap;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "sg-accumulate-residuals",
    summary: "Fold a residual add into the convolution that feeds it: the convolution accumulates onto the residual",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "folded", help: "Residual adds folded into a convolution" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(AccumulateResiduals)
}

struct AccumulateResiduals;

impl Pass for AccumulateResiduals {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // Each op's place in a walk of the function: which of two convolutions comes later.
        let place: BTreeMap<usize, usize> =
            collect(&func, |_| true).into_iter().enumerate().map(|(i, op)| (op.raw().ptr as usize, i)).collect();
        let at = |op: OperationRef| place.get(&(op.to_raw().ptr as usize)).copied().unwrap_or(0);
        let context = cx.strata().mlir();
        for raw in collect(&func, |op| Add::cast(op.get()).is_some()) {
            let add = Add::cast(raw.get()).expect("collected adds");
            let output_type = add.output().r#type();
            let candidates = [(add.lhs(), add.rhs()), (add.rhs(), add.lhs())];
            let chosen = candidates
                .into_iter()
                .filter_map(|(addend, residual)| Some((super::sole_f32_conv(addend)?, residual)))
                .filter(|(conv, residual)| conv.output().r#type() == output_type && residual.r#type() == output_type)
                .max_by_key(|(conv, _)| at(conv.op()));
            let Some((conv, residual)) = chosen else { continue };
            let Some(block) = add.op().block() else { continue };
            // A bias per filter is added after the sums, as a `[F, 1, 1]` column (one
            // elementwise kernel with what follows, a Relu say), not onto the residual before
            // them (a kernel of its own). An initial value of the result's shape stays as it is.
            let column = match conv.bias() {
                None => None,
                Some(bias) => {
                    match (RankedTensorType::try_from(bias.r#type()), crate::verify::shape(bias).as_slice()) {
                        (Ok(bias_type), &[features]) => Some((
                            bias,
                            Type::from(RankedTensorType::new(&[features as u64, 1, 1], bias_type.element(), None)),
                        )),
                        _ => continue,
                    }
                }
            };
            let location = Location::fused(
                context,
                &[conv.op().location(), add.op().location()],
                melior::ir::Attribute::unit(context),
            );
            let folded = Conv2d::build(
                context,
                location,
                conv.input(),
                conv.filter(),
                Some(residual),
                &conv.strides(),
                &conv.pads(),
                &conv.dilations(),
                conv.group(),
                output_type,
            );
            let folded: Value = block.insert_operation_before(add.op(), folded).result(0).expect("one result").into();
            let result: Value = match column {
                None => folded,
                Some((bias, column)) => {
                    let reshaped =
                        block.insert_operation_before(add.op(), Reshape::build(context, location, bias, column));
                    let reshaped = reshaped.result(0).expect("one result").into();
                    let sum = block.insert_operation_before(
                        add.op(),
                        Add::build(context, location, folded, reshaped, output_type),
                    );
                    sum.result(0).expect("one result").into()
                }
            };
            let (add_op, conv_op) = (Op::of(&add.op()), Op::of(&conv.op()));
            add_op.result(0).replace_all_uses_with(Val::of(result));
            // Safety: the add's only use is replaced, and the convolution's only reader was the
            // add; neither is used after this.
            unsafe {
                add_op.erase();
                conv_op.erase();
            }
            cx.bump("folded", 1);
        }
        Ok(())
    }
}
