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
//!   function's arguments: the arena, the weights, the inputs and the outputs. With the
//!   bare-pointer calling convention every buffer address in a kernel is then a base
//!   parameter plus a constant offset from the plan.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::ValueLike;
use mlir_sys::*;
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

/// Ops that only compute an address or a value from other values: cloned into every kernel
/// that uses them rather than captured as kernel parameters.
fn sinkable(name: &str) -> bool {
    matches!(
        name,
        "memref.view"
            | "memref.subview"
            | "memref.expand_shape"
            | "memref.collapse_shape"
            | "memref.reinterpret_cast"
            | "memref.transpose"
            | "memref.cast"
            | "memref.get_global"
            | "affine.apply"
            | "builtin.unrealized_conversion_cast"
    ) || name.starts_with("arith.")
        || name.starts_with("math.")
        || name.starts_with("index.")
}

fn name_of(op: MlirOperation) -> String {
    strata_ir::ods::op_name(unsafe { OperationRef::from_raw(op) })
}

/// One kernel to build: a parallel nest, or a run of serial top-level ops.
enum Group {
    Parallel(MlirOperation),
    Serial(Vec<MlirOperation>),
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
        let block = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(func.to_raw(), 0)) };
        if block.ptr.is_null() {
            return Ok(());
        }
        // Split the body into kernels.
        let mut groups = Vec::new();
        let mut serial = Vec::new();
        let terminator = unsafe { mlirBlockGetTerminator(block) };
        let mut current = unsafe { mlirBlockGetFirstOperation(block) };
        while !current.ptr.is_null() && current.ptr != terminator.ptr {
            let name = name_of(current);
            if name == "scf.parallel" {
                if !serial.is_empty() {
                    groups.push(Group::Serial(std::mem::take(&mut serial)));
                }
                groups.push(Group::Parallel(current));
            } else if matches!(name.as_str(), "memref.alloc" | "memref.alloca" | "memref.dealloc") {
                cx.emit_op_error(unsafe { OperationRef::from_raw(current) }, format!("strata-gpu-map: '{name}' on the host is not supported on the GPU path; every buffer must be planned into the arena (plan-arena) first"));
                return Err(PassFailed);
            } else if name == "gpu.launch" || (sinkable(&name) && !uses_any(current, &serial)) {
                // Already a kernel, or cloned into the kernels that use it. (Arithmetic on a
                // value loaded by serial code belongs to that serial code.)
            } else {
                serial.push(current);
            }
            current = unsafe { mlirOperationGetNextInBlock(current) };
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
                        cx.emit_op_error(unsafe { OperationRef::from_raw(op) }, format!("strata-gpu-map: {message}"));
                        return Err(PassFailed);
                    }
                },
                Group::Serial(ops) => match wrap_serial(strata, &ops) {
                    Ok(launch) => {
                        cx.bump("serial-launches", 1);
                        launch
                    }
                    Err(message) => {
                        cx.emit_op_error(
                            unsafe { OperationRef::from_raw(ops[0]) },
                            format!("strata-gpu-map: {message}"),
                        );
                        return Err(PassFailed);
                    }
                },
            };
            let sunk = sink_into(launch);
            cx.bump("sunk-ops", sunk as u64);
        }
        Ok(())
    }
}

/// The value of a constant `index` operand.
fn constant_index(value: MlirValue) -> Option<i64> {
    unsafe {
        if !mlirValueIsAOpResult(value) {
            return None;
        }
        let op = mlirOpResultGetOwner(value);
        if name_of(op) != "arith.constant" {
            return None;
        }
        let attribute = mlirOperationGetAttributeByName(op, melior::StringRef::new("value").to_raw());
        mlirAttributeIsAInteger(attribute).then(|| mlirIntegerAttrGetValueInt(attribute))
    }
}

/// Parses a `func.func @skeleton` holding some constants and one `gpu.launch` whose body is
/// `prefix` then `scf.if`-guarded or plain code, and moves everything before the `return` in
/// front of `anchor`. Returns the launch.
fn insert_skeleton(
    strata: &strata_ir::StrataContext,
    text: &str,
    anchor: MlirOperation,
) -> Result<MlirOperation, String> {
    let module = strata
        .parse(text, "strata-gpu-map skeleton")
        .map_err(|e| format!("internal error: skeleton does not parse: {e}"))?;
    let mut launch = None;
    unsafe {
        let function = mlirBlockGetFirstOperation(mlirModuleGetBody(module.to_raw()));
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
        let terminator = mlirBlockGetTerminator(body);
        let mut current = mlirBlockGetFirstOperation(body);
        while current.ptr != terminator.ptr {
            let next = mlirOperationGetNextInBlock(current);
            if name_of(current) == "gpu.launch" {
                launch = Some(current);
            }
            mlirOperationMoveBefore(current, anchor);
            current = next;
        }
    }
    launch.ok_or_else(|| "internal error: skeleton without a launch".into())
}

