//! Liveness of a function's static allocations, as a `strata_plan::Problem`.
//!
//! - Time is the index of the entry-block op: a use anywhere inside op k (a loop body, say)
//!   counts at k, so a buffer used in a loop stays live for the whole loop.
//! - A buffer is live from its first use (its memory is not observed before that: an
//!   allocation is uninitialised) to its last use; creating a view is not a use.
//! - Planned: `memref.alloc` ops in the function's entry block with a static shape, identity
//!   layout and a known element width, and those inside an entry-block `scf.forall` of at most
//!   [`MAX_PRIVATE_COPIES`] iterations (not inside a loop of its body): each iteration's own
//!   scratch, the iterations running at once. Such a buffer holds one copy per iteration (the
//!   view at the iteration's offset), or one copy where only one iteration can reach it (a
//!   case of an `scf.index_switch` on the loop's variable). Others are left alone (and counted).
//! - View-like ops (`subview`, `view`, `reinterpret_cast`, `expand_shape`, `collapse_shape`,
//!   `transpose`, `cast`) alias their source: their uses extend the base buffer's lifetime.
//! - Allocations inside an entry-block `scf.if` (either branch, nested ifs too, not inside a
//!   loop there) with a static shape are planned too. Those a branch yields (the `scf.if`'s
//!   results may be them) are buffers of the function, live from the `scf.if` to the last use
//!   of its results (the two branches' allocations yielded at one position share a buffer:
//!   only one of them is made). The others, the branches' scratch, are planned first among
//!   themselves on a timeline of the branches' own ops (the then branch's, then the else branch's, nested
//!   ifs' inline; a use inside a loop there counts at the loop), so the two branches share
//!   their memory (only one runs) and a branch reuses it as an executor would; that block is
//!   one buffer of the function live for the `scf.if` (`Analysis::branch_locals`).
//! - Results of ops with regions alias what their regions yield: an `scf.if` result each
//!   branch's `scf.yield` operand at its position (a branch may yield an entry-block buffer
//!   unchanged, an Identity); results and memref block arguments of other region ops (loops
//!   carrying memrefs) alias all their memref operands and yields. Uses of such a value are
//!   uses of every buffer it may be, so no buffer it may be dies while it is still read.
//! - A buffer that reaches the function's terminator escapes and is not planned.
//! - `memref.dealloc` is not a use; the deallocs of planned buffers are returned for removal.
//! - A use inside a span of ops that a host pass runs as one kernel after planning
//!   ([`fused_spans`](crate::fused_spans): a depthwise convolution, its chain and cast to
//!   bytes) counts over the whole span.
//! - Parallel-aware (optional): the op dependency DAG over entry-block ops has an edge for
//!   every SSA def-use and, per memory object (allocation or memref argument, through its
//!   views), between its consecutive users in program order (every use counted as a write:
//!   conservative), so sharing memory never orders ops the program leaves independent.
//! - In-place candidates: an elementwise `linalg.generic` (all loops parallel, the output
//!   indexed by the identity) or named elementwise op whose input buffer, read through the
//!   identity, dies at it may write into that input: the output gets the input as in-place
//!   partner (same size required). Other inputs may be broadcasts (a bias, a scalar), but no
//!   input reads the partner's buffer through another map.

use melior::ir::attribute::AttributeLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::TypeLike;
use melior::ir::{BlockLike, RegionLike, ShapedTypeLike, ValueLike};
use std::collections::BTreeMap;
use strata_ir::Error;
use strata_ir::{Op, Val};
use strata_plan::{Buffer, Problem};

pub(crate) const VIEW_LIKE: &[&str] = &[
    "memref.subview",
    "memref.view",
    "memref.reinterpret_cast",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.transpose",
    "memref.cast",
];

/// Named linalg ops that are elementwise: each writes every element of its destination (its
/// last operand) from the same elements of its inputs, without reading the destination.
pub(crate) const ELEMENTWISE: &[&str] = &[
    "linalg.add",
    "linalg.sub",
    "linalg.mul",
    "linalg.div",
    "linalg.max",
    "linalg.min",
    "linalg.exp",
    "linalg.log",
    "linalg.abs",
    "linalg.negf",
    "linalg.sqrt",
    "linalg.tanh",
    "linalg.erf",
    "linalg.floor",
    "linalg.ceil",
    "linalg.reciprocal",
    "linalg.rsqrt",
    "linalg.square",
    "linalg.copy",
];

