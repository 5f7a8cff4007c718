//! `strata-gpu-map`: turns a function of buffers and loops (after
//! `convert-linalg-to-parallel-loops`) into a sequence of `gpu.launch`es, one per top-level
//! loop nest, ready for `gpu-kernel-outlining`.
//!
//! - A top-level `scf.parallel` becomes a 1-D launch: its parallel dimensions are collapsed
//!   into one linear index over blocks of (at most) 256 threads, guarded against the tail,
//!   and delinearised back into the loop's induction variables. The delinearisation order
//!   follows the body's last store, so consecutive threads write consecutive addresses
//!   (coalesced) whatever order the loop listed its dimensions in. Nested `scf.parallel`s and
//!   `scf.for`s (reductions) stay inside the thread.
//! - Any other run of top-level code with effects (a serial loop, the loads and stores of a
//!   rank-0 op) becomes a one-thread launch.
//! - Views (`memref.view`, `subview`, reshapes, casts), constants and pure arithmetic that a
//!   kernel uses are cloned into it, so after outlining a kernel's only parameters are the
//!   function's arguments: the arena, the weights, the inputs and the outputs. So are loads
//!   from the model's inputs (the leading `strata.input_names` arguments, which compiled code
//!   never writes): an `If`'s condition read and the buffer it selects are computed in each
//!   kernel that uses them, since host code cannot read device memory. With the
//!   bare-pointer calling convention every buffer address in a kernel is then a base
//!   parameter plus a constant offset from the plan.

use melior::ir::operation::OperationRef;
use strata_ir::{Blk, Op, Val};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};

pub static INFO: PassInfo = PassInfo {
    name: "strata-gpu-map",
    summary: "Map each top-level loop nest of a function onto one gpu.launch (collapsed, coalesced 1-D grid), sinking views and constants into the kernels",
    anchor: "func.func",
    options: &[strata_ir::OptionInfo { name: "block-size", kind: strata_ir::OptionKind::Int, default: "256", help: "threads per block (a multiple of 32, at most 1024)" }],
    statistics: &[
        StatisticInfo { name: "parallel-launches", help: "scf.parallel nests mapped onto a grid" },
        StatisticInfo { name: "serial-launches", help: "serial code wrapped into one-thread launches" },
        StatisticInfo { name: "sunk-ops", help: "views, constants and index arithmetic cloned into kernels" },
    ],
};

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(GpuMap { block_size: options.int("block-size") })
}

struct GpuMap {
    block_size: i64,
}

/// One kernel to build: a parallel nest, or a run of serial top-level ops.
enum Group {
    Parallel(Op),
    Serial(Vec<Op>),
}

impl Pass for GpuMap {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        if self.block_size <= 0 || self.block_size % 32 != 0 || self.block_size > 1024 {
            cx.emit_op_error(
                func,
                format!("strata-gpu-map: block-size {} is not a multiple of 32 in 32..=1024", self.block_size),
            );
            return Err(PassFailed);
        }
        let Some(block) = Op::of(&func).body(0) else {
            return Ok(());
        };
        // Loads from the model's inputs, which nothing writes: copied into kernels like views.
        let inputs = strata_ir::attrs::INPUT_NAMES.get(func).map_or(0, |names| names.len());
        let reads_input = move |op: Op| {
            op.is("memref.load")
                && op.operand_count() > 0
                && op.operand(0).owner_block() == Some(block)
                && op.operand(0).argument_number().is_some_and(|index| index < inputs)
        };
        // Split the body into kernels.
        let mut groups = Vec::new();
        let mut serial = Vec::new();
        for current in block.ops_before_terminator() {
            let name = current.name();
            if name == "scf.parallel" {
                if !serial.is_empty() {
                    groups.push(Group::Serial(std::mem::take(&mut serial)));
                }
                groups.push(Group::Parallel(current));
            } else if matches!(name.as_str(), "memref.alloc" | "memref.alloca" | "memref.dealloc") {
                cx.emit_op_error(current.get(), format!("strata-gpu-map: '{name}' on the host is not supported on the GPU path; every buffer must be planned into the arena (plan-arena) first"));
                return Err(PassFailed);
            } else if name == "gpu.launch"
                || ((strata_ir::rewrite::sinkable(&name) || reads_input(current)) && !uses_any(current, &serial))
            {
                // Already a kernel, or cloned into the kernels that use it. (Arithmetic on a
                // value loaded by serial code belongs to that serial code.)
            } else {
                serial.push(current);
            }
        }
        if !serial.is_empty() {
            groups.push(Group::Serial(serial));
        }
        let strata = cx.strata();
        for group in groups {
            let launch = match group {
                Group::Parallel(op) => match self.map_parallel(strata, op) {
                    Ok(Some(launch)) => {
                        cx.bump("parallel-launches", 1);
                        launch
                    }
                    Ok(None) => continue,
                    Err(message) => {
                        cx.emit_op_error(op.get(), format!("strata-gpu-map: {message}"));
                        return Err(PassFailed);
                    }
                },
                Group::Serial(ops) => match wrap_serial(strata, &ops) {
                    Ok(launch) => {
                        cx.bump("serial-launches", 1);
                        launch
                    }
                    Err(message) => {
                        cx.emit_op_error(ops[0].get(), format!("strata-gpu-map: {message}"));
                        return Err(PassFailed);
                    }
                },
            };
            let sunk = sink_into(launch, &reads_input);
            cx.bump("sunk-ops", sunk as u64);
        }
        // The host keeps no read of device memory: input loads (and what was computed from
        // them) now live in the kernels, and their unused originals go.
        let ops = block.ops_before_terminator();
        for &op in ops.iter().rev() {
            if !op.has_uses()
                && (reads_input(op) || (strata_ir::rewrite::sinkable(&op.name()) && op.region_count() == 0))
            {
                // Safety: the op has no uses and nothing else refers to it.
                unsafe { op.erase() };
            }
        }
        Ok(())
    }
}

