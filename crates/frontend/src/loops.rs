//! Loops as structured control flow: `Loop` as `scf.for` or `scf.while`, `Scan` as `scf.for`.
//!
//! The body is imported once, into the region of the loop op, with the loop-carried values as
//! block arguments of static shape. So the compiled loop is as long as its body, whatever the
//! trip count, and the buffers of one iteration are planned once (bufferization turns the
//! iteration's tensors into buffers that `buffer-loop-hoisting` lifts out of the loop, into
//! the arena).
//!
//! - `Loop` whose condition stays `true` (absent, a constant, and the body's a constant) is
//!   `scf.for` from 0 to the trip count, which may be computed at run time. Scan outputs are
//!   stacked by `tensor.insert_slice` into a loop-carried tensor; they need a trip count known
//!   at import (it is their length).
//! - `Loop` whose condition is computed at run time is `scf.while` carrying the iteration
//!   number and the condition; its scan outputs would have a run-time length, which is an error.
//! - A `Loop` whose carried values change shape between iterations, or whose body needs the
//!   iteration number as a constant (a `Slice` at `i`, say), cannot be one loop body: it is
//!   unrolled at import when its trip count and condition are constants
//!   ([`Importer::unrolled_loop`]). A Loop over constants only is unrolled too, so it folds.
//! - `Scan` (opsets 9+) is `scf.for` over the scan axis: each iteration extracts the scan
//!   inputs' slices at the iteration's position (reversed when its direction says so) and
//!   inserts the scan outputs' elements. Opset 8's batched `Scan` is one such `Scan` per batch
//!   entry, stacked.

use crate::conv::append1;
use crate::expand::{attr_i, attr_ints, Expansion};
use crate::import::{attribute, int, ints, node_name, operand, tensor_type, Constant, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, GraphProto, NodeProto};
use crate::shapes;
use melior::dialect::arith;
use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute};
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Block, BlockLike, Identifier, Location, Region, RegionLike, Type, Value, ValueLike};
use std::collections::BTreeMap;
use strata_ir::ods::DYNAMIC;
use strata_ir::{Error, Val};

/// A body imported into a detached block whose first argument is the iteration index.
struct Body<'c> {
    block: Block<'c>,
    /// The importer's names of the body's outputs.
    results: Vec<String>,
    /// The status values of the body's run-time checks (`crate::checks`; none when the loop
    /// is not where checks are made).
    statuses: Vec<String>,
}

/// Binds a body's inputs (subgraph name -> importer name) given the body's block.
type Binder<'b, 'c> = dyn FnMut(&mut Importer<'c>, &Block<'c>, &mut BTreeMap<String, String>) -> Result<(), Error> + 'b;

/// A static shape and element type.
type Shaped = (Vec<i64>, DataType);

impl<'c> Importer<'c> {
    /// `Loop`: one structured loop when its body allows, unrolled where it must be.
    pub(crate) fn loop_node(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let body = attribute(node, "body").and_then(|a| a.g.as_ref()).ok_or("Loop needs a 'body' graph attribute")?;
        let carried = node.input.len().saturating_sub(2);
        if body.input.len() != 2 + carried || body.output.len() <= carried {
            return Err(Error::invalid_input(format!(
                "the body takes {} inputs and gives {} outputs; a Loop with {carried} carried values needs {} inputs (iteration, condition, carried) and at least {} outputs",
                body.input.len(),
                body.output.len(),
                2 + carried,
                1 + carried
            )));
        }
        let known = |importer: &Self, k: usize| -> Result<Option<i64>, Error> {
            match operand(node, k).and_then(|name| importer.folded(name)) {
                Some(folded) => Ok(Some(folded.ints()?.first().copied().ok_or("an empty trip count or condition")?)),
                None => Ok(None),
            }
        };
        let trips = known(self, 0)?;
        let condition = if operand(node, 1).is_none() { Some(1) } else { known(self, 1)? };
        let constant_bounds = (operand(node, 0).is_none() || trips.is_some()) && condition.is_some();
        // No iteration at all, or a loop over constants: unrolling is exact and folds.
        let carried_constant = node.input.iter().skip(2).all(|name| name.is_empty() || self.folded(name).is_some());
        let unmaterialised = self.unmaterialised_constants();
        let nodes = self.unrolled_nodes;
        let mark = self.check_mark();
        // A failed attempt leaves dead ops behind (removed later), but neither its checks nor
        // its constants' materialisations.
        let rollback = |importer: &mut Self| {
            importer.forget_materialised(&unmaterialised);
            importer.unrolled_nodes = nodes;
            importer.rollback_checks(mark);
        };
        if constant_bounds && (condition == Some(0) || trips.is_some_and(|n| n <= 0) || carried_constant) {
            // Constant carried values with a condition the body computes from run-time values
            // (an accumulator from 0 while `i < n`) cannot unroll: one loop body then.
            return match self.unrolled_loop(block, node, index) {
                Ok(()) => Ok(()),
                Err(unrolled) => {
                    rollback(self);
                    self.structured_loop(block, node, index, trips, condition == Some(1)).map_err(|error| {
                        Error::unsupported(format!(
                            "the Loop cannot be unrolled ({unrolled}) and is not one loop body either ({error})"
                        ))
                    })
                }
            };
        }
        match self.structured_loop(block, node, index, trips, condition == Some(1)) {
            Ok(()) => Ok(()),
            Err(error) if constant_bounds => {
                rollback(self);
                self.unrolled_loop(block, node, index).map_err(|unrolled| {
                    Error::unsupported(format!(
                        "the Loop is not one loop body ({error}) and cannot be unrolled either ({unrolled})"
                    ))
                })
            }
            Err(error) => Err(error),
        }
    }

