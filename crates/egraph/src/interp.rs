//! A reference interpreter, for tests: runs a [`Graph`] with every value in its own contiguous
//! buffer, and an [`Extracted`] program with real storage sharing (views read their base's
//! buffer, in-place kernels write element by element into their target's buffer, in
//! row-major order, as a generated kernel would). Opaque kernels compute a fixed, deterministic
//! function of their contiguous operands, so both sides agree on them.

use crate::extract::{Extracted, Step};
use crate::graph::{Graph, Op};
use crate::layout::Layout;
use strata_sg_kinds::{Arg, Elementwise, Program, ScalarOp};

/// The reference semantics of the elementwise ops the tests use, in f32. The compiled code's
/// semantics are the lowering's scalar bodies; this interpreter checks that rewrites move and
/// share data correctly, which any deterministic scalar function shows.
pub fn eval(op: ScalarOp, a: f32, b: f32) -> f32 {
    let p = |i: usize| op.params.get(i) as f32;
    match op.kind {
        Elementwise::Relu => a.max(0.0),
        Elementwise::Exp => a.exp(),
        Elementwise::Neg => -a,
        Elementwise::Abs => a.abs(),
        Elementwise::Sigmoid => 1.0 / (1.0 + (-a).exp()),
        Elementwise::Tanh => a.tanh(),
        Elementwise::Sqrt => a.sqrt(),
        Elementwise::Add => a + b,
        Elementwise::Sub => a - b,
        Elementwise::Mul => a * b,
        Elementwise::Div => a / b,
        Elementwise::Max => a.max(b),
        Elementwise::Min => a.min(b),
        Elementwise::Clip => a.max(p(0)).min(p(1)),
        Elementwise::LeakyRelu => {
            if a >= 0.0 {
                a
            } else {
                p(0) * a
            }
        }
        Elementwise::HardSigmoid => (p(0) * a + p(1)).clamp(0.0, 1.0),
        Elementwise::HardSwish => a * (a / 6.0 + 0.5).clamp(0.0, 1.0),
        Elementwise::Reciprocal => 1.0 / a,
        Elementwise::Log => a.ln(),
        other => panic!("the reference interpreter has no semantics for '{}'", other.name()),
    }
}

/// Evaluates a fused program on one element of each input.
pub fn eval_program(program: &Program, inputs: &[f32]) -> f32 {
    let mut results: Vec<f32> = Vec::with_capacity(program.steps.len());
    for (op, args) in &program.steps {
        let value = |a: &Arg| match *a {
            Arg::Input(i) => inputs[i],
            Arg::Step(s) => results[s],
        };
        let (a, b) = (value(&args[0]), args.get(1).map_or(0.0, value));
        results.push(eval(*op, a, b));
    }
    *results.last().expect("a program has a step")
}

/// An opaque kernel's stand-in: element `j` mixes element `j mod len` of every operand.
fn kernel(operands: &[Vec<f32>], elements: usize) -> Vec<f32> {
    (0..elements)
        .map(|j| {
            let mut acc = (j % 7) as f32 * 0.25;
            for (a, operand) in operands.iter().enumerate() {
                if !operand.is_empty() {
                    acc += operand[j % operand.len()] * (1.0 + a as f32) * 0.5;
                }
            }
            acc
        })
        .collect()
}

/// Every multi-index of `shape`, row-major.
fn indices(shape: &[i64]) -> Vec<Vec<i64>> {
    let count: i64 = shape.iter().product();
    let mut all = Vec::with_capacity(count.max(0) as usize);
    let mut at = vec![0i64; shape.len()];
    for _ in 0..count {
        all.push(at.clone());
        for k in (0..shape.len()).rev() {
            at[k] += 1;
            if at[k] < shape[k] {
                break;
            }
            at[k] = 0;
        }
    }
    all
}

/// The values of `layout` over `storage`, row-major.
fn read(storage: &[f32], layout: &Layout) -> Vec<f32> {
    indices(&layout.shape).iter().map(|i| storage[layout.index(i) as usize]).collect()
}

