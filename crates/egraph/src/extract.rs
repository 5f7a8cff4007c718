//! Memory-aware, DAG-aware extraction, and the in-place validator.
//!
//! Each node has a cost vector ([`Metrics`]: allocations, bytes allocated, bytes copied,
//! launches, bytes a view keeps alive), weighed into one number by [`Weights`]. Extraction is
//! greedy over the DAG: a class's candidate cost is the sum over the *set* of classes its
//! choice needs (a shared producer counts once), improved to a fixpoint. In-place writes are
//! then checked on the extracted program under a reader-first schedule; a write that clobbers
//! a value still to be read is banned and extraction runs again.

use crate::egraph::{index, value, Info, Sg, SgGraph, Storage};
use egg::{Id, Language};
use std::collections::{BTreeMap, BTreeSet};
use strata_sg_kinds::Program;

/// What a program costs (before/after reports use the same fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Metrics {
    /// Buffers created (graph inputs included, constants not).
    pub allocations: u64,
    pub bytes_allocated: u64,
    /// Bytes moved by copies (materialising movement ops, contiguity copies).
    pub bytes_copied: u64,
    /// Kernels launched (a fused kernel is one).
    pub launches: u64,
    /// Bytes of base buffers that views keep alive beyond what they show.
    pub bytes_retained: u64,
}

impl std::ops::AddAssign for Metrics {
    fn add_assign(&mut self, o: Metrics) {
        self.allocations += o.allocations;
        self.bytes_allocated += o.bytes_allocated;
        self.bytes_copied += o.bytes_copied;
        self.launches += o.launches;
        self.bytes_retained += o.bytes_retained;
    }
}

/// How the metrics weigh into one cost (in bytes).
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    pub allocation: f64,
    pub byte_allocated: f64,
    pub byte_copied: f64,
    pub launch: f64,
    pub byte_retained: f64,
}

impl Default for Weights {
    fn default() -> Self {
        // A launch costs about as much as moving 4 KiB; an allocation 64 bytes of bookkeeping.
        // Retained bytes are charged a sixteenth: the base is usually live anyway (it was just
        // computed), and a copy to release it early costs a launch and its own buffer.
        Weights { allocation: 64.0, byte_allocated: 1.0, byte_copied: 1.0, launch: 4096.0, byte_retained: 1.0 / 16.0 }
    }
}

impl Weights {
    pub fn cost(&self, m: &Metrics) -> f64 {
        self.allocation * m.allocations as f64
            + self.byte_allocated * m.bytes_allocated as f64
            + self.byte_copied * m.bytes_copied as f64
            + self.launch * m.launches as f64
            + self.byte_retained * m.bytes_retained as f64
    }
}

/// What one node costs on its own.
pub fn node_metrics(egraph: &SgGraph, class: Id, node: &Sg) -> Metrics {
    let bytes = match &egraph[class].data {
        Info::Value(v) => v.bytes(),
        _ => 0,
    };
    let fresh = Metrics { allocations: 1, bytes_allocated: bytes, launches: 1, ..Metrics::default() };
    match node {
        Sg::Num(_) | Sg::Const(_) | Sg::Out(_) => Metrics::default(),
        Sg::In(_) => Metrics { allocations: 1, bytes_allocated: bytes, ..Metrics::default() },
        Sg::Kernel(_) | Sg::KernelEpilogue(_) | Sg::Ew(_) => fresh,
        Sg::Move(_) | Sg::Contig(_) => Metrics { bytes_copied: bytes, ..fresh },
        Sg::EwInPlace(_) => Metrics { launches: 1, ..Metrics::default() },
        Sg::View([x, _]) => {
            Metrics { bytes_retained: value(egraph, *x).bytes().saturating_sub(bytes), ..Metrics::default() }
        }
    }
}

/// One step of an extracted program, in schedule order.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Graph node `node` (an input or constant).
    Input {
        node: usize,
    },
    Constant {
        node: usize,
    },
    /// Graph node `node`'s kernel on earlier steps.
    Kernel {
        node: usize,
        args: Vec<usize>,
    },
    /// Graph node `node`'s kernel with `program` applied to its result in the same launch
    /// (input 0: the kernel's result, inputs 1..: `extras`).
    Epilogue {
        node: usize,
        args: Vec<usize>,
        program: Program,
        extras: Vec<usize>,
    },
    /// Graph node `node`'s movement op, materialised.
    Move {
        node: usize,
        arg: usize,
    },
    /// A fused elementwise kernel; `in_place`: written into `args[0]`'s storage.
    Fused {
        program: Program,
        args: Vec<usize>,
        in_place: bool,
    },
    /// A strided view of step `base`'s buffer.
    View {
        base: usize,
        layout: crate::layout::Layout,
    },
    /// A contiguous copy of a step.
    Copy {
        arg: usize,
    },
}