    /// Constants not yet materialised: those first materialised inside a region must be
    /// materialised again outside it.
    pub(crate) fn unmaterialised_constants(&self) -> Vec<String> {
        self.values
            .iter()
            .filter(|(_, e)| matches!(e, Entry::Constant(Constant { value: None, .. })))
            .map(|(k, _)| k.clone())
            .collect()
    }

    pub(crate) fn forget_materialised(&mut self, names: &[String]) {
        for name in names {
            if let Some(Entry::Constant(c)) = self.values.get_mut(name) {
                c.value = None;
            }
        }
    }

    /// Imports `graph` into a new block whose arguments are an index and `carried`; `bind`
    /// binds the graph's inputs (in the scope's map) given the block. With `checked`, the
    /// body's nodes get run-time checks.
    #[allow(clippy::too_many_arguments)]
    fn import_body(
        &mut self,
        graph: &GraphProto,
        scope: String,
        carried: &[Shaped],
        index: usize,
        location: Location<'c>,
        checked: bool,
        bind: &mut Binder<'_, 'c>,
    ) -> Result<Body<'c>, Error> {
        let context = self.strata.mlir();
        let mut arguments = vec![(Type::index(context), location)];
        for (shape, dtype) in carried {
            arguments.push((tensor_type(context, shape, *dtype)?, location));
        }
        let block = Block::new(&arguments);
        let mut names = BTreeMap::new();
        bind(self, &block, &mut names)?;
        self.open_scope(scope, names, graph)?;
        if checked {
            self.check_frames.push(crate::checks::CheckFrame::of(&block));
        }
        let imported = self.import_graph(&block, graph, index);
        let statuses = if checked { self.check_frames.pop().expect("pushed above").statuses } else { Vec::new() };
        let outputs: Vec<&str> = graph.output.iter().map(|o| o.name()).collect();
        let results = self.close_scope(&outputs);
        imported?;
        Ok(Body { block, results, statuses })
    }

    /// Whether the nodes of a loop in `block` get run-time checks: the loop is where checks
    /// are made (`crate::checks`).
    fn checks_here(&self, block: &Block) -> bool {
        self.expanding == 0 && self.check_frames.last().is_some_and(|frame| frame.is(block))
    }

    /// When a loop body made run-time checks (`statuses`): one more carried value, the
    /// largest status of the iterations so far, added as `inner`'s next argument. Returns its
    /// initial value (a 0, in `block`), what the body yields for it, and its type.
    fn carry_status(
        &mut self,
        block: &Block,
        inner: &Block<'c>,
        statuses: &[String],
        prefix: &str,
        index: usize,
        location: Location<'c>,
    ) -> Result<Option<(Val, Val, Type<'c>)>, Error> {
        if statuses.is_empty() {
            return Ok(None);
        }
        let ty = tensor_type(self.strata.mlir(), &[], DataType::Int32)?;
        let zero = self.combined_status(block, &[], format!("{prefix}::status_init"), index)?;
        let init = self.use_value(block, &zero, location)?;
        let so_far: Value = inner.add_argument(ty, location);
        let name = format!("{prefix}::status_so_far");
        self.values
            .insert(name.clone(), Entry::Value { value: Val::from(so_far), shape: vec![], dtype: DataType::Int32 });
        let all: Vec<String> = std::iter::once(name).chain(statuses.iter().cloned()).collect();
        let status = self.combined_status(inner, &all, format!("{prefix}::status"), index)?;
        let status = self.use_value(inner, &status, location)?.get();
        // Written into the carried tensor, as the carried values are (bufferization in place).
        let yielded = into_destination(inner, status, so_far, location)?;
        Ok(Some((init, Val::from(yielded), ty)))
    }

    /// Records result `k` of the loop `op` (its carried status) as a run-time status of the
    /// block the loop is in.
    fn loop_status(&mut self, op: &melior::ir::operation::OperationRef, k: usize, prefix: &str) -> Result<(), Error> {
        let value: Value = op.result(k).map_err(|e| e.to_string())?.into();
        let name = format!("{prefix}::status_result");
        self.values
            .insert(name.clone(), Entry::Value { value: Val::from(value), shape: vec![], dtype: DataType::Int32 });
        self.check_frames.last_mut().ok_or("a checked loop outside any block checks are made in")?.statuses.push(name);
        Ok(())
    }

    /// Binds `name` (a subgraph input) to the block argument `k` in the scope `scope`.
    fn bind_argument(
        &mut self,
        block: &Block<'c>,
        k: usize,
        name: &str,
        (shape, dtype): &Shaped,
        scope: &str,
        names: &mut BTreeMap<String, String>,
    ) -> Result<(), Error> {
        let bound = format!("{scope}/{name}");
        let value: Value = block.argument(k).map_err(|e| e.to_string())?.into();
        self.values
            .insert(bound.clone(), Entry::Value { value: Val::from(value), shape: shape.clone(), dtype: *dtype });
        names.insert(name.to_owned(), bound);
        Ok(())
    }

    fn structured_loop(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        trips: Option<i64>,
        always: bool,
    ) -> Result<(), Error> {
        let context = self.strata.mlir();
        let prefix = node_name(node, index);
        let location = Location::name(context, &prefix, Location::new(context, &self.file, index, 0));
        let body = attribute(node, "body").and_then(|a| a.g.as_ref()).ok_or("Loop needs a 'body' graph attribute")?;
        let carried_in: Vec<&str> = node.input.iter().skip(2).map(String::as_str).collect();
        if carried_in.iter().any(|name| name.is_empty()) {
            return Err("a Loop's carried values cannot be omitted".into());
        }
        let carried: Vec<Shaped> = carried_in.iter().map(|name| self.shape_of(name)).collect::<Result<_, _>>()?;
        let count = carried.len();
        let scope = format!("{prefix}/body");
        let body_inputs: Vec<String> = body.input.iter().map(|i| i.name().to_owned()).collect();
        let unmaterialised = self.unmaterialised_constants();
        let checked = self.checks_here(block);
        let imported =
            self.import_body(body, scope.clone(), &carried, index, location, checked, &mut |importer, inner, names| {
                // The iteration number: the index as a rank-0 int64 tensor.
                let iv: Value = inner.argument(0).map_err(|e| e.to_string())?.into();
                let number =
                    inner.append_operation(arith::index_cast(iv, IntegerType::new(context, 64).into(), location));
                let number = inner.append_operation(
                    OperationBuilder::new("tensor.from_elements", location)
                        .add_operands(&[number.result(0).map_err(|e| e.to_string())?.into()])
                        .add_results(&[tensor_type(context, &[], DataType::Int64)?])
                        .build()
                        .map_err(|e| e.to_string())?,
                );
                let name = format!("{scope}/{}", body_inputs[0]);
                let value: Value = number.result(0).map_err(|e| e.to_string())?.into();
                importer
                    .values
                    .insert(name.clone(), Entry::Value { value: value.into(), shape: vec![], dtype: DataType::Int64 });
                names.insert(body_inputs[0].clone(), name);
                // The condition: the body only runs while it holds.
                let name = format!("{scope}/{}", body_inputs[1]);
                importer.values.insert(
                    name.clone(),
                    Entry::Constant(Constant { shape: vec![], dtype: DataType::Bool, bytes: vec![1], value: None }),
                );
                names.insert(body_inputs[1].clone(), name);
                for (k, input) in body_inputs.iter().skip(2).enumerate() {
                    importer.bind_argument(inner, k + 1, input, &carried[k], &scope, names)?;
                }
                Ok(())
            });
        self.forget_materialised(&unmaterialised);
        let Body { block: inner, results, statuses } = imported?;
        for (k, shaped) in carried.iter().enumerate() {
            let out = self.shape_of(&results[1 + k])?;
            if &out != shaped {
                return Err(Error::unsupported(format!(
                    "carried value '{}' changes from {} to {} in one iteration (such a Loop is unrolled at import, which needs its trip count and condition known then: freeze the inputs they depend on with --freeze-input)",
                    body.output[1 + k].name(),
                    describe(shaped),
                    describe(&out)
                )));
            }
        }
        let stays_true =
            self.folded(&results[0]).map(|f| f.ints().map(|v| v.first().copied().unwrap_or(0) != 0)).transpose()?
                == Some(true);
        let scans: Vec<Shaped> = results[1 + count..].iter().map(|r| self.shape_of(r)).collect::<Result<_, _>>()?;
        let index_type = Type::index(context);
        let bound = match (operand(node, 0), trips) {
            (Some(_), Some(n)) => Some(constant_index(block, n, location)),
            (Some(name), None) => Some(self.index_of(block, name, location)?.get()),
            (None, _) => None,
        };
        let inits: Vec<Value> = carried_in
            .iter()
            .map(|name| Ok(self.use_value(block, name, location)?.get()))
            .collect::<Result<_, Error>>()?;
        let mut types: Vec<Type> =
            carried.iter().map(|(s, t)| tensor_type(context, s, *t)).collect::<Result<_, _>>()?;
        if always && stays_true {
            let bound = bound.ok_or_else(|| {
                Error::invalid_input("a Loop without trip count whose condition is always true never ends")
            })?;
            let mut init_values = inits;
            let mut yielded: Vec<Value> = Vec::new();
            for (k, result) in results[1..=count].iter().enumerate() {
                let value = self.use_value(&inner, result, location)?.get();
                // One iteration is inlined by canonicalization: no carried buffer to write.
                yielded.push(if trips == Some(1) {
                    value
                } else {
                    into_destination(&inner, value, arg(&inner, 1 + k)?, location)?
                });
            }
            let iv: Value = inner.argument(0).map_err(|e| e.to_string())?.into();
            for (j, (shape, dtype)) in scans.iter().enumerate() {
                let length = trips.ok_or_else(|| {
                    Error::unsupported(format!(
                        "scan output '{}' of a Loop whose trip count is computed at run time has a run-time length (freeze the inputs the trip count depends on with --freeze-input)",
                        body.output[1 + count + j].name()
                    ))
                })?;
                let stacked: Vec<i64> = std::iter::once(length).chain(shape.iter().copied()).collect();
                let ty = tensor_type(context, &stacked, *dtype)?;
                init_values.push(empty(block, ty, location)?);
                let accumulator = inner.add_argument(ty, location);
                let element = self.use_value(&inner, &results[1 + count + j], location)?.get();
                yielded.push(insert_slice(&inner, element, accumulator, 0, iv, &stacked, location)?);
                types.push(ty);
            }
            let status = self.carry_status(block, &inner, &statuses, &prefix, index, location)?;
            if let Some((init, status, ty)) = status {
                init_values.push(init.get());
                yielded.push(status.get());
                types.push(ty);
            }
            inner.append_operation(melior::dialect::scf::r#yield(&yielded, location));
            let op = append_for(block, bound, init_values, &types, inner, location)?;
            if !statuses.is_empty() {
                self.loop_status(&op, types.len() - 1, &prefix)?;
            }
            let shapes: Vec<Shaped> = carried
                .iter()
                .cloned()
                .chain(
                    scans
                        .iter()
                        .map(|(s, t)| (std::iter::once(trips.unwrap_or(0)).chain(s.iter().copied()).collect(), *t)),
                )
                .collect();
            return self.bind_results(node, op, 0, &shapes);
        }
        if !scans.is_empty() {
            return Err(Error::unsupported(format!(
                "scan output '{}' of a Loop whose condition is computed at run time has a run-time length",
                body.output[1 + count].name()
            )));
        }
        // scf.while over (iteration, carried..., condition): the before region tests the
        // condition (and the trip count) and forwards every value to the body unchanged.
        let i1: Type = IntegerType::new(context, 1).into();
        // The body's carried status (after the carried values, before the condition).
        let status = self.carry_status(block, &inner, &statuses, &prefix, index, location)?;
        let with_status = usize::from(status.is_some());
        let condition = match operand(node, 1) {
            Some(name) => self.flag_of(block, name, location)?.get(),
            None => append1(block, arith::constant(context, IntegerAttribute::new(i1, 1).into(), location)),
        };
        let mut all_types = vec![index_type];
        all_types.extend(types.iter().copied());
        all_types.extend(status.as_ref().map(|(_, _, ty)| *ty));
        all_types.push(i1);
        let before = Block::new(&all_types.iter().map(|t| (*t, location)).collect::<Vec<_>>());
        let mut go = arg(&before, 1 + count + with_status)?;
        if let Some(bound) = bound {
            let below =
                append1(&before, arith::cmpi(context, arith::CmpiPredicate::Slt, arg(&before, 0)?, bound, location));
            go = append1(&before, arith::andi(go, below, location));
        }
        let forwarded: Vec<Value> = (0..all_types.len()).map(|k| arg(&before, k)).collect::<Result<_, _>>()?;
        before.append_operation(
            OperationBuilder::new("scf.condition", location)
                .add_operands(&[go])
                .add_operands(&forwarded)
                .build()
                .map_err(|e| e.to_string())?,
        );
        inner.add_argument(i1, location);
        let next = append1(&inner, arith::addi(arg(&inner, 0)?, constant_index(&inner, 1, location), location));
        let mut yielded = vec![next];
        for (k, result) in results[1..=count].iter().enumerate() {
            let value = self.use_value(&inner, result, location)?.get();
            yielded.push(into_destination(&inner, value, arg(&inner, 1 + k)?, location)?);
        }
        yielded.extend(status.as_ref().map(|(_, status, _)| status.get()));
        yielded.push(self.flag_of(&inner, &results[0], location)?.get());
        inner.append_operation(melior::dialect::scf::r#yield(&yielded, location));
        let (before_region, after_region) = (Region::new(), Region::new());
        before_region.append_block(before);
        after_region.append_block(inner);
        let zero = constant_index(block, 0, location);
        let operands: Vec<Value> = std::iter::once(zero)
            .chain(inits)
            .chain(status.as_ref().map(|(init, _, _)| init.get()))
            .chain(std::iter::once(condition))
            .collect();
        let op = block.append_operation(
            OperationBuilder::new("scf.while", location)
                .add_operands(&operands)
                .add_results(&all_types)
                .add_regions([before_region, after_region])
                .build()
                .map_err(|e| e.to_string())?,
        );
        if with_status == 1 {
            self.loop_status(&op, 1 + count, &prefix)?;
        }
        self.bind_results(node, op, 1, &carried)
    }

    /// Binds the node's outputs to the op's results from `first` on.
    fn bind_results(
        &mut self,
        node: &NodeProto,
        op: melior::ir::operation::OperationRef<'_, '_>,
        first: usize,
        shapes: &[Shaped],
    ) -> Result<(), Error> {
        for (k, (shape, dtype)) in shapes.iter().enumerate() {
            let Some(output) = node.output.get(k).filter(|o| !o.is_empty()) else { continue };
            let value: Value = op.result(first + k).map_err(|e| e.to_string())?.into();
            self.values
                .insert(output.clone(), Entry::Value { value: value.into(), shape: shape.clone(), dtype: *dtype });
        }
        Ok(())
    }

    /// The one-element integer tensor `name` as an `index`.
    fn index_of(&mut self, block: &Block, name: &str, location: Location<'c>) -> Result<Val, Error> {
        let context = self.strata.mlir();
        let scalar = self.scalar_of(block, name, location)?;
        Ok(append1(block, arith::index_cast(scalar.get(), Type::index(context), location)).into())
    }

    /// The one-element BOOL tensor `name` (a condition) as an `i1`.
    pub(crate) fn flag_of(&mut self, block: &Block, name: &str, location: Location<'c>) -> Result<Val, Error> {
        let (_, dtype) = self.shape_of(name)?;
        if dtype != DataType::Bool {
            return Err(format!("the condition '{name}' must be BOOL, got {}", dtype.as_str_name()).into());
        }
        self.scalar_of(block, name, location)
    }

    /// The one element of tensor `name`, extracted.
    fn scalar_of(&mut self, block: &Block, name: &str, location: Location<'c>) -> Result<Val, Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(name)?;
        if shape.iter().product::<i64>() != 1 {
            return Err(format!("'{name}' must hold one value, it has shape {shape:?}").into());
        }
        let value = self.use_value(block, name, location)?;
        let value = if shape.is_empty() { value } else { self.reshape_value(block, value, &[], dtype, location)? };
        let element = crate::tensor::element(context, dtype)?;
        let op = block.append_operation(
            OperationBuilder::new("tensor.extract", location)
                .add_operands(&[value.get()])
                .add_results(&[element])
                .build()
                .map_err(|e| e.to_string())?,
        );
        let value: Value = op.result(0).map_err(|e| e.to_string())?.into();
        Ok(value.into())
    }

    /// `Scan`: opset 9+ as `scf.for` over the scan axis; opset 8 per batch entry.
    pub(crate) fn scan(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        if self.opset < 9 {
            return self.batched_scan(block, node, index);
        }
        self.scan_over(block, node, index)
    }

    /// `Scan` of opset 9+.
    fn scan_over(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let context = self.strata.mlir();
        let prefix = node_name(node, index);
        let location = Location::name(context, &prefix, Location::new(context, &self.file, index, 0));
        let body = attribute(node, "body").and_then(|a| a.g.as_ref()).ok_or("Scan needs a 'body' graph attribute")?;
        let scanned = int(node, "num_scan_inputs", -1);
        if scanned < 1 || scanned as usize > node.input.len() {
            return Err(Error::invalid_input(format!(
                "num_scan_inputs is {scanned}; the Scan has {} inputs",
                node.input.len()
            )));
        }
        let scanned = scanned as usize;
        let states = node.input.len() - scanned;
        let outputs =
            body.output.len().checked_sub(states).ok_or("the body yields fewer values than the Scan's states")?;
        if body.input.len() != node.input.len() || node.output.len() > body.output.len() {
            return Err(Error::invalid_input(format!(
                "the body takes {} inputs and yields {}; the Scan has {} inputs and {} outputs",
                body.input.len(),
                body.output.len(),
                node.input.len(),
                node.output.len()
            )));
        }
        let per = |name: &str, count: usize| -> Result<Vec<i64>, Error> {
            let values = ints(node, name).unwrap_or_else(|| vec![0; count]);
            if values.len() != count {
                return Err(Error::invalid_input(format!("{name} has {} entries for {count} values", values.len())));
            }
            Ok(values)
        };
        let (input_axes, input_directions) = (per("scan_input_axes", scanned)?, per("scan_input_directions", scanned)?);
        let (output_axes, output_directions) =
            (per("scan_output_axes", outputs)?, per("scan_output_directions", outputs)?);
        let state_types: Vec<Shaped> =
            node.input[..states].iter().map(|name| self.shape_of(name)).collect::<Result<_, _>>()?;
        // The scan inputs, their axes, and the common length.
        let mut sequences: Vec<(String, Shaped, usize, bool)> = Vec::new();
        let mut length = None;
        for (k, name) in node.input[states..].iter().enumerate() {
            let (shape, dtype) = self.shape_of(name)?;
            let axis = shapes::axis(input_axes[k], shape.len() as i64).map_err(|e| e.context("scan_input_axes"))?;
            if length.is_some_and(|l| l != shape[axis]) {
                return Err(Error::invalid_input(format!(
                    "scan input '{name}' has {} elements along its axis, the first has {}",
                    shape[axis],
                    length.unwrap_or(0)
                )));
            }
            length = Some(shape[axis]);
            sequences.push((name.clone(), (shape, dtype), axis, input_directions[k] != 0));
        }
        let length = length.ok_or("a Scan needs a scan input")?;
        if length < 1 {
            return Err(Error::unsupported("a Scan over 0 elements (its scan outputs' element shapes are unknown)"));
        }
        let scope = format!("{prefix}/body");
        let body_inputs: Vec<String> = body.input.iter().map(|i| i.name().to_owned()).collect();
        let unmaterialised = self.unmaterialised_constants();
        // The scan inputs are read outside the region: materialise them first.
        let sources: Vec<Value> = sequences
            .iter()
            .map(|(name, ..)| Ok(self.use_value(block, name, location)?.get()))
            .collect::<Result<_, Error>>()?;
        let checked = self.checks_here(block);
        let imported = self.import_body(
            body,
            scope.clone(),
            &state_types,
            index,
            location,
            checked,
            &mut |importer, inner, names| {
                for (k, input) in body_inputs.iter().take(states).enumerate() {
                    importer.bind_argument(inner, k + 1, input, &state_types[k], &scope, names)?;
                }
                let iv: Value = inner.argument(0).map_err(|e| e.to_string())?.into();
                let last = constant_index(inner, length - 1, location);
                let reversed = append1(inner, arith::subi(last, iv, location));
                for (k, (_, (shape, dtype), axis, reverse)) in sequences.iter().enumerate() {
                    let position = if *reverse { reversed } else { iv };
                    let element: Vec<i64> =
                        shape.iter().enumerate().filter(|&(d, _)| d != *axis).map(|(_, &n)| n).collect();
                    let value = extract_slice(inner, sources[k], position, *axis, shape, &element, *dtype, location)?;
                    let name = format!("{scope}/{}", body_inputs[states + k]);
                    importer
                        .values
                        .insert(name.clone(), Entry::Value { value: value.into(), shape: element, dtype: *dtype });
                    names.insert(body_inputs[states + k].clone(), name);
                }
                Ok(())
            },
        );
        self.forget_materialised(&unmaterialised);
        let Body { block: inner, results, statuses } = imported?;
        for (k, shaped) in state_types.iter().enumerate() {
            let out = self.shape_of(&results[k])?;
            if &out != shaped {
                return Err(Error::unsupported(format!(
                    "state '{}' changes from {} to {} in one iteration",
                    body.output[k].name(),
                    describe(shaped),
                    describe(&out)
                )));
            }
        }
        let iv: Value = inner.argument(0).map_err(|e| e.to_string())?.into();
        let last = constant_index(&inner, length - 1, location);
        let reversed = append1(&inner, arith::subi(last, iv, location));
        let mut inits: Vec<Value> = node.input[..states]
            .iter()
            .map(|name| Ok(self.use_value(block, name, location)?.get()))
            .collect::<Result<_, Error>>()?;
        let mut yielded: Vec<Value> = Vec::new();
        for (k, result) in results[..states].iter().enumerate() {
            let value = self.use_value(&inner, result, location)?.get();
            // One iteration is inlined by canonicalization: no carried buffer to write.
            yielded.push(if length == 1 {
                value
            } else {
                into_destination(&inner, value, arg(&inner, 1 + k)?, location)?
            });
        }
        let mut shapes: Vec<Shaped> = state_types.clone();
        for j in 0..outputs {
            let (shape, dtype) = self.shape_of(&results[states + j])?;
            let axis =
                shapes::axis(output_axes[j], shape.len() as i64 + 1).map_err(|e| e.context("scan_output_axes"))?;
            let mut stacked = shape.clone();
            stacked.insert(axis, length);
            let ty = tensor_type(context, &stacked, dtype)?;
            inits.push(empty(block, ty, location)?);
            let accumulator = inner.add_argument(ty, location);
            let element = self.use_value(&inner, &results[states + j], location)?.get();
            let position = if output_directions[j] != 0 { reversed } else { iv };
            yielded.push(insert_slice(&inner, element, accumulator, axis, position, &stacked, location)?);
            shapes.push((stacked, dtype));
        }
        let mut types: Vec<Type> = shapes.iter().map(|(s, t)| tensor_type(context, s, *t)).collect::<Result<_, _>>()?;
        let status = self.carry_status(block, &inner, &statuses, &prefix, index, location)?;
        if let Some((init, status, ty)) = status {
            inits.push(init.get());
            yielded.push(status.get());
            types.push(ty);
        }
        inner.append_operation(melior::dialect::scf::r#yield(&yielded, location));
        let bound = constant_index(block, length, location);
        let op = append_for(block, bound, inits, &types, inner, location)?;
        if !statuses.is_empty() {
            self.loop_status(&op, shapes.len(), &prefix)?;
        }
        self.bind_results(node, op, 0, &shapes)
    }

    /// Opset 8's `Scan`: a batch axis first, then the scan axis; per batch entry, a `Scan` of
    /// opset 9 over the entry's slices, the results stacked along the batch axis again.
    fn batched_scan(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let inputs: Vec<&str> = node.input.iter().skip(1).map(String::as_str).collect();
        let scanned = int(node, "num_scan_inputs", -1);
        if scanned < 1 || scanned as usize > inputs.len() {
            return Err(Error::invalid_input(format!(
                "num_scan_inputs is {scanned}; the Scan has {} inputs",
                inputs.len()
            )));
        }
        let (first, _) = self.shape_of(inputs[inputs.len() - 1])?;
        let (batch, steps) = match first[..] {
            [batch, steps, ..] => (batch, steps),
            _ => return Err(Error::invalid_input("opset 8 Scan inputs need a batch axis and a scan axis")),
        };
        if let Some(lengths) = operand(node, 0) {
            match self.folded(lengths) {
                Some(known) if known.ints()?.iter().all(|&n| n == steps) => {}
                _ => {
                    return Err(Error::unsupported(format!(
                        "sequence_lens '{lengths}' is not a constant equal to the scan axis ({steps}); only full-length sequences are supported"
                    )))
                }
            }
        }
        let directions = ints(node, "directions").unwrap_or_else(|| vec![0; scanned as usize]);
        let mut expansion = Expansion::new(block, node, index);
        let axes = expansion.ints(self, &[0]);
        let mut per_output: Vec<Vec<String>> = vec![Vec::new(); node.output.len()];
        for b in 0..batch {
            let at = expansion.ints(self, &[b]);
            let mut entry = Vec::new();
            for input in &inputs {
                let row = expansion.op(self, "Gather", &[input, &at], vec![attr_i("axis", 0)])?;
                entry.push(expansion.op(self, "Squeeze", &[&row, &axes], vec![])?);
            }
            let mut inner = node.clone();
            inner.input = entry;
            inner.output =
                (0..node.output.len()).map(|k| format!("{}::batch{b}:{k}", node_name(node, index))).collect();
            inner.attribute.retain(|a| a.name() != "directions");
            inner.attribute.push(attr_ints("scan_input_directions", &directions));
            self.scan_over(block, &inner, index)?;
            for (k, result) in inner.output.iter().enumerate() {
                per_output[k].push(expansion.op(self, "Unsqueeze", &[result, &axes], vec![])?);
            }
        }
        for (k, output) in node.output.iter().enumerate() {
            if output.is_empty() {
                continue;
            }
            let parts: Vec<&str> = per_output[k].iter().map(String::as_str).collect();
            let stacked = expansion.op(self, "Concat", &parts, vec![attr_i("axis", 0)])?;
            self.alias(&stacked, output.clone())?;
        }
        Ok(())
    }
}

/// `value` written into `destination` (a loop's carried buffer), so that the loop's yield
/// is the carried buffer itself and bufferization updates it in place.
fn into_destination<'c, 'a>(
    block: &'a Block<'c>,
    value: Value<'c, '_>,
    destination: Value<'c, '_>,
    location: Location<'c>,
) -> Result<Value<'c, 'a>, Error> {
    let op = OperationBuilder::new("bufferization.materialize_in_destination", location)
        .add_operands(&[value, destination])
        .add_results(&[destination.r#type()])
        .build()
        .map_err(|e| e.to_string())?;
    Ok(append1(block, op))
}

/// `scf.for` from 0 to `bound` by 1 over `body` (its arguments: the index, then one per
/// init), yielding `types`, appended to `block`.
fn append_for<'c, 'a>(
    block: &'a Block<'c>,
    bound: Value<'c, '_>,
    inits: Vec<Value<'c, '_>>,
    types: &[Type<'c>],
    body: Block<'c>,
    location: Location<'c>,
) -> Result<melior::ir::operation::OperationRef<'c, 'a>, Error> {
    let (zero, one) = (constant_index(block, 0, location), constant_index(block, 1, location));
    let region = Region::new();
    region.append_block(body);
    let operands: Vec<Value> = [zero, bound, one].into_iter().chain(inits).collect();
    let op = OperationBuilder::new("scf.for", location)
        .add_operands(&operands)
        .add_results(types)
        .add_regions([region])
        .build()
        .map_err(|e| e.to_string())?;
    Ok(block.append_operation(op))
}

/// `[2, 3] FLOAT`.
fn describe((shape, dtype): &Shaped) -> String {
    format!("{shape:?} {}", dtype.as_str_name())
}

fn arg<'c, 'a>(block: &'a Block<'c>, k: usize) -> Result<Value<'c, 'a>, Error> {
    Ok(block.argument(k).map_err(|e| e.to_string())?.into())
}

fn constant_index<'c, 'a>(block: &'a Block<'c>, value: i64, location: Location<'c>) -> Value<'c, 'a> {
    let context = location.context();
    let context = unsafe { context.to_ref() };
    let attribute = IntegerAttribute::new(Type::index(context), value);
    append1(block, arith::constant(context, attribute.into(), location))
}

fn empty<'c, 'a>(block: &'a Block<'c>, ty: Type<'c>, location: Location<'c>) -> Result<Value<'c, 'a>, Error> {
    let op = OperationBuilder::new("tensor.empty", location).add_results(&[ty]).build().map_err(|e| e.to_string())?;
    Ok(append1(block, op))
}

fn slice_attributes<'c>(
    context: &'c melior::Context,
    rank: usize,
    axis: usize,
    full: &[i64],
) -> Vec<(Identifier<'c>, Attribute<'c>)> {
    let offsets: Vec<i64> = (0..rank).map(|d| if d == axis { DYNAMIC } else { 0 }).collect();
    let sizes: Vec<i64> = (0..rank).map(|d| if d == axis { 1 } else { full[d] }).collect();
    vec![
        (Identifier::new(context, "static_offsets"), DenseI64ArrayAttribute::new(context, &offsets).into()),
        (Identifier::new(context, "static_sizes"), DenseI64ArrayAttribute::new(context, &sizes).into()),
        (Identifier::new(context, "static_strides"), DenseI64ArrayAttribute::new(context, &vec![1; rank]).into()),
    ]
}

/// `source[.., position, ..]` along `axis`, the axis dropped.
#[allow(clippy::too_many_arguments)]
fn extract_slice<'c, 'a>(
    block: &'a Block<'c>,
    source: Value<'c, '_>,
    position: Value<'c, '_>,
    axis: usize,
    full: &[i64],
    element: &[i64],
    dtype: DataType,
    location: Location<'c>,
) -> Result<Value<'c, 'a>, Error> {
    // `to_ref` borrows the `ContextRef`: it must outlive `context` (a temporary would dangle).
    let context_ref = location.context();
    let context = unsafe { context_ref.to_ref() };
    let mut attributes = slice_attributes(context, full.len(), axis, full);
    attributes.push((
        Identifier::new(context, "operandSegmentSizes"),
        DenseI32ArrayAttribute::new(context, &[1, 1, 0, 0]).into(),
    ));
    let op = OperationBuilder::new("tensor.extract_slice", location)
        .add_operands(&[source, position])
        .add_attributes(&attributes)
        .add_results(&[tensor_type(context, element, dtype)?])
        .build()
        .map_err(|e| e.to_string())?;
    Ok(append1(block, op))
}

/// `dest` with `element` inserted at `position` along `axis` (the element lacks that axis).
fn insert_slice<'c, 'a>(
    block: &'a Block<'c>,
    element: Value<'c, '_>,
    dest: Value<'c, '_>,
    axis: usize,
    position: Value<'c, '_>,
    full: &[i64],
    location: Location<'c>,
) -> Result<Value<'c, 'a>, Error> {
    // `to_ref` borrows the `ContextRef`: it must outlive `context` (a temporary would dangle).
    let context_ref = location.context();
    let context = unsafe { context_ref.to_ref() };
    let mut attributes = slice_attributes(context, full.len(), axis, full);
    attributes.push((
        Identifier::new(context, "operandSegmentSizes"),
        DenseI32ArrayAttribute::new(context, &[1, 1, 1, 0, 0]).into(),
    ));
    let op = OperationBuilder::new("tensor.insert_slice", location)
        .add_operands(&[element, dest, position])
        .add_attributes(&attributes)
        .add_results(&[dest.r#type()])
        .build()
        .map_err(|e| e.to_string())?;
    Ok(append1(block, op))
}
