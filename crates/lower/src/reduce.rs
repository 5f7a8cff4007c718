//! Reductions: `reduce_*`, global pools, softmax and the normalisations (layer, instance).
//! Each reduction is a `linalg.generic` with reduction loops into a fill of the identity;
//! statistics are kept in the input's element type.

use crate::elementwise::{binary, lit, math, Binary, EXP_NORMAL_FLOOR};
use crate::kernel::{Body, Elem, Iter, Kernel, Map, TensorTy};
use crate::layout::reshape;
use strata_ir::Error;

/// What a reduction accumulates: the dialect's reductions (global pools and the
/// normalisations use `Mean` and `Max` too).
pub use strata_dialect_sg::Reduction;

/// `value` (type `ty`) reduced over the dimensions where `reduced` holds, without keeping
/// them. Returns the value and its type.
pub fn reduce(
    k: &mut Kernel,
    value: &str,
    ty: &TensorTy,
    reduced: &[bool],
    how: Reduction,
) -> Result<(String, TensorTy), Error> {
    let input = [(value, ty, Map::identity(ty.rank()))];
    reduce_computed(k, &input, ty, reduced, how, |_, a| Ok(a[0].clone()))
}

/// The elements `element` computes from `inputs` (each read through its map over the loops
/// of `ty`, the iteration space) reduced over the dimensions where `reduced` holds, without
/// keeping them, in one generic: the elements are never stored. Returns the value and its type.
pub fn reduce_computed(
    k: &mut Kernel,
    inputs: &[(&str, &TensorTy, Map)],
    ty: &TensorTy,
    reduced: &[bool],
    how: Reduction,
    element: impl FnOnce(&mut Body, &[String]) -> Result<String, Error>,
) -> Result<(String, TensorTy), Error> {
    let elem = &ty.elem;
    if matches!(how, Reduction::Mean | Reduction::L2) && !elem.is_float() {
        return Err(elem.unsupported(&format!("{how:?} reduction")));
    }
    let identity = match how {
        Reduction::Sum | Reduction::Mean | Reduction::L2 => elem.literal(0.0),
        Reduction::Prod => elem.literal(1.0),
        Reduction::Max => elem.lowest(),
        Reduction::Min => elem.highest(),
    };
    let n = inputs.len();
    let (acc, out) = reduce_into(k, inputs, ty, reduced, &identity, |b, a| {
        let x = element(b, &a[..n])?;
        let acc = &a[n];
        match how {
            Reduction::Sum | Reduction::Mean => binary(b, Binary::Add, acc, &x, elem),
            Reduction::Max => binary(b, Binary::Max, acc, &x, elem),
            Reduction::Min => binary(b, Binary::Min, acc, &x, elem),
            Reduction::Prod => binary(b, Binary::Mul, acc, &x, elem),
            Reduction::L2 => binary(b, Binary::Mul, &x, &x, elem).and_then(|sq| binary(b, Binary::Add, acc, &sq, elem)),
        }
    })?;
    let count: i64 = (0..ty.rank()).filter(|&d| reduced[d]).map(|d| ty.shape[d]).product();
    let result = match how {
        Reduction::Mean => pointwise(k, &acc, &out, |b, x| {
            let n = lit(b, count as f64, &out.elem);
            Ok(b.emit(format_args!("arith.divf {x}, {n} : {}", out.elem)))
        })?,
        Reduction::L2 => pointwise(k, &acc, &out, |b, x| math(b, "sqrt", x, &out.elem))?,
        _ => acc,
    };
    Ok((result, out))
}

