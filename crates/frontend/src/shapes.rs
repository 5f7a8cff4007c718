//! Static shape rules of the imported ops (ONNX semantics), as plain functions.

use strata_ir::Error;

/// An ONNX axis of a rank-`rank` tensor (negative counts from the end) as an index in
/// `0..rank`, or an error naming the axis.
pub fn axis(axis: i64, rank: i64) -> Result<usize, Error> {
    let normalised = if axis < 0 { axis + rank } else { axis };
    if (0..rank).contains(&normalised) {
        Ok(normalised as usize)
    } else {
        Err(format!("axis {axis} is out of range for rank {rank}").into())
    }
}

/// Element count of a shape, refusing negative dimensions and absurd sizes (a dimension or
/// the count above 2^40), so that later shape arithmetic cannot overflow.
pub fn numel(shape: &[i64]) -> Result<i64, Error> {
    shape
        .iter()
        .try_fold(1i64, |n, &d| if !(0..=1 << 40).contains(&d) { None } else { n.checked_mul(d) })
        .filter(|&n| n <= 1 << 40)
        .ok_or_else(|| Error::unsupported(format!("shape {shape:?} is negative or too large")))
}

/// Output spatial size of a convolution along one axis.
pub fn conv_out(input: i64, kernel: i64, pad_begin: i64, pad_end: i64, stride: i64, dilation: i64) -> i64 {
    let extent = input + pad_begin + pad_end - dilation * (kernel - 1) - 1;
    if extent < 0 {
        0
    } else {
        extent / stride + 1
    }
}

/// ONNX `auto_pad` SAME_UPPER / SAME_LOWER padding for one axis: (begin, end).
pub fn same_pads(input: i64, kernel: i64, stride: i64, dilation: i64, upper: bool) -> (i64, i64) {
    let out = (input + stride - 1) / stride;
    let total = ((out - 1) * stride + dilation * (kernel - 1) + 1 - input).max(0);
    if upper {
        (total / 2, total - total / 2)
    } else {
        (total - total / 2, total / 2)
    }
}

/// Resolves an ONNX Reshape target: `0` copies the input dim (unless `allowzero`), one `-1`
/// is inferred from the element count.
pub fn reshape(input: &[i64], target: &[i64], allowzero: bool) -> Result<Vec<i64>, Error> {
    let count = numel(input)?;
    let mut out: Vec<i64> = Vec::with_capacity(target.len());
    let mut infer = None;
    for (i, &d) in target.iter().enumerate() {
        match d {
            0 if !allowzero => out.push(
                *input.get(i).ok_or_else(|| format!("shape entry {i} is 0 but the input has rank {}", input.len()))?,
            ),
            -1 if infer.is_none() => {
                infer = Some(i);
                out.push(1);
            }
            -1 => return Err("more than one -1 in the target shape".into()),
            d if d < 0 => return Err(format!("invalid target dimension {d}").into()),
            d => out.push(d),
        }
    }
    let known = numel(&out)?;
    if let Some(i) = infer {
        if known == 0 || count % known != 0 {
            return Err(format!("cannot infer -1: {count} elements do not divide into {known}").into());
        }
        out[i] = count / known;
    }
    if numel(&out)? != count {
        return Err(format!("cannot reshape {input:?} ({count} elements) to {out:?}").into());
    }
    Ok(out)
}

/// Per-dimension starts, ends and steps of a slice.
pub type SliceBounds = (Vec<i64>, Vec<i64>, Vec<i64>);

