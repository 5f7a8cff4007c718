//! Control flow: subgraphs imported in scopes, `If`, and `Loop` unrolled.
//!
//! A subgraph (a branch, a loop body) is imported node by node in a [`Scope`]: the values it
//! defines get names of their own (`<node>/<branch or iteration>/<name>`) and its inputs and
//! initializers are bound to values of the enclosing graph; names it does not define resolve
//! outwards through the enclosing scopes (so a branch nested in a loop body reads the body's
//! values).
//!
//! - `If` whose condition is a constant after folding and freezing imports only the taken
//!   branch (nested Ifs fold the same way). Otherwise it becomes `scf.if`, each branch imported
//!   into its region, when both branches yield the same static shapes and types.
//! - `Loop` is one loop body where it can be (`crate::loops`). Where it cannot (carried values
//!   that change shape, a body that needs the iteration number as a constant) and its trip
//!   count and condition are known at import time, it is unrolled here, as is a Loop over
//!   constants only (so it folds): each iteration imports the body again, binding the
//!   iteration number and the condition as constants and the loop-carried values to the
//!   previous iteration's results. Scan outputs are stacked along a new leading axis
//!   (Unsqueeze and Concat, which fold when constant). More than [`MAX_ITERATIONS`]
//!   iterations, or more than [`MAX_UNROLLED_NODES`] unrolled nodes in all, is a clean error.

use crate::import::{attribute, node_name, operand, tensor_type, Constant, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, AttributeProto, GraphProto, NodeProto};
use melior::ir::{Block, BlockLike, Location, Region, RegionLike, Type, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use strata_ir::{Error, ErrorKind, Val};

/// The names a subgraph being imported defines, and their names in the importer.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    prefix: String,
    names: BTreeMap<String, String>,
}