/// The generic reducing `inputs` (each read through its map over the loops of `ty`) over the
/// dimensions where `reduced` holds into a fill of `identity`, without keeping them: `body`
/// gets the inputs' elements and the accumulator last. Returns the value and its type.
fn reduce_into(
    k: &mut Kernel,
    inputs: &[(&str, &TensorTy, Map)],
    ty: &TensorTy,
    reduced: &[bool],
    identity: &str,
    body: impl FnOnce(&mut Body, &[String]) -> Result<String, Error>,
) -> Result<(String, TensorTy), Error> {
    let kept: Vec<usize> = (0..ty.rank()).filter(|&d| !reduced[d]).collect();
    let out = ty.with_shape(kept.iter().map(|&d| ty.shape[d]).collect());
    let init = k.filled(identity, &out);
    let acc = k.try_generic(inputs, (&init, &out, Map::dims(kept)), &Iter::reducing(reduced), body)?;
    Ok((acc, out))
}

/// `f` applied to every element of `value` (type `ty`).
fn pointwise(
    k: &mut Kernel,
    value: &str,
    ty: &TensorTy,
    f: impl FnOnce(&mut Body, &str) -> Result<String, Error>,
) -> Result<String, Error> {
    let init = k.empty(ty);
    k.try_generic(
        &[(value, ty, Map::identity(ty.rank()))],
        (&init, ty, Map::identity(ty.rank())),
        &vec![Iter::Parallel; ty.rank()],
        |b, a| f(b, &a[0]),
    )
}

/// `reduce_*` with sorted, distinct `axes`; `keepdims` reshapes to the result type.
pub fn reduce_op(k: &mut Kernel, axes: &[i64], how: Reduction, out: &TensorTy) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let input = k.arg(0);
    let reduced: Vec<bool> = (0..ty.rank()).map(|d| axes.contains(&(d as i64))).collect();
    let (value, value_ty) = reduce(k, &input, &ty, &reduced, how)?;
    Ok(reshape(k, &value, &value_ty, out))
}

/// Global average / max pool: a reduction over every dimension after N and C.
pub fn global_pool(k: &mut Kernel, how: Reduction, out: &TensorTy) -> Result<String, Error> {
    let axes: Vec<i64> = (2..k.arg_type(0).rank() as i64).collect();
    reduce_op(k, &axes, how, out)
}

/// `exp(shifted)` for a softmax (`shifted = x - max <= 0`), for f32 and narrower, without
/// ever asking the exponential for a denormal: masked attention shifts whole rows by -1e4 or
/// more, and each denormal result (and each quotient of one) took a microcode assist on x86,
/// five times the time of the whole softmax. Below [`EXP_NORMAL_FLOOR`] the result is 0 when
/// `zero_below` (XNNPACK flushes the same way; the quotients of the true values would be
/// denormal too), else `exp(EXP_NORMAL_FLOOR)` (for a sum that also holds `exp(0) = 1`, where it
/// rounds away: the log-softmax's sum, whose body then stays a plain vectorised reduction).
/// NaN stays NaN.
pub(crate) fn shifted_exp(b: &mut Body, shifted: &str, elem: &Elem, zero_below: bool) -> Result<String, Error> {
    if elem.bits() > 32 {
        return math(b, "exp", shifted, elem);
    }
    let flush = lit(b, EXP_NORMAL_FLOOR, elem);
    let kept = b.emit(format_args!("arith.maximumf {shifted}, {flush} : {elem}"));
    let e = math(b, "exp", &kept, elem)?;
    if !zero_below {
        return Ok(e);
    }
    let tiny = b.emit(format_args!("arith.cmpf olt, {shifted}, {flush} : {elem}"));
    let zero = lit(b, 0.0, elem);
    Ok(b.emit(format_args!("arith.select {tiny}, {zero}, {e} : {elem}")))
}

