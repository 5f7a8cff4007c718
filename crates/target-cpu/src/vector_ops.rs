//! What the passes that rewrite vector ops in place share (`conv_outer`, `strata-vector-rows`):
//! reading a vector type's shape, naming a position of its leading dimensions, printing an
//! `array<i64: ...>`, and building an op from printed types and attributes.

use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{Attribute, BlockLike, Identifier, Type};
use melior::Context;
use strata_ir::{Op, Val};

/// The dimensions and element type (printed, `f32`) of a static vector type (`vector<8x32xf32>`).
pub(crate) fn vector_shape(ty: Type<'_>) -> Option<(Vec<i64>, String)> {
    let (dims, element) = strata_ir::types::vector_shape(ty)?;
    Some((dims, strata_ir::types::type_name(element)))
}

/// The `static_position` attribute (printed) of the `flat`-th index, row-major, of the
/// dimensions `outer`.
pub(crate) fn position(flat: i64, outer: &[i64]) -> String {
    let mut index = vec![0i64; outer.len()];
    let mut rest = flat;
    for (d, &size) in outer.iter().enumerate().rev() {
        index[d] = rest % size;
        rest /= size;
    }
    i64_array(index)
}

/// A printed `array<i64: ...>` attribute of `values`.
pub(crate) fn i64_array(values: impl IntoIterator<Item = i64>) -> String {
    format!("array<i64: {}>", values.into_iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
}

/// Builds `name` with `operands`, one result of type `ty` and the attributes `attributes`
/// (name, printed value) before `before`, at its location.
pub(crate) fn build(
    context: &Context,
    before: Op,
    name: &str,
    operands: &[Val],
    ty: &str,
    attributes: &[(&str, String)],
) -> Option<Val> {
    let anchor = before.get();
    let operands: Vec<melior::ir::Value> = operands.iter().map(|v| v.get()).collect();
    let attributes: Vec<(Identifier, Attribute)> = attributes
        .iter()
        .map(|(name, value)| Some((Identifier::new(context, name), Attribute::parse(context, value)?)))
        .collect::<Option<_>>()?;
    let op = OperationBuilder::new(name, anchor.location())
        .add_operands(&operands)
        .add_results(&[Type::parse(context, ty)?])
        .add_attributes(&attributes)
        .build()
        .ok()?;
    Some(Val::from(anchor.block()?.insert_operation_before(anchor, op).result(0).ok()?))
}

/// Builds `name` with `operands` and no result or attribute before `before`, at its location.
pub(crate) fn build_void(before: Op, name: &str, operands: &[Val]) -> Option<()> {
    let anchor = before.get();
    let operands: Vec<melior::ir::Value> = operands.iter().map(|v| v.get()).collect();
    let op = OperationBuilder::new(name, anchor.location()).add_operands(&operands).build().ok()?;
    anchor.block()?.insert_operation_before(anchor, op);
    Some(())
}
