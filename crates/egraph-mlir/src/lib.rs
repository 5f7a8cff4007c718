//! `strata-egraph-mlir` is the MLIR adapter of `strata-egraph`: it reads an `sg` function as
//! a plain [`Graph`] (block arguments are inputs, constants are constants, the elementwise
//! ops with implicit broadcasting become explicit broadcasts plus elementwise nodes, slice /
//! transpose / reshape / expand are movement nodes, every other op is an opaque kernel) and
//! reports what the e-graph optimiser makes of it (`strata compile --emit=rewrite-report`).
//! Decisions are all `strata-egraph`'s; this crate only reads IR.

pub mod inline_branches;
pub mod outline_branches;
pub mod pass;
pub mod phases;

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::ShapedTypeLike;
use melior::ir::r#type::TypeLike;
use melior::ir::{BlockLike, RegionLike, Type, ValueLike};
use std::collections::BTreeMap;
use strata_dialect_sg::SgOp;
use strata_egraph::{Graph, Op, Outcome};
use strata_ir::Error;
use strata_ir::Val;
pub use strata_machine::Registers;

/// Registers `sg-egraph-optimize` and the phased passes.
pub fn register(registry: &mut strata_ir::PassRegistry) {
    registry.register(&pass::INFO, pass::create);
    registry.register(&phases::VIEWS, phases::create_views);
    registry.register(&phases::FUSE, phases::create_fuse);
    registry.register(&phases::INPLACE, phases::create_inplace);
    registry.register(&outline_branches::INFO, outline_branches::create);
    registry.register(&inline_branches::INFO, inline_branches::create);
}

/// What the optimiser is told of the target (the pass never reads the compiling machine): the
/// vector registers the host schedule blocks convolutions in, when the target is a CPU whose
/// schedule runs epilogues inside those blocks; `None` for the GPU (no kernel takes an
/// epilogue there).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Target {
    pub registers: Option<Registers>,
}