/// An extracted program: steps in a valid schedule, the outputs (step indices), per step its
/// shape and element size, and its cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Extracted {
    pub steps: Vec<Step>,
    pub shapes: Vec<(Vec<i64>, u64)>,
    pub outputs: Vec<usize>,
    pub metrics: Metrics,
    /// Per step, the input graph's nodes whose value it computes (a fused kernel: the node at
    /// its root; empty for a view or copy the optimiser made): what its code is named after.
    pub origins: Vec<Vec<usize>>,
}

/// A set of classes (by slot), as bits in chunks of [`CHUNK_BITS`]: per chunk, its index in
/// a [`Chunks`] arena ([`NO_CHUNK`]: none of its classes). Chunks are never changed once made,
/// so sets share them: a class's set is its child's plus itself, so along a chain the sets
/// differ in one chunk. Copying a set copies its indices; a union looks at the chunks that
/// differ. (Flat bit sets were quadratic: 300 MB and half a second for a 10k-op ladder.)
#[derive(Clone)]
struct ClassSet(Vec<u32>);

const CHUNK_BITS: usize = 1024;
const CHUNK_WORDS: usize = CHUNK_BITS / 64;
const NO_CHUNK: u32 = u32::MAX;

/// The chunks of every [`ClassSet`] of one extraction.
#[derive(Default)]
struct Chunks(Vec<[u64; CHUNK_WORDS]>);

impl Chunks {
    fn empty(slots: usize) -> ClassSet {
        ClassSet(vec![NO_CHUNK; slots.div_ceil(CHUNK_BITS)])
    }

    fn push(&mut self, chunk: [u64; CHUNK_WORDS]) -> u32 {
        self.0.push(chunk);
        u32::try_from(self.0.len() - 1).expect("fewer than 4 billion chunks")
    }

    fn contains(&self, set: &ClassSet, slot: usize) -> bool {
        let at = set.0[slot / CHUNK_BITS];
        at != NO_CHUNK && self.0[at as usize][slot % CHUNK_BITS / 64] >> (slot % 64) & 1 == 1
    }

    fn insert(&mut self, set: &mut ClassSet, slot: usize) {
        let (k, word, bit) = (slot / CHUNK_BITS, slot % CHUNK_BITS / 64, 1u64 << (slot % 64));
        let mut chunk = match set.0[k] {
            NO_CHUNK => [0; CHUNK_WORDS],
            at => self.0[at as usize],
        };
        if chunk[word] & bit == 0 {
            chunk[word] |= bit;
            set.0[k] = self.push(chunk);
        }
    }

    /// Adds `other`'s members to `set`; returns the sum of `cost` over the members that were
    /// new.
    fn union_with(&mut self, set: &mut ClassSet, other: &ClassSet, cost: &[f64]) -> f64 {
        let mut sum = 0.0;
        for (k, (mine, &theirs)) in set.0.iter_mut().zip(&other.0).enumerate() {
            if theirs == NO_CHUNK || theirs == *mine {
                continue;
            }
            let b = self.0[theirs as usize];
            let a = if *mine == NO_CHUNK { [0; CHUNK_WORDS] } else { self.0[*mine as usize] };
            if b.iter().zip(&a).all(|(b, a)| b & !a == 0) {
                continue;
            }
            let mut union = a;
            for (w, (u, &b)) in union.iter_mut().zip(&b).enumerate() {
                let mut new = b & !*u;
                *u |= b;
                while new != 0 {
                    sum += cost[k * CHUNK_BITS + w * 64 + new.trailing_zeros() as usize];
                    new &= new - 1;
                }
            }
            // A chunk the set did not have is shared as it is.
            *mine = if *mine == NO_CHUNK { theirs } else { self.push(union) };
        }
        sum
    }
}

