//! Shape rules of the neural-network ops: convolution, matmul, normalisations, pooling, and
//! the parameters of elementwise activations.

use super::{broadcast, dims, list, shape};
use crate::{Conv2d, ElementwiseOp, InstanceNorm, LayerNorm, MaxPoolIndices};
use melior::ir::ValueLike;
use strata_sg_kinds::Elementwise;

/// The parameters elementwise ops constrain: `clip`'s bounds, `gelu`'s approximation.
pub(super) fn check_parameters(op: ElementwiseOp<'_, '_>, problems: &mut Vec<String>) {
    let scalar = op.scalar();
    match op.kind() {
        Elementwise::Clip => {
            let (min, max) = (scalar.params.get(0), scalar.params.get(1));
            if min > max {
                problems.push(format!("'min' {min} is greater than 'max' {max}"));
            }
        }
        Elementwise::Gelu if !matches!(scalar.params.get(0), 0.0 | 1.0) => {
            problems.push("'approximate' must be 0 (erf) or 1 (tanh)".into());
        }
        _ => {}
    }
}

/// `axis` in `0..rank`.
pub(super) fn check_axis(axis: i64, rank: usize, problems: &mut Vec<String>) {
    if !(0..rank as i64).contains(&axis) {
        problems.push(format!("'axis' {axis} must be in 0..{rank}"));
    }
}

