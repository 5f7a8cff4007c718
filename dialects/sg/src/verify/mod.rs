//! The Rust half of `sg` verification: what IRDL cannot express. One exhaustive `match` on
//! [`SgOp`] decides each op's rules, so a new op does not compile until it has them.
//!
//! Invariants checked (every problem of an op is reported, not just the first):
//! - every declared attribute is present (unless optional) and of its declared kind
//!   ([`check_attributes`], generated from the table); nothing else is checked when one is not;
//! - every operand and result is a ranked tensor with a static shape;
//! - element types: elementwise ops by their form (operands and result share one; comparisons
//!   give i1; `where` takes an i1 condition; `not` is i1 throughout), and their operands
//!   broadcast (ONNX/NumPy rules) to the result shape; `cast`: any types, equal shapes;
//!   `gather`: data and result share one, indices are i64 or i32; `max_pool_indices`: the result
//!   is i64; `tree_walk`: x f32 or f64, nodes and roots i64, the result i64 (or, with leaves,
//!   the leaves' type, f32 or f64);
//!   every other op: operands and results share one element type;
//! - `fused`: `program` parses, reads exactly the operands, and only uses ops whose operands and
//!   result share the element type; `in_place` and `epilogue` are 0 or 1;
//! - reductions: axes sorted, distinct, in range; keepdims 0 or 1; the result shape drops the
//!   axes (or keeps them as 1);
//! - `expand`: the operand broadcasts to the result shape; `tile`: one positive repeat per
//!   dimension, result = operand * repeats; `pad`: 2 x rank non-negative pads, mode 0..=3,
//!   reflect pads below the dimension, an empty dimension padded only by a constant, result =
//!   operand + pads;
//! - `concat`: equal ranks, 0 <= axis < rank, equal dimensions except `axis`, whose result
//!   size is the sum; `gather`: 0 <= axis < rank of data, result shape = data[:axis] + indices
//!   + data[axis+1:];
//! - `tree_walk`: x [N, F], nodes [S, 4], roots [T], result [N, T] (with leaves [S, K]:
//!   [N, K], `aggregate` 0 to 2, given with leaves only), depth >= 0, `modes` bits 0-5 (at
//!   least one) and 8 only;
//! - `slice`: `starts`/`ends`/`steps` have one entry per dim, steps != 0; a positive step
//!   needs 0 <= start <= end <= dim, a negative one -1 <= end <= start < dim (walking down);
//!   output dim = [`slice_len`]; `transpose`: `perm` is a permutation and the output shape is
//!   permuted; `reshape`: element counts agree; `view`: `sizes`/`strides` match the output rank,
//!   output shape = sizes, offset >= 0, strides >= 0, every addressed element inside the
//!   operand's storage;
//! - `conv2d`: NCHW input and FCHW filter of rank 4; `strides`, `dilations` have 2 entries > 0,
//!   `pads` 4 entries >= 0; `group` >= 1 divides input and output channels; filter channels =
//!   input channels / group; bias (if any) is `[F]` or of the output's shape (an initial value
//!   the convolution accumulates onto); output shape follows the conv formula;
//!   `matmul`: both ranks >= 2, contraction sizes agree, batch dims broadcast, output shape;
//! - `softmax`, `log_softmax`: 0 <= axis < rank; `clip`: min <= max; `gelu`: approximate is 0
//!   or 1; `layer_norm`: 0 <= axis < rank, epsilon > 0, scale (and bias) of the normalised
//!   shape, result type = input type; `instance_norm`: rank >= 3, scale and bias [C],
//!   epsilon > 0; `global_average_pool`, `global_max_pool`: rank >= 3, result N x C x 1 x ...;
//! - `max_pool`, `average_pool`, `max_pool_indices`: rank-4 NCHW, kernel/strides/dilations 2
//!   positive values, pads 4 non-negative values smaller than the dilated kernel, ceil_mode
//!   (and count_include_pad, storage_order) 0 or 1, result shape by the pooling formula;
//!   `max_pool_indices`: its result has the values' shape.

mod layout;
pub use layout::{einsum_subscripts, gather_nd_shape};
mod nn;

