//! Saturation under a node budget, then extraction and the report.

use crate::egraph::{build, Sg, SgGraph};
use crate::extract::{extract, Extracted, Metrics, Weights};
use crate::graph::{Graph, Op};
use crate::rules::{Action, RULES};
use egg::Id;
use std::collections::BTreeMap;

/// Bounds on the search (counts, not wall time, so results are reproducible).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Rule iterations at most.
    pub iterations: usize,
    /// E-nodes at most: checked before every action, inside an iteration, so the graph never
    /// grows past it.
    pub nodes: usize,
    /// E-nodes at most as a multiple of the e-graph built from the input graph.
    pub growth: usize,
    /// In-place repair rounds (ban and re-extract) at most, beyond which every in-place write is
    /// dropped; fewer when the e-graph holds fewer in-place writes (each round bans at least
    /// one).
    pub repairs: usize,
    /// Run only these rules (by name); `None`: all of them.
    pub only: Option<&'static [&'static str]>,
    /// Never run these rules (by name): the optimisations a user turned off
    /// ([`crate::rules::FAMILIES`]).
    pub skip: Vec<&'static str>,
}

/// The in-place repair rounds a graph gets at most (see [`Limits::repairs`]): each is one
/// extraction of the e-graph, so a graph whose refusals need more rounds than this loses every
/// in-place write rather than extracting hundreds of times. (`sg-egraph-optimize`'s `max-repairs` option
/// defaults to the same.)
pub const MAX_REPAIRS: usize = 128;

impl Limits {
    /// Room for the rules on a graph of `nodes` nodes: at most 4 times the e-graph of the
    /// input (which has about two e-nodes per graph node: the node and its table index), and
    /// 8 e-nodes per graph node in any case.
    pub fn for_graph(nodes: usize) -> Limits {
        Limits { iterations: 32, nodes: 8 * nodes + 64, growth: 4, repairs: MAX_REPAIRS, only: None, skip: Vec::new() }
    }
}

/// Why saturation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Saturated,
    IterationLimit,
    NodeLimit,
}

/// The outcome of [`optimize`].
#[derive(Clone, Debug)]
pub struct Outcome {
    pub program: Extracted,
    /// The input graph as it is (every node its own buffer and launch).
    pub before: Metrics,
    pub after: Metrics,
    /// Actions that changed the e-graph, per rule.
    pub rules_fired: BTreeMap<&'static str, usize>,
    pub iterations: usize,
    pub stop: Stop,
    pub enodes: usize,
    /// E-nodes of the e-graph built from the input, before any rule.
    pub initial_enodes: usize,
    pub eclasses: usize,
    /// In-place writes the validator refused, and whether they were all dropped.
    pub repairs: crate::extract::Repairs,
    /// Time spent saturating and extracting.
    pub saturate_time: std::time::Duration,
    pub extract_time: std::time::Duration,
}

/// What the unrewritten graph costs: every node a new buffer, every non-input node a launch,
/// every movement op a copy.
pub fn baseline(graph: &Graph) -> Metrics {
    let mut m = Metrics::default();
    for node in &graph.nodes {
        match node.op {
            Op::Constant(_) => {}
            Op::Input(_) => {
                m.allocations += 1;
                m.bytes_allocated += node.bytes();
            }
            ref op => {
                m.allocations += 1;
                m.bytes_allocated += node.bytes();
                m.launches += 1;
                if op.is_movement() {
                    m.bytes_copied += node.bytes();
                }
            }
        }
    }
    m
}

/// The input graph itself as a program (every node its own step, in order): what extraction
/// must never be worse than.
pub fn as_program(graph: &Graph) -> Extracted {
    let steps = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(n, node)| match &node.op {
            Op::Input(_) => crate::extract::Step::Input { node: n },
            Op::Constant(_) => crate::extract::Step::Constant { node: n },
            Op::Kernel(_) => crate::extract::Step::Kernel { node: n, args: node.inputs.clone() },
            Op::Elementwise(op) => crate::extract::Step::Fused {
                program: strata_sg_kinds::Program::single(*op),
                args: node.inputs.clone(),
                in_place: false,
            },
            _ => crate::extract::Step::Move { node: n, arg: node.inputs[0] },
        })
        .collect();
    Extracted {
        steps,
        shapes: graph.nodes.iter().map(|n| (n.shape.clone(), n.elem_bytes)).collect(),
        outputs: graph.outputs.clone(),
        metrics: baseline(graph),
        origins: (0..graph.nodes.len()).map(|n| vec![n]).collect(),
    }
}

