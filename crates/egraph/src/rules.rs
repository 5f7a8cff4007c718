//! The rewrite rules (listed with why each is sound in `RULES.md`). Each rule looks at one
//! e-class and proposes [`Action`]s; [`crate::optimize`] applies them. Rules are semantic
//! (they read the analysis and the side tables), so they are plain functions rather than
//! egg patterns: egg's patterns cannot match variadic nodes or compute layouts.

use crate::egraph::{index, place, placement, value, Sg, SgGraph, Storage};
use crate::graph::Op;
use crate::layout::Layout;
use egg::Id;
use strata_sg_kinds::Program;

/// A change a rule proposes.
#[derive(Clone, Debug)]
pub enum Action {
    /// Add `node` to class `class`.
    Equal { class: Id, node: Sg },
    /// Add `(contig (view base layout))` to `class`.
    CopyOfView { class: Id, base: Id, layout: Layout },
    /// Add `(contig (ew! p' operands...))` to `class`, `p'` being program `program` (a table
    /// index) with its input `first` moved to position 0.
    InPlace { class: Id, program: usize, first: usize, operands: Vec<Id> },
    /// Add a fused `(ew program operands...)` (or `ew!`) to `class`.
    Fused { class: Id, program: strata_sg_kinds::Program, operands: Vec<Id>, in_place: bool },
    /// Add `(kernel+ node p' kernel_args... extras...)` to `class`, `p'` being program
    /// `program` (a table index) with its input `first` moved to position 0.
    Epilogue { class: Id, node: usize, kernel_args: Box<[Id]>, program: usize, first: usize, extras: Box<[Id]> },
}

impl Action {
    /// The class the action adds to.
    pub fn class(&self) -> Id {
        match self {
            Action::Equal { class, .. }
            | Action::CopyOfView { class, .. }
            | Action::InPlace { class, .. }
            | Action::Fused { class, .. }
            | Action::Epilogue { class, .. } => *class,
        }
    }
}

/// A rule: its kebab-case name and what it proposes for one class.
pub struct Rule {
    pub name: &'static str,
    pub apply: fn(&SgGraph, Id) -> Vec<Action>,
}

/// Every rule, in the order they run within an iteration.
pub const RULES: &[Rule] = &[
    Rule { name: "slice-to-view", apply: |g, c| movement_to_view(g, c, |op| matches!(op, Op::Slice { .. })) },
    Rule { name: "transpose-to-view", apply: |g, c| movement_to_view(g, c, |op| matches!(op, Op::Transpose { .. })) },
    Rule { name: "reshape-to-view", apply: |g, c| movement_to_view(g, c, |op| matches!(op, Op::Reshape)) },
    Rule { name: "expand-to-view", apply: |g, c| movement_to_view(g, c, |op| matches!(op, Op::Broadcast)) },
    Rule { name: "elementwise-reads-strided", apply: elementwise_reads_strided },
    Rule { name: "kernel-reads-contiguous-alias", apply: kernel_reads_contiguous_alias },
    Rule { name: "fuse-elementwise", apply: fuse_elementwise },
    Rule { name: "fuse-epilogue", apply: fuse_epilogue },
    Rule { name: "elementwise-in-place", apply: elementwise_in_place },
    Rule { name: "output-any-layout", apply: output_any_layout },
];

/// The optimisations a user can turn off one by one (`strata compile --disable`), each with
/// the rules that make it. The rules they share (a kernel reading a contiguous alias, outputs
/// in any layout) only follow the others' choices and stay on.
pub const FAMILIES: &[(&str, &[&str])] = &[
    (
        "views",
        &["slice-to-view", "transpose-to-view", "reshape-to-view", "expand-to-view", "elementwise-reads-strided"],
    ),
    ("fusion", &["fuse-elementwise"]),
    ("epilogues", &["fuse-epilogue"]),
    ("in-place", &["elementwise-in-place"]),
];