pub(super) fn check_layer_norm(norm: LayerNorm<'_, '_>, problems: &mut Vec<String>) {
    let (input, output) = (shape(norm.input()), shape(norm.output()));
    let r = input.len() as i64;
    let axis = norm.axis();
    if !(0..r).contains(&axis) {
        problems.push(format!("'axis' must be an integer in 0..{r}"));
        return;
    }
    if norm.epsilon() <= 0.0 || norm.epsilon().is_nan() {
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
}

pub(super) fn check_instance_norm(norm: InstanceNorm<'_, '_>, problems: &mut Vec<String>) {
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
    if norm.epsilon() <= 0.0 || norm.epsilon().is_nan() {
        problems.push("'epsilon' must be a positive float".into());
    }
}

pub(super) fn check_global_pool(input: &[i64], output: &[i64], problems: &mut Vec<String>) {
    if input.len() < 3 {
        problems.push(format!("expects an N x C x spatial input of rank >= 3, got {}", dims(input)));
        return;
    }
    let mut expected = input[..2].to_vec();
    expected.resize(input.len(), 1);
    if output != expected {
        problems.push(format!("result shape {} must be {}", dims(output), dims(&expected)));
    }
}

pub(super) fn check_pool_indices(pool: MaxPoolIndices<'_, '_>, problems: &mut Vec<String>) {
    let (values, output) = (shape(pool.values()), shape(pool.output()));
    let window = (&pool.kernel()[..], &pool.strides()[..], &pool.pads()[..], &pool.dilations()[..], pool.ceil_mode());
    check_pool(shape(pool.input()), values.clone(), window, problems);
    if output != values {
        problems.push(format!("result shape {} must be the pooled values' {}", dims(&output), dims(&values)));
    }
    if !matches!(pool.storage_order(), 0 | 1) {
        problems.push("'storage_order' must be 0 (row major) or 1 (column major)".into());
    }
}

pub(super) fn check_conv2d(conv: Conv2d<'_, '_>, problems: &mut Vec<String>) -> Option<()> {
    let (input, filter, output) = (shape(conv.input()), shape(conv.filter()), shape(conv.output()));
    let (strides, pads, dilations, group) = (conv.strides(), conv.pads(), conv.dilations(), conv.group());
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
    let spatial = |i: usize| {
        let extent = input[2 + i] + pads[i] + pads[i + 2] - dilations[i] * (filter[2 + i] - 1) - 1;
        if extent < 0 {
            0
        } else {
            extent / strides[i] + 1
        }
    };
    let expected = [input[0], features, spatial(0), spatial(1)];
    // A bias per filter, or an initial value of the result's shape (a residual the
    // convolution accumulates onto: `sg-accumulate-residuals`).
    if let Some(bias) = conv.bias() {
        let bias = shape(bias);
        if bias != [features] && bias != output {
            problems.push(format!(
                "bias must have shape [{features}] or the result's shape {}, got {}",
                dims(&output),
                dims(&bias)
            ));
        }
    }
    if output != expected {
        problems.push(format!("result shape {} does not match the convolution, {}", dims(&output), dims(&expected)));
    }
    Some(())
}

pub(super) fn check_matmul(lhs: &[i64], rhs: &[i64], out: &[i64], problems: &mut Vec<String>) {
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

/// `sg.quantized_matmul`: `ui8 [..., M, K]` times `i8 [N / 16, K / 4, 16, 4]` (K a multiple of
/// 4) from `i32 [N]` offsets into `i32 [..., M, N]`, or with `f32 [N]` scales into `f32`.
pub(super) fn check_quantized_matmul(q: crate::QuantizedMatmul<'_, '_>, problems: &mut Vec<String>) {
    let (lhs, rhs, out) = (shape(q.lhs()), shape(q.rhs()), shape(q.output()));
    let element = |v: melior::ir::Value<'_, '_>| super::element_name(v.r#type());
    let scales = q.scales();
    let mut types = vec![element(q.lhs()), element(q.rhs()), element(q.offsets())];
    types.extend(scales.map(element));
    let (expected, result): (&[&str], &str) =
        if scales.is_some() { (&["ui8", "i8", "i32", "f32"], "f32") } else { (&["ui8", "i8", "i32"], "i32") };
    if types != expected || element(q.output()) != result {
        problems.push(format!(
            "operands must be {} and the result {result}, got {} and {}",
            expected.join(", "),
            types.join(", "),
            element(q.output())
        ));
        return;
    }
    let n = out.last().copied().unwrap_or(-1);
    let packed = rhs.len() == 4 && rhs[2] == 16 && rhs[3] == 4 && rhs[0] * 16 == n;
    let mut expected = lhs.clone();
    if let Some(last) = expected.last_mut() {
        *last = n;
    }
    if lhs.len() < 2 || !packed || lhs[lhs.len() - 1] != rhs[1] * 4 || out != expected {
        problems.push(format!(
            "shapes {} x packed {} into {} are not a product of [..., M, K] and [N / 16, K / 4, 16, 4]",
            dims(&lhs),
            dims(&rhs),
            dims(&out)
        ));
    }
    if shape(q.offsets()) != [n] || scales.is_some_and(|s| shape(s) != [n]) {
        problems.push(format!("offsets and scales must be [{n}]"));
    }
}

/// `sg.quantized_conv`: `ui8 [1, C, H, W]` (C a multiple of 4) and `i8 [O, C]` from `i32 [O]`
/// offsets times `f32 [O]` scales into `f32 [1, O, H, W]`.
pub(super) fn check_quantized_conv(q: crate::QuantizedConv<'_, '_>, problems: &mut Vec<String>) {
    let element = |v: melior::ir::Value<'_, '_>| super::element_name(v.r#type());
    let types = [q.input(), q.weight(), q.offsets(), q.scales(), q.output()].map(element);
    if types != ["ui8", "i8", "i32", "f32", "f32"] {
        problems.push(format!("operands must be ui8, i8, i32, f32 and the result f32, got {}", types.join(", ")));
        return;
    }
    let (input, weight, out) = (shape(q.input()), shape(q.weight()), shape(q.output()));
    let fits = matches!((&input[..], &weight[..]), ([1, c, _, _], [_, k]) if c == k && c % 4 == 0);
    if !fits || out.len() != 4 || out != [1, weight[0], input[2], input[3]] {
        problems.push(format!(
            "shapes {} and {} into {} are not a 1x1 convolution of [1, C, H, W] (C a multiple of 4) with [O, C] into [1, O, H, W]",
            dims(&input),
            dims(&weight),
            dims(&out)
        ));
        return;
    }
    if shape(q.offsets()) != [weight[0]] || shape(q.scales()) != [weight[0]] {
        problems.push(format!("offsets and scales must be [{}]", weight[0]));
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

pub(super) fn check_pool(
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

/// What a recurrent op's shape rule needs besides its values.
pub struct Recurrent {
    /// Gates per step (LSTM 4, GRU 3, RNN 1).
    pub gates: i64,
    pub hidden: i64,
    /// 0 forward, 1 reverse, 2 bidirectional.
    pub direction: i64,
    /// The activation texts (comma-separated elementwise ops).
    pub activations: String,
}

/// The shapes of `sg.lstm`, `sg.gru` and `sg.rnn` (see the IRDL file): operands x, w, r, b,
/// sequence_lens, initial_h (LSTM: initial_c, p), results y, y_h (LSTM: y_c).
pub fn check_recurrent(
    op: Recurrent,
    operands: &[melior::ir::Value<'_, '_>],
    results: &[melior::ir::Value<'_, '_>],
    problems: &mut Vec<String>,
) {
    let Recurrent { gates, hidden: h, direction, activations } = op;
    if !matches!(direction, 0..=2) {
        problems.push(format!("'direction' must be 0 (forward), 1 (reverse) or 2 (both), got {direction}"));
        return;
    }
    if h < 1 {
        problems.push(format!("'hidden_size' must be positive, got {h}"));
        return;
    }
    let d = if direction == 2 { 2 } else { 1 };
    let x = shape(operands[0]);
    if x.len() != 3 {
        problems.push(format!("x must be [T, N, I], got {}", dims(&x)));
        return;
    }
    let (t, n, i) = (x[0], x[1], x[2]);
    // Activations per direction: LSTM f, g, h; GRU f, g; RNN f.
    let per_direction = match gates {
        4 => 3,
        3 => 2,
        _ => 1,
    };
    let expected: Vec<(&str, Vec<i64>)> = [
        ("w", vec![d, gates * h, i]),
        ("r", vec![d, gates * h, h]),
        ("b", vec![d, 2 * gates * h]),
        ("sequence_lens", vec![n]),
        ("initial_h", vec![d, n, h]),
        ("initial_c", vec![d, n, h]),
        ("p", vec![d, 3 * h]),
    ]
    .into_iter()
    .take(operands.len() - 1)
    .collect();
    for ((name, want), value) in expected.iter().zip(&operands[1..]) {
        let got = shape(*value);
        if &got != want {
            problems.push(format!("{name} must be {}, got {}", dims(want), dims(&got)));
        }
    }
    let outputs = [("y", vec![t, d, n, h]), ("y_h", vec![d, n, h]), ("y_c", vec![d, n, h])];
    for ((name, want), value) in outputs.iter().zip(results) {
        let got = shape(*value);
        if &got != want {
            problems.push(format!("result {name} must be {}, got {}", dims(want), dims(&got)));
        }
    }
    let parsed: Result<Vec<crate::ScalarOp>, String> = activations.split(',').map(|a| a.trim().parse()).collect();
    match parsed {
        Ok(list) if list.len() as i64 == per_direction * d => {
            if let Some(bad) = list.iter().find(|a| a.arity() != 1) {
                problems.push(format!("activation '{bad}' is not a unary elementwise op"));
            }
        }
        Ok(list) => problems.push(format!(
            "'activations' lists {} functions, {} needed ({} per direction)",
            list.len(),
            per_direction * d,
            per_direction
        )),
        Err(why) => problems.push(format!("'activations' is not a list of elementwise ops: {why}")),
    }
}
