//! Shape rules of the layout ops: reductions, gather, concat, tile, pad, slice, transpose,
//! view.

use super::{dims, list, numel, shape, slice_len};
use crate::{Concat, Gather, Pad, ReductionOp, Slice, Tile, Transpose, View};

pub(super) fn check_reduction(r: ReductionOp<'_, '_>, problems: &mut Vec<String>) {
    let (input, output) = (shape(r.input()), shape(r.output()));
    let axes = r.axes();
    let keep = strata_ir::ods::integer(r.op(), "keepdims");
    let rank = input.len() as i64;
    if axes.windows(2).any(|w| w[0] >= w[1])
        || axes.iter().any(|a| !(0..rank).contains(a))
        || !matches!(keep, Some(0 | 1))
    {
        problems
            .push(format!("'axes' {} must be sorted, distinct and in 0..{rank}, and 'keepdims' 0 or 1", list(&axes)));
        return;
    }
    let expected: Vec<i64> = (0..input.len())
        .filter_map(|d| match (axes.contains(&(d as i64)), r.keepdims()) {
            (false, _) => Some(input[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    if output != expected {
        problems.push(format!("result shape {} does not match the reduction, {}", dims(&output), dims(&expected)));
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
