//! `sg-egraph-optimize`: runs the e-graph optimiser on an `sg` function and rebuilds it from
//! the extracted program.
//!
//! - Kernels, constants and movement ops the program keeps are the original ops, rewired to
//!   their new operands and moved into schedule order.
//! - A fused elementwise kernel becomes one `linalg.generic` on tensors (the design allows an
//!   upstream generic instead of an `sg.fused` op). An operand that is a strided view is not
//!   copied: the generic reads the view's base directly through an affine map
//!   `offset + Σ d_k · stride_k` over the collapsed base. An in-place kernel writes into its
//!   first operand (`outs` is that tensor), so one-shot bufferization reuses its buffer.
//! - A kernel with an epilogue is the original kernel followed by the epilogue's generic,
//!   written over the kernel's result (its only reader) and marked `strata.epilogue`: the host
//!   schedule fuses it into the kernel's tiles (`strata_lower::conv_lanes`); elsewhere it runs
//!   as an in-place kernel.
//! - A view that a kernel, a movement op or an output needs as a tensor is a reshape and a
//!   transpose when it shows a whole buffer with its axes permuted (they lower to vectorised
//!   copies), else `sg.view` (its lowering gathers).
//!
//! The function computes the same values; `sg-to-linalg` lowers what remains.

use crate::graph_with_values;
use melior::ir::attribute::{Attribute, AttributeLike, IntegerAttribute};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::r#type::IntegerType;
use melior::ir::{BlockLike, Identifier, RegionLike, Type, ValueLike};
use mlir_sys::{MlirOperation, MlirValue};
use strata_ir::{Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_lower::elementwise::{binary, unary, Binary};
use strata_lower::kernel::{Body, Elem, Iter, Kernel, KernelCache, Map, TensorTy};
use strata_rewrite::layout::Layout;
use strata_rewrite::program::Arg;
use strata_rewrite::{optimize, EwOp, Limits, Program, Step, Weights};

pub static INFO: PassInfo = PassInfo {
    name: "sg-egraph-optimize",
    summary: "Choose fusion, strided views and in-place writes with the e-graph optimiser and rebuild the function from its choice",
    anchor: "func.func",
    options: &[],
    statistics: &[
        StatisticInfo { name: "launches-before", help: "kernels before" },
        StatisticInfo { name: "launches-after", help: "kernels after" },
        StatisticInfo { name: "allocations-before", help: "buffers before" },
        StatisticInfo { name: "allocations-after", help: "buffers after" },
        StatisticInfo { name: "fused-kernels", help: "elementwise programs (fused or single) emitted as one linalg.generic each" },
        StatisticInfo { name: "in-place-kernels", help: "fused kernels written over an operand" },
        StatisticInfo { name: "epilogues", help: "elementwise programs run by the kernel that feeds them (a generic marked strata.epilogue over the kernel's result)" },
        StatisticInfo { name: "views-as-transposes", help: "views of a whole buffer with permuted axes made tensors by a reshape and a transpose, not a gather" },
    ],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(EgraphOptimize { only: None })
}

/// The pass, with all rules or only some (the phased passes).
pub struct EgraphOptimize {
    pub only: Option<&'static [&'static str]>,
}

fn name_of(op: MlirOperation) -> String {
    strata_ir::ods::op_name(unsafe { OperationRef::from_raw(op) })
}

impl Pass for EgraphOptimize {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        // An optimisation never fails a compile: when anything goes wrong the function stays
        // as it was, and the caller hears why.
        if let Err(why) = self.optimize(func, cx) {
            cx.emit_op_warning(func, format!("sg-egraph-optimize: {why}; the function is left unoptimised"));
        }
        Ok(())
    }
}

impl EgraphOptimize {
    /// Optimises a copy of `func` and, when every step succeeded, moves its body into `func`.
    fn optimize(&self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), String> {
        // Safety: the clone is a new operation owned here until it is destroyed below.
        let copy = unsafe { OperationRef::from_raw(mlir_sys::mlirOperationClone(func.to_raw())) };
        let rebuilt = self.rebuild(copy, cx);
        unsafe {
            if rebuilt.is_ok() {
                let (into, from) =
                    (func.region(0).map_err(|e| e.to_string())?, copy.region(0).map_err(|e| e.to_string())?);
                mlir_sys::mlirRegionTakeBody(into.to_raw(), from.to_raw());
            }
            mlir_sys::mlirOperationDestroy(copy.to_raw());
        }
        rebuilt
    }