/// Softmax or log-softmax along `axis`: the maximum, the sum of `exp(x - max)` (one
/// generic), then the normalised value. With `blocks` (a host), an f32/f64 softmax over more
/// than [`crate::softmax_blocks::BLOCKED_BYTES`] runs block of rows by block of rows
/// ([`crate::softmax_blocks`]), `sections` splitting the blocks across threads, and over its
/// input where `in_place` (unblocked, the planner already gives the exponentials the dying
/// input's buffer: they are an elementwise generic of it).
pub fn softmax(
    k: &mut Kernel,
    axis: usize,
    log: bool,
    blocks: bool,
    (sections, in_place): (bool, bool),
) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let elem = ty.elem.clone();
    if !elem.is_float() {
        return Err(elem.unsupported("softmax"));
    }
    let input = k.arg(0);
    if blocks && !log && (elem.name == "f32" || elem.name == "f64") {
        if let Some(sizes) = crate::softmax_blocks::block_sizes(&ty, axis) {
            return crate::softmax_blocks::blocked(k, &ty, axis, &sizes, sections, in_place);
        }
    }
    let reduced: Vec<bool> = (0..ty.rank()).map(|d| d == axis).collect();
    let max_ty = ty.with_shape((0..ty.rank()).filter(|&d| d != axis).map(|d| ty.shape[d]).collect());
    let lowest = k.filled(&elem.lowest(), &max_ty);
    let max = row_maxima(k, &input, &ty, axis, &lowest, &max_ty)?;
    let kept = Map::dims((0..ty.rank()).filter(|&d| d != axis));
    let zero = k.filled(&elem.literal(0.0), &max_ty);
    let inputs = [(input.as_str(), &ty, Map::identity(ty.rank())), (max.as_str(), &max_ty, kept.clone())];
    if !log {
        // exp(x - max) once, in a loop of its own (no reduction in it, so it vectorises), then
        // its sum, then the quotient in place: the same sums as summing exp(x - max) directly.
        let init = k.empty(&ty);
        let exps = shifted_exps(k, &input, &ty, axis, &max, &max_ty, &init)?;
        let sum = row_sums(k, &exps, &ty, axis, &zero, &max_ty)?;
        if elem.name == "f32" || elem.name == "f64" {
            return normalized(k, &exps, &ty, &sum, &max_ty, axis).map(|(y, _)| y);
        }
        return k.try_generic(
            &[(&sum, &max_ty, kept)],
            (&exps, &ty, Map::identity(ty.rank())),
            &vec![Iter::Parallel; ty.rank()],
            |b, a| Ok(b.emit(format_args!("arith.divf {}, {} : {elem}", a[1], a[0]))),
        );
    }
    let sum = k.try_generic(&inputs, (&zero, &max_ty, kept.clone()), &Iter::reducing(&reduced), |b, a| {
        let shifted = b.emit(format_args!("arith.subf {}, {} : {elem}", a[0], a[1]));
        let e = shifted_exp(b, &shifted, &elem, false)?;
        Ok(b.emit(format_args!("arith.addf {}, {e} : {elem}", a[2])))
    })?;
    // One logarithm per row (in the sum's buffer), not one per element: the row's sum is
    // broadcast along the axis, and a log in the elementwise loop is recomputed per element
    // (CRNN's 6625-class output: 132k logarithms instead of 20). The same values.
    let rank = max_ty.rank();
    let log_sum = k.try_generic(&[], (&sum, &max_ty, Map::identity(rank)), &vec![Iter::Parallel; rank], |b, a| {
        math(b, "log", &a[0], &elem)
    })?;
    let init = k.empty(&ty);
    k.try_generic(
        &[(&input, &ty, Map::identity(ty.rank())), (&max, &max_ty, kept.clone()), (&log_sum, &max_ty, kept)],
        (&init, &ty, Map::identity(ty.rank())),
        &vec![Iter::Parallel; ty.rank()],
        |b, a| {
            let shifted = b.emit(format_args!("arith.subf {}, {} : {elem}", a[0], a[1]));
            Ok(b.emit(format_args!("arith.subf {shifted}, {} : {elem}", a[2])))
        },
    )
}