/// The rules of the families named in `families` (unknown names are an error naming them).
pub fn family_rules(families: &[&str]) -> Result<Vec<&'static str>, String> {
    let mut rules = Vec::new();
    for &name in families {
        let (_, members) = FAMILIES.iter().find(|(family, _)| *family == name).ok_or_else(|| {
            let known: Vec<&str> = FAMILIES.iter().map(|(family, _)| *family).collect();
            format!("unknown optimisation '{name}' (known: {})", known.join(", "))
        })?;
        rules.extend_from_slice(members);
    }
    Ok(rules)
}

/// The nodes of class `c`.
fn nodes(egraph: &SgGraph, c: Id) -> impl Iterator<Item = &Sg> {
    egraph[c].nodes.iter()
}

/// `(move n x)` → `(contig (view base layout))`: a slice, transpose, reshape or broadcast of
/// `x` equals a contiguous copy of a strided view of `x`'s storage, and of the storage `x` was
/// itself copied from when `x`'s class holds such a copy ("view-through-copy": the view of a
/// view composes into one layout).
fn movement_to_view(egraph: &SgGraph, class: Id, kind: fn(&Op) -> bool) -> Vec<Action> {
    let mut actions = Vec::new();
    for node in nodes(egraph, class) {
        let Sg::Move([n, x]) = node else { continue };
        let graph_node = &egraph.analysis.graph.nodes[index(egraph, *n)];
        if !kind(&graph_node.op) {
            continue;
        }
        let mut sources = vec![placement(egraph, *x)];
        for inner in nodes(egraph, *x) {
            // Only through a view: it shows its base's value. An in-place result lives in
            // another value's storage, and a view of that storage would show the other value.
            if let Sg::Contig([v]) = inner {
                if nodes(egraph, *v).any(|n| matches!(n, Sg::View(_))) {
                    sources.push(placement(egraph, *v));
                }
            }
        }
        for (base, layout) in sources {
            if let Some(layout) = layout.apply(&graph_node.op, &graph_node.shape) {
                actions.push(Action::CopyOfView { class, base, layout });
            }
        }
    }
    actions
}

/// The aliased (strided) values whose copy class `c` holds: `c = (contig v)`.
fn strided_sources(egraph: &SgGraph, c: Id) -> impl Iterator<Item = Id> + '_ {
    nodes(egraph, c).filter_map(move |n| match n {
        Sg::Contig([v]) if matches!(value(egraph, *v).storage, Storage::Alias { .. }) => Some(*v),
        _ => None,
    })
}

/// Copies of `args` whose operands at positions `from..` read through their copies: each
/// operand whose class holds `(contig v)` (with `keep(v)`) is replaced by `v`, all at once
/// (reading in place is never worse than reading a copy, and one variant instead of one per
/// subset keeps the e-graph small), plus one variant per further source of an operand.
fn read_through_copies(egraph: &SgGraph, args: &[Id], from: usize, keep: impl Fn(Id) -> bool) -> Vec<Box<[Id]>> {
    // Most operands are no copies: look before allocating.
    if !args[from.min(args.len())..].iter().any(|&a| strided_sources(egraph, a).any(&keep)) {
        return Vec::new();
    }
    let sources: Vec<Vec<Id>> = args
        .iter()
        .enumerate()
        .map(|(k, &a)| if k < from { Vec::new() } else { strided_sources(egraph, a).filter(|&v| keep(v)).collect() })
        .collect();
    let all: Vec<Id> = args.iter().zip(&sources).map(|(&a, s)| s.first().copied().unwrap_or(a)).collect();
    let mut variants: Vec<Box<[Id]>> = vec![all.clone().into()];
    for (k, s) in sources.iter().enumerate() {
        for &v in s.iter().skip(1) {
            let mut new = all.clone();
            new[k] = v;
            variants.push(new.into());
        }
    }
    variants
}

