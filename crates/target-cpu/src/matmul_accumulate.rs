//! `strata-matmul-accumulate`: a matmul whose result is only added to a tensor broadcast
//! along it (a bias) starts its sums from that tensor instead of from zero, and the addition
//! goes (host, on tensors, before the schedule).
//!
//! The lowering starts every product from a fill of zeros and runs a following `Add` as an
//! elementwise pass of its own: a linear layer's bias, an OCR head's (the CRNN's 20 x 6625
//! logits: a pass over 530 KB after a product that streams 6.8 MB of weights).
//! `add(matmul(a, b), o)` becomes `matmul(a, b)` accumulating onto `o` broadcast to the
//! product's shape, a new tensor written where the fill was; a bias along the last axis of a
//! 2-D product is broadcast straight into the product's shape, which the schedule's splits take
//! apart by columns as they take fills (`peel_matmuls::Start::Rows`: each part broadcasts its
//! own columns where it computes). The kernels load their accumulators from the initial value
//! (`strata-vectorize-matmul` folds only a fill of zeros into them). This is ONNX Runtime's
//! `MatMulAddFusion`.
//!
//! Taken: an f32 `linalg.matmul` or `linalg.batch_matmul` starting from a fill of `+0.0`
//! whose result (or its one `tensor.expand_shape` or `tensor.collapse_shape`) is read only by
//! a `linalg.generic` of parallel loops that adds it, read with the identity map, to another
//! input defined before the matmul and read through a broadcast (not a tensor of the sum's
//! shape: a residual would make every result of a residual ladder alias the first in
//! bufferization; see [`candidate`]), into a result of the same type. The sums are
//! reassociated (the bias first), so results differ from the separate addition's by rounding;
//! they still do not depend on the thread count.

use melior::ir::attribute::ArrayAttribute;
use std::collections::BTreeMap;
use strata_ir::handle::MapResult;
use strata_ir::rewrite::{collect, erase_if_unused};
use strata_ir::{Blk, Op, Pass, PassContext, PassFailed, PassInfo, PassOptions, StatisticInfo, Val};
use strata_lower::kernel::KernelCache;
use strata_plan_mlir::band_chains::only_user;

pub static INFO: PassInfo = PassInfo {
    name: "strata-matmul-accumulate",
    summary: "A matmul whose result is only added to a bias accumulates onto it (host, on tensors)",
    anchor: "func.func",
    options: &[],
    statistics: &[StatisticInfo {
        name: "matmuls",
        help: "Matmuls accumulating onto the tensor their result was added to",
    }],
};

pub fn create(_: &PassOptions) -> Box<dyn Pass> {
    Box::new(MatmulAccumulate)
}

struct MatmulAccumulate;

/// A match: the matmul, the reshape between it and the addition (if any), the addition, the
/// operand index of its other addend, and the addition's maps as printed.
struct Candidate {
    matmul: Op,
    reshape: Option<Op>,
    add: Op,
    other: usize,
    maps: Vec<String>,
    /// The other addend is read along the sum's last axis alone (a bias).
    bias: bool,
}

/// Whether `generic`'s body is `yield addf(input 0, input 1)` (either order) and ignores its
/// output's value.
fn adds_its_inputs(generic: Op) -> bool {
    let Some(body) = generic.body(0) else { return false };
    let ops = body.ops();
    let ([add, yield_op], 3) = (&ops[..], body.argument_count()) else { return false };
    let inputs = [body.argument(0), body.argument(1)];
    add.is("arith.addf")
        && yield_op.is("linalg.yield")
        && yield_op.operand_count() == 1
        && yield_op.operand(0) == add.result(0)
        && (add.operands() == inputs || add.operands() == [inputs[1], inputs[0]])
        && !body.argument(2).has_uses()
}

/// The maps of `generic` as printed (`affine_map<...>`), for the replacement's text.
fn printed_maps(generic: Op) -> Option<Vec<String>> {
    let maps = ArrayAttribute::try_from(generic.attribute("indexing_maps")?).ok()?;
    Some((0..maps.len()).filter_map(|i| maps.element(i).ok().map(|m| m.to_string())).collect())
}

/// Whether `map` reads every one of `loops` loops in order.
fn identity(map: &[MapResult], loops: usize) -> bool {
    map.len() == loops && map.iter().enumerate().all(|(i, r)| *r == MapResult::Dim(i))
}

/// Positions of the ops of the blocks looked at, each block listed once (a block's order is
/// kept by the rewrites; the ops they insert are not listed, and count as nowhere).
#[derive(Default)]
struct Positions(BTreeMap<usize, BTreeMap<usize, usize>>);

