//! The Rust half of `sg` verification: what IRDL cannot express.
//!
//! Invariants checked (every problem of an op is reported, not just the first):
//! - every operand and result is a ranked tensor with a static shape;
//! - operands and results of one op share an element type (`gather`: data and result do,
//!   indices are integers; `cast`: none do, its shapes agree);
//! - `equal`, `less`, `greater`: operands of one element type broadcast to the result, which
//!   is i1; `not`: i1; `where`: an i1 condition, both branches of the result's element type,
//!   all three broadcast to the result;
//! - `expand`: the operand broadcasts to the result shape; `tile`: one positive repeat per
//!   dimension, result = operand * repeats; `pad`: 2 x rank non-negative pads, mode 0..=3,
//!   reflect pads below the dimension, result = operand + pads;
//! - `instance_norm`: rank >= 3, scale and bias [C], epsilon > 0;
//! - `concat`: equal ranks, 0 <= axis < rank, equal dimensions except `axis`, whose result
//!   size is the sum;
//! - `reduce_*`: axes sorted, distinct, in range; keepdims 0 or 1; the result shape drops the
//!   axes (or keeps them as 1);
//! - `gather`: 0 <= axis < rank of data, result shape = data[:axis] + indices + data[axis+1:];
//! - `conv2d`: NCHW input and FCHW filter of rank 4; `strides`, `dilations` have 2 entries > 0,
//!   `pads` 4 entries >= 0; `group` >= 1 divides input and output channels; filter channels =
//!   input channels / group; bias (if any) is `[F]`; output shape follows the conv formula;
//! - `matmul`: both ranks >= 2, contraction sizes agree, batch dims broadcast, output shape;
//! - `add`, `sub`, `mul`, `div`, `pow`, `max`, `min`: operand shapes broadcast (ONNX/NumPy
//!   rules) to the output shape;
//! - `slice`: `starts`/`ends`/`steps` have one entry per dim, steps != 0; a positive step
//!   needs 0 <= start <= end <= dim, a negative one -1 <= end <= start < dim (walking down);
//!   output dim = [`slice_len`];
//! - `transpose`: `perm` is a permutation of the dims and the output shape is permuted;
//! - `reshape`: element counts agree;
//! - `softmax`, `log_softmax`: 0 <= axis < rank; `clip`: min <= max; `gelu`: approximate is
//!   0 or 1;
//! - `layer_norm`: 0 <= axis < rank, epsilon > 0, scale (and bias) have the shape of the
//!   normalised dimensions, the result has the input's type;
//! - `global_average_pool`, `global_max_pool`: rank >= 3, result N x C x 1 x ... x 1;
//! - `max_pool_indices`: as `max_pool` for its input and `values`; the result has the values'
//!   shape and i64 elements;
//! - `max_pool`, `average_pool`: rank-4 NCHW, kernel/strides/dilations 2 positive values,
//!   pads 4 non-negative values smaller than the dilated kernel, ceil_mode (and count_include_pad)
//!   0 or 1, result shape by the pooling formula;
//! - `view`: `sizes`/`strides` match the output rank, output shape = sizes, offset >= 0,
//!   strides >= 0, and every addressed element lies inside the operand's storage.

