//! The Rust half of `sg` verification: what IRDL cannot express.
//!
//! Invariants checked (every problem of an op is reported, not just the first):
//! - every operand and result is a ranked tensor with a static shape;
//! - operands and results of one op share an element type;
//! - `conv2d`: NCHW input and FCHW filter of rank 4; `strides`, `dilations` have 2 entries > 0,
//!   `pads` 4 entries >= 0; `group` >= 1 divides input and output channels; filter channels =
//!   input channels / group; bias (if any) is `[F]`; output shape follows the conv formula;
//! - `matmul`: both ranks >= 2, contraction sizes agree, batch dims broadcast, output shape;
//! - `add`, `sub`, `mul`, `div`, `pow`, `max`, `min`: operand shapes broadcast (ONNX/NumPy
//!   rules) to the output shape;
//! - `slice`: `starts`/`ends`/`steps` have one entry per dim, steps > 0,
//!   0 <= start <= end <= dim, output dim = ceil((end - start) / step);
//! - `transpose`: `perm` is a permutation of the dims and the output shape is permuted;
//! - `reshape`: element counts agree;
//! - `view`: `sizes`/`strides` match the output rank, output shape = sizes, offset >= 0,
//!   strides >= 0, and every addressed element lies inside the operand's storage.

use crate::{op_name, Conv2d, Matmul, Reshape, Slice, Transpose, View};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::RankedTensorType;
use melior::ir::{ShapedTypeLike, Type, Value, ValueLike};
use strata_ir::{Diagnostic, SourceLoc};

/// The binary elementwise ops with ONNX broadcasting.
pub const BROADCASTING: &[&str] = &["sg.add", "sg.sub", "sg.mul", "sg.div", "sg.pow", "sg.max", "sg.min"];

/// Checks one `sg` op; pushes one diagnostic per problem.
pub fn verify_op(op: OperationRef<'_, '_>, errors: &mut Vec<Diagnostic>) {
    let mut problems = Vec::new();
    check_types(op, &mut problems);
    if problems.is_empty() {
        check_shapes(op, &mut problems);
    }
    let location = SourceLoc::from_mlir(op.location());
    let name = op_name(op);
    for problem in problems {
        errors.push(Diagnostic::error(location.clone(), format!("'{name}' op {problem}")));
    }
}

fn check_shapes(op: OperationRef<'_, '_>, problems: &mut Vec<String>) {
    if let Some(conv) = Conv2d::cast(op) {
        check_conv2d(conv, problems);
    } else if let Some(matmul) = Matmul::cast(op) {
        check_matmul(&shape(matmul.lhs()), &shape(matmul.rhs()), &shape(matmul.output()), problems);
    } else if BROADCASTING.contains(&op_name(op).as_str()) {
        let operand = |i: usize| shape(op.operand(i).expect("IRDL guarantees two operands"));
        let (lhs, rhs, out) = (operand(0), operand(1), shape(op.result(0).expect("IRDL guarantees a result").into()));
        match broadcast(&lhs, &rhs) {
            Some(expected) if expected != out => problems.push(format!(
                "result shape {} does not match the broadcast of the operands, {}",
                dims(&out),
                dims(&expected)
            )),
            None => problems.push(format!("operand shapes {} and {} do not broadcast", dims(&lhs), dims(&rhs))),
            _ => {}
        }
    } else if let Some(slice) = Slice::cast(op) {
        check_slice(slice, problems);
    } else if let Some(transpose) = Transpose::cast(op) {
        check_transpose(transpose, problems);
    } else if let Some(reshape) = Reshape::cast(op) {
        let (input, output) = (shape(reshape.input()), shape(reshape.output()));
        if numel(&input) != numel(&output) {
            problems.push(format!(
                "cannot reshape {} ({} elements) to {} ({} elements)",
                dims(&input),
                numel(&input),
                dims(&output),
                numel(&output)
            ));
        }
    } else if let Some(view) = View::cast(op) {
        check_view(view, problems);
    }
}