    fn rebuild(&self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), String> {
        let (graph, values) = graph_with_values(func)?;
        let limits = Limits { only: self.only, ..Limits::for_graph(graph.nodes.len()) };
        let outcome = optimize(&graph, &limits, &Weights::default())?;
        if outcome.repairs.dropped_in_place {
            cx.emit_op_warning(
                func,
                "sg-egraph-optimize: the in-place choices did not validate after the repair limit; no value is written in place",
            );
        }
        cx.bump("launches-before", outcome.before.launches);
        cx.bump("launches-after", outcome.after.launches);
        cx.bump("allocations-before", outcome.before.allocations);
        cx.bump("allocations-after", outcome.after.allocations);
        let mut rebuild = Rebuild {
            cx,
            func,
            values: &values,
            program: &outcome.program,
            kernels: KernelCache::default(),
            tensors: Vec::new(),
        };
        rebuild.run()
    }
}

/// An operand of a fused kernel: an earlier step's value, or an IR value made for this one.
#[derive(Clone, Copy)]
enum Operand {
    Step(usize),
    Value(MlirValue),
}

struct Rebuild<'a, 'p, 'c> {
    cx: &'a mut PassContext<'p>,
    func: OperationRef<'c, 'a>,
    values: &'a [Option<MlirValue>],
    program: &'a strata_rewrite::Extracted,
    kernels: KernelCache<'p>,
    /// The tensor value of each step, once made.
    tensors: Vec<Option<MlirValue>>,
}