/// Greedy DAG extraction from `root`, never choosing a node in `banned` (class, index of the
/// node in the class). A worklist of classes: when a class's best choice improves, its parents
/// are looked at again. A candidate's cost is the sum of the own costs of the set of classes
/// its choice needs (a shared producer counts once), kept as a bit set per class.
fn choose<'a>(
    egraph: &'a SgGraph,
    root: Id,
    weights: &Weights,
    banned: &BTreeSet<(Id, usize)>,
) -> Option<BTreeMap<Id, &'a Sg>> {
    /// A class's best choice: its total cost, the node (its index in the class), and every
    /// class it needs (itself included).
    struct Best {
        total: f64,
        node: usize,
        needed: std::rc::Rc<ClassSet>,
    }
    let slots = egraph.classes().map(|c| usize::from(c.id)).max().map_or(0, |m| m + 1);
    let mut best: Vec<Option<Best>> = (0..slots).map(|_| None).collect();
    // The own cost of each class's current best node.
    let mut own_cost = vec![0.0f64; slots];
    let mut queue: std::collections::VecDeque<Id> = egraph.classes().map(|c| c.id).collect();
    let mut queued = vec![true; slots];
    let mut chunks = Chunks::default();
    // The union of a candidate's children's sets, when they differ (reused).
    let mut scratch = Chunks::empty(slots);
    while let Some(class) = queue.pop_front() {
        let slot = usize::from(class);
        queued[slot] = false;
        if matches!(egraph[class].data, Info::Index(_)) {
            continue;
        }
        let mut improved = false;
        for (i, node) in egraph[class].nodes.iter().enumerate() {
            if !banned.is_empty() && banned.contains(&(class, i)) {
                continue;
            }
            // The children's best choices: the first one's set, and whether others differ
            // (then `scratch` holds the union).
            let mut first: Option<&Best> = None;
            let mut merged = false;
            // The cost of the classes the other children add to the first one's set.
            let mut added = 0.0;
            let mut ready = true;
            for child in node.children() {
                let child = egraph.find(*child);
                if matches!(egraph[child].data, Info::Index(_)) {
                    continue;
                }
                let Some(b) = &best[usize::from(child)] else {
                    ready = false;
                    break;
                };
                match first {
                    None => first = Some(b),
                    Some(f) if std::rc::Rc::ptr_eq(&f.needed, &b.needed) => {}
                    Some(f) => {
                        if !merged {
                            scratch.0.clone_from(&f.needed.0);
                            merged = true;
                        }
                        added += chunks.union_with(&mut scratch, &b.needed, &own_cost);
                    }
                }
            }
            if !ready {
                continue;
            }
            let needed: Option<&ClassSet> = if merged { Some(&scratch) } else { first.map(|f| &*f.needed) };
            if needed.is_some_and(|n| chunks.contains(n, slot)) {
                continue;
            }
            let own = weights.cost(&node_metrics(egraph, class, node));
            // A class's total is the sum over its set: the first child's, plus what the
            // others add.
            let total = own + first.map_or(0.0, |f| f.total) + added;
            if best[slot].as_ref().is_none_or(|b| total < b.total - 1e-9) {
                let mut set = needed.map_or_else(|| Chunks::empty(slots), ClassSet::clone);
                chunks.insert(&mut set, slot);
                own_cost[slot] = own;
                best[slot] = Some(Best { total, node: i, needed: std::rc::Rc::new(set) });
                improved = true;
            }
        }
        if improved {
            for parent in egraph[class].parents() {
                let parent = egraph.find(parent);
                if !queued[usize::from(parent)] {
                    queued[usize::from(parent)] = true;
                    queue.push_back(parent);
                }
            }
        }
    }
    let root = egraph.find(root);
    best[usize::from(root)].as_ref()?;
    Some(egraph.classes().filter_map(|c| best[usize::from(c.id)].as_ref().map(|b| (c.id, &c.nodes[b.node]))).collect())
}

/// The classes reachable from `root` through the chosen nodes, children first.
fn reachable(egraph: &SgGraph, root: Id, choice: &BTreeMap<Id, &Sg>) -> Vec<Id> {
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    fn visit(egraph: &SgGraph, c: Id, choice: &BTreeMap<Id, &Sg>, seen: &mut BTreeSet<Id>, order: &mut Vec<Id>) {
        let c = egraph.find(c);
        if matches!(egraph[c].data, Info::Index(_)) || !seen.insert(c) {
            return;
        }
        for child in choice[&c].children() {
            visit(egraph, *child, choice, seen, order);
        }
        order.push(c);
    }
    visit(egraph, root, choice, &mut seen, &mut order);
    order
}

