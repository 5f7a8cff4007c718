//! `strata-cpu-schedule`: applies Strata's host schedule (`schedules/cpu-loop-order.mlir`, a
//! transform-dialect script) to the module with MLIR's transform interpreter. Today the
//! schedule fixes loop order: the pass marks the ops whose reduction and kernel-window loops
//! should run outside (`strata.loop_order = "reduction_outer"`, chosen by
//! [`reduction_outer`] from the op's shapes), and the script interchanges exactly those, so
//! their innermost loop walks contiguous output memory and vectorises.
//!
//! The pass appends the script as a nested `transform.with_named_sequence` module, runs
//! `transform-interpreter` on the module, and removes the script again.

use crate::ops::tensor_type;
use melior::ir::attribute::{AttributeLike, StringAttribute};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use melior::StringRef;
use strata_ir::rewrite::collect;
use melior::ir::BlockLike;
use melior::pass::PassManager as MlirPassManager;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions};

/// The schedule script.
pub const SCHEDULE: &str = include_str!("../schedules/cpu-loop-order.mlir");

/// Whether `op` runs faster with its reduction loops outside its contiguous output loops.
/// Measured single-threaded on every convolution shape of MobileNetV2 and on BERT-tiny:
/// depthwise convolutions and pooling always (8-17x); other convolutions when the reduction
/// per output (input channels per group x window) is at least 64 (up to 16x; below that the
/// dot product innermost wins, up to 2.3x); matmuls whose rows are at least 32 wide (3x on
/// BERT-tiny). This is a stop-gap until kernels are tiled and vectorised explicitly.
pub fn reduction_outer(op: OperationRef<'_, '_>) -> bool {
    let name = strata_ir::ods::op_name(op);
    let shape = |index: usize| op.operand(index).ok().and_then(|v| tensor_type(v.r#type()).ok()).map(|t| t.shape);
    match name.as_str() {
        "linalg.depthwise_conv_2d_nchw_chw" | "linalg.pooling_nchw_max" | "linalg.pooling_nchw_sum" => true,
        // Filter: F x C/g x KH x KW, or G x F/g x C/g x KH x KW.
        "linalg.conv_2d_nchw_fchw" | "linalg.conv_2d_ngchw_gfchw" => shape(1).is_some_and(|filter| filter.iter().rev().take(3).product::<i64>() >= 64),
        "linalg.matmul" | "linalg.batch_matmul" => shape(2).and_then(|out| out.last().copied()).is_some_and(|n| n >= 32),
        _ => false,
    }
}

pub static INFO: PassInfo = PassInfo {
    name: "strata-cpu-schedule",
    summary: "Apply the host loop-order schedule (a transform-dialect script) with MLIR's transform interpreter",
    anchor: "builtin.module",
    options: &[],
    statistics: &[],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(CpuSchedule)
}

struct CpuSchedule;

impl Pass for CpuSchedule {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let strata = cx.strata();
        let mark = StringAttribute::new(strata.mlir(), "reduction_outer");
        for raw in collect(module, |op| reduction_outer(op)) {
            unsafe { mlir_sys::mlirOperationSetDiscardableAttributeByName(raw, StringRef::new("strata.loop_order").to_raw(), mark.to_raw()) };
        }
        // Wrapped, so that the script's own (attributed) module is an op that can move.
        let script = match strata.parse(&format!("module {{\n{SCHEDULE}\n}}"), "schedules/cpu-loop-order.mlir") {
            Ok(script) => script,
            Err(error) => {
                cx.emit_op_error(module, format!("internal error: the schedule does not parse: {error}"));
                return Err(PassFailed);
            }
        };
        let Some(schedule) = script.body().first_operation() else {
            cx.emit_op_error(module, "internal error: the schedule is empty");
            return Err(PassFailed);
        };
        let body = unsafe { mlir_sys::mlirRegionGetFirstBlock(mlir_sys::mlirOperationGetRegion(module.to_raw(), 0)) };
        let schedule = schedule.to_raw();
        // Safety: the schedule op moves from `script` into the payload module and is erased
        // from there below; `script` is dropped empty.
        unsafe {
            mlir_sys::mlirOperationRemoveFromParent(schedule);
            mlir_sys::mlirBlockAppendOwnedOperation(body, schedule);
        }
        let pm = MlirPassManager::new(strata.mlir());
        let parsed = melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), "builtin.module(transform-interpreter)");
        let outcome = parsed.is_ok() && unsafe { mlir_sys::mlirPassManagerRunOnOp(pm.to_raw(), module.to_raw()) }.value != 0;
        unsafe { mlir_sys::mlirOperationDestroy(schedule) };
        if outcome {
            Ok(())
        } else {
            cx.emit_op_error(module, "the host schedule failed to apply (see the diagnostics above)");
            Err(PassFailed)
        }
    }
}