use crate::{check_attributes, op_name, Elementwise, SgOp};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{ShapedTypeLike, Type, Value, ValueLike};
use strata_ir::{Diagnostic, SourceLoc};
use strata_sg_kinds::Form;

pub use nn::pool_out;

/// Checks one `sg` op; pushes one diagnostic per problem.
pub fn verify_op(op: OperationRef<'_, '_>, errors: &mut Vec<Diagnostic>) {
    let Some(sg) = SgOp::of(op) else { return };
    let mut problems = Vec::new();
    check_attributes(op, sg.kind(), &mut problems);
    if problems.is_empty() {
        check_types(sg, &mut problems);
    }
    if problems.is_empty() {
        check_shapes(sg, &mut problems);
    }
    let location = SourceLoc::from_mlir(op.location());
    let name = op_name(op);
    for problem in problems {
        errors.push(Diagnostic::error(location.clone(), format!("'{name}' op {problem}")));
    }
}

/// The shape rule of each op (types and attributes already checked).
fn check_shapes(op: SgOp<'_, '_>, problems: &mut Vec<String>) {
    match op {
        SgOp::Elementwise(e) => {
            let operands: Vec<Vec<i64>> = (0..e.kind().arity()).map(|i| shape(e.operand(i))).collect();
            let out = shape(e.output());
            match operands.iter().try_fold(Vec::new(), |acc, s| broadcast(&acc, s)) {
                Some(expected) if expected != out => problems.push(format!(
                    "result shape {} does not match the broadcast of the operands, {}",
                    dims(&out),
                    dims(&expected)
                )),
                None if operands.len() == 2 => problems.push(format!(
                    "operand shapes {} and {} do not broadcast",
                    dims(&operands[0]),
                    dims(&operands[1])
                )),
                None => problems.push("operand shapes do not broadcast".into()),
                _ => {}
            }
            nn::check_parameters(e, problems);
        }
        SgOp::Reduction(r) => layout::check_reduction(r, problems),
        SgOp::Fused(f) => check_fused(f, problems),
        SgOp::Cast(cast) => same_shape(cast.input(), cast.output(), problems),
        SgOp::Bitcast(cast) => {
            same_shape(cast.input(), cast.output(), problems);
            let width = |v: Value<'_, '_>| {
                strata_ir::types::ranked_tensor(v.r#type()).and_then(|t| strata_ir::handle::bit_width(t.element()))
            };
            let (from, to) = (width(cast.input()), width(cast.output()));
            if from.is_none() || from != to {
                problems.push(format!(
                    "result element {} must have the operand element's width ({})",
                    element_name(cast.output().r#type()),
                    element_name(cast.input().r#type())
                ));
            }
        }
        SgOp::Conv2d(conv) => {
            nn::check_conv2d(conv, problems);
        }
        SgOp::Matmul(m) => nn::check_matmul(&shape(m.lhs()), &shape(m.rhs()), &shape(m.output()), problems),
        SgOp::QuantizedMatmul(q) => nn::check_quantized_matmul(q, problems),
        SgOp::QuantizedConv(q) => nn::check_quantized_conv(q, problems),
        SgOp::Softmax(s) => nn::check_axis(s.axis(), shape(s.input()).len(), problems),
        SgOp::LogSoftmax(s) => nn::check_axis(s.axis(), shape(s.input()).len(), problems),
        SgOp::LayerNorm(norm) => nn::check_layer_norm(norm, problems),
        SgOp::InstanceNorm(norm) => nn::check_instance_norm(norm, problems),
        SgOp::GlobalAveragePool(p) => nn::check_global_pool(&shape(p.input()), &shape(p.output()), problems),
        SgOp::GlobalMaxPool(p) => nn::check_global_pool(&shape(p.input()), &shape(p.output()), problems),
        SgOp::MaxPool(pool) => nn::check_pool(
            shape(pool.input()),
            shape(pool.output()),
            (&pool.kernel(), &pool.strides(), &pool.pads(), &pool.dilations(), pool.ceil_mode()),
            problems,
        ),
        SgOp::MaxPoolIndices(pool) => nn::check_pool_indices(pool, problems),
        SgOp::GatherElements(g) => layout::check_gather_elements(g, problems),
        SgOp::GatherNd(g) => layout::check_gather_nd(g, problems),
        SgOp::TreeWalk(w) => layout::check_tree_walk(w, problems),
        SgOp::ScatterElements(s) => layout::check_scatter_elements(s, problems),
        SgOp::ScatterNd(s) => layout::check_scatter_nd(s, problems),
        SgOp::ArgExtreme(a) => layout::check_arg_extreme(a, problems),
        SgOp::TopK(t) => layout::check_top_k(t, problems),
        SgOp::Cumulative(c) => {
            let rank = shape(c.input()).len() as i64;
            if !(0..rank).contains(&c.axis()) {
                problems.push(format!("'axis' must be an integer in 0..{rank}"));
            }
            if shape(c.input()) != shape(c.output()) {
                problems.push("the result must have the operand's shape".into());
            }
        }
        SgOp::Einsum(e) => layout::check_einsum(e, problems),
        SgOp::Lstm(l) => nn::check_recurrent(
            nn::Recurrent { gates: 4, hidden: l.hidden_size(), direction: l.direction(), activations: l.activations() },
            &[l.x(), l.w(), l.r(), l.b(), l.sequence_lens(), l.initial_h(), l.initial_c(), l.p()],
            &[l.y(), l.y_h(), l.y_c()],
            problems,
        ),
        SgOp::Gru(g) => nn::check_recurrent(
            nn::Recurrent { gates: 3, hidden: g.hidden_size(), direction: g.direction(), activations: g.activations() },
            &[g.x(), g.w(), g.r(), g.b(), g.sequence_lens(), g.initial_h()],
            &[g.y(), g.y_h()],
            problems,
        ),
        SgOp::Rnn(r) => nn::check_recurrent(
            nn::Recurrent { gates: 1, hidden: r.hidden_size(), direction: r.direction(), activations: r.activations() },
            &[r.x(), r.w(), r.r(), r.b(), r.sequence_lens(), r.initial_h()],
            &[r.y(), r.y_h()],
            problems,
        ),
        SgOp::AveragePool(pool) => {
            if !matches!(pool.count_include_pad(), 0 | 1) {
                problems.push("'count_include_pad' must be 0 or 1".into());
            }
            nn::check_pool(
                shape(pool.input()),
                shape(pool.output()),
                (&pool.kernel(), &pool.strides(), &pool.pads(), &pool.dilations(), pool.ceil_mode()),
                problems,
            );
        }
        SgOp::Gather(gather) => layout::check_gather(gather, problems),
        SgOp::Concat(concat) => layout::check_concat(concat, problems),
        SgOp::Expand(expand) => {
            let (input, output) = (shape(expand.input()), shape(expand.output()));
            if broadcast(&input, &output).as_ref() != Some(&output) {
                problems.push(format!("operand {} does not broadcast to the result {}", dims(&input), dims(&output)));
            }
        }
        SgOp::Tile(tile) => layout::check_tile(tile, problems),
        SgOp::Pad(pad) => layout::check_pad(pad, problems),
        SgOp::Slice(slice) => {
            layout::check_slice(slice, problems);
        }
        SgOp::Transpose(transpose) => {
            layout::check_transpose(transpose, problems);
        }
        SgOp::Reshape(reshape) => {
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
        }
        SgOp::View(view) => {
            layout::check_view(view, problems);
        }
    }
}

/// `sg.fused`: the program reads exactly the operands, with one element type throughout; the
/// operands share one type, the result's unless the program is reduced.
fn check_fused(fused: crate::Fused<'_, '_>, problems: &mut Vec<String>) {
    let program = match fused.program().parse::<crate::Program>() {
        Ok(program) => program,
        Err(why) => {
            problems.push(format!("'program' is not a fused program: {why}"));
            return;
        }
    };
    let operands = fused.inputs().len();
    if program.inputs != operands {
        problems.push(format!("'program' reads {} inputs but the op has {operands} operands", program.inputs));
    }
    let mixed: Vec<&str> = program
        .steps
        .iter()
        .filter(|(op, _)| !matches!(op.kind.form(), Form::Same | Form::Bool))
        .map(|(op, _)| op.kind.name())
        .collect();
    if !mixed.is_empty() {
        problems.push(format!("'program' uses {} whose operands and result differ in element type", mixed.join(", ")));
    }
    for (name, value) in [("in_place", fused.in_place()), ("epilogue", fused.epilogue())] {
        if value.is_some_and(|v| !matches!(v, 0 | 1)) {
            problems.push(format!("'{name}' must be 0 or 1"));
        }
    }
    if fused.epilogue() == Some(1) && operands == 0 {
        problems.push("an epilogue reads its kernel's result as operand 0".into());
    }
    let Some(first) = fused.inputs().first().map(|v| v.r#type()) else { return };
    if fused.inputs().iter().any(|v| v.r#type() != first) {
        problems.push("every operand must have one type".into());
        return;
    }
    let result = fused.output().r#type();
    match fused.reduction() {
        Err(why) => problems.push(why),
        Ok(None) if result != first => {
            problems.push(format!("the result must have the operands' type {first} (it has no 'reduce')"))
        }
        Ok(None) => {}
        Ok(Some((_, axes))) => {
            if fused.in_place() == Some(1) || fused.epilogue() == Some(1) {
                problems.push("a reduction is neither in place nor an epilogue".into());
            }
            let (input, output) = (shape(fused.inputs()[0]), shape(fused.output()));
            let keepdims = output.len() == input.len();
            layout::check_reduced(&input, &axes, keepdims, &output, problems);
            if strata_ir::types::tensor_element(result) != strata_ir::types::tensor_element(first) {
                problems.push("the result must have the operands' element type".into());
            }
        }
    }
}

/// Static shapes everywhere, and the element types each op's class allows.
fn check_types(op: SgOp<'_, '_>, problems: &mut Vec<String>) {
    let raw = op.op();
    let mut slots: Vec<(&str, usize, Type)> =
        raw.operands().enumerate().map(|(i, v)| ("operand", i, v.r#type())).collect();
    slots.extend(raw.results().enumerate().map(|(i, r)| ("result", i, r.r#type())));
    for (what, index, ty) in &slots {
        if static_shape(*ty).is_none() {
            problems.push(format!(
                "{what} #{index} must be a ranked tensor with a static shape, but has type {ty} (sg requires static shapes)"
            ));
        }
    }
    if !problems.is_empty() {
        return;
    }
    let elements: Vec<String> = slots.iter().map(|(_, _, t)| element_name(*t)).collect();
    let (inputs, result) = (&elements[..raw.operand_count()], elements.last().cloned().unwrap_or_default());
    match op {
        SgOp::Elementwise(e) => check_elementwise_types(e.kind(), inputs, &result, problems),
        // Their own rules (`nn::check_quantized_matmul`, `nn::check_quantized_conv`).
        SgOp::Cast(_) | SgOp::Bitcast(_) | SgOp::QuantizedMatmul(_) | SgOp::QuantizedConv(_) => {}
        SgOp::Gather(_) => {
            if !matches!(inputs[1].as_str(), "i64" | "i32") {
                problems.push(format!("indices must be i64 or i32, got {}", inputs[1]));
            }
            same_element(&[inputs[0].clone(), result], problems);
        }
        SgOp::GatherElements(_) | SgOp::GatherNd(_) | SgOp::ScatterElements(_) | SgOp::ScatterNd(_) => {
            if !matches!(inputs[1].as_str(), "i64" | "i32") {
                problems.push(format!("indices must be i64 or i32, got {}", inputs[1]));
            }
            let mut values: Vec<String> = vec![inputs[0].clone(), result.clone()];
            values.extend(inputs.get(2).cloned());
            same_element(&values, problems);
        }
        SgOp::TreeWalk(_) => {
            // x, nodes, roots (and leaves).
            if !matches!(inputs[0].as_str(), "f32" | "f64") {
                problems.push(format!("x must be f32 or f64, got {}", inputs[0]));
            }
            if [&inputs[1], &inputs[2]].iter().any(|e| e.as_str() != "i64") {
                problems.push("nodes and roots must be i64".into());
            }
            match inputs.get(3) {
                None if result != "i64" => problems.push(format!("the result must be i64, got {result}")),
                Some(leaves) if !matches!(leaves.as_str(), "f32" | "f64") || *leaves != result => problems
                    .push(format!("leaves must be f32 or f64 and the result of their type, got {leaves} and {result}")),
                _ => {}
            }
        }
        SgOp::ArgExtreme(_) | SgOp::TopK(_) => {
            if result != "i64" {
                problems.push(format!("the result must be an i64 tensor, got {result}"));
            }
        }
        SgOp::Lstm(_) | SgOp::Gru(_) | SgOp::Rnn(_) => {
            // sequence_lens (operand 4) is i32; everything else has one float type.
            if inputs[4] != "i32" {
                problems.push(format!("sequence_lens must be i32, got {}", inputs[4]));
            }
            let floats: Vec<String> =
                elements.iter().enumerate().filter(|(k, _)| *k != 4).map(|(_, e)| e.clone()).collect();
            same_element(&floats, problems);
        }
        SgOp::MaxPoolIndices(_) => {
            if result != "i64" {
                problems.push(format!("the result must be a static i64 tensor, got {}", slots[2].2));
            }
            same_element(inputs, problems);
        }
        _ => same_element(&elements, problems),
    }
}

fn check_elementwise_types(kind: Elementwise, inputs: &[String], result: &str, problems: &mut Vec<String>) {
    match kind.form() {
        Form::Same => {
            let mut all = inputs.to_vec();
            all.push(result.to_owned());
            same_element(&all, problems);
        }
        Form::Compare => {
            if let Some(other) = inputs.iter().find(|t| **t != inputs[0]) {
                problems.push(format!("operand element types differ: {} and {other}", inputs[0]));
            }
            if result != "i1" {
                problems.push(format!("the result must be an i1 tensor, got {result}"));
            }
        }
        Form::Select => {
            if inputs[0] != "i1" {
                problems.push(format!("the condition must be an i1 tensor, got {}", inputs[0]));
            }
            if inputs[1] != result || inputs[2] != result {
                problems.push(format!(
                    "both branches must have the result's element type {result}, got {} and {}",
                    inputs[1], inputs[2]
                ));
            }
        }
        Form::Bool => {
            if inputs.iter().any(|e| e != "i1") || result != "i1" {
                problems.push(format!("operand and result must be i1 tensors, got {result}"));
            }
        }
    }
}

fn same_element(elements: &[String], problems: &mut Vec<String>) {
    if let Some(other) = elements.iter().find(|e| **e != elements[0]) {
        problems.push(format!("element types differ: {} and {other} (insert an explicit cast)", elements[0]));
    }
}

/// An element-type conversion's check: the result has the operand's shape.
fn same_shape(input: Value<'_, '_>, output: Value<'_, '_>, problems: &mut Vec<String>) {
    let (input, output) = (shape(input), shape(output));
    if input != output {
        problems.push(format!("result shape {} must equal the operand shape {}", dims(&output), dims(&input)));
    }
}

/// The static shape of a ranked tensor value (callers checked it is one).
pub fn shape(value: Value<'_, '_>) -> Vec<i64> {
    static_shape(value.r#type()).expect("checked by check_types")
}

/// The static shape of a ranked tensor type, if it has one.
pub(crate) fn static_shape(ty: Type<'_>) -> Option<Vec<i64>> {
    let tensor = strata_ir::types::ranked_tensor(ty)?;
    (0..tensor.rank())
        .map(|i| match tensor.dim_size(i).ok()? {
            melior::ir::r#type::DimSize::Static(n) => Some(n as i64),
            _ => None,
        })
        .collect()
}

fn element_name(ty: Type<'_>) -> String {
    strata_ir::types::tensor_element_name(ty).unwrap_or_default()
}

/// How many elements a slice from `start` towards `end` (exclusive) by `step` takes:
/// ceil((end - start) / step) for a positive step, ceil((start - end) / -step) for a negative
/// one, and never less than 0.
pub fn slice_len(start: i64, end: i64, step: i64) -> i64 {
    let (distance, step) = if step > 0 { (end - start, step) } else { (start - end, -step) };
    if distance <= 0 || step <= 0 {
        0
    } else {
        (distance + step - 1) / step
    }
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