/// Operand classes of a chosen node (tensor children only).
fn operands(egraph: &SgGraph, node: &Sg) -> Vec<Id> {
    node.children().iter().map(|c| egraph.find(*c)).filter(|c| !matches!(egraph[*c].data, Info::Index(_))).collect()
}

/// The classes [`schedule`] may run next.
#[derive(Default)]
struct Ready {
    by_place: BTreeSet<(usize, Id)>,
    views: BTreeSet<Id>,
    /// Per storage, the ready classes that read it (in-place writes left out).
    readers: BTreeMap<Id, BTreeSet<Id>>,
    /// Per ready class, its place and the storages it is a reader of in `readers`.
    entries: BTreeMap<Id, (usize, Vec<Id>)>,
}

impl Ready {
    fn insert(&mut self, c: Id, place: usize, view: bool, reads: Vec<Id>) {
        self.by_place.insert((place, c));
        if view {
            self.views.insert(c);
        }
        for &s in &reads {
            self.readers.entry(s).or_default().insert(c);
        }
        self.entries.insert(c, (place, reads));
    }

    fn remove(&mut self, c: Id) {
        let Some((place, reads)) = self.entries.remove(&c) else { return };
        self.by_place.remove(&(place, c));
        self.views.remove(&c);
        for s in reads {
            if let Some(readers) = self.readers.get_mut(&s) {
                readers.remove(&c);
                if readers.is_empty() {
                    self.readers.remove(&s);
                }
            }
        }
    }
}

