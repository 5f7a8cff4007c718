//! `sg-egraph-optimize`: runs the e-graph optimiser on an `sg` function and rebuilds it from
//! the extracted program, in `sg` only (the result re-parses with `strata-opt`).
//!
//! - Kernels, constants and movement ops the program keeps are the original ops, rewired to
//!   their new operands and moved into schedule order.
//! - A fused elementwise kernel becomes one `sg.fused` whose `program` is the extracted flat
//!   program. An operand that is a strided view of a larger buffer is an `sg.view` of it, which
//!   the lowering folds into the kernel's indexing (no copy). `in_place` = 1 when the kernel
//!   writes into its first operand.
//! - A kernel with an epilogue is the original kernel followed by an `sg.fused` with
//!   `epilogue` = 1 over its result: the host schedule runs it inside the kernel's tiles.
//! - A view that a kernel, a movement op or an output needs as a tensor is a reshape and a
//!   transpose when it shows a whole buffer with its axes permuted (they lower to vectorised
//!   copies), else `sg.view` (its lowering gathers).
//!
//! Options: `target` (`host` or `nvptx`) and `vector-lanes` (the host's f32 lanes per vector
//! register, which decide the convolutions that can run epilogues; 0: none). The pass never
//! reads the compiling machine: the driver passes what it detected. The function computes the
//! same values; `sg-to-linalg` lowers what remains.

use crate::{graph_with_values, Target};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::{RankedTensorType, ShapedTypeLike};
use melior::ir::{Attribute, BlockLike, Location, RegionLike, Type, Value, ValueLike};
use strata_dialect_sg as sg;
use strata_egraph::layout::Layout;
use strata_egraph::{optimize, Limits, Program, Step, Weights};
use strata_ir::Error;
use strata_ir::{Op as IrOp, Val};
use strata_ir::{OptionInfo, OptionKind, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo};
use strata_machine::Registers;

pub static INFO: PassInfo = PassInfo {
    name: "sg-egraph-optimize",
    summary: "Choose fusion, strided views and in-place writes with the e-graph optimiser and rebuild the function from its choice",
    anchor: "func.func",
    options: OPTIONS,
    statistics: &[
        StatisticInfo { name: "launches-before", help: "kernels before" },
        StatisticInfo { name: "launches-after", help: "kernels after" },
        StatisticInfo { name: "allocations-before", help: "buffers before" },
        StatisticInfo { name: "allocations-after", help: "buffers after" },
        StatisticInfo { name: "fused-kernels", help: "elementwise programs (fused or single) emitted as one sg.fused each" },
        StatisticInfo { name: "in-place-kernels", help: "fused kernels written over an operand" },
        StatisticInfo { name: "epilogues", help: "elementwise programs run by the kernel that feeds them (an sg.fused with epilogue = 1 over the kernel's result)" },
        StatisticInfo { name: "views-as-transposes", help: "views of a whole buffer with permuted axes made tensors by a reshape and a transpose, not a gather" },
    ],
};

/// The options of `sg-egraph-optimize` and the phased passes.
pub const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        name: "target",
        kind: OptionKind::Enum(&["host", "nvptx"]),
        default: "host",
        help: "what the code runs on: the host schedule runs epilogues inside register-blocked convolutions, the GPU has none",
    },
    OptionInfo {
        name: "vector-lanes",
        kind: OptionKind::Int,
        default: "0",
        help: "f32 lanes of the host's vector registers (16: AVX-512, 8: AVX, 4: SSE); 0: no register blocking known, no epilogues",
    },
    OptionInfo {
        name: "disable",
        kind: OptionKind::String,
        default: "",
        help: "optimisations not to make, comma-separated: views, fusion, epilogues, in-place (what each saves: `cargo xtask bench memory`)",
    },
    OptionInfo {
        name: "max-repairs",
        kind: OptionKind::Int,
        default: "128",
        help: "extractions the storage validator may refuse (each bans the refused in-place writes, a storage's first, and extracts again) before every in-place write is dropped",
    },
];

/// The target the options describe.
pub fn target(options: &PassOptions) -> Target {
    let lanes = options.int("vector-lanes");
    let registers = (options.string("target") == "host" && lanes > 0).then(|| Registers::for_lanes(lanes));
    Target { registers }
}

