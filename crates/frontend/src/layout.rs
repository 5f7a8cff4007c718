//! Layout, selection and reduction operators of the importer: Concat (a chain of binary
//! `sg.concat`), Split (one `sg.slice` per output, folded on constants), the Reduce family,
//! comparisons, Not and Where, and Expand, Tile and Pad.

use crate::import::{attribute, int, ints, operand, required, tensor_type, Constant, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use crate::shapes;
use melior::ir::{Block, BlockLike, Location, Value};
use strata_dialect_sg as sg;
use strata_ir::Error;

impl Importer<'_> {
    /// ONNX Concat of run-time values: a left-to-right chain of `sg.concat`.
    pub(crate) fn concat_values(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let names: Vec<&str> = node.input.iter().map(String::as_str).filter(|n| !n.is_empty()).collect();
        let (mut shape, dtype) = self.shape_of(names.first().ok_or("Concat needs an input")?)?;
        let axis = crate::shapes::axis(
            attribute(node, "axis").map(|a| a.i()).ok_or("Concat needs an axis")?,
            shape.len() as i64,
        )? as i64;
        let mut acc = self.use_value(block, names[0], location)?;
        for name in &names[1..] {
            let (other, other_type) = self.shape_of(name)?;
            if other_type != dtype
                || other.len() != shape.len()
                || (0..shape.len()).any(|d| d != axis as usize && other[d] != shape[d])
            {
                return Err(format!("input '{name}' {other:?} does not match {shape:?} outside axis {axis}").into());
            }
            shape[axis as usize] += other[axis as usize];
            let lhs = acc.get();
            let rhs = self.use_value(block, name, location)?.get();
            let op = sg::Concat::build(context, location, lhs, rhs, axis, tensor_type(context, &shape, dtype)?);
            let value: Value = block.append_operation(op).result(0).expect("one result").into();
            acc = value.into();
        }
        self.values.insert(node.output[0].clone(), Entry::Value { value: acc, shape, dtype });
        Ok(())
    }

    /// ONNX Split: one `sg.slice` per output (folded when the input is a constant).
    pub(crate) fn split(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let axis = crate::shapes::axis(int(node, "axis", 0), shape.len() as i64)? as i64;
        let dim = shape[axis as usize];
        let outputs = node.output.len() as i64;
        let sizes = match operand(node, 1) {
            Some(name) => self.constant_ints(name)?,
            None => match ints(node, "split") {
                Some(sizes) => sizes,
                None => {
                    let n = int(node, "num_outputs", outputs);
                    if n != outputs {
                        return Err(format!("num_outputs {n} differs from the {outputs} outputs of the node").into());
                    }
                    let chunk = (dim + n - 1) / n.max(1);
                    (0..n).map(|k| chunk.min(dim - k * chunk).max(0)).collect()
                }
            },
        };
        let total = sizes.iter().try_fold(0i64, |sum, &s| if s < 0 { None } else { sum.checked_add(s) });
        if sizes.len() as i64 != outputs || total != Some(dim) {
            return Err(format!("split sizes {sizes:?} do not divide dimension {dim} into {outputs} outputs").into());
        }
        let mut start = 0;
        for (k, &size) in sizes.iter().enumerate() {
            let mut starts = vec![0; shape.len()];
            let mut ends = shape.clone();
            starts[axis as usize] = start;
            ends[axis as usize] = start + size;
            let steps = vec![1; shape.len()];
            let mut out = shape.clone();
            out[axis as usize] = size;
            start += size;
            let output = node.output[k].clone();
            if output.is_empty() {
                continue;
            }
            if let Some(data) = self.folded(required(node, 0)?) {
                self.insert_computed(output, crate::fold::slice(&data, &starts, &ends, &steps)?)?;
                continue;
            }
            let x = (self.use_value(block, required(node, 0)?, location)?).get();
            let op = block.append_operation(sg::Slice::build(
                context,
                location,
                x,
                &starts,
                &ends,
                &steps,
                tensor_type(context, &out, dtype)?,
            ));
            let value: Value = op.result(0).expect("one result").into();
            self.values.insert(output, Entry::Value { value: value.into(), shape: out, dtype });
        }
        Ok(())
    }

    /// ONNX ReduceSum/Mean/Max/Min/Prod/L2 with axes from the attribute or a constant input.
    pub(crate) fn reduce(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let rank = shape.len() as i64;
        let given = match operand(node, 1) {
            Some(name) => Some(self.constant_ints(name)?),
            None => ints(node, "axes"),
        };
        let keep = int(node, "keepdims", 1);
        let mut axes: Vec<i64> = match given.filter(|a| !a.is_empty()) {
            Some(axes) => axes.iter().map(|&a| if a < 0 { a + rank } else { a }).collect(),
            None if int(node, "noop_with_empty_axes", 0) != 0 => {
                let entry = match self.values.get(required(node, 0)?).expect("checked by shape_of") {
                    Entry::Value { value, shape, dtype } => {
                        Entry::Value { value: *value, shape: shape.clone(), dtype: *dtype }
                    }
                    Entry::Constant(c) => Entry::Constant(Constant {
                        shape: c.shape.clone(),
                        dtype: c.dtype,
                        bytes: c.bytes.clone(),
                        value: c.value,
                    }),
                };
                self.values.insert(node.output[0].clone(), entry);
                return Ok(());
            }
            None => (0..rank).collect(),
        };
        axes.sort_unstable();
        axes.dedup();
        if axes.iter().any(|a| !(0..rank).contains(a)) {
            return Err(format!("axes {axes:?} are out of range for rank {rank}").into());
        }
        let out: Vec<i64> = (0..shape.len())
            .filter_map(|d| {
                if !axes.contains(&(d as i64)) {
                    Some(shape[d])
                } else if keep != 0 {
                    Some(1)
                } else {
                    None
                }
            })
            .collect();
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let (ty, keep) = (tensor_type(context, &out, dtype)?, i64::from(keep != 0));
        let op = match node.op_type() {
            "ReduceSum" => sg::ReduceSum::build(context, location, x, &axes, keep, ty),
            "ReduceMean" => sg::ReduceMean::build(context, location, x, &axes, keep, ty),
            "ReduceMax" => sg::ReduceMax::build(context, location, x, &axes, keep, ty),
            "ReduceMin" => sg::ReduceMin::build(context, location, x, &axes, keep, ty),
            "ReduceProd" => sg::ReduceProd::build(context, location, x, &axes, keep, ty),
            _ => sg::ReduceL2::build(context, location, x, &axes, keep, ty),
        };
        let op = block.append_operation(op);
        self.define(node, op, out, dtype);
        Ok(())
    }

    /// Expand (broadcast to a constant shape), Tile (constant repeats) and Pad (constant
    /// pads; modes constant, reflect, edge).
    pub(crate) fn replicate(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let rank = shape.len();
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let (op, out) = match node.op_type() {
            "Expand" => {
                let target = self.constant_ints(required(node, 1)?)?;
                let out = sg::verify::broadcast(&shape, &target)
                    .ok_or_else(|| format!("{shape:?} does not broadcast with {target:?}"))?;
                (sg::Expand::build(context, location, x, tensor_type(context, &out, dtype)?), out)
            }
            "Tile" => {
                let repeats = self.constant_ints(required(node, 1)?)?;
                if repeats.len() != rank || repeats.iter().any(|&r| r < 1) {
                    return Err(format!("repeats {repeats:?} must be {rank} positive values").into());
                }
                let out: Vec<i64> =
                    shape.iter().zip(&repeats).map(|(d, r)| d.checked_mul(*r).unwrap_or(i64::MAX)).collect();
                crate::shapes::numel(&out)?;
                (sg::Tile::build(context, location, x, &repeats, tensor_type(context, &out, dtype)?), out)
            }
            _ => {
                let given = match operand(node, 1) {
                    Some(name) => self.constant_ints(name)?,
                    None => ints(node, "pads").ok_or("Pad needs pads")?,
                };
                let axes: Vec<usize> = match operand(node, 3) {
                    Some(name) => self
                        .constant_ints(name)?
                        .iter()
                        .map(|&a| (if a < 0 { a + rank as i64 } else { a }) as usize)
                        .collect(),
                    None => (0..rank).collect(),
                };
                if given.len() != 2 * axes.len() || axes.iter().any(|&a| a >= rank) {
                    return Err(format!("pads {given:?} do not match axes {axes:?} of rank {rank}").into());
                }
                if given.iter().any(|&p| p < 0) {
                    return Err(Error::unsupported(format!("negative pads {given:?} (cropping)")));
                }
                let mut pads = vec![0; 2 * rank];
                for (k, &a) in axes.iter().enumerate() {
                    pads[a] = given[k];
                    pads[a + rank] = given[k + axes.len()];
                }
                let mode = match attribute(node, "mode").map(|a| String::from_utf8_lossy(a.s()).into_owned()).as_deref()
                {
                    None | Some("constant") => 0,
                    Some("reflect") => 1,
                    Some("edge") => 2,
                    Some("wrap") => 3,
                    Some(other) => {
                        return Err(Error::unsupported(format!(
                            "pad mode '{other}' (constant, reflect, edge and wrap are)"
                        )))
                    }
                };
                // A run-time pad value (constant mode): pad with zeros, then select the value
                // where a constant mask marks the padding.
                let runtime_value = operand(node, 2).filter(|name| self.folded(name).is_none()).map(str::to_owned);
                let value = match operand(node, 2) {
                    Some(name) if runtime_value.is_none() => self
                        .folded(name)
                        .ok_or_else(|| Error::unsupported(format!("pad value '{name}' computed at run time")))?
                        .scalar("the pad value")?,
                    _ => 0.0,
                };
                let out: Vec<i64> =
                    (0..rank).map(|d| shape[d].saturating_add(pads[d]).saturating_add(pads[d + rank])).collect();
                if let Some(value_name) = runtime_value {
                    if mode != 0 {
                        return Err("the pad value only applies to constant mode".into());
                    }
                    let (value_shape, value_type) = self.shape_of(&value_name)?;
                    if value_type != dtype || value_shape.iter().product::<i64>() != 1 {
                        return Err(format!(
                            "the pad value '{value_name}' must be one {} value, got {} {value_shape:?}",
                            dtype.as_str_name(),
                            value_type.as_str_name()
                        )
                        .into());
                    }
                    let count = crate::shapes::numel(&out)? as usize;
                    let mut mask = vec![0u8; count];
                    for (flat, m) in mask.iter_mut().enumerate() {
                        let mut rest = flat as i64;
                        let mut inside = true;
                        for d in (0..rank).rev() {
                            let i = rest % out[d];
                            rest /= out[d];
                            inside &= i >= pads[d] && i < pads[d] + shape[d];
                        }
                        *m = u8::from(!inside);
                    }
                    let padded = block.append_operation(sg::Pad::build(
                        context,
                        location,
                        x,
                        &pads,
                        0,
                        0.0,
                        tensor_type(context, &out, dtype)?,
                    ));
                    let padded: Value = padded.result(0).expect("one result").into();
                    let label = format!("{}_padding", crate::import::node_name(node, 0));
                    let mask = self.new_constant(block, &label, out.clone(), DataType::Bool, mask, location)?.get();
                    let fill = self.use_value(block, &value_name, location)?.get();
                    let fill = if value_shape.is_empty() {
                        fill
                    } else {
                        let op = block.append_operation(sg::Reshape::build(
                            context,
                            location,
                            fill,
                            tensor_type(context, &[], dtype)?,
                        ));
                        op.result(0).expect("one result").into()
                    };
                    let op = block.append_operation(sg::Where::build(
                        context,
                        location,
                        mask,
                        fill,
                        padded,
                        tensor_type(context, &out, dtype)?,
                    ));
                    self.define(node, op, out, dtype);
                    return Ok(());
                }
                if mode == 1 && (0..rank).any(|d| pads[d] >= shape[d] || pads[d + rank] >= shape[d]) {
                    return Err(format!("reflect pads {pads:?} must be smaller than the dimensions {shape:?}").into());
                }
                if mode != 0 && (0..rank).any(|d| shape[d] == 0 && pads[d] + pads[d + rank] > 0) {
                    return Err(format!("pads {pads:?} extend an empty dimension of {shape:?}: edge, reflect and wrap need elements to repeat").into());
                }
                crate::shapes::numel(&out)?;
                (sg::Pad::build(context, location, x, &pads, mode, value, tensor_type(context, &out, dtype)?), out)
            }
        };
        let op = block.append_operation(op);
        self.define(node, op, out, dtype);
        Ok(())
    }
}

