//! `strata-profile-kernels`: times every kernel of the model function `@main` in the compiled
//! code, for `strata run --profile`.
//!
//! A kernel is a top-level op of `@main` on planned buffers that does work (a linalg op, a loop
//! nest, a copy); views, constants and address computations are not timed. The kernels of one
//! ONNX node (its location's names; a fused kernel has several) share one counter. Each kernel
//! is bracketed by reads of LLVM's `llvm.readcyclecounter` intrinsic (the x86 time-stamp counter, which ticks
//! at a constant rate on the CPUs that have `constant_tsc`), and the difference is added to its
//! counter in the public global `@strata_profile_ticks : memref<Nxi64>`. The counters' labels
//! are stored on `@main` as `strata.profile_kernels` (`"<names>\t<ops>"` per counter, in
//! counter order), so the driver can name them after the JIT hands it the global's address.
//!
//! The instrumented code is not the code `strata run` times without the flag: the counter
//! reads and updates add a few nanoseconds per kernel and keep LLVM from moving code across
//! kernel boundaries.

use indexmap::IndexMap;
use melior::ir::attribute::{IntegerAttribute, StringAttribute, TypeAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::r#type::{IntegerType, MemRefType};
use melior::ir::Operation;
use melior::ir::{Attribute, BlockLike, Identifier, Location, RegionLike, Type, Value};
use melior::Context;
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-profile-kernels",
    summary: "Time every kernel of @main with the cycle counter, one counter per ONNX node, into the public global @strata_profile_ticks",
    anchor: "builtin.module",
    options: &[],
    statistics: &[
        StatisticInfo { name: "kernels", help: "top-level ops of @main timed" },
        StatisticInfo { name: "counters", help: "distinct counters (ONNX nodes)" },
    ],
};

/// The global holding the counters (ticks summed over all runs).
pub const TICKS_SYMBOL: &str = "strata_profile_ticks";

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(ProfileKernels)
}

struct ProfileKernels;

/// Top-level ops that do no work of their own: they are not timed.
fn is_bookkeeping(name: &str) -> bool {
    name.starts_with("arith.")
        || name.starts_with("index.")
        || name.starts_with("ub.")
        || name.starts_with("llvm.mlir.")
        || matches!(
            name,
            "func.return"
                | "memref.view"
                | "memref.subview"
                | "memref.reinterpret_cast"
                | "memref.expand_shape"
                | "memref.collapse_shape"
                | "memref.cast"
                | "memref.get_global"
                | "memref.dim"
                | "memref.extract_strided_metadata"
                | "memref.assume_alignment"
                | "affine.apply"
        )
}