pub fn create(options: &PassOptions) -> Box<dyn Pass> {
    Box::new(EgraphOptimize::new(None, options))
}

/// The pass, with all rules or only some (the phased passes).
pub struct EgraphOptimize {
    pub only: Option<&'static [&'static str]>,
    pub target: Target,
    /// Refused extractions at most ([`strata_egraph::Limits::repairs`]).
    pub repairs: usize,
    /// The rules of the families the `disable` option names, or why it names none.
    pub skip: Result<Vec<&'static str>, String>,
}

impl EgraphOptimize {
    pub fn new(only: Option<&'static [&'static str]>, options: &PassOptions) -> EgraphOptimize {
        let disable = options.string("disable");
        let families: Vec<&str> = disable.split(',').map(str::trim).filter(|f| !f.is_empty()).collect();
        let repairs = usize::try_from(options.int("max-repairs")).unwrap_or(0);
        EgraphOptimize { only, target: target(options), repairs, skip: strata_egraph::rules::family_rules(&families) }
    }
}

impl Pass for EgraphOptimize {
    fn run(&mut self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed> {
        if let Err(why) = &self.skip {
            cx.emit_op_error(func, format!("{}: option disable: {why}", INFO.name).as_str());
            return Err(PassFailed);
        }
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
    fn optimize(&self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), Error> {
        // The copy is owned here and freed at the end of this scope.
        let copy = IrOp::of(&func).clone_owned();
        let rebuilt = self.rebuild(IrOp::of(&copy).get(), cx);
        if rebuilt.is_ok() {
            let (into, from) = (func.region(0).map_err(|e| e.to_string())?, copy.region(0).map_err(|e| e.to_string())?);
            strata_ir::rewrite::take_body(into, from);
        }
        rebuilt
    }

    fn rebuild(&self, func: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), Error> {
        let (graph, values) = graph_with_values(func, self.target)?;
        let skip = self.skip.clone().unwrap_or_default();
        let limits = Limits { only: self.only, skip, repairs: self.repairs, ..Limits::for_graph(graph.nodes.len()) };
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
        let location = func.location();
        let mut rebuild =
            Rebuild { cx, func, values: &values, program: &outcome.program, tensors: Vec::new(), location };
        rebuild.run()
    }
}

/// An operand of a fused kernel: an earlier step's value, or an IR value made for this one.
#[derive(Clone, Copy)]
enum Operand {
    Step(usize),
    Value(Val),
}

struct Rebuild<'a, 'p, 'c> {
    cx: &'a mut PassContext<'p>,
    func: OperationRef<'c, 'a>,
    values: &'a [Option<Val>],
    program: &'a strata_egraph::Extracted,
    /// The tensor value of each step, once made.
    tensors: Vec<Option<Val>>,
    /// Where the ops made for the current step come from: its origin nodes' locations (so a
    /// fused kernel is named after the ONNX node at its root in diagnostics and profiles).
    location: Location<'c>,
}

impl<'c> Rebuild<'_, '_, 'c> {
    /// The location of step `s`: its origin nodes' ops' locations (a kernel with an epilogue:
    /// the kernel's first), fused when several; a view without origins its base's; the
    /// function's otherwise.
    fn step_location(&self, s: usize) -> Location<'c> {
        // A kernel with an epilogue is named after both.
        let kernel = match &self.program.steps[s] {
            Step::Epilogue { node, .. } => Some(*node),
            _ => None,
        };
        let locations: Vec<Location<'c>> = kernel
            .iter()
            .chain(&self.program.origins[s])
            .filter_map(|&n| self.values.get(n).copied().flatten())
            .filter_map(|value| value.owner())
            .map(|op| op.location())
            .collect();
        match locations.len() {
            // A view made by the optimiser (no node of its own: a reshape and transpose the
            // e-graph composed) belongs to the node whose value it shows.
            0 => match &self.program.steps[s] {
                Step::View { base, .. } => self.step_location(*base),
                _ => self.func.location(),
            },
            1 => locations[0],
            _ => {
                // Safety: the context outlives the function being rebuilt.
                // `to_ref` borrows the `ContextRef`: it must outlive `context` (a temporary would dangle).
                let context_ref = self.func.context();
                let context = unsafe { context_ref.to_ref() };
                Location::fused(context, &locations, Attribute::unit(context))
            }
        }
    }

