//! The e-graph: an egg language for tensor programs with explicit storage, and an analysis
//! that knows each class's shape, layout and storage.
//!
//! Design rule: an e-class is one value **in one layout and one storage**. A view of `x` is
//! never merged with a materialised copy of the same values; `(contig v)` is the copy, a fresh
//! contiguous buffer, and it is what the original (materialising) op's class is merged with.

use crate::graph::{Graph, Op};
use crate::layout::Layout;
use egg::{define_language, Analysis, DidMerge, EGraph, Id};
use std::collections::HashMap; // tidy: hash-lookup-only (the interning indexes are never iterated)
use strata_sg_kinds::Program;

// Tensor programs with storage made explicit (egg's macro takes no doc comments on variants).
define_language! {
    pub enum Sg {
        // An index into one of the tables (graph node, program, layout).
        Num(i64),
        // `(in n)`: graph node `n`, an input (caller-owned, never written).
        "in" = In([Id; 1]),
        // `(const n)`: graph node `n`, a constant (read-only).
        "const" = Const([Id; 1]),
        // `(kernel n args...)`: graph node `n`'s opaque kernel on contiguous operands; a new
        // contiguous buffer.
        "kernel" = Kernel(Box<[Id]>),
        // `(kernel+ n p args... extras...)`: graph node `n`'s kernel (its operands come first,
        // as many as the node has) with elementwise program `p` applied to its result in the
        // same launch: `p`'s input 0 is the kernel's result, inputs 1.. the extras (any
        // layout). A new contiguous buffer; the kernel's own result never exists.
        "kernel+" = KernelEpilogue(Box<[Id]>),
        // `(move n x)`: graph node `n`'s movement op (slice, transpose, ...) as a copy into a new
        // contiguous buffer.
        "move" = Move([Id; 2]),
        // `(ew p args...)`: fused elementwise program `p`, reading operands in any layout,
        // writing a new contiguous buffer.
        "ew" = Ew(Box<[Id]>),
        // `(ew! p args...)`: the same, written into the storage of `args[0]`, in its layout.
        "ew!" = EwInPlace(Box<[Id]>),
        // `(view x l)`: layout `l` over the storage of `x` (a class that owns its buffer).
        "view" = View([Id; 2]),
        // `(contig v)`: `v` copied into a new contiguous buffer.
        "contig" = Contig([Id; 1]),
        // `(out v...)`: the graph's outputs, the root.
        "out" = Out(Box<[Id]>),
    }
}

/// Where a value lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Its own contiguous buffer.
    Fresh,
    /// Layout `layout` (table index) over the buffer of class `base`.
    Alias { base: Id, layout: usize },
}

/// What the analysis knows of a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    /// A table index (a `Num` leaf).
    Index(i64),
    /// A tensor value.
    Value(Value),
    /// The root.
    Root,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    pub shape: Vec<i64>,
    pub elem_bytes: u64,
    pub storage: Storage,
    /// The storage belongs to a graph input or a constant: never written.
    pub read_only: bool,
    /// Readers in the original graph (outputs included): fusion crosses an edge only when
    /// every reader is in the fused kernel.
    pub uses: u32,
    /// Fusion ends here: the value is an output, or its readers are not all elementwise ops of
    /// one region (see `sinks`). Only such values are worth writing in place (the others vanish
    /// into a fused kernel).
    pub sink: bool,
}

impl Value {
    pub fn bytes(&self) -> u64 {
        self.shape.iter().product::<i64>().max(0) as u64 * self.elem_bytes
    }
}

