//! `Det`: the determinant of each square matrix of the input's last two axes, by Gaussian
//! elimination with partial pivoting (the algorithm of LAPACK's `getrf`, which NumPy's `det`
//! calls: the same pivots, the first largest magnitude on ties), its M static steps unrolled
//! into default-domain ops over the matrices flattened to `[B, M, M]`. Step k picks the pivot
//! row (ArgMax of the column's magnitudes below the diagonal), swaps it with row k (a
//! GatherElements by the swapped row order; each swap flips the sign), multiplies the
//! determinant by the pivot and subtracts multiples of row k from the rows below (a zero pivot
//! leaves them, the determinant being 0 already).

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    pub(crate) fn det(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let rank = shape.len();
        if rank < 2 || shape[rank - 1] != shape[rank - 2] {
            return Err(format!("Det takes square matrices in the last two axes, [..., M, M]; got {shape:?}").into());
        }
        if !matches!(dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16) {
            return Err(format!("Det takes a float tensor, not {}", dtype.as_str_name()).into());
        }
        let m = shape[rank - 1];
        let lead = shape[..rank - 2].to_vec();
        let batch = crate::shapes::numel(&lead)?;
        let mut e = Expansion::new(block, node, index);
        let out_shape = e.ints(self, &lead);
        if m == 0 || batch == 0 {
            // The determinant of a 0 x 0 matrix is 1.
            let one = e.scalar(self, dtype, 1.0)?;
            let y = e.op(self, "Expand", &[&one, &out_shape], vec![])?;
            return self.alias(&y, node.output[0].clone());
        }
        let flat = e.ints(self, &[batch, m, m]);
        let mut a = e.op(self, "Reshape", &[x, &flat], vec![])?;
        let rows = e.constant(self, Folded::from_i64(vec![1, m, 1], &(0..m).collect::<Vec<_>>()))?;
        let (zero, one, minus_one) =
            (e.scalar(self, dtype, 0.0)?, e.scalar(self, dtype, 1.0)?, e.scalar(self, dtype, -1.0)?);
        let square = e.ints(self, &[batch, m, m]);
        let mut det: Option<String> = None;
        for k in 0..m {
            let slice = |e: &mut Expansion, this: &mut Self, v: &str, starts: &[i64], ends: &[i64], axes: &[i64]| {
                let (s, t, a) = (e.ints(this, starts), e.ints(this, ends), e.ints(this, axes));
                e.op(this, "Slice", &[v, &s, &t, &a], vec![])
            };
            if k + 1 < m {
                // Pivot: the first row at or below k with the largest |a[row, k]|.
                let column = slice(&mut e, self, &a, &[k, k], &[m, k + 1], &[1, 2])?;
                let magnitude = e.op(self, "Abs", &[&column], vec![])?;
                let offset = e.op(self, "ArgMax", &[&magnitude], vec![attr_i("axis", 1), attr_i("keepdims", 1)])?;
                let k_index = e.constant(self, Folded::from_i64(vec![], &[k]))?;
                let pivot_row = e.op(self, "Add", &[&offset, &k_index], vec![])?;
                // Rows k and pivot_row swapped: [B, M, 1], then along every column.
                let is_k = e.op(self, "Equal", &[&rows, &k_index], vec![])?;
                let is_pivot = e.op(self, "Equal", &[&rows, &pivot_row], vec![])?;
                let others = e.op(self, "Where", &[&is_pivot, &k_index, &rows], vec![])?;
                let order = e.op(self, "Where", &[&is_k, &pivot_row, &others], vec![])?;
                let order = e.op(self, "Expand", &[&order, &square], vec![])?;
                a = e.op(self, "GatherElements", &[&a, &order], vec![attr_i("axis", 1)])?;
                let swapped = e.op(self, "Equal", &[&pivot_row, &k_index], vec![])?;
                let sign = e.op(self, "Where", &[&swapped, &one, &minus_one], vec![])?;
                det = Some(match det {
                    Some(d) => e.op(self, "Mul", &[&d, &sign], vec![])?,
                    None => sign,
                });
            }
            let pivot = slice(&mut e, self, &a, &[k, k], &[k + 1, k + 1], &[1, 2])?;
            det = Some(match det {
                Some(d) => e.op(self, "Mul", &[&d, &pivot], vec![])?,
                None => pivot.clone(),
            });
            if k + 1 < m {
                // Rows below k less their column-k multiple of row k.
                let below = slice(&mut e, self, &a, &[k + 1, k], &[m, k + 1], &[1, 2])?;
                let ratio = e.op(self, "Div", &[&below, &pivot], vec![])?;
                let singular = e.op(self, "Equal", &[&pivot, &zero], vec![])?;
                let factor = e.op(self, "Where", &[&singular, &zero, &ratio], vec![])?;
                let row_k = slice(&mut e, self, &a, &[k], &[k + 1], &[1])?;
                let update = e.op(self, "Mul", &[&factor, &row_k], vec![])?;
                let lower = slice(&mut e, self, &a, &[k + 1], &[m], &[1])?;
                let lower = e.op(self, "Sub", &[&lower, &update], vec![])?;
                let upper = slice(&mut e, self, &a, &[0], &[k + 1], &[1])?;
                a = e.op(self, "Concat", &[&upper, &lower], vec![attr_i("axis", 1)])?;
            }
        }
        let det = det.ok_or("Det of an empty matrix")?;
        let y = e.op(self, "Reshape", &[&det, &out_shape], vec![])?;
        self.alias(&y, node.output[0].clone())
    }
}
