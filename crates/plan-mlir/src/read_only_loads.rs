//! `strata-read-only-loads`: the scalar reads a loop nest makes of a tensor nothing ever writes
//! (a function argument marked `bufferization.writable = false`, a tensor constant) go through
//! one `bufferization.to_buffer ... read_only` of it per top-level op, as `memref.load`s.
//!
//! One-Shot Bufferize's analysis (and `eliminate-empty-tensors`', the same) visits every tensor
//! operand and gathers the reads of all its aliases: a value read by `k` ops costs `k^2`. An
//! isolation forest as scikit-learn writes it (one tree ensemble a tree; the walk kernels read
//! the features row by row, 16 rows interleaved) reads the input 16 times a tree: with 100 trees
//! (scikit-learn's default) 1600 reads, and the two analyses took 1.2 s of a 7.4 s compile.
//! After this pass each loop nest reads the value once, at its start.
//!
//! Only reads nested in a region of a top-level op (a loop, a conditional), outside any linalg
//! op (whose vectoriser turns a `tensor.extract` in its body into a gather and would not take
//! a `memref.load`), and only where a top-level op reads one value at least twice. The value is
//! never written, so when its buffer is read does not matter; what follows bufferization is the
//! same (`tensor.extract` bufferizes to the same `memref.load`).
//!
//! For the same reason a tensor constant that CSE shared between top-level ops (a scalar
//! `dense<2.0> : tensor<f32>` read by 400 elementwise kernels of that forest) gets a copy before
//! each of them after the first: the copies bufferize to reads of one global, which CSE merges
//! again after bufferization.

use melior::ir::attribute::{ArrayAttribute, Attribute};
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::MemRefType;
use melior::ir::r#type::ShapedTypeLike;
use melior::ir::{BlockLike, Identifier, Type};
use std::collections::BTreeMap;
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-read-only-loads",
    summary: "Read never-written tensors (read-only arguments, constants) in loop nests through one read-only to_buffer per top-level op, so bufferization's analysis sees one read, not one per element",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "buffers", help: "read-only to_buffer ops made (one per top-level op and value)" },
        StatisticInfo { name: "loads", help: "tensor.extract ops turned into memref.load" },
        StatisticInfo { name: "constants", help: "copies of tensor constants made, one per top-level op reading it" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ReadOnlyLoads)
}

struct ReadOnlyLoads;

impl Pass for ReadOnlyLoads {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let function = Op::of(&func);
        let Some(entry) = function.body(0) else { return Ok(()) };
        let read_only = read_only_arguments(function);
        let never_written = |value: Val| match value.owner() {
            None => {
                value.owner_block() == Some(entry) && value.argument_number().is_some_and(|i| read_only.contains(&i))
            }
            Some(owner) => owner.is("arith.constant"),
        };
        // (top-level op, value) -> its reads, in order.
        let mut groups: BTreeMap<(usize, usize), (Op, Val, Vec<Op>)> = BTreeMap::new();
        for extract in function.collect(|op| op.is("tensor.extract")) {
            let value = extract.operand(0);
            if !never_written(value) {
                continue;
            }
            let Some(top) = extract.ancestor_in(entry).filter(|&top| top != extract) else { continue };
            let in_linalg = std::iter::successors(extract.parent(), |op| op.parent())
                .take_while(|&op| op != function)
                .any(|op| op.name().starts_with("linalg."));
            if in_linalg {
                continue;
            }
            let key = (top.raw().ptr as usize, value.raw().ptr as usize);
            groups.entry(key).or_insert_with(|| (top, value, Vec::new())).2.push(extract);
        }
        let context = cx.strata().mlir();
        for (top, value, reads) in groups.into_values() {
            if reads.len() < 2 {
                continue;
            }
            let Some(memref) = identity_memref(value) else { continue };
            let buffer = OperationBuilder::new("bufferization.to_buffer", top.location())
                .add_operands(&[value.get()])
                .add_attributes(&[(Identifier::new(context, "read_only"), Attribute::unit(context))])
                .add_results(&[memref])
                .build()
                .map_err(|e| cx.fail(top.get(), &format!("cannot build a read-only buffer: {e}").into()))?;
            let block = top.block().expect("a top-level op is in the function's block");
            let buffer =
                Val::from(block.get().insert_operation_before(top.get(), buffer).result(0).expect("one result"));
            cx.bump("buffers", 1);
            for read in reads {
                let mut operands = vec![buffer.get()];
                operands.extend((1..read.operand_count()).map(|i| read.operand(i).get()));
                let load = OperationBuilder::new("memref.load", read.location())
                    .add_operands(&operands)
                    .add_results(&[read.result(0).r#type()])
                    .build()
                    .map_err(|e| cx.fail(read.get(), &format!("cannot build a load: {e}").into()))?;
                let at = read.block().expect("a read is in a block");
                let load = at.get().insert_operation_before(read.get(), load);
                read.result(0).replace_all_uses_with(Val::from(load.result(0).expect("one result")));
                // Safety: the extract has no use left, and its handle is not used again.
                unsafe { read.erase() };
                cx.bump("loads", 1);
            }
        }
        // A tensor constant CSE shared between top-level ops: a copy of it before each after the
        // first (they bufferize to reads of one global, and CSE merges those again).
        let position: BTreeMap<usize, usize> =
            entry.ops().into_iter().enumerate().map(|(i, op)| (op.raw().ptr as usize, i)).collect();
        for constant in function.collect(|op| op.is("arith.constant") && op.parent() == Some(function)) {
            let result = constant.result(0);
            if strata_ir::types::ranked_tensor(result.r#type()).is_none() {
                continue;
            }
            let mut readers: Vec<(Op, Vec<(Op, usize)>)> = Vec::new();
            for (user, index) in result.uses() {
                let Some(top) = user.ancestor_in(entry) else { continue };
                match readers.iter_mut().find(|(t, _)| *t == top) {
                    Some((_, uses)) => uses.push((user, index)),
                    None => readers.push((top, vec![(user, index)])),
                }
            }
            readers.sort_by_key(|(top, _)| position.get(&(top.raw().ptr as usize)).copied());
            for (top, uses) in readers.into_iter().skip(1) {
                let Some(block) = top.block() else { continue };
                let copy = constant.clone_detached();
                block.insert_before(top, copy);
                for (user, index) in uses {
                    user.set_operand(index, copy.result(0));
                }
                cx.bump("constants", 1);
            }
        }
        Ok(())
    }
}

/// The entry-block arguments of `function` marked `bufferization.writable = false`.
fn read_only_arguments(function: Op) -> Vec<usize> {
    let Some(attributes) = function.attribute("arg_attrs").and_then(|a| ArrayAttribute::try_from(a).ok()) else {
        return Vec::new();
    };
    (0..attributes.len())
        .filter(|&i| attributes.element(i).is_ok_and(|a| a.to_string().contains("bufferization.writable = false")))
        .collect()
}

/// The memref type One-Shot gives `value` (a static ranked tensor without encoding): its shape
/// and element type, identity layout.
fn identity_memref<'c>(value: Val) -> Option<Type<'c>> {
    let ty = value.r#type();
    let tensor = strata_ir::types::ranked_tensor(ty)?;
    if tensor.encoding().is_some() {
        return None;
    }
    let shape = strata_lower::ops::static_shape(ty).ok()?;
    Some(MemRefType::new(tensor.element(), &shape, None, None).into())
}
