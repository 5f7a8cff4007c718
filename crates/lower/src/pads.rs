//! Recognising what lowered kernels leave behind for later passes: a `tensor.pad` with static
//! amounts and a constant padding value (the padding of convolutions and pools), and float
//! constants. The host schedule blocks convolutions over such pads; `strata-pad-in-place`
//! produces padded values in place.

use crate::kernel::Elem;
use crate::ops::tensor_type;
use melior::ir::attribute::FloatAttribute;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, RegionLike, Value, ValueLike};
use strata_ir::rewrite::defining_op;

/// A `tensor.pad` of floats with static amounts and a constant as the padding value.
pub struct Pad<'c, 'a> {
    pub source: Value<'c, 'a>,
    pub low: Vec<i64>,
    /// The padding value, a literal of the source's element type.
    pub value: String,
}

impl<'c, 'a> Pad<'c, 'a> {
    pub fn of(op: OperationRef<'c, 'a>) -> Option<Pad<'c, 'a>> {
        if strata_ir::ods::op_name(op) != "tensor.pad" || op.operand_count() != 1 {
            return None;
        }
        // Static amounts only (a dynamic one is i64::MIN).
        let amounts = |name: &str| strata_ir::ods::i64_array(op, name).filter(|v| v.iter().all(|&p| p >= 0));
        let (low, _high) = (amounts("static_low")?, amounts("static_high")?);
        let region = op.region(0).ok()?;
        let yielded = region.first_block()?.terminator()?.operand(0).ok()?;
        let source = op.operand(0).ok()?;
        let elem = tensor_type(source.r#type()).ok()?.elem;
        let value = float_constant(defining_op(yielded)?, &elem)?;
        Some(Pad { source, low, value })
    }
}

/// The literal of an `arith.constant` float scalar, as an `elem` (a float type).
pub fn float_constant(op: OperationRef<'_, '_>, elem: &Elem) -> Option<String> {
    if !elem.is_float() || strata_ir::ods::op_name(op) != "arith.constant" {
        return None;
    }
    let number = FloatAttribute::try_from(op.attribute("value").ok()?).ok()?.value();
    Some(elem.literal(number))
}
