//! The `ai.onnx.ml` operators that are not trees: the linear models (`LinearClassifier`,
//! `LinearRegressor`: a MatMul by the coefficients transposed at import), `Normalizer`,
//! `Imputer`, `OneHotEncoder`, `Scaler`, `Binarizer` and `ArrayFeatureExtractor`, each
//! expanded into default-domain ops.
//! Where ONNX Runtime and ONNX's reference differ, Strata follows ONNX Runtime (see each).

use super::{check_post, float_list, integer_labels, need, string};
use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, ints, required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// `Binarizer`: 1 where `x > threshold`, else 0, in `x`'s type.
    pub(crate) fn binarizer(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (_, dtype) = self.shape_of(x)?;
        let threshold = attribute(node, "threshold").map_or(0.0, |a| a.f() as f64);
        let mut e = Expansion::new(block, node, index);
        let limit = e.scalar(self, dtype, threshold)?;
        let above = e.op(self, "Greater", &[x, &limit], vec![])?;
        let y = e.op(self, "Cast", &[&above], vec![attr_i("to", dtype as i64)])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `Scaler`: `(x - offset) * scale` per feature (the last axis; one value applies to every
    /// feature), in float whatever the input's type.
    pub(crate) fn scaler(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let features = *shape.last().ok_or("the input must have at least one axis")?;
        let mut e = Expansion::new(block, node, index);
        let mut y = x.to_owned();
        if dtype != DataType::Float {
            y = e.op(self, "Cast", &[&y], vec![attr_i("to", DataType::Float as i64)])?;
        }
        let floats = |name: &str| -> Result<Vec<f32>, Error> {
            Ok(float_list(self, node, &[name])?.unwrap_or_default().iter().map(|&v| v as f32).collect())
        };
        let (offset, scale) = (floats("offset")?, floats("scale")?);
        for (name, op, values) in [("offset", "Sub", &offset), ("scale", "Mul", &scale)] {
            let shape = match values.len() {
                0 => continue,
                1 => vec![],
                n if n as i64 == features => vec![features],
                n => {
                    return Err(
                        format!("{name} has {n} values for {features} features (one, or one per feature)").into()
                    )
                }
            };
            let c = e.constant(self, Folded::from_f32(shape, values))?;
            y = e.op(self, op, &[&y, &c], vec![])?;
        }
        // A tree ensemble reading the scaled rows may compare the input instead (`unscale`).
        if dtype == DataType::Float {
            self.scalers.insert(node.output[0].clone(), super::Scaled { input: x.to_owned(), offset, scale });
        }
        self.alias(&y, node.output[0].clone())
    }

    /// `ArrayFeatureExtractor`: the elements of `x`'s last axis at the (flattened) indices; a
    /// 1-D `x` gives one row, as ONNX Runtime does.
    pub(crate) fn array_feature_extractor(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
    ) -> Result<(), Error> {
        let (x, indices) = (required(node, 0)?, required(node, 1)?);
        let (shape, _) = self.shape_of(x)?;
        let (index_shape, _) = self.shape_of(indices)?;
        let count = crate::shapes::numel(&index_shape)?;
        if shape.is_empty() {
            return Err("the input must have at least one axis".into());
        }
        let mut e = Expansion::new(block, node, index);
        let flat_shape = e.ints(self, &[-1]);
        let flat = e.op(self, "Reshape", &[indices, &flat_shape], vec![])?;
        let picked = e.op(self, "Gather", &[x, &flat], vec![attr_i("axis", -1)])?;
        let mut out: Vec<i64> = if shape.len() == 1 { vec![1] } else { shape[..shape.len() - 1].to_vec() };
        out.push(count);
        let out = e.ints(self, &out);
        let y = e.op(self, "Reshape", &[&picked, &out], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `x @ coefficients^T + intercepts`: the linear models' scores `[N, outputs]`, the
    /// coefficients one row of `features` per output.
    fn linear_scores(
        &mut self,
        e: &mut Expansion,
        node: &NodeProto,
        xs: &str,
        features: i64,
        outputs: Option<usize>,
    ) -> Result<(String, usize), Error> {
        let coefficients = need(float_list(self, node, &["coefficients"])?, "coefficients")?;
        if features == 0 || coefficients.is_empty() || coefficients.len() % features as usize != 0 {
            return Err(format!(
                "coefficients has {} values, not a multiple of X's {features} features",
                coefficients.len()
            )
            .into());
        }
        let count = coefficients.len() / features as usize;
        if let Some(expected) = outputs.filter(|&o| o != count) {
            return Err(format!("coefficients has {count} rows of {features} for {expected} outputs").into());
        }
        // Transposed once at import: [features, outputs].
        let mut transposed = vec![0f32; coefficients.len()];
        for (k, &c) in coefficients.iter().enumerate() {
            transposed[(k % features as usize) * count + k / features as usize] = c as f32;
        }
        let w = e.constant(self, Folded::from_f32(vec![features, count as i64], &transposed))?;
        let mut y = e.op(self, "MatMul", &[xs, &w], vec![])?;
        let intercepts = float_list(self, node, &["intercepts"])?.unwrap_or_default();
        if !intercepts.is_empty() {
            if intercepts.len() != count && intercepts.len() != 1 {
                return Err(format!("intercepts has {} values for {count} outputs", intercepts.len()).into());
            }
            let values: Vec<f32> = intercepts.iter().map(|&v| v as f32).collect();
            let b = e.constant(self, Folded::from_f32(vec![values.len() as i64], &values))?;
            y = e.op(self, "Add", &[&y, &b], vec![])?;
        }
        Ok((y, count))
    }

    /// `LinearRegressor`: `x @ coefficients^T + intercepts`, `targets` outputs (post_transform
    /// `NONE`).
    pub(crate) fn linear_regressor(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let post = string(node, "post_transform", "NONE");
        if post != "NONE" {
            return Err(Error::unsupported(format!("LinearRegressor with post_transform {post} (NONE is imported)")));
        }
        let targets =
            usize::try_from(int(node, "targets", 1)).ok().filter(|&t| t > 0).ok_or("targets must be positive")?;
        let mut e = Expansion::new(block, node, index);
        let (xs, _, features) = self.rows_as(&mut e, required(node, 0)?, DataType::Float)?;
        let (y, _) = self.linear_scores(&mut e, node, &xs, features, Some(targets))?;
        self.alias(&y, node.output[0].clone())
    }

    /// `LinearClassifier`: scores `x @ coefficients^T + intercepts`, post-transformed, labels
    /// the highest score's class; one row of coefficients for two classes as ONNX Runtime runs
    /// it (below).
    pub(crate) fn linear_classifier(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let labels = integer_labels(node, "classlabels_ints")?;
        let post = string(node, "post_transform", "NONE");
        check_post(&post)?;
        let mut e = Expansion::new(block, node, index);
        let (xs, _, features) = self.rows_as(&mut e, required(node, 0)?, DataType::Float)?;
        let (mut scores, count) = self.linear_scores(&mut e, node, &xs, features, None)?;
        let table = e.constant(self, Folded::from_i64(vec![labels.len() as i64], &labels))?;
        if count == 1 && labels.len() == 2 {
            // One score for two classes, as ONNX Runtime writes it: the second class where it is
            // positive; scores `[1 - p, p]`, `p` the score or its logistic (`SOFTMAX` as `NONE`).
            let label = self.label_above(&mut e, &scores, 0.0, &table)?;
            let p = if post == "LOGISTIC" { e.op(self, "Sigmoid", &[&scores], vec![])? } else { scores };
            let one = e.scalar(self, DataType::Float, 1.0)?;
            let rest = e.op(self, "Sub", &[&one, &p], vec![])?;
            let z = e.op(self, "Concat", &[&rest, &p], vec![attr_i("axis", 1)])?;
            return self.write_classes(node, &label, &z);
        } else if count != labels.len() {
            return Err(format!("coefficients has {count} rows for {} class labels", labels.len()).into());
        }
        if count == 1 && labels.len() == 1 {
            return Err(Error::unsupported("a LinearClassifier with one class label"));
        }
        scores = self.post_transform(&mut e, &post, &scores)?;
        let best = e.op(self, "ArgMax", &[&scores], vec![attr_i("axis", 1), attr_i("keepdims", 0)])?;
        let label = e.op(self, "Gather", &[&table, &best], vec![])?;
        self.write_classes(node, &label, &scores)
    }

    /// `Normalizer`, as ONNX Runtime runs it: each row divided by its largest value (`MAX`;
    /// the specification's `X / max(X)`, a row whose maximum is 0 left as it is), the sum of its
    /// magnitudes (`L1`) or its Euclidean norm (`L2`; both at least 1e-30); float output.
    pub(crate) fn normalizer(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let norm = string(node, "norm", "MAX");
        let reduce = match norm.as_str() {
            "MAX" => "ReduceMax",
            "L1" => "ReduceSum",
            "L2" => "ReduceSumSquare",
            other => return Err(format!("unknown norm '{other}' (MAX, L1 or L2)").into()),
        };
        let mut e = Expansion::new(block, node, index);
        let (xs, _, _) = self.rows_as(&mut e, required(node, 0)?, DataType::Float)?;
        let magnitude = if norm == "L1" { e.op(self, "Abs", &[&xs], vec![])? } else { xs.clone() };
        let axes = e.ints(self, &[1]);
        let mut size = e.op(self, reduce, &[&magnitude, &axes], vec![attr_i("keepdims", 1)])?;
        if norm == "L2" {
            size = e.op(self, "Sqrt", &[&size], vec![])?;
        }
        let size = if norm == "MAX" {
            let (zero, one) = (e.scalar(self, DataType::Float, 0.0)?, e.scalar(self, DataType::Float, 1.0)?);
            let none = e.op(self, "Equal", &[&size, &zero], vec![])?;
            e.op(self, "Where", &[&none, &one, &size], vec![])?
        } else {
            let floor = e.scalar(self, DataType::Float, 1e-30)?;
            e.op(self, "Max", &[&size, &floor], vec![])?
        };
        let y = e.op(self, "Div", &[&xs, &size], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `Imputer`: each feature's (last axis) missing values, NaN or `replaced_value_*`, replaced
    /// by its `imputed_value_*` (one value for every feature, or one each).
    pub(crate) fn imputer(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let features = *shape.last().ok_or("the input must have at least one axis")?;
        let (values, replaced) =
            match (float_list(self, node, &["imputed_value_floats"])?, ints(node, "imputed_value_int64s")) {
                (Some(f), _) if !f.is_empty() => {
                    (f, attribute(node, "replaced_value_float").map_or(0.0, |a| a.f() as f64))
                }
                (_, Some(i)) if !i.is_empty() => {
                    (i.iter().map(|&v| v as f64).collect(), int(node, "replaced_value_int64", 0) as f64)
                }
                _ => return Err("neither imputed_value_floats nor imputed_value_int64s is given".into()),
            };
        let shape_of_values = match values.len() {
            1 => vec![],
            n if n as i64 == features => vec![features],
            n => return Err(format!("{n} imputed values for {features} features (one, or one per feature)").into()),
        };
        let mut e = Expansion::new(block, node, index);
        let fill = e.constant(self, crate::fold::from_f64(shape_of_values, dtype, &values)?)?;
        let missing = if replaced.is_nan() {
            e.op(self, "IsNaN", &[x], vec![])?
        } else {
            let value = e.scalar(self, dtype, replaced)?;
            e.op(self, "Equal", &[x, &value], vec![])?
        };
        let y = e.op(self, "Where", &[&missing, &fill, x], vec![])?;
        self.alias(&y, node.output[0].clone())
    }

    /// `OneHotEncoder` over integer categories: `[.., categories]` floats, 1 where the value is
    /// the category; a value of none of them is all zeros (`zeros=1`) or stops the run
    /// (`zeros=0`, the default).
    pub(crate) fn one_hot_encoder(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        if attribute(node, "cats_strings").is_some_and(|a| !a.strings.is_empty()) {
            return Err(Error::unsupported(
                "string categories (cats_strings): Strata has no string tensors; integer categories (cats_int64s) \
                 are imported",
            ));
        }
        let cats = need(ints(node, "cats_int64s").filter(|c| !c.is_empty()), "cats_int64s")?;
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let mut e = Expansion::new(block, node, index);
        let mut xs = x.to_owned();
        if dtype != DataType::Int64 {
            xs = e.op(self, "Cast", &[&xs], vec![attr_i("to", DataType::Int64 as i64)])?;
        }
        let mut column = vec![1; shape.len()];
        column.push(cats.len() as i64);
        let categories = e.constant(self, Folded::from_i64(column, &cats))?;
        let at = e.ints(self, &[-1]);
        let wide = e.op(self, "Unsqueeze", &[&xs, &at], vec![])?;
        let hit = e.op(self, "Equal", &[&wide, &categories], vec![])?;
        let y = e.op(self, "Cast", &[&hit], vec![attr_i("to", DataType::Float as i64)])?;
        if int(node, "zeros", 1) == 0 {
            let axes = e.ints(self, &[-1]);
            let any = e.op(self, "ReduceMax", &[&y, &axes], vec![attr_i("keepdims", 0)])?;
            let zero = e.scalar(self, DataType::Float, 0.0)?;
            let known = e.op(self, "Greater", &[&any, &zero], vec![])?;
            self.check_known_categories(block, node, index, &known)?;
        }
        self.alias(&y, node.output[0].clone())
    }
}