/// `(ew p .. (contig v) ..)` → `(ew p .. v ..)`: elementwise kernels read any layout, so they
/// need no contiguous copy. (For `ew!`, not the written operand: that would change where the
/// result lives; nor a view of the written storage in another layout: the kernel would read
/// elements it has already overwritten.)
fn elementwise_reads_strided(egraph: &SgGraph, class: Id) -> Vec<Action> {
    let mut actions = Vec::new();
    for node in nodes(egraph, class) {
        match node {
            Sg::Ew(args) => actions.extend(
                read_through_copies(egraph, args, 1, |_| true)
                    .into_iter()
                    .map(|new| Action::Equal { class, node: Sg::Ew(new) }),
            ),
            Sg::EwInPlace(args) => {
                let target = place(egraph, args[1]);
                let keep = |v: Id| {
                    let (storage, layout) = place(egraph, v);
                    storage != target.0 || layout == target.1
                };
                actions.extend(
                    read_through_copies(egraph, args, 2, keep)
                        .into_iter()
                        .map(|new| Action::Equal { class, node: Sg::EwInPlace(new) }),
                );
            }
            _ => {}
        }
    }
    actions
}

/// `(kernel n .. (contig v) ..)` → `(kernel n .. v ..)` when `v`'s layout is exactly a
/// contiguous buffer (an in-place result over a whole buffer, a reshape view): a kernel that
/// needs contiguous input can read it where it is.
fn kernel_reads_contiguous_alias(egraph: &SgGraph, class: Id) -> Vec<Action> {
    let mut actions = Vec::new();
    for node in nodes(egraph, class) {
        if let Sg::Kernel(args) = node {
            let contiguous = |v: Id| place(egraph, v).1.is_contiguous();
            actions.extend(
                read_through_copies(egraph, args, 1, contiguous)
                    .into_iter()
                    .map(|new| Action::Equal { class, node: Sg::Kernel(new) }),
            );
        }
    }
    actions
}

/// The most-fused elementwise producer in class `c`: (program, operands, in place).
fn producer(egraph: &SgGraph, c: Id) -> Option<(usize, &[Id], bool)> {
    nodes(egraph, c)
        .filter_map(|n| match n {
            Sg::Ew(args) => Some((index(egraph, args[0]), &args[1..], false)),
            Sg::EwInPlace(args) => Some((index(egraph, args[0]), &args[1..], true)),
            _ => None,
        })
        .max_by(|(p, a, x), (q, b, y)| {
            let key = |p: usize, in_place: bool| (egraph.analysis.programs[p].steps.len(), !in_place);
            key(*p, *x).cmp(&key(*q, *y)).then_with(|| b.cmp(a))
        })
}

/// `(ew p .. t ..)` with `t = (ew q xs)` read only by `p` (once or more) → `(ew p∘q .. xs ..)`: one kernel
/// computes both, reading `q`'s operands (the flat program applies `q`'s steps then `p`'s, in
/// the same order, so results are bit-identical). The rule fuses transitively at once, and only
/// at values where fusion ends, so a fused region gets one maximal fused node (linear growth
/// on chains; fusing every prefix separately grows quadratically, see the notes). For `ew!`, the written operand fuses only with an
/// in-place producer writing the same storage.
fn fuse_elementwise(egraph: &SgGraph, class: Id) -> Vec<Action> {
    let mut actions = Vec::new();
    // Only where fusion ends: a value read once by an elementwise op vanishes into its
    // reader's kernel, which fuses through it.
    if !matches!(&egraph[class].data, crate::egraph::Info::Value(v) if v.sink) {
        return actions;
    }
    // A region longer than one kernel's bound is cut: the value at the cut is where the next
    // kernel of the region ends (a 5000-op chain becomes 20 kernels, not one kernel of 256
    // steps after 4744 unfused ones). So is a value the region expected to absorb that the
    // kernel could not (a reader of it left out by the cut).
    let mut roots = vec![egraph.find(class)];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(root) = roots.pop() {
        if seen.insert(root) {
            fuse_at(egraph, root, &mut actions, &mut roots);
        }
    }
    actions
}