/// What [`analyze`] found in one function.
pub struct Analysis {
    pub problem: Problem,
    /// The `memref.alloc` of each buffer of `problem`, in the same order.
    pub allocs: Vec<Op>,
    /// The deallocs of planned buffers.
    pub deallocs: Vec<Op>,
    /// Allocations left alone, with the reason.
    pub skipped: Vec<String>,
    /// Per buffer of `problem`, the entry-block ops that use it, in order.
    pub use_times: Vec<Vec<u64>>,
    /// Per buffer of `problem`, for one copy per iteration of an `scf.forall`: the loop's
    /// variable and the bytes between consecutive iterations' copies.
    pub per_iteration: Vec<Option<(Val, u64)>>,
    /// The branches' scratch of entry-block `scf.if`s: (the buffer of `problem` holding the
    /// if's scratch, whose entry in `allocs` is the `scf.if` itself; an allocation in it; its
    /// offset inside that buffer).
    pub branch_locals: Vec<(usize, Op, u64)>,
}

/// The most iterations of an `scf.forall` whose allocations are planned as one copy per
/// iteration (sections run side by side, such as a bidirectional recurrence's two directions).
pub const MAX_PRIVATE_COPIES: i64 = 16;

fn name(op: OperationRef<'_, '_>) -> String {
    strata_ir::ods::op_name(op)
}

/// Byte width of a memref element type, if it is a plain scalar (booleans take a byte, as
/// in LLVM's memory layout).
fn element_bytes(element: &str) -> Option<u64> {
    let element = element
        .strip_prefix("ui")
        .or_else(|| element.strip_prefix("si"))
        .map_or(element.to_owned(), |bits| format!("i{bits}"));
    match element.as_str() {
        // Sub-byte integers and small floats take a byte each (LLVM's store size).
        "i1" | "i2" | "i4" | "i8" | "f8E4M3FN" | "f8E4M3FNUZ" | "f8E5M2" | "f8E5M2FNUZ" | "f4E2M1FN" | "f8E8M0FNU" => {
            Some(1)
        }
        "i16" | "f16" | "bf16" => Some(2),
        "i32" | "f32" => Some(4),
        "i64" | "f64" | "index" => Some(8),
        _ => None,
    }
}

/// The byte size of a static, identity-layout memref type in the default memory space, or
/// why it has none.
pub fn memref_bytes(ty: melior::ir::Type<'_>) -> Result<u64, Error> {
    let ty = strata_ir::types::memref(ty).ok_or_else(|| "not a memref".to_owned())?;
    if !strata_ir::handle::is_identity_layout(ty.layout()) {
        return Err(Error::unsupported(format!("non-identity layout {}", ty.layout())));
    }
    if ty.memory_space().is_some() {
        return Err(Error::unsupported("non-default memory space"));
    }
    let element = strata_ir::types::type_name(ty.element());
    let bytes = element_bytes(&element).ok_or_else(|| format!("element type {element}"))?;
    let mut count = 1u64;
    for i in 0..ty.rank() {
        match ty.dim_size(i).map_err(|e| e.to_string())? {
            melior::ir::r#type::DimSize::Static(n) => count *= n,
            _ => return Err(Error::unsupported("dynamic shape")),
        }
    }
    Ok(count * bytes)
}