impl Rebuild<'_, '_, '_> {
    fn terminator(&self) -> MlirOperation {
        let block = self.func.region(0).expect("checked by graph_with_values").first_block().expect("a body");
        unsafe { mlir_sys::mlirBlockGetTerminator(block.to_raw()) }
    }

    fn run(&mut self) -> Result<(), String> {
        let terminator = self.terminator();
        let originals: Vec<MlirOperation> = {
            let block = self.func.region(0).map_err(|e| e.to_string())?.first_block().ok_or("no body")?;
            let mut ops = Vec::new();
            let mut op = block.first_operation();
            while let Some(current) = op {
                if current.to_raw().ptr != terminator.ptr {
                    ops.push(current.to_raw());
                }
                op = current.next_in_block();
            }
            ops
        };
        self.tensors = vec![None; self.program.steps.len()];
        for (s, step) in self.program.steps.iter().enumerate() {
            let value = match step {
                Step::Input { node } => Some(self.values[*node].ok_or("an input without a value")?),
                Step::Constant { node } => Some(self.keep(*node, &[])?),
                Step::Kernel { node, args } => {
                    let operands = args.iter().map(|&a| self.tensor(a)).collect::<Result<Vec<_>, _>>()?;
                    Some(self.keep(*node, &operands)?)
                }
                Step::Move { node, arg } => {
                    let operand = self.tensor(*arg)?;
                    match self.values[*node] {
                        Some(_) => Some(self.keep(*node, &[operand])?),
                        // A broadcast the graph made explicit: materialised as a gathering view.
                        None => {
                            let from = &self.program.shapes[*arg].0;
                            let to = &self.program.shapes[s].0;
                            let layout = Layout::contiguous(from)
                                .apply(&strata_rewrite::Op::Broadcast, to)
                                .ok_or("internal error: an explicit broadcast is not a view")?;
                            Some(self.view(operand, &layout)?)
                        }
                    }
                }
                // Made when something needs it as a tensor.
                Step::View { .. } => None,
                Step::Copy { arg } => Some(self.tensor(*arg)?),
                Step::Fused { program, args, in_place } => {
                    let operands: Vec<Operand> = args.iter().map(|&a| Operand::Step(a)).collect();
                    Some(self.fused(s, program, &operands, *in_place, false)?)
                }
                Step::Epilogue { node, args, program, extras } => {
                    // The kernel, then the program over its result written in place and marked:
                    // the host schedule runs it on each result tile inside the kernel.
                    let kernel_operands = args.iter().map(|&a| self.tensor(a)).collect::<Result<Vec<_>, _>>()?;
                    let kernel = self.keep(*node, &kernel_operands)?;
                    let operands: Vec<Operand> = std::iter::once(Operand::Value(kernel))
                        .chain(extras.iter().map(|&a| Operand::Step(a)))
                        .collect();
                    self.cx.bump("epilogues", 1);
                    Some(self.fused(s, program, &operands, true, true)?)
                }
            };
            self.tensors[s] = value;
        }
        let outputs = self.program.outputs.iter().map(|&o| self.tensor(o)).collect::<Result<Vec<_>, _>>()?;
        if outputs.len() != unsafe { mlir_sys::mlirOperationGetNumOperands(terminator) } as usize {
            return Err("the program's outputs do not match the function's results".into());
        }
        for (i, value) in outputs.into_iter().enumerate() {
            unsafe { mlir_sys::mlirOperationSetOperand(terminator, i as isize, value) };
        }
        // The original ops nothing reads any more (replaced or fused away), last first.
        for &op in originals.iter().rev() {
            let unused = (0..unsafe { mlir_sys::mlirOperationGetNumResults(op) }).all(|r| {
                unsafe { mlir_sys::mlirValueGetFirstUse(mlir_sys::mlirOperationGetResult(op, r)) }.ptr.is_null()
            });
            if unused {
                unsafe { mlir_sys::mlirOperationDestroy(op) };
            }
        }
        Ok(())
    }

    /// The original op of graph node `node`, rewired to `operands` (when given) and moved to
    /// the end of the schedule; its result.
    fn keep(&mut self, node: usize, operands: &[MlirValue]) -> Result<MlirValue, String> {
        let value = self.values[node].ok_or("a kernel without a value")?;
        let op = unsafe { mlir_sys::mlirOpResultGetOwner(value) };
        for (i, &operand) in operands.iter().enumerate() {
            unsafe { mlir_sys::mlirOperationSetOperand(op, i as isize, operand) };
        }
        unsafe { mlir_sys::mlirOperationMoveBefore(op, self.terminator()) };
        Ok(value)
    }

    /// Inserts `op` before the terminator (the block takes ownership).
    fn insert(&self, op: melior::ir::operation::Operation<'_>) -> MlirOperation {
        let block = self.func.region(0).expect("checked by graph_with_values").first_block().expect("a body");
        let terminator = block.terminator().expect("a terminator");
        block.insert_operation_before(terminator, op).to_raw()
    }

    /// The tensor value of step `s`, making an `sg.view` for a view.
    fn tensor(&mut self, s: usize) -> Result<MlirValue, String> {
        if let Some(value) = self.tensors[s] {
            return Ok(value);
        }
        let Step::View { base, layout } = &self.program.steps[s] else {
            return Err(format!("step {s} has no value"));
        };
        let base = self.tensor(*base)?;
        let value = self.view(base, layout)?;
        self.tensors[s] = Some(value);
        Ok(value)
    }

    fn view(&mut self, base: MlirValue, layout: &Layout) -> Result<MlirValue, String> {
        let context = self.cx.strata().mlir();
        let base_value = unsafe { melior::ir::Value::from_raw(base) };
        let base_ty = strata_lower::ops::tensor_type(base_value.r#type())?;
        let elem = base_ty.elem.clone();
        let ty = Type::parse(context, &TensorTy::new(layout.shape.clone(), elem.clone()).to_string())
            .ok_or("cannot build the view's type")?;
        let array = |v: &[i64]| {
            let text = if v.is_empty() {
                "array<i64>".to_owned()
            } else {
                format!("array<i64: {}>", v.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))
            };
            Attribute::parse(context, &text).ok_or("cannot build an array attribute")
        };
        let location = self.func.location();
        // A whole buffer with its axes permuted (an attention head split or merge): a reshape
        // and a transpose, which lower to vectorised copies, instead of a gather.
        if let Some((shape, perm)) = layout.as_permuted_reshape(base_ty.numel()) {
            let mut value = base;
            if shape != base_ty.shape {
                let reshaped_ty = Type::parse(context, &TensorTy::new(shape.clone(), elem.clone()).to_string())
                    .ok_or("cannot build the reshape's type")?;
                let op = OperationBuilder::new("sg.reshape", location)
                    .add_operands(&[unsafe { melior::ir::Value::from_raw(value) }])
                    .add_results(&[reshaped_ty])
                    .build()
                    .map_err(|e| e.to_string())?;
                value = unsafe { mlir_sys::mlirOperationGetResult(self.insert(op), 0) };
            }
            if perm.iter().enumerate().any(|(k, &p)| k != p) {
                let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
                let op = OperationBuilder::new("sg.transpose", location)
                    .add_operands(&[unsafe { melior::ir::Value::from_raw(value) }])
                    .add_attributes(&[(Identifier::new(context, "perm"), array(&perm)?)])
                    .add_results(&[ty])
                    .build()
                    .map_err(|e| e.to_string())?;
                value = unsafe { mlir_sys::mlirOperationGetResult(self.insert(op), 0) };
            }
            self.cx.bump("views-as-transposes", 1);
            return Ok(value);
        }
        let op = OperationBuilder::new("sg.view", location)
            .add_operands(&[base_value])
            .add_attributes(&[
                (
                    Identifier::new(context, "offset"),
                    IntegerAttribute::new(IntegerType::new(context, 64).into(), layout.offset).into(),
                ),
                (Identifier::new(context, "sizes"), array(&layout.shape)?),
                (Identifier::new(context, "strides"), array(&layout.strides)?),
            ])
            .add_results(&[ty])
            .build()
            .map_err(|e| e.to_string())?;
        let op = self.insert(op);
        Ok(unsafe { mlir_sys::mlirOperationGetResult(op, 0) })
    }

    /// One `linalg.generic` for a fused program; view operands are read through their base.
    /// `epilogue`: the generic is a kernel's epilogue (its first operand the kernel's result),
    /// marked `strata.epilogue`.
    fn fused(
        &mut self,
        s: usize,
        program: &Program,
        args: &[Operand],
        in_place: bool,
        epilogue: bool,
    ) -> Result<MlirValue, String> {
        let (shape, _) = &self.program.shapes[s];
        // Each operand: its tensor (a view's base) and how the kernel indexes it.
        let mut operands: Vec<MlirValue> = Vec::new();
        let mut types: Vec<TensorTy> = Vec::new();
        let mut views: Vec<Option<Layout>> = Vec::new();
        for arg in args {
            let (value, layout) = match *arg {
                Operand::Value(value) => (value, None),
                Operand::Step(a) => match &self.program.steps[a] {
                    Step::View { base, layout } if self.tensors[a].is_none() => {
                        (self.tensor(*base)?, Some(layout.clone()))
                    }
                    _ => (self.tensor(a)?, None),
                },
            };
            let ty = strata_lower::ops::tensor_type(unsafe { melior::ir::Value::from_raw(value) }.r#type())?;
            operands.push(value);
            types.push(ty);
            views.push(layout);
        }
        let elem = types[0].elem.clone();
        let out = TensorTy::new(shape.clone(), elem.clone());
        let mut k = Kernel::new(types.clone());
        let rank = out.rank();
        let mut inputs: Vec<(String, TensorTy, Map)> = Vec::new();
        for (i, (ty, view)) in types.iter().zip(&views).enumerate() {
            let arg = k.arg(i);
            match view {
                None => inputs.push((arg, ty.clone(), Map::identity(rank))),
                Some(layout) => {
                    // On the base's own axes when the view is a per-axis slice / transpose /
                    // broadcast of it (vectorises like any projected map), else over the
                    // collapsed base.
                    if let Some(exprs) = per_axis_map(&ty.shape, layout) {
                        inputs.push((arg, ty.clone(), Map(exprs)));
                        continue;
                    }
                    let flat = TensorTy::new(vec![ty.numel()], ty.elem.clone());
                    let collapsed = strata_lower::layout::reshape(&mut k, &arg, ty, &flat);
                    let mut expr = layout.offset.to_string();
                    for (d, stride) in layout.strides.iter().enumerate() {
                        expr += &format!(" + d{d} * {stride}");
                    }
                    inputs.push((collapsed, flat, Map(vec![expr])));
                }
            }
        }
        // In place: the kernel's output is its first operand's tensor (not a view of another
        // buffer: at tensor level that would be a copy), which bufferization then reuses.
        let written = in_place && views[0].is_none();
        let init = if written { k.arg(0) } else { k.empty(&out) };
        if written && !epilogue {
            self.cx.bump("in-place-kernels", 1);
        }
        let refs: Vec<(&str, &TensorTy, Map)> = inputs.iter().map(|(v, t, m)| (v.as_str(), t, m.clone())).collect();
        let result =
            k.try_generic(&refs, (&init, &out, Map::identity(rank)), &vec![Iter::Parallel; rank], |b, block_args| {
                body(b, program, block_args, &elem)
            })?;
        k.set_result(result, out.clone());
        let text = format!("module {{\n{}}}\n", k.function("fused"));
        let strata = self.cx.strata();
        let function = self
            .kernels
            .function(strata, &text, "sg-egraph-optimize kernel")
            .map_err(|e| format!("internal error: a fused kernel does not parse: {e}"))?;
        // A placeholder with the kernel's operands and result, replaced by the kernel's body.
        let context = strata.mlir();
        let result_type = Type::parse(context, &out.to_string()).ok_or("cannot build the kernel's type")?;
        let placeholder = OperationBuilder::new("builtin.unrealized_conversion_cast", self.func.location())
            .add_operands(&operands.iter().map(|&v| unsafe { melior::ir::Value::from_raw(v) }).collect::<Vec<_>>())
            .add_results(&[result_type])
            .build()
            .map_err(|e| e.to_string())?;
        let placeholder = self.insert(placeholder);
        // The inlined kernel's result: the op just before the terminator after inlining.
        let terminator = self.terminator();
        unsafe { strata_ir::rewrite::inline_call(function, OperationRef::from_raw(placeholder)) };
        let block = unsafe { mlir_sys::mlirOperationGetBlock(terminator) };
        let mut last = unsafe { mlir_sys::mlirBlockGetFirstOperation(block) };
        let mut previous = last;
        while last.ptr != terminator.ptr {
            previous = last;
            last = unsafe { mlir_sys::mlirOperationGetNextInBlock(last) };
        }
        if name_of(previous) != "linalg.generic" {
            return Err(format!("internal error: the fused kernel ends in '{}'", name_of(previous)));
        }
        if epilogue {
            let unit = Attribute::parse(context, "unit").ok_or("cannot build a unit attribute")?;
            unsafe {
                mlir_sys::mlirOperationSetDiscardableAttributeByName(
                    previous,
                    melior::StringRef::new("strata.epilogue").to_raw(),
                    unit.to_raw(),
                )
            };
        } else {
            self.cx.bump("fused-kernels", 1);
        }
        Ok(unsafe { mlir_sys::mlirOperationGetResult(previous, 0) })
    }
}