/// The steps of one fused program: long enough for one kernel (a longer region is cut into
/// several).
const MAX_FUSED_STEPS: usize = 256;

/// The operands a fusion may widen a kernel to: a producer whose inputs would take the kernel
/// past it stays a kernel of its own. Each fused producer's inputs live until the kernel that
/// absorbed it runs: an isolation forest's 24 per-tree path sums (`depth + c`), fused into the
/// final `Sum`, kept 48 tensors live instead of 24 (its arena 1.76x the in-order peak). No
/// other zoo kernel reads more than 12.
const MAX_FUSED_OPERANDS: usize = 16;

/// Proposes the maximal fusion of `class`'s most-fused kernels, each up to
/// [`MAX_FUSED_STEPS`]; pushes onto `cuts` the operands the fused program still reads that
/// were to vanish into a kernel (no sinks, elementwise producers): past the bound, or with a
/// reader the cut left out.
fn fuse_at(egraph: &SgGraph, class: Id, actions: &mut Vec<Action>, cuts: &mut Vec<Id>) {
    // Only from the class's most-fused kernels (per kind): fusing a less-fused one again
    // reaches a program the class already has (the operand variants that read views come
    // from `elementwise-reads-strided` on the fused kernel itself).
    let kernels = most_fused_of_kind(egraph, class, false)
        .into_iter()
        .map(|k| (k, false))
        .chain(most_fused_of_kind(egraph, class, true).into_iter().map(|k| (k, true)));
    // Operand `k` (a class) of `program` fuses into the kernel: every use of it is a read in
    // the program (one read, or several: `x * sigmoid(x)`, a residual `y + f(y)`), with an
    // elementwise producer (for the written operand of `ew!`, an in-place one).
    let fusable = |program: &Program, k: usize, t: Id, in_place: bool| -> Option<(usize, &[Id])> {
        if value(egraph, t).uses != reads(program, k) || t == egraph.find(class) {
            return None;
        }
        let (q, inner, producer_in_place) = producer(egraph, t)?;
        (!(in_place && k == 0 && !producer_in_place)).then_some((q, inner))
    };
    for ((p, args), in_place) in kernels {
        let original = &egraph.analysis.programs[p];
        let found: Vec<Id> = args.iter().map(|&a| egraph.find(a)).collect();
        // One value read through several inputs (`mul(i0, i1)` of `(d, d)`: a square) is read
        // through one, so that its uses all count as the program's reads of it. The written
        // operand of an in-place kernel stays input 0 either way (first occurrences are kept).
        let duplicated = (1..found.len()).any(|k| found[..k].contains(&found[k]));
        let merged = duplicated.then(|| original.clone().merged(&found));
        let (original, found) = match &merged {
            Some((program, operands)) => (program, operands.as_slice()),
            None => (original, found.as_slice()),
        };
        // Most kernels are fused already: look before copying the program.
        if !found.iter().enumerate().any(|(k, &a)| fusable(original, k, a, in_place).is_some()) {
            continue;
        }
        let mut program = original.clone();
        let mut operands: Vec<Id> = found.to_vec();
        let mut fused = false;
        // Operands whose producer would take the kernel past [`MAX_FUSED_OPERANDS`].
        let mut kept: std::collections::BTreeSet<Id> = std::collections::BTreeSet::new();
        while program.steps.len() < MAX_FUSED_STEPS {
            let next = (0..operands.len())
                .filter(|&k| !kept.contains(&operands[k]))
                .find_map(|k| fusable(&program, k, operands[k], in_place).map(|(q, inner)| (k, q, inner)));
            let Some((k, q, inner)) = next else { break };
            let inner: Vec<Id> = inner.iter().map(|&a| egraph.find(a)).collect();
            let (wider, read) = program.compose(&operands, k, &egraph.analysis.programs[q], &inner);
            if read.len() > MAX_FUSED_OPERANDS && read.len() > operands.len() {
                kept.insert(operands[k]);
                continue;
            }
            (program, operands) = (wider, read);
            fused = true;
        }
        // Operands that were to vanish into this kernel (no sinks, elementwise producers) but
        // did not: past the bound, or with readers left out by the cut. Each ends a kernel of
        // its own, or its producers would never be fused.
        cuts.extend(operands.iter().copied().filter(|&t| {
            matches!(&egraph[t].data, crate::egraph::Info::Value(v) if !v.sink) && producer(egraph, t).is_some()
        }));
        if fused {
            actions.push(Action::Fused { class, program, operands, in_place });
        }
    }
}