/// Normalises ONNX Slice parameters to per-dimension (starts, ends, steps), clamped to the
/// shape as ONNX says: for a positive step, starts and ends into [0, dim]; for a negative one
/// (walking down), starts into [0, dim - 1] and ends into [-1, dim - 1], -1 meaning "past the
/// first element". Result dims: `strata_dialect_sg::verify::slice_len`.
pub fn slice(
    shape: &[i64],
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> Result<SliceBounds, Error> {
    let rank = shape.len() as i64;
    let axes: Vec<i64> = axes.map_or_else(|| (0..starts.len() as i64).collect(), <[i64]>::to_vec);
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.is_some_and(|s| s.len() != starts.len()) {
        return Err("starts, ends, axes and steps must have the same length".into());
    }
    let (mut s, mut e, mut st): (Vec<i64>, Vec<i64>, Vec<i64>) =
        (vec![0; shape.len()], shape.to_vec(), vec![1; shape.len()]);
    for (k, &axis) in axes.iter().enumerate() {
        let a = self::axis(axis, rank)?;
        let step = steps.map_or(1, |s| s[k]);
        if step == 0 {
            return Err(format!("step 0 on axis {a} (a step must not be 0)").into());
        }
        let dim = shape[a];
        let wrap = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
        if step > 0 {
            s[a] = wrap(starts[k]).clamp(0, dim);
            e[a] = wrap(ends[k]).clamp(0, dim).max(s[a]);
            // A step beyond the dimension takes one element, as the dimension + 1 would.
            st[a] = step.min(dim.max(1));
        } else if dim == 0 {
            (s[a], e[a], st[a]) = (0, 0, -1);
        } else {
            s[a] = wrap(starts[k]).clamp(0, dim - 1);
            e[a] = wrap(ends[k]).clamp(-1, dim - 1).min(s[a]);
            st[a] = step.max(-dim);
        }
    }
    Ok((s, e, st))
}

/// ONNX Squeeze: removes the listed size-1 axes, or every size-1 axis when none are given.
pub fn squeeze(shape: &[i64], axes: Option<&[i64]>) -> Result<Vec<i64>, Error> {
    let rank = shape.len() as i64;
    let axes: Vec<usize> = match axes {
        None => (0..shape.len()).filter(|&a| shape[a] == 1).collect(),
        Some(axes) => axes
            .iter()
            .map(|&a| {
                let n = axis(a, rank)?;
                if shape[n] != 1 {
                    return Err(Error::invalid_input(format!("axis {a} has size {}, not 1", shape[n])));
                }
                Ok(n)
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(shape.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, &d)| d).collect())
}

/// ONNX Unsqueeze: inserts size-1 axes at the listed positions of the output.
pub fn unsqueeze(shape: &[i64], axes: &[i64]) -> Result<Vec<i64>, Error> {
    let rank = (shape.len() + axes.len()) as i64;
    let mut positions: Vec<i64> = axes.iter().map(|&a| if a < 0 { a + rank } else { a }).collect();
    positions.sort_unstable();
    if positions.iter().any(|&a| !(0..rank).contains(&a)) || positions.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("axes {axes:?} are out of range or repeated for output rank {rank}").into());
    }
    let mut dims = shape.iter();
    Ok((0..rank)
        .map(|i| if positions.binary_search(&i).is_ok() { 1 } else { *dims.next().expect("counted") })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(conv_out(224, 7, 3, 3, 2, 1), 112);
        assert_eq!(same_pads(5, 3, 2, 1, true), (1, 1));
        assert_eq!(same_pads(4, 3, 2, 1, true), (0, 1));
        assert_eq!(same_pads(4, 3, 2, 1, false), (1, 0));
        assert_eq!(reshape(&[2, 3, 4], &[0, -1], false).unwrap(), vec![2, 12]);
        assert!(reshape(&[2, 3], &[4, -1], false).is_err());
        assert_eq!(
            slice(&[10, 20], &[1, -5], &[100, 20], Some(&[0, 1]), None).unwrap(),
            (vec![1, 15], vec![10, 20], vec![1, 1])
        );
        // Walking down: a start past the end clamps to the last element, an end before the
        // first to -1 ("past the first").
        assert_eq!(slice(&[10], &[20], &[i64::MIN], None, Some(&[-3])).unwrap(), (vec![9], vec![-1], vec![-3]));
        assert_eq!(slice(&[10], &[-2], &[1], None, Some(&[-1])).unwrap(), (vec![8], vec![1], vec![-1]));
        assert!(slice(&[10], &[0], &[5], None, Some(&[0])).is_err());
        assert_eq!(slice(&[4], &[3], &[0], None, Some(&[-1])).unwrap(), (vec![3], vec![0], vec![-1]));
        assert_eq!(squeeze(&[1, 3, 1, 5], None).unwrap(), vec![3, 5]);
        assert_eq!(squeeze(&[1, 3, 1, 5], Some(&[-2])).unwrap(), vec![1, 3, 5]);
        assert!(squeeze(&[1, 3], Some(&[1])).is_err());
        assert_eq!(unsqueeze(&[3, 4], &[0, -1]).unwrap(), vec![1, 3, 4, 1]);
        assert!(unsqueeze(&[3], &[0, 0]).is_err());
    }
}