/// Per graph node, whether fusion ends there ([`Value::sink`]). Elementwise regions are found
/// from the outputs up (nodes are in topological order): a value joins the region of its
/// readers when it is no output and every reader is an elementwise op of one region (read once,
/// or several times inside that region: `x * sigmoid(x)`, a residual ladder); otherwise it ends
/// a region of its own. Linear in the graph's edges.
fn sinks(graph: &Graph, uses: &[u32]) -> Vec<bool> {
    let n = graph.nodes.len();
    let mut is_output = vec![false; n];
    for &o in &graph.outputs {
        is_output[o] = true;
    }
    // The region each node's elementwise readers agree on: None before the first reader is
    // seen, Some(None) when they disagree or one is no elementwise op.
    let mut readers_region: Vec<Option<Option<usize>>> = vec![None; n];
    let mut region = vec![0usize; n];
    let mut sink = vec![true; n];
    for i in (0..n).rev() {
        region[i] = match readers_region[i] {
            Some(Some(r)) if !is_output[i] && uses[i] > 0 => {
                sink[i] = false;
                r
            }
            _ => i,
        };
        let elementwise = matches!(graph.nodes[i].op, Op::Elementwise(_));
        for &input in &graph.nodes[i].inputs {
            let mine = elementwise.then_some(region[i]);
            readers_region[input] = match readers_region[input] {
                None => Some(mine),
                Some(seen) => Some(if seen == mine { seen } else { None }),
            };
        }
    }
    sink
}

/// The analysis: the side tables every `Num` indexes, and per-class [`Info`].
#[derive(Debug, Default)]
pub struct Tables {
    pub graph: Graph,
    /// Readers per graph node.
    pub uses: Vec<u32>,
    /// Per graph node: fusion ends there (see [`Value::sink`]).
    pub sinks: Vec<bool>,
    pub programs: Vec<Program>,
    program_index: HashMap<Program, usize>, // tidy: hash-lookup-only
    /// `(p, k)` → the index of `programs[p].with_input_first(k)`.
    first_index: HashMap<(usize, usize), usize>, // tidy: hash-lookup-only
    pub layouts: Vec<Layout>,
    layout_index: HashMap<Layout, usize>, // tidy: hash-lookup-only
    /// Graph nodes that are outputs.
    pub outputs: Vec<usize>,
    /// E-nodes right after [`build`] (the growth budget's base).
    pub initial_enodes: usize,
    /// The class each graph node started in (canonicalise with `find`).
    pub origins: Vec<Id>,
    /// In-place writes, each with the class of the value it computes (a class of its own: its
    /// storage differs), whose graph nodes it stands for in reports and locations.
    pub written: Vec<(Id, Id)>,
}

impl Tables {
    pub fn new(graph: &Graph) -> Tables {
        let uses = graph.uses();
        let sinks = sinks(graph, &uses);
        Tables { uses, sinks, outputs: graph.outputs.clone(), graph: graph.clone(), ..Tables::default() }
    }

    /// The index of `program`, added if new.
    pub fn program(&mut self, program: Program) -> usize {
        if let Some(&i) = self.program_index.get(&program) {
            return i;
        }
        self.programs.push(program.clone());
        self.program_index.insert(program, self.programs.len() - 1);
        self.programs.len() - 1
    }

    /// The index of program `p` with its input `k` moved first (see
    /// [`Program::with_input_first`]), added if new; remembered, as rules ask again and again.
    pub fn program_with_input_first(&mut self, p: usize, k: usize) -> usize {
        if k == 0 {
            return p;
        }
        if let Some(&i) = self.first_index.get(&(p, k)) {
            return i;
        }
        let i = self.program(self.programs[p].with_input_first(k));
        self.first_index.insert((p, k), i);
        i
    }

    /// The index of `layout`, added if new.
    pub fn layout(&mut self, layout: Layout) -> usize {
        if let Some(&i) = self.layout_index.get(&layout) {
            return i;
        }
        self.layouts.push(layout.clone());
        self.layout_index.insert(layout, self.layouts.len() - 1);
        self.layouts.len() - 1
    }
}

pub type SgGraph = EGraph<Sg, Tables>;

/// The value info of class `id` (panics on an index or the root: rules only ask for values).
pub fn value(egraph: &SgGraph, id: Id) -> &Value {
    match &egraph[id].data {
        Info::Value(v) => v,
        other => panic!("class {id} is not a value: {other:?}"),
    }
}