impl Positions {
    /// `op`'s position among the ops of `block`, or that of its ancestor there.
    fn of(&mut self, op: Op, block: Blk) -> Option<usize> {
        use melior::ir::BlockLike;
        let top = op.ancestor_in(block)?;
        let listed = self
            .0
            .entry(block.get().to_raw().ptr as usize)
            .or_insert_with(|| block.ops().iter().enumerate().map(|(i, o)| (o.raw().ptr as usize, i)).collect());
        listed.get(&(top.raw().ptr as usize)).copied()
    }

    /// Whether `value` is defined before `op` (an argument of `op`'s block or of one enclosing
    /// it, or an op before it there or enclosing it).
    fn defined_before(&mut self, value: Val, op: Op) -> bool {
        let Some(block) = op.block() else { return false };
        let Some(owner) = value.owner() else {
            return value.owner_block().is_some_and(|b| b == block || b.parent().is_some_and(|p| op.is_inside(p)));
        };
        if owner.ancestor_in(block).is_none() {
            return true;
        }
        matches!((self.of(owner, block), self.of(op, block)), (Some(a), Some(b)) if a < b)
    }
}

fn candidate(matmul: Op, positions: &mut Positions) -> Option<Candidate> {
    if matmul.operand_count() != 3 || matmul.result_count() != 1 || matmul.region_count() != 1 {
        return None;
    }
    let ty = |v: Val| strata_lower::ops::tensor_type(v.r#type()).ok();
    if [0, 1, 2].iter().any(|&i| ty(matmul.operand(i)).is_none_or(|t| t.elem.name != "f32")) {
        return None;
    }
    // The product must start from zeros: an initial value of its own (a recurrence's input
    // projection) would be lost.
    let fill = matmul.operand(2).owner().filter(|f| f.is("linalg.fill") && f.operand_count() == 2)?;
    if !crate::vectorize_matmul::is_positive_zero(fill.operand(0)) {
        return None;
    }
    let mut summed = matmul.result(0);
    let mut reshape = None;
    let mut add = only_user(summed)?;
    if add.is("tensor.expand_shape") || add.is("tensor.collapse_shape") {
        reshape = Some(add);
        summed = add.result(0);
        add = only_user(summed)?;
    }
    // The addend the product is (an in-place addition reads it as its output too, whose value
    // it ignores), and the other one.
    let index = (0..2).find(|&i| add.operand_count() == 3 && add.operand(i) == summed)?;
    let other = 1 - index;
    if !add.is("linalg.generic")
        || add.result_count() != 1
        || add.attribute("iterator_types")?.to_string().contains("reduction")
    {
        return None;
    }
    let results = strata_ir::handle::map_results(add.attribute("indexing_maps")?)?;
    let loops = results.get(2)?.len();
    if results.len() != 3
        || !identity(&results[index], loops)
        || !identity(&results[2], loops)
        || summed.r#type() != add.result(0).r#type()
        || !adds_its_inputs(add)
        || !positions.defined_before(add.operand(other), matmul)
    {
        return None;
    }
    // Not a residual of the sum's own shape: the matmul would accumulate in its buffer, and
    // along a residual ladder (`y = y + matmul(relu(y), w)`, a transformer's blocks) every
    // result then aliases the first, which made One-Shot's in-place analysis quadratic (the
    // 2000-rung ladder's bufferization 0.1 -> 10.7 s; 1000 rungs 4.4 s where the residual was
    // also the matmul's operand). Broadcast operands start a new tensor instead.
    if identity(&results[other], loops) && add.operand(other).r#type() == summed.r#type() {
        return None;
    }
    let bias = results[other] == [MapResult::Dim(loops - 1)];
    Some(Candidate { matmul, reshape, add, other, maps: printed_maps(add)?, bias })
}

