//! Run-time checks: what ONNX calls an error but only the values computed at run time can
//! reveal, reported by the compiled entry point's status instead of a clamped read (a
//! plausible wrong answer) or a trap.
//!
//! - Indices of Gather, GatherElements, GatherND, Scatter, ScatterElements and ScatterND
//!   outside `[-n, n)` of the dimension they index. The kernels still clamp (so no access is
//!   out of bounds), and the status says the result is not to be used.
//! - Integer Div and Mod by zero. The kernels divide by 1 there instead of trapping (and
//!   `INT_MIN / -1` wraps), and the status says so.
//!
//! Constant indices and divisors are checked at import instead (constant indices also in the
//! operators the importer builds).
//!
//! Each check is a small graph of ONNX operators (`crate::expand`): a flag per element, its
//! maximum over the tensor, times the check's code (its position in [`Importer::checks`] plus
//! one). `@main` returns the maximum of all codes as one more result after the model's
//! outputs (`strata.status_checks` names the checks, in code order); the entry point returns
//! it (0: every check passed). Checks are made for the model's own nodes imported into
//! `@main`'s block (the top level, the taken branch of an If whose condition is known at
//! import, every iteration of an unrolled Loop), into the branches of an `scf.if` (each
//! branch yields the maximum of its codes, 0 where it has none, as one more result) and into
//! the bodies of Loops and Scans that stay loops (`scf.for`, `scf.while`: one more carried
//! value, the largest status so far); that result is a status of the enclosing block
//! ([`CheckFrame`]). The operators the importer builds itself (whose indices are in range by
//! construction or clamped on purpose) are not checked.

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{node_name, operand, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::{Block, Location};
use strata_ir::{Error, Val};

/// A block run-time checks are made in, and the status values made there.
#[derive(Debug)]
pub(crate) struct CheckFrame {
    block: *mut std::ffi::c_void,
    pub(crate) statuses: Vec<String>,
}

impl CheckFrame {
    pub(crate) fn of(block: &Block) -> CheckFrame {
        CheckFrame { block: block.to_raw().ptr, statuses: Vec::new() }
    }

    /// Whether this frame is `block`'s.
    pub(crate) fn is(&self, block: &Block) -> bool {
        self.block == block.to_raw().ptr
    }
}

impl Importer<'_> {
    /// Checks what `node` (before it is imported) indexes or divides by: constant indices now
    /// (anywhere, importer-built operators too); for the model's own top-level nodes,
    /// constant divisors now and indices and divisors computed at run time by run-time checks.
    pub(crate) fn check_indices_and_divisors(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
    ) -> Result<(), Error> {
        let feature_extractor = node.domain() == "ai.onnx.ml" && node.op_type() == "ArrayFeatureExtractor";
        if !matches!(node.domain(), "" | "ai.onnx") && !feature_extractor {
            return Ok(());
        }
        let top_level = self.at_check_level(block);
        if let Some((indices, bounds)) = self.indexed(node)? {
            // Gather's import names indices of another type.
            let (_, dtype) = self.shape_of(indices)?;
            if node.op_type() == "Gather" && !matches!(dtype, DataType::Int64 | DataType::Int32) {
                return Ok(());
            }
            if self.folded(indices).is_some() {
                return self.check_constant_indices(indices, &bounds);
            }
            if top_level {
                return self.check_indices(block, node, index, indices, &bounds);
            }
            return Ok(());
        }
        if !top_level || !matches!(node.op_type(), "Div" | "Mod") {
            return Ok(());
        }
        let Some(divisor) = operand(node, 1) else { return Ok(()) };
        let (_, dtype) = self.shape_of(divisor)?;
        if !is_integer(dtype) {
            return Ok(());
        }
        if let Some(constant) = self.folded(divisor) {
            if constant.ints()?.contains(&0) {
                return Err(Error::invalid_input(format!(
                    "integer {} by zero: the constant divisor '{divisor}' holds 0",
                    if node.op_type() == "Div" { "division" } else { "modulo" }
                )));
            }
            return Ok(());
        }
        let mut e = expansion(block, node, index);
        let zero = e.scalar(self, dtype, 0.0)?;
        let bad = e.op(self, "Equal", &[divisor, &zero], vec![])?;
        let what = if node.op_type() == "Div" { "integer division" } else { "integer modulo" };
        self.add_check(&mut e, &bad, format!("{}: {what} by zero (divisor '{divisor}')", describe(node, index)))
    }

    /// For a gather or scatter node, its indices operand and the sizes of the dimensions its
    /// entries index: one for every entry (the `axis`), or one per position of the last axis
    /// (GatherND's and ScatterND's index tuples). None for other nodes, and for tuples of
    /// length 0.
    fn indexed<'n>(&self, node: &'n NodeProto) -> Result<Option<(&'n str, Vec<i64>)>, Error> {
        let (Some(data), Some(indices)) = (operand(node, 0), operand(node, 1)) else { return Ok(None) };
        let bounds = match node.op_type() {
            "Gather" | "GatherElements" | "ScatterElements" | "Scatter" => {
                let (shape, _) = self.shape_of(data)?;
                let axis = crate::shapes::axis(crate::import::int(node, "axis", 0), shape.len() as i64)?;
                vec![shape[axis]]
            }
            // ai.onnx.ml's gather along the last axis (the only ml operator that gets here).
            "ArrayFeatureExtractor" => self.shape_of(data)?.0.last().map(|&n| vec![n]).unwrap_or_default(),
            "GatherND" | "ScatterND" => {
                let ((shape, _), (index_shape, _)) = (self.shape_of(data)?, self.shape_of(indices)?);
                let batch = if node.op_type() == "GatherND" {
                    crate::import::int(node, "batch_dims", 0).max(0) as usize
                } else {
                    0
                };
                let k = index_shape.last().copied().unwrap_or(0).max(0) as usize;
                shape.get(batch..batch + k).map(<[i64]>::to_vec).unwrap_or_default()
            }
            _ => return Ok(None),
        };
        Ok((!bounds.is_empty()).then_some((indices, bounds)))
    }

    /// Checks that the constant `indices` index dimensions of sizes `bounds` (as
    /// [`Importer::indexed`] gives them), negative entries counting from the end: out of
    /// range, they are an error of the model, reported here instead of a clamped read.
    fn check_constant_indices(&self, indices: &str, bounds: &[i64]) -> Result<(), Error> {
        let Some(folded) = self.folded(indices) else { return Ok(()) };
        for (k, &i) in folded.ints()?.iter().enumerate() {
            let (position, bound) =
                if bounds.len() == 1 { (None, bounds[0]) } else { (Some(k % bounds.len()), bounds[k % bounds.len()]) };
            if !(-bound..bound).contains(&i) {
                let at = position.map_or(String::new(), |p| format!(" (position {p} of its index tuple)"));
                return Err(Error::invalid_input(format!(
                    "constant index {i} in '{indices}'{at} is out of range for a dimension of size {bound} (valid: {} to {})",
                    -bound,
                    bound - 1
                )));
            }
        }
        Ok(())
    }

    /// Where the run-time checks stand: their count and the innermost frame's statuses.
    pub(crate) fn check_mark(&self) -> (usize, usize) {
        (self.checks.len(), self.check_frames.last().map_or(0, |frame| frame.statuses.len()))
    }

    /// Forgets the checks made since `mark` (an import attempt that failed and is retried
    /// another way).
    pub(crate) fn rollback_checks(&mut self, (checks, statuses): (usize, usize)) {
        self.checks.truncate(checks);
        if let Some(frame) = self.check_frames.last_mut() {
            frame.statuses.truncate(statuses);
        }
    }

    /// The status of every run-time check of `@main`: the largest code of a failed one, else 0.
    pub(crate) fn status(&mut self, block: &Block, location: Location) -> Result<Val, Error> {
        let statuses = self.check_frames.first().map(|frame| frame.statuses.clone()).unwrap_or_default();
        let status = self.combined_status(block, &statuses, "strata.status".into(), 0)?;
        self.use_value(block, &status, location)
    }

    /// One status of `statuses` (their maximum; a 0 when there are none), made in `block`.
    pub(crate) fn combined_status(
        &mut self,
        block: &Block,
        statuses: &[String],
        prefix: String,
        index: usize,
    ) -> Result<String, Error> {
        let mut e = Expansion::named(block, prefix, index);
        match statuses {
            [] => e.scalar(self, DataType::Int32, 0.0),
            [one] => Ok(one.clone()),
            _ => {
                let statuses: Vec<&str> = statuses.iter().map(String::as_str).collect();
                e.op(self, "Max", &statuses, vec![])
            }
        }
    }

    /// A check that every entry of `indices` indexes a dimension of its bound (`bounds[j]`
    /// for position `j` of the last axis when there are several, as GatherND's tuples).
    fn check_indices(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        indices: &str,
        bounds: &[i64],
    ) -> Result<(), Error> {
        let (_, dtype) = self.shape_of(indices)?;
        if !matches!(dtype, DataType::Int64 | DataType::Int32) {
            return Ok(());
        }
        let mut e = expansion(block, node, index);
        let wide = if dtype == DataType::Int32 {
            e.op(self, "Cast", &[indices], vec![attr_i("to", DataType::Int64 as i64)])?
        } else {
            indices.to_owned()
        };
        let shape = if bounds.len() == 1 { vec![] } else { vec![bounds.len() as i64] };
        let low: Vec<i64> = bounds.iter().map(|b| -b).collect();
        let high: Vec<i64> = bounds.iter().map(|b| b - 1).collect();
        let low = e.constant(self, Folded::from_i64(shape.clone(), &low))?;
        let high = e.constant(self, Folded::from_i64(shape, &high))?;
        let below = e.op(self, "Less", &[&wide, &low], vec![])?;
        let above = e.op(self, "Greater", &[&wide, &high], vec![])?;
        let bad = e.op(self, "Or", &[&below, &above], vec![])?;
        let range = if bounds.len() == 1 {
            format!("[{}, {})", -bounds[0], bounds[0])
        } else {
            format!("the dimensions {bounds:?} (each from -n to n-1)")
        };
        self.add_check(&mut e, &bad, format!("{}: an index in '{indices}' is outside {range}", describe(node, index)))
    }

    /// A check that every entry of the int64 tensor `positions` (which an operator the importer
    /// builds computed from run-time values) lies in `[0, length)`; `what` names them in the
    /// message.
    pub(crate) fn check_positions(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        positions: &str,
        length: i64,
        what: &str,
    ) -> Result<(), Error> {
        let mut e = expansion(block, node, index);
        let low = e.constant(self, Folded::from_i64(vec![], &[0]))?;
        let high = e.constant(self, Folded::from_i64(vec![], &[length - 1]))?;
        let below = e.op(self, "Less", &[positions, &low], vec![])?;
        let above = e.op(self, "Greater", &[positions, &high], vec![])?;
        let bad = e.op(self, "Or", &[&below, &above], vec![])?;
        self.add_check(&mut e, &bad, format!("{}: {what} outside [0, {length})", describe(node, index)))
    }

    /// `OneHotEncoder` with `zeros=0`: a value that is none of the categories (`known` false
    /// there) stops the run. Only the model's own nodes at the level checks are made in can
    /// carry it; elsewhere the node is unsupported rather than silently unchecked.
    pub(crate) fn check_known_categories(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        known: &str,
    ) -> Result<(), Error> {
        if !self.at_check_level(block) {
            return Err(Error::unsupported("OneHotEncoder with zeros=0 inside a subgraph (its run-time check)"));
        }
        let mut e = expansion(block, node, index);
        let bad = e.op(self, "Not", &[known], vec![])?;
        self.add_check(
            &mut e,
            &bad,
            format!("{}: a value that is none of the categories (zeros=0)", describe(node, index)),
        )
    }

    /// Whether a node being imported into `block` is one of the model's own nodes in the
    /// innermost block checks are made in (`CheckFrame`): only those carry run-time checks.
    fn at_check_level(&self, block: &Block) -> bool {
        self.expanding == 0 && self.check_frames.last().is_some_and(|frame| frame.is(block))
    }

    /// Records the check whose failures are the `true`s of the boolean tensor `bad`.
    fn add_check(&mut self, e: &mut Expansion, bad: &str, message: String) -> Result<(), Error> {
        let code = self.checks.len() as i64 + 1;
        debug_assert!(!self.check_frames.is_empty(), "checks are made only inside a check frame");
        let flags = e.op(self, "Cast", &[bad], vec![attr_i("to", DataType::Int32 as i64)])?;
        let any = e.op(self, "ReduceMax", &[&flags], vec![attr_i("keepdims", 0)])?;
        let code_value = e.scalar(self, DataType::Int32, code as f64)?;
        let status = e.op(self, "Mul", &[&any, &code_value], vec![])?;
        // Inside a subgraph's scope the value is known by its scoped name, which outlives it.
        let status = self.resolve(&status).into_owned();
        self.checks.push(message);
        self.check_frames.last_mut().expect("checked by the caller").statuses.push(status);
        Ok(())
    }
}

/// Whether `dtype` is an integer type of 8 to 64 bits, signed or not.
pub(crate) fn is_integer(dtype: DataType) -> bool {
    matches!(
        dtype,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Uint8
            | DataType::Uint16
            | DataType::Uint32
            | DataType::Uint64
    )
}

/// The builder of `node`'s checks, its values named apart from the node's own.
fn expansion<'b>(block: &'b Block<'b>, node: &NodeProto, index: usize) -> Expansion<'b> {
    Expansion::named(block, format!("{}::check", node_name(node, index)), index)
}

/// How a check names its node: `node #3 'embed' (Gather)`.
fn describe(node: &NodeProto, index: usize) -> String {
    format!("node #{index} '{}' ({})", node_name(node, index), node.op_type())
}