/// The table index held by a `Num` class.
pub fn index(egraph: &SgGraph, id: Id) -> usize {
    match egraph[id].data {
        Info::Index(n) => n as usize,
        ref other => panic!("class {id} is not an index: {other:?}"),
    }
}

/// The layout of a value over its storage: (storage owner, layout).
pub fn placement(egraph: &SgGraph, id: Id) -> (Id, Layout) {
    let (base, layout) = place(egraph, id);
    (base, layout.to_layout())
}

/// A layout borrowed from the analysis: a whole contiguous buffer of a shape, or a table entry.
/// Equality is the layouts' (a table entry that is exactly a whole buffer equals `Whole`).
#[derive(Clone, Copy, Debug)]
pub enum LayoutRef<'a> {
    Whole(&'a [i64]),
    Strided(&'a Layout),
}

impl LayoutRef<'_> {
    pub fn to_layout(self) -> Layout {
        match self {
            LayoutRef::Whole(shape) => Layout::contiguous(shape),
            LayoutRef::Strided(l) => l.clone(),
        }
    }

    /// Whether it is exactly a contiguous buffer's row-major layout (size-1 axes ignored).
    pub fn is_contiguous(self) -> bool {
        match self {
            LayoutRef::Whole(_) => true,
            LayoutRef::Strided(l) => l.is_contiguous(),
        }
    }

    pub fn has_repeats(self) -> bool {
        match self {
            // Row-major strides are never 0.
            LayoutRef::Whole(_) => false,
            LayoutRef::Strided(l) => l.has_repeats(),
        }
    }
}

impl PartialEq for LayoutRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (LayoutRef::Whole(a), LayoutRef::Whole(b)) => a == b,
            (LayoutRef::Strided(a), LayoutRef::Strided(b)) => a == b,
            (LayoutRef::Whole(shape), LayoutRef::Strided(l)) | (LayoutRef::Strided(l), LayoutRef::Whole(shape)) => {
                l.is_whole(shape)
            }
        }
    }
}

/// [`placement`] without copying the layout: (storage owner, layout).
pub fn place(egraph: &SgGraph, id: Id) -> (Id, LayoutRef<'_>) {
    let v = value(egraph, id);
    match &v.storage {
        Storage::Fresh => (egraph.find(id), LayoutRef::Whole(&v.shape)),
        Storage::Alias { base, layout } => (egraph.find(*base), LayoutRef::Strided(&egraph.analysis.layouts[*layout])),
    }
}

impl Analysis<Sg> for Tables {
    type Data = Info;

    fn make(egraph: &mut SgGraph, enode: &Sg, _id: Id) -> Info {
        let node_of = |egraph: &SgGraph, id: Id| index(egraph, id);
        let fresh = |egraph: &SgGraph, n: usize, read_only: bool| {
            let node = &egraph.analysis.graph.nodes[n];
            Info::Value(Value {
                shape: node.shape.clone(),
                elem_bytes: node.elem_bytes,
                storage: Storage::Fresh,
                read_only,
                uses: egraph.analysis.uses[n],
                sink: egraph.analysis.sinks[n],
            })
        };
        match enode {
            Sg::Num(n) => Info::Index(*n),
            Sg::In([n]) => fresh(egraph, node_of(egraph, *n), true),
            Sg::Const([n]) => fresh(egraph, node_of(egraph, *n), true),
            Sg::Kernel(args) => fresh(egraph, node_of(egraph, args[0]), false),
            Sg::KernelEpilogue(args) => match fresh(egraph, node_of(egraph, args[0]), false) {
                // The value of the class it joins (an elementwise result): learnt on merge.
                Info::Value(v) => Info::Value(Value { uses: 0, sink: true, ..v }),
                other => other,
            },
            Sg::Move([n, _]) => fresh(egraph, node_of(egraph, *n), false),
            Sg::Ew(args) => {
                // Shape of the first operand (elementwise operands share the result's shape).
                let first = value(egraph, args[1]).clone();
                Info::Value(Value { storage: Storage::Fresh, read_only: false, uses: 0, sink: true, ..first })
            }
            Sg::EwInPlace(args) => {
                let target = value(egraph, args[1]).clone();
                let (base, layout) = placement(egraph, args[1]);
                let layout = egraph.analysis.layout(layout);
                Info::Value(Value { storage: Storage::Alias { base, layout }, uses: 0, sink: true, ..target })
            }
            Sg::View([x, l]) => {
                let base = value(egraph, *x).clone();
                let layout = index(egraph, *l);
                let shape = egraph.analysis.layouts[layout].shape.clone();
                Info::Value(Value {
                    shape,
                    storage: Storage::Alias { base: egraph.find(*x), layout },
                    uses: 0,
                    sink: true,
                    ..base
                })
            }
            Sg::Contig([v]) => {
                let v = value(egraph, *v).clone();
                Info::Value(Value { storage: Storage::Fresh, read_only: false, uses: 0, sink: true, ..v })
            }
            Sg::Out(_) => Info::Root,
        }
    }

