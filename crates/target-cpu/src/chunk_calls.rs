//! `strata-chunk-calls`: a function that calls many outlined kernels in a row calls them
//! through functions of at most `calls` calls each instead.
//!
//! After `strata-outline-kernels` a model's function is mostly a straight line of calls, one per
//! kernel, passing the function's own buffers and constant offsets. LLVM's code generator
//! handles that function as one unit, and its cost grows faster than its calls: a
//! 10k-node graph's function (9999 calls in one basic block) took 1.0 s in `llc -O3`
//! (instruction selection on one DAG for the whole block, live intervals across every call's
//! clobbers), 33 ms per 1000 calls where the 1k-node graph's took 7, and on one thread: the
//! function is one part of the parallel code generation. Each run of consecutive calls (with
//! the constants between them) moves into `func.func private @strata_kernel_calls_<n>`, which
//! takes the function's arguments (with their attributes) and its own copies of the constants
//! the calls pass; one call to it stands in the run's place. Its name makes it a kernel to the
//! code generator (internal, never inlined, compiled in whichever part has room).
//!
//! Only calls without results whose operands are the function's arguments or constants move
//! (what the outlined kernels' calls are); any other op ends a run, and a function with at most
//! `calls` such calls is left as it is (every zoo model). It changes how the calls are
//! compiled, never what runs or in which order.

use crate::outline_kernels::KERNEL_PREFIX;
use melior::ir::attribute::StringAttribute;
use melior::ir::operation::OperationRef;
use strata_ir::{
    Blk, Op, OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val,
};

pub static INFO: PassInfo = PassInfo {
    name: "strata-chunk-calls",
    summary: "Call long runs of outlined kernels through functions of at most `calls` calls each",
    anchor: "builtin.module",
    options: &[OptionInfo {
        name: "calls",
        kind: OptionKind::Int,
        default: "256",
        help: "Most calls one function makes in a row (at least 2)",
    }],
    statistics: &[
        StatisticInfo { name: "chunks", help: "functions made of runs of calls" },
        StatisticInfo { name: "calls", help: "calls moved into them" },
    ],
};

/// The name every function made of a run of calls starts with: a kernel's, to the code generator.
pub const CHUNK_PREFIX: &str = "strata_kernel_calls_";

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(ChunkCalls { calls: options.int("calls").max(2) as usize })
}

struct ChunkCalls {
    calls: usize,
}

impl Pass for ChunkCalls {
    fn run(&mut self, module: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        debug_assert!(CHUNK_PREFIX.starts_with(KERNEL_PREFIX));
        let Some(body) = Op::of(&module).body(0) else { return Ok(()) };
        let functions: Vec<Op> =
            body.ops().into_iter().filter(|op| op.is("func.func") && op.body(0).is_some()).collect();
        let mut next = 0;
        for func in functions {
            let entry = func.body(0).expect("checked above");
            let runs = runs(entry, self.calls);
            if runs.iter().map(Vec::len).sum::<usize>() <= self.calls {
                continue;
            }
            let skeleton = crate::outline_kernels::skeleton(cx.strata(), func).map_err(|why| {
                cx.emit_op_error(func.get(), format!("strata-chunk-calls: {why}"));
                PassFailed
            })?;
            for run in runs.into_iter().filter(|run| run.len() > 1) {
                let name = format!("{CHUNK_PREFIX}{next}");
                next += 1;
                cx.bump("calls", run.len() as u64);
                if let Err(why) = chunk(cx.strata().mlir(), body, func, skeleton, &run, &name) {
                    cx.emit_op_error(func.get(), format!("strata-chunk-calls: {why}"));
                    // Safety: detached, and only copied.
                    unsafe { skeleton.erase() };
                    return Err(PassFailed);
                }
                cx.bump("chunks", 1);
            }
            // Safety: detached, and only copied.
            unsafe { skeleton.erase() };
            // The constants left unused: those only the moved calls passed.
            for constant in entry.ops().into_iter().filter(|op| op.is("arith.constant") && !op.has_uses()) {
                // Safety: unused, and nothing else refers to it.
                unsafe { constant.erase() };
            }
        }
        Ok(())
    }
}

/// The runs of calls of `entry` that may move, each at most `most` calls long, in order:
/// consecutive calls without results whose operands are `entry`'s arguments or constants
/// defined in it (constants between them do not end a run, any other op does).
fn runs(entry: Blk, most: usize) -> Vec<Vec<Op>> {
    let movable = |op: Op| {
        op.is("func.call")
            && op.results().is_empty()
            && op.operands().iter().all(|v| {
                v.owner_block() == Some(entry) && v.argument_number().is_some()
                    || v.owner().is_some_and(|d| d.is("arith.constant") && d.block() == Some(entry))
            })
    };
    let mut runs: Vec<Vec<Op>> = vec![Vec::new()];
    for op in entry.ops_before_terminator() {
        if movable(op) {
            if runs.last().is_some_and(|run| run.len() == most) {
                runs.push(Vec::new());
            }
            runs.last_mut().expect("one run at least").push(op);
        } else if !op.is("arith.constant") && runs.last().is_some_and(|run| !run.is_empty()) {
            runs.push(Vec::new());
        }
    }
    runs.retain(|run| !run.is_empty());
    runs
}

/// Moves `run` (calls of `func`'s entry block, in order) into a copy of `skeleton` named
/// `name`, with its own copies of the constants they pass, and calls it in their place.
fn chunk(
    context: &melior::Context,
    module_body: Blk,
    func: Op,
    skeleton: Op,
    run: &[Op],
    name: &str,
) -> Result<(), String> {
    let entry = func.body(0).ok_or("a function without a body")?;
    let chunk = skeleton.clone_detached();
    chunk.set_attribute("sym_name", StringAttribute::new(context, name).into());
    let body = chunk.body(0).ok_or("the skeleton has no body")?;
    let ret = body.terminator().ok_or("the skeleton has no return")?;
    // The call in the run's place, before its first call.
    let arguments: Vec<melior::ir::Value> = (0..entry.argument_count()).map(|i| entry.argument(i).get()).collect();
    crate::outline_kernels::call_before(context, run[0], name, &arguments)?;
    // Each constant copied once, before the first call that passes it.
    let mut copies: Vec<(Op, Val)> = Vec::new();
    for &op in run {
        op.move_before(ret);
        for (i, value) in op.operands().into_iter().enumerate() {
            let replacement = match value.argument_number() {
                Some(argument) => body.argument(argument),
                None => {
                    let constant = value.owner().ok_or("an operand neither argument nor constant")?;
                    match copies.iter().find(|(c, _)| *c == constant) {
                        Some(&(_, copy)) => copy,
                        None => {
                            let copy = constant.clone_detached();
                            body.insert_before(op, copy);
                            copies.push((constant, copy.result(0)));
                            copy.result(0)
                        }
                    }
                }
            };
            op.set_operand(i, replacement);
        }
    }
    module_body.insert_before(func, chunk);
    Ok(())
}
