//! `strata-pad-in-place`: a padded value whose source has no other reader is produced inside
//! its padded buffer.
//!
//! Each `tensor.pad` with static amounts and a constant padding value, whose source is read by
//! nothing else, becomes `linalg.fill` of a new padded tensor plus `tensor.insert_slice` of the
//! source into it. `eliminate-empty-tensors` (run after it by the driver's planning pipeline)
//! then lets the source's producer write straight into the padded buffer's interior, so the
//! source and
//! its padded copy never exist side by side: MobileNetV2's peak (an expanded activation plus
//! its padded copy for the depthwise convolution) drops by the activation.
//!
//! A source with other readers keeps its `tensor.pad`: its padded buffer would have to live
//! from the producer to the last of those readers, which costs more memory than the copy.

use melior::ir::operation::OperationRef;
use melior::ir::ValueLike;
use strata_ir::rewrite::collect;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::kernel::{Kernel, KernelCache};
use strata_lower::ops::tensor_type;
use strata_lower::pads::Pad;

pub static INFO: PassInfo = PassInfo {
    name: "strata-pad-in-place",
    summary: "Pads whose source has no other reader become fill + insert_slice, so that the source is produced inside its padded buffer",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "pads-in-place", help: "tensor.pad ops rewritten as fill + insert_slice" },
        StatisticInfo { name: "pads-kept", help: "tensor.pad ops kept (their source has other readers, or the padding is not a constant)" },
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
            let pad = Pad::of(op).filter(|p| strata_ir::Val::of(p.source).users().len() == 1);
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
