//! `strata-dialect-sg` is the `sg` ("strata graph") dialect: ONNX-level tensor ops with static
//! shapes. Its structure is the IRDL file `sg.irdl.mlir` (loaded into the context at run time
//! through [`DIALECT`]); the typed builders and accessors ([`Conv2d`], [`Relu`], ...) are
//! generated from that file by `build.rs`; [`verify`] checks what IRDL cannot (shapes,
//! attribute ranges); [`passes`] holds the dialect's Rust passes. It never lowers anything:
//! lowering out of `sg` belongs to `strata-lower`.

use melior::ir::attribute::{DenseI64ArrayAttribute, IntegerAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::r#type::IntegerType;
use melior::ir::{Identifier, Location, Operation, Type, Value};
use melior::Context;
use strata_ir::{DialectDef, PassRegistry};

pub mod passes;
pub mod verify;

#[cfg(test)]
mod tests;

include!(concat!(env!("OUT_DIR"), "/ops.rs"));

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

/// The full name of `op` (`sg.relu`).
pub fn op_name(op: OperationRef<'_, '_>) -> String {
    op.name().as_string_ref().as_str().unwrap_or("<non-utf8>").to_owned()
}

fn i64_array(op: OperationRef<'_, '_>, name: &str) -> Option<Vec<i64>> {
    let attribute = DenseI64ArrayAttribute::try_from(op.attribute(name).ok()?).ok()?;
    (0..attribute.len()).map(|i| attribute.element(i).ok()).collect()
}

fn integer(op: OperationRef<'_, '_>, name: &str) -> Option<i64> {
    Some(IntegerAttribute::try_from(op.attribute(name).ok()?).ok()?.value())
}