/// The block of the launch's body (region 0).
fn launch_body(launch: MlirOperation) -> MlirBlock {
    unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(launch, 0)) }
}

impl GpuMap {
    /// The launch replacing the nest `op` (`None` when it has no iterations and is erased).
    fn map_parallel(
        &self,
        strata: &strata_ir::StrataContext,
        op: MlirOperation,
    ) -> Result<Option<MlirOperation>, String> {
        let parallel = unsafe { OperationRef::from_raw(op) };
        let operands: Vec<MlirValue> = parallel.operands().map(|v| v.to_raw()).collect();
        if parallel.result_count() != 0 || !operands.len().is_multiple_of(3) {
            return Err(
                "only scf.parallel without reductions can be mapped (run convert-linalg-to-parallel-loops first)"
                    .into(),
            );
        }
        let rank = operands.len() / 3;
        let constants: Option<Vec<i64>> = operands.iter().map(|&v| constant_index(v)).collect();
        let constants =
            constants.ok_or("the loop bounds are not constants (dynamic shapes are not supported on the GPU path)")?;
        let (lower, upper, step) = (&constants[..rank], &constants[rank..2 * rank], &constants[2 * rank..]);
        if step.iter().any(|&s| s <= 0) {
            return Err("a loop step is not positive".into());
        }
        let extents: Vec<i64> = (0..rank).map(|k| ((upper[k] - lower[k]).max(0) + step[k] - 1) / step[k]).collect();
        let total: i64 = extents.iter().product();
        let body = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)) };
        if total == 0 {
            unsafe { mlirOperationDestroy(op) };
            return Ok(None);
        }
        // Dimension order, outermost first: by where each induction variable indexes the
        // body's last store (later index = faster varying), so neighbouring threads write
        // neighbouring elements.
        let ivs: Vec<MlirValue> = (0..rank).map(|k| unsafe { mlirBlockGetArgument(body, k as isize) }).collect();
        let mut position = vec![-1i64; rank];
        if let Some(store) = last_store(parallel) {
            let store = unsafe { OperationRef::from_raw(store) };
            for (index, operand) in store.operands().skip(2).enumerate() {
                if let Some(k) = ivs.iter().position(|iv| iv.ptr == operand.to_raw().ptr) {
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
        unsafe {
            // The guarded block: the `scf.if` is the last op before the terminator.
            let launch_ops = block_ops(launch_body(launch));
            let guard = launch_ops[launch_ops.len() - 2];
            let then = block_ops(mlirRegionGetFirstBlock(mlirOperationGetRegion(guard, 0)));
            let yield_op = then[then.len() - 1];
            // The induction variables: the last `rank` ops before the yield, in loop order.
            let new_ivs: Vec<MlirValue> =
                then[then.len() - 1 - rank..then.len() - 1].iter().map(|&op| mlirOperationGetResult(op, 0)).collect();
            for (old, new) in ivs.iter().zip(&new_ivs) {
                mlirValueReplaceAllUsesOfWith(*old, *new);
            }
            // Move the loop body (without its `scf.reduce`) into the guard.
            let old_terminator = mlirBlockGetTerminator(body);
            let mut current = mlirBlockGetFirstOperation(body);
            while current.ptr != old_terminator.ptr {
                let next = mlirOperationGetNextInBlock(current);
                mlirOperationMoveBefore(current, yield_op);
                current = next;
            }
            mlirOperationDestroy(op);
        }
        Ok(Some(launch))
    }
}

/// The ops of `block`, in order.
fn block_ops(block: MlirBlock) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    let mut current = unsafe { mlirBlockGetFirstOperation(block) };
    while !current.ptr.is_null() {
        ops.push(current);
        current = unsafe { mlirOperationGetNextInBlock(current) };
    }
    ops
}

/// The last `memref.store` nested in `op` (pre-order), if any.
fn last_store(op: OperationRef<'_, '_>) -> Option<MlirOperation> {
    strata_ir::rewrite::collect(op, |nested| strata_ir::ods::op_name(nested) == "memref.store").last().copied()
}

