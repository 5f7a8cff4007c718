//! `LabelEncoder` (ai.onnx.ml 2 to 4) over numbers: each element of the input replaced by the
//! value of the key it equals, or by the default where it equals none (scikit-learn's
//! `IsolationForest` maps each tree's leaves to their sample counts so; string keys and values,
//! and opset 1's string-to-integer form, need string tensors and are unsupported).
//!
//! Integer keys spanning a short range are a table over the range (a Gather, and a range test
//! for the default); other keys are compared all at once (`[.., keys]`), the first equal one's
//! value taken.

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, required, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use melior::ir::Block;
use strata_ir::Error;

/// A table over the keys' range is used while the range has at most this many entries per key
/// (at least 64 and at most [`MAX_TABLE`] in all).
const TABLE_PER_KEY: i64 = 4;
const MAX_TABLE: i64 = 1 << 16;

/// A list attribute of numbers: `{prefix}_int64s`, `{prefix}_floats` or `{prefix}_tensor`.
enum Numbers {
    Ints(Vec<i64>),
    /// f32 values, widened.
    Floats(Vec<f64>),
}

impl Numbers {
    fn of(importer: &Importer, node: &NodeProto, prefix: &str) -> Result<Option<Numbers>, Error> {
        if attribute(node, &format!("{prefix}_strings")).is_some_and(|a| !a.strings.is_empty()) {
            return Err(Error::unsupported(format!(
                "string {prefix} ({prefix}_strings): Strata has no string tensors; numeric {prefix} \
                 ({prefix}_int64s, {prefix}_floats) are imported"
            )));
        }
        if let Some(a) = attribute(node, &format!("{prefix}_int64s")).filter(|a| !a.ints.is_empty()) {
            return Ok(Some(Numbers::Ints(a.ints.clone())));
        }
        if let Some(a) = attribute(node, &format!("{prefix}_floats")).filter(|a| !a.floats.is_empty()) {
            return Ok(Some(Numbers::Floats(a.floats.iter().map(|&f| f as f64).collect())));
        }
        let Some(t) = attribute(node, &format!("{prefix}_tensor")).and_then(|a| a.t.as_ref()) else { return Ok(None) };
        let c = importer.constant(t)?;
        let folded = Folded { shape: c.shape, dtype: c.dtype, bytes: c.bytes };
        match folded.dtype {
            DataType::Int64 => Ok(Some(Numbers::Ints(folded.ints()?))),
            DataType::Float => Ok(Some(Numbers::Floats(folded.floats()?))),
            other => Err(Error::unsupported(format!(
                "{prefix}_tensor of type {}: int64 and float are imported",
                other.as_str_name()
            ))),
        }
    }

    fn dtype(&self) -> DataType {
        match self {
            Numbers::Ints(_) => DataType::Int64,
            Numbers::Floats(_) => DataType::Float,
        }
    }

    fn len(&self) -> usize {
        match self {
            Numbers::Ints(v) => v.len(),
            Numbers::Floats(v) => v.len(),
        }
    }

    fn folded(&self, shape: Vec<i64>) -> Result<Folded, Error> {
        match self {
            Numbers::Ints(v) => Ok(Folded::from_i64(shape, v)),
            Numbers::Floats(v) => crate::fold::from_f64(shape, DataType::Float, v),
        }
    }
}