/// The byte size of an alloc's static, identity-layout memref, or why it cannot be planned.
fn static_size(op: OperationRef<'_, '_>) -> Result<u64, Error> {
    if op.operand_count() != 0 {
        return Err(Error::unsupported("dynamic sizes or symbols"));
    }
    memref_bytes(op.result(0).map_err(|e| e.to_string())?.r#type())
}

struct Walk {
    /// Buffer index (in the problem) of each planned allocation's memory object.
    planned: BTreeMap<usize, usize>,
    /// First and last use (entry-block op containing the use) per buffer.
    first_use: Vec<u64>,
    last_use: Vec<u64>,
    escapes: Vec<bool>,
    deallocs: Vec<(usize, Op)>,
    /// (entry-block index, op) of elementwise ops, for in-place detection.
    elementwise: Vec<(u64, Op, Vec<bool>)>,
    /// Memory object of each memref value (allocations, arguments and their views).
    memory: BTreeMap<usize, usize>,
    memories: usize,
    /// The memory objects a joined one may be (an `scf.if` result: what either branch
    /// yields), flattened.
    joined: BTreeMap<usize, Vec<usize>>,
    /// (memory object, entry-block index) of every use, in program order.
    touches: Vec<(usize, u64)>,
    /// Entry-block index defining each value.
    defined_at: BTreeMap<usize, u64>,
    /// SSA dependencies (from, to) between entry-block ops.
    edges: Vec<(usize, usize)>,
    /// Whether a `linalg.generic` with these (uniqued) `iterator_types` and `indexing_maps` is
    /// elementwise: reading them prints them, and a model's generics share a few pairs.
    generic_kinds: BTreeMap<(usize, usize), Option<Vec<bool>>>,
}

fn key(value: Val) -> usize {
    value.raw().ptr as usize
}

impl Walk {
    /// The planned buffer `value` is (a view of), if any: for the in-place rule, which needs
    /// one buffer (a value that may be several has none).
    fn buffer(&self, value: Val) -> Option<usize> {
        match self.buffers(value).as_slice() {
            &[one] if !self.memory.get(&key(value)).is_some_and(|m| self.joined.contains_key(m)) => Some(one),
            _ => None,
        }
    }

    /// The memory objects `memory` stands for: itself, or every one a joined object may be.
    fn members(&self, memory: usize) -> Vec<usize> {
        self.joined.get(&memory).cloned().unwrap_or_else(|| vec![memory])
    }

    /// The planned buffers `value` may be (a view of).
    fn buffers(&self, value: Val) -> Vec<usize> {
        let Some(&memory) = self.memory.get(&key(value)) else { return Vec::new() };
        self.members(memory).iter().filter_map(|m| self.planned.get(m)).copied().collect()
    }

    /// Makes `value` stand for every memory object of `sources` (none: nothing to record).
    fn join(&mut self, value: Val, sources: &[Val]) {
        let mut members: Vec<usize> = sources
            .iter()
            .filter_map(|source| self.memory.get(&key(*source)).copied())
            .flat_map(|memory| self.members(memory))
            .collect();
        members.sort_unstable();
        members.dedup();
        match members.as_slice() {
            [] => {}
            &[one] => {
                self.memory.insert(key(value), one);
            }
            _ => {
                self.memory.insert(key(value), self.memories);
                self.joined.insert(self.memories, members);
                self.memories += 1;
            }
        }
    }
}

/// The memref-typed operands of `op`.
fn memref_operands(op: OperationRef<'_, '_>) -> Vec<Val> {
    op.operands().filter(|v| v.r#type().is_mem_ref()).map(Val::of).collect()
}

/// The terminators of the blocks of `op`'s regions.
fn region_terminators<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            if let Some(t) = b.terminator() {
                found.push(t);
            }
            block = b.next_in_region();
        }
    }
    found
}

/// Records the uses of `op` and everything nested in it at time `top` (the index of the
/// entry-block op that contains it).
fn visit(op: OperationRef<'_, '_>, walk: &mut Walk, top: u64, nested: bool, uses: &mut Vec<(usize, u64)>) {
    let op_name = name(op);
    for operand in op.operands() {
        let value = key(Val::of(operand));
        if let Some(&from) = walk.defined_at.get(&value) {
            if from < top {
                walk.edges.push((from as usize, top as usize));
            }
        }
        if let Some(&memory) = walk.memory.get(&value) {
            for member in walk.members(memory) {
                walk.touches.push((member, top));
            }
            if VIEW_LIKE.contains(&op_name.as_str()) {
                for result in op.results() {
                    walk.memory.insert(key(Val::of(result)), memory);
                }
            }
        }
    }
    for result in op.results() {
        walk.defined_at.insert(key(Val::of(result)), top);
        if op_name == "memref.alloc" || op_name == "memref.alloca" {
            walk.memory.insert(key(Val::of(result)), walk.memories);
            walk.memories += 1;
        }
    }
    let used: Vec<usize> = op.operands().flat_map(|v| walk.buffers(Val::of(v))).collect();
    // Loops carrying memrefs: their block arguments may be any memref they take or yield
    // (the yields are not known yet: every operand for now, the yields join the results).
    let regions = op.region_count() > 0;
    let is_if = op_name == "scf.if" || op_name == "scf.index_switch";
    if regions && !is_if {
        let sources = memref_operands(op);
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(b) = block {
                for index in 0..b.argument_count() {
                    let argument = b.argument(index).expect("counted");
                    if argument.r#type().is_mem_ref() {
                        walk.join(Val::of(argument), &sources);
                    }
                }
                block = b.next_in_region();
            }
        }
    }
    if op_name == "memref.dealloc" {
        walk.deallocs.extend(used.iter().map(|&buffer| (buffer, Op::of(&op))));
    } else {
        let is_terminator = !nested && op.next_in_block().is_none();
        let is_view = VIEW_LIKE.contains(&op_name.as_str());
        for &buffer in &used {
            walk.escapes[buffer] |= is_terminator;
            if !is_view {
                uses.push((buffer, top));
            }
        }
        if !nested {
            if let Some(identity) = elementwise_maps(op, &op_name, &mut walk.generic_kinds) {
                walk.elementwise.push((top, Op::of(&op), identity));
            }
        }
    }
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut child = b.first_operation();
            while let Some(c) = child {
                visit(c, walk, top, true, uses);
                child = c.next_in_block();
            }
            block = b.next_in_region();
        }
    }
    // What the regions yield, the results may be.
    if regions {
        let terminators = region_terminators(op);
        let everything: Vec<Val> =
            memref_operands(op).into_iter().chain(terminators.iter().flat_map(|&t| memref_operands(t))).collect();
        for (k, result) in op.results().enumerate() {
            if !result.r#type().is_mem_ref() {
                continue;
            }
            let sources: Vec<Val> = if is_if {
                terminators.iter().filter_map(|t| t.operand(k).ok()).map(Val::of).collect()
            } else {
                everything.clone()
            };
            walk.join(Val::of(result), &sources);
        }
    }
}

