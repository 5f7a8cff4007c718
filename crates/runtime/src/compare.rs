//! Comparing an output with its reference, with ONNX's rule: floats within
//! `atol + rtol * |expected|` (NaN matches NaN, infinities match exactly), integers and
//! booleans exactly.

use crate::Tensor;

/// How an output compares with its reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Elements outside the tolerance.
    pub bad: usize,
    pub count: usize,
    /// The largest |error| (over all elements; infinite where a NaN was not expected) and
    /// the flat index of the worst element outside the tolerance.
    pub max_error: f64,
    pub worst_at: Option<usize>,
    /// The largest |expected| (to state the error relative to the output's scale).
    pub max_reference: f64,
    /// Dtype or shape mismatch, described.
    pub mismatch: Option<String>,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.bad == 0 && self.mismatch.is_none()
    }

    /// One line: what differs, or the error statistics.
    pub fn describe(&self, rtol: f64, atol: f64) -> String {
        if let Some(mismatch) = &self.mismatch {
            return mismatch.clone();
        }
        let relative = self.max_error / self.max_reference.max(f64::MIN_POSITIVE);
        let at = self.worst_at.map_or(String::new(), |i| format!(", worst at flat index {i}"));
        format!(
            "{} of {} elements outside atol {atol} + rtol {rtol}; max |error| {:.3e} ({relative:.3e} of max |ref|){at}",
            self.bad, self.count, self.max_error
        )
    }
}

/// Compares `actual` with `expected`.
pub fn compare(actual: &Tensor, expected: &Tensor, rtol: f64, atol: f64) -> Comparison {
    let mut result =
        Comparison { bad: 0, count: actual.len(), max_error: 0.0, worst_at: None, max_reference: 0.0, mismatch: None };
    if actual.dtype() != expected.dtype() || actual.shape() != expected.shape() {
        result.mismatch = Some(format!(
            "got {} {:?}, expected {} {:?}",
            actual.dtype(),
            actual.shape(),
            expected.dtype(),
            expected.shape()
        ));
        return result;
    }
    let exact = !expected.dtype().is_float();
    let mut worst_bad = f64::NEG_INFINITY;
    for (i, (a, e)) in actual.to_f64().into_iter().zip(expected.to_f64()).enumerate() {
        let ok = if exact {
            a == e
        } else if e.is_nan() {
            a.is_nan()
        } else if e.is_infinite() {
            a == e
        } else {
            (a - e).abs() <= atol + rtol * e.abs()
        };
        let error = if a.is_nan() != e.is_nan() {
            f64::INFINITY
        } else if ok && !(a - e).is_finite() {
            0.0
        } else {
            (a - e).abs()
        };
        result.max_error = result.max_error.max(error);
        if e.is_finite() {
            result.max_reference = result.max_reference.max(e.abs());
        }
        if !ok {
            result.bad += 1;
            if error >= worst_bad {
                worst_bad = error;
                result.worst_at = Some(i);
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: &[f32]) -> Tensor {
        Tensor::from_array(&ndarray::ArrayD::from_shape_vec(vec![values.len()], values.to_vec()).unwrap())
    }

    #[test]
    fn tolerance_nan_and_infinity_follow_onnx() {
        let expected = floats(&[1.0, f32::NAN, f32::INFINITY, 100.0]);
        assert!(compare(&floats(&[1.0005, f32::NAN, f32::INFINITY, 100.05]), &expected, 1e-3, 1e-7).passed());
        let off = compare(&floats(&[1.0, 0.0, f32::INFINITY, 100.5]), &expected, 1e-3, 1e-7);
        assert_eq!((off.bad, off.worst_at), (2, Some(1)));
        assert!(off.max_error.is_infinite());
    }

    #[test]
    fn integers_are_exact_and_shapes_must_match() {
        let a = Tensor::from_array(&ndarray::ArrayD::from_shape_vec(vec![2], vec![1i64, 2]).unwrap());
        let b = Tensor::from_array(&ndarray::ArrayD::from_shape_vec(vec![2], vec![1i64, 3]).unwrap());
        assert_eq!(compare(&a, &b, 1.0, 1.0).bad, 1);
        let c = Tensor::from_array(&ndarray::ArrayD::from_shape_vec(vec![1, 2], vec![1i64, 2]).unwrap());
        assert!(compare(&a, &c, 0.0, 0.0).mismatch.is_some());
    }
}
