//! The support vector machines (`SVMRegressor`, `SVMClassifier`, ai.onnx.ml 1) as skl2onnx
//! writes scikit-learn's `SVR`, `NuSVR`, `OneClassSVM`, `SVC` and `NuSVC`: the kernel between
//! every row and every support vector, `K` `[N, vectors]` (a MatMul by the support vectors
//! transposed at import, then the kernel's elementwise ops; RBF as
//! `exp(-gamma (|x|^2 + |v|^2 - 2 x.v))`, the squared distance clamped at 0), then MatMuls by
//! coefficient matrices built at import. A classifier's one-against-one decisions are one MatMul
//! (each pair's two blocks of coefficients in one column), its votes another (+1 for the
//! pair's first class where the decision is positive, else for its second), its label the class
//! with the most votes (the first on ties), its scores the decisions (`[-s, s]` for two
//! classes), as ONNX Runtime writes them. Probability estimates (`prob_a`, `prob_b`: libsvm's
//! iterative pairwise coupling) and the liblinear mode without support vectors are
//! unsupported for the classifier.

use super::{float_list, integer_labels, need, rows_and_features, string};
use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{int, ints, required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

/// The highest polynomial degree imported (a chain of squarings and multiplications).
const MAX_DEGREE: i64 = 64;

/// `kernel_type` and `kernel_params` (gamma, coef0, degree).
#[derive(Clone, Copy, Debug)]
enum SvmKernel {
    Linear,
    Poly { gamma: f32, coef0: f32, degree: i64 },
    Rbf { gamma: f32 },
    Sigmoid { gamma: f32, coef0: f32 },
}

impl SvmKernel {
    fn of(importer: &Importer, node: &NodeProto) -> Result<SvmKernel, Error> {
        let params = float_list(importer, node, &["kernel_params"])?.unwrap_or_default();
        let param = |i: usize| params.get(i).copied().unwrap_or(0.0);
        let (gamma, coef0) = (param(0) as f32, param(1) as f32);
        Ok(match string(node, "kernel_type", "LINEAR").as_str() {
            "LINEAR" => SvmKernel::Linear,
            "POLY" => {
                let degree = param(2);
                if degree.fract() != 0.0 || !(0.0..=MAX_DEGREE as f64).contains(&degree) {
                    return Err(format!(
                        "the POLY kernel's degree (kernel_params[2]) is {degree}, not a whole number from 0 to \
                         {MAX_DEGREE}"
                    )
                    .into());
                }
                SvmKernel::Poly { gamma, coef0, degree: degree as i64 }
            }
            "RBF" => SvmKernel::Rbf { gamma },
            "SIGMOID" => SvmKernel::Sigmoid { gamma, coef0 },
            other => {
                return Err(format!("unknown kernel_type '{other}' (LINEAR, POLY, RBF or SIGMOID)").into());
            }
        })
    }
}

/// `values` as a `[rows, cols]` f32 constant.
fn matrix(
    e: &mut Expansion,
    importer: &mut Importer,
    rows: usize,
    cols: usize,
    values: &[f32],
) -> Result<String, Error> {
    e.constant(importer, Folded::from_f32(vec![rows as i64, cols as i64], values))
}

impl Importer<'_> {
    /// The support vectors (attribute `support_vectors`, `vectors` rows of `features`), checked.
    fn support_vectors(&self, node: &NodeProto, vectors: usize, features: i64) -> Result<Vec<f32>, Error> {
        let sv = need(float_list(self, node, &["support_vectors"])?, "support_vectors")?;
        if sv.len() != vectors * features as usize {
            return Err(format!(
                "support_vectors has {} values for {vectors} vectors of X's {features} features",
                sv.len()
            )
            .into());
        }
        Ok(sv.iter().map(|&v| v as f32).collect())
    }

    /// `K(xs, sv)` `[rows, vectors]`: the kernel between each row of `xs` (`[rows, features]`
    /// f32) and each support vector (`sv`, `vectors` rows of `features`).
    fn svm_kernel(
        &mut self,
        e: &mut Expansion,
        xs: &str,
        sv: &[f32],
        (vectors, features): (usize, usize),
        kernel: SvmKernel,
    ) -> Result<String, Error> {
        let mut transposed = vec![0f32; sv.len()];
        for v in 0..vectors {
            for f in 0..features {
                transposed[f * vectors + v] = sv[v * features + f];
            }
        }
        let svt = matrix(e, self, features, vectors, &transposed)?;
        // RBF's |x|^2 ([N, 1]) first, as a contraction of the rows with themselves: no
        // elementwise square of the rows that the e-graph would write over them (an in-place
        // write waits for every other reader of the rows, so every SVM's [N, vectors] product
        // would run, and stay live, before it).
        let x2 = match kernel {
            SvmKernel::Rbf { .. } => {
                let rows = self.shape_of(xs)?.0[0];
                let sums = e.op(self, "Einsum", &[xs, xs], vec![crate::expand::attr_s("equation", "nf,nf->n")])?;
                let shape = e.ints(self, &[rows, 1]);
                Some(e.op(self, "Reshape", &[&sums, &shape], vec![])?)
            }
            _ => None,
        };
        let dot = e.op(self, "MatMul", &[xs, &svt], vec![])?;
        let scalar = |e: &mut Expansion, this: &mut Self, v: f32| e.scalar(this, DataType::Float, v as f64);
        let affine = |e: &mut Expansion, this: &mut Self, gamma: f32, coef0: f32| -> Result<String, Error> {
            let g = scalar(e, this, gamma)?;
            let scaled = e.op(this, "Mul", &[&dot, &g], vec![])?;
            let c = scalar(e, this, coef0)?;
            e.op(this, "Add", &[&scaled, &c], vec![])
        };
        match kernel {
            SvmKernel::Linear => Ok(dot.clone()),
            SvmKernel::Sigmoid { gamma, coef0 } => {
                let t = affine(e, self, gamma, coef0)?;
                e.op(self, "Tanh", &[&t], vec![])
            }
            SvmKernel::Poly { gamma, coef0, degree } => {
                let t = affine(e, self, gamma, coef0)?;
                // t^degree by squaring (exact for the small whole degrees kernels use).
                let (mut result, mut power, mut rest) = (None::<String>, t, degree);
                while rest > 0 {
                    if rest & 1 == 1 {
                        result = Some(match result {
                            Some(r) => e.op(self, "Mul", &[&r, &power], vec![])?,
                            None => power.clone(),
                        });
                    }
                    rest >>= 1;
                    if rest > 0 {
                        power = e.op(self, "Mul", &[&power, &power], vec![])?;
                    }
                }
                match result {
                    Some(r) => Ok(r),
                    // Degree 0: 1 everywhere (NaN rows too, as x^0 is 1).
                    None => {
                        let rows = self.shape_of(xs)?.0[0];
                        let one = scalar(e, self, 1.0)?;
                        let shape = e.ints(self, &[rows, vectors as i64]);
                        e.op(self, "Expand", &[&one, &shape], vec![])
                    }
                }
            }
            SvmKernel::Rbf { gamma } => {
                // |x - v|^2 = |x|^2 + |v|^2 - 2 x.v, clamped at 0 (rounding), then exp(-gamma d).
                let x2 = x2.ok_or("internal error: RBF without |x|^2")?;
                let v2: Vec<f32> =
                    (0..vectors).map(|v| sv[v * features..(v + 1) * features].iter().map(|s| s * s).sum()).collect();
                let v2 = matrix(e, self, 1, vectors, &v2)?;
                let minus_two = scalar(e, self, -2.0)?;
                let cross = e.op(self, "Mul", &[&dot, &minus_two], vec![])?;
                let d = e.op(self, "Add", &[&cross, &x2], vec![])?;
                let d = e.op(self, "Add", &[&d, &v2], vec![])?;
                let zero = scalar(e, self, 0.0)?;
                let d = e.op(self, "Max", &[&d, &zero], vec![])?;
                let g = scalar(e, self, -gamma)?;
                let scaled = e.op(self, "Mul", &[&d, &g], vec![])?;
                e.op(self, "Exp", &[&scaled], vec![])
            }
        }
    }

    /// `SVMRegressor`: `K(x, sv) @ coefficients + rho` `[N, 1]` (with no support vectors,
    /// `x @ coefficients + rho`); `one_class`: 1 where that is positive, else -1.
    pub(crate) fn svm_regressor(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let post = string(node, "post_transform", "NONE");
        if post != "NONE" {
            return Err(Error::unsupported(format!("SVMRegressor with post_transform {post} (NONE is imported)")));
        }
        let vectors = usize::try_from(int(node, "n_supports", 0)).map_err(|_| "n_supports must not be negative")?;
        let kernel = SvmKernel::of(self, node)?;
        let coefficients = need(float_list(self, node, &["coefficients"])?, "coefficients")?;
        let rho = need(float_list(self, node, &["rho"])?.filter(|r| !r.is_empty()), "rho")?;
        let features = rows_and_features(&self.shape_of(required(node, 0)?)?.0)?.1;
        let count = if vectors == 0 { features as usize } else { vectors };
        if coefficients.len() != count {
            let what = if vectors == 0 { "X's features (no support vectors)" } else { "support vectors" };
            return Err(format!("coefficients has {} values for the {count} {what}", coefficients.len()).into());
        }
        let sv = if vectors > 0 { Some(self.support_vectors(node, vectors, features)?) } else { None };
        if sv.is_some() && self.in_row_bands(block, node, index, vectors as i64)? {
            return Ok(());
        }
        let mut e = Expansion::new(block, node, index);
        let (xs, _, _) = self.rows_as(&mut e, required(node, 0)?, DataType::Float)?;
        let lhs = match sv {
            None => xs.clone(),
            Some(sv) => self.svm_kernel(&mut e, &xs, &sv, (vectors, features as usize), kernel)?,
        };
        let w: Vec<f32> = coefficients.iter().map(|&c| c as f32).collect();
        let w = matrix(&mut e, self, count, 1, &w)?;
        let s = e.op(self, "MatMul", &[&lhs, &w], vec![])?;
        let rho = e.scalar(self, DataType::Float, rho[0] as f32 as f64)?;
        let mut y = e.op(self, "Add", &[&s, &rho], vec![])?;
        if int(node, "one_class", 0) != 0 {
            let zero = e.scalar(self, DataType::Float, 0.0)?;
            let positive = e.op(self, "Greater", &[&y, &zero], vec![])?;
            let (plus, minus) = (e.scalar(self, DataType::Float, 1.0)?, e.scalar(self, DataType::Float, -1.0)?);
            y = e.op(self, "Where", &[&positive, &plus, &minus], vec![])?;
        }
        self.alias(&y, node.output[0].clone())
    }

    /// `SVMClassifier` with support vectors and without probability estimates: see the module.
    pub(crate) fn svm_classifier(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let labels = integer_labels(node, "classlabels_ints")?;
        let post = string(node, "post_transform", "NONE");
        if post != "NONE" {
            return Err(Error::unsupported(format!("SVMClassifier with post_transform {post} (NONE is imported)")));
        }
        if float_list(self, node, &["prob_a"])?.is_some_and(|p| !p.is_empty()) {
            return Err(Error::unsupported(
                "SVMClassifier probability estimates (prob_a, prob_b: libsvm's iterative pairwise coupling); \
                 convert the model without them (scikit-learn's SVC with probability=False)",
            ));
        }
        let per_class = ints(node, "vectors_per_class").unwrap_or_default();
        let classes = labels.len();
        if per_class.is_empty() || per_class.iter().all(|&v| v == 0) {
            return Err(Error::unsupported(
                "an SVMClassifier without support vectors (liblinear mode); linear classifiers convert to \
                 LinearClassifier",
            ));
        }
        if classes < 2 || per_class.len() != classes || per_class.iter().any(|&v| v < 0) {
            return Err(format!(
                "vectors_per_class {per_class:?} must give a count, at least 0, for each of the {classes} classes (at \
                 least two)"
            )
            .into());
        }
        let vectors: usize = per_class.iter().map(|&v| v as usize).sum();
        let kernel = SvmKernel::of(self, node)?;
        let coefficients = need(float_list(self, node, &["coefficients"])?, "coefficients")?;
        if coefficients.len() != (classes - 1) * vectors {
            return Err(format!(
                "coefficients has {} values, not {} ({} classes less one, times {vectors} support vectors)",
                coefficients.len(),
                (classes - 1) * vectors,
                classes
            )
            .into());
        }
        let pairs = classes * (classes - 1) / 2;
        let rho = need(float_list(self, node, &["rho"])?, "rho")?;
        if rho.len() != pairs {
            return Err(format!("rho has {} values for the {pairs} pairs of {classes} classes", rho.len()).into());
        }
        let features = rows_and_features(&self.shape_of(required(node, 0)?)?.0)?.1;
        let sv = self.support_vectors(node, vectors, features)?;
        if self.in_row_bands(block, node, index, vectors.max(pairs) as i64)? {
            return Ok(());
        }
        let mut e = Expansion::new(block, node, index);
        let (xs, _, _) = self.rows_as(&mut e, required(node, 0)?, DataType::Float)?;
        let k = self.svm_kernel(&mut e, &xs, &sv, (vectors, features as usize), kernel)?;
        // Decisions [N, pairs] = K @ W + rho: pair (i, j) weighs class i's vectors by row j - 1
        // of the coefficients and class j's by row i. Votes [N, classes] = positive @ D + base:
        // +1 for i where the decision is positive, else +1 for j.
        let start: Vec<usize> =
            per_class.iter().scan(0usize, |s, &v| Some(std::mem::replace(s, *s + v as usize))).collect();
        let (mut w, mut d, mut base) = (vec![0f32; vectors * pairs], vec![0f32; pairs * classes], vec![0f32; classes]);
        let mut pair = 0;
        for i in 0..classes {
            for j in i + 1..classes {
                for (class, row) in [(i, j - 1), (j, i)] {
                    for v in start[class]..start[class] + per_class[class] as usize {
                        w[v * pairs + pair] = coefficients[row * vectors + v] as f32;
                    }
                }
                d[pair * classes + i] = 1.0;
                d[pair * classes + j] = -1.0;
                base[j] += 1.0;
                pair += 1;
            }
        }
        let w = matrix(&mut e, self, vectors, pairs, &w)?;
        let s = e.op(self, "MatMul", &[&k, &w], vec![])?;
        let rho: Vec<f32> = rho.iter().map(|&r| r as f32).collect();
        let rho = e.constant(self, Folded::from_f32(vec![pairs as i64], &rho))?;
        let s = e.op(self, "Add", &[&s, &rho], vec![])?;
        let zero = e.scalar(self, DataType::Float, 0.0)?;
        let positive = e.op(self, "Greater", &[&s, &zero], vec![])?;
        let positive = e.op(self, "Cast", &[&positive], vec![attr_i("to", DataType::Float as i64)])?;
        let d = matrix(&mut e, self, pairs, classes, &d)?;
        let votes = e.op(self, "MatMul", &[&positive, &d], vec![])?;
        let base = e.constant(self, Folded::from_f32(vec![classes as i64], &base))?;
        let votes = e.op(self, "Add", &[&votes, &base], vec![])?;
        let best = e.op(self, "ArgMax", &[&votes], vec![attr_i("axis", 1), attr_i("keepdims", 0)])?;
        let table = e.constant(self, Folded::from_i64(vec![classes as i64], &labels))?;
        let label = e.op(self, "Gather", &[&table, &best], vec![])?;
        let scores = if classes == 2 {
            let negated = e.op(self, "Neg", &[&s], vec![])?;
            e.op(self, "Concat", &[&negated, &s], vec![attr_i("axis", 1)])?
        } else {
            s
        };
        self.write_classes(node, &label, &scores)
    }
}
