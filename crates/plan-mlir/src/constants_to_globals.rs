//! `strata-constants-to-globals`: every ranked tensor `arith.constant` becomes a read-only
//! `memref.global` read through `memref.get_global` and `bufferization.to_tensor restrict`,
//! before One-Shot Bufferize runs.
//!
//! One-Shot Bufferize makes the same globals itself, but it finds each constant's global by
//! scanning every op of the module for one with the same value: quadratic in the constants,
//! 25% of the pass on a 10k-node model with 3333 weights. Here one walk keeps a map from each
//! value to its global, and names them as the module's symbol table does (one uniquing counter
//! for all names). The globals, their names, order (each new one first in the module),
//! alignment and the reads are what One-Shot makes, so its output is unchanged: it bufferizes
//! `to_tensor restrict` of a read-only global to the global's memref, and copies before a
//! write as it does for a constant.
//!
//! Constants with a tensor encoding, or whose type has no static shape, are left to One-Shot.

use melior::ir::attribute::{FlatSymbolRefAttribute, IntegerAttribute, StringAttribute, TypeAttribute};
use melior::ir::operation::{OperationBuilder, OperationRef};
use melior::ir::r#type::{IntegerType, MemRefType};
use melior::ir::{Attribute, AttributeLike, BlockLike, Identifier, ShapedTypeLike, Type};
use std::collections::{BTreeMap, BTreeSet};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-constants-to-globals",
    summary: "Tensor constants as read-only memref globals (as One-Shot Bufferize makes them, in linear time)",
    anchor: "builtin.module",
    options: &[],
    statistics: &[
        StatisticInfo { name: "globals", help: "globals made" },
        StatisticInfo { name: "reads", help: "constants replaced by a read of a global" },
    ],
};

/// The alignment One-Shot Bufferize gives its globals (`BufferizationOptions::bufferAlignment`).
const ALIGNMENT: i64 = 64;

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ConstantsToGlobals)
}

struct ConstantsToGlobals;

impl Pass for ConstantsToGlobals {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        let Some(body) = Op::of(&module).body(0) else { return Ok(()) };
        // Every symbol of the module, and the globals One-Shot would reuse: same value, same
        // alignment.
        let mut taken: BTreeSet<String> = BTreeSet::new();
        let mut globals: BTreeMap<usize, (String, Type)> = BTreeMap::new();
        for op in body.ops() {
            if let Some(name) = op.symbol_name() {
                if op.is("memref.global") && op.int_attribute("alignment") == Some(ALIGNMENT) {
                    if let (Some(value), Some(ty)) = (op.attribute("initial_value"), global_type(op)) {
                        globals.entry(value.to_raw().ptr as usize).or_insert((name.clone(), ty));
                    }
                }
                taken.insert(name);
            }
        }
        // One-Shot's order: functions (ours call none that hold constants) top to bottom,
        // ops in pre-order.
        let constants = Op::of(&module).collect(|op| op.is("arith.constant"));
        let mut uniquing = 0usize;
        let i64_type: Type = IntegerType::new(context, 64).into();
        for constant in constants {
            let (Some(value), Some((memref, shape))) = (constant.attribute("value"), memref_type(constant)) else {
                continue;
            };
            let key = value.to_raw().ptr as usize;
            let (name, ty) = match globals.get(&key) {
                Some(found) => found.clone(),
                None => {
                    let base = global_name(&shape, memref);
                    // MLIR's symbol table: one uniquing counter for every name, tried and
                    // advanced until a suffixed name is free.
                    let mut name = base.clone();
                    while taken.contains(&name) {
                        name = format!("{base}_{uniquing}");
                        uniquing += 1;
                    }
                    let global = OperationBuilder::new("memref.global", constant.location())
                        .add_attributes(&[
                            (Identifier::new(context, "sym_name"), StringAttribute::new(context, &name).into()),
                            (
                                Identifier::new(context, "sym_visibility"),
                                StringAttribute::new(context, "private").into(),
                            ),
                            (Identifier::new(context, "type"), TypeAttribute::new(memref).into()),
                            (Identifier::new(context, "initial_value"), value),
                            (Identifier::new(context, "constant"), Attribute::unit(context)),
                            (Identifier::new(context, "alignment"), IntegerAttribute::new(i64_type, ALIGNMENT).into()),
                        ])
                        .build()
                        .map_err(|e| cx.fail(constant.get(), &format!("cannot build a global: {e}").into()))?;
                    // First in the module, as One-Shot places its globals.
                    let first = body.first().expect("the module holds the constant's function");
                    body.get().insert_operation_before(first.get(), global);
                    taken.insert(name.clone());
                    globals.insert(key, (name.clone(), memref));
                    cx.bump("globals", 1);
                    (name, memref)
                }
            };
            let location = constant.location();
            let read = OperationBuilder::new("memref.get_global", location)
                .add_attributes(&[(
                    Identifier::new(context, "name"),
                    FlatSymbolRefAttribute::new(context, &name).into(),
                )])
                .add_results(&[ty])
                .build()
                .map_err(|e| cx.fail(constant.get(), &format!("cannot build a global's read: {e}").into()))?;
            let block = constant.block().expect("a constant is in a block");
            let read = block.get().insert_operation_before(constant.get(), read);
            let tensor = OperationBuilder::new("bufferization.to_tensor", location)
                .add_operands(&[read.result(0).expect("one result").into()])
                .add_attributes(&[(Identifier::new(context, "restrict"), Attribute::unit(context))])
                .add_results(&[constant.result(0).r#type()])
                .build()
                .map_err(|e| cx.fail(constant.get(), &format!("cannot build a global's tensor: {e}").into()))?;
            let tensor = block.get().insert_operation_before(constant.get(), tensor);
            constant.result(0).replace_all_uses_with(Val::from(tensor.result(0).expect("one result")));
            // Safety: no use is left, and no handle to it is used again.
            unsafe { constant.erase() };
            cx.bump("reads", 1);
        }
        Ok(())
    }
}

/// The memref type One-Shot gives a constant of `op`'s ranked tensor type (static identity
/// layout, no memory space) and its shape, or `None` when it is not one this pass takes.
fn memref_type<'c>(op: Op) -> Option<(Type<'c>, Vec<i64>)> {
    let ty = op.result(0).r#type();
    let tensor = strata_ir::types::ranked_tensor(ty)?;
    if tensor.encoding().is_some() {
        return None;
    }
    let shape = strata_lower::ops::static_shape(ty).ok()?;
    Some((MemRefType::new(tensor.element(), &shape, None, None).into(), shape))
}

/// The type of a `memref.global`.
fn global_type<'c>(global: Op) -> Option<Type<'c>> {
    TypeAttribute::try_from(global.attribute("type")?).ok().map(|t| t.value())
}

/// One-Shot's name for a global of `memref`'s type, before uniquing: its `shape` joined by
/// `x`, then `x` and the element type (`__constant_8x8xf32`; `__constant_xf32` for a scalar).
fn global_name(shape: &[i64], memref: Type<'_>) -> String {
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    let element = strata_ir::types::memref(memref).expect("a memref type").element();
    format!("__constant_{}x{}", dims.join("x"), strata_ir::types::type_name(element))
}
