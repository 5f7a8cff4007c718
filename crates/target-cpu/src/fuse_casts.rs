//! `strata-fuse-casts`: an elementwise kernel whose result only a cast reads writes the cast's
//! result itself, on buffers after planning: one kernel, and its intermediate never written.
//!
//! A QDQ activation's quantization is a fused f32 chain (`x / scale`, round, `+ zero point`,
//! clamp) and then `sg.cast` to `uint8`: the e-graph fuses only ops of one element type, so the
//! two stay apart, and the cast's generic (`arith.fptoui` and a cast to `ui8`) was a scalar
//! loop. A transformer's 400 x 384 activation took 0.07 ms to quantize plus 0.03 ms to cast,
//! a fifth of its int8 product's time. Here the pair becomes one generic: the chain's inputs,
//! maps and body, then the cast's conversion, into the cast's output; an unsigned output is
//! written through a signless view of it (`builtin.unrealized_conversion_cast` of the memref,
//! a no-op once lowered), so `strata-vectorize-elementwise` takes the body (`arith` ops only).
//!
//! Taken only when the rewrite is known good: the cast (identity maps, every loop parallel,
//! one conversion op, then at most a cast between integer types of one width) comes right
//! after the chain (past views) and reads the chain's output buffer as is; the chain's loops
//! are all parallel, its output map the identity, its body reads neither its output nor any
//! value from outside; nothing after the cast reads the intermediate (every byte overwritten
//! first: `vectorize_integer_matmul::dead_after`); and the cast's output is apart from the
//! chain's inputs (two arguments, an argument or a constant and the arena, or disjoint arena
//! ranges), so that writing it never clobbers what is still to be read. A cast to an unsigned
//! type that is not fused is still rewritten to write through the signless view (the same
//! conversion, the same bytes): left as it was, it stayed a scalar loop (a QDQ network's
//! 64 x 28 x 28 activation cast to `uint8`: 0.0154 -> 0.0027 ms). Runs after
//! `strata-vectorize-integer-matmul` (whose interleave absorbs the casts of the pixels it
//! packs) and before `strata-parallelize`.

use crate::text_kernels::identity_layout;
use crate::vectorize_integer_matmul::{arena_bytes, before, dead_after};
use melior::ir::operation::OperationRef;
use melior::ir::BlockLike;
use strata_ir::rewrite::{collect, view_root};
use strata_ir::{Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};