/// A schedule of `classes` (children before parents) in the input's order, running the
/// readers of a storage before an in-place write over it when it can, and the first in-place write that clobbers a value read later (or an
/// output) under it.
fn schedule(egraph: &SgGraph, root: Id, classes: &[Id], choice: &BTreeMap<Id, &Sg>) -> (Vec<Id>, Vec<Id>) {
    let storage_of = |c: Id| -> Id {
        match &value(egraph, c).storage {
            Storage::Fresh => c,
            Storage::Alias { base, .. } => egraph.find(*base),
        }
    };
    // Each class's place in the input graph: its earliest graph node; for a class the rules
    // made (an in-place result, a view), the earliest place of what reads it, else the latest
    // place among what it reads.
    let mut place: BTreeMap<Id, usize> = BTreeMap::new();
    for (n, &origin) in egraph.analysis.origins.iter().enumerate() {
        place.entry(egraph.find(origin)).or_insert(n);
    }
    let mut users: BTreeMap<Id, Vec<Id>> = BTreeMap::new();
    for &c in classes {
        for o in operands(egraph, choice[&c]) {
            users.entry(o).or_default().push(c);
        }
    }
    for &c in classes.iter().rev() {
        if !place.contains_key(&c) {
            if let Some(p) = users.get(&c).into_iter().flatten().filter_map(|u| place.get(u)).min().copied() {
                place.insert(c, p);
            }
        }
    }
    for &c in classes {
        if !place.contains_key(&c) {
            let latest = operands(egraph, choice[&c]).iter().filter_map(|o| place.get(o)).max().copied().unwrap_or(0);
            place.insert(c, latest);
        }
    }
    // Kahn's algorithm over the operands; `ready` in class order (the rules below pick the
    // first match in it), `by_place` for the earliest-in-the-input choice.
    let inputs: BTreeMap<Id, Vec<Id>> = classes.iter().map(|&c| (c, operands(egraph, choice[&c]))).collect();
    let mut pending: BTreeMap<Id, usize> = BTreeMap::new();
    // The ready classes, and two indexes of them (so each step is a lookup, not a scan of
    // every ready class: a graph's weights are ready from the start): the ready views, and
    // per storage the ready classes (not in-place writes) that read it.
    let mut ready = Ready::default();
    let reads = |c: Id| -> Vec<Id> {
        if matches!(choice[&c], Sg::EwInPlace(_)) {
            return Vec::new();
        }
        let mut storages: Vec<Id> = inputs[&c].iter().map(|&o| storage_of(o)).collect();
        storages.sort_unstable();
        storages.dedup();
        storages
    };
    for &c in classes.iter().filter(|&&c| c != root) {
        let count = inputs[&c].len();
        pending.insert(c, count);
        if count == 0 {
            ready.insert(c, place[&c], matches!(choice[&c], Sg::View(_)), reads(c));
        }
    }
    let mut order = Vec::new();
    while !ready.by_place.is_empty() {
        // The ready class earliest in the input graph (its order is what the memory plan was
        // measured on), except that an in-place write waits for the ready readers of the
        // storage it overwrites.
        // Views cost nothing and enable readers: as soon as they can.
        let view = ready.views.first().copied();
        let Some(oldest) = view.or_else(|| ready.by_place.first().map(|&(_, c)| c)) else { break };
        let next = match choice[&oldest] {
            Sg::EwInPlace(_) => {
                let written = storage_of(oldest);
                ready.readers.get(&written).and_then(|r| r.first().copied()).unwrap_or(oldest)
            }
            _ => oldest,
        };
        ready.remove(next);
        order.push(next);
        // `users` names a user once per operand position that reads `next`.
        for &user in users.get(&next).into_iter().flatten() {
            if let Some(count) = pending.get_mut(&user) {
                *count -= 1;
                if *count == 0 {
                    ready.insert(user, place[&user], matches!(choice[&user], Sg::View(_)), reads(user));
                }
            }
        }
    }
    // Simulate storage versions: a value is readable while its storage still holds it. A
    // writer that overwrote a value before one of its reads is a conflict: the first of each
    // storage (the simulation goes on past it, so those of other storages are found in the same
    // round; a storage's later ones may be consequences of its first, so they wait).
    let mut conflicts: Vec<(Id, Id)> = Vec::new();
    let mut conflict = |storage: Id, writer: Option<Id>| {
        if let Some(w) = writer.filter(|_| conflicts.iter().all(|&(s, _)| s != storage)) {
            conflicts.push((storage, w));
        }
    };
    let mut holds: BTreeMap<Id, Id> = BTreeMap::new(); // storage -> the class whose value it holds (writers)
    let mut version_of: BTreeMap<Id, Option<Id>> = BTreeMap::new(); // class -> writer that produced the storage state it shows
    for &c in &order {
        let node = &choice[&c];
        if let Sg::View([x, _]) = node {
            // A view reads nothing: it names its base's value, whenever it is scheduled.
            let shown = version_of.get(&egraph.find(*x)).copied().flatten();
            version_of.insert(c, shown);
            continue;
        }
        for o in operands(egraph, node) {
            let s = storage_of(o);
            if holds.get(&s).copied() != version_of.get(&o).copied().flatten() {
                conflict(s, holds.get(&s).copied());
            }
        }
        let s = storage_of(c);
        match node {
            Sg::EwInPlace(_) => {
                holds.insert(s, c);
                version_of.insert(c, Some(c));
            }
            _ => {
                version_of.insert(c, holds.get(&s).copied());
            }
        }
    }
    if let Some(Sg::Out(outputs)) = choice.get(&egraph.find(root)) {
        for o in outputs.iter().map(|o| egraph.find(*o)) {
            let s = storage_of(o);
            if holds.get(&s).copied() != version_of.get(&o).copied().flatten() {
                conflict(s, holds.get(&s).copied());
            }
        }
    }
    (order, conflicts.into_iter().map(|(_, writer)| writer).collect())
}

/// How extraction made the program valid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repairs {
    /// In-place writes the validator refused (each refusal bans one node; the writes one
    /// extraction refused are banned together before extracting again).
    pub refused: usize,
    /// Extractions refused (each is followed by another).
    pub rounds: usize,
    /// The refusals did not converge within the limit: every in-place write was dropped and
    /// the program extracted once more without any (always valid: only in-place writes make
    /// storage versions).
    pub dropped_in_place: bool,
}