/// A softmax's row maxima of `input` (type `ty`) along `axis`, into `init` (type `stat_ty`,
/// filled with the lowest value), ignoring NaN (`maxnumf`, not `maximumf`): a row with a NaN
/// comes out all NaN either way (its exponential is NaN, so are the sum and every quotient),
/// and rows without one have the same maximum. Its vectorised loop then needs no NaN handling
/// (x86: one `vmaxps` per vector instead of six dependent instructions).
pub(crate) fn row_maxima(
    k: &mut Kernel,
    input: &str,
    ty: &TensorTy,
    axis: usize,
    init: &str,
    stat_ty: &TensorTy,
) -> Result<String, Error> {
    row_reduction(k, (input, ty), axis, (init, stat_ty), "arith.maxnumf")
}

/// A softmax's `exp(x - max)` of `input` (type `ty`) and its row maxima `max` (type
/// `stat_ty`) along `axis`, into `init` (type `ty`).
pub(crate) fn shifted_exps(
    k: &mut Kernel,
    input: &str,
    ty: &TensorTy,
    axis: usize,
    max: &str,
    stat_ty: &TensorTy,
    init: &str,
) -> Result<String, Error> {
    let elem = &ty.elem;
    let kept = Map::dims((0..ty.rank()).filter(|&d| d != axis));
    k.try_generic(
        &[(input, ty, Map::identity(ty.rank())), (max, stat_ty, kept)],
        (init, ty, Map::identity(ty.rank())),
        &vec![Iter::Parallel; ty.rank()],
        |b, a| {
            let shifted = b.emit(format_args!("arith.subf {}, {} : {elem}", a[0], a[1]));
            shifted_exp(b, &shifted, elem, true)
        },
    )
}

/// The row sums of `exps` (type `ty`) along `axis`, into `init` (type `stat_ty`, filled with
/// zero).
pub(crate) fn row_sums(
    k: &mut Kernel,
    exps: &str,
    ty: &TensorTy,
    axis: usize,
    init: &str,
    stat_ty: &TensorTy,
) -> Result<String, Error> {
    row_reduction(k, (exps, ty), axis, (init, stat_ty), "arith.addf")
}

/// `input` (type `ty`) reduced along `axis` by the float op `combine` into `init` (type
/// `stat_ty`), each element combined into the row's value as it is read.
fn row_reduction(
    k: &mut Kernel,
    (input, ty): (&str, &TensorTy),
    axis: usize,
    (init, stat_ty): (&str, &TensorTy),
    combine: &str,
) -> Result<String, Error> {
    let elem = &ty.elem;
    let reduced: Vec<bool> = (0..ty.rank()).map(|d| d == axis).collect();
    let kept = Map::dims((0..ty.rank()).filter(|&d| d != axis));
    k.try_generic(&[(input, ty, Map::identity(ty.rank()))], (init, stat_ty, kept), &Iter::reducing(&reduced), |b, a| {
        Ok(b.emit(format_args!("{combine} {}, {} : {elem}", a[1], a[0])))
    })
}

/// `exps` (type `ty`) divided by their `sum` along `axis` (type `sum_ty`): one reciprocal per
/// row (in the sum's buffer), then products, in place in `exps`: a division per element cost
/// as much as the exponentials (within an ulp of the quotient). The result and the
/// reciprocals.
pub(crate) fn normalized(
    k: &mut Kernel,
    exps: &str,
    ty: &TensorTy,
    sum: &str,
    sum_ty: &TensorTy,
    axis: usize,
) -> Result<(String, String), Error> {
    let elem = &ty.elem;
    let rank = sum_ty.rank();
    let recip = k.try_generic(&[], (sum, sum_ty, Map::identity(rank)), &vec![Iter::Parallel; rank], |b, a| {
        let one = b.constant(&elem.literal(1.0), elem);
        Ok(b.emit(format_args!("arith.divf {one}, {} : {elem}", a[0])))
    })?;
    let kept = Map::dims((0..ty.rank()).filter(|&d| d != axis));
    let y = k.try_generic(
        &[(&recip, sum_ty, kept)],
        (exps, ty, Map::identity(ty.rank())),
        &vec![Iter::Parallel; ty.rank()],
        |b, a| Ok(b.emit(format_args!("arith.mulf {}, {} : {elem}", a[1], a[0]))),
    )?;
    Ok((y, recip))
}

