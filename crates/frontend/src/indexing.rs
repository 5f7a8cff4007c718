//! Operators that address elements by index or compare along an axis: GatherElements,
//! GatherND, ScatterElements (and opset-9 Scatter), ScatterND, ArgMax/ArgMin, Hardmax,
//! CumSum/CumProd, Einsum and TopK.
//!
//! - Einsum equations are written out before they reach sg: ellipses become letters (the
//!   broadcast dimensions, right-aligned), an implicit output lists the letters used once in
//!   alphabetical order, and more than two operands contract pairwise, each step keeping the
//!   letters a later operand or the output still needs.
//! - TopK is `sg.top_k` (the positions of the best `k` along the axis, best first, ties to the
//!   lower index, as ONNX specifies; `strata_lower::top_k`) and a gather of the input at them
//!   for the values; `k` must be known at import.

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, operand, required, tensor_type, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use crate::shapes;
use melior::ir::{Block, BlockLike, Location};
use strata_dialect_sg as sg;
use strata_ir::Error;

/// A scatter's `reduction` attribute as the sg code (0 none, 1 add, 2 mul, 3 max, 4 min).
fn reduction(node: &NodeProto) -> Result<i64, Error> {
    match attribute(node, "reduction").map(|a| String::from_utf8_lossy(a.s()).into_owned()).as_deref() {
        None | Some("none") => Ok(0),
        Some("add") => Ok(1),
        Some("mul") => Ok(2),
        Some("max") => Ok(3),
        Some("min") => Ok(4),
        Some(other) => Err(format!("reduction '{other}' is not none, add, mul, max or min").into()),
    }
}

/// An explicit einsum equation (`ij,jk->ik`) for operands of ranks `ranks`.
pub(crate) fn explicit_einsum(equation: &str, ranks: &[usize]) -> Result<String, Error> {
    let equation: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (inputs, output) = match equation.split_once("->") {
        Some((i, o)) => (i.to_owned(), Some(o.to_owned())),
        None => (equation.clone(), None),
    };
    let terms: Vec<&str> = inputs.split(',').collect();
    if terms.len() != ranks.len() {
        return Err(format!("einsum '{equation}' names {} operands, the node has {}", terms.len(), ranks.len()).into());
    }
    // Letters for the ellipsis's dimensions, not used by the equation.
    let used: Vec<char> = equation.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    let spare: Vec<char> = ('A'..='Z').chain('a'..='z').filter(|c| !used.contains(c)).collect();
    let mut broadcast_rank = 0;
    for (term, &rank) in terms.iter().zip(ranks) {
        if let Some((before, after)) = term.split_once("...") {
            let named = before.len() + after.len();
            broadcast_rank = broadcast_rank
                .max(rank.checked_sub(named).ok_or("an einsum term has more letters than its operand's rank")?);
        }
    }
    if broadcast_rank > spare.len() {
        return Err("einsum ellipsis covers too many dimensions".into());
    }
    let ellipsis = |rank: usize| -> String { spare[broadcast_rank - rank..broadcast_rank].iter().collect() };
    let mut written = Vec::new();
    for (term, &rank) in terms.iter().zip(ranks) {
        written.push(match term.split_once("...") {
            Some((before, after)) => format!("{before}{}{after}", ellipsis(rank - before.len() - after.len())),
            None => term.to_string(),
        });
    }
    let output = match output {
        Some(o) => match o.split_once("...") {
            Some((before, after)) => format!("{before}{}{after}", ellipsis(broadcast_rank)),
            None => o,
        },
        None => {
            // Implicit: the broadcast letters, then each letter used once, alphabetically.
            let all: String = written.concat();
            let mut once: Vec<char> = used.iter().copied().filter(|&c| all.matches(c).count() == 1).collect();
            once.sort_unstable();
            once.dedup();
            format!("{}{}", ellipsis(broadcast_rank), once.iter().collect::<String>())
        }
    };
    Ok(format!("{}->{output}", written.join(",")))
}