/// Moves `ops` (consecutive top-level ops) into a one-thread launch placed where they were.
fn wrap_serial(strata: &strata_ir::StrataContext, ops: &[MlirOperation]) -> Result<MlirOperation, String> {
    let Some(&first) = ops.first() else {
        return Err("nothing to launch".into());
    };
    // A value computed here and used by a later top-level op cannot leave the kernel.
    for &op in ops {
        let op_ref = unsafe { OperationRef::from_raw(op) };
        for result in op_ref.results() {
            for owner in strata_ir::rewrite::users(result.into()) {
                if !ops.iter().any(|&o| o.ptr == owner.ptr || is_inside(owner, o)) {
                    return Err(format!(
                        "'{}' computes a value that host code uses after it; that cannot run on the GPU path",
                        name_of(op)
                    ));
                }
            }
        }
    }
    let text = "func.func @skeleton() {\n  %c1 = arith.constant 1 : index\n  \
gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {\n    gpu.terminator\n  }\n  return\n}\n";
    let launch = insert_skeleton(strata, text, first)?;
    let terminator = unsafe { mlirBlockGetTerminator(launch_body(launch)) };
    for &op in ops {
        unsafe { mlirOperationMoveBefore(op, terminator) };
    }
    Ok(launch)
}

/// Whether an operand of `op` is a result of one of `ops`.
fn uses_any(op: MlirOperation, ops: &[MlirOperation]) -> bool {
    (0..unsafe { mlirOperationGetNumOperands(op) }).any(|i| {
        let value = unsafe { mlirOperationGetOperand(op, i) };
        let result = unsafe { mlirValueIsAOpResult(value) };
        result && ops.iter().any(|o| o.ptr == unsafe { mlirOpResultGetOwner(value) }.ptr)
    })
}

/// Whether `op` is nested (at any depth) inside `ancestor`.
fn is_inside(op: MlirOperation, ancestor: MlirOperation) -> bool {
    let mut current = unsafe { mlirOperationGetParentOperation(op) };
    while !current.ptr.is_null() {
        if current.ptr == ancestor.ptr {
            return true;
        }
        current = unsafe { mlirOperationGetParentOperation(current) };
    }
    false
}

/// Clones into `launch` every sinkable op defined outside it whose results it uses
/// (transitively), and rewires the uses inside; returns how many ops it cloned.
fn sink_into(launch: MlirOperation) -> usize {
    let body = launch_body(launch);
    let insert_before = unsafe { mlirBlockGetFirstOperation(body) };
    let mut clones: Vec<(MlirValue, MlirValue)> = Vec::new();
    let mut count = 0;
    let users = strata_ir::rewrite::collect(unsafe { OperationRef::from_raw(launch) }, |_| true);
    for user in users {
        if user.ptr == launch.ptr {
            continue;
        }
        let operands = unsafe { mlirOperationGetNumOperands(user) };
        for index in 0..operands {
            let value = unsafe { mlirOperationGetOperand(user, index) };
            if let Some(sunk) = sink_value(value, launch, body, insert_before, &mut clones, &mut count) {
                unsafe { mlirOperationSetOperand(user, index, sunk) };
            }
        }
    }
    count
}

/// The in-kernel replacement for `value`, cloning its defining op (and its operands'
/// defining ops first) when it is sinkable and defined outside `launch`.
fn sink_value(
    value: MlirValue,
    launch: MlirOperation,
    body: MlirBlock,
    insert_before: MlirOperation,
    clones: &mut Vec<(MlirValue, MlirValue)>,
    count: &mut usize,
) -> Option<MlirValue> {
    if let Some(&(_, new)) = clones.iter().find(|(old, _)| old.ptr == value.ptr) {
        return Some(new);
    }
    unsafe {
        if !mlirValueIsAOpResult(value) {
            return None;
        }
        let definer = mlirOpResultGetOwner(value);
        if definer.ptr == launch.ptr
            || is_inside(definer, launch)
            || !sinkable(&name_of(definer))
            || mlirOperationGetNumRegions(definer) != 0
        {
            return None;
        }
        let operands = mlirOperationGetNumOperands(definer);
        let sunk_operands: Vec<Option<MlirValue>> = (0..operands)
            .map(|i| sink_value(mlirOperationGetOperand(definer, i), launch, body, insert_before, clones, count))
            .collect();
        let clone = mlirOperationClone(definer);
        for (i, sunk) in sunk_operands.into_iter().enumerate() {
            if let Some(sunk) = sunk {
                mlirOperationSetOperand(clone, i as isize, sunk);
            }
        }
        mlirBlockInsertOwnedOperationBefore(body, insert_before, clone);
        *count += 1;
        for r in 0..mlirOperationGetNumResults(definer) {
            clones.push((mlirOperationGetResult(definer, r), mlirOperationGetResult(clone, r)));
        }
        clones.iter().find(|(old, _)| old.ptr == value.ptr).map(|&(_, new)| new)
    }
}