impl Importer<'_> {
    /// `Squeeze` and `Unsqueeze`: reshapes (on a constant, folded: same bytes, new shape).
    pub(crate) fn squeeze(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let axes = match operand(node, 1) {
            Some(name) => Some(self.constant_ints(name)?),
            None => ints(node, "axes"),
        };
        let out = if node.op_type() == "Squeeze" {
            shapes::squeeze(&shape, axes.as_deref())?
        } else {
            shapes::unsqueeze(&shape, &axes.ok_or("Unsqueeze needs axes")?)?
        };
        self.reshape_to(block, node, required(node, 0)?, out, dtype, location)?;
        Ok(())
    }

    /// `Transpose` (default: the dimensions reversed).
    pub(crate) fn transpose(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let perm = ints(node, "perm").unwrap_or_else(|| (0..shape.len() as i64).rev().collect());
        let mut seen = vec![false; shape.len()];
        if perm.len() != shape.len()
            || perm
                .iter()
                .any(|&p| p < 0 || p as usize >= shape.len() || std::mem::replace(&mut seen[p as usize], true))
        {
            return Err(format!("perm {perm:?} is not a permutation of the {} dimensions", shape.len()).into());
        }
        let out: Vec<i64> = perm.iter().map(|&p| shape[p as usize]).collect();
        // Integer data is shape arithmetic (PyTorch's `F.pad` exports its pads reversed through
        // a Transpose): folded, so a Pad or Reshape reading it sees a constant. Float
        // constants stay ops, which the e-graph folds into their readers' layouts.
        if let Some(data) = self.folded(required(node, 0)?).filter(|c| c.ints().is_ok()) {
            self.define_constant(node, crate::fold::transpose(&data, &perm)?)?;
            return Ok(());
        }
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let op = block.append_operation(sg::Transpose::build(
            context,
            location,
            x,
            &perm,
            tensor_type(context, &out, dtype)?,
        ));
        self.define(node, op, out, dtype);
        Ok(())
    }

    /// `Reshape` and `Flatten`.
    pub(crate) fn reshape(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let out = if node.op_type() == "Reshape" {
            shapes::reshape(&shape, &self.constant_ints(required(node, 1)?)?, int(node, "allowzero", 0) != 0)?
        } else {
            let rank = shape.len() as i64;
            let axis = int(node, "axis", 1);
            let axis = if axis < 0 { axis + rank } else { axis };
            if !(0..=rank).contains(&axis) {
                return Err(format!("axis {axis} is out of range for rank {rank}").into());
            }
            let (head, tail) = shape.split_at(axis as usize);
            vec![shapes::numel(head)?, shapes::numel(tail)?]
        };
        self.reshape_to(block, node, required(node, 0)?, out, dtype, location)?;
        Ok(())
    }

    /// `Slice` (constant starts, ends, axes and steps; a constant input is folded).
    pub(crate) fn slice(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let starts = self.constant_ints(required(node, 1)?)?;
        let ends = self.constant_ints(required(node, 2)?)?;
        let axes = operand(node, 3).map(|n| self.constant_ints(n)).transpose()?;
        let steps = operand(node, 4).map(|n| self.constant_ints(n)).transpose()?;
        let (s, e, st) = shapes::slice(&shape, &starts, &ends, axes.as_deref(), steps.as_deref())?;
        let out: Vec<i64> = (0..shape.len()).map(|d| sg::verify::slice_len(s[d], e[d], st[d])).collect();
        if let Some(data) = self.folded(required(node, 0)?) {
            self.define_constant(node, crate::fold::slice(&data, &s, &e, &st)?)?;
            return Ok(());
        }
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let op = block.append_operation(sg::Slice::build(
            context,
            location,
            x,
            &s,
            &e,
            &st,
            tensor_type(context, &out, dtype)?,
        ));
        self.define(node, op, out, dtype);
        Ok(())
    }
}