/// The allocations inside `branching` (an entry-block `scf.if`) that can be planned: with
/// static sizes, not inside a loop there.
fn branch_allocations(branching: OperationRef<'_, '_>) -> Vec<Op> {
    let top = Op::of(&branching);
    top.collect(|op| op.is("memref.alloc"))
        .into_iter()
        .filter(|alloc| {
            let mut inside = *alloc;
            while let Some(parent) = inside.parent() {
                if parent == top {
                    return static_size(alloc.get()).is_ok();
                }
                if !parent.is("scf.if") {
                    return false;
                }
                inside = parent;
            }
            false
        })
        .collect()
}

/// For an elementwise op (a named one, or a `linalg.generic` with only parallel loops whose
/// output is indexed by the identity map), whether each operand (the output last) is read
/// through the identity map; `None` for any other op. An input read through the identity may
/// be written over; the others (broadcasts of a bias, a scalar) are only read.
fn elementwise_maps(
    op: OperationRef<'_, '_>,
    op_name: &str,
    memo: &mut BTreeMap<(usize, usize), Option<Vec<bool>>>,
) -> Option<Vec<bool>> {
    if ELEMENTWISE.contains(&op_name) {
        return Some(vec![true; op.operand_count()]);
    }
    if op_name != "linalg.generic" {
        return None;
    }
    let (Ok(iterators), Ok(maps)) = (op.attribute("iterator_types"), op.attribute("indexing_maps")) else {
        return None;
    };
    // Attributes are uniqued and live as long as the context: their addresses name them.
    memo.entry((iterators.to_raw().ptr as usize, maps.to_raw().ptr as usize))
        .or_insert_with(|| generic_maps(iterators, maps))
        .clone()
}

/// For a `linalg.generic` with these `iterator_types` and `indexing_maps`: with only parallel
/// loops and an identity output map, which maps are the identity.
fn generic_maps(iterators: melior::ir::Attribute<'_>, maps: melior::ir::Attribute<'_>) -> Option<Vec<bool>> {
    if iterators.to_string().contains("reduction") {
        return None;
    }
    let identity: Vec<bool> = maps
        .to_string()
        .split("affine_map<")
        .skip(1)
        .map(|m| {
            let (dims, results) = m.split_once(" -> ").unwrap_or(("", ""));
            dims.trim_start_matches('(').trim_end_matches(')')
                == results.trim_start_matches('(').split(')').next().unwrap_or("")
        })
        .collect();
    identity.last().copied().unwrap_or(false).then_some(identity)
}

