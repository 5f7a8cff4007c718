//! `strata-pad-in-place`: a padded value is made as a fill of its padded buffer with its
//! source inserted into the interior, so that its producer may write there.
//!
//! Each `tensor.pad` with static amounts and a constant padding value becomes `linalg.fill` of
//! a new padded tensor plus `tensor.insert_slice` of the source into it. Whether the source's
//! producer then writes straight into the padded buffer's interior (`eliminate-empty-tensors`,
//! run after it by the driver's planning pipeline) is `strata-choose-in-place`'s decision, by
//! the peak it leads to: MobileNetV2's peak (an expanded activation plus its padded copy for
//! the depthwise convolution) drops by the activation. A source that other ops read too (a
//! residual block's input, both padded for its convolution and added after it) would keep the
//! padded buffer alive until the last of them: the chooser copies it instead, and the fill is
//! then narrowed to the ring around the copy (`strata-pad-rings`), which a `tensor.pad` (filled
//! whole, then copied into) never was. Such sources used to keep their `tensor.pad`: ResNet-18
//! filled 0.86 MB three times a run that the copy overwrote.

use melior::ir::operation::OperationRef;
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::{Kernel, KernelCache};
use strata_lower::ops::tensor_type;
use strata_lower::pads::Pad;

pub static INFO: PassInfo = PassInfo {
    name: "strata-pad-in-place",
    summary: "Pads become fill + insert_slice, so that the source may be produced inside its padded buffer",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "pads-in-place", help: "tensor.pad ops rewritten as fill + insert_slice" },
        StatisticInfo {
            name: "pads-kept",
            help: "tensor.pad ops kept (dynamic amounts, or a padding value that is not a float constant)",
        },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(PadInPlace)
}

struct PadInPlace;

impl Pass for PadInPlace {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        for raw in collect(&func, |op| op.is("tensor.pad")) {
            let op = raw.get();
            let pad = Pad::of(op);
            let types = op
                .result(0)
                .ok()
                .and_then(|r| tensor_type(r.r#type()).ok())
                .zip(pad.as_ref().and_then(|p| tensor_type(p.source.r#type()).ok()));
            let (Some(pad), Some((out, source))) = (pad, types) else {
                cx.bump("pads-kept", 1);
                continue;
            };
            let mut k = Kernel::new(vec![source]);
            let result = k.padded_into_filled(0, &pad.value, &pad.low, &out);
            k.set_result(result, out);
            let text = format!("module {{\n{}}}\n", k.function("pad"));
            // Safety: `op` is a pad of this function, replaced once and not used afterwards.
            unsafe { kernels.replace_op(cx, op, &text, "padding kernel")? };
            cx.bump("pads-in-place", 1);
        }
        Ok(())
    }
}