/// Shape and element bytes of a static ranked tensor type, or of a scalar (an `If`'s
/// condition read out of its tensor) as a tensor of rank 0.
fn tensor(ty: Type<'_>) -> Result<(Vec<i64>, u64), Error> {
    if ty.is_integer() || ty.is_float() || ty.is_index() {
        let bits = if ty.is_index() { Some(64) } else { strata_ir::handle::bit_width(ty) };
        let bits = bits.ok_or_else(|| Error::unsupported(format!("scalar type {ty} has no size")))?;
        return Ok((Vec::new(), bits.div_ceil(8).max(1)));
    }
    let t = strata_ir::types::ranked_tensor(ty).ok_or_else(|| format!("expected a ranked tensor, got {ty}"))?;
    let shape = (0..t.rank())
        .map(|i| match t.dim_size(i) {
            Ok(melior::ir::r#type::DimSize::Static(n)) => Ok(n as i64),
            _ => Err(Error::unsupported(format!("dimension {i} of {ty} is not static"))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let element = t.element();
    let bits = strata_ir::handle::bit_width(element)
        .ok_or_else(|| Error::unsupported(format!("element type {element} has no size")))?;
    Ok((shape, bits.div_ceil(8).max(1)))
}

/// The element type of a tensor type, as text.
fn element_of(ty: Type<'_>) -> Option<String> {
    strata_ir::types::tensor_element_name(ty)
}

/// Whether the lowering runs an elementwise epilogue inside this kernel: an f32 convolution
/// (one group) that the host schedule register-blocks on `target` (`strata_machine::conv_block`),
/// which applies the epilogue to each result tile in registers.
fn takes_epilogue(op: SgOp<'_, '_>, shape: &[i64], target: Target) -> bool {
    let (SgOp::Conv2d(conv), Some(registers)) = (op, target.registers) else { return false };
    let f32_result = element_of(conv.output().r#type()).is_some_and(|e| e == "f32");
    f32_result
        && conv.group() == 1
        && shape.len() == 4
        && tensor(conv.filter().r#type()).is_ok_and(|(w, _)| {
            let window = w.iter().skip(2).product::<i64>();
            let column_stride = conv.strides().get(1).copied().unwrap_or(1).max(1);
            let taps = w.get(1).copied().unwrap_or(1) * window;
            // Whether a block exists, columns or filters in the lanes: the same on any threads.
            strata_machine::conv_block(shape[2], shape[3], shape[1], taps, window, column_stride, registers, 1)
                .is_some()
        })
}

/// The values an op's regions read from outside it (an `If` branch reading the function's
/// values), in the order they are first read, each once. The graph makes them inputs of the
/// op's opaque kernel, so the optimiser keeps them alive and unwritten until it runs; the
/// rebuild rewires the reads inside when a value is replaced.
pub(crate) fn captures(op: strata_ir::Op) -> Vec<Val> {
    let mut found: Vec<Val> = Vec::new();
    if op.region_count() == 0 {
        return found;
    }
    for nested in op.collect(|nested| nested != op) {
        for value in nested.operands() {
            if !strata_ir::rewrite::defined_inside(value, op) && !found.contains(&value) {
                found.push(value);
            }
        }
    }
    found
}

/// The graph of `func` (an `sg` function on tensors).
pub fn graph_of(func: OperationRef<'_, '_>, target: Target) -> Result<Graph, Error> {
    graph_with_values(func, target).map(|(graph, _)| graph)
}

/// The graph of `func`, with the IR value each graph node stands for (`None` for the
/// broadcasts made explicit, which have no value of their own).
pub fn graph_with_values(func: OperationRef<'_, '_>, target: Target) -> Result<(Graph, Vec<Option<Val>>), Error> {
    let block = func.region(0).ok().and_then(|r| r.first_block()).ok_or("the function has no body")?;
    let mut graph = Graph::default();
    let mut values: Vec<Option<Val>> = Vec::new();
    let mut node_of: BTreeMap<usize, usize> = BTreeMap::new();
    let key = |v: Val| v.raw().ptr as usize;
    for i in 0..block.argument_count() {
        let arg = block.argument(i).map_err(|e| e.to_string())?;
        let (shape, bytes) = tensor(arg.r#type())?;
        let n = graph.add(Op::Input(i), &[], &shape, bytes);
        node_of.insert(key(Val::of(arg)), n);
        values.push(Some(Val::of(arg)));
    }
    let mut constants = 0;
    let mut op = block.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        let name = strata_ir::ods::op_name(current);
        if name == "func.return" {
            for operand in current.operands() {
                let n =
                    *node_of.get(&key(Val::of(operand))).ok_or("a returned value is not defined in the function")?;
                graph.outputs.push(n);
            }
            continue;
        }
        if current.result_count() == 0 {
            return Err(Error::unsupported(format!("'{name}' has no result; the e-graph handles ops with results")));
        }
        let result = current.result(0).map_err(|e| e.to_string())?;
        let (shape, bytes) = tensor(result.r#type())?;
        let mut inputs = Vec::new();
        let reads = current.operands().map(Val::of).chain(captures(strata_ir::Op::of(&current)));
        for value in reads {
            inputs.push(
                *node_of
                    .get(&key(value))
                    .ok_or_else(|| format!("'{name}' reads a value defined outside the function's top level"))?,
            );
        }
        let same_type = current.operands().all(|o| element_of(o.r#type()) == element_of(result.r#type()));
        let n = match SgOp::of(current) {
            None if name == "arith.constant" => {
                constants += 1;
                graph.add(Op::Constant(constants - 1), &[], &shape, bytes)
            }
            // Elementwise ops whose operands and result share one element type are fusable:
            // implicit broadcasting becomes an explicit broadcast (a view candidate).
            Some(SgOp::Elementwise(e)) if same_type => {
                let operands: Vec<usize> = inputs
                    .iter()
                    .map(|&i| {
                        if graph.nodes[i].shape == shape {
                            i
                        } else {
                            graph.add(Op::Broadcast, &[i], &shape, graph.nodes[i].elem_bytes)
                        }
                    })
                    .collect();
                graph.add(Op::Elementwise(e.scalar()), &operands, &shape, bytes)
            }
            Some(SgOp::Slice(slice)) => {
                graph.add(Op::Slice { starts: slice.starts(), steps: slice.steps() }, &inputs, &shape, bytes)
            }
            Some(SgOp::Transpose(t)) => {
                let perm = t.perm().into_iter().map(|p| p as usize).collect();
                graph.add(Op::Transpose { perm }, &inputs, &shape, bytes)
            }
            Some(SgOp::Reshape(_)) => graph.add(Op::Reshape, &inputs, &shape, bytes),
            Some(SgOp::Expand(_)) => graph.add(Op::Broadcast, &inputs, &shape, bytes),
            // Everything else (and ops of other dialects) is an opaque kernel.
            sg => {
                let n = graph.add(Op::Kernel(name.clone()), &inputs, &shape, bytes);
                if sg.is_some_and(|sg| takes_epilogue(sg, &shape, target)) {
                    graph.epilogue_kernels.insert(n);
                }
                n
            }
        };
        node_of.insert(key(Val::of(result)), n);
        values.resize(graph.nodes.len(), None);
        values[n] = Some(Val::of(result));
        // A kernel's further results (an LSTM's final states): opaque nodes reading the kernel's
        // node, so that they are placed after it; the rebuild keeps them where the kernel is.
        for k in 1..current.result_count() {
            let extra = current.result(k).map_err(|e| e.to_string())?;
            let (shape, bytes) = tensor(extra.r#type())?;
            let p = graph.add(Op::Kernel(format!("{name}#{k}")), &[n], &shape, bytes);
            node_of.insert(key(Val::of(extra)), p);
            values.resize(graph.nodes.len(), None);
            values[p] = Some(Val::of(extra));
        }
    }
    graph.validate()?;
    Ok((graph, values))
}

/// The report of `strata compile --emit=rewrite-report`: text, and JSON with the keys
/// `before` and `after` (each `allocations`, `bytes_allocated`, `launches`, `bytes_copied`,
/// `bytes_retained`), `rules_fired`, `enodes`, `eclasses`, `graph_nodes`, `iterations`,
/// `stop`, `repairs`, `time_ms`.
pub fn report(graph: &Graph, outcome: &Outcome, time: std::time::Duration) -> (String, serde_json::Value) {
    let metrics = |m: &strata_egraph::Metrics| {
        serde_json::json!({
            "allocations": m.allocations,
            "bytes_allocated": m.bytes_allocated,
            "launches": m.launches,
            "bytes_copied": m.bytes_copied,
            "bytes_retained": m.bytes_retained,
        })
    };
    let json = serde_json::json!({
        "before": metrics(&outcome.before),
        "after": metrics(&outcome.after),
        "rules_fired": outcome.rules_fired,
        "graph_nodes": graph.nodes.len(),
        "enodes": outcome.enodes,
        "initial_enodes": outcome.initial_enodes,
        "eclasses": outcome.eclasses,
        "iterations": outcome.iterations,
        "stop": format!("{:?}", outcome.stop),
        "repairs": outcome.repairs.refused,
        "in_place_dropped": outcome.repairs.dropped_in_place,
        "time_ms": time.as_secs_f64() * 1e3,
    });
    let (b, a) = (&outcome.before, &outcome.after);
    let row = |name: &str, x: u64, y: u64| format!("{name:<16} {x:>12} {y:>12}\n");
    let mut text = format!("{:<16} {:>12} {:>12}\n", "", "before", "after");
    text += &row("allocations", b.allocations, a.allocations);
    text += &row("bytes allocated", b.bytes_allocated, a.bytes_allocated);
    text += &row("launches", b.launches, a.launches);
    text += &row("bytes copied", b.bytes_copied, a.bytes_copied);
    text += &row("bytes retained", b.bytes_retained, a.bytes_retained);
    text += "program:\n";
    for (i, step) in outcome.program.steps.iter().enumerate() {
        use strata_egraph::Step;
        let name = |node: usize| match &graph.nodes[node].op {
            Op::Kernel(name) => name.clone(),
            op => format!("{op:?}").split([' ', '{', '(']).next().unwrap_or("?").to_lowercase(),
        };
        let line = match step {
            Step::Input { node } => format!("input (node {node})"),
            Step::Constant { node } => format!("constant (node {node})"),
            Step::Kernel { node, args } => {
                format!("{}({})", name(*node), args.iter().map(|a| format!("%{a}")).collect::<Vec<_>>().join(", "))
            }
            Step::Epilogue { node, args, program, extras } => format!(
                "{}({}) then [{}] ({})",
                name(*node),
                args.iter().map(|a| format!("%{a}")).collect::<Vec<_>>().join(", "),
                program,
                std::iter::once("result".to_string())
                    .chain(extras.iter().map(|a| format!("%{a}")))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Step::Move { node, arg } => format!("{} %{arg} (copy)", name(*node)),
            Step::Fused { program, args, in_place } => {
                let list = args.iter().map(|a| format!("%{a}")).collect::<Vec<_>>().join(", ");
                match in_place {
                    true => format!("fused! [{}] ({list}), written over %{}", program, args[0]),
                    false => format!("fused [{}] ({list})", program),
                }
            }
            Step::View { base, layout } => {
                format!("view %{base} shape {:?} strides {:?} offset {}", layout.shape, layout.strides, layout.offset)
            }
            Step::Copy { arg } => format!("copy %{arg}"),
        };
        text += &format!("  %{i} = {line}\n");
    }
    let outputs: Vec<String> = outcome.program.outputs.iter().map(|o| format!("%{o}")).collect();
    text += &format!("  return {}\n", outputs.join(", "));
    let fired: Vec<String> = outcome.rules_fired.iter().map(|(r, n)| format!("{r} {n}")).collect();
    text += &format!("rules fired: {}\n", if fired.is_empty() { "none".into() } else { fired.join(", ") });
    text += &format!(
        "e-graph: {} e-nodes in {} classes from {} graph nodes ({:.1}x the input's {} e-nodes), {} iterations ({:?}), {} in-place repairs, {:.2} ms ({:.2} ms per 1000 nodes; saturation {:.2} ms, extraction {:.2} ms)\n",
        outcome.enodes,
        outcome.eclasses,
        graph.nodes.len(),
        outcome.enodes as f64 / outcome.initial_enodes.max(1) as f64,
        outcome.initial_enodes,
        outcome.iterations,
        outcome.stop,
        outcome.repairs.refused,
        time.as_secs_f64() * 1e3,
        time.as_secs_f64() * 1e6 / graph.nodes.len().max(1) as f64,
        outcome.saturate_time.as_secs_f64() * 1e3,
        outcome.extract_time.as_secs_f64() * 1e3
    );
    if outcome.repairs.dropped_in_place {
        text += "in-place writes dropped: the validator's refusals did not converge, so the program writes nothing in place\n";
    }
    (text, json)
}