/// The allocations inside `forall` (an entry-block `scf.forall`) that can be planned: with
/// static sizes, not inside a loop of its body. Each with `Some((variable, iterations))` when
/// every iteration needs its own copy, `None` when only one iteration reaches it.
fn forall_allocations(forall: OperationRef<'_, '_>) -> Vec<(Op, Option<(Val, i64)>)> {
    let forall = Op::of(&forall);
    let bounds = |name: &str| strata_ir::ods::i64_array(forall.get(), name);
    let (Some(lower), Some(upper), Some(step)) =
        (bounds("staticLowerBound"), bounds("staticUpperBound"), bounds("staticStep"))
    else {
        return Vec::new();
    };
    if lower != [0] || step != [1] || !(1..=MAX_PRIVATE_COPIES).contains(&upper[0]) || forall.operand_count() != 0 {
        return Vec::new();
    }
    let iterations = upper[0];
    let Some(variable) = forall.body(0).map(|b| b.argument(0)) else { return Vec::new() };
    let mut found = Vec::new();
    for alloc in forall.collect(|op| op.is("memref.alloc")) {
        // Only one iteration runs a case of a switch on the loop's variable (the default: when
        // the cases leave at most one iteration).
        let mut copies = Some((variable, iterations));
        let mut inside = alloc;
        let mut in_loop = false;
        while let Some(parent) = inside.parent() {
            if parent == forall {
                break;
            }
            if ["scf.for", "scf.while", "scf.forall", "scf.parallel"].iter().any(|name| parent.is(name)) {
                in_loop = true;
            }
            if parent.is("scf.index_switch") && parent.operand(0) == variable {
                let region =
                    (0..parent.region_count()).find(|&r| parent.body(r).is_some_and(|b| inside.block() == Some(b)));
                let cases = strata_ir::ods::i64_array(parent.get(), "cases").unwrap_or_default();
                let left = (0..iterations).filter(|i| !cases.contains(i)).count();
                if region.is_some_and(|r| r > 0) || (region == Some(0) && left <= 1) {
                    copies = None;
                }
            }
            inside = parent;
        }
        if !in_loop && static_size(alloc.get()).is_ok() {
            found.push((alloc, copies));
        }
    }
    found
}

/// Pairs of allocations that the two branches of `branching` yield at the same position,
/// each as its branch's `scf.yield` operand there (itself or a view of it, nothing joined) and
/// yielded at no other position: only one of a pair is ever made, so they can share a buffer.
/// The rest of `out` (the branches' yielded allocations) comes back as it was.
fn exclusive_results(branching: OperationRef<'_, '_>, out: Vec<Op>, walk: &Walk) -> (Vec<(Op, Op)>, Vec<Op>) {
    let terminators = region_terminators(branching);
    let &[then_yield, else_yield] = terminators.as_slice() else { return (Vec::new(), out) };
    let mut positions: BTreeMap<usize, usize> = BTreeMap::new();
    for result in branching.results() {
        if let Some(&memory) = walk.memory.get(&key(Val::of(result))) {
            for member in walk.members(memory) {
                *positions.entry(member).or_default() += 1;
            }
        }
    }
    let memory_of = |alloc: &Op| walk.memory[&key(alloc.result(0))];
    let direct = |terminator: OperationRef<'_, '_>, k: usize| -> Option<usize> {
        let memory = *walk.memory.get(&key(Val::of(terminator.operand(k).ok()?)))?;
        (!walk.joined.contains_key(&memory)).then_some(memory)
    };
    let mut pairs = Vec::new();
    let mut paired = Vec::new();
    for k in 0..branching.result_count() {
        let (Some(a), Some(b)) = (direct(then_yield, k), direct(else_yield, k)) else { continue };
        if a == b || positions.get(&a) != Some(&1) || positions.get(&b) != Some(&1) {
            continue;
        }
        let find = |memory: usize| out.iter().find(|alloc| memory_of(alloc) == memory).copied();
        if let (Some(first), Some(second)) = (find(a), find(b)) {
            pairs.push((first, second));
            paired.extend([a, b]);
        }
    }
    let rest = out.into_iter().filter(|alloc| !paired.contains(&memory_of(alloc))).collect();
    (pairs, rest)
}