    fn merge(&mut self, a: &mut Info, b: Info) -> DidMerge {
        match (a, b) {
            (Info::Value(a), Info::Value(b)) => {
                debug_assert_eq!(
                    (&a.shape, a.elem_bytes),
                    (&b.shape, b.elem_bytes),
                    "a rule merged values of different shapes"
                );
                debug_assert_eq!(
                    std::mem::discriminant(&a.storage),
                    std::mem::discriminant(&b.storage),
                    "a rule merged a view with a buffer"
                );
                let (uses, sink) = (a.uses.max(b.uses), a.sink && b.sink);
                let changed = (uses != a.uses || sink != a.sink, uses != b.uses || sink != b.sink);
                a.uses = uses;
                a.sink = sink;
                DidMerge(changed.0, changed.1)
            }
            (a, b) => {
                debug_assert_eq!(*a, b, "a rule merged different kinds of classes");
                DidMerge(false, false)
            }
        }
    }
}

/// Builds the e-graph of `graph`: one class per node; returns the classes and the root.
pub fn build(graph: &Graph) -> (SgGraph, Vec<Id>, Id) {
    let mut egraph = SgGraph::new(Tables::new(graph));
    let mut classes: Vec<Id> = Vec::with_capacity(graph.nodes.len());
    for (n, node) in graph.nodes.iter().enumerate() {
        let index = egraph.add(Sg::Num(n as i64));
        let args: Vec<Id> = node.inputs.iter().map(|&i| classes[i]).collect();
        let id = match &node.op {
            Op::Input(_) => egraph.add(Sg::In([index])),
            Op::Constant(_) => egraph.add(Sg::Const([index])),
            Op::Kernel(_) => egraph.add(Sg::Kernel(std::iter::once(index).chain(args).collect())),
            Op::Elementwise(op) => {
                let program = egraph.analysis.program(Program::single(*op));
                let p = egraph.add(Sg::Num(program as i64));
                egraph.add(Sg::Ew(std::iter::once(p).chain(args).collect()))
            }
            Op::Slice { .. } | Op::Transpose { .. } | Op::Reshape | Op::Broadcast => {
                egraph.add(Sg::Move([index, args[0]]))
            }
        };
        // Elementwise classes learn their reader count here (their make() cannot see the node).
        let (uses, sink) = (egraph.analysis.uses[n], egraph.analysis.sinks[n]);
        if let Info::Value(v) = &mut egraph[id].data {
            v.uses = v.uses.max(uses);
            v.sink = sink;
        }
        classes.push(id);
    }
    egraph.analysis.origins = classes.clone();
    let outputs: Box<[Id]> = graph.outputs.iter().map(|&o| classes[o]).collect();
    let root = egraph.add(Sg::Out(outputs));
    egraph.rebuild();
    (egraph, classes, root)
}