/// The replacement of the addition: the other addend broadcast by its map into a new tensor
/// (a bias of a 2-D product straight into the product's shape), the matmul accumulating onto
/// it, its result reshaped back to the sum's.
fn text(c: &Candidate) -> Option<String> {
    let ty = |v: Val| v.r#type().to_string();
    let (summed, product, o) = (ty(c.add.result(0)), ty(c.matmul.result(0)), ty(c.add.operand(c.other)));
    let [a, b] = [ty(c.matmul.operand(0)), ty(c.matmul.operand(1))];
    let shape = |v: Val| strata_lower::ops::tensor_type(v.r#type()).ok().map(|t| t.shape);
    let (o_shape, sum_shape) = (shape(c.add.operand(c.other))?, shape(c.add.result(0))?);
    let product_shape = shape(c.matmul.result(0))?;
    // A vector along the last axis (a bias) as long as a 2-D product's rows are: broadcast
    // straight into the product's shape (a reshape keeps the row-major order, so the product's
    // column `j` is element `j` of the sum's last axis), the form the schedule's splits start
    // each part of by its own columns (`peel_matmuls::Start::Rows`).
    let in_product = c.bias
        && c.matmul.is("linalg.matmul")
        && o_shape.len() == 1
        && sum_shape.last() == o_shape.first()
        && product_shape.last() == o_shape.first();
    let mut body = if in_product {
        format!(
            "    %e = tensor.empty() : {product}\n{}",
            crate::peel_matmuls::broadcast_rows("i", "%o", &o, "%e", &product, "    ")
        )
    } else {
        let parallel = vec!["\"parallel\""; sum_shape.len()].join(", ");
        let maps = format!("{}, {}", c.maps[c.other], c.maps[2]);
        format!(
            "    %e = tensor.empty() : {summed}
    %i = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{parallel}]}} ins(%o : {o}) outs(%e : {summed}) {{
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }} -> {summed}
"
        )
    };
    let mut start = "%i";
    let mut finish = ("%m", String::new());
    if let Some(reshape) = c.reshape {
        // The reshape's inverse brings the initial value to the product's shape (unless it
        // is made in it), the reshape the product back to the sum's.
        let reassociation = reshape.attribute("reassociation")?.to_string();
        let dims = |shape: &[i64]| shape.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let expand = |from: &str, into: &str, to: &str, shape: &[i64]| {
            format!("tensor.expand_shape {from} {reassociation} output_shape [{}] : {into} into {to}", dims(shape))
        };
        let collapse = |from: &str, into: &str, to: &str| {
            format!("tensor.collapse_shape {from} {reassociation} : {into} into {to}")
        };
        let (to_product, back) = if reshape.is("tensor.expand_shape") {
            (collapse("%i", &summed, &product), expand("%m", &product, &summed, &sum_shape))
        } else {
            (expand("%i", &summed, &product, &product_shape), collapse("%m", &product, &summed))
        };
        if !in_product {
            body += &format!("    %c = {to_product}\n");
            start = "%c";
        }
        finish = ("%r", format!("    %r = {back}\n"));
    }
    let (name, (result, tail)) = (c.matmul.name(), finish);
    Some(format!(
        "module {{
  func.func private @accumulate(%a: {a}, %b: {b}, %o: {o}) -> {summed} {{
{body}    %m = {name} ins(%a, %b : {a}, {b}) outs({start} : {product}) -> {product}
{tail}    return {result} : {summed}
  }}
}}
"
    ))
}

impl Pass for MatmulAccumulate {
    fn run(
        &mut self,
        func: melior::ir::operation::OperationRef<'_, '_>,
        cx: &mut PassContext<'_>,
    ) -> Result<(), PassFailed> {
        let mut kernels = KernelCache::default();
        let mut positions = Positions::default();
        // The replaced matmuls, their reshapes and fills, erased once every match is made: no
        // op made meanwhile takes the address [`Positions`] lists one of them at.
        let mut dead: Vec<(Op, Option<Op>, Option<Op>)> = Vec::new();
        for raw in collect(&func, |op| op.is("linalg.matmul") || op.is("linalg.batch_matmul")) {
            let Some(c) = candidate(Op::of(&raw.get()), &mut positions) else { continue };
            let Some(text) = text(&c) else { continue };
            let values = [c.matmul.operand(0), c.matmul.operand(1), c.add.operand(c.other)];
            // The accumulating matmul runs where the matmul did (the addition moves up to it):
            // at the addition, its operands would live on past the ops between, which then
            // could not write over them (tabular_linear's normalizer: 5 KB more arena).
            let last = c.reshape.unwrap_or(c.matmul);
            if let Some(next) = last.next().filter(|&next| next != c.add && c.add.block() == last.block()) {
                c.add.move_before(next);
            }
            // Safety: the addition is replaced once and not used afterwards; its replacement's
            // operands are the matmul's (defined before it, so before the addition) and the
            // other addend (defined before the matmul).
            unsafe { kernels.replace_op_with(cx, c.add, &values, &text, "accumulating matmul")? };
            dead.push((c.matmul, c.reshape, c.matmul.operand(2).owner()));
            cx.bump("matmuls", 1);
        }
        for (matmul, reshape, fill) in dead {
            // Safety: the addition, the only reader of the reshape and of the matmul, is gone;
            // a fill (shared by several matmuls, CSE's) is erased only when nothing reads it.
            unsafe {
                if let Some(reshape) = reshape {
                    reshape.erase();
                }
                matmul.erase();
                if let Some(fill) = fill {
                    erase_if_unused(fill);
                }
            }
        }
        Ok(())
    }
}