/// The view `layout` of a contiguous tensor of shape `base` as one affine expression per base
/// axis (`d_k * step + start`, or a constant `start`), when each view axis walks one base axis
/// (or none: a broadcast) and no base axis is walked twice.
fn per_axis_map(base: &[i64], layout: &Layout) -> Option<Vec<String>> {
    let strides = strata_rewrite::layout::contiguous_strides(base);
    // The starts: the offset in row-major digits.
    let mut rest = layout.offset;
    let mut starts = vec![0i64; base.len()];
    for j in 0..base.len() {
        if strides[j] > 0 && base[j] > 1 {
            starts[j] = rest / strides[j];
            rest -= starts[j] * strides[j];
        }
    }
    if rest != 0 || starts.iter().zip(base).any(|(&s, &n)| s < 0 || s >= n.max(1)) {
        return None;
    }
    let mut walked: Vec<Option<(usize, i64)>> = vec![None; base.len()];
    for (k, (&size, &stride)) in layout.shape.iter().zip(&layout.strides).enumerate() {
        if size == 1 || stride == 0 {
            continue;
        }
        // The base axis with the largest stride that divides this one.
        let j = (0..base.len())
            .filter(|&j| base[j] > 1 && walked[j].is_none() && stride % strides[j] == 0)
            .max_by_key(|&j| strides[j])?;
        let step = stride / strides[j];
        let last = starts[j] + (size - 1) * step;
        if !(0..base[j]).contains(&starts[j]) || !(0..base[j]).contains(&last) {
            return None;
        }
        // `d_k` alone tells linalg the axis has the loop's extent: only for a whole axis.
        if step == 1 && starts[j] == 0 && size != base[j] {
            return None;
        }
        walked[j] = Some((k, step));
    }
    Some(
        (0..base.len())
            .map(|j| match walked[j] {
                Some((k, 1)) if starts[j] == 0 => format!("d{k}"),
                Some((k, step)) => format!("d{k} * {step} + {}", starts[j]),
                None => starts[j].to_string(),
            })
            .collect(),
    )
}