use crate::{
    op_name, AveragePool, Clip, Concat, Conv2d, Expand, Gather, Gelu, InstanceNorm, LayerNorm, LogSoftmax, Matmul,
    MaxPool, MaxPoolIndices, Pad, Reshape, Slice, Softmax, Tile, Transpose, View,
};
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
    } else if let Some(concat) = Concat::cast(op) {
        let (lhs, rhs, out) = (shape(concat.lhs()), shape(concat.rhs()), shape(concat.output()));
        let Some(axis) = concat.axis().filter(|a| (0..lhs.len() as i64).contains(a)) else {
            problems.push(format!("'axis' must be an integer in 0..{}", lhs.len()));
            return;
        };
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
    } else if op_name(op).starts_with("sg.reduce_") {
        let input = shape(op.operand(0).expect("IRDL guarantees the operand"));
        let output = shape(op.result(0).expect("IRDL guarantees the result").into());
        let (Some(axes), Some(keep)) = (crate::ods_i64_array(op, "axes"), crate::ods_integer(op, "keepdims")) else {
            problems.push("attributes 'axes' (array<i64: ...>) and 'keepdims' (integer) are required".into());
            return;
        };
        let r = input.len() as i64;
        if axes.windows(2).any(|w| w[0] >= w[1]) || axes.iter().any(|a| !(0..r).contains(a)) || !matches!(keep, 0 | 1) {
            problems
                .push(format!("'axes' {} must be sorted, distinct and in 0..{r}, and 'keepdims' 0 or 1", list(&axes)));
            return;
        }
        let expected: Vec<i64> = (0..input.len())
            .filter_map(|d| match (axes.contains(&(d as i64)), keep) {
                (false, _) => Some(input[d]),
                (true, 1) => Some(1),
                (true, _) => None,
            })
            .collect();
        if output != expected {
            problems.push(format!("result shape {} does not match the reduction, {}", dims(&output), dims(&expected)));
        }
    } else if let Some(expand) = Expand::cast(op) {
        let (input, output) = (shape(expand.input()), shape(expand.output()));
        if broadcast(&input, &output).as_ref() != Some(&output) {
            problems.push(format!("operand {} does not broadcast to the result {}", dims(&input), dims(&output)));
        }
    } else if let Some(tile) = Tile::cast(op) {
        let (input, output) = (shape(tile.input()), shape(tile.output()));
        match tile.repeats() {
            Some(r) if r.len() == input.len() && r.iter().all(|&x| x > 0) => {
                let expected: Vec<i64> = input.iter().zip(&r).map(|(d, k)| d * k).collect();
                if output != expected {
                    problems.push(format!(
                        "result shape {} does not match the tiling, {}",
                        dims(&output),
                        dims(&expected)
                    ));
                }
            }
            _ => problems.push(format!("'repeats' must hold {} positive values", input.len())),
        }
    } else if let Some(pad) = Pad::cast(op) {
        let (input, output) = (shape(pad.input()), shape(pad.output()));
        let (Some(pads), Some(mode)) = (pad.pads(), pad.mode()) else {
            problems.push("attributes 'pads', 'mode' and 'value' are required".into());
            return;
        };
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
    } else if let Some(norm) = InstanceNorm::cast(op) {
        let input = shape(norm.input());
        if input.len() < 3 {
            problems.push(format!("expects an N x C x spatial input, got {}", dims(&input)));
            return;
        }
        for (what, value) in [("scale", norm.scale()), ("bias", norm.bias())] {
            if shape(value) != [input[1]] {
                problems.push(format!("{what} must have shape [{}], got {}", input[1], dims(&shape(value))));
            }
        }
        if !norm.epsilon().is_some_and(|e| e > 0.0) {
            problems.push("'epsilon' must be a positive float".into());
        }
    } else if let Some(gather) = Gather::cast(op) {
        let (data, indices, output) = (shape(gather.data()), shape(gather.indices()), shape(gather.output()));
        let index_type = element(gather.indices().r#type()).map(|t| t.to_string()).unwrap_or_default();
        if !matches!(index_type.as_str(), "i64" | "i32") {
            problems.push(format!("indices must be i64 or i32, got {index_type}"));
        }
        let Some(axis) = gather.axis().filter(|a| (0..data.len() as i64).contains(a)) else {
            problems.push(format!("'axis' must be an integer in 0..{}", data.len()));
            return;
        };
        let a = axis as usize;
        let mut expected = data[..a].to_vec();
        expected.extend(&indices);
        expected.extend(&data[a + 1..]);
        if output != expected {
            problems.push(format!("result shape {} does not match the gather, {}", dims(&output), dims(&expected)));
        }
    } else {
        check_nn(op, problems);
    }
}

