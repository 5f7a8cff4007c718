//! `strata-distinct-results`: a value a function returns more than once gets its own copy for
//! every return position after the first.
//!
//! ONNX lets one value be several graph outputs (an output listed twice, or `Identity` of an
//! output as another output, which the importer aliases). Every result is an out-param the
//! caller provides, so each needs its own buffer. Upstream `buffer-results-to-out-params`
//! with `hoist-static-allocs` replaces the allocation of a returned buffer by the out-param
//! and erases it: given the same buffer at two positions, it erases it twice and crashes.
//!
//! This pass, run on tensors before one-shot bufferization (first in `strata-bufferize`),
//! replaces each repeated return operand by `bufferization.alloc_tensor() copy(%v)`, which
//! bufferizes to an allocation and a copy that become the second out-param and a copy into
//! it. The first position keeps the value, so the common case (no repetition) is untouched.

use melior::ir::attribute::DenseI32ArrayAttribute;
use melior::ir::operation::{OperationBuilder, OperationRef};
use melior::ir::{BlockLike, Identifier};
use strata_ir::rewrite::collect;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-distinct-results",
    summary: "Copy a tensor returned more than once, so every result bufferizes to its own out-param",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo { name: "copies", help: "return operands replaced by a copy" }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(DistinctResults)
}

struct DistinctResults;

impl Pass for DistinctResults {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        for ret in collect(&func, |op| op.is("func.return")) {
            let operands = ret.operands();
            for (index, &value) in operands.iter().enumerate() {
                if !operands[..index].contains(&value) {
                    continue;
                }
                let ty = value.r#type();
                if !melior::ir::r#type::TypeLike::is_ranked_tensor(&ty) {
                    continue;
                }
                let location = ret.location();
                let copy = OperationBuilder::new("bufferization.alloc_tensor", location)
                    .add_operands(&[value.get()])
                    .add_attributes(&[(
                        Identifier::new(context, "operandSegmentSizes"),
                        DenseI32ArrayAttribute::new(context, &[0, 1, 0]).into(),
                    )])
                    .add_results(&[ty])
                    .build()
                    .map_err(|e| cx.fail(ret.get(), &format!("cannot build the copy: {e}").into()))?;
                let block = ret.block().expect("a return is in a block");
                let copy = block.get().insert_operation_before(ret.get(), copy);
                ret.set_operand(index, Val::from(copy.result(0).expect("one result")));
                cx.bump("copies", 1);
            }
        }
        Ok(())
    }
}