/// The branches' own timeline of `branching`: every op directly in a branch block (a nested
/// `scf.if`'s branches inline after its own step) is one step; a use anywhere inside a step
/// (a loop there) counts at it.
fn branch_steps(branching: OperationRef<'_, '_>, step: &mut u64, on_use: &mut dyn FnMut(Val, u64)) {
    fn uses_within(op: OperationRef<'_, '_>, at: u64, on_use: &mut dyn FnMut(Val, u64)) {
        for operand in op.operands() {
            on_use(Val::of(operand), at);
        }
        for result in op.results() {
            on_use(Val::of(result), at);
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(b) = block {
                let mut child = b.first_operation();
                while let Some(c) = child {
                    uses_within(c, at, on_use);
                    child = c.next_in_block();
                }
                block = b.next_in_region();
            }
        }
    }
    for region in branching.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut child = b.first_operation();
            while let Some(c) = child {
                if name(c) == "scf.if" {
                    for operand in c.operands() {
                        on_use(Val::of(operand), *step);
                    }
                    *step += 1;
                    branch_steps(c, step, on_use);
                } else {
                    uses_within(c, *step, on_use);
                    *step += 1;
                }
                child = c.next_in_block();
            }
            block = b.next_in_region();
        }
    }
}

/// Plans `locals` (allocations of `branching`'s branches that never leave it) on the
/// branches' own timeline: the block's bytes and each allocation's offset in it.
fn plan_branch_scratch(
    branching: OperationRef<'_, '_>,
    locals: &[Op],
    walk: &Walk,
    alignment: u64,
) -> Result<(u64, Vec<u64>), String> {
    let index: BTreeMap<usize, usize> =
        locals.iter().enumerate().map(|(i, alloc)| (walk.memory[&key(alloc.result(0))], i)).collect();
    let mut first = vec![u64::MAX; locals.len()];
    let mut last = vec![0u64; locals.len()];
    let mut step = 0u64;
    branch_steps(branching, &mut step, &mut |value, at| {
        let Some(&memory) = walk.memory.get(&key(value)) else { return };
        for member in walk.members(memory) {
            if let Some(&i) = index.get(&member) {
                first[i] = first[i].min(at);
                last[i] = last[i].max(at);
            }
        }
    });
    let mut buffers = Vec::new();
    for (i, alloc) in locals.iter().enumerate() {
        let size = static_size(alloc.get()).map_err(|e| e.message)?;
        let lower = first[i].min(last[i]);
        let mut buffer = Buffer::new(format!("%alloc#{i} at {}", alloc.location()), lower, last[i] + 1, size);
        buffer.align = alignment;
        buffers.push(buffer);
    }
    let problem = Problem::new(buffers);
    let strategy = strata_plan::report::Strategy::parse("exact").map_err(|e| e.to_string())?;
    let budget = strata_plan::Budget { nodes: u64::MAX, time: Some(std::time::Duration::from_millis(100)) };
    let report = strata_plan::report::plan(&problem, strategy, budget).map_err(|e| e.to_string())?;
    let offsets =
        report.offsets().into_iter().map(|o| o.ok_or("a buffer without an offset")).collect::<Result<_, _>>()?;
    Ok((report.arena_bytes, offsets))
}