/// `(x - mean) / sqrt(var + epsilon) * scale + bias` with the statistics over the dimensions
/// where `reduced` holds. `scale` and `bias` are kernel arguments read through `param_map`.
pub fn normalize(
    k: &mut Kernel,
    reduced: &[bool],
    epsilon: f64,
    scale: usize,
    bias: Option<usize>,
    param_map: Map,
) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let elem: Elem = ty.elem.clone();
    if !elem.is_float() {
        return Err(elem.unsupported("normalisation"));
    }
    let input = k.arg(0);
    let (mean, stat_ty) = reduce(k, &input, &ty, reduced, Reduction::Mean)?;
    let kept: Vec<usize> = (0..ty.rank()).filter(|&d| !reduced[d]).collect();
    let count: i64 = (0..ty.rank()).filter(|&d| reduced[d]).map(|d| ty.shape[d]).product();
    let zero = k.filled(&elem.literal(0.0), &stat_ty);
    let iterators = Iter::reducing(reduced);
    let squares = k.generic(
        &[(&input, &ty, Map::identity(ty.rank())), (&mean, &stat_ty, Map::dims(kept.clone()))],
        (&zero, &stat_ty, Map::dims(kept.clone())),
        &iterators,
        |b, a| {
            let d = b.emit(format_args!("arith.subf {}, {} : {elem}", a[0], a[1]));
            let sq = b.emit(format_args!("arith.mulf {d}, {d} : {elem}"));
            b.emit(format_args!("arith.addf {}, {sq} : {elem}", a[2]))
        },
    );
    let rstd = pointwise(k, &squares, &stat_ty, |b, x| {
        let n = lit(b, count as f64, &elem);
        let eps = lit(b, epsilon, &elem);
        let var = b.emit(format_args!("arith.divf {x}, {n} : {elem}"));
        let shifted = b.emit(format_args!("arith.addf {var}, {eps} : {elem}"));
        let root = math(b, "sqrt", &shifted, &elem)?;
        let one = lit(b, 1.0, &elem);
        Ok(b.emit(format_args!("arith.divf {one}, {root} : {elem}")))
    })?;
    let (scale_name, scale_ty) = (k.arg(scale), k.arg_type(scale).clone());
    let mut inputs: Vec<(String, TensorTy, Map)> = vec![
        (input.clone(), ty.clone(), Map::identity(ty.rank())),
        (mean, stat_ty.clone(), Map::dims(kept.clone())),
        (rstd, stat_ty.clone(), Map::dims(kept)),
        (scale_name, scale_ty, param_map.clone()),
    ];
    if let Some(bias) = bias {
        inputs.push((k.arg(bias), k.arg_type(bias).clone(), param_map));
    }
    let refs: Vec<(&str, &TensorTy, Map)> = inputs.iter().map(|(n, t, m)| (n.as_str(), t, m.clone())).collect();
    let init = k.empty(&ty);
    Ok(k.generic(&refs, (&init, &ty, Map::identity(ty.rank())), &vec![Iter::Parallel; ty.rank()], |b, a| {
        let centered = b.emit(format_args!("arith.subf {}, {} : {elem}", a[0], a[1]));
        let normed = b.emit(format_args!("arith.mulf {centered}, {} : {elem}", a[2]));
        let scaled = b.emit(format_args!("arith.mulf {normed}, {} : {elem}", a[3]));
        if bias.is_some() {
            b.emit(format_args!("arith.addf {scaled}, {} : {elem}", a[4]))
        } else {
            scaled
        }
    }))
}