/// How many times `program`'s steps read its input `k`: the uses of that operand inside the
/// kernel (each step is one graph op reading its operands in order, so a value read twice by
/// one op counts twice, as `Graph::uses` counts it).
fn reads(program: &Program, k: usize) -> u32 {
    program.steps.iter().flat_map(|(_, args)| args).filter(|&&a| a == strata_sg_kinds::Arg::Input(k)).count() as u32
}

/// The most-fused elementwise kernels of class `c`: `(program, operands)` of its `ew` nodes
/// with the most steps (the others are never the cheapest).
fn most_fused(egraph: &SgGraph, c: Id) -> Vec<(usize, &[Id])> {
    most_fused_of_kind(egraph, c, false)
}

/// [`most_fused`] among the `ew` nodes (`in_place` false) or the `ew!` nodes (true).
fn most_fused_of_kind(egraph: &SgGraph, c: Id, in_place: bool) -> Vec<(usize, &[Id])> {
    let kernels: Vec<(usize, &[Id])> = nodes(egraph, c)
        .filter_map(|n| match (n, in_place) {
            (Sg::Ew(args), false) | (Sg::EwInPlace(args), true) => Some((index(egraph, args[0]), &args[1..])),
            _ => None,
        })
        .collect();
    let most = kernels.iter().map(|(p, _)| egraph.analysis.programs[*p].steps.len()).max();
    kernels.into_iter().filter(|(p, _)| Some(egraph.analysis.programs[*p].steps.len()) == most).collect()
}

/// `(ew p .. t ..)` with `t = (kernel n args)` read only here, `n` a kernel that takes an
/// epilogue → `(kernel+ n p' args.. others..)`: the kernel applies the program to its result
/// tiles before storing them, so `t` never exists (one launch and one buffer fewer). The
/// program is the same (its input `t` moved first), so the values are bit-identical.
/// Proposed for the most-fused kernel of a value where fusion ends.
fn fuse_epilogue(egraph: &SgGraph, class: Id) -> Vec<Action> {
    let mut actions = Vec::new();
    let crate::egraph::Info::Value(result) = &egraph[class].data else { return actions };
    if result.storage != Storage::Fresh || !result.sink {
        return actions;
    }
    let graph = &egraph.analysis.graph;
    // Per kernel result it could absorb, two program variants: the one that copies the least
    // (it reads views in place) and the one that copies the most (its reads leave the in-place
    // writes around it legal); the validator's verdict decides between them at extraction.
    // Every variant would make the e-graph grow with the product of the variants.
    // (copies, program, position of t, operands), least and most copies.
    type Variant<'o> = (usize, usize, usize, &'o [Id]);
    let mut extremes: std::collections::BTreeMap<Id, [Variant; 2]> = std::collections::BTreeMap::new();
    for (p, operands) in most_fused(egraph, class) {
        let cost = copies(egraph, operands);
        for (k, &t) in operands.iter().enumerate() {
            let t = egraph.find(t);
            let v = value(egraph, t);
            if v.uses != 1
                || v.storage != Storage::Fresh
                || v.shape != result.shape
                || v.elem_bytes != result.elem_bytes
                || t == egraph.find(class)
            {
                continue;
            }
            let candidate = (cost, p, k, operands);
            let entry = extremes.entry(t).or_insert([candidate; 2]);
            if cost < entry[0].0 {
                entry[0] = candidate;
            }
            if cost > entry[1].0 {
                entry[1] = candidate;
            }
        }
    }
    let best =
        extremes
            .into_iter()
            .flat_map(|(t, [least, most])| if least == most { vec![(t, least)] } else { vec![(t, least), (t, most)] });
    for (t, (_, p, k, operands)) in best {
        // The extras are read while the kernel runs: none is the kernel's own result (fusion
        // merged duplicate operands, so `t` appears once).
        let extras: Box<[Id]> =
            operands.iter().enumerate().filter(|&(i, _)| i != k).map(|(_, &o)| egraph.find(o)).collect();
        // Every variant of the kernel: which of its aliased operands the in-place validator
        // accepts depends on the schedule, so each stays available.
        for node in nodes(egraph, t) {
            let Sg::Kernel(args) = node else { continue };
            if graph.epilogue_kernels.contains(&index(egraph, args[0])) {
                actions.push(Action::Epilogue {
                    class,
                    node: index(egraph, args[0]),
                    kernel_args: args[1..].into(),
                    program: p,
                    first: k,
                    extras: extras.clone(),
                });
            }
        }
    }
    actions
}

