//! Strided layouts: which elements of a storage buffer a tensor value occupies.

use crate::graph::Op;

/// `element(i0, i1, ...) = storage[offset + Σ i_k * strides[k]]`, in elements.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Layout {
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
}

/// Row-major strides of `shape`.
pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1].max(1);
    }
    strides
}

impl Layout {
    /// The whole of a contiguous buffer.
    pub fn contiguous(shape: &[i64]) -> Layout {
        Layout { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: 0 }
    }

    pub fn elements(&self) -> i64 {
        self.shape.iter().product()
    }

    /// Whether it is exactly a contiguous buffer's row-major layout (size-1 axes ignored).
    pub fn is_contiguous(&self) -> bool {
        self.offset == 0
            && self
                .shape
                .iter()
                .zip(&self.strides)
                .zip(contiguous_strides(&self.shape))
                .all(|((&n, &s), c)| n == 1 || s == c)
    }

    /// Whether it equals `Layout::contiguous(shape)` (without building it).
    pub fn is_whole(&self, shape: &[i64]) -> bool {
        if self.offset != 0 || self.shape != shape {
            return false;
        }
        let mut stride = 1i64;
        for k in (0..shape.len()).rev() {
            if self.strides[k] != stride {
                return false;
            }
            stride *= shape[k].max(1);
        }
        true
    }

    /// When the layout is a whole contiguous buffer of `elements` elements with its axes
    /// permuted (a reshape, then a transpose: an attention head split or merge): the reshaped
    /// shape and the permutation, such that `transpose(reshape(base, shape), perm)` is this
    /// view (`perm[k]`: the reshaped axis that result axis `k` reads). Unit axes go last in
    /// the reshaped shape, unless the other axes keep their order: then the view is a plain
    /// reshape (the identity permutation of its own shape), which moves no data.
    pub fn as_permuted_reshape(&self, elements: i64) -> Option<(Vec<i64>, Vec<usize>)> {
        if self.offset != 0 || self.elements() != elements || elements == 0 {
            return None;
        }
        let mut order: Vec<usize> = (0..self.shape.len()).filter(|&k| self.shape[k] != 1).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(self.strides[k]));
        let mut stride = 1i64;
        for &k in order.iter().rev() {
            if self.strides[k] != stride {
                return None;
            }
            stride *= self.shape[k];
        }
        if order.windows(2).all(|pair| pair[0] < pair[1]) {
            return Some((self.shape.clone(), (0..self.shape.len()).collect()));
        }
        order.extend((0..self.shape.len()).filter(|&k| self.shape[k] == 1));
        let shape = order.iter().map(|&k| self.shape[k]).collect();
        let mut perm = vec![0; order.len()];
        for (position, &k) in order.iter().enumerate() {
            perm[k] = position;
        }
        Some((shape, perm))
    }

    /// Whether two different indices can name the same element (a broadcast): such a layout
    /// must never be written.
    pub fn has_repeats(&self) -> bool {
        self.shape.iter().zip(&self.strides).any(|(&n, &s)| n > 1 && s == 0)
    }

    /// The storage index of a multi-index.
    pub fn index(&self, at: &[i64]) -> i64 {
        self.offset + at.iter().zip(&self.strides).map(|(i, s)| i * s).sum::<i64>()
    }

    /// The layout of `op` (a movement op with result shape `shape`) applied to a value laid
    /// out as `self`, if it is a strided view of the same storage.
    pub fn apply(&self, op: &Op, shape: &[i64]) -> Option<Layout> {
        match op {
            Op::Slice { starts, steps } => {
                // A negative step (walking an axis down) would need a negative stride: views
                // have none, so such a slice stays a copy.
                if starts.len() != self.shape.len()
                    || steps.len() != self.shape.len()
                    || shape.len() != self.shape.len()
                    || steps.iter().any(|&s| s <= 0)
                {
                    return None;
                }
                let offset = self.offset + starts.iter().zip(&self.strides).map(|(a, s)| a * s).sum::<i64>();
                let strides = steps.iter().zip(&self.strides).map(|(k, s)| k * s).collect();
                Some(Layout { shape: shape.to_vec(), strides, offset })
            }
            Op::Transpose { perm } => {
                if perm.len() != self.shape.len() || perm.iter().any(|&p| p >= self.shape.len()) {
                    return None;
                }
                Some(Layout {
                    shape: perm.iter().map(|&p| self.shape[p]).collect(),
                    strides: perm.iter().map(|&p| self.strides[p]).collect(),
                    offset: self.offset,
                })
            }
            Op::Broadcast => {
                let extra = shape.len().checked_sub(self.shape.len())?;
                let mut strides = vec![0i64; shape.len()];
                for k in 0..self.shape.len() {
                    let (from, to) = (self.shape[k], shape[extra + k]);
                    strides[extra + k] = match (from, to) {
                        (a, b) if a == b => self.strides[k],
                        (1, _) => 0,
                        _ => return None,
                    };
                }
                Some(Layout { shape: shape.to_vec(), strides, offset: self.offset })
            }
            Op::Reshape => {
                if self.elements() != shape.iter().product::<i64>() {
                    return None;
                }
                reshape_strides(&self.shape, &self.strides, shape).map(|strides| Layout {
                    shape: shape.to_vec(),
                    strides,
                    offset: self.offset,
                })
            }
            _ => None,
        }
    }
}

