//! Reductions: `reduce_*`, global pools, softmax and the normalisations (layer, instance).
//! Each reduction is a `linalg.generic` with reduction loops into a fill of the identity;
//! statistics are kept in the input's element type.

use crate::elementwise::{binary, lit, math, Binary, EXP_NORMAL_FLOOR};
use crate::kernel::{Body, Elem, Iter, Kernel, Map, TensorTy};
use crate::layout::reshape;
use crate::row_blocks;
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
/// than [`row_blocks::BLOCKED_BYTES`] ([`row_blocks::CHANNEL_SOFTMAX_BYTES`] along an axis
/// other than the last) runs block of rows by block of rows
/// ([`row_blocks`]), `sections` splitting the blocks across threads, and over its
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
    let reduced: Vec<bool> = (0..ty.rank()).map(|d| d == axis).collect();
    if blocks && !log && (elem.name == "f32" || elem.name == "f64") {
        // Strided rows (an axis other than the last) from a smaller size.
        let sizes = if axis + 1 < ty.rank() {
            row_blocks::strided_softmax_blocks(&ty, &reduced)
        } else {
            row_blocks::block_sizes(&ty, &reduced, row_blocks::BLOCKED_BYTES)
        };
        if let Some(sizes) = sizes {
            let identities = [elem.lowest(), elem.literal(0.0)];
            return row_blocks::blocked(k, &ty, (&reduced, &sizes), (sections, in_place), &identities, |k, b| {
                let max = row_maxima(k, &b.x, &b.ty, axis, &b.stats[0], &b.stat_ty)?;
                let exps = shifted_exps(k, &b.x, &b.ty, axis, &max, &b.stat_ty, &b.y)?;
                let sum = row_sums(k, &exps, &b.ty, axis, &b.stats[1], &b.stat_ty)?;
                let (y, recip) = normalized(k, &exps, &b.ty, &sum, &b.stat_ty, axis)?;
                Ok((y, vec![max, recip]))
            });
        }
    }
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

/// The kernel arguments that scale and shift a normalisation, and the loops their
/// dimensions are.
pub struct NormParams {
    pub scale: usize,
    pub bias: Option<usize>,
    pub dims: Vec<usize>,
}

/// `(x - mean) / sqrt(var + epsilon) * scale + bias` with the statistics over the dimensions
/// where `reduced` holds. With `blocks` (a host), an f32/f64 normalisation over more than
/// [`row_blocks::BLOCKED_BYTES`] runs block of rows by block of rows ([`row_blocks`]: each
/// block's three passes read it from L1 or L2), `sections` splitting the blocks across
/// threads, over its input where `in_place`; the same operations per row either way.
pub fn normalize(
    k: &mut Kernel,
    reduced: &[bool],
    epsilon: f64,
    params: &NormParams,
    blocks: bool,
    (sections, in_place): (bool, bool),
) -> Result<String, Error> {
    let ty = k.arg_type(0).clone();
    let elem: Elem = ty.elem.clone();
    if !elem.is_float() {
        return Err(elem.unsupported("normalisation"));
    }
    let args: Vec<usize> = std::iter::once(params.scale).chain(params.bias).collect();
    if blocks && (elem.name == "f32" || elem.name == "f64") {
        if let Some(sizes) = row_blocks::block_sizes(&ty, reduced, row_blocks::BLOCKED_BYTES) {
            let identities = [elem.literal(0.0), elem.literal(0.0)];
            return row_blocks::blocked(k, &ty, (reduced, &sizes), (sections, in_place), &identities, |k, b| {
                // The block's scales and shifts: each parameter sliced where the block starts.
                let sliced: Vec<(String, TensorTy)> = args
                    .iter()
                    .map(|&arg| {
                        let (name, arg_ty) = (k.arg(arg), k.arg_type(arg).clone());
                        let shape: Vec<i64> = params.dims.iter().map(|&d| b.ty.shape[d]).collect();
                        if shape == arg_ty.shape {
                            return (name, arg_ty);
                        }
                        let offsets: Vec<&str> = params.dims.iter().map(|&d| b.offsets[d].as_str()).collect();
                        let slice_ty = arg_ty.with_shape(shape.clone());
                        let slice = k.emit(format_args!(
                            "tensor.extract_slice {name}[{}] [{}] [{}] : {arg_ty} to {slice_ty}",
                            offsets.join(", "),
                            crate::nn::list(&shape),
                            crate::nn::list(&vec![1; shape.len()])
                        ));
                        (slice, slice_ty)
                    })
                    .collect();
                let stats = (b.stats[0].as_str(), b.stats[1].as_str(), &b.stat_ty);
                let (y, mean, rstd) =
                    normalized_rows(k, (&b.x, &b.ty), reduced, epsilon, stats, (&sliced, &params.dims), &b.y)?;
                Ok((y, vec![mean, rstd]))
            });
        }
    }
    let stat_ty = ty.with_shape((0..ty.rank()).filter(|&d| !reduced[d]).map(|d| ty.shape[d]).collect());
    let sums = k.filled(&elem.literal(0.0), &stat_ty);
    let squares = k.filled(&elem.literal(0.0), &stat_ty);
    let init = k.empty(&ty);
    let whole: Vec<(String, TensorTy)> = args.iter().map(|&arg| (k.arg(arg), k.arg_type(arg).clone())).collect();
    let input = k.arg(0);
    let stats = (sums.as_str(), squares.as_str(), &stat_ty);
    normalized_rows(k, (&input, &ty), reduced, epsilon, stats, (&whole, &params.dims), &init).map(|(y, ..)| y)
}

