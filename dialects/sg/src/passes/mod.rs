//! The `sg` dialect's Rust passes, one per file.

pub mod accumulate_residuals;
pub mod compose_transposes;
pub mod fold_conv_affine;
pub mod fold_reshapes;
pub mod fold_split_concats;
pub mod fuse_reductions;
pub mod schedule_memory;
pub mod sink_reshapes;
pub mod sink_to_use;
pub mod verify;

use melior::ir::operation::OperationRef;
use melior::ir::r#type::TypeLike;
use melior::ir::{Type, Value, ValueLike};
use strata_ir::{PassContext, PassRegistry, Val};

/// `value`'s convolution when a fold may replace it: its result is f32 and read by nothing
/// else (`sg-fold-conv-affine`, `sg-accumulate-residuals`).
pub(crate) fn sole_f32_conv<'c, 'a>(value: Value<'c, 'a>) -> Option<crate::Conv2d<'c, 'a>> {
    let conv = strata_ir::rewrite::defining_op(value).and_then(crate::Conv2d::cast)?;
    let f32_result = strata_ir::types::tensor_element(value.r#type()).is_some_and(|e| e.is_f32());
    (f32_result && Val::of(value).users().len() == 1).then_some(conv)
}

/// A new f32 constant of type `ty` holding `values` (a `dense_resource` blob named after
/// `name`), inserted before `anchor`.
pub(crate) fn insert_f32_constant<'c>(
    cx: &PassContext<'c>,
    anchor: OperationRef<'c, '_>,
    ty: Type<'c>,
    name: &str,
    values: &[f32],
) -> Option<Val> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let attribute = strata_ir::resource::dense_resource(ty, name, &bytes);
    strata_ir::rewrite::constant_before(cx.strata().mlir(), anchor, ty, attribute)
}

/// Registers every pass of this module.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&verify::INFO, verify::create);
    registry.register(&compose_transposes::INFO, compose_transposes::create);
    registry.register(&fold_reshapes::INFO, fold_reshapes::create);
    registry.register(&fold_split_concats::INFO, fold_split_concats::create);
    registry.register(&sink_reshapes::INFO, sink_reshapes::create);
    registry.register(&fold_conv_affine::INFO, fold_conv_affine::create);
    registry.register(&accumulate_residuals::INFO, accumulate_residuals::create);
    registry.register(&sink_to_use::INFO, sink_to_use::create);
    registry.register(&fuse_reductions::INFO, fuse_reductions::create);
    registry.register(&schedule_memory::INFO, schedule_memory::create);
}