/// Analyses `func` (a `func.func`); `alignment` applies to every buffer. With
/// `parallel_aware`, the problem carries the op dependency DAG.
pub fn analyze(func: OperationRef<'_, '_>, alignment: u64, parallel_aware: bool) -> Result<Analysis, Error> {
    let mut buffers = Vec::new();
    let mut allocs = Vec::new();
    let mut skipped = Vec::new();
    let mut walk = Walk {
        planned: BTreeMap::new(),
        first_use: Vec::new(),
        last_use: Vec::new(),
        escapes: Vec::new(),
        deallocs: Vec::new(),
        elementwise: Vec::new(),
        memory: BTreeMap::new(),
        memories: 0,
        joined: BTreeMap::new(),
        touches: Vec::new(),
        defined_at: BTreeMap::new(),
        edges: Vec::new(),
        generic_kinds: BTreeMap::new(),
    };
    let Some(body) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(Analysis {
            problem: Problem::default(),
            allocs,
            deallocs: Vec::new(),
            skipped,
            use_times: Vec::new(),
            per_iteration: Vec::new(),
            branch_locals: Vec::new(),
        });
    };
    for index in 0..body.argument_count() {
        let argument = body.argument(index).expect("counted");
        if argument.r#type().is_mem_ref() {
            walk.memory.insert(key(Val::of(argument)), walk.memories);
            walk.memories += 1;
        }
    }
    let mut uses: Vec<(usize, u64)> = Vec::new();
    let mut per_iteration = Vec::new();
    let mut branch_locals = Vec::new();
    let mut op = body.first_operation();
    let mut number = 0u64;
    while let Some(current) = op {
        let mut planned = None;
        if name(current) == "memref.alloc" {
            match static_size(current) {
                Ok(size) => {
                    let index = buffers.len();
                    planned = Some(index);
                    walk.first_use.push(u64::MAX);
                    walk.last_use.push(number);
                    walk.escapes.push(false);
                    let mut buffer =
                        Buffer::new(format!("%alloc#{index} at {}", current.location()), number, number + 1, size);
                    buffer.align = alignment;
                    buffers.push(buffer);
                    allocs.push(Op::of(&current));
                    per_iteration.push(None);
                }
                Err(reason) => skipped.push(format!("{}: {}", current.location(), reason.message)),
            }
        }
        let mut private = if name(current) == "scf.forall" { forall_allocations(current) } else { Vec::new() };
        let branch = if name(current) == "scf.if" { branch_allocations(current) } else { Vec::new() };
        visit(current, &mut walk, number, false, &mut uses);
        if !branch.is_empty() {
            // What the branches yield lives on after the if; the rest is the branches' scratch.
            let yielded: Vec<usize> = current
                .results()
                .filter_map(|r| walk.memory.get(&key(Val::of(r))).copied())
                .flat_map(|m| walk.members(m))
                .collect();
            let (out, locals): (Vec<Op>, Vec<Op>) =
                branch.into_iter().partition(|alloc| yielded.contains(&walk.memory[&key(alloc.result(0))]));
            let (pairs, out) = exclusive_results(current, out, &walk);
            private.extend(out.into_iter().map(|alloc| (alloc, None)));
            for (first, second) in pairs {
                // One buffer for the two: only the branch that runs makes its own.
                let size = static_size(first.get()).and_then(|a| Ok(a.max(static_size(second.get())?)));
                let Ok(size) = size else { continue };
                let index = buffers.len();
                walk.first_use.push(number);
                walk.last_use.push(number);
                walk.escapes.push(false);
                let mut buffer =
                    Buffer::new(format!("%alloc#{index} at {}", first.location()), number, number + 1, size);
                buffer.align = alignment;
                buffers.push(buffer);
                allocs.push(first);
                per_iteration.push(None);
                for alloc in [first, second] {
                    walk.planned.insert(walk.memory[&key(alloc.result(0))], index);
                }
                uses.push((index, number));
                branch_locals.push((index, second, 0));
            }
            if !locals.is_empty() {
                match plan_branch_scratch(current, &locals, &walk, alignment) {
                    Ok((bytes, offsets)) => {
                        let index = buffers.len();
                        walk.first_use.push(number);
                        walk.last_use.push(number);
                        walk.escapes.push(false);
                        let mut buffer = Buffer::new(
                            format!("%branches#{index} at {}", current.location()),
                            number,
                            number + 1,
                            bytes.max(1),
                        );
                        buffer.align = alignment;
                        buffers.push(buffer);
                        allocs.push(Op::of(&current));
                        per_iteration.push(None);
                        uses.push((index, number));
                        branch_locals
                            .extend(locals.into_iter().zip(offsets).map(|(alloc, offset)| (index, alloc, offset)));
                    }
                    Err(reason) => skipped.push(format!("{}: the branches' scratch: {reason}", current.location())),
                }
            }
        }
        if let Some(index) = planned {
            // `visit` gave the allocation its memory object.
            let result = current.result(0).expect("alloc has a result");
            walk.planned.insert(walk.memory[&key(Val::of(result))], index);
        }
        for (alloc, copies) in private {
            // Live for the whole loop: the iterations run at once.
            let size = static_size(alloc.get()).expect("checked");
            let index = buffers.len();
            let (bytes, stride) = match copies {
                Some((variable, iterations)) => {
                    let stride = size.next_multiple_of(alignment.max(1));
                    (stride * iterations as u64, Some((variable, stride)))
                }
                None => (size, None),
            };
            walk.first_use.push(number);
            walk.last_use.push(number);
            walk.escapes.push(false);
            let mut buffer = Buffer::new(format!("%alloc#{index} at {}", alloc.location()), number, number + 1, bytes);
            buffer.align = alignment;
            buffers.push(buffer);
            allocs.push(alloc);
            per_iteration.push(stride);
            walk.planned.insert(walk.memory[&key(alloc.result(0))], index);
            uses.push((index, number));
        }
        op = current.next_in_block();
        number += 1;
    }
    // A use inside a span of ops run later as one kernel is a use over the whole span.
    let mut span_of = vec![None; number as usize];
    for (first, last) in crate::fused_spans::spans(strata_ir::Blk::of(&body)) {
        span_of[first as usize..=last as usize].fill(Some((first, last)));
    }
    let mut use_times = vec![Vec::new(); buffers.len()];
    for (buffer, time) in uses {
        let (first, last) = span_of.get(time as usize).copied().flatten().unwrap_or((time, time));
        use_times[buffer].push(time);
        walk.first_use[buffer] = walk.first_use[buffer].min(first);
        walk.last_use[buffer] = walk.last_use[buffer].max(last);
    }
    for (index, buffer) in buffers.iter_mut().enumerate() {
        // An unused buffer still gets a one-op lifetime at its allocation.
        buffer.lower = walk.first_use[index].min(buffer.lower.max(walk.last_use[index]));
        buffer.upper = walk.last_use[index] + 1;
    }
    // In-place partners: output buffer produced at an elementwise op where an input dies.
    for (number, raw, identity) in &walk.elementwise {
        let (number, op) = (*number, raw.get());
        let operands: Vec<Val> = op.operands().map(Val::of).collect();
        let Some(&last) = operands.last() else { continue };
        let (Some(output), inputs) = (walk.buffer(last), &operands[..operands.len() - 1]) else { continue };
        if buffers[output].inplace.is_some() {
            continue;
        }
        // Buffers an input reads through another map (a broadcast): never written over, as
        // the write would change elements it still reads.
        let broadcast: Vec<usize> = inputs
            .iter()
            .zip(identity)
            .filter(|&(_, &same)| !same)
            .filter_map(|(&value, _)| walk.buffer(value))
            .collect();
        for (&input, &same) in inputs.iter().zip(identity) {
            let Some(input) = walk.buffer(input).filter(|b| same && !broadcast.contains(b)) else { continue };
            let dies_here = buffers[input].upper == number + 1;
            let starts_here = buffers[output].lower == number;
            if input != output
                && dies_here
                && starts_here
                && buffers[input].size == buffers[output].size
                && !walk.escapes[input]
            {
                buffers[output].inplace = Some(input);
                break;
            }
        }
    }
    let mut keep: Vec<usize> = (0..buffers.len()).filter(|&i| !walk.escapes[i]).collect();
    for &i in &keep {
        if let Some(p) = buffers[i].inplace {
            if walk.escapes[p] {
                buffers[i].inplace = None;
            }
        }
    }
    for i in (0..buffers.len()).filter(|&i| walk.escapes[i]) {
        skipped.push(format!("{}: escapes through the function's results", buffers[i].id));
    }
    // Renumber in-place partners to the kept indices.
    let position: BTreeMap<usize, usize> = keep.iter().enumerate().map(|(new, &old)| (old, new)).collect();
    let planned: Vec<Buffer> = keep
        .iter()
        .map(|&i| {
            let mut b = buffers[i].clone();
            b.inplace = b.inplace.and_then(|p| position.get(&p).copied());
            b
        })
        .collect();
    let deallocs = walk.deallocs.iter().filter(|(b, _)| position.contains_key(b)).map(|&(_, d)| d).collect();
    let use_times = keep
        .iter()
        .map(|&i| {
            let mut times = std::mem::take(&mut use_times[i]);
            times.sort_unstable();
            times.dedup();
            times
        })
        .collect();
    let per_iteration = keep.iter().map(|&i| per_iteration[i]).collect();
    let allocs = keep.drain(..).map(|i| allocs[i]).collect();
    let mut problem = Problem::new(planned);
    if parallel_aware {
        let mut edges = walk.edges;
        let mut last_touch: BTreeMap<usize, u64> = BTreeMap::new();
        for &(memory, time) in &walk.touches {
            if let Some(previous) = last_touch.insert(memory, time) {
                if previous < time {
                    edges.push((previous as usize, time as usize));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        problem.dag = Some(strata_plan::OpDag::new(number as usize, &edges).map_err(|e| e.to_string())?);
    }
    let branch_locals =
        branch_locals.into_iter().filter_map(|(i, alloc, offset)| Some((*position.get(&i)?, alloc, offset))).collect();
    Ok(Analysis { problem, allocs, deallocs, skipped, use_times, per_iteration, branch_locals })
}