pub static INFO: PassInfo = PassInfo {
    name: "strata-fuse-casts",
    summary: "An elementwise kernel whose result only a cast reads writes the cast's result itself (buffers)",
    anchor: "builtin.module",
    options: &[],
    statistics: &[
        StatisticInfo { name: "fused", help: "Casts fused into the kernel before them" },
        StatisticInfo {
            name: "signless",
            help: "Casts to unsigned integers left alone, written through a signless view (vectorisable)",
        },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(FuseCasts)
}

struct FuseCasts;

/// Conversions a cast's body may hold.
const CONVERSIONS: [&str; 9] = [
    "arith.fptoui",
    "arith.fptosi",
    "arith.sitofp",
    "arith.uitofp",
    "arith.extf",
    "arith.truncf",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
];

/// Element types the fused kernel may write (the vectorisable ones; an unsigned one through
/// its signless view).
const OUTPUTS: [&str; 10] = ["f32", "f64", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"];

/// What a cast generic converts with: the conversion op's name and its signless result type.
pub(crate) struct Conversion {
    pub(crate) op: String,
    pub(crate) from: String,
    pub(crate) to: String,
}

/// The conversion of `op`, when it is a cast generic this pass takes (see the module docs).
pub(crate) fn cast(op: Op) -> Option<Conversion> {
    if !op.is("linalg.generic") || op.operand_count() != 2 || !all_parallel(op) || !identity_maps(op, 2) {
        return None;
    }
    let body = op.body(0)?;
    let ops = body.ops();
    let (conversion, rest) = ops.split_first()?;
    if !CONVERSIONS.contains(&conversion.name().as_str()) || conversion.operand(0) != body.argument(0) {
        return None;
    }
    let yielded = match rest {
        [_] => conversion.result(0),
        [c, _] if c.is("builtin.unrealized_conversion_cast") && c.operand(0) == conversion.result(0) => c.result(0),
        _ => return None,
    };
    let terminator = ops.last()?;
    if !terminator.is("linalg.yield") || terminator.operand_count() != 1 || terminator.operand(0) != yielded {
        return None;
    }
    let output = strata_ir::types::memref_element_name(op.operand(1).r#type())?;
    if !OUTPUTS.contains(&output.as_str()) {
        return None;
    }
    Some(Conversion {
        op: conversion.name(),
        from: conversion.operand(0).r#type().to_string(),
        to: conversion.result(0).r#type().to_string(),
    })
}

fn all_parallel(op: Op) -> bool {
    crate::parallelize::loops(op.get()).is_some_and(|loops| !loops.is_empty() && loops.iter().all(|&(_, p)| p))
}

/// Whether the last `last` indexing maps of the generic `op` are identities.
fn identity_maps(op: Op, last: usize) -> bool {
    let Some(maps) = op.attribute("indexing_maps").and_then(strata_ir::handle::map_results) else {
        return false;
    };
    maps.len() >= last
        && maps[maps.len() - last..]
            .iter()
            .all(|map| map.iter().enumerate().all(|(i, r)| *r == strata_ir::handle::MapResult::Dim(i)))
}

/// A memref type's spelling with unsigned integer elements made signless (the vector ops take
/// no unsigned types; the same bytes).
pub(crate) fn signless(ty: &str) -> String {
    ty.replace("xui", "xi")
}

/// Whether writing `out` cannot touch the bytes of `input`.
pub(crate) fn apart(out: Val, input: Val) -> bool {
    // A global, or a view of one (a filter collapsed for its kernel).
    let constant = |v: Val| view_root(v).owner().is_some_and(|o| o.is("memref.get_global"));
    match (arena_bytes(out), arena_bytes(input)) {
        (Some((a, a0, a1)), Some((b, b0, b1))) => a != b || a1 <= b0 || b1 <= a0,
        (Some(_), None) => input.argument_number().is_some() || constant(input),
        (None, Some(_)) => out.argument_number().is_some(),
        (None, None) => {
            out.argument_number().is_some() && (input.argument_number().is_some() || constant(input)) && out != input
        }
    }
}

/// The chain before the cast `op` that may write its result, when the pair is fusable, and
/// the reassociation (printed) of the `memref.expand_shape` through which the cast reads the
/// chain's output, if it does (a 2-D chain's result read as `[1, M, N]`).
fn producer(op: Op) -> Option<(Op, Option<String>)> {
    let chain = before(op)?;
    let intermediate = op.operand(0);
    let written = *chain.operands().last()?;
    let reshape = match intermediate.owner() {
        _ if written == intermediate => None,
        Some(expand) if expand.is("memref.expand_shape") && expand.operand(0) == written => {
            let contiguous = |v: Val| identity_layout(&v.r#type().to_string());
            if !contiguous(written) || !contiguous(op.operand(1)) {
                return None;
            }
            Some(expand.attribute("reassociation")?.to_string())
        }
        _ => return None,
    };
    if !chain.is("linalg.generic") || !all_parallel(chain) {
        return None;
    }
    // (The chain may read the intermediate too, written in place: the fused kernel reads it
    // as its input, never writes it.)
    if !identity_maps(chain, 1) {
        return None;
    }
    let body = chain.body(0)?;
    // Its output not read; nothing from outside the body read (printed alone, the body is
    // self-contained).
    if body.argument(body.argument_count() - 1).has_uses() {
        return None;
    }
    let inside = |v: Val| v.owner_block().or_else(|| v.owner().and_then(|o| o.block())) == Some(body);
    if !body.ops().iter().all(|o| o.operands().into_iter().all(inside)) {
        return None;
    }
    let out = op.operand(1);
    let inputs_apart = chain.operands()[..chain.operand_count() - 1].iter().all(|&input| apart(out, input));
    (inputs_apart && dead_after(op, intermediate) && dead_after(op, written)).then_some((chain, reshape))
}

/// The text of a function whose body is the fused generic (and the signless view of an
/// unsigned output before it): arguments the chain's inputs, then the cast's output.
fn fused_text(chain: Op, cast: Op, conversion: &Conversion, reshape: Option<&str>) -> Option<String> {
    let printed = chain.get().to_string();
    let body_start = printed.find("^bb0(")?;
    let body_end = printed.rfind('}')?;
    let body = &printed[body_start..body_end];
    let (header, rest) = body.split_once('\n')?;
    // The output's block argument takes the conversion's type.
    let last_type = header.rfind(": ")?;
    let header = format!("{}: {}):", &header[..last_type], conversion.to);
    let yield_at = rest.rfind("linalg.yield ")?;
    let yielded = rest[yield_at + "linalg.yield ".len()..].split(' ').next()?;
    let body = format!(
        "{header}\n{}%fused_cast = {} {yielded} : {} to {}\n      linalg.yield %fused_cast : {}\n",
        &rest[..yield_at],
        conversion.op,
        conversion.from,
        conversion.to,
        conversion.to
    );
    let inputs: Vec<Val> = chain.operands()[..chain.operand_count() - 1].to_vec();
    let input_types: Vec<String> = inputs.iter().map(|v| v.r#type().to_string()).collect();
    let out_t = cast.operand(1).r#type().to_string();
    let signless = signless(&out_t);
    let mut args: Vec<String> = input_types.iter().enumerate().map(|(i, t)| format!("%x{i}: {t}")).collect();
    args.push(format!("%u: {out_t}"));
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("%x{i}")).collect();
    let maps = chain.attribute("indexing_maps")?.to_string();
    // Every loop parallel (`producer`), in the form the generic's parser reads.
    let loops = crate::parallelize::loops(chain.get())?.len();
    let iterators = format!("[{}]", vec!["\"parallel\""; loops].join(", "));
    let mut s = format!("func.func private @fused_cast({}) {{\n", args.join(", "));
    let mut out = if signless != out_t {
        s += &format!("  %v = builtin.unrealized_conversion_cast %u : {out_t} to {signless}\n");
        "%v"
    } else {
        "%u"
    };
    // Written in the chain's shape: the cast's output collapsed as the cast's read expanded.
    let mut written_t = signless.clone();
    if let Some(reassociation) = reshape {
        let shape = strata_lower::ops::static_shape(chain.operands().last()?.r#type()).ok()?;
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        written_t = format!("memref<{}x{}>", dims.join("x"), conversion.to);
        s += &format!("  %w = memref.collapse_shape {out} {reassociation} : {signless} into {written_t}\n");
        out = "%w";
    }
    let ins = if inputs.is_empty() {
        String::new()
    } else {
        format!(" ins({} : {})", names.join(", "), input_types.join(", "))
    };
    s += &format!(
        "  linalg.generic {{indexing_maps = {maps}, iterator_types = {iterators}}}{ins} outs({out} : {written_t}) {{\n{body}  }}\n  return\n}}\n"
    );
    Some(s)
}

/// The text of a function whose body is the cast `op` alone writing its unsigned output
/// through a signless view (arguments: the cast's input, then its output), when the output is
/// unsigned: `strata-vectorize-elementwise` takes no unsigned buffers, so such a cast left
/// unfused (its chain's bytes shared with its output, say) was a scalar loop.
fn signless_text(op: Op, conversion: &Conversion) -> Option<String> {
    let (in_t, out_t) = (op.operand(0).r#type().to_string(), op.operand(1).r#type().to_string());
    let signless = signless(&out_t);
    if signless == out_t {
        return None;
    }
    let maps = op.attribute("indexing_maps")?.to_string();
    let loops = crate::parallelize::loops(op.get())?.len();
    let iterators = format!("[{}]", vec!["\"parallel\""; loops].join(", "));
    let (from, to, conversion) = (&conversion.from, &conversion.to, &conversion.op);
    Some(format!(
        "func.func private @signless_cast(%x0: {in_t}, %u: {out_t}) {{\n  %v = builtin.unrealized_conversion_cast %u : {out_t} to {signless}\n  \
         linalg.generic {{indexing_maps = {maps}, iterator_types = {iterators}}} ins(%x0 : {in_t}) outs(%v : {signless}) {{\n  \
         ^bb0(%in: {from}, %o: {to}):\n    %c = {conversion} %in : {from} to {to}\n    linalg.yield %c : {to}\n  }}\n  return\n}}\n"
    ))
}

impl Pass for FuseCasts {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        let (mut fused, mut signless) = (0, 0);
        let mut erased: Vec<Op> = Vec::new();
        for op in collect(&module, |op| op.is("linalg.generic") && crate::vectorize_elementwise::is_kernel(op)) {
            if erased.contains(&op) {
                continue;
            }
            let Some(conversion) = cast(op) else { continue };
            // No chain to fuse with: an unsigned output still gets its signless view.
            let (chain, text) = match producer(op) {
                Some((chain, reshape)) => (chain, fused_text(chain, op, &conversion, reshape.as_deref())),
                None => (op, signless_text(op, &conversion)),
            };
            let Some(text) = text else { continue };
            let parsed = match cx.strata().parse(&text, "fused cast") {
                Ok(parsed) => parsed,
                Err(e) => {
                    // An optimisation never fails the compile: the pair stays as it was.
                    cx.emit_op_warning(
                        op.get(),
                        format!(
                            "the cast stays a kernel of its own (a Strata bug: its fused kernel does not parse: {e})"
                        ),
                    );
                    continue;
                }
            };
            let function = Op::of(&parsed.body().first_operation().ok_or(PassFailed)?);
            let ops = function.body(0).ok_or(PassFailed)?.ops_before_terminator();
            let block = op.block().ok_or(PassFailed)?;
            let inputs = chain.operand_count() - 1;
            let mut output = op.operand(1);
            for new in ops {
                new.detach();
                block.insert_before(op, new);
                new.set_location_deep(chain.location());
                if new.is("linalg.generic") {
                    for i in 0..inputs {
                        new.set_operand(i, chain.operand(i));
                    }
                    new.set_operand(inputs, output);
                } else {
                    // The views of the output (its signless cast, its collapse), in order.
                    new.set_operand(0, output);
                    output = new.result(0);
                }
            }
            drop(parsed);
            // Safety: the new generic does both ops' work (or the cast's alone, `chain` being
            // the cast); nothing uses their results (ops on buffers have none).
            unsafe {
                op.erase();
                if chain != op {
                    chain.erase();
                }
            }
            erased.extend([op, chain]);
            match chain == op {
                true => signless += 1,
                false => fused += 1,
            }
        }
        cx.bump("fused", fused);
        cx.bump("signless", signless);
        Ok(())
    }
}