impl Importer<'_> {
    /// GatherElements, GatherND, ScatterElements, Scatter, ScatterND.
    pub(crate) fn gather_scatter(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (data, indices) = (required(node, 0)?, required(node, 1)?);
        let ((data_shape, dtype), (idx_shape, _)) = (self.shape_of(data)?, self.shape_of(indices)?);
        let value = |this: &mut Self, name: &str| this.use_value(block, name, location).map(|v| v.get());
        let (d, i) = (value(self, data)?, value(self, indices)?);
        let op = match node.op_type() {
            "GatherElements" => {
                let axis = shapes::axis(int(node, "axis", 0), data_shape.len() as i64)? as i64;
                let ty = tensor_type(context, &idx_shape, dtype)?;
                let op = block.append_operation(sg::GatherElements::build(context, location, d, i, axis, ty));
                self.define(node, op, idx_shape, dtype);
                return Ok(());
            }
            "GatherND" => {
                let batch = int(node, "batch_dims", 0);
                let out = sg::verify::gather_nd_shape(&data_shape, &idx_shape, batch)?;
                let ty = tensor_type(context, &out, dtype)?;
                let op = block.append_operation(sg::GatherNd::build(context, location, d, i, batch, ty));
                self.define(node, op, out, dtype);
                return Ok(());
            }
            "ScatterND" => {
                let u = value(self, required(node, 2)?)?;
                let ty = tensor_type(context, &data_shape, dtype)?;
                sg::ScatterNd::build(context, location, d, i, u, reduction(node)?, ty)
            }
            _ => {
                let u = value(self, required(node, 2)?)?;
                let axis = shapes::axis(int(node, "axis", 0), data_shape.len() as i64)? as i64;
                let ty = tensor_type(context, &data_shape, dtype)?;
                sg::ScatterElements::build(context, location, d, i, u, axis, reduction(node)?, ty)
            }
        };
        let op = block.append_operation(op);
        self.define(node, op, data_shape, dtype);
        Ok(())
    }

    /// ArgMax and ArgMin.
    pub(crate) fn arg_extreme(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let x = required(node, 0)?;
        let (shape, _) = self.shape_of(x)?;
        let axis = shapes::axis(int(node, "axis", 0), shape.len() as i64)?;
        let keep = int(node, "keepdims", 1) != 0;
        let mut out = shape.clone();
        if keep {
            out[axis] = 1;
        } else {
            out.remove(axis);
        }
        let value = self.use_value(block, x, location)?.get();
        let op = block.append_operation(sg::ArgExtreme::build(
            context,
            location,
            value,
            axis as i64,
            i64::from(keep),
            int(node, "select_last_index", 0),
            i64::from(node.op_type() == "ArgMax"),
            tensor_type(context, &out, DataType::Int64)?,
        ));
        self.define(node, op, out, DataType::Int64);
        Ok(())
    }

    /// Hardmax: 1 where the first maximum along `axis` is, 0 elsewhere (below opset 13 over
    /// every dimension from `axis` on, the input viewed as 2-D).
    pub(crate) fn hardmax(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let legacy = self.opset < 13;
        let axis = shapes::axis(int(node, "axis", if legacy { 1 } else { -1 }), shape.len() as i64)?;
        let mut e = Expansion::new(block, node, index);
        let (input, axis) = if legacy {
            let flat = e.ints(self, &[shapes::numel(&shape[..axis])?, shapes::numel(&shape[axis..])?]);
            (e.op(self, "Reshape", &[x, &flat], vec![])?, 1)
        } else {
            (x.to_owned(), axis)
        };
        let (work, _) = self.shape_of(&input)?;
        let arg = e.op(self, "ArgMax", &[&input], vec![attr_i("axis", axis as i64), attr_i("keepdims", 1)])?;
        let mut positions_shape = vec![1; work.len()];
        positions_shape[axis] = work[axis];
        let positions: Vec<i64> = (0..work[axis]).collect();
        let positions = e.constant(self, Folded::from_i64(positions_shape, &positions))?;
        let hit = e.op(self, "Equal", &[&arg, &positions], vec![])?;
        let mut y = e.op(self, "Cast", &[&hit], vec![attr_i("to", dtype as i64)])?;
        if legacy {
            let back = e.ints(self, &shape);
            y = e.op(self, "Reshape", &[&y, &back], vec![])?;
        }
        self.alias(&y, node.output[0].clone())
    }

    /// CumSum and CumProd (the axis a constant input).
    pub(crate) fn cumulative(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let axis = *self.constant_ints(required(node, 1)?)?.first().ok_or("the axis is empty")?;
        let axis = shapes::axis(axis, shape.len() as i64)? as i64;
        let value = self.use_value(block, x, location)?.get();
        let op = block.append_operation(sg::Cumulative::build(
            context,
            location,
            value,
            axis,
            int(node, "exclusive", 0),
            int(node, "reverse", 0),
            i64::from(node.op_type() == "CumProd"),
            tensor_type(context, &shape, dtype)?,
        ));
        self.define(node, op, shape, dtype);
        Ok(())
    }

    /// Einsum: the equation written out, more than two operands contracted pairwise.
    pub(crate) fn einsum(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let context = self.strata.mlir();
        let location = Location::name(
            context,
            &crate::import::node_name(node, index),
            Location::new(context, &self.file, index, 0),
        );
        let names: Vec<&str> = node.input.iter().map(String::as_str).filter(|n| !n.is_empty()).collect();
        let typed: Vec<(Vec<i64>, DataType)> = names.iter().map(|n| self.shape_of(n)).collect::<Result<_, _>>()?;
        let ranks: Vec<usize> = typed.iter().map(|(s, _)| s.len()).collect();
        let equation = attribute(node, "equation")
            .map(|a| String::from_utf8_lossy(a.s()).into_owned())
            .ok_or("Einsum needs an equation")?;
        let explicit = explicit_einsum(&equation, &ranks)?;
        let (terms, output) = sg::verify::einsum_subscripts(&explicit)?;
        let dtype = typed.first().ok_or("Einsum needs an operand")?.1;
        let mut sizes = std::collections::BTreeMap::new();
        for (letters, (shape, _)) in terms.iter().zip(&typed) {
            if letters.len() != shape.len() {
                return Err(format!("einsum '{equation}' does not match an operand of rank {}", shape.len()).into());
            }
            for (&c, &d) in letters.iter().zip(shape) {
                // A size-1 dimension broadcasts against the letter's other size.
                let entry = sizes.entry(c).or_insert(d);
                if *entry == 1 {
                    *entry = d;
                } else if d != 1 && *entry != d {
                    return Err(format!("einsum letter '{c}' has sizes {entry} and {d}").into());
                }
            }
        }
        let shape_of = |letters: &[char]| -> Vec<i64> { letters.iter().map(|c| sizes[c]).collect() };
        let label = crate::import::node_name(node, index);
        // One einsum of one or two operands per step; more operands contract left to right,
        // each step keeping the letters a later operand or the output still needs.
        let mut current = (names[0].to_owned(), terms[0].clone());
        let steps = names.len().max(2) - 1;
        for step in 0..steps {
            let k = step + 1;
            let pair = k < names.len();
            let keep: Vec<char> = if k + 1 >= names.len() {
                output.clone()
            } else {
                let later: Vec<char> = terms[k + 1..].iter().flatten().chain(output.iter()).copied().collect();
                let mut keep = Vec::new();
                for &c in current.1.iter().chain(&terms[k]) {
                    if later.contains(&c) && !keep.contains(&c) {
                        keep.push(c);
                    }
                }
                keep
            };
            let mut operands = vec![(current.0.clone(), current.1.clone())];
            if pair {
                operands.push((names[k].to_owned(), terms[k].clone()));
            }
            // Size-1 dimensions that broadcast against a letter's size are expanded first.
            let mut values = Vec::new();
            for (name, letters) in &operands {
                let (shape, _) = self.shape_of(name)?;
                let wanted = shape_of(letters);
                let mut v = self.use_value(block, name, location)?;
                if shape != wanted {
                    let ty = tensor_type(context, &wanted, dtype)?;
                    let op = block.append_operation(sg::Expand::build(context, location, v.get(), ty));
                    let r: melior::ir::Value = op.result(0).expect("one result").into();
                    v = r.into();
                }
                values.push(v.get());
            }
            let subscripts: Vec<String> = operands.iter().map(|(_, l)| l.iter().collect()).collect();
            let equation = format!("{}->{}", subscripts.join(","), keep.iter().collect::<String>());
            let out_shape = shape_of(&keep);
            let ty = tensor_type(context, &out_shape, dtype)?;
            let op = block.append_operation(sg::Einsum::build(
                context,
                location,
                values[0],
                values.get(1).copied(),
                &equation,
                ty,
            ));
            let name = format!("{label}::einsum{k}");
            let result: melior::ir::Value = op.result(0).expect("one result").into();
            self.values
                .insert(name.clone(), crate::import::Entry::Value { value: result.into(), shape: out_shape, dtype });
            current = (name, keep);
        }
        self.alias(&current.0, node.output[0].clone())
    }

    /// TopK: `sg.top_k`'s positions (one pass over each row keeping the best `k` in order),
    /// the values a gather of the input at them.
    pub(crate) fn top_k(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let context = self.strata.mlir();
        let label = crate::import::node_name(node, index);
        let location = Location::name(context, &label, Location::new(context, &self.file, index, 0));
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        let k = match operand(node, 1) {
            Some(name) => *self.constant_ints(name)?.first().ok_or("K is empty")?,
            None => int(node, "k", 0),
        };
        let axis = shapes::axis(int(node, "axis", -1), shape.len() as i64)?;
        if k < 0 || k > shape[axis] {
            return Err(format!("K {k} is out of range for dimension {}", shape[axis]).into());
        }
        if k == 0 {
            return Err(Error::unsupported("TopK with K = 0 (an empty result)"));
        }
        if matches!(dtype, DataType::Bool | DataType::String) {
            return Err(Error::unsupported(format!("TopK of {}", dtype.as_str_name())));
        }
        let mut out = shape.clone();
        out[axis] = k;
        let value = self.use_value(block, x, location)?.get();
        let op = block.append_operation(sg::TopK::build(
            context,
            location,
            value,
            axis as i64,
            k,
            int(node, "largest", 1),
            tensor_type(context, &out, DataType::Int64)?,
        ));
        let positions = format!("{label}::positions");
        let result: melior::ir::Value = op.result(0).expect("one result").into();
        self.values.insert(
            positions.clone(),
            crate::import::Entry::Value { value: result.into(), shape: out, dtype: DataType::Int64 },
        );
        let mut e = Expansion::new(block, node, index);
        let values = e.op(self, "GatherElements", &[x, &positions], vec![attr_i("axis", axis as i64)])?;
        for (k, value) in [values, positions].into_iter().enumerate() {
            if let Some(output) = node.output.get(k).filter(|o| !o.is_empty()) {
                self.alias(&value, output.clone())?;
            }
        }
        Ok(())
    }
}