    fn terminator(&self) -> IrOp {
        IrOp::of(&self.func).body(0).and_then(|b| b.terminator()).expect("checked by graph_with_values")
    }

    fn run(&mut self) -> Result<(), Error> {
        let terminator = self.terminator();
        let originals = IrOp::of(&self.func).body(0).ok_or("no body")?.ops_before_terminator();
        self.tensors = vec![None; self.program.steps.len()];
        for (s, step) in self.program.steps.iter().enumerate() {
            self.location = self.step_location(s);
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
                                .apply(&strata_egraph::Op::Broadcast, to)
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
                    Some(self.fused(s, program, &operands, true, true)?)
                }
            };
            self.tensors[s] = value;
        }
        let outputs = self.program.outputs.iter().map(|&o| self.tensor(o)).collect::<Result<Vec<_>, _>>()?;
        if outputs.len() != terminator.operand_count() {
            return Err(Error::internal("the program's outputs do not match the function's results"));
        }
        for (i, value) in outputs.into_iter().enumerate() {
            terminator.set_operand(i, value);
        }
        // The original ops nothing reads any more (replaced or fused away), last first.
        for &op in originals.iter().rev() {
            // Safety: an original op is erased at most once and not used afterwards.
            unsafe { strata_ir::rewrite::erase_if_unused(op) };
        }
        Ok(())
    }

    /// The original op of graph node `node`, rewired to `operands` (when given) and moved to
    /// the end of the schedule; its result.
    fn keep(&mut self, node: usize, operands: &[Val]) -> Result<Val, Error> {
        let value = self.values[node].ok_or("a kernel without a value")?;
        let op = value.owner().ok_or("a kernel's value is not an op result")?;
        if op.result(0) != value {
            // A further result of a multi-result kernel: the kernel's own step placed it.
            return Ok(value);
        }
        let direct = op.operand_count();
        for (i, &operand) in operands.iter().enumerate().take(direct) {
            op.set_operand(i, operand);
        }
        // The rest are values its regions read (`crate::captures`, in the graph's order).
        if operands.len() > direct {
            for (old, &new) in crate::captures(op).into_iter().zip(&operands[direct..]) {
                if old != new {
                    old.replace_uses_inside(op, new);
                }
            }
        }
        op.move_before(self.terminator());
        Ok(value)
    }

    /// Inserts `op` before the terminator (the block takes ownership).
    fn insert(&self, op: melior::ir::operation::Operation<'_>) -> IrOp {
        let block = self.func.region(0).expect("checked by graph_with_values").first_block().expect("a body");
        let terminator = block.terminator().expect("a terminator");
        IrOp::of(&block.insert_operation_before(terminator, op))
    }

    /// The tensor value of step `s`, making an `sg.view` for a view.
    fn tensor(&mut self, s: usize) -> Result<Val, Error> {
        if let Some(value) = self.tensors[s] {
            return Ok(value);
        }
        let Step::View { base, layout } = &self.program.steps[s] else {
            return Err(Error::from(format!("step {s} has no value")));
        };
        let base = self.tensor(*base)?;
        let value = self.view(base, layout)?;
        self.tensors[s] = Some(value);
        Ok(value)
    }

    fn view(&mut self, base: Val, layout: &Layout) -> Result<Val, Error> {
        let context = self.cx.strata().mlir();
        let base_value = base.get();
        let base_ty = RankedTensorType::try_from(base_value.r#type()).map_err(|_| "a view of a non-tensor")?;
        let elem = base_ty.element();
        let numel: i64 = base_shape(base_value)?.iter().product();
        let location = self.location;
        let tensor = |shape: &[i64]| -> Type {
            RankedTensorType::new(&shape.iter().map(|&d| d as u64).collect::<Vec<_>>(), elem, None).into()
        };
        // A whole buffer with its axes permuted (an attention head split or merge): a reshape
        // and a transpose, which lower to vectorised copies, instead of a gather.
        if let Some((shape, perm)) = layout.as_permuted_reshape(numel) {
            let mut value = base_value;
            if shape != base_shape(base_value)? {
                value = self.insert_value(sg::Reshape::build(context, location, value, tensor(&shape)));
            }
            if perm.iter().enumerate().any(|(k, &p)| k != p) {
                let perm: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
                value = self.insert_value(sg::Transpose::build(context, location, value, &perm, tensor(&layout.shape)));
            }
            self.cx.bump("views-as-transposes", 1);
            return Ok(value.into());
        }
        Ok(self.fold_view(base, layout)?.into())
    }

    /// An `sg.view` of `base` (a gather if computed on its own; folded into a fused kernel's
    /// indexing when only fused kernels read it).
    fn fold_view(&mut self, base: Val, layout: &Layout) -> Result<Value<'static, 'static>, Error> {
        let context = self.cx.strata().mlir();
        let base_value = base.get();
        let base_ty = RankedTensorType::try_from(base_value.r#type()).map_err(|_| "a view of a non-tensor")?;
        let dims: Vec<u64> = layout.shape.iter().map(|&d| d as u64).collect();
        let ty = RankedTensorType::new(&dims, base_ty.element(), None).into();
        let op = sg::View::build(context, self.location, base_value, layout.offset, &layout.shape, &layout.strides, ty);
        Ok(self.insert_value(op))
    }

    /// Inserts `op` before the terminator; its result.
    fn insert_value(&self, op: melior::ir::operation::Operation<'_>) -> Value<'static, 'static> {
        self.insert(op).result(0).get()
    }

    /// One `sg.fused` for a fused program over `args`: a view step that has no tensor yet is an
    /// `sg.view` of its base (folded by the lowering). `epilogue`: the program is a kernel's
    /// epilogue (its first operand the kernel's result), written over that result.
    fn fused(
        &mut self,
        s: usize,
        program: &Program,
        args: &[Operand],
        in_place: bool,
        epilogue: bool,
    ) -> Result<Val, Error> {
        let mut operands: Vec<Value> = Vec::new();
        let mut first_is_view = false;
        for (i, arg) in args.iter().enumerate() {
            let value = match *arg {
                Operand::Value(value) => value.get(),
                Operand::Step(a) => match &self.program.steps[a] {
                    Step::View { base, layout } if self.tensors[a].is_none() => {
                        first_is_view |= i == 0;
                        let base = self.tensor(*base)?;
                        self.fold_view(base, layout)?
                    }
                    _ => self.tensor(a)?.get(),
                },
            };
            operands.push(value);
        }
        let context = self.cx.strata().mlir();
        let (shape, _) = &self.program.shapes[s];
        let elem =
            RankedTensorType::try_from(operands[0].r#type()).map_err(|_| "a fused operand is not a tensor")?.element();
        let ty = RankedTensorType::new(&shape.iter().map(|&d| d as u64).collect::<Vec<_>>(), elem, None).into();
        // In place: into the first operand's own buffer, not into a view of another one (at
        // tensor level that would be a copy).
        let written = in_place && !first_is_view;
        let op = sg::Fused::build(
            context,
            self.location,
            &operands,
            &program.to_string(),
            (written && !epilogue).then_some(1),
            epilogue.then_some(1),
            None,
            None,
            ty,
        );
        if epilogue {
            self.cx.bump("epilogues", 1);
        } else {
            self.cx.bump("fused-kernels", 1);
            if written {
                self.cx.bump("in-place-kernels", 1);
            }
        }
        Ok(self.insert_value(op).into())
    }
}

/// The static shape of a tensor value.
fn base_shape(value: Value<'_, '_>) -> Result<Vec<i64>, Error> {
    let ty = RankedTensorType::try_from(value.r#type()).map_err(|_| "not a tensor")?;
    (0..ty.rank())
        .map(|i| match ty.dim_size(i) {
            Ok(melior::ir::r#type::DimSize::Static(n)) => Ok(n as i64),
            _ => Err(Error::from("a dynamic dimension".to_owned())),
        })
        .collect()
}
