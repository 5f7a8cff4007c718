//! Sequences of tensors inside a graph, resolved at import: a sequence whose length and
//! positions are known then is a list of the importer's tensor names
//! (`Importer::sequences`), so `SequenceConstruct`/`Empty`/`Insert`/`Erase` edit a list,
//! `SequenceAt` names an element, `SequenceLength` is a constant, `SplitToSequence` is slices
//! and `ConcatFromSequence` a concatenation. Positions must be constants (after folding and
//! freezing); sequences as graph inputs or outputs are not imported (no tensor type).
//!
//! Optionals are resolved at import the same way: `Optional(x)` is `x`, `Optional()` an empty
//! one (`Importer::empty_optionals`), `OptionalHasElement` a constant and `OptionalGetElement`
//! the value (an empty one a clean error). Optional graph inputs and outputs are not imported.

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, operand, required, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::Block;
use strata_ir::Error;

impl Importer<'_> {
    /// The elements of the sequence `name`.
    fn sequence(&self, name: &str) -> Result<Vec<String>, Error> {
        self.sequences.get(name).cloned().ok_or_else(|| {
            if self.values.contains_key(name) {
                Error::invalid_input(format!("'{name}' is a tensor, not a sequence"))
            } else {
                Error::invalid_input(format!("sequence '{name}' is not defined before its use"))
            }
        })
    }

    /// The constant position operand `k` (default `default`), checked against `len` (`len`
    /// itself allowed when `end` is set: an insertion at the back).
    fn position(&self, node: &NodeProto, k: usize, len: usize, default: i64, end: bool) -> Result<usize, Error> {
        let position = match operand(node, k) {
            Some(name) => self.known(name, "the position")?.ints()?.first().copied().ok_or("the position is empty")?,
            None => default,
        };
        let n = len as i64;
        let upper = if end { n } else { n - 1 };
        if position < -n || position > upper {
            return Err(Error::invalid_input(format!("position {position} is outside a sequence of {len} tensors")));
        }
        Ok((if position < 0 { position + n } else { position }) as usize)
    }

    /// `Optional`, `OptionalHasElement`, `OptionalGetElement`.
    pub(crate) fn optional_op(&mut self, node: &NodeProto) -> Result<(), Error> {
        let out = node.output[0].clone();
        let input = operand(node, 0);
        let defined = |this: &Self, name: &str| this.values.contains_key(name) || this.sequences.contains_key(name);
        let empty = |this: &Self, name: &str| this.empty_optionals.contains(name);
        if let Some(name) = input.filter(|&n| !defined(self, n) && !empty(self, n)) {
            return Err(Error::invalid_input(format!("'{name}' is not defined before its use")));
        }
        match node.op_type() {
            "Optional" => match input {
                Some(value) => self.alias(value, out)?,
                None => {
                    self.empty_optionals.insert(out);
                }
            },
            "OptionalHasElement" => {
                let present = input.is_some_and(|name| !empty(self, name));
                self.insert_computed(
                    out,
                    Folded { shape: Vec::new(), dtype: DataType::Bool, bytes: vec![u8::from(present)] },
                )?;
            }
            _ => match input {
                Some(name) if !empty(self, name) => self.alias(name, out)?,
                Some(name) => {
                    return Err(Error::invalid_input(format!(
                        "'{name}' is an empty optional: it has no element to get"
                    )))
                }
                None => return Err(Error::invalid_input("OptionalGetElement needs an input")),
            },
        }
        Ok(())
    }

    pub(crate) fn sequence_op(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let out = node.output[0].clone();
        match node.op_type() {
            "SequenceEmpty" => {
                self.sequences.insert(out, Vec::new());
            }
            "SequenceConstruct" => {
                if node.input.is_empty() || node.input.iter().any(String::is_empty) {
                    return Err(Error::invalid_input("SequenceConstruct needs one or more tensors"));
                }
                for input in &node.input {
                    self.shape_of(input)?;
                }
                self.sequences.insert(out, node.input.clone());
            }
            "SequenceInsert" => {
                let mut elements = self.sequence(required(node, 0)?)?;
                let tensor = required(node, 1)?;
                self.shape_of(tensor)?;
                let at = self.position(node, 2, elements.len(), elements.len() as i64, true)?;
                elements.insert(at, tensor.to_owned());
                self.sequences.insert(out, elements);
            }
            "SequenceErase" => {
                let mut elements = self.sequence(required(node, 0)?)?;
                if elements.is_empty() {
                    return Err(Error::invalid_input("SequenceErase of an empty sequence"));
                }
                let at = self.position(node, 1, elements.len(), -1, false)?;
                elements.remove(at);
                self.sequences.insert(out, elements);
            }
            "SequenceAt" => {
                let elements = self.sequence(required(node, 0)?)?;
                if operand(node, 1).is_none() {
                    return Err(Error::invalid_input("SequenceAt needs a position"));
                }
                let at = self.position(node, 1, elements.len(), 0, false)?;
                self.alias(&elements[at], out)?;
            }
            "SequenceLength" => {
                let elements = self.sequence(required(node, 0)?)?;
                self.define_constant(node, Folded::from_i64(vec![], &[elements.len() as i64]))?;
            }
            "SplitToSequence" => self.split_to_sequence(block, node, index)?,
            "ConcatFromSequence" => {
                let elements = self.sequence(required(node, 0)?)?;
                let first = elements.first().ok_or("ConcatFromSequence of an empty sequence")?;
                let rank = self.shape_of(first)?.0.len() as i64;
                let new_axis = int(node, "new_axis", 0) != 0;
                let axis = attribute(node, "axis").map(|a| a.i()).ok_or("ConcatFromSequence needs 'axis'")?;
                let axis = crate::shapes::axis(axis, if new_axis { rank + 1 } else { rank })? as i64;
                let mut e = Expansion::new(block, node, index);
                let parts = if new_axis {
                    let axes = e.ints(self, &[axis]);
                    elements
                        .iter()
                        .map(|t| e.op(self, "Unsqueeze", &[t, &axes], vec![]))
                        .collect::<Result<Vec<_>, _>>()?
                } else {
                    elements
                };
                let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
                let joined = e.op(self, "Concat", &refs, vec![attr_i("axis", axis)])?;
                self.alias(&joined, out)?;
            }
            other => return Err(format!("{other} is not a sequence operator").into()),
        }
        Ok(())
    }

    /// `SplitToSequence`: pieces of `split` sizes (or of a scalar size, the last shorter), or
    /// every index along the axis (dropped unless `keepdims`), as slices.
    fn split_to_sequence(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, _) = self.shape_of(x)?;
        let axis = crate::shapes::axis(int(node, "axis", 0), shape.len() as i64)? as i64;
        let length = shape[axis as usize];
        let (sizes, squeeze) = match operand(node, 1) {
            None => (vec![1; length.max(0) as usize], int(node, "keepdims", 1) == 0),
            Some(name) => {
                let split = self.known(name, "split")?;
                let values = split.ints()?;
                if split.shape.is_empty() {
                    let size = values.first().copied().ok_or("the split is empty")?;
                    if size < 1 {
                        return Err(Error::invalid_input(format!("split size {size} must be positive")));
                    }
                    let mut sizes = vec![size; (length / size) as usize];
                    if length % size != 0 {
                        sizes.push(length % size);
                    }
                    (sizes, false)
                } else {
                    if values.iter().any(|&v| v < 0) || values.iter().sum::<i64>() != length {
                        return Err(Error::invalid_input(format!(
                            "split sizes {values:?} must be non-negative and add up to {length}"
                        )));
                    }
                    (values, false)
                }
            }
        };
        if sizes.len() > 1 << 16 {
            return Err(Error::unsupported(format!("a sequence of {} tensors (at most 65536)", sizes.len())));
        }
        let mut e = Expansion::new(block, node, index);
        let axes = e.ints(self, &[axis]);
        let mut elements = Vec::new();
        let mut start = 0;
        for size in sizes {
            let (starts, ends) = (e.ints(self, &[start]), e.ints(self, &[start + size]));
            let mut piece = e.op(self, "Slice", &[x, &starts, &ends, &axes], vec![])?;
            if squeeze {
                piece = e.op(self, "Squeeze", &[&piece, &axes], vec![])?;
            }
            elements.push(piece);
            start += size;
        }
        self.sequences.insert(node.output[0].clone(), elements);
        Ok(())
    }
}
