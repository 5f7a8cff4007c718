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
    /// The padding value as a number.
    pub number: f64,
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
        elem.is_float().then_some(())?;
        let number = float_value(defining_op(yielded)?)?;
        Some(Pad { source, low, value: elem.literal(number), number })
    }
}

/// The literal of an `arith.constant` float scalar, as an `elem` (a float type).
pub fn float_constant(op: OperationRef<'_, '_>, elem: &Elem) -> Option<String> {
    elem.is_float().then_some(())?;
    Some(elem.literal(float_value(op)?))
}

/// The value of an `arith.constant` float scalar.
fn float_value(op: OperationRef<'_, '_>) -> Option<f64> {
    if strata_ir::ods::op_name(op) != "arith.constant" {
        return None;
    }
    Some(FloatAttribute::try_from(op.attribute("value").ok()?).ok()?.value())
}

/// The clamps `op` applies to `value` in place: `op` is a rank-4 elementwise `linalg.generic`
/// (parallel loops, identity maps) whose input and output are both `value`, and its body is a
/// [`clamp_chain`] of `elem`.
pub fn clamp_in_place(op: strata_ir::Op, value: strata_ir::Val, elem: &str) -> Option<Vec<(String, String)>> {
    elementwise_in_place(op, value).then_some(())?;
    clamp_chain(op.body(0)?, elem)
}

/// Whether `op` is a 4-D elementwise `linalg.generic` that reads `value` and writes it back
/// in place (`ins(%v) outs(%v)`, identity maps, every loop parallel).
pub fn elementwise_in_place(op: strata_ir::Op, value: strata_ir::Val) -> bool {
    if !op.is("linalg.generic") || op.operand_count() != 2 || op.operand(0) != value || op.operand(1) != value {
        return false;
    }
    let identity = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>";
    let parallel = op.attribute("iterator_types").is_some_and(|i| !i.to_string().contains("reduction"));
    parallel && op.attribute("indexing_maps").is_some_and(|m| m.to_string() == format!("[{identity}, {identity}]"))
}

/// The clamps the body of an elementwise `linalg.generic` applies to its first argument: a
/// chain of `arith.maximumf`/`minimumf`/`maxnumf`/`minnumf`, each of the running value and an
/// `arith.constant` of `elem` (a float type's spelling) without fast-math flags, the last one
/// yielded. Returns each `(op name, literal)` in order; `None` when the body does anything
/// else, or nothing (a ReLU, a ReLU6 and a Clip are one or two clamps).
pub fn clamp_chain(body: strata_ir::Blk, elem: &str) -> Option<Vec<(String, String)>> {
    const CLAMPS: [&str; 4] = ["arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf"];
    let mut value = body.argument(0);
    let mut ops = Vec::new();
    for op in body.ops() {
        if op.is("linalg.yield") {
            return (op.operand_count() == 1 && op.operand(0) == value && !ops.is_empty()).then_some(ops);
        }
        let name = op.name();
        if !CLAMPS.contains(&name.as_str())
            || op.operand_count() != 2
            || op.attribute("fastmath").is_some_and(|f| !f.to_string().contains("none"))
        {
            return None;
        }
        let other = if op.operand(0) == value {
            op.operand(1)
        } else if op.operand(1) == value {
            op.operand(0)
        } else {
            return None;
        };
        let constant = other.owner().filter(|c| c.is("arith.constant"))?.attribute("value")?.to_string();
        ops.push((name, constant.strip_suffix(&format!(" : {elem}"))?.to_owned()));
        value = op.result(0);
    }
    None
}

/// How a convolution's accumulator starts.
pub enum Init<'c, 'a> {
    /// `linalg.fill` of a float constant (its literal).
    Fill(String),
    /// The per-filter bias broadcast (a `linalg.generic` reading a `F` tensor at `d1`).
    Bias(OperationRef<'c, 'a>),
}

impl<'c, 'a> Init<'c, 'a> {
    pub fn of(op: OperationRef<'c, 'a>) -> Option<Init<'c, 'a>> {
        match strata_ir::ods::op_name(op).as_str() {
            "linalg.fill" => Some(Init::Fill(float_constant(defining_op(op.operand(0).ok()?)?, &Elem::new("f32"))?)),
            "linalg.generic" => {
                let input = tensor_type(op.operand(0).ok()?.r#type()).ok()?;
                let region = op.region(0).ok()?;
                let block = region.first_block()?;
                let yield_op = block.first_operation()?;
                let forwards = strata_ir::ods::op_name(yield_op) == "linalg.yield"
                    && yield_op.operand(0).ok()?.to_raw().ptr == block.argument(0).ok()?.to_raw().ptr;
                let maps = op.attribute("indexing_maps").ok()?.to_string();
                let bias_map = maps.starts_with(BIAS_MAPS);
                (op.operand_count() == 2 && input.rank() == 1 && forwards && bias_map).then_some(Init::Bias(op))
            }
            _ => None,
        }
    }
}

/// The indexing maps of a bias broadcast over an NCHW result: the `F` bias at `d1`.
const BIAS_MAPS: &str = "[affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]";

/// The text of the broadcast [`Init::of`] takes for a bias: `bias` (of type `bias_ty`, `F`)
/// over `empty` (of type `out_ty`, NCHW), with `attributes` (discardable ones, `name = value`)
/// if not empty. The kernels that make each part's or tile's own initial value emit it.
pub fn bias_broadcast(bias: &str, bias_ty: &str, empty: &str, out_ty: &str, attributes: &str) -> String {
    let extra = if attributes.is_empty() { String::new() } else { format!(", {attributes}") };
    format!(
        "linalg.generic {{indexing_maps = {BIAS_MAPS}, iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"]{extra}}} ins({bias} : {bias_ty}) outs({empty} : {out_ty}) {{\n    ^bb0(%b: f32, %o: f32):\n      linalg.yield %b : f32\n    }} -> {out_ty}"
    )
}

/// The bias an [`Init::Bias`] broadcast reads.
pub fn bias_value<'c, 'a>(generic: OperationRef<'c, 'a>) -> melior::ir::Value<'c, 'a> {
    generic.operand(0).expect("checked by Init::of")
}