/// Applies one action; returns whether the e-graph changed, and the class of the value node it
/// made under a `contig` (a view or an in-place write; the rules look at its nodes too).
fn apply(egraph: &mut SgGraph, action: Action) -> (bool, Option<Id>) {
    // The hashcons's size (O(1)): egg's total_number_of_nodes walks every class.
    let before = egraph.total_size();
    let (class, new, inner) = match action {
        Action::Equal { class, node } => {
            // Rules propose what they see on every visit; most of it is already there.
            if egraph.lookup(node.clone()).is_some_and(|id| egraph.find(id) == egraph.find(class)) {
                return (false, None);
            }
            (class, egraph.add(node), None)
        }
        Action::CopyOfView { class, base, layout } => {
            let l = egraph.analysis.layout(layout);
            let l = egraph.add(Sg::Num(l as i64));
            let view = egraph.add(Sg::View([base, l]));
            (class, egraph.add(Sg::Contig([view])), Some(view))
        }
        Action::InPlace { class, program, first, operands } => {
            let p = egraph.analysis.program_with_input_first(program, first);
            let p = egraph.add(Sg::Num(p as i64));
            let write = egraph.add(Sg::EwInPlace(std::iter::once(p).chain(operands).collect()));
            // The written value is the class's value: it has the same readers.
            let (uses, sink) = match &egraph[class].data {
                crate::egraph::Info::Value(v) => (v.uses, v.sink),
                _ => (0, true),
            };
            if let crate::egraph::Info::Value(v) = &mut egraph[write].data {
                v.uses = v.uses.max(uses);
                v.sink = sink;
            }
            egraph.analysis.written.push((write, class));
            (class, egraph.add(Sg::Contig([write])), Some(write))
        }
        Action::Epilogue { class, node, kernel_args, program, first, extras } => {
            let n = egraph.add(Sg::Num(node as i64));
            let p = egraph.analysis.program_with_input_first(program, first);
            let p = egraph.add(Sg::Num(p as i64));
            let args: Box<[Id]> =
                [n, p].into_iter().chain(kernel_args.iter().copied()).chain(extras.iter().copied()).collect();
            (class, egraph.add(Sg::KernelEpilogue(args)), None)
        }
        Action::Fused { class, program, operands, in_place } => {
            let p = egraph.analysis.program(program);
            let p = egraph.add(Sg::Num(p as i64));
            let args: Box<[Id]> = std::iter::once(p).chain(operands).collect();
            (class, egraph.add(if in_place { Sg::EwInPlace(args) } else { Sg::Ew(args) }), None)
        }
    };
    let merged = egraph.union(class, new);
    (merged || egraph.total_size() != before, inner)
}

/// The saturated e-graph of `graph`: its root, the rules fired, the iterations run and why it
/// stopped.
pub fn saturate(graph: &Graph, limits: &Limits) -> (SgGraph, Id, BTreeMap<&'static str, usize>, usize, Stop) {
    let (mut egraph, _classes, root) = build(graph);
    egraph.analysis.initial_enodes = egraph.total_number_of_nodes();
    let budget = limits.nodes.min(limits.growth.saturating_mul(egraph.total_number_of_nodes()));
    let mut rules_fired: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut stop = Stop::IterationLimit;
    let mut iterations = 0;
    // The classes to look at: all at first, then those an iteration touched and their readers.
    let mut dirty: Vec<Id> = egraph.classes().map(|c| c.id).collect();
    'outer: for _ in 0..limits.iterations {
        iterations += 1;
        let mut actions: Vec<(&'static str, Action)> = Vec::new();
        let runs = |r: &&crate::rules::Rule| {
            limits.only.is_none_or(|only| only.contains(&r.name)) && !limits.skip.contains(&r.name)
        };
        for rule in RULES.iter().filter(runs) {
            for &class in &dirty {
                actions.extend((rule.apply)(&egraph, class).into_iter().map(|a| (rule.name, a)));
            }
        }
        let mut changed = false;
        let mut touched: Vec<Id> = Vec::new();
        // Value classes the actions made under a `contig` (views, in-place writes).
        let mut made: Vec<Id> = Vec::new();
        for (name, action) in actions {
            // An action adds at most three nodes: stop before it could pass the budget.
            if egraph.total_size() + 3 > budget {
                stop = Stop::NodeLimit;
                egraph.rebuild();
                break 'outer;
            }
            let class = action.class();
            let (fired, inner) = apply(&mut egraph, action);
            if fired {
                changed = true;
                touched.push(class);
                made.extend(inner);
                *rules_fired.entry(name).or_default() += 1;
            }
        }
        egraph.rebuild();
        if !changed {
            stop = Stop::Saturated;
            break;
        }
        dirty.clear();
        // A class is touched once per action that changed it: expand each once.
        let mut touched: Vec<Id> = touched.into_iter().map(|c| egraph.find(c)).collect();
        touched.sort_unstable();
        touched.dedup();
        for class in touched {
            dirty.push(class);
            // Readers of a changed class may match now (every rule reads a class and its
            // operands' classes).
            dirty.extend(egraph[class].parents().map(|p| egraph.find(p)));
        }
        // So may the values made under a `contig` (an in-place write's operands may be read
        // through their copies).
        dirty.extend(made.into_iter().map(|c| egraph.find(c)));
        dirty.sort_unstable();
        dirty.dedup();
    }
    (egraph, root, rules_fired, iterations, stop)
}

/// Optimises `graph`: builds the e-graph, runs the rules to saturation or a limit, extracts
/// the cheapest program whose in-place writes are legal.
pub fn optimize(graph: &Graph, limits: &Limits, weights: &Weights) -> Result<Outcome, strata_error::Error> {
    graph.validate()?;
    let start = std::time::Instant::now();
    let (egraph, root, rules_fired, iterations, stop) = saturate(graph, limits);
    let saturate_time = start.elapsed();
    let (mut program, repairs) =
        extract(&egraph, root, weights, limits.repairs).map_err(strata_error::Error::internal)?;
    // Greedy extraction is a heuristic: never return something worse than the input.
    if weights.cost(&program.metrics) > weights.cost(&baseline(graph)) {
        program = as_program(graph);
    }
    let extract_time = start.elapsed() - saturate_time;
    Ok(Outcome {
        before: baseline(graph),
        after: program.metrics,
        program,
        rules_fired,
        iterations,
        stop,
        enodes: egraph.total_number_of_nodes(),
        initial_enodes: egraph.analysis.initial_enodes,
        eclasses: egraph.number_of_classes(),
        repairs,
        saturate_time,
        extract_time,
    })
}