/// The normalisation of `x` (type `ty`) into `out`: the sums into `sums` and the squared
/// deviations into `squares` (both of type `stat_ty`, filled with zero), which become the
/// means and the reciprocal deviations in place; `params` (scale, then the optional shift)
/// are read through the loops `dims`. Returns the result, the means and the reciprocals.
fn normalized_rows(
    k: &mut Kernel,
    (x, ty): (&str, &TensorTy),
    reduced: &[bool],
    epsilon: f64,
    (sums, squares, stat_ty): (&str, &str, &TensorTy),
    (params, dims): (&[(String, TensorTy)], &[usize]),
    out: &str,
) -> Result<(String, String, String), Error> {
    let elem = ty.elem.clone();
    let rank = ty.rank();
    let kept: Vec<usize> = (0..rank).filter(|&d| !reduced[d]).collect();
    let count: i64 = (0..rank).filter(|&d| reduced[d]).map(|d| ty.shape[d]).product();
    let iterators = Iter::reducing(reduced);
    let identity = Map::identity(rank);
    let stat_rank = stat_ty.rank();
    let sum =
        k.try_generic(&[(x, ty, identity.clone())], (sums, stat_ty, Map::dims(kept.clone())), &iterators, |b, a| {
            binary(b, Binary::Add, &a[1], &a[0], &elem)
        })?;
    let mean =
        k.try_generic(&[], (&sum, stat_ty, Map::identity(stat_rank)), &vec![Iter::Parallel; stat_rank], |b, a| {
            let n = lit(b, count as f64, &elem);
            Ok(b.emit(format_args!("arith.divf {}, {n} : {elem}", a[0])))
        })?;
    let deviations = k.generic(
        &[(x, ty, identity.clone()), (&mean, stat_ty, Map::dims(kept.clone()))],
        (squares, stat_ty, Map::dims(kept.clone())),
        &iterators,
        |b, a| {
            let d = b.emit(format_args!("arith.subf {}, {} : {elem}", a[0], a[1]));
            let sq = b.emit(format_args!("arith.mulf {d}, {d} : {elem}"));
            b.emit(format_args!("arith.addf {}, {sq} : {elem}", a[2]))
        },
    );
    let rstd = k.try_generic(
        &[],
        (&deviations, stat_ty, Map::identity(stat_rank)),
        &vec![Iter::Parallel; stat_rank],
        |b, a| {
            let n = lit(b, count as f64, &elem);
            let eps = lit(b, epsilon, &elem);
            let var = b.emit(format_args!("arith.divf {}, {n} : {elem}", a[0]));
            let shifted = b.emit(format_args!("arith.addf {var}, {eps} : {elem}"));
            let root = math(b, "sqrt", &shifted, &elem)?;
            let one = lit(b, 1.0, &elem);
            Ok(b.emit(format_args!("arith.divf {one}, {root} : {elem}")))
        },
    )?;
    let mut inputs: Vec<(&str, &TensorTy, Map)> =
        vec![(x, ty, identity.clone()), (&mean, stat_ty, Map::dims(kept.clone())), (&rstd, stat_ty, Map::dims(kept))];
    inputs.extend(params.iter().map(|(name, param_ty)| (name.as_str(), param_ty, Map::dims(dims.iter().copied()))));
    let shifted = params.len() > 1;
    let y = k.generic(&inputs, (out, ty, identity), &vec![Iter::Parallel; rank], |b, a| {
        let centered = b.emit(format_args!("arith.subf {}, {} : {elem}", a[0], a[1]));
        let normed = b.emit(format_args!("arith.mulf {centered}, {} : {elem}", a[2]));
        let scaled = b.emit(format_args!("arith.mulf {normed}, {} : {elem}", a[3]));
        if shifted {
            b.emit(format_args!("arith.addf {scaled}, {} : {elem}", a[4]))
        } else {
            scaled
        }
    });
    Ok((y, mean, rstd))
}