/// The static shape of a ranked tensor value (callers checked it is one).
pub fn shape(value: Value<'_, '_>) -> Vec<i64> {
    static_shape(value.r#type()).expect("checked by check_types")
}

fn static_shape(ty: Type<'_>) -> Option<Vec<i64>> {
    let tensor = RankedTensorType::try_from(ty).ok()?;
    (0..tensor.rank())
        .map(|i| match tensor.dim_size(i).ok()? {
            melior::ir::r#type::DimSize::Static(n) => Some(n as i64),
            _ => None,
        })
        .collect()
}

fn element(ty: Type<'_>) -> Option<Type<'_>> {
    RankedTensorType::try_from(ty).ok().map(|t| t.element())
}

fn check_types(op: OperationRef<'_, '_>, problems: &mut Vec<String>) {
    let mut first_element: Option<String> = None;
    let operands = op.operands().enumerate().map(|(i, v)| ("operand", i, v.r#type()));
    let results = op.results().enumerate().map(|(i, r)| ("result", i, r.r#type()));
    for (what, index, ty) in operands.chain(results) {
        if static_shape(ty).is_none() {
            problems.push(format!(
                "{what} #{index} must be a ranked tensor with a static shape, but has type {ty} (sg requires static shapes)"
            ));
            continue;
        }
        let elem = element(ty).map(|e| e.to_string()).unwrap_or_default();
        match &first_element {
            None => first_element = Some(elem),
            Some(first) if *first != elem => {
                problems.push(format!("element types differ: {first} and {elem} (insert an explicit cast)"))
            }
            _ => {}
        }
    }
}

fn check_conv2d(conv: Conv2d<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, filter, output) = (shape(conv.input()), shape(conv.filter()), shape(conv.output()));
    let attr = |name: &str, value: Option<Vec<i64>>, problems: &mut Vec<String>| {
        if value.is_none() {
            problems.push(format!("attribute '{name}' must be an array<i64: ...>"));
        }
        value
    };
    let strides = attr("strides", conv.strides(), problems);
    let pads = attr("pads", conv.pads(), problems);
    let dilations = attr("dilations", conv.dilations(), problems);
    let group = conv.group();
    if group.is_none() {
        problems.push("attribute 'group' must be an integer".into());
    }
    let (strides, pads, dilations, group) = (strides?, pads?, dilations?, group?);
    if input.len() != 4 || filter.len() != 4 || output.len() != 4 {
        problems.push(format!(
            "expects rank-4 NCHW input, FCHW filter and output, got {}, {} and {}",
            dims(&input),
            dims(&filter),
            dims(&output)
        ));
        return None;
    }
    if strides.len() != 2 || strides.iter().any(|&s| s <= 0) {
        problems.push(format!("'strides' must be 2 positive values, got {}", list(&strides)));
    }
    if dilations.len() != 2 || dilations.iter().any(|&d| d <= 0) {
        problems.push(format!("'dilations' must be 2 positive values, got {}", list(&dilations)));
    }
    if pads.len() != 4 || pads.iter().any(|&p| p < 0) {
        problems.push(format!("'pads' must be 4 non-negative values [top, left, bottom, right], got {}", list(&pads)));
    }
    if group < 1 {
        problems.push(format!("'group' must be >= 1, got {group}"));
    }
    if !problems.is_empty() {
        return None;
    }
    let (channels, features) = (input[1], filter[0]);
    if channels % group != 0 || features % group != 0 {
        problems.push(format!(
            "'group' = {group} must divide the input channels ({channels}) and the filter count ({features})"
        ));
        return None;
    }
    if filter[1] != channels / group {
        problems.push(format!(
            "filter has {} input channels but input has {channels} channels in {group} group(s) (expected {})",
            filter[1],
            channels / group
        ));
    }
    if let Some(bias) = conv.bias() {
        let bias = shape(bias);
        if bias != [features] {
            problems.push(format!("bias must have shape [{features}], got {}", dims(&bias)));
        }
    }
    let spatial = |i: usize| {
        let extent = input[2 + i] + pads[i] + pads[i + 2] - dilations[i] * (filter[2 + i] - 1) - 1;
        if extent < 0 { 0 } else { extent / strides[i] + 1 }
    };
    let expected = [input[0], features, spatial(0), spatial(1)];
    if output != expected {
        problems.push(format!("result shape {} does not match the convolution, {}", dims(&output), dims(&expected)));
    }
    Some(())
}

fn check_matmul(lhs: &[i64], rhs: &[i64], out: &[i64], problems: &mut Vec<String>) {
    if lhs.len() < 2 || rhs.len() < 2 {
        problems.push(format!("operands must have rank >= 2, got {} and {}", dims(lhs), dims(rhs)));
        return;
    }
    let (m, k) = (lhs[lhs.len() - 2], lhs[lhs.len() - 1]);
    let (k2, n) = (rhs[rhs.len() - 2], rhs[rhs.len() - 1]);
    if k != k2 {
        problems.push(format!("contraction sizes differ: {} x {}", dims(lhs), dims(rhs)));
        return;
    }
    let Some(mut expected) = broadcast(&lhs[..lhs.len() - 2], &rhs[..rhs.len() - 2]) else {
        problems.push(format!("batch dimensions of {} and {} do not broadcast", dims(lhs), dims(rhs)));
        return;
    };
    expected.extend([m, n]);
    if out != expected.as_slice() {
        problems.push(format!("result shape {} does not match the product, {}", dims(out), dims(&expected)));
    }
}

fn check_slice(slice: Slice<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, output) = (shape(slice.input()), shape(slice.output()));
    let (Some(starts), Some(ends), Some(steps)) = (slice.starts(), slice.ends(), slice.steps()) else {
        problems.push("attributes 'starts', 'ends' and 'steps' must be array<i64: ...>".into());
        return None;
    };
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
        if step <= 0 {
            problems.push(format!("step {step} of dimension {d} must be positive"));
            return None;
        }
        if !(0 <= start && start <= end && end <= input[d]) {
            problems.push(format!(
                "dimension {d}: need 0 <= start <= end <= {}, got start {start}, end {end}",
                input[d]
            ));
            return None;
        }
        expected.push((end - start + step - 1) / step);
    }
    if output != expected {
        problems.push(format!("result shape {} does not match the slice, {}", dims(&output), dims(&expected)));
    }
    Some(())
}

fn check_transpose(transpose: Transpose<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, output) = (shape(transpose.input()), shape(transpose.output()));
    let Some(perm) = transpose.perm() else {
        problems.push("attribute 'perm' must be an array<i64: ...>".into());
        return None;
    };
    let mut seen = vec![false; input.len()];
    let is_permutation = perm.len() == input.len()
        && perm.iter().all(|&p| usize::try_from(p).ok().and_then(|p| seen.get_mut(p)).is_some_and(|s| !std::mem::replace(s, true)));
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

fn check_view(view: View<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, output) = (shape(view.input()), shape(view.output()));
    let (Some(offset), Some(sizes), Some(strides)) = (view.offset(), view.sizes(), view.strides()) else {
        problems.push("attributes 'offset' (integer), 'sizes' and 'strides' (array<i64: ...>) are required".into());
        return None;
    };
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

/// ONNX/NumPy broadcasting of two shapes; `None` when they do not broadcast.
pub fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let rank = a.len().max(b.len());
    let at = |s: &[i64], i: usize| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 };
    (0..rank)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

fn numel(shape: &[i64]) -> i64 {
    shape.iter().product()
}

fn dims(shape: &[i64]) -> String {
    format!("[{}]", shape.iter().map(i64::to_string).collect::<Vec<_>>().join("x"))
}

fn list(values: &[i64]) -> String {
    format!("[{}]", values.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast(&[2, 3, 4], &[4]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast(&[2, 1, 4], &[3, 1]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast(&[], &[5]), Some(vec![5]));
        assert_eq!(broadcast(&[2, 3], &[3, 2]), None);
    }
}
