//! `strata-dialect-sg` is the `sg` ("strata graph") dialect: ONNX-level tensor ops with static
//! shapes. Its structure is the IRDL file `sg.irdl.mlir` (loaded into the context at run time
//! through [`DIALECT`]); the typed builders and accessors ([`Conv2d`], [`Relu`], ...) are
//! generated from that file by `build.rs` (with `strata-irdl-gen`); [`verify`] checks what IRDL cannot (shapes,
//! attribute ranges); [`passes`] holds the dialect's Rust passes. It never lowers anything:
//! lowering out of `sg` belongs to `strata-lower`.

use strata_ir::{DialectDef, PassRegistry};

pub use strata_ir::ods::op_name;

pub mod passes;
pub mod verify;

#[cfg(test)]
mod tests;

/// The op table (plain Rust, no MLIR), generated from the same IRDL file.
pub use strata_sg_kinds as kinds;
pub use strata_sg_kinds::{Arg, AttrKind, Elementwise, Form, OpKind, Program, Reduction, ScalarOp};

/// The typed op API, generated from `sg.irdl.mlir`: a wrapper per op, [`SgOp`] over all of
/// them, builders for elementwise ops and reductions.
pub mod ops {
    include!(concat!(env!("OUT_DIR"), "/ops.rs"));
}
pub use ops::*;

/// The f32 value that operand `index` of `matmul` widens, when it is an exact f32 -> f64
/// `sg.cast` and the matmul's right operand is 2-D: the lowering binds such a matmul to the f32
/// value (linalg's matmul widens as it multiplies), so the widened copy is never computed, and
/// `sg-schedule-memory` counts it as nothing. `None` otherwise.
pub fn widened_source<'c, 'a>(
    matmul: melior::ir::operation::OperationRef<'c, 'a>,
    index: usize,
) -> Option<melior::ir::Value<'c, 'a>> {
    use melior::ir::operation::OperationLike;
    use melior::ir::r#type::ShapedTypeLike;
    use melior::ir::ValueLike;
    if !matches!(SgOp::of(matmul), Some(SgOp::Matmul(_))) {
        return None;
    }
    let tensor = |v: melior::ir::Value<'c, 'a>| strata_ir::types::ranked_tensor(v.r#type());
    let elem = |v: melior::ir::Value<'c, 'a>| strata_ir::types::tensor_element_name(v.r#type());
    tensor(matmul.operand(1).ok()?).filter(|b| b.rank() == 2)?;
    let widened = matmul.operand(index).ok()?;
    let cast = strata_ir::rewrite::defining_op(widened).filter(|d| matches!(SgOp::of(*d), Some(SgOp::Cast(_))))?;
    let source = cast.operand(0).ok()?;
    (elem(source).as_deref() == Some("f32") && elem(widened).as_deref() == Some("f64")).then_some(source)
}

impl Fused<'_, '_> {
    /// What the program's elements are reduced by, and over which axes (`reduce`, `axes`);
    /// `None` when they are the result. An unknown `reduce` or one without `axes` is an error.
    pub fn reduction(&self) -> Result<Option<(Reduction, Vec<i64>)>, String> {
        let Some(name) = self.reduce() else {
            return match self.axes() {
                Some(_) => Err("'axes' is only for a reduced program ('reduce')".into()),
                None => Ok(None),
            };
        };
        let Some(&how) = Reduction::ALL.iter().find(|r| r.op().name() == name) else {
            let names: Vec<&str> = Reduction::ALL.iter().map(|r| r.op().name()).collect();
            return Err(format!("'reduce' must be one of {}, not '{name}'", names.join(", ")));
        };
        let axes = self.axes().ok_or("a reduced program ('reduce') needs 'axes'")?;
        Ok(Some((how, axes)))
    }
}

/// The IRDL source of the dialect.
pub const IRDL: &str = include_str!("../sg.irdl.mlir");

/// The dialect, ready to load into a [`strata_ir::StrataContext`].
pub const DIALECT: DialectDef = DialectDef {
    name: "sg",
    irdl_path: "dialects/sg/sg.irdl.mlir",
    irdl: IRDL,
    verify: Some(verify::verify_op),
    register_passes,
};

fn register_passes(registry: &mut PassRegistry) {
    passes::register(registry);
}