/// Parses a `func.func @skeleton` holding some constants and one `gpu.launch` whose body is
/// `prefix` then `scf.if`-guarded or plain code, and moves everything before the `return` in
/// front of `anchor`. Returns the launch.
fn insert_skeleton(strata: &strata_ir::StrataContext, text: &str, anchor: Op) -> Result<Op, String> {
    let module = strata
        .parse(text, "strata-gpu-map skeleton")
        .map_err(|e| format!("internal error: skeleton does not parse: {e}"))?;
    let function = strata_ir::Blk::of(&module.body()).first().ok_or("internal error: an empty skeleton")?;
    let body = function.body(0).ok_or("internal error: a skeleton without a body")?;
    let mut launch = None;
    for current in body.ops_before_terminator() {
        if current.is("gpu.launch") {
            launch = Some(current);
        }
        current.move_before(anchor);
    }
    launch.ok_or_else(|| "internal error: skeleton without a launch".into())
}

/// The block of the launch's body (region 0).
fn launch_body(launch: Op) -> Blk {
    launch.body(0).expect("a gpu.launch has a body")
}

impl GpuMap {
    /// The launch replacing the nest `op` (`None` when it has no iterations and is erased).
    fn map_parallel(&self, strata: &strata_ir::StrataContext, op: Op) -> Result<Option<Op>, String> {
        let operands = op.operands();
        if op.result_count() != 0 || !operands.len().is_multiple_of(3) {
            return Err(
                "only scf.parallel without reductions can be mapped (run convert-linalg-to-parallel-loops first)"
                    .into(),
            );
        }
        let rank = operands.len() / 3;
        let constants: Option<Vec<i64>> = operands.iter().map(|&v| v.constant_int()).collect();
        let constants =
            constants.ok_or("the loop bounds are not constants (dynamic shapes are not supported on the GPU path)")?;
        let (lower, upper, step) = (&constants[..rank], &constants[rank..2 * rank], &constants[2 * rank..]);
        if step.iter().any(|&s| s <= 0) {
            return Err("a loop step is not positive".into());
        }
        let extents: Vec<i64> = (0..rank).map(|k| ((upper[k] - lower[k]).max(0) + step[k] - 1) / step[k]).collect();
        let total: i64 = extents.iter().product();
        let body = op.body(0).ok_or("an scf.parallel without a body")?;
        if total == 0 {
            // Safety: the empty nest is not used again.
            unsafe { op.erase() };
            return Ok(None);
        }
        // Dimension order, outermost first: by where each induction variable indexes the
        // body's last store (later index = faster varying), so neighbouring threads write
        // neighbouring elements.
        let ivs: Vec<Val> = (0..rank).map(|k| body.argument(k)).collect();
        let mut position = vec![-1i64; rank];
        if let Some(store) = last_store(op) {
            for (index, operand) in store.operands().into_iter().skip(2).enumerate() {
                if let Some(k) = ivs.iter().position(|&iv| iv == operand) {
                    position[k] = index as i64;
                }
            }
        }
        let mut order: Vec<usize> = (0..rank).collect();
        order.sort_by_key(|&k| position[k]);
        let threads = self.block_size.min((total + 31) / 32 * 32);
        let blocks = (total + threads - 1) / threads;
        // Delinearise, innermost (last in `order`) first; then one `arith.addi` per dimension
        // in loop order, the last ops before the `scf.yield`.
        let mut code = String::new();
        code += &format!("        %rest{rank} = arith.addi %lin, %c0 : index\n");
        let mut level = rank;
        let mut index_of = vec![String::new(); rank];
        for &k in order.iter().rev() {
            level -= 1;
            code += &format!("        %e{k} = arith.constant {} : index\n", extents[k]);
            code += &format!("        %r{k} = arith.remui %rest{}, %e{k} : index\n", level + 1);
            code += &format!("        %rest{level} = arith.divui %rest{}, %e{k} : index\n", level + 1);
            code += &format!(
                "        %s{k} = arith.constant {} : index\n        %l{k} = arith.constant {} : index\n",
                step[k], lower[k]
            );
            code += &format!("        %m{k} = arith.muli %r{k}, %s{k} : index\n");
            index_of[k] = format!("%m{k}");
        }
        for (k, index) in index_of.iter().enumerate() {
            code += &format!("        %iv{k} = arith.addi {index}, %l{k} : index\n");
        }
        let text = format!(
            "func.func @skeleton() {{\n  %c1 = arith.constant 1 : index\n  %grid = arith.constant {blocks} : index\n  %block = arith.constant {threads} : index\n  \
gpu.launch blocks(%bx, %by, %bz) in (%gx = %grid, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %block, %sy = %c1, %sz = %c1) {{\n    \
%c0 = arith.constant 0 : index\n    %per = arith.constant {threads} : index\n    %total = arith.constant {total} : index\n    \
%base = arith.muli %bx, %per : index\n    %lin = arith.addi %base, %tx : index\n    %in = arith.cmpi ult, %lin, %total : index\n    \
scf.if %in {{\n{code}      }}\n    gpu.terminator\n  }}\n  return\n}}\n"
        );
        let launch = insert_skeleton(strata, &text, op)?;
        // The guarded block: the `scf.if` is the last op before the terminator.
        let launch_ops = launch_body(launch).ops();
        let guard = launch_ops[launch_ops.len() - 2];
        let then = guard.body(0).ok_or("internal error: the guard has no body")?.ops();
        let yield_op = then[then.len() - 1];
        // The induction variables: the last `rank` ops before the yield, in loop order.
        let new_ivs: Vec<Val> = then[then.len() - 1 - rank..then.len() - 1].iter().map(|op| op.result(0)).collect();
        for (old, new) in ivs.iter().zip(&new_ivs) {
            old.replace_all_uses_with(*new);
        }
        // Move the loop body (without its `scf.reduce`) into the guard.
        for current in body.ops_before_terminator() {
            current.move_before(yield_op);
        }
        // Safety: the emptied nest is not used again.
        unsafe { op.erase() };
        Ok(Some(launch))
    }
}