/// Strides that view a tensor of `shape`/`strides` as `new_shape` without moving data, when
/// they exist (row-major order; the dimensions of each merged or split group must be
/// contiguous with one another).
pub fn reshape_strides(shape: &[i64], strides: &[i64], new_shape: &[i64]) -> Option<Vec<i64>> {
    if shape.is_empty() {
        return Some(vec![1; new_shape.len()]);
    }
    if shape.iter().product::<i64>() == 0 {
        return Some(contiguous_strides(new_shape));
    }
    let mut new_strides = vec![0i64; new_shape.len()];
    let mut view_d = new_shape.len() as i64 - 1;
    let mut chunk_base_stride = *strides.last()?;
    let (mut tensor_numel, mut view_numel) = (1i64, 1i64);
    for tensor_d in (0..shape.len()).rev() {
        tensor_numel *= shape[tensor_d];
        if tensor_d == 0 || (shape[tensor_d - 1] != 1 && strides[tensor_d - 1] != tensor_numel * chunk_base_stride) {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    (view_d == -1).then_some(new_strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_transpose_broadcast_reshape() {
        let base = Layout::contiguous(&[16, 32]);
        let slice = base.apply(&Op::Slice { starts: vec![1, 2], steps: vec![1, 1] }, &[9, 18]).unwrap();
        assert_eq!((slice.offset, slice.strides.clone()), (34, vec![32, 1]));
        let t = slice.apply(&Op::Transpose { perm: vec![1, 0] }, &[18, 9]).unwrap();
        assert_eq!((t.offset, t.strides.clone()), (34, vec![1, 32]));
        assert!(!t.is_contiguous());
        assert!(base.apply(&Op::Slice { starts: vec![15, 0], steps: vec![-1, 1] }, &[16, 32]).is_none());
        // An attention head split: [B=2, S=3, H*D=4*5] reshaped to [2, 3, 4, 5] and transposed
        // to [2, 4, 3, 5] is a permuted whole buffer; a slice is not.
        let split = Layout::contiguous(&[2, 3, 20])
            .apply(&Op::Reshape, &[2, 3, 4, 5])
            .unwrap()
            .apply(&Op::Transpose { perm: vec![0, 2, 1, 3] }, &[2, 4, 3, 5])
            .unwrap();
        assert_eq!(split.as_permuted_reshape(120), Some((vec![2, 3, 4, 5], vec![0, 2, 1, 3])));
        assert_eq!(
            Layout::contiguous(&[1, 6])
                .apply(&Op::Transpose { perm: vec![1, 0] }, &[6, 1])
                .unwrap()
                .as_permuted_reshape(6),
            Some((vec![6, 1], vec![0, 1]))
        );
        // Unit axes moved around the others: a reshape, no transpose.
        assert_eq!(
            Layout::contiguous(&[1, 16])
                .apply(&Op::Reshape, &[16, 1, 1])
                .unwrap()
                .apply(&Op::Transpose { perm: vec![1, 2, 0] }, &[1, 1, 16])
                .unwrap()
                .as_permuted_reshape(16),
            Some((vec![1, 1, 16], vec![0, 1, 2]))
        );
        assert!(slice.as_permuted_reshape(16 * 32).is_none());
        assert!(t.as_permuted_reshape(16 * 32).is_none());
        assert!(base.is_whole(&[16, 32]) && !slice.is_whole(&[9, 18]) && !base.is_whole(&[32, 16]));
        assert!(Layout::contiguous(&[3, 0, 2]).is_whole(&[3, 0, 2]));
        let b = Layout::contiguous(&[1, 4]).apply(&Op::Broadcast, &[3, 1, 4]).unwrap();
        assert_eq!((b.strides[0], b.strides[2]), (0, 1));
        assert!(b.has_repeats());
        // Merging contiguous axes works; merging across a slice gap does not.
        assert_eq!(Layout::contiguous(&[2, 3, 4]).apply(&Op::Reshape, &[6, 4]).unwrap().strides, vec![4, 1]);
        assert!(slice.apply(&Op::Reshape, &[162]).is_none());
        assert_eq!(slice.apply(&Op::Reshape, &[9, 2, 9]).unwrap().strides, vec![32, 9, 1]);
    }
}
