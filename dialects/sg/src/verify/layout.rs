//! Shape rules of the layout ops: reductions, gather, concat, tile, pad, slice, transpose,
//! view.

use super::{dims, list, numel, shape, slice_len};
use crate::{
    ArgExtreme, Concat, Einsum, Gather, GatherElements, GatherNd, Pad, ReductionOp, ScatterElements, ScatterNd, Slice,
    Tile, TopK, Transpose, TreeWalk, View,
};

pub(super) fn check_reduction(r: ReductionOp<'_, '_>, problems: &mut Vec<String>) {
    let (axes, rank) = (r.axes(), shape(r.input()).len() as i64);
    let keep = strata_ir::ods::integer(r.op(), "keepdims");
    if axes.windows(2).any(|w| w[0] >= w[1])
        || axes.iter().any(|a| !(0..rank).contains(a))
        || !matches!(keep, Some(0 | 1))
    {
        problems
            .push(format!("'axes' {} must be sorted, distinct and in 0..{rank}, and 'keepdims' 0 or 1", list(&axes)));
        return;
    }
    check_reduced(&shape(r.input()), &r.axes(), r.keepdims(), &shape(r.output()), problems);
}

/// A reduction of `input` over `axes` gives `output` (the axes kept as size 1 with `keepdims`).
pub(super) fn check_reduced(input: &[i64], axes: &[i64], keepdims: bool, output: &[i64], problems: &mut Vec<String>) {
    let rank = input.len() as i64;
    if axes.windows(2).any(|w| w[0] >= w[1]) || axes.iter().any(|a| !(0..rank).contains(a)) {
        problems.push(format!("'axes' {} must be sorted, distinct and in 0..{rank}", list(axes)));
        return;
    }
    let expected: Vec<i64> = (0..input.len())
        .filter_map(|d| match (axes.contains(&(d as i64)), keepdims) {
            (false, _) => Some(input[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    if output != expected {
        problems.push(format!("result shape {} does not match the reduction, {}", dims(output), dims(&expected)));
    }
}

pub(super) fn check_gather(gather: Gather<'_, '_>, problems: &mut Vec<String>) {
    let (data, indices, output) = (shape(gather.data()), shape(gather.indices()), shape(gather.output()));
    let axis = gather.axis();
    if !(0..data.len() as i64).contains(&axis) {
        problems.push(format!("'axis' must be an integer in 0..{}", data.len()));
        return;
    }
    let a = axis as usize;
    let mut expected = data[..a].to_vec();
    expected.extend(&indices);
    expected.extend(&data[a + 1..]);
    if output != expected {
        problems.push(format!("result shape {} does not match the gather, {}", dims(&output), dims(&expected)));
    }
}

pub(super) fn check_concat(concat: Concat<'_, '_>, problems: &mut Vec<String>) {
    let (lhs, rhs, out) = (shape(concat.lhs()), shape(concat.rhs()), shape(concat.output()));
    let axis = concat.axis();
    if !(0..lhs.len() as i64).contains(&axis) {
        problems.push(format!("'axis' must be an integer in 0..{}", lhs.len()));
        return;
    }
    let a = axis as usize;
    let compatible = lhs.len() == rhs.len() && (0..lhs.len()).all(|d| d == a || lhs[d] == rhs[d]);
    if !compatible {
        problems.push(format!("operands {} and {} differ outside axis {axis}", dims(&lhs), dims(&rhs)));
        return;
    }
    let mut expected = lhs.clone();
    expected[a] += rhs[a];
    if out != expected {
        problems.push(format!("result shape {} does not match the concatenation, {}", dims(&out), dims(&expected)));
    }
}

pub(super) fn check_tile(tile: Tile<'_, '_>, problems: &mut Vec<String>) {
    let (input, output) = (shape(tile.input()), shape(tile.output()));
    let repeats = tile.repeats();
    if repeats.len() != input.len() || repeats.iter().any(|&x| x <= 0) {
        problems.push(format!("'repeats' must hold {} positive values", input.len()));
        return;
    }
    let expected: Vec<i64> = input.iter().zip(&repeats).map(|(d, k)| d * k).collect();
    if output != expected {
        problems.push(format!("result shape {} does not match the tiling, {}", dims(&output), dims(&expected)));
    }
}

pub(super) fn check_pad(pad: Pad<'_, '_>, problems: &mut Vec<String>) {
    let (input, output) = (shape(pad.input()), shape(pad.output()));
    let (pads, mode) = (pad.pads(), pad.mode());
    let r = input.len();
    if pads.len() != 2 * r || pads.iter().any(|&p| p < 0) || !(0..=3).contains(&mode) {
        problems.push(format!("'pads' must be {} non-negative values and 'mode' 0, 1, 2 or 3", 2 * r));
        return;
    }
    if mode != 0 && (0..r).any(|d| input[d] == 0 && pads[d] + pads[d + r] > 0) {
        problems.push(format!(
            "an empty dimension of {} cannot be padded from its own elements (mode {mode})",
            dims(&input)
        ));
    }
    if mode == 1 && (0..r).any(|d| pads[d] >= input[d] || pads[d + r] >= input[d]) {
        problems.push(format!("reflect pads {} must be smaller than the dimensions {}", list(&pads), dims(&input)));
    }
    let expected: Vec<i64> = (0..r).map(|d| input[d] + pads[d] + pads[d + r]).collect();
    if output != expected {
        problems.push(format!("result shape {} does not match the padding, {}", dims(&output), dims(&expected)));
    }
}

pub(super) fn check_slice(slice: Slice<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, output) = (shape(slice.input()), shape(slice.output()));
    let (starts, ends, steps) = (slice.starts(), slice.ends(), slice.steps());
    let rank = input.len();
    if starts.len() != rank || ends.len() != rank || steps.len() != rank || output.len() != rank {
        problems.push(format!(
            "'starts', 'ends', 'steps' and the result need one entry per input dimension ({rank}), got {}, {}, {} and rank {}",
            starts.len(),
            ends.len(),
            steps.len(),
            output.len()
        ));
        return None;
    }
    let mut expected = Vec::with_capacity(rank);
    for d in 0..rank {
        let (start, end, step) = (starts[d], ends[d], steps[d]);
        if step == 0 {
            problems.push(format!("step of dimension {d} must not be 0"));
            return None;
        }
        if step > 0 && !(0 <= start && start <= end && end <= input[d]) {
            problems
                .push(format!("dimension {d}: need 0 <= start <= end <= {}, got start {start}, end {end}", input[d]));
            return None;
        }
        if step < 0 && !(-1 <= end && end <= start && (start < input[d] || start == end)) {
            problems.push(format!(
                "dimension {d} (negative step): need -1 <= end <= start < {}, got start {start}, end {end}",
                input[d]
            ));
            return None;
        }
        expected.push(slice_len(start, end, step));
    }
    if output != expected {
        problems.push(format!("result shape {} does not match the slice, {}", dims(&output), dims(&expected)));
    }
    Some(())
}

pub(super) fn check_transpose(transpose: Transpose<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, output) = (shape(transpose.input()), shape(transpose.output()));
    let perm = transpose.perm();
    let mut seen = vec![false; input.len()];
    let is_permutation = perm.len() == input.len()
        && perm.iter().all(|&p| {
            usize::try_from(p).ok().and_then(|p| seen.get_mut(p)).is_some_and(|s| !std::mem::replace(s, true))
        });
    if !is_permutation {
        problems.push(format!("'perm' {} is not a permutation of 0..{}", list(&perm), input.len()));
        return None;
    }
    let expected: Vec<i64> = perm.iter().map(|&p| input[p as usize]).collect();
    if output != expected {
        problems.push(format!("result shape {} does not match the permutation, {}", dims(&output), dims(&expected)));
    }
    Some(())
}

pub(super) fn check_view(view: View<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, output) = (shape(view.input()), shape(view.output()));
    let (offset, sizes, strides) = (view.offset(), view.sizes(), view.strides());
    if sizes.len() != output.len() || strides.len() != output.len() {
        problems.push(format!(
            "'sizes' and 'strides' need one entry per result dimension ({}), got {} and {}",
            output.len(),
            sizes.len(),
            strides.len()
        ));
        return None;
    }
    if sizes != output {
        problems.push(format!("'sizes' {} must equal the result shape {}", list(&sizes), dims(&output)));
    }
    if offset < 0 || strides.iter().any(|&s| s < 0) {
        problems.push(format!("offset ({offset}) and strides {} must be non-negative", list(&strides)));
        return None;
    }
    if numel(&sizes) > 0 {
        let last = offset + sizes.iter().zip(&strides).map(|(n, s)| (n - 1) * s).sum::<i64>();
        if last >= numel(&input) {
            problems.push(format!(
                "reads element {last} but the operand {} holds only {} elements",
                dims(&input),
                numel(&input)
            ));
        }
    }
    Some(())
}

pub(super) fn check_gather_elements(g: GatherElements<'_, '_>, problems: &mut Vec<String>) {
    let (input, indices, output) = (shape(g.input()), shape(g.indices()), shape(g.output()));
    if !(0..input.len() as i64).contains(&g.axis()) {
        problems.push(format!("'axis' must be an integer in 0..{}", input.len()));
    }
    if indices.len() != input.len() {
        problems.push(format!("indices {} must have the input's rank {}", dims(&indices), input.len()));
    }
    if output != indices {
        problems.push(format!("result shape {} must equal the indices' shape {}", dims(&output), dims(&indices)));
    }
}

/// The result shape of GatherND (see the IRDL file), or why there is none.
pub fn gather_nd_shape(input: &[i64], indices: &[i64], batch: i64) -> Result<Vec<i64>, String> {
    let b = batch as usize;
    let (q, r) = (indices.len(), input.len());
    if batch < 0 || q < 1 || b >= q || b > r || input[..b] != indices[..b] {
        return Err(format!("batch_dims {batch} does not fit input {} and indices {}", dims(input), dims(indices)));
    }
    let k = indices[q - 1];
    if k < 1 || b + k as usize > r {
        return Err(format!("index tuples of length {k} do not fit input {} after {batch} batch dims", dims(input)));
    }
    let mut out = indices[..q - 1].to_vec();
    out.extend(&input[b + k as usize..]);
    Ok(out)
}

pub(super) fn check_gather_nd(g: GatherNd<'_, '_>, problems: &mut Vec<String>) {
    let (input, indices, output) = (shape(g.input()), shape(g.indices()), shape(g.output()));
    match gather_nd_shape(&input, &indices, g.batch_dims()) {
        Ok(expected) if expected != output => {
            problems.push(format!("result shape {} does not match the gather, {}", dims(&output), dims(&expected)))
        }
        Ok(_) => {}
        Err(why) => problems.push(why),
    }
}

pub(super) fn check_scatter_elements(s: ScatterElements<'_, '_>, problems: &mut Vec<String>) {
    let (input, indices, updates, output) =
        (shape(s.input()), shape(s.indices()), shape(s.updates()), shape(s.output()));
    if !(0..input.len() as i64).contains(&s.axis()) {
        problems.push(format!("'axis' must be an integer in 0..{}", input.len()));
    }
    if indices != updates || indices.len() != input.len() {
        problems.push(format!(
            "indices {} and updates {} must have one shape of the input's rank {}",
            dims(&indices),
            dims(&updates),
            input.len()
        ));
    }
    if output != input || !(0..=4).contains(&s.reduction()) {
        problems.push("the result has the input's shape; 'reduction' is 0 to 4".into());
    }
}

pub(super) fn check_scatter_nd(s: ScatterNd<'_, '_>, problems: &mut Vec<String>) {
    let (input, indices, updates, output) =
        (shape(s.input()), shape(s.indices()), shape(s.updates()), shape(s.output()));
    match gather_nd_shape(&input, &indices, 0) {
        Ok(expected) if expected != updates => problems.push(format!(
            "updates {} must have the shape the indices address, {}",
            dims(&updates),
            dims(&expected)
        )),
        Ok(_) => {}
        Err(why) => problems.push(why),
    }
    if output != input || !(0..=4).contains(&s.reduction()) {
        problems.push("the result has the input's shape; 'reduction' is 0 to 4".into());
    }
}

/// `tree_walk`: x [N, F] with a feature, nodes [S, 4] with a node, roots [T] with a tree,
/// result [N, T]; or with `leaves` [S, K], result [N, K] and `aggregate` 0, 1 or 2 (absent
/// without leaves); `depth` >= 0; `modes` names only comparisons 0 to 5 and NaN handling
/// (bit 8), at least one comparison.
pub(super) fn check_tree_walk(w: TreeWalk<'_, '_>, problems: &mut Vec<String>) {
    let (x, nodes, roots, output) = (shape(w.x()), shape(w.nodes()), shape(w.roots()), shape(w.output()));
    if x.len() != 2 || x[1] < 1 {
        problems.push(format!("x must be [rows, features] with a feature, got {}", dims(&x)));
    }
    if nodes.len() != 2 || nodes[0] < 1 || nodes[1] != 4 {
        problems.push(format!("nodes must be [nodes, 4] with a node, got {}", dims(&nodes)));
    }
    if roots.len() != 1 || roots[0] < 1 {
        problems.push(format!("roots must be [trees] with a tree, got {}", dims(&roots)));
    }
    let leaves = w.leaves().map(shape);
    let columns = match &leaves {
        Some(l) if l.len() != 2 || nodes.first() != l.first() => {
            problems.push(format!("leaves must be [nodes, columns] of nodes {}, got {}", dims(&nodes), dims(l)));
            return;
        }
        Some(l) => l[1],
        None => roots.first().copied().unwrap_or(0),
    };
    if x.len() != 2 || output != [x[0], columns] {
        let (what, of) = match &leaves {
            Some(l) => ("[rows, leaf columns]", format!("leaves {}", dims(l))),
            None => ("[rows, trees]", format!("roots {}", dims(&roots))),
        };
        problems.push(format!("the result {} must be {what} of x {} and {of}", dims(&output), dims(&x)));
    }
    match (w.aggregate(), leaves.is_some()) {
        (Some(0..=2), true) | (None, false) => {}
        (None, true) => problems.push("'aggregate' (0 sum, 1 minimum, 2 maximum) must be given with leaves".into()),
        (Some(a), true) => problems.push(format!("'aggregate' must be 0 (sum), 1 (minimum) or 2 (maximum), got {a}")),
        (Some(_), false) => problems.push("'aggregate' needs leaves to aggregate".into()),
    }
    if w.depth() < 0 {
        problems.push(format!("'depth' must be at least 0, got {}", w.depth()));
    }
    let modes = w.modes();
    if modes & !0x13f != 0 || modes & 0x3f == 0 {
        problems.push(format!(
            "'modes' {modes:#x} must name comparisons 0 to 5 (bits 0-5, at least one) and NaN handling (bit 8) only"
        ));
    }
}

pub(super) fn check_top_k(t: TopK<'_, '_>, problems: &mut Vec<String>) {
    let (input, output) = (shape(t.input()), shape(t.output()));
    let axis = t.axis();
    if !(0..input.len() as i64).contains(&axis) {
        problems.push(format!("'axis' must be an integer in 0..{}", input.len()));
        return;
    }
    let k = t.k();
    if !(1..=input[axis as usize]).contains(&k) {
        problems.push(format!("'k' {k} must be in 1..={}", input[axis as usize]));
    }
    let mut expected = input.clone();
    expected[axis as usize] = k;
    if output != expected {
        problems.push(format!(
            "result shape {} must be the operand's with k along axis, {}",
            dims(&output),
            dims(&expected)
        ));
    }
}

pub(super) fn check_arg_extreme(a: ArgExtreme<'_, '_>, problems: &mut Vec<String>) {
    let (input, output) = (shape(a.input()), shape(a.output()));
    let axis = a.axis();
    if !(0..input.len() as i64).contains(&axis) {
        problems.push(format!("'axis' must be an integer in 0..{}", input.len()));
        return;
    }
    let mut expected = input.clone();
    if a.keepdims() != 0 {
        expected[axis as usize] = 1;
    } else {
        expected.remove(axis as usize);
    }
    if output != expected {
        problems.push(format!("result shape {} does not match the reduction, {}", dims(&output), dims(&expected)));
    }
}

/// The letters of each operand and of the result of an explicit einsum equation.
pub fn einsum_subscripts(equation: &str) -> Result<(Vec<Vec<char>>, Vec<char>), String> {
    let (inputs, output) = equation.split_once("->").ok_or_else(|| format!("einsum '{equation}' has no '->'"))?;
    let letters = |s: &str| -> Result<Vec<char>, String> {
        let s = s.trim();
        if s.chars().all(|c| c.is_ascii_alphabetic()) {
            Ok(s.chars().collect())
        } else {
            Err(format!("einsum subscripts '{s}' are not letters"))
        }
    };
    let operands = inputs.split(',').map(letters).collect::<Result<Vec<_>, _>>()?;
    Ok((operands, letters(output)?))
}

pub(super) fn check_einsum(e: Einsum<'_, '_>, problems: &mut Vec<String>) {
    let mut shapes = vec![shape(e.lhs())];
    shapes.extend(e.rhs().map(shape));
    let output = shape(e.output());
    let (operands, result) = match einsum_subscripts(&e.equation()) {
        Ok(parsed) => parsed,
        Err(why) => {
            problems.push(why);
            return;
        }
    };
    if operands.len() != shapes.len() {
        problems.push(format!("the equation has {} operands, the op {}", operands.len(), shapes.len()));
        return;
    }
    let mut sizes = std::collections::BTreeMap::new();
    for (letters, dims_) in operands.iter().zip(&shapes) {
        if letters.len() != dims_.len() {
            problems.push(format!("subscripts of rank {} for an operand of rank {}", letters.len(), dims_.len()));
            return;
        }
        for (&c, &d) in letters.iter().zip(dims_) {
            if *sizes.entry(c).or_insert(d) != d {
                problems.push(format!("letter '{c}' has two sizes"));
            }
        }
    }
    let expected: Option<Vec<i64>> = result.iter().map(|c| sizes.get(c).copied()).collect();
    match expected {
        Some(expected) if expected == output => {}
        Some(expected) => {
            problems.push(format!("result shape {} does not match the equation, {}", dims(&output), dims(&expected)))
        }
        None => problems.push("the result names a letter no operand has".into()),
    }
}
