//! Structural keys: two ops get equal keys exactly when they are the same IR up to the names
//! of their values and their locations, i.e. when they print the same in generic form without
//! debug information. Built from the context's uniqued objects (op names, types and
//! attributes are pointers that are equal exactly when the objects are) and the positions of
//! values in a pre-order walk, without printing: `strata-outline-kernels` keyed each kernel
//! by its printed text (a copy and a print per kernel), and the pass took 1.34 s of the 10k-node
//! matmul ladder's compile (0.50 s with these keys).

use crate::{Blk, Op, Val};
use mlir_sys as sys;
use std::collections::BTreeMap;

/// What [`key`] makes of one operand: its value's position (`Value`), or a token of the
/// caller's (`Token`, e.g. "the k-th parameter") that stands for it.
pub enum Operand {
    Value,
    Token(u64),
}

/// The structural key of `root`. `operand(user, index, value)` may replace an operand by a
/// token; `skip(op)` leaves an op (and its results) out of the key, for ops whose every use
/// `operand` replaced; `root`'s attributes named in `root_attributes_ignored` are left out
/// (a function's own name, say).
pub fn key(
    root: Op,
    root_attributes_ignored: &[&str],
    operand: &mut dyn FnMut(Op, usize, Val) -> Operand,
    skip: &dyn Fn(Op) -> bool,
) -> Vec<usize> {
    let mut walk = Walk { out: Vec::new(), values: BTreeMap::new(), blocks: BTreeMap::new(), operand, skip };
    walk.op(root, root_attributes_ignored);
    walk.out
}

/// Markers that separate the parts of a key, so that differently shaped IR never lines up.
const OP: usize = 1;
const REGION: usize = 2;
const BLOCK: usize = 3;
const TOKEN: usize = 4;
const VALUE: usize = 5;
const SUCCESSOR: usize = 6;
const END: usize = 7;

struct Walk<'w> {
    out: Vec<usize>,
    /// Value (raw pointer) -> its position among the values defined so far.
    values: BTreeMap<usize, usize>,
    /// Block (raw pointer) -> its position among the blocks seen so far.
    blocks: BTreeMap<usize, usize>,
    operand: &'w mut dyn FnMut(Op, usize, Val) -> Operand,
    skip: &'w dyn Fn(Op) -> bool,
}

impl Walk<'_> {
    fn define(&mut self, value: sys::MlirValue) {
        let next = self.values.len();
        self.values.insert(value.ptr as usize, next);
    }

    fn op(&mut self, op: Op, ignored: &[&str]) {
        let raw = op.raw();
        // Safety: every C API call below reads a live op, its regions, blocks and values.
        unsafe {
            self.out.extend([OP, sys::mlirOperationGetName(raw).ptr as usize]);
            let operands = sys::mlirOperationGetNumOperands(raw);
            self.out.push(operands as usize);
            for i in 0..operands {
                let value = sys::mlirOperationGetOperand(raw, i);
                match (self.operand)(op, i as usize, Val::from_raw(value)) {
                    Operand::Token(token) => self.out.extend([TOKEN, token as usize]),
                    // A value defined outside the walk (never in an isolated op) by its pointer.
                    Operand::Value => {
                        let position = self.values.get(&(value.ptr as usize)).map_or(value.ptr as usize, |&p| p);
                        self.out.extend([VALUE, position]);
                    }
                }
            }
            let results = sys::mlirOperationGetNumResults(raw);
            self.out.push(results as usize);
            for i in 0..results {
                let value = sys::mlirOperationGetResult(raw, i);
                self.out.push(sys::mlirValueGetType(value).ptr as usize);
                self.define(value);
            }
            let attributes = sys::mlirOperationGetNumAttributes(raw);
            for i in 0..attributes {
                let named = sys::mlirOperationGetAttribute(raw, i);
                let name = sys::mlirIdentifierStr(named.name);
                let text = std::slice::from_raw_parts(name.data as *const u8, name.length);
                if ignored.iter().any(|n| n.as_bytes() == text) {
                    continue;
                }
                self.out.extend([named.name.ptr as usize, named.attribute.ptr as usize]);
            }
            let successors = sys::mlirOperationGetNumSuccessors(raw);
            for i in 0..successors {
                let block = sys::mlirOperationGetSuccessor(raw, i);
                let position = self.block_position(block);
                self.out.extend([SUCCESSOR, position]);
            }
            let regions = sys::mlirOperationGetNumRegions(raw);
            for i in 0..regions {
                self.out.push(REGION);
                let region = sys::mlirOperationGetRegion(raw, i);
                // Blocks first numbered (a branch may name a later block), then walked.
                let mut block = sys::mlirRegionGetFirstBlock(region);
                let mut blocks = Vec::new();
                while !block.ptr.is_null() {
                    self.block_position(block);
                    blocks.push(block);
                    block = sys::mlirBlockGetNextInRegion(block);
                }
                for block in blocks {
                    self.block(block);
                }
            }
            self.out.push(END);
        }
    }

    fn block_position(&mut self, block: sys::MlirBlock) -> usize {
        let next = self.blocks.len();
        *self.blocks.entry(block.ptr as usize).or_insert(next)
    }

    fn block(&mut self, block: sys::MlirBlock) {
        // Safety: a live block of a live region.
        unsafe {
            let arguments = sys::mlirBlockGetNumArguments(block);
            self.out.extend([BLOCK, arguments as usize]);
            for i in 0..arguments {
                let argument = sys::mlirBlockGetArgument(block, i);
                self.out.push(sys::mlirValueGetType(argument).ptr as usize);
                self.define(argument);
            }
        }
        for op in Blk::from_raw(block).ops() {
            if !(self.skip)(op) {
                self.op(op, &[]);
            }
        }
    }
}
