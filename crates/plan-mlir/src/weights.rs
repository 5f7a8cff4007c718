//! `plan-weights`: the weights and constants of a module move into one blob at static
//! offsets, the `weights` argument of the ABI (DESIGN.md).
//!
//! Every constant `memref.global` that a function reads through `memref.get_global` gets an
//! offset (aligned to `alignment`, or to the global's own alignment when larger) recorded as
//! `strata.weights_offset` on the global; the module records `strata.weights_bytes` and
//! `strata.weights_alignment`. In each function that reads weights, every `get_global`
//! becomes `memref.view %weights[offset]` of a new last argument `memref<Nxi8>`, whose
//! position the function records as `strata.weights_arg`; the argument is marked `noalias`,
//! `readonly`, aligned and dereferenceable for LLVM (the blob is read-only and overlaps no
//! other buffer). The globals stay in the module (unreferenced), so the code generator can
//! write the blob's bytes from their values (`strata_ir::weights`).
//!
//! `min-bytes` and `splats=false` keep small and splat constants as globals: on the host, LLVM
//! folds what it knows of them, and they cost nothing to compile.

use crate::analyze::memref_bytes;
use crate::pass::{append_argument, view_before};
use melior::ir::attribute::{ArrayAttribute, Attribute, FlatSymbolRefAttribute, IntegerAttribute};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::{IntegerType, MemRefType};
use melior::ir::{BlockLike, RegionLike, Type, ValueLike};
use std::collections::BTreeMap;
use strata_ir::rewrite::collect;
use strata_ir::{attrs, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "plan-weights",
    summary:
        "Place the constant memref.globals a module reads into one weights blob (a function argument) at static offsets",
    anchor: "builtin.module",
    options: &[
        OptionInfo {
            name: "alignment",
            kind: OptionKind::Int,
            default: "64",
            help: "byte alignment of every constant in the blob (a power of two)",
        },
        OptionInfo {
            name: "min-bytes",
            kind: OptionKind::Int,
            default: "0",
            help: "constants smaller than this stay globals",
        },
        OptionInfo {
            name: "splats",
            kind: OptionKind::Bool,
            default: "true",
            help: "place splat constants (one value repeated) in the blob too",
        },
    ],
    statistics: &[
        StatisticInfo { name: "constants", help: "constant globals placed in the blob" },
        StatisticInfo { name: "weights-bytes", help: "size of the blob" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(PlanWeights {
        alignment: options.int("alignment"),
        min_bytes: options.int("min-bytes").max(0) as u64,
        splats: options.bool("splats"),
    })
}

struct PlanWeights {
    alignment: i64,
    min_bytes: u64,
    splats: bool,
}

/// Rounds `value` up to a multiple of `alignment` (a power of two).
fn align(value: u64, alignment: u64) -> u64 {
    (value + alignment - 1) & !(alignment - 1)
}

impl Pass for PlanWeights {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        if self.alignment <= 0 || (self.alignment & (self.alignment - 1)) != 0 {
            cx.emit_op_error(
                module,
                format!("plan-weights: alignment {} is not a positive power of two", self.alignment),
            );
            return Err(PassFailed);
        }
        let context = cx.strata().mlir();
        let symbol = |op: OperationRef<'_, '_>, name: &str| {
            op.attribute(name).ok().and_then(|a| FlatSymbolRefAttribute::try_from(a).ok()).map(|s| s.value().to_owned())
        };
        let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
            return Ok(());
        };
        // The constant globals, by name.
        let mut globals = BTreeMap::new();
        let mut op = body.first_operation();
        while let Some(current) = op {
            let value = current.attribute("initial_value").ok();
            if strata_ir::ods::op_name(current) == "memref.global"
                && current.attribute("constant").is_ok()
                && value.is_some_and(|v| self.splats || !strata_ir::resource::is_splat(v))
            {
                let op = strata_ir::Op::of(&current);
                if let Some(name) = op.symbol_name() {
                    globals.insert(name, op);
                }
            }
            op = current.next_in_block();
        }
        // Offsets, in order of first use.
        let reads = collect(&module, |op| op.is("memref.get_global"));
        let mut offsets: BTreeMap<String, u64> = BTreeMap::new();
        let mut end = 0u64;
        for &raw in &reads {
            let read = raw.get();
            let Some(name) = symbol(read, "name") else { continue };
            let Some(&global) = globals.get(&name) else { continue };
            if offsets.contains_key(&name) {
                continue;
            }
            let global = global.get();
            let ty = read.result(0).expect("get_global has a result").r#type();
            let bytes = match memref_bytes(ty) {
                Ok(bytes) => bytes,
                Err(why) => {
                    cx.emit_op_error(
                        global,
                        format!("plan-weights: constant @{name} cannot be placed in the weights blob: {why}"),
                    );
                    return Err(PassFailed);
                }
            };
            let own = global
                .attribute("alignment")
                .ok()
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .map_or(1, |a| a.value().max(1) as u64);
            if bytes < self.min_bytes {
                continue;
            }
            let offset = align(end, own.max(self.alignment as u64));
            offsets.insert(name, offset);
            end = offset + bytes;
        }
        if offsets.is_empty() {
            return Ok(());
        }
        let total = align(end, self.alignment as u64);
        for (name, &offset) in &offsets {
            attrs::WEIGHTS_OFFSET.set(globals[name].get(), offset as i64);
        }
        attrs::WEIGHTS_BYTES.set(module, total as i64);
        attrs::WEIGHTS_ALIGNMENT.set(module, self.alignment);
        cx.bump("constants", offsets.len() as u64);
        cx.bump("weights-bytes", total);

        // Each function that reads weights gets the blob argument.
        let blob_type: Type = MemRefType::new(IntegerType::new(context, 8).into(), &[total as i64], None, None).into();
        let mut functions: Vec<(strata_ir::Op, Vec<strata_ir::Op>)> = Vec::new();
        for &raw in &reads {
            let read = raw.get();
            if !symbol(read, "name").is_some_and(|n| offsets.contains_key(&n)) {
                continue;
            }
            let Some(parent) = raw.ancestor("func.func") else {
                cx.emit_op_error(read, "plan-weights: a constant is read outside a func.func");
                return Err(PassFailed);
            };
            match functions.iter_mut().find(|(f, _)| *f == parent) {
                Some((_, list)) => list.push(raw),
                None => functions.push((parent, vec![raw])),
            }
        }
        for (func, reads) in functions {
            let func = func.get();
            let Some((blob, position)) = append_argument(context, func, blob_type) else {
                cx.emit_op_error(func, "plan-weights: the function has no body or no function_type");
                return Err(PassFailed);
            };
            attrs::WEIGHTS_ARG.set(func, position as i64);
            let promises = format!(
                "{{llvm.noalias, llvm.readonly, llvm.align = {} : i64, llvm.dereferenceable = {total} : i64}}",
                self.alignment
            );
            if set_argument_attributes(context, func, position, &promises).is_none() {
                cx.emit_op_error(func, "plan-weights: cannot mark the weights argument");
                return Err(PassFailed);
            }
            for raw in reads {
                let read = raw.get();
                let offset = offsets[&symbol(read, "name").expect("checked above")];
                let view = view_before(context, read, blob, offset, read.result(0).expect("one result").r#type());
                // Safety: the get_global is not used after this.
                unsafe { strata_ir::rewrite::replace_op(raw, view.into()) };
            }
        }
        Ok(())
    }
}

/// Sets the attributes of argument `position` of `func` to `dictionary` (MLIR syntax), keeping
/// the other arguments' attributes.
fn set_argument_attributes(
    context: &melior::Context,
    func: OperationRef<'_, '_>,
    position: usize,
    dictionary: &str,
) -> Option<()> {
    let count = func.region(0).ok()?.first_block()?.argument_count();
    let existing = func.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok());
    let entries: Vec<String> = (0..count)
        .map(|i| {
            if i == position {
                dictionary.to_owned()
            } else {
                existing.and_then(|a| a.element(i).ok()).map_or_else(|| "{}".to_owned(), |a| a.to_string())
            }
        })
        .collect();
    let array = Attribute::parse(context, &format!("[{}]", entries.join(", ")))?;
    strata_ir::Op::of(&func).set_attribute("arg_attrs", array);
    Some(())
}
