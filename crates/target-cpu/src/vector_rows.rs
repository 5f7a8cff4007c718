//! `strata-vector-rows`: a `vector.from_elements` of rank 2 or more whose elements are whole
//! 1-D vectors, row by row (each innermost row all the results of one `vector.to_elements`, in
//! order), becomes a chain of `vector.insert`s of those vectors, run just before
//! `convert-vector-to-llvm`.
//!
//! MLIR 22's canonicalizer folds a chain of row inserts that fills a vector into that
//! `from_elements` of scalars. The register blocks of the convolutions and matmuls are such
//! chains (one fused multiply-add per row, inserted into the `vector<R x L>` accumulators the
//! loop carries), so each reduction step lowered to `R x L` `extractelement`s and as many
//! `insertelement`s, which LLVM's instruction combining and x86 shuffle lowering then had to
//! fold back into the rows: most of the code generation time of MobileNetV2 and ResNet-18. A
//! row insert lowers to one `llvm.insertvalue` of the row into the accumulator's array.

use crate::vector_ops::{build, position, vector_shape};
use melior::ir::operation::OperationRef;
use melior::ir::Type;
use melior::Context;
use strata_ir::rewrite::collect;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-vector-rows",
    summary: "vector.from_elements made of whole vector.to_elements rows as row inserts (no per-element code for LLVM to fold back)",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "rows", help: "vector.from_elements rebuilt from row inserts" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(VectorRows)
}

struct VectorRows;

impl Pass for VectorRows {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for op in collect(&func, |op| op.is("vector.from_elements")) {
            let Some(rows) = rows(op) else { continue };
            if rebuild(context, op, &rows).is_some() {
                cx.bump("rows", 1);
            }
        }
        Ok(())
    }
}

/// The dimensions of a static vector type of rank 2 or more (`vector<8x32xf32>`).
fn dimensions(ty: Type<'_>) -> Option<Vec<i64>> {
    vector_shape(ty).map(|(dims, _)| dims).filter(|dims| dims.len() >= 2)
}

/// The `vector.to_elements` ops whose results are `from`'s operands, one whole op per row
/// (the innermost dimension) in order, or `None` when they are not.
fn rows(from: Op) -> Option<Vec<Op>> {
    let dims = dimensions(from.result(0).r#type())?;
    let columns = *dims.last()? as usize;
    let rows = dims[..dims.len() - 1].iter().product::<i64>() as usize;
    if from.operand_count() != rows * columns {
        return None;
    }
    (0..rows)
        .map(|r| {
            let first = from.operand(r * columns);
            let source = first.owner().filter(|op| op.is("vector.to_elements") && op.result_count() == columns)?;
            (0..columns).all(|c| from.operand(r * columns + c) == source.result(c)).then_some(source)
        })
        .collect()
}

/// Replaces `from` by `ub.poison` and one `vector.insert` per row of `rows`' sources; erases
/// the `to_elements` left unused.
fn rebuild(context: &Context, from: Op, rows: &[Op]) -> Option<()> {
    let ty = from.result(0).r#type();
    let dims = dimensions(ty)?;
    let ty = ty.to_string();
    let mut value = build(context, from, "ub.poison", &[], &ty, &[("value", "#ub.poison".to_owned())])?;
    for (r, source) in rows.iter().enumerate() {
        let at = [("static_position", position(r as i64, &dims[..dims.len() - 1]))];
        value = build(context, from, "vector.insert", &[source.operand(0), value], &ty, &at)?;
    }
    from.result(0).replace_all_uses_with(value);
    // Safety: `from` has no uses left; a `to_elements` is erased once (the first time it is
    // found unused) and no handle to either is used afterwards.
    unsafe {
        from.erase();
        let mut erased: Vec<Op> = Vec::new();
        for &source in rows {
            if !erased.contains(&source) && source.results().iter().all(|result| !result.has_uses()) {
                source.erase();
                erased.push(source);
            }
        }
    }
    Some(())
}