impl Importer<'_> {
    /// `name` as the importer knows it: the innermost scope that defines it decides.
    pub(crate) fn resolve<'n>(&self, name: &'n str) -> Cow<'n, str> {
        for scope in self.scopes.iter().rev() {
            if let Some(bound) = scope.names.get(name) {
                return Cow::Owned(bound.clone());
            }
        }
        Cow::Borrowed(name)
    }

    /// The innermost subgraph's prefix (`If_0/then`), outside subgraphs `None`.
    pub(crate) fn scope_prefix(&self) -> Option<String> {
        self.scopes.last().map(|scope| scope.prefix.clone())
    }

    /// `node` with its inputs resolved and its outputs renamed into the innermost scope
    /// (borrowed outside subgraphs).
    pub(crate) fn scoped<'n>(&mut self, node: &'n NodeProto) -> Cow<'n, NodeProto> {
        if self.scopes.is_empty() {
            return Cow::Borrowed(node);
        }
        let mut renamed = node.clone();
        for input in renamed.input.iter_mut().filter(|i| !i.is_empty()) {
            *input = self.resolve(input).into_owned();
        }
        // An expansion's nodes are named after the scoped node they stand for: their outputs
        // are importer names already (renamed again, the expansion's own lookups of them
        // missed: ReduceSumSquare in a Scan body, skl2onnx's k-nearest-neighbours).
        if self.expanding > 0 {
            return Cow::Owned(renamed);
        }
        let scope = self.scopes.last_mut().expect("checked above");
        for output in renamed.output.iter_mut().filter(|o| !o.is_empty()) {
            let bound = format!("{}/{output}", scope.prefix);
            scope.names.insert(output.clone(), bound.clone());
            *output = bound;
        }
        if let Some(name) = renamed.name.as_mut() {
            *name = format!("{}/{name}", scope.prefix);
        }
        Cow::Owned(renamed)
    }

    /// Opens a scope named `prefix` whose `bindings` (subgraph name -> importer name) are
    /// visible to the nodes imported until [`Importer::close_scope`]; the subgraph's
    /// initializers become constants of the scope.
    pub(crate) fn open_scope(
        &mut self,
        prefix: String,
        bindings: BTreeMap<String, String>,
        graph: &GraphProto,
    ) -> Result<(), Error> {
        let mut scope = Scope { prefix, names: bindings };
        for tensor in &graph.initializer {
            let name = format!("{}/{}", scope.prefix, tensor.name());
            let constant = self.constant(tensor)?;
            self.values.insert(name.clone(), Entry::Constant(constant));
            scope.names.insert(tensor.name().to_owned(), name);
        }
        self.scopes.push(scope);
        Ok(())
    }

    /// Closes the innermost scope; the importer's names of `outputs` (subgraph names).
    pub(crate) fn close_scope(&mut self, outputs: &[&str]) -> Vec<String> {
        let names: Vec<String> = outputs.iter().map(|o| self.resolve(o).into_owned()).collect();
        self.scopes.pop();
        names
    }

    /// Imports `graph` into `block` in a scope of its own named `prefix`, its inputs bound by
    /// `bindings` (see [`Importer::open_scope`]); the importer's names of its outputs. The scope
    /// is closed whether or not the import succeeded.
    pub(crate) fn import_scoped(
        &mut self,
        block: &Block,
        prefix: String,
        bindings: BTreeMap<String, String>,
        graph: &GraphProto,
        index: usize,
    ) -> Result<Vec<String>, Error> {
        self.open_scope(prefix, bindings, graph)?;
        let imported = self.import_graph(block, graph, index);
        let outputs: Vec<&str> = graph.output.iter().map(|o| o.name()).collect();
        let results = self.close_scope(&outputs);
        imported.map(|()| results)
    }

    /// Imports every node of `graph` into `block` (in the innermost scope).
    pub(crate) fn import_graph(&mut self, block: &Block, graph: &GraphProto, index: usize) -> Result<(), Error> {
        self.unrolled_nodes += graph.node.len();
        if self.unrolled_nodes > MAX_UNROLLED_NODES {
            return Err(Error::unsupported(format!(
                "importing this subgraph (and those around it) would import more than {MAX_UNROLLED_NODES} nodes"
            )));
        }
        for inner in &graph.node {
            self.node(block, inner, index)?;
        }
        Ok(())
    }

    /// `If`: the taken branch when the condition is a constant, else `scf.if`.
    pub(crate) fn if_node(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let branch = |name: &str| -> Result<GraphProto, Error> {
            attribute(node, name)
                .and_then(|a| a.g.clone())
                .ok_or_else(|| Error::invalid_input(format!("If needs a '{name}' graph attribute")))
        };
        let (then_graph, else_graph) = (branch("then_branch")?, branch("else_branch")?);
        for graph in [&then_graph, &else_graph] {
            if graph.output.len() != node.output.len() {
                return Err(format!(
                    "a branch yields {} values for the If's {} outputs",
                    graph.output.len(),
                    node.output.len()
                )
                .into());
            }
        }
        let condition = operand(node, 0).ok_or_else(|| Error::invalid_input("If needs a condition"))?;
        let prefix = node_name(node, index);
        if let Some(known) = self.folded(condition) {
            let taken = known.ints()?.first().copied().ok_or("the If condition is empty")? != 0;
            let (graph, label) = if taken { (&then_graph, "then") } else { (&else_graph, "else") };
            self.open_scope(format!("{prefix}/{label}"), BTreeMap::new(), graph)?;
            let imported = self.import_graph(block, graph, index);
            let outputs: Vec<&str> = graph.output.iter().map(|o| o.name()).collect();
            if imported.is_ok() {
                self.record_taken_branch(node, graph);
            }
            let results = self.close_scope(&outputs);
            imported?;
            for (result, output) in results.iter().zip(&node.output) {
                if !output.is_empty() {
                    self.alias(result, output.clone())?;
                }
            }
            return Ok(());
        }
        self.runtime_if(block, node, index, condition, [&then_graph, &else_graph], &prefix)
    }

    /// The in-order steps of `graph`, the branch taken by the If `node` at import, read while
    /// its values are in scope: its nodes' steps with its outputs named as the If's (a branch
    /// output that no branch node writes, an outer value, is copied by a step of its own).
    fn record_taken_branch(&mut self, node: &NodeProto, graph: &GraphProto) {
        let Some(first) = node.output.first() else { return };
        let steps = self.branch_steps(node, graph);
        self.taken_branches.insert(first.clone(), steps);
    }

    /// The in-order steps of `graph`, a branch of the If `node`, read while its values are in
    /// scope (see [`Importer::record_taken_branch`]).
    fn branch_steps(&self, node: &NodeProto, graph: &GraphProto) -> Vec<strata_plan::in_order::GraphStep> {
        let mut steps = crate::import::graph_steps(graph, self, &BTreeSet::new());
        for (inner, outer) in graph.output.iter().map(|o| o.name()).zip(&node.output) {
            if outer.is_empty() {
                continue;
            }
            let inner = self.resolve(inner).into_owned();
            let inner = inner.as_str();
            let written = steps.iter_mut().flat_map(|s| &mut s.outputs).find(|(name, _)| name == inner);
            let Some((name, _)) = written else {
                let size = crate::import::activation_bytes(self, inner);
                steps.push(strata_plan::in_order::GraphStep {
                    op: "If".to_owned(),
                    inputs: vec![inner.to_owned()],
                    outputs: vec![(outer.clone(), size)],
                });
                continue;
            };
            *name = outer.clone();
            // Readers inside the branch read the value under its new name.
            for step in &mut steps {
                for input in &mut step.inputs {
                    if input == inner {
                        *input = outer.clone();
                    }
                }
            }
        }
        steps
    }

    /// `If` on a condition computed at run time: `scf.if` with each branch in its region.
    ///
    /// A branch that is invalid for the model's static shapes (an `InvalidInput` error while
    /// importing it: silero-vad's 8 kHz branch given 16 kHz chunks) is what ONNX Runtime
    /// reports when it takes that branch. Where the If can carry run-time checks, such a
    /// branch becomes one: it yields zeros of the other branch's types and a status naming
    /// the branch and its error, so the model compiles and a run that takes the branch fails
    /// with that message. Both branches failing, or any other kind of error, fails the import.
    fn runtime_if(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        condition: &str,
        branches: [&GraphProto; 2],
        prefix: &str,
    ) -> Result<(), Error> {
        let context = self.strata.mlir();
        let location = Location::name(context, prefix, Location::new(context, &self.file, index, 0));
        // The condition as an i1 scalar.
        let flag = self.flag_of(block, condition, location)?.get();
        // Constants first materialised inside a branch live in its region only.
        let unmaterialised = self.unmaterialised_constants();
        let checks_before = self.checks.len();
        // Checks are made in the branches when they are made where the If is (not inside an
        // `scf.for` body, say).
        let in_frame = self.expanding == 0 && self.check_frames.last().is_some_and(|frame| frame.is(block));
        let mut made = Vec::new();
        let mut branch_steps = Vec::new();
        for (graph, label) in branches.iter().zip(["then", "else"]) {
            let (scopes, frames, checks) = (self.scopes.len(), self.check_frames.len(), self.checks.len());
            let inner = Block::new(&[]);
            self.open_scope(format!("{prefix}/{label}"), BTreeMap::new(), graph)?;
            // The branch's own run-time checks (`crate::checks`).
            if in_frame {
                self.check_frames.push(crate::checks::CheckFrame::of(&inner));
            }
            let imported = self.import_graph(&inner, graph, index);
            if imported.is_err() {
                // A failure deep inside may leave nested subgraphs' scopes and frames open.
                self.scopes.truncate(scopes + 1);
                self.check_frames.truncate(frames + usize::from(in_frame));
            }
            let statuses = if in_frame { self.check_frames.pop().expect("pushed above").statuses } else { Vec::new() };
            if imported.is_ok() {
                branch_steps.push(self.branch_steps(node, graph));
            }
            let outputs: Vec<&str> = graph.output.iter().map(|o| o.name()).collect();
            let results = self.close_scope(&outputs);
            let built = imported.and_then(|()| {
                let mut values = Vec::new();
                let mut types = Vec::new();
                for result in &results {
                    types.push(self.shape_of(result)?);
                    values.push(self.use_value(&inner, result, location)?.get());
                }
                Ok((values, types))
            });
            self.forget_materialised(&unmaterialised);
            match built {
                Ok((values, types)) => made.push((inner, Ok(values), statuses, types, label)),
                Err(error) => {
                    // The failed branch's checks never run.
                    self.checks.truncate(checks);
                    made.push((inner, Err(error), Vec::new(), Vec::new(), label));
                }
            }
        }
        let failed: Vec<usize> = (0..2).filter(|&k| made[k].1.is_err()).collect();
        if let &[k] = failed.as_slice() {
            let recoverable = in_frame && made[k].1.as_ref().is_err_and(|e| e.kind == ErrorKind::InvalidInput);
            if recoverable {
                let types = made[1 - k].3.clone();
                let (inner, error, label) = (Block::new(&[]), made[k].1.as_ref().err().cloned(), made[k].4);
                let error = error.expect("the branch failed");
                let (values, status) =
                    self.failing_branch(&inner, &types, node, index, prefix, label, &error, location)?;
                self.forget_materialised(&unmaterialised);
                made[k] = (inner, Ok(values.into_iter().map(Val::get).collect()), vec![status], types, label);
            }
        }
        // The in-order references (`graph_steps`) run the branch that needs more memory: one of
        // them runs, which one only the inputs tell.
        let heavier = branch_steps.into_iter().max_by_key(|steps| strata_plan::in_order::peaks(steps).views_in_place);
        if let (Some(steps), Some(first)) = (heavier, node.output.first()) {
            self.taken_branches.insert(first.clone(), steps);
        }
        let mut yielded: Vec<Vec<(Vec<i64>, DataType)>> = Vec::new();
        let mut branches_made = Vec::new();
        for (inner, values, statuses, types, label) in made {
            branches_made.push((inner, values?, statuses, label));
            yielded.push(types);
        }
        // Where a branch made checks, each yields its status too (the other a 0), and the
        // If's last result is a status of the enclosing block.
        let checked = in_frame && self.checks.len() > checks_before;
        let mut regions = Vec::new();
        for (inner, mut values, statuses, label) in branches_made {
            if checked {
                let status = self.combined_status(&inner, &statuses, format!("{prefix}/{label}::status"), index)?;
                values.push(self.use_value(&inner, &status, location)?.get());
                self.forget_materialised(&unmaterialised);
            }
            inner.append_operation(melior::dialect::scf::r#yield(&values, location));
            let region = Region::new();
            region.append_block(inner);
            regions.push(region);
        }
        if yielded[0] != yielded[1] {
            return Err(Error::unsupported(format!(
                "the branches yield different shapes or types ({:?} and {:?}); a static-shape compiler needs one",
                yielded[0], yielded[1]
            )));
        }
        let mut types: Vec<Type> =
            yielded[0].iter().map(|(s, t)| tensor_type(context, s, *t)).collect::<Result<_, _>>()?;
        if checked {
            types.push(tensor_type(context, &[], DataType::Int32)?);
        }
        let else_region = regions.pop().expect("two regions");
        let then_region = regions.pop().expect("two regions");
        let op = block.append_operation(melior::dialect::scf::r#if(flag, &types, then_region, else_region, location));
        for (k, output) in node.output.iter().enumerate() {
            if output.is_empty() {
                continue;
            }
            let value: Value = op.result(k).map_err(|e| e.to_string())?.into();
            let (shape, dtype) = yielded[0][k].clone();
            self.values.insert(output.clone(), Entry::Value { value: Val::from(value), shape, dtype });
        }
        if checked {
            let value: Value = op.result(yielded[0].len()).map_err(|e| e.to_string())?.into();
            let name = format!("{prefix}::status");
            self.values
                .insert(name.clone(), Entry::Value { value: Val::from(value), shape: vec![], dtype: DataType::Int32 });
            self.check_frames.last_mut().ok_or("an If outside any block checks are made in")?.statuses.push(name);
        }
        Ok(())
    }

    /// The body of a branch that cannot run with the model's shapes: zeros of `types` (the
    /// other branch's results) and, as its status, a new check's code whose message is the
    /// branch's import `error`.
    #[allow(clippy::too_many_arguments)]
    fn failing_branch(
        &mut self,
        inner: &Block,
        types: &[(Vec<i64>, DataType)],
        node: &NodeProto,
        index: usize,
        prefix: &str,
        label: &str,
        error: &Error,
        location: Location,
    ) -> Result<(Vec<Val>, String), Error> {
        let mut e = crate::expand::Expansion::named(inner, format!("{prefix}/{label}::unreachable"), index);
        let mut values = Vec::new();
        for (shape, dtype) in types {
            let zero = e.scalar(self, *dtype, 0.0)?;
            let dims = e.constant(self, crate::fold::Folded::from_i64(vec![shape.len() as i64], shape))?;
            let zeros = e.op(self, "Expand", &[&zero, &dims], vec![])?;
            values.push(self.use_value(inner, &zeros, location)?);
        }
        self.checks.push(format!(
            "node #{index} '{}' (If): its {label} branch was taken, which cannot run with this model's input shapes ({error}); \
             ONNX Runtime stops there too. If the condition depends on an input that is fixed in use (a sample rate, a \
             mode), pass its value with --freeze-input and only the branch it takes is compiled",
            node_name(node, index)
        ));
        let status = e.scalar(self, DataType::Int32, self.checks.len() as f64)?;
        Ok((values, status))
    }
}

/// The most iterations a Loop is unrolled to.
pub(crate) const MAX_ITERATIONS: i64 = 4096;

/// The most body nodes all unrolled Loops of a model import together (nested loops multiply).
pub(crate) const MAX_UNROLLED_NODES: usize = 1 << 18;

impl Importer<'_> {
    /// A Loop unrolled at import (its body checked against its inputs by `loop_node`).
    pub(crate) fn unrolled_loop(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let body =
            attribute(node, "body").and_then(|a| a.g.as_ref()).ok_or("Loop needs a 'body' graph attribute")?.clone();
        let carried_in: Vec<String> = node.input.iter().skip(2).cloned().collect();
        let carried_count = carried_in.len();
        let scan_count = body.output.len() - 1 - carried_count;
        let trips = match operand(node, 0) {
            Some(name) => Some(self.folded(name).ok_or_else(|| Error::unsupported(format!("the trip count '{name}' is computed at run time (a Loop is unrolled at import: freeze the inputs it depends on with --freeze-input)")))?.ints()?.first().copied().ok_or("the trip count is empty")?),
            None => None,
        };
        let mut running = match operand(node, 1) {
            Some(name) => {
                self.folded(name)
                    .ok_or_else(|| {
                        Error::unsupported(format!(
                            "the loop condition '{name}' is computed at run time (a Loop is unrolled at import)"
                        ))
                    })?
                    .ints()?
                    .first()
                    .copied()
                    .ok_or("the loop condition is empty")?
                    != 0
            }
            None => true,
        };
        let limit = match trips {
            Some(n) if n > MAX_ITERATIONS => {
                return Err(Error::unsupported(format!(
                    "a Loop of {n} iterations (unrolled at import: at most {MAX_ITERATIONS})"
                )))
            }
            Some(n) => n.max(0),
            None if operand(node, 1).is_none() => {
                return Err("a Loop without trip count or condition never ends".into())
            }
            None => MAX_ITERATIONS + 1,
        };
        let prefix = node_name(node, index);
        let mut carried = carried_in;
        let mut scans: Vec<Vec<String>> = vec![Vec::new(); scan_count];
        let mut iteration = 0;
        while running && iteration < limit {
            if iteration == MAX_ITERATIONS {
                return Err(Error::unsupported(format!(
                    "the Loop's condition still holds after {MAX_ITERATIONS} iterations (unrolled at import)"
                )));
            }
            let scope = format!("{prefix}/{iteration}");
            let mut names: BTreeMap<String, String> = BTreeMap::new();
            let bound = |name: &str| format!("{scope}/{name}");
            // The iteration number and the condition, as constants.
            let number = bound(body.input[0].name());
            self.values.insert(
                number.clone(),
                Entry::Constant(Constant {
                    shape: vec![],
                    dtype: DataType::Int64,
                    bytes: iteration.to_le_bytes().to_vec(),
                    value: None,
                }),
            );
            names.insert(body.input[0].name().to_owned(), number);
            let condition = bound(body.input[1].name());
            self.values.insert(
                condition.clone(),
                Entry::Constant(Constant { shape: vec![], dtype: DataType::Bool, bytes: vec![1], value: None }),
            );
            names.insert(body.input[1].name().to_owned(), condition);
            for (k, input) in body.input.iter().skip(2).enumerate() {
                let name = bound(input.name());
                self.alias(&carried[k], name.clone())?;
                names.insert(input.name().to_owned(), name);
            }
            let results = self.import_scoped(block, scope.clone(), names, &body, index)?;
            let result = |k: usize| -> Result<String, Error> { Ok(results[k].clone()) };
            let condition = result(0)?;
            running = self
                .folded(&condition)
                .ok_or_else(|| {
                    Error::unsupported(format!(
                        "the Loop's condition '{}' is computed at run time (a Loop is unrolled at import)",
                        body.output[0].name()
                    ))
                })?
                .ints()?
                .first()
                .copied()
                .unwrap_or(0)
                != 0;
            carried = (0..carried_count).map(|k| result(1 + k)).collect::<Result<_, _>>()?;
            for (j, scan) in scans.iter_mut().enumerate() {
                scan.push(result(1 + carried_count + j)?);
            }
            iteration += 1;
        }
        for (k, value) in carried.iter().enumerate() {
            if let Some(output) = node.output.get(k).filter(|o| !o.is_empty()) {
                self.alias(value, output.clone())?;
            }
        }
        for (j, scan) in scans.iter().enumerate() {
            let Some(output) = node.output.get(carried_count + j).filter(|o| !o.is_empty()) else { continue };
            if scan.is_empty() {
                return Err(Error::unsupported(format!(
                    "scan output '{output}' of a Loop that runs no iteration (its element shape is unknown)"
                )));
            }
            // Each iteration's value gets a leading unit axis; the values are concatenated.
            let axes = format!("{prefix}/scan{j}/axes");
            self.values.insert(
                axes.clone(),
                Entry::Constant(Constant {
                    shape: vec![1],
                    dtype: DataType::Int64,
                    bytes: 0i64.to_le_bytes().to_vec(),
                    value: None,
                }),
            );
            let mut lifted = Vec::new();
            for (i, value) in scan.iter().enumerate() {
                let name = format!("{prefix}/scan{j}/{i}");
                let unsqueeze = NodeProto {
                    op_type: Some("Unsqueeze".into()),
                    input: vec![value.clone(), axes.clone()],
                    output: vec![name.clone()],
                    name: Some(name.clone()),
                    ..NodeProto::default()
                };
                self.node(block, &unsqueeze, index)?;
                lifted.push(name);
            }
            let axis = AttributeProto {
                name: Some("axis".into()),
                i: Some(0),
                r#type: Some(crate::onnx::attribute_proto::AttributeType::Int as i32),
                ..AttributeProto::default()
            };
            let concat = NodeProto {
                op_type: Some("Concat".into()),
                input: lifted,
                output: vec![output.clone()],
                name: Some(format!("{prefix}/scan{j}")),
                attribute: vec![axis],
                ..NodeProto::default()
            };
            self.node(block, &concat, index)?;
        }
        Ok(())
    }
}