impl Pass for ProfileKernels {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let context = cx.strata().mlir();
        let module_body = module.region(0).ok().and_then(|r| r.first_block()).ok_or(PassFailed)?;
        let Some(main) = strata_ir::rewrite::find_symbol_in(module_body, "main") else {
            cx.emit_error(module.location(), "strata-profile-kernels: the module has no @main function");
            return Err(PassFailed);
        };
        let body = main.region(0).ok().and_then(|r| r.first_block()).ok_or(PassFailed)?;
        // Counters by label, with the op names they time.
        let mut counters: IndexMap<String, Vec<String>> = IndexMap::new();
        let mut kernels = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let name = op.name().as_string_ref().as_str().unwrap_or_default().to_owned();
            if is_bookkeeping(&name) {
                continue;
            }
            let entry = counters.entry(strata_ir::nodes::label(op.location()));
            let index = entry.index();
            let ops = entry.or_default();
            if !ops.contains(&name) {
                ops.push(name);
            }
            kernels.push((op, index));
        }
        if counters.is_empty() {
            return Ok(());
        }
        let i64_type: Type = IntegerType::new(context, 64).into();
        let index_type = Type::index(context);
        let counters_type: Type = MemRefType::new(i64_type, &[counters.len() as i64], None, None).into();
        let global = OperationBuilder::new("memref.global", module.location())
            .add_attributes(&[
                (Identifier::new(context, "sym_name"), StringAttribute::new(context, TICKS_SYMBOL).into()),
                (Identifier::new(context, "type"), TypeAttribute::new(counters_type).into()),
                (
                    Identifier::new(context, "initial_value"),
                    Attribute::parse(context, &format!("dense<0> : tensor<{}xi64>", counters.len()))
                        .ok_or(PassFailed)?,
                ),
            ])
            .add_regions([])
            .build()
            .map_err(|_| PassFailed)?;
        module_body.insert_operation_before(main, global);
        let symbol = Attribute::parse(context, &format!("@{TICKS_SYMBOL}")).ok_or(PassFailed)?;
        for &(op, index) in &kernels {
            let location = op.location();
            let read = || read_counter(context, location, i64_type);
            let start = result(body.insert_operation_before(op, read()));
            let mut after = op;
            // Inserts an op after the last one inserted; its result.
            macro_rules! append {
                ($op:expr) => {{
                    after = body.insert_operation_after(after, $op);
                    result(after)
                }};
            }
            let stop = append!(read());
            let ticks = append!(build(context, "arith.subi", location, &[stop, start], &[i64_type], None));
            let counters =
                append!(build(context, "memref.get_global", location, &[], &[counters_type], Some(("name", symbol))));
            let position = IntegerAttribute::new(index_type, index as i64).into();
            let position =
                append!(build(context, "arith.constant", location, &[], &[index_type], Some(("value", position))));
            let old = append!(build(context, "memref.load", location, &[counters, position], &[i64_type], None));
            let sum = append!(build(context, "arith.addi", location, &[old, ticks], &[i64_type], None));
            body.insert_operation_after(
                after,
                build(context, "memref.store", location, &[sum, counters, position], &[], None),
            );
        }
        let labels: Vec<String> = counters.iter().map(|(label, ops)| format!("{label}\t{}", ops.join(", "))).collect();
        strata_ir::attrs::PROFILE_KERNELS.set(main, &labels);
        cx.bump("kernels", kernels.len() as u64);
        cx.bump("counters", counters.len() as u64);
        Ok(())
    }
}

/// `llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64` (unlinked): the MLIR LLVM
/// dialect has no op of its own for the intrinsic.
fn read_counter<'c>(context: &'c Context, location: Location<'c>, i64_type: Type<'c>) -> Operation<'c> {
    let attribute = |text: &str| Attribute::parse(context, text).expect("a valid attribute");
    OperationBuilder::new("llvm.call_intrinsic", location)
        .add_attributes(&[
            (Identifier::new(context, "intrin"), StringAttribute::new(context, "llvm.readcyclecounter").into()),
            (Identifier::new(context, "fastmathFlags"), attribute("#llvm.fastmath<none>")),
            (Identifier::new(context, "op_bundle_sizes"), attribute("array<i32>")),
            (Identifier::new(context, "operandSegmentSizes"), attribute("array<i32: 0, 0>")),
        ])
        .add_results(&[i64_type])
        .build()
        .expect("a valid llvm.call_intrinsic")
}

/// A new op `name` (unlinked).
fn build<'c>(
    context: &'c Context,
    name: &str,
    location: Location<'c>,
    operands: &[Value<'c, '_>],
    results: &[Type<'c>],
    attribute: Option<(&str, Attribute<'c>)>,
) -> Operation<'c> {
    let mut builder = OperationBuilder::new(name, location).add_operands(operands).add_results(results);
    if let Some((key, value)) = attribute {
        builder = builder.add_attributes(&[(Identifier::new(context, key), value)]);
    }
    builder.build().expect("a valid op")
}

/// The only result of `op`.
fn result<'c, 'a>(op: OperationRef<'c, 'a>) -> Value<'c, 'a> {
    op.result(0).expect("one result").into()
}
