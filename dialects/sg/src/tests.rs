//! The generated API against the loaded dialect.

use crate::*;
use melior::ir::attribute::TypeAttribute;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::FunctionType;
use melior::ir::{Block, BlockLike, Location, Module, Region, RegionLike, Type};
use strata_ir::StrataContext;

#[test]
fn every_generated_op_is_registered_by_the_irdl_file() {
    let strata = StrataContext::new(&[DIALECT]).unwrap();
    assert_eq!(OpKind::ALL.len(), IRDL.matches("irdl.operation @").count(), "one kind per IRDL op");
    for kind in OpKind::ALL {
        let name = kind.full_name();
        assert!(strata.mlir().is_registered_operation(name), "{name} is generated but not loaded");
    }
}

/// Builds `relu(conv2d(x, w, b))` with the typed builders, verifies it, reads it back.
#[test]
fn typed_builders_and_accessors_round_trip() {
    let strata = StrataContext::new(&[DIALECT]).unwrap();
    let context = strata.mlir();
    let t = |text: &str| Type::parse(context, text).unwrap();
    let location = Location::new(context, "built.mlir", 1, 1);
    let (x, w, b, y) =
        (t("tensor<1x3x8x8xf32>"), t("tensor<4x3x3x3xf32>"), t("tensor<4xf32>"), t("tensor<1x4x8x8xf32>"));
    let block = Block::new(&[(x, location), (w, location), (b, location)]);
    let conv = block.append_operation(Conv2d::build(
        context,
        location,
        block.argument(0).unwrap().into(),
        block.argument(1).unwrap().into(),
        Some(block.argument(2).unwrap().into()),
        &[1, 1],
        &[1, 1, 1, 1],
        &[1, 1],
        1,
        y,
    ));
    let relu = block.append_operation(Relu::build(context, location, conv.result(0).unwrap().into(), y));
    block.append_operation(melior::dialect::func::r#return(&[relu.result(0).unwrap().into()], location));
    let region = Region::new();
    region.append_block(block);
    let function = melior::dialect::func::func(
        context,
        melior::ir::attribute::StringAttribute::new(context, "net"),
        TypeAttribute::new(FunctionType::new(context, &[x, w, b], &[y]).into()),
        region,
        &[],
        location,
    );
    let module = Module::new(location);
    module.body().append_operation(function);
    strata.verify(module.as_operation()).unwrap();

    let mut convs = Vec::new();
    module.as_operation().walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if let Some(conv) = Conv2d::cast(op) {
            convs.push((conv.strides(), conv.pads(), conv.group(), conv.bias().is_some()));
        }
        melior::ir::operation::WalkResult::Advance
    });
    assert_eq!(convs, [(vec![1, 1], vec![1, 1, 1, 1], 1, true)]);
}

/// A wrong result type built through the API is caught by the dialect verifier.
#[test]
fn builders_do_not_hide_verifier_errors() {
    let strata = StrataContext::new(&[DIALECT]).unwrap();
    let context = strata.mlir();
    let location = Location::new(context, "built.mlir", 7, 3);
    let input = Type::parse(context, "tensor<2x3xf32>").unwrap();
    let block = Block::new(&[(input, location)]);
    let wrong = Type::parse(context, "tensor<2x3xf32>").unwrap();
    let op =
        block.append_operation(Transpose::build(context, location, block.argument(0).unwrap().into(), &[1, 0], wrong));
    let mut errors = Vec::new();
    crate::verify::verify_op(op, &mut errors);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].message, "'sg.transpose' op result shape [2x3] does not match the permutation, [3x2]");
    assert_eq!(errors[0].location.file_line_col(), Some(("built.mlir", 7, 3)));
}