/// Runs the graph on `inputs` (by input index) and `constants` (by constant index); returns
/// the outputs, row-major.
pub fn run_graph(graph: &Graph, inputs: &[Vec<f32>], constants: &[Vec<f32>]) -> Vec<Vec<f32>> {
    let mut values: Vec<Vec<f32>> = Vec::with_capacity(graph.nodes.len());
    for node in &graph.nodes {
        let arg = |k: usize| &values[node.inputs[k]];
        let elements = node.elements().max(0) as usize;
        let value = match &node.op {
            Op::Input(i) => inputs[*i].clone(),
            Op::Constant(i) => constants[*i].clone(),
            Op::Kernel(_) => kernel(&node.inputs.iter().map(|&i| values[i].clone()).collect::<Vec<_>>(), elements),
            Op::Elementwise(op) => {
                (0..elements).map(|j| eval(*op, arg(0)[j], node.inputs.get(1).map_or(0.0, |_| arg(1)[j]))).collect()
            }
            op => {
                let source = &graph.nodes[node.inputs[0]];
                let layout = Layout::contiguous(&source.shape)
                    .apply(op, &node.shape)
                    .expect("movement ops are views of a contiguous buffer");
                read(arg(0), &layout)
            }
        };
        values.push(value);
    }
    graph.outputs.iter().map(|&o| values[o].clone()).collect()
}

/// Runs an extracted program of `graph` with shared storage; returns the outputs, row-major.
pub fn run_extracted(graph: &Graph, program: &Extracted, inputs: &[Vec<f32>], constants: &[Vec<f32>]) -> Vec<Vec<f32>> {
    let mut buffers: Vec<Vec<f32>> = Vec::new();
    // Per step: (buffer, layout over it).
    let mut placed: Vec<(usize, Layout)> = Vec::with_capacity(program.steps.len());
    let value = |buffers: &Vec<Vec<f32>>, placed: &Vec<(usize, Layout)>, step: usize| {
        read(&buffers[placed[step].0], &placed[step].1)
    };
    for (s, step) in program.steps.iter().enumerate() {
        let shape = &program.shapes[s].0;
        let elements = shape.iter().product::<i64>().max(0) as usize;
        let fresh = |buffers: &mut Vec<Vec<f32>>, data: Vec<f32>| {
            buffers.push(data);
            (buffers.len() - 1, Layout::contiguous(shape))
        };
        let place = match step {
            Step::Input { node } => {
                let Op::Input(i) = graph.nodes[*node].op else { unreachable!("an input step names an input node") };
                fresh(&mut buffers, inputs[i].clone())
            }
            Step::Constant { node } => {
                let Op::Constant(i) = graph.nodes[*node].op else {
                    unreachable!("a constant step names a constant node")
                };
                fresh(&mut buffers, constants[i].clone())
            }
            Step::Kernel { args, .. } => {
                let operands: Vec<Vec<f32>> = args.iter().map(|&a| value(&buffers, &placed, a)).collect();
                fresh(&mut buffers, kernel(&operands, elements))
            }
            Step::Epilogue { args, program: p, extras, .. } => {
                let operands: Vec<Vec<f32>> = args.iter().map(|&a| value(&buffers, &placed, a)).collect();
                let result = kernel(&operands, elements);
                let extras: Vec<Vec<f32>> = extras.iter().map(|&a| value(&buffers, &placed, a)).collect();
                let data = (0..elements)
                    .map(|j| {
                        eval_program(
                            p,
                            &std::iter::once(result[j]).chain(extras.iter().map(|e| e[j])).collect::<Vec<_>>(),
                        )
                    })
                    .collect();
                fresh(&mut buffers, data)
            }
            Step::Move { node, arg } => {
                let layout = Layout::contiguous(&program.shapes[*arg].0)
                    .apply(&graph.nodes[*node].op, shape)
                    .expect("movement op of a contiguous buffer");
                let data = read(&value(&buffers, &placed, *arg), &layout);
                fresh(&mut buffers, data)
            }
            Step::Copy { arg } => {
                let data = value(&buffers, &placed, *arg);
                fresh(&mut buffers, data)
            }
            Step::View { base, layout } => (placed[*base].0, layout.clone()),
            Step::Fused { program: p, args, in_place } => {
                if *in_place {
                    // Element by element, reading every operand then writing the target.
                    let (target, layout) = placed[args[0]].clone();
                    for index in indices(shape) {
                        let operands: Vec<f32> =
                            args.iter().map(|&a| buffers[placed[a].0][placed[a].1.index(&index) as usize]).collect();
                        let result = eval_program(p, &operands);
                        buffers[target][layout.index(&index) as usize] = result;
                    }
                    (target, layout)
                } else {
                    let operands: Vec<Vec<f32>> = args.iter().map(|&a| value(&buffers, &placed, a)).collect();
                    let data = (0..elements)
                        .map(|j| eval_program(p, &operands.iter().map(|o| o[j]).collect::<Vec<_>>()))
                        .collect();
                    fresh(&mut buffers, data)
                }
            }
        };
        placed.push(place);
    }
    program.outputs.iter().map(|&o| value(&buffers, &placed, o)).collect()
}