/// The scalar body of a fused program: its steps on the block arguments (the operands).
fn body(b: &mut Body, program: &Program, args: &[String], elem: &Elem) -> Result<String, String> {
    let mut results: Vec<String> = Vec::with_capacity(program.steps.len());
    for (op, operands) in &program.steps {
        let value = |a: &Arg| match *a {
            Arg::Input(i) => args[i].clone(),
            Arg::Step(s) => results[s].clone(),
        };
        let x = value(&operands[0]);
        let result = match op {
            EwOp::Add | EwOp::Sub | EwOp::Mul | EwOp::Div | EwOp::Max | EwOp::Min => {
                let y = value(&operands[1]);
                let which = match op {
                    EwOp::Add => Binary::Add,
                    EwOp::Sub => Binary::Sub,
                    EwOp::Mul => Binary::Mul,
                    EwOp::Div => Binary::Div,
                    EwOp::Max => Binary::Max,
                    _ => Binary::Min,
                };
                binary(b, which, &x, &y, elem)?
            }
            _ => {
                let attr = |name: &str| -> f64 {
                    match (*op, name) {
                        (EwOp::Clip { lo, .. }, "min") => f32::from_bits(lo) as f64,
                        (EwOp::Clip { hi, .. }, "max") => f32::from_bits(hi) as f64,
                        (EwOp::LeakyRelu { alpha }, "alpha") | (EwOp::HardSigmoid { alpha, .. }, "alpha") => {
                            f32::from_bits(alpha) as f64
                        }
                        (EwOp::HardSigmoid { beta, .. }, "beta") => f32::from_bits(beta) as f64,
                        _ => 0.0,
                    }
                };
                unary(b, &format!("sg.{}", op.name()), &x, elem, &attr)?
            }
        };
        results.push(result);
    }
    results.last().cloned().ok_or_else(|| "an empty program".into())
}