impl Importer<'_> {
    /// `LabelEncoder` over numbers: see the module's notes.
    pub(crate) fn label_encoder(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        if attribute(node, "classes_strings").is_some_and(|a| !a.strings.is_empty()) {
            return Err(Error::unsupported(
                "LabelEncoder's opset-1 form maps strings (classes_strings): Strata has no string tensors",
            ));
        }
        let keys =
            Numbers::of(self, node, "keys")?.ok_or("attribute keys_int64s, keys_floats or keys_tensor is missing")?;
        let values = Numbers::of(self, node, "values")?
            .ok_or("attribute values_int64s, values_floats or values_tensor is missing")?;
        if keys.len() != values.len() || keys.len() == 0 {
            return Err(
                format!("{} keys and {} values: one value per key, at least one", keys.len(), values.len()).into()
            );
        }
        let x = required(node, 0)?;
        let (shape, dtype) = self.shape_of(x)?;
        if dtype != keys.dtype() {
            return Err(format!(
                "the input is {} but the keys are {}: they must have one type",
                dtype.as_str_name(),
                keys.dtype().as_str_name()
            )
            .into());
        }
        let out = values.dtype();
        let default = match Numbers::of(self, node, "default")? {
            Some(d) if d.dtype() != out || d.len() != 1 => {
                return Err("default_tensor must be one value of the values' type".into());
            }
            Some(Numbers::Ints(d)) => d[0] as f64,
            Some(Numbers::Floats(d)) => d[0],
            None if out == DataType::Int64 => attribute(node, "default_int64").map_or(-1.0, |a| a.i() as f64),
            None => attribute(node, "default_float").map_or(-0.0, |a| a.f() as f64),
        };
        let mut e = Expansion::new(block, node, index);
        let default = e.scalar(self, out, default)?;
        let count = keys.len() as i64;
        let y = match &keys {
            Numbers::Ints(k) if span(k).is_some_and(|s| s <= (TABLE_PER_KEY * count).clamp(64, MAX_TABLE)) => {
                // A table over [low, high]: each key's value at key - low, the default elsewhere.
                let (low, high) = (*k.iter().min().expect("a key"), *k.iter().max().expect("a key"));
                let size = (high - low + 1) as usize;
                let mut known = vec![false; size];
                let mut cells: Vec<(usize, usize)> = Vec::with_capacity(k.len());
                // The first of equal keys wins, as in the comparison form.
                for (i, &key) in k.iter().enumerate() {
                    let at = (key - low) as usize;
                    if !known[at] {
                        known[at] = true;
                        cells.push((at, i));
                    }
                }
                let table = match &values {
                    Numbers::Ints(v) => Numbers::Ints(spread(size, &cells, v)),
                    Numbers::Floats(v) => Numbers::Floats(spread(size, &cells, v)),
                };
                let table = e.constant(self, table.folded(vec![size as i64])?)?;
                let flags = Folded {
                    shape: vec![size as i64],
                    dtype: DataType::Bool,
                    bytes: known.iter().map(|&b| u8::from(b)).collect(),
                };
                let known = e.constant(self, flags)?;
                let (low_value, last) =
                    (e.scalar(self, DataType::Int64, low as f64)?, e.scalar(self, DataType::Int64, (size - 1) as f64)?);
                let zero = e.scalar(self, DataType::Int64, 0.0)?;
                let offset = e.op(self, "Sub", &[x, &low_value], vec![])?;
                let above = e.op(self, "GreaterOrEqual", &[&offset, &zero], vec![])?;
                let below = e.op(self, "LessOrEqual", &[&offset, &last], vec![])?;
                let inside = e.op(self, "And", &[&above, &below], vec![])?;
                let at = e.op(self, "Clip", &[&offset, &zero, &last], vec![])?;
                let value = e.op(self, "Gather", &[&table, &at], vec![])?;
                let is_key = e.op(self, "Gather", &[&known, &at], vec![])?;
                let hit = e.op(self, "And", &[&inside, &is_key], vec![])?;
                e.op(self, "Where", &[&hit, &value, &default], vec![])?
            }
            _ => {
                // Every key at once: [.., keys], the first equal one's value.
                let mut column = vec![1; shape.len()];
                column.push(count);
                let keys = e.constant(self, keys.folded(column)?)?;
                let values = e.constant(self, values.folded(vec![count])?)?;
                let last = e.ints(self, &[-1]);
                let wide = e.op(self, "Unsqueeze", &[x, &last], vec![])?;
                let equal = e.op(self, "Equal", &[&wide, &keys], vec![])?;
                let flags = e.op(self, "Cast", &[&equal], vec![attr_i("to", DataType::Int32 as i64)])?;
                let first = e.op(self, "ArgMax", &[&flags], vec![attr_i("axis", -1), attr_i("keepdims", 0)])?;
                let any = e.op(self, "ReduceMax", &[&flags, &last], vec![attr_i("keepdims", 0)])?;
                let any = e.op(self, "Cast", &[&any], vec![attr_i("to", DataType::Bool as i64)])?;
                let value = e.op(self, "Gather", &[&values, &first], vec![])?;
                e.op(self, "Where", &[&any, &value, &default], vec![])?
            }
        };
        self.alias(&y, node.output[0].clone())
    }
}

/// A table of `size` entries holding `values[i]` at each cell `(at, i)`, the type's default
/// elsewhere (where the default value is selected instead).
fn spread<T: Copy + Default>(size: usize, cells: &[(usize, usize)], values: &[T]) -> Vec<T> {
    let mut table = vec![T::default(); size];
    cells.iter().for_each(|&(at, i)| table[at] = values[i]);
    table
}

/// The number of integers from the least key to the greatest, if it fits an i64.
fn span(keys: &[i64]) -> Option<i64> {
    let (low, high) = (*keys.iter().min()?, *keys.iter().max()?);
    high.checked_sub(low)?.checked_add(1)
}