/// Extracts the cheapest valid program; returns it with what the validator refused.
///
/// Each refusal bans one in-place write, so the e-graph's in-place writes bound the rounds a
/// program needs: with up to `max_repairs` of them, extraction converges (a DenseNet block
/// refuses one in-place Relu per layer: ten layers had run past a fixed limit of 8, and the
/// whole function lost its in-place writes). Past `max_repairs` every in-place write is
/// dropped at once. The writes one extraction refuses are banned together: each round is a
/// whole extraction (~0.1 s on a 2000-op QDQ MobileNetV2, whose blocks' inputs each refuse
/// one write: five rounds were 0.5 s).
pub fn extract(
    egraph: &SgGraph,
    root: Id,
    weights: &Weights,
    max_repairs: usize,
) -> Result<(Extracted, Repairs), String> {
    let writes = egraph.classes().flat_map(|c| c.nodes.iter()).filter(|n| matches!(n, Sg::EwInPlace(_))).count();
    // (Never fewer than the 8 rounds this used to get.)
    let max_repairs = max_repairs.min(writes.max(8));
    let mut banned: BTreeSet<(Id, usize)> = BTreeSet::new();
    if let Some(found) = extract_with(egraph, root, weights, max_repairs, &mut banned)? {
        return Ok(found);
    }
    // The refusals did not converge: no in-place writes at all.
    for class in egraph.classes() {
        for (at, node) in class.nodes.iter().enumerate() {
            if matches!(node, Sg::EwInPlace(_)) {
                banned.insert((class.id, at));
            }
        }
    }
    match extract_with(egraph, root, weights, 0, &mut banned)? {
        Some((program, repairs)) => Ok((
            program,
            Repairs { refused: writes + repairs.refused, rounds: max_repairs + 1, dropped_in_place: true },
        )),
        None => Err("the program without in-place writes failed the storage validator (a bug)".into()),
    }
}

/// Extraction with the validator's refusals added to `banned`, at most `max_repairs` of them;
/// `None` when the last extraction was still refused.
fn extract_with(
    egraph: &SgGraph,
    root: Id,
    weights: &Weights,
    max_repairs: usize,
    banned: &mut BTreeSet<(Id, usize)>,
) -> Result<Option<(Extracted, Repairs)>, String> {
    let mut refused = 0;
    for round in 0..=max_repairs {
        let choice = choose(egraph, root, weights, banned)
            .ok_or("no program can be extracted (every choice is banned or cyclic)")?;
        let root = egraph.find(root);
        let classes = reachable(egraph, root, &choice);
        let (order, conflicts) = schedule(egraph, root, &classes, &choice);
        if !conflicts.is_empty() {
            // Every refused write at once: each round extracts the whole program again.
            for writer in conflicts {
                let at = egraph[writer]
                    .nodes
                    .iter()
                    .position(|n| std::ptr::eq(n, choice[&writer]))
                    .expect("a chosen node is in its class");
                banned.insert((writer, at));
                refused += 1;
            }
            continue;
        }
        let repairs = Repairs { refused, rounds: round, dropped_in_place: false };
        return Ok(Some((program(egraph, root, &order, &choice), repairs)));
    }
    Ok(None)
}