#[cfg(test)]
mod tests {
    use super::per_axis_map;
    use strata_rewrite::layout::Layout;
    use strata_rewrite::Op;

    /// Evaluates a per-axis map (`d3 * 2 + 1`, `d0`, `5`) at `at`.
    fn eval(expr: &str, at: &[i64]) -> i64 {
        expr.split(" + ")
            .map(|term| match term.split_once(" * ") {
                Some((d, c)) => at[d[1..].parse::<usize>().unwrap()] * c.parse::<i64>().unwrap(),
                None if term.starts_with('d') => at[term[1..].parse::<usize>().unwrap()],
                None => term.parse().unwrap(),
            })
            .sum()
    }

    #[test]
    fn per_axis_maps_address_the_same_elements() {
        let base = [2i64, 6, 5];
        let contiguous = Layout::contiguous(&base);
        let views = [
            (Op::Slice { starts: vec![1, 2, 0], steps: vec![1, 2, 1] }, vec![1, 2, 5]),
            (Op::Transpose { perm: vec![2, 0, 1] }, vec![5, 2, 6]),
            (Op::Slice { starts: vec![0, 0, 0], steps: vec![1, 1, 1] }, vec![2, 3, 5]),
        ];
        let mut mapped = 0;
        for (op, shape) in views {
            let layout = contiguous.apply(&op, &shape).unwrap();
            let Some(exprs) = per_axis_map(&base, &layout) else { continue };
            mapped += 1;
            let strides = strata_rewrite::layout::contiguous_strides(&base);
            for i in 0..shape[0] {
                for j in 0..shape[1] {
                    for k in 0..shape[2] {
                        let at = [i, j, k];
                        let index: Vec<i64> = exprs.iter().map(|e| eval(e, &at)).collect();
                        assert!(
                            index.iter().zip(&base).all(|(&x, &n)| (0..n).contains(&x)),
                            "{exprs:?} leaves the base at {at:?}"
                        );
                        let address: i64 = index.iter().zip(&strides).map(|(x, s)| x * s).sum();
                        assert_eq!(address, layout.index(&at), "{exprs:?} at {at:?}");
                    }
                }
            }
        }
        assert_eq!(mapped, 2, "the slice with steps and the transpose map per axis; a partial axis from 0 does not");
        // A broadcast of a per-channel bias reads it on its own axis.
        let bias = Layout::contiguous(&[4, 1, 1]).apply(&Op::Broadcast, &[1, 4, 3, 3]).unwrap();
        assert_eq!(per_axis_map(&[4, 1, 1], &bias).unwrap(), vec!["d1", "0", "0"]);
    }
}