/// The last `memref.store` nested in `op` (pre-order), if any.
fn last_store(op: Op) -> Option<Op> {
    op.collect(|nested| nested.is("memref.store")).last().copied()
}

/// Moves `ops` (consecutive top-level ops) into a one-thread launch placed where they were.
fn wrap_serial(strata: &strata_ir::StrataContext, ops: &[Op]) -> Result<Op, String> {
    let Some(&first) = ops.first() else {
        return Err("nothing to launch".into());
    };
    // A value computed here and used by a later top-level op cannot leave the kernel.
    for &op in ops {
        for result in op.results() {
            for owner in result.users() {
                if !ops.iter().any(|&o| o == owner || owner.is_inside(o)) {
                    return Err(format!(
                        "'{}' computes a value that host code uses after it; that cannot run on the GPU path",
                        op.name()
                    ));
                }
            }
        }
    }
    let text = "func.func @skeleton() {\n  %c1 = arith.constant 1 : index\n  \
gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {\n    gpu.terminator\n  }\n  return\n}\n";
    let launch = insert_skeleton(strata, text, first)?;
    let terminator = launch_body(launch).terminator().ok_or("internal error: a launch without a terminator")?;
    for &op in ops {
        op.move_before(terminator);
    }
    Ok(launch)
}

/// Whether an operand of `op` is a result of one of `ops`.
fn uses_any(op: Op, ops: &[Op]) -> bool {
    op.operands().into_iter().any(|value| value.owner().is_some_and(|owner| ops.contains(&owner)))
}

/// Clones into `launch` every sinkable op (or one `also` accepts) defined outside it whose
/// results it uses (transitively), and rewires the uses inside; returns how many ops it cloned.
fn sink_into(launch: Op, also: &dyn Fn(Op) -> bool) -> usize {
    let body = launch_body(launch);
    let Some(insert_before) = body.first() else { return 0 };
    let users = launch.collect(|op| op != launch);
    // What cannot be cloned stays captured: outlining makes it a kernel parameter.
    strata_ir::rewrite::sink_into(launch, &users, insert_before, &mut |_| None, also).0
}