fn program(egraph: &SgGraph, root: Id, order: &[Id], choice: &BTreeMap<Id, &Sg>) -> Extracted {
    let mut position: BTreeMap<Id, usize> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut shapes = Vec::new();
    let mut nodes_of: BTreeMap<Id, Vec<usize>> = BTreeMap::new();
    for (n, &class) in egraph.analysis.origins.iter().enumerate() {
        nodes_of.entry(egraph.find(class)).or_default().push(n);
    }
    // An in-place write is a class of its own beside the value it computes: it takes that
    // value's graph nodes when it has none (a kernel's location names the ONNX nodes it runs).
    for &(write, value) in &egraph.analysis.written {
        let (write, value) = (egraph.find(write), egraph.find(value));
        if !nodes_of.contains_key(&write) {
            if let Some(nodes) = nodes_of.get(&value).cloned() {
                nodes_of.insert(write, nodes);
            }
        }
    }
    // An in-place write is a class of its own under the value's `contig`, which holds the
    // value's nodes: the write takes them (a kernel's label names the ONNX nodes it computes).
    for &c in order {
        if let Some(Sg::Contig([inner])) = choice.get(&c) {
            let inner = egraph.find(*inner);
            if matches!(choice.get(&inner), Some(Sg::EwInPlace(_))) && !nodes_of.contains_key(&inner) {
                if let Some(nodes) = nodes_of.get(&egraph.find(c)).cloned() {
                    nodes_of.insert(inner, nodes);
                }
            }
        }
    }
    let mut origins = Vec::new();
    let mut metrics = Metrics::default();
    for &c in order {
        let node = &choice[&c];
        metrics += node_metrics(egraph, c, node);
        let at = |id: &Id| position[&egraph.find(*id)];
        let step = match node {
            Sg::In([n]) => Step::Input { node: index(egraph, *n) },
            Sg::Const([n]) => Step::Constant { node: index(egraph, *n) },
            Sg::Kernel(args) => Step::Kernel { node: index(egraph, args[0]), args: args[1..].iter().map(at).collect() },
            Sg::KernelEpilogue(args) => {
                let node = index(egraph, args[0]);
                let arity = egraph.analysis.graph.nodes[node].inputs.len();
                let (kernel, extras) = args[2..].split_at(arity);
                Step::Epilogue {
                    node,
                    args: kernel.iter().map(at).collect(),
                    program: egraph.analysis.programs[index(egraph, args[1])].clone(),
                    extras: extras.iter().map(at).collect(),
                }
            }
            Sg::Move([n, x]) => Step::Move { node: index(egraph, *n), arg: at(x) },
            Sg::Ew(args) | Sg::EwInPlace(args) => Step::Fused {
                program: egraph.analysis.programs[index(egraph, args[0])].clone(),
                args: args[1..].iter().map(at).collect(),
                in_place: matches!(node, Sg::EwInPlace(_)),
            },
            Sg::View([x, l]) => Step::View { base: at(x), layout: egraph.analysis.layouts[index(egraph, *l)].clone() },
            Sg::Contig([v]) => Step::Copy { arg: at(v) },
            Sg::Num(_) | Sg::Out(_) => continue,
        };
        let v = value(egraph, c);
        position.insert(c, steps.len());
        origins.push(nodes_of.get(&egraph.find(c)).cloned().unwrap_or_default());
        steps.push(step);
        shapes.push((v.shape.clone(), v.elem_bytes));
    }
    let outputs = match &choice[&root] {
        Sg::Out(outputs) => outputs.iter().map(|o| position[&egraph.find(*o)]).collect(),
        _ => Vec::new(),
    };
    Extracted { steps, shapes, outputs, metrics, origins }
}

#[cfg(test)]
mod set_tests {
    use super::*;

    #[test]
    fn chunked_sets_count_each_new_member_once_and_share_chunks() {
        let slots = 3 * CHUNK_BITS + 5;
        let cost: Vec<f64> = (0..slots).map(|s| s as f64).collect();
        let mut chunks = Chunks::default();
        // A chain: each set is the previous one plus one class, across chunk boundaries.
        let mut chain = vec![Chunks::empty(slots)];
        for slot in (0..slots).step_by(7) {
            let mut next = chain.last().expect("a set").clone();
            chunks.insert(&mut next, slot);
            chain.push(next);
        }
        let (early, late) = (&chain[10], chain.last().expect("a set"));
        // Every chunk but the last one written is shared with the set before.
        let before = &chain[chain.len() - 2];
        assert_eq!(late.0.iter().zip(&before.0).filter(|(a, b)| a != b).count(), 1);
        for slot in 0..slots {
            assert_eq!(chunks.contains(late, slot), slot % 7 == 0, "slot {slot}");
            assert_eq!(chunks.contains(early, slot), slot % 7 == 0 && slot < 70, "slot {slot}");
        }
        // A union adds the cost of the members that were new, once.
        let mut union = early.clone();
        let mut odd = Chunks::empty(slots);
        chunks.insert(&mut odd, 1);
        chunks.insert(&mut odd, 2 * CHUNK_BITS + 4);
        let expected: f64 = (70..slots).step_by(7).map(|s| s as f64).sum();
        assert_eq!(chunks.union_with(&mut union, late, &cost), expected);
        assert_eq!(chunks.union_with(&mut union, late, &cost), 0.0);
        assert_eq!(chunks.union_with(&mut union, &odd, &cost), (1 + 2 * CHUNK_BITS + 4) as f64);
        assert!(chunks.contains(&union, 1) && chunks.contains(&union, 2 * CHUNK_BITS + 4));
        // Inserting a member already there makes no chunk.
        let made = chunks.0.len();
        chunks.insert(&mut union, 1);
        assert_eq!(chunks.0.len(), made);
    }
}