/// How many of `operands` are contiguous copies of a strided value (classes holding
/// `(contig v)` with `v` an alias).
fn copies(egraph: &SgGraph, operands: &[Id]) -> usize {
    operands.iter().filter(|&&o| strided_sources(egraph, o).next().is_some()).count()
}

/// `(ew p x ..)` → `(contig (ew! p x ..))`: the result may be written over operand `x` (any
/// operand, moved first), which is then no longer available. Proposed for the most-fused
/// kernel of a value where fusion ends (an output, or a value not read by exactly one
/// elementwise op); it is legal only if nothing reads
/// `x`'s old contents afterwards, which the validator checks on the extracted program (it
/// depends on the schedule). Never into graph inputs or constants, into a layout where two
/// indices share an element (a broadcast), across element sizes, or when another operand
/// shows the same storage in a different layout (it would read overwritten elements).
fn elementwise_in_place(egraph: &SgGraph, class: Id) -> Vec<Action> {
    let mut actions = Vec::new();
    let crate::egraph::Info::Value(result) = &egraph[class].data else { return actions };
    if result.storage != Storage::Fresh || !result.sink {
        return actions;
    }
    // Only the class's most-fused kernel (the others are never the cheapest).
    for (p, operands) in most_fused(egraph, class) {
        let placements: Vec<(Id, crate::egraph::LayoutRef)> = operands.iter().map(|&o| place(egraph, o)).collect();
        for k in 0..operands.len() {
            let target = value(egraph, operands[k]);
            if target.read_only || target.shape != result.shape || target.elem_bytes != result.elem_bytes {
                continue;
            }
            let (storage, layout) = &placements[k];
            if layout.has_repeats() {
                continue;
            }
            // Another operand showing the same storage in another layout would read elements
            // the kernel has already overwritten.
            if placements.iter().enumerate().any(|(i, (s, l))| i != k && s == storage && l != layout) {
                continue;
            }
            let mut moved = vec![operands[k]];
            moved.extend(operands.iter().enumerate().filter(|&(i, _)| i != k).map(|(_, &o)| o));
            actions.push(Action::InPlace { class, program: p, first: k, operands: moved });
        }
    }
    actions
}

/// `(out .. (contig v) ..)` → `(out .. v ..)`: an output is read in any layout (the caller's
/// copy out, or the next graph's input).
fn output_any_layout(egraph: &SgGraph, class: Id) -> Vec<Action> {
    let mut actions = Vec::new();
    for node in nodes(egraph, class) {
        // One output at a time: which outputs can be read in place depends on the in-place
        // writes the validator accepts, so every combination must stay available.
        if let Sg::Out(outputs) = node {
            for k in 0..outputs.len() {
                for v in strided_sources(egraph, outputs[k]) {
                    let mut new = outputs.to_vec();
                    new[k] = v;
                    actions.push(Action::Equal { class, node: Sg::Out(new.into()) });
                }
            }
        }
    }
    actions
}