/// Comparisons, `not` and `where`: shapes broadcast, element types as documented above.
fn check_logic(op: OperationRef<'_, '_>, name: &str, problems: &mut Vec<String>) {
    let types: Vec<Type> = op.operands().map(|v| v.r#type()).chain(op.results().map(|r| r.r#type())).collect();
    let shapes: Option<Vec<Vec<i64>>> = types.iter().map(|&t| static_shape(t)).collect();
    let Some(shapes) = shapes else {
        problems
            .push("operands and result must be ranked tensors with static shapes (sg requires static shapes)".into());
        return;
    };
    let elements: Vec<String> = types.iter().map(|&t| element(t).map(|e| e.to_string()).unwrap_or_default()).collect();
    let (inputs, result) = shapes.split_at(shapes.len() - 1);
    let result_element = elements.last().cloned().unwrap_or_default();
    match name {
        "sg.not" => {
            if result_element != "i1" {
                problems.push(format!("operand and result must be i1 tensors, got {result_element}"));
            }
        }
        "sg.where" => {
            if elements[0] != "i1" {
                problems.push(format!("the condition must be an i1 tensor, got {}", elements[0]));
            }
            if elements[1] != result_element || elements[2] != result_element {
                problems.push(format!(
                    "both branches must have the result's element type {result_element}, got {} and {}",
                    elements[1], elements[2]
                ));
            }
        }
        _ => {
            if elements[0] != elements[1] {
                problems.push(format!("operand element types differ: {} and {}", elements[0], elements[1]));
            }
            if result_element != "i1" {
                problems.push(format!("the result must be an i1 tensor, got {result_element}"));
            }
        }
    }
    let expected = inputs.iter().try_fold(Vec::new(), |acc, s| broadcast(&acc, s));
    match expected {
        Some(expected) if expected != result[0] => problems.push(format!(
            "result shape {} does not match the broadcast of the operands, {}",
            dims(&result[0]),
            dims(&expected)
        )),
        None => problems.push("operand shapes do not broadcast".into()),
        _ => {}
    }
}

/// Normalisation, activation and pooling ops.
fn check_nn(op: OperationRef<'_, '_>, problems: &mut Vec<String>) {
    let rank = |v: Value<'_, '_>| shape(v).len() as i64;
    if let Some(axis) = Softmax::cast(op)
        .map(|s| (s.axis(), rank(s.input())))
        .or_else(|| LogSoftmax::cast(op).map(|s| (s.axis(), rank(s.input()))))
    {
        match axis {
            (Some(a), r) if (0..r).contains(&a) => {}
            (Some(a), r) => problems.push(format!("'axis' {a} must be in 0..{r}")),
            (None, _) => problems.push("'axis' must be an integer".into()),
        }
    } else if let Some(clip) = Clip::cast(op) {
        if let (Some(min), Some(max)) = (clip.min(), clip.max()) {
            if min > max {
                problems.push(format!("'min' {min} is greater than 'max' {max}"));
            }
        } else {
            problems.push("attributes 'min' and 'max' must be floats".into());
        }
    } else if let Some(gelu) = Gelu::cast(op) {
        if !matches!(gelu.approximate(), Some(0 | 1)) {
            problems.push("'approximate' must be 0 (erf) or 1 (tanh)".into());
        }
    } else if let Some(norm) = LayerNorm::cast(op) {
        let (input, output) = (shape(norm.input()), shape(norm.output()));
        let r = input.len() as i64;
        let Some(axis) = norm.axis().filter(|a| (0..r).contains(a)) else {
            problems.push(format!("'axis' must be an integer in 0..{r}"));
            return;
        };
        if !norm.epsilon().is_some_and(|e| e > 0.0) {
            problems.push("'epsilon' must be a positive float".into());
        }
        let normalised = &input[axis as usize..];
        for (what, value) in [("scale", Some(norm.scale())), ("bias", norm.bias())] {
            if let Some(value) = value {
                if shape(value) != normalised {
                    problems.push(format!(
                        "{what} shape {} must be the normalised shape {}",
                        dims(&shape(value)),
                        dims(normalised)
                    ));
                }
            }
        }
        if output != input || norm.output().r#type() != norm.input().r#type() {
            problems.push("result type must equal the input type".into());
        }
    } else if matches!(op_name(op).as_str(), "sg.global_average_pool" | "sg.global_max_pool") {
        let input = shape(op.operand(0).expect("IRDL guarantees the operand"));
        let output = shape(op.result(0).expect("IRDL guarantees the result").into());
        if input.len() < 3 {
            problems.push(format!("expects an N x C x spatial input of rank >= 3, got {}", dims(&input)));
            return;
        }
        let mut expected = input[..2].to_vec();
        expected.resize(input.len(), 1);
        if output != expected {
            problems.push(format!("result shape {} must be {}", dims(&output), dims(&expected)));
        }
    } else if let Some(pool) = MaxPool::cast(op) {
        let attributes = (pool.kernel(), pool.strides(), pool.pads(), pool.dilations(), pool.ceil_mode());
        if let (Some(k), Some(s), Some(p), Some(d), Some(c)) = attributes {
            check_pool(shape(pool.input()), shape(pool.output()), (&k, &s, &p, &d, c), problems);
        } else {
            problems.push(
                "attributes kernel, strides, pads, dilations (arrays) and ceil_mode (integer) are required".into(),
            );
        }
    } else if let Some(pool) = MaxPoolIndices::cast(op) {
        let attributes = (pool.kernel(), pool.strides(), pool.pads(), pool.dilations(), pool.ceil_mode());
        let (values, output) = (shape(pool.values()), shape(pool.output()));
        if let (Some(k), Some(s), Some(p), Some(d), Some(c)) = attributes {
            check_pool(shape(pool.input()), values.clone(), (&k, &s, &p, &d, c), problems);
        } else {
            problems.push(
                "attributes kernel, strides, pads, dilations (arrays) and ceil_mode (integer) are required".into(),
            );
        }
        if output != values {
            problems.push(format!("result shape {} must be the pooled values' {}", dims(&output), dims(&values)));
        }
        if !matches!(pool.storage_order(), Some(0 | 1)) {
            problems.push("'storage_order' must be 0 (row major) or 1 (column major)".into());
        }
        let name = |v: Value<'_, '_>| element(v.r#type()).map(|e| e.to_string()).unwrap_or_default();
        if name(pool.output()) != "i64" || static_shape(pool.output().r#type()).is_none() {
            problems.push(format!("the result must be a static i64 tensor, got {}", pool.output().r#type()));
        }
    } else if let Some(pool) = AveragePool::cast(op) {
        if !matches!(pool.count_include_pad(), Some(0 | 1)) {
            problems.push("'count_include_pad' must be 0 or 1".into());
        }
        if let (Some(k), Some(s), Some(p), Some(d), Some(c)) =
            (pool.kernel(), pool.strides(), pool.pads(), pool.dilations(), pool.ceil_mode())
        {
            check_pool(shape(pool.input()), shape(pool.output()), (&k, &s, &p, &d, c), problems);
        } else {
            problems.push(
                "attributes kernel, strides, pads, dilations (arrays) and ceil_mode (integer) are required".into(),
            );
        }
    }
}

/// Output size of pooling (and convolution) along one axis; `ceil` rounds the window count
/// up (ONNX ceil_mode).
pub fn pool_out(input: i64, kernel: i64, pad_begin: i64, pad_end: i64, stride: i64, dilation: i64, ceil: bool) -> i64 {
    let extent = input + pad_begin + pad_end - dilation * (kernel - 1) - 1;
    if extent < 0 {
        return 0;
    }
    if !ceil {
        return extent / stride + 1;
    }
    // ceil_mode drops a last window that would start inside the end padding (ONNX, PyTorch).
    let out = (extent + stride - 1) / stride + 1;
    if (out - 1) * stride >= input + pad_begin {
        out - 1
    } else {
        out
    }
}

fn check_pool(
    input: Vec<i64>,
    output: Vec<i64>,
    (k, s, p, d, ceil): (&[i64], &[i64], &[i64], &[i64], i64),
    problems: &mut Vec<String>,
) {
    if input.len() != 4 || output.len() != 4 {
        problems.push(format!("expects rank-4 NCHW input and result, got {} and {}", dims(&input), dims(&output)));
        return;
    }
    let pairs_ok = |v: &[i64]| v.len() == 2 && v.iter().all(|&x| x > 0);
    if !pairs_ok(k) || !pairs_ok(s) || !pairs_ok(d) {
        problems.push(format!(
            "kernel {}, strides {} and dilations {} must be 2 positive values each",
            list(k),
            list(s),
            list(d)
        ));
        return;
    }
    if p.len() != 4 || p.iter().enumerate().any(|(i, &x)| x < 0 || x >= k[i % 2] * d[i % 2]) {
        problems.push(format!("pads {} must be 4 non-negative values smaller than the dilated kernel", list(p)));
        return;
    }
    if !matches!(ceil, 0 | 1) {
        problems.push(format!("'ceil_mode' must be 0 or 1, got {ceil}"));
        return;
    }
    let expected = [
        input[0],
        input[1],
        pool_out(input[2], k[0], p[0], p[2], s[0], d[0], ceil == 1),
        pool_out(input[3], k[1], p[1], p[3], s[1], d[1], ceil == 1),
    ];
    if output != expected {
        problems.push(format!("result shape {} does not match the pooling, {}", dims(&output), dims(&expected)));
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
    let name = op_name(op);
    if matches!(name.as_str(), "sg.equal" | "sg.less" | "sg.greater" | "sg.where" | "sg.not") {
        check_logic(op, &name, problems);
        return;
    }
    let mixed = name == "sg.gather";
    let operands =
        op.operands().enumerate().filter(|(i, _)| !(mixed && *i == 1)).map(|(i, v)| ("operand", i, v.r#type()));
    // Indices (i64) of the operands' elements: the result's type is its own verifier's.
    let index_result = name == "sg.max_pool_indices";
    if name == "sg.cast" {
        for (what, ty) in [("operand", op.operand(0).map(|v| v.r#type())), ("result", op.result(0).map(|r| r.r#type()))]
        {
            if ty.ok().and_then(static_shape).is_none() {
                problems
                    .push(format!("{what} #0 must be a ranked tensor with a static shape (sg requires static shapes)"));
            }
        }
        if problems.is_empty() {
            let (input, output) =
                (shape(op.operand(0).expect("checked")), shape(op.result(0).expect("checked").into()));
            if input != output {
                problems.push(format!("result shape {} must equal the operand shape {}", dims(&output), dims(&input)));
            }
        }
        return;
    }
    let results = op.results().enumerate().filter(|_| !index_result).map(|(i, r)| ("result", i, r.r#type()));
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
        if extent < 0 {
            0
        } else {
            extent / strides[i] + 1
        }
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

fn check_transpose(transpose: Transpose<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, output) = (shape(transpose.input()), shape(transpose.output()));
    let Some(perm) = transpose.perm() else {
        problems.push("attribute 'perm' must be an array<i64: ...>".into());
        return None;
    };
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
