//! Constant folding at import: shape subgraphs (`Shape → Gather → Concat → Reshape`, as
//! PyTorch exports them) become constants, so every shape is static.
//!
//! Folded: `Shape`, `Size` (of any value: shapes are static), and `Gather`, `Concat`, `Cast`,
//! `ConstantOfShape`, `Range`, integer `Add`/`Sub`/`Mul`/`Div` when every input is a constant;
//! `Slice`, `Split`, `Reshape`-like ops and (of integer and boolean constants) `Transpose`
//! fold where they are imported.
//! Gather and Concat move whole elements as bytes, so they work for every element type.

use crate::import::{attribute, int, Importer};
use crate::onnx::tensor_proto::DataType;
use crate::onnx::NodeProto;
use crate::shapes::numel;
use strata_ir::Error;

/// The largest constant folding may create (elements): a model may not make the compiler
/// allocate without bound.
pub const FOLD_LIMIT: i64 = 1 << 24;

/// The largest `ConstantOfShape` folded into a constant (elements); a larger one is a
/// broadcast of its value, filled at run time, so the compiled code carries no copy of it.
pub const FILL_LIMIT: i64 = 1 << 16;

fn check_limit(count: i64, what: &str) -> Result<(), Error> {
    if count > FOLD_LIMIT {
        return Err(Error::unsupported(format!("folding {what} of {count} elements (the limit is {FOLD_LIMIT})")));
    }
    Ok(())
}

/// A constant tensor: shape, element type, little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    pub shape: Vec<i64>,
    pub dtype: DataType,
    pub bytes: Vec<u8>,
}

pub fn width(dtype: DataType) -> usize {
    match dtype {
        DataType::Double | DataType::Int64 | DataType::Uint64 => 8,
        DataType::Float | DataType::Int32 | DataType::Uint32 => 4,
        DataType::Float16 | DataType::Bfloat16 | DataType::Int16 | DataType::Uint16 => 2,
        _ => 1,
    }
}

/// A matrix's transpose (whole-byte element types only; `None` for anything else).
pub fn transpose_2d(matrix: &Folded) -> Option<Folded> {
    let &[rows, cols] = matrix.shape.as_slice() else { return None };
    let w = width(matrix.dtype);
    let whole_bytes = matches!(
        matrix.dtype,
        DataType::Float
            | DataType::Double
            | DataType::Float16
            | DataType::Bfloat16
            | DataType::Int8
            | DataType::Uint8
            | DataType::Int16
            | DataType::Uint16
            | DataType::Int32
            | DataType::Uint32
            | DataType::Int64
            | DataType::Uint64
            | DataType::Bool
    );
    let (rows, cols) = (usize::try_from(rows).ok()?, usize::try_from(cols).ok()?);
    if !whole_bytes || matrix.bytes.len() != rows.checked_mul(cols)?.checked_mul(w)? {
        return None;
    }
    let mut bytes = vec![0u8; matrix.bytes.len()];
    for r in 0..rows {
        for c in 0..cols {
            let (from, to) = ((r * cols + c) * w, (c * rows + r) * w);
            bytes[to..to + w].copy_from_slice(&matrix.bytes[from..from + w]);
        }
    }
    Some(Folded { shape: vec![cols as i64, rows as i64], dtype: matrix.dtype, bytes })
}

impl Folded {
    pub fn from_i64(shape: Vec<i64>, values: &[i64]) -> Folded {
        Folded { shape, dtype: DataType::Int64, bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }

    pub fn from_f32(shape: Vec<i64>, values: &[f32]) -> Folded {
        Folded { shape, dtype: DataType::Float, bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }

    /// The values as i64 (integer and boolean types).
    pub fn ints(&self) -> Result<Vec<i64>, Error> {
        let chunks = self.bytes.chunks_exact(width(self.dtype));
        Ok(match self.dtype {
            DataType::Int64 => chunks.map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes"))).collect(),
            DataType::Int32 => chunks.map(|b| i32::from_le_bytes(b.try_into().expect("4 bytes")) as i64).collect(),
            DataType::Int16 => chunks.map(|b| i16::from_le_bytes(b.try_into().expect("2 bytes")) as i64).collect(),
            DataType::Int8 => chunks.map(|b| b[0] as i8 as i64).collect(),
            DataType::Uint8 | DataType::Bool => chunks.map(|b| b[0] as i64).collect(),
            other => return Err(Error::unsupported(format!("folding integers of type {}", other.as_str_name()))),
        })
    }

    /// The values as f64 (any numeric type).
    pub fn floats(&self) -> Result<Vec<f64>, Error> {
        let chunks = self.bytes.chunks_exact(width(self.dtype));
        Ok(match self.dtype {
            DataType::Float => chunks.map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")) as f64).collect(),
            DataType::Double => chunks.map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))).collect(),
            DataType::Float16 => chunks.map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f64()).collect(),
            DataType::Bfloat16 => chunks.map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f64()).collect(),
            _ => self.ints()?.into_iter().map(|v| v as f64).collect(),
        })
    }

    /// A rank-0 constant of type `dtype` holding `value` (rounded or truncated to the type).
    pub fn scalar_of(dtype: DataType, value: f64) -> Result<Folded, Error> {
        Folded::filled(dtype, vec![], value)
    }

    /// A constant of type `dtype` and `shape` whose every element is `value`.
    pub fn filled(dtype: DataType, shape: Vec<i64>, value: f64) -> Result<Folded, Error> {
        let one: Vec<u8> = match dtype {
            DataType::Float => (value as f32).to_le_bytes().to_vec(),
            DataType::Double => value.to_le_bytes().to_vec(),
            DataType::Float16 => half::f16::from_f64(value).to_le_bytes().to_vec(),
            DataType::Bfloat16 => half::bf16::from_f64(value).to_le_bytes().to_vec(),
            // Negative values wrap (-1 is every bit set); a positive one past i64's range is
            // an unsigned one (u64::MAX is 2^64 as an f64, saturated).
            DataType::Uint64 if value >= 2f64.powi(63) => (value as u64).to_le_bytes().to_vec(),
            DataType::Int64 | DataType::Uint64 => (value as i64).to_le_bytes().to_vec(),
            DataType::Int32 | DataType::Uint32 => (value as i64 as i32).to_le_bytes().to_vec(),
            DataType::Int16 | DataType::Uint16 => (value as i64 as i16).to_le_bytes().to_vec(),
            DataType::Int8 | DataType::Uint8 => vec![value as i64 as u8],
            DataType::Bool => vec![u8::from(value != 0.0)],
            other => return Err(Error::unsupported(format!("a constant of type {}", other.as_str_name()))),
        };
        let count = numel(&shape)?;
        check_limit(count, "a filled constant")?;
        Ok(Folded { shape, dtype, bytes: one.repeat(count as usize) })
    }

    pub fn scalar(&self, what: &str) -> Result<f64, Error> {
        match self.floats()?.as_slice() {
            [v] => Ok(*v),
            _ => Err(format!("{what} must hold one value, it has shape {:?}", self.shape).into()),
        }
    }
}

/// `Gather(data, indices, axis)`.
pub fn gather(data: &Folded, indices: &Folded, axis: i64) -> Result<Folded, Error> {
    let a = crate::shapes::axis(axis, data.shape.len() as i64)?;
    let (outer, dim, inner) = (numel(&data.shape[..a])? as usize, data.shape[a], numel(&data.shape[a + 1..])? as usize);
    let w = width(data.dtype);
    let mut bytes = Vec::new();
    let picks: Vec<usize> = indices
        .ints()?
        .into_iter()
        .map(|i| {
            let j = if i < 0 { i + dim } else { i };
            if (0..dim).contains(&j) {
                Ok(j as usize)
            } else {
                Err(Error::invalid_input(format!("index {i} is out of range for dimension {dim}")))
            }
        })
        .collect::<Result<_, _>>()?;
    for o in 0..outer {
        for &j in &picks {
            let start = ((o * dim as usize + j) * inner) * w;
            bytes.extend_from_slice(&data.bytes[start..start + inner * w]);
        }
    }
    let mut shape = data.shape[..a].to_vec();
    shape.extend(&indices.shape);
    shape.extend(&data.shape[a + 1..]);
    Ok(Folded { shape, dtype: data.dtype, bytes })
}

/// A strided slice with normalised per-dimension starts, ends and (non-zero) steps.
pub fn slice(data: &Folded, starts: &[i64], ends: &[i64], steps: &[i64]) -> Result<Folded, Error> {
    let rank = data.shape.len();
    let out: Vec<i64> = (0..rank).map(|d| strata_dialect_sg::verify::slice_len(starts[d], ends[d], steps[d])).collect();
    let strides = strata_ir::types::row_major_strides(&data.shape);
    let first = (0..rank).map(|d| starts[d] * strides[d]).sum();
    let walk: Vec<i64> = (0..rank).map(|d| steps[d] * strides[d]).collect();
    strided(data, out, first, &walk)
}

/// `Transpose(data, perm)` (`perm` a checked permutation of the dimensions).
pub fn transpose(data: &Folded, perm: &[i64]) -> Result<Folded, Error> {
    let out: Vec<i64> = perm.iter().map(|&p| data.shape[p as usize]).collect();
    let strides = strata_ir::types::row_major_strides(&data.shape);
    // The source stride of each output dimension.
    let walk: Vec<i64> = perm.iter().map(|&p| strides[p as usize]).collect();
    strided(data, out, 0, &walk)
}

/// The elements of `data` at `first + sum(index[d] * walk[d])` (in elements) for every index
/// of `out`, in row-major order: a view of it made a constant.
fn strided(data: &Folded, out: Vec<i64>, first: i64, walk: &[i64]) -> Result<Folded, Error> {
    let w = width(data.dtype);
    let count = numel(&out)? as usize;
    let mut bytes = Vec::with_capacity(count * w);
    let mut index = vec![0i64; out.len()];
    for _ in 0..count {
        let at = (first + index.iter().zip(walk).map(|(i, s)| i * s).sum::<i64>()) as usize * w;
        bytes.extend_from_slice(&data.bytes[at..at + w]);
        for d in (0..out.len()).rev() {
            index[d] += 1;
            if index[d] < out[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(Folded { shape: out, dtype: data.dtype, bytes })
}

/// `Concat(inputs, axis)`.
pub fn concat(inputs: &[&Folded], axis: i64) -> Result<Folded, Error> {
    let first = inputs.first().ok_or("Concat needs at least one input")?;
    let a = crate::shapes::axis(axis, first.shape.len() as i64)?;
    for input in inputs {
        let same = input.shape.len() == first.shape.len()
            && input.dtype == first.dtype
            && input.shape.iter().zip(&first.shape).enumerate().all(|(d, (x, y))| d == a || x == y);
        if !same {
            return Err(
                format!("Concat inputs {:?} and {:?} do not match outside axis {a}", first.shape, input.shape).into()
            );
        }
    }
    let w = width(first.dtype);
    let outer = numel(&first.shape[..a])? as usize;
    let mut bytes = Vec::new();
    for o in 0..outer {
        for input in inputs {
            let chunk = numel(&input.shape[a..])? as usize * w;
            bytes.extend_from_slice(&input.bytes[o * chunk..(o + 1) * chunk]);
        }
    }
    let mut shape = first.shape.clone();
    shape[a] = inputs.iter().map(|i| i.shape[a]).sum();
    Ok(Folded { shape, dtype: first.dtype, bytes })
}

/// `Cast(input, to)` between integer and float types.
pub fn cast(input: &Folded, to: DataType) -> Result<Folded, Error> {
    let bytes: Vec<u8> = match to {
        DataType::Int64 => input.floats()?.into_iter().flat_map(|v| (v as i64).to_le_bytes()).collect(),
        DataType::Int32 => input.floats()?.into_iter().flat_map(|v| (v as i32).to_le_bytes()).collect(),
        DataType::Float => input.floats()?.into_iter().flat_map(|v| (v as f32).to_le_bytes()).collect(),
        DataType::Double => input.floats()?.into_iter().flat_map(|v| v.to_le_bytes()).collect(),
        DataType::Float16 => input.floats()?.into_iter().flat_map(|v| half::f16::from_f64(v).to_le_bytes()).collect(),
        DataType::Bfloat16 => input.floats()?.into_iter().flat_map(|v| half::bf16::from_f64(v).to_le_bytes()).collect(),
        DataType::Bool => input.floats()?.into_iter().map(|v| u8::from(v != 0.0)).collect(),
        other => return Err(Error::unsupported(format!("folding a Cast to {}", other.as_str_name()))),
    };
    Ok(Folded { shape: input.shape.clone(), dtype: to, bytes })
}

/// `ConstantOfShape(shape)` filled with the one element of `value` (default float 0).
pub fn constant_of_shape(shape: &Folded, value: Option<&Folded>) -> Result<Folded, Error> {
    let dims = shape.ints()?;
    let count = numel(&dims)?;
    check_limit(count, "ConstantOfShape")?;
    let count = count as usize;
    let fill =
        value.cloned().unwrap_or(Folded { shape: vec![1], dtype: DataType::Float, bytes: 0f32.to_le_bytes().to_vec() });
    if fill.bytes.len() != width(fill.dtype) {
        return Err("the value of ConstantOfShape must hold one element".into());
    }
    Ok(Folded { shape: dims, dtype: fill.dtype, bytes: fill.bytes.repeat(count) })
}

/// A constant of `dtype` holding `values` (computed in f64, rounded or truncated once).
pub fn from_f64(shape: Vec<i64>, dtype: DataType, values: &[f64]) -> Result<Folded, Error> {
    let wide = Folded { shape, dtype: DataType::Double, bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect() };
    cast(&wide, dtype)
}

/// `Range(start, limit, delta)`.
pub fn range(start: &Folded, limit: &Folded, delta: &Folded) -> Result<Folded, Error> {
    let (s, l, d) = (start.scalar("start")?, limit.scalar("limit")?, delta.scalar("delta")?);
    if d == 0.0 {
        return Err("delta is 0".into());
    }
    let count = ((l - s) / d).ceil().max(0.0);
    if !count.is_finite() || count > FOLD_LIMIT as f64 {
        return Err(Error::unsupported(format!("folding Range of {count} elements (the limit is {FOLD_LIMIT})")));
    }
    let values: Vec<f64> = (0..count as i64).map(|k| s + k as f64 * d).collect();
    let as_float = Folded {
        shape: vec![values.len() as i64],
        dtype: DataType::Double,
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    cast(&as_float, start.dtype)
}

/// `Add`/`Sub`/`Mul`/`Div` of two constants with equal shapes or a one-element operand:
/// integers exactly (overflow and division by zero are errors), floats in their own precision
/// (f32 and f64 natively; f16 and bf16 in f32, rounded once, as their run-time kernels do).
/// `None` when this case is not folded (the op is then computed at run time).
pub fn arithmetic(op: &str, a: &Folded, b: &Folded) -> Option<Result<Folded, Error>> {
    if a.dtype == b.dtype
        && matches!(a.dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16)
    {
        return float_arithmetic(op, a, b);
    }
    if a.dtype != b.dtype || !matches!(a.dtype, DataType::Int64 | DataType::Int32) {
        return None;
    }
    let (shape, pairs) = operand_pairs(a, b, &a.ints().ok()?, &b.ints().ok()?)?;
    let mut out = Vec::with_capacity(pairs.len());
    for (p, q) in pairs {
        out.push(match op {
            "Add" => p.checked_add(q),
            "Sub" => p.checked_sub(q),
            "Mul" => p.checked_mul(q),
            "Max" => Some(p.max(q)),
            "Min" => Some(p.min(q)),
            _ if q == 0 => return Some(Err("integer division by zero in a constant".into())),
            // C's remainder (the dividend's sign), and Python's (the divisor's sign).
            "FMod" => p.checked_rem(q),
            "Mod" => p.checked_rem(q).map(|r| if r != 0 && (r < 0) != (q < 0) { r + q } else { r }),
            _ => p.checked_div(q),
        }?);
    }
    let folded = Folded::from_i64(shape, &out);
    Some(if a.dtype == DataType::Int32 { cast(&folded, DataType::Int32) } else { Ok(folded) })
}

/// A result shape and the operand pairs of each of its elements.
type Pairs<T> = (Vec<i64>, Vec<(T, T)>);

/// The result shape and the element pairs of a binary op on `a` and `b` (values `x`, `y`),
/// NumPy broadcasting, when the result is no larger than one of them (equal shapes, a single
/// element, or a per-axis operand such as a quantized weight's per-channel scale: the folded
/// constant never outgrows the model's own); `None` otherwise (not folded).
fn operand_pairs<T: Copy>(a: &Folded, b: &Folded, x: &[T], y: &[T]) -> Option<Pairs<T>> {
    // Values that do not fill their shape (an input without data) are not folded.
    let fills = |f: &Folded, v: &[T]| numel(&f.shape).is_ok_and(|n| n == v.len() as i64);
    if !fills(a, x) || !fills(b, y) || x.is_empty() || y.is_empty() {
        return None;
    }
    let shape = strata_dialect_sg::verify::broadcast(&a.shape, &b.shape)?;
    if numel(&shape).ok()? > x.len().max(y.len()) as i64 {
        return None;
    }
    if a.shape == b.shape || x.len() == 1 || y.len() == 1 {
        let pick = |v: &[T], i: usize| if v.len() == 1 { v[0] } else { v[i] };
        return Some((shape, (0..x.len().max(y.len())).map(|i| (pick(x, i), pick(y, i))).collect()));
    }
    let (shape, reads) = broadcast_reads(&[&a.shape, &b.shape])?;
    Some((shape, reads[0].iter().zip(&reads[1]).map(|(&i, &j)| (x[i], y[j])).collect()))
}

fn float_arithmetic(op: &str, a: &Folded, b: &Folded) -> Option<Result<Folded, Error>> {
    let (shape, pairs) = operand_pairs(a, b, &a.floats().ok()?, &b.floats().ok()?)?;
    fn apply<
        T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T> + std::ops::Div<Output = T>,
    >(
        op: &str,
        p: T,
        q: T,
    ) -> T {
        match op {
            "Add" => p + q,
            "Sub" => p - q,
            "Mul" => p * q,
            _ => p / q,
        }
    }
    // f16 / bf16 operands are exact in f32: one f32 operation, then the cast rounds once more.
    let values: Vec<f64> = pairs
        .into_iter()
        .map(
            |(p, q)| {
                if a.dtype == DataType::Double {
                    apply(op, p, q)
                } else {
                    f64::from(apply(op, p as f32, q as f32))
                }
            },
        )
        .collect();
    let wide = Folded { shape, dtype: DataType::Double, bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect() };
    Some(cast(&wide, a.dtype))
}

/// For each element of the broadcast result of `shapes` (NumPy rules), the flat index it reads
/// in each operand; `None` when the shapes do not broadcast or the result is too large.
fn broadcast_reads(shapes: &[&[i64]]) -> Option<(Vec<i64>, Vec<Vec<usize>>)> {
    let out = shapes.iter().try_fold(Vec::new(), |acc, s| strata_dialect_sg::verify::broadcast(&acc, s))?;
    let count = numel(&out).ok()?;
    if count > FOLD_LIMIT {
        return None;
    }
    let rank = out.len();
    let reads = shapes
        .iter()
        .map(|shape| {
            // The operand's strides over the result's dimensions (0 where it broadcasts).
            let offset = rank - shape.len();
            let mut strides = vec![0usize; rank];
            let mut stride = 1usize;
            for d in (0..shape.len()).rev() {
                if shape[d] != 1 {
                    strides[offset + d] = stride;
                }
                stride *= shape[d] as usize;
            }
            (0..count as usize)
                .map(|flat| {
                    let (mut rest, mut at) = (flat, 0);
                    for d in (0..rank).rev() {
                        let i = rest % out[d] as usize;
                        rest /= out[d] as usize;
                        at += i * strides[d];
                    }
                    at
                })
                .collect()
        })
        .collect();
    Some((out, reads))
}

/// A comparison (`Equal`, `Less`, `Greater`, `LessOrEqual`, `GreaterOrEqual`), a logical op
/// (`And`, `Or`, `Xor`, `Not`) or `Where` of constants, with broadcasting: exact in every
/// element type, so conditions computed from constants and frozen inputs fold. `None` when this
/// case is not folded.
pub fn logical(op: &str, operands: &[&Folded]) -> Option<Result<Folded, Error>> {
    let arity = match op {
        "Not" => 1,
        "Where" => 3,
        _ => 2,
    };
    if operands.len() != arity {
        return Some(Err(Error::invalid_input(format!("{op} takes {arity} operands, got {}", operands.len()))));
    }
    let shapes: Vec<&[i64]> = operands.iter().map(|f| f.shape.as_slice()).collect();
    let (shape, reads) = broadcast_reads(&shapes)?;
    let count = reads[0].len();
    let bools = |f: &Folded| -> Option<Vec<bool>> {
        (f.dtype == DataType::Bool).then(|| f.bytes.iter().map(|&b| b != 0).collect())
    };
    let bytes: Vec<u8> = match op {
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" => {
            let (a, b) = (operands[0], operands[1]);
            if a.dtype != b.dtype {
                return None;
            }
            // Integers compare exactly as integers, floats as f64 (exact for every float type).
            let (x, y) = (a.floats().ok()?, b.floats().ok()?);
            let float = matches!(a.dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16);
            let (xi, yi) = if float { (None, None) } else { (a.ints().ok(), b.ints().ok()) };
            (0..count)
                .map(|i| {
                    let (p, q) = (reads[0][i], reads[1][i]);
                    let order = match (&xi, &yi) {
                        (Some(xi), Some(yi)) => Some(xi[p].cmp(&yi[q])),
                        _ => x[p].partial_cmp(&y[q]),
                    };
                    use std::cmp::Ordering::*;
                    u8::from(match (op, order) {
                        (_, None) => false,
                        ("Equal", Some(o)) => o == Equal,
                        ("Less", Some(o)) => o == Less,
                        ("Greater", Some(o)) => o == Greater,
                        ("LessOrEqual", Some(o)) => o != Greater,
                        (_, Some(o)) => o != Less,
                    })
                })
                .collect()
        }
        "And" | "Or" | "Xor" => {
            let (a, b) = (bools(operands[0])?, bools(operands[1])?);
            (0..count)
                .map(|i| {
                    let (p, q) = (a[reads[0][i]], b[reads[1][i]]);
                    u8::from(match op {
                        "And" => p && q,
                        "Or" => p || q,
                        _ => p != q,
                    })
                })
                .collect()
        }
        "Not" => bools(operands[0])?.into_iter().map(|v| u8::from(!v)).collect(),
        "Where" => {
            let condition = bools(operands[0])?;
            let (a, b) = (operands[1], operands[2]);
            if a.dtype != b.dtype {
                return None;
            }
            let w = width(a.dtype);
            (0..count)
                .flat_map(|i| {
                    let (from, at) = if condition[reads[0][i]] { (a, reads[1][i]) } else { (b, reads[2][i]) };
                    from.bytes[at * w..(at + 1) * w].to_vec()
                })
                .collect()
        }
        _ => return None,
    };
    let dtype = if op == "Where" { operands[1].dtype } else { DataType::Bool };
    Some(Ok(Folded { shape, dtype, bytes }))
}

/// `Ceil`, `Floor`, `Relu`, `Abs` or `Neg` of a float constant (exact in its own type), or
/// `None` for other ops and types.
pub fn float_unary(op: &str, a: &Folded) -> Option<Result<Folded, Error>> {
    if !matches!(a.dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16) {
        return None;
    }
    let f: fn(f64) -> f64 = match op {
        "Ceil" => f64::ceil,
        "Floor" => f64::floor,
        "Relu" => |v| if v < 0.0 { 0.0 } else { v },
        "Abs" => f64::abs,
        "Neg" => |v| -v,
        _ => return None,
    };
    let values: Vec<f64> = a.floats().ok()?.into_iter().map(f).collect();
    let wide = Folded {
        shape: a.shape.clone(),
        dtype: DataType::Double,
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    Some(cast(&wide, a.dtype))
}

impl Importer<'_> {
    /// Folds shape subgraphs; `Ok(true)` when the node became a constant.
    /// Whether every named input is a constant of an integer type.
    fn integer_inputs(&self, inputs: &[&str]) -> bool {
        inputs.iter().all(|n| self.folded(n).is_some_and(|c| matches!(c.dtype, DataType::Int64 | DataType::Int32)))
    }

    pub(crate) fn fold(&mut self, node: &NodeProto) -> Result<bool, Error> {
        let inputs: Vec<&str> = node.input.iter().map(String::as_str).collect();
        let constant = |k: usize| -> Result<Folded, Error> {
            let name = inputs.get(k).filter(|n| !n.is_empty()).ok_or_else(|| format!("input #{k} is missing"))?;
            self.folded(name).ok_or_else(|| {
                Error::unsupported(format!(
                    "{} of values computed at run time (only constant folding is implemented)",
                    node.op_type()
                ))
            })
        };
        let folded = match node.op_type() {
            "Shape" | "Size" => {
                let (shape, _) = self.shape_of(inputs.first().ok_or("input #0 is missing")?)?;
                if node.op_type() == "Size" {
                    Folded::from_i64(Vec::new(), &[crate::shapes::numel(&shape)?])
                } else {
                    let rank = shape.len() as i64;
                    let clamp = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
                    let (start, end) = (clamp(int(node, "start", 0)), clamp(int(node, "end", rank)));
                    let dims = if start < end { &shape[start..end] } else { &[][..] };
                    Folded::from_i64(vec![dims.len() as i64], dims)
                }
            }
            "Gather" => match (inputs.first().and_then(|n| self.folded(n)), inputs.get(1).and_then(|n| self.folded(n)))
            {
                (Some(data), Some(indices)) => crate::fold::gather(&data, &indices, int(node, "axis", 0))?,
                _ => return Ok(false), // a run-time gather: sg.gather
            },
            "Concat" => {
                if inputs.iter().any(|n| !n.is_empty() && self.folded(n).is_none()) {
                    return Ok(false); // a run-time concatenation: a chain of sg.concat
                }
                let parts: Vec<Folded> = (0..inputs.len()).map(constant).collect::<Result<_, _>>()?;
                let axis = attribute(node, "axis").map(|a| a.i()).ok_or("Concat needs an axis")?;
                crate::fold::concat(&parts.iter().collect::<Vec<_>>(), axis)?
            }
            "Cast" | "CastLike" => {
                let to = self.cast_target(node)?;
                match inputs.first().and_then(|n| self.folded(n)) {
                    Some(input) => crate::fold::cast(&input, to)?,
                    None => return Ok(false), // a run-time cast: sg.cast
                }
            }
            "ConstantOfShape" => {
                // A large fill is broadcast at run time instead (`large_constant_of_shape`).
                if numel(&constant(0)?.ints()?)? > FILL_LIMIT {
                    return Ok(false);
                }
                let value = match attribute(node, "value").and_then(|a| a.t.as_ref()) {
                    Some(t) => {
                        let c = self.constant(t)?;
                        Some(Folded { shape: c.shape, dtype: c.dtype, bytes: c.bytes })
                    }
                    None => None,
                };
                crate::fold::constant_of_shape(&constant(0)?, value.as_ref())?
            }
            "Range" => crate::fold::range(&constant(0)?, &constant(1)?, &constant(2)?)?,
            "Neg" | "Ceil" | "Floor" | "Relu" | "Abs" => {
                let Some(a) = inputs.first().and_then(|n| self.folded(n)) else { return Ok(false) };
                match crate::fold::float_unary(node.op_type(), &a) {
                    Some(result) => result?,
                    // Shape arithmetic (as in ONNX's own function expansions) negates integers.
                    None if node.op_type() == "Neg" && matches!(a.dtype, DataType::Int64 | DataType::Int32) => {
                        let negated: Vec<i64> = a
                            .ints()?
                            .iter()
                            .map(|v| v.checked_neg().ok_or("integer overflow negating a constant"))
                            .collect::<Result<_, _>>()?;
                        let folded = Folded::from_i64(a.shape.clone(), &negated);
                        if a.dtype == DataType::Int32 {
                            crate::fold::cast(&folded, DataType::Int32)?
                        } else {
                            folded
                        }
                    }
                    None => return Ok(false),
                }
            }
            "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or" | "Xor" | "Not"
            | "Where" => {
                let operands: Option<Vec<Folded>> =
                    inputs.iter().map(|n| if n.is_empty() { None } else { self.folded(n) }).collect();
                let Some(operands) = operands else { return Ok(false) };
                let refs: Vec<&Folded> = operands.iter().collect();
                match crate::fold::logical(node.op_type(), &refs) {
                    Some(result) => result?,
                    None => return Ok(false),
                }
            }
            "Add" | "Sub" | "Mul" | "Div" | "Max" | "Min" | "Mod" => {
                let integer_only = matches!(node.op_type(), "Max" | "Min" | "Mod");
                if inputs.len() != 2 || (integer_only && !self.integer_inputs(&inputs)) {
                    return Ok(false);
                }
                let (Some(a), Some(b)) =
                    (inputs.first().and_then(|n| self.folded(n)), inputs.get(1).and_then(|n| self.folded(n)))
                else {
                    return Ok(false);
                };
                let op = if node.op_type() == "Mod" && int(node, "fmod", 0) != 0 { "FMod" } else { node.op_type() };
                match crate::fold::arithmetic(op, &a, &b) {
                    Some(result) => result?,
                    None => return Ok(false),
                }
            }
            _ => return Ok(false),
        };
        self.define_constant(node, folded)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_transpose() {
        let matrix = Folded::from_i64(vec![2, 3], &[1, 2, 3, 4, 5, 6]);
        let t = transpose_2d(&matrix).unwrap();
        assert_eq!((t.shape.clone(), t.ints().unwrap()), (vec![3, 2], vec![1, 4, 2, 5, 3, 6]));
        assert!(transpose_2d(&Folded::from_i64(vec![6], &[1, 2, 3, 4, 5, 6])).is_none());
        let packed = Folded { shape: vec![2, 2], dtype: DataType::Int4, bytes: vec![0x21, 0x43] };
        assert!(transpose_2d(&packed).is_none());
    }

    #[test]
    fn unsigned_extremes_fill_exactly() {
        let bytes = |dtype, value| Folded::scalar_of(dtype, value).unwrap().bytes;
        assert_eq!(bytes(DataType::Uint64, u64::MAX as f64), u64::MAX.to_le_bytes());
        assert_eq!(bytes(DataType::Uint64, -1.0), u64::MAX.to_le_bytes());
        assert_eq!(bytes(DataType::Uint64, 5.0), 5u64.to_le_bytes());
        assert_eq!(bytes(DataType::Uint32, u32::MAX as f64), u32::MAX.to_le_bytes());
        assert_eq!(bytes(DataType::Int64, i64::MAX as f64), i64::MAX.to_le_bytes());
    }

    #[test]
    fn shape_subgraph_pieces() {
        let shape = Folded::from_i64(vec![4], &[2, 3, 8, 8]);
        let picked = gather(&shape, &Folded::from_i64(vec![2], &[0, -3]), 0).unwrap();
        assert_eq!(picked.ints().unwrap(), vec![2, 3]);
        let joined = concat(&[&picked, &Folded::from_i64(vec![1], &[-1])], 0).unwrap();
        assert_eq!((joined.shape.clone(), joined.ints().unwrap()), (vec![3], vec![2, 3, -1]));
        let matrix = Folded::from_i64(vec![2, 3], &[1, 2, 3, 4, 5, 6]);
        assert_eq!(gather(&matrix, &Folded::from_i64(vec![], &[2]), 1).unwrap().ints().unwrap(), vec![3, 6]);
        assert_eq!(concat(&[&matrix, &matrix], 1).unwrap().ints().unwrap(), vec![1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
        assert_eq!(
            range(&Folded::from_i64(vec![], &[1]), &Folded::from_i64(vec![], &[10]), &Folded::from_i64(vec![], &[3]))
                .unwrap()
                .ints()
                .unwrap(),
            vec![1, 4, 7]
        );
        let zeros = constant_of_shape(&Folded::from_i64(vec![2], &[2, 2]), None).unwrap();
        assert_eq!((zeros.dtype, zeros.bytes.len()), (DataType::Float, 16));
        assert_eq!(
            arithmetic("Mul", &picked, &Folded::from_i64(vec![], &[4])).unwrap().unwrap().ints().unwrap(),
            vec![8, 12]
        );
        assert!(arithmetic("Div", &picked, &Folded::from_i64(vec![], &[0])).unwrap().is_err());
        assert!(gather(&shape, &Folded::from_i64(vec![1], &[4]), 0).is_err());
        // F.pad's pads, reversed pairwise: [[0, 64], [0, 0]] read backwards and transposed.
        let pairs = Folded::from_i64(vec![2, 2], &[0, 0, 0, 64]);
        assert_eq!(transpose(&pairs, &[1, 0]).unwrap().ints().unwrap(), vec![0, 0, 0, 64]);
        let cube = Folded::from_i64(vec![2, 1, 3], &[1, 2, 3, 4, 5, 6]);
        let moved = transpose(&cube, &[2, 0, 1]).unwrap();
        assert_eq!((moved.shape.clone(), moved.ints().unwrap()), (vec![3, 2, 1], vec![1, 4, 2, 5, 3, 6]));
        let huge = Folded::from_i64(vec![], &[1 << 30]);
        assert!(range(&Folded::from_i64(vec![], &[0]), &huge, &Folded::from_i64(vec![], &[1]))
            .unwrap_err()
            .message
            .contains("limit"));
        assert!(constant_of_shape(&Folded::from_i64(vec![2], &[1 << 20, 1 << 10]), None)
            .unwrap_err()
            .message
            .contains("limit"));
        assert_eq!(slice(&shape, &[1], &[4], &[2]).unwrap().ints().unwrap(), vec![3, 8]);
        assert_eq!(slice(&matrix, &[0, 1], &[2, 3], &[1, 1]).unwrap().ints().unwrap(), vec![2, 3, 5, 6]);
        // Rows reversed, every other column from the last.
        assert_eq!(slice(&matrix, &[1, 2], &[-1, -1], &[-1, -2]).unwrap().ints().unwrap(), vec![6, 4, 3, 1]);
        // Floats fold in their own precision: 0.1 + 0.2 in f32 is not 0.3 in f64.
        let f32s = |v: &[f32]| Folded {
            shape: vec![v.len() as i64],
            dtype: DataType::Float,
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        let sum = arithmetic("Add", &f32s(&[0.1]), &f32s(&[0.2])).unwrap().unwrap().floats().unwrap();
        assert_eq!(sum, vec![f64::from(0.1f32 + 0.2f32)]);
        let ceiled = float_unary("Ceil", &f32s(&[2.5, -2.5])).unwrap().unwrap().floats().unwrap();
        assert_eq!(ceiled, vec![3.0, -2.0]);
        assert!(float_unary("Exp", &f32s(&[1.0])).is_none());
    }

    /// A per-channel operand (a quantized weight's zero point or scale, reshaped to [C, 1, ..])
    /// broadcasts in a fold; operands that would make a larger constant than either do not.
    #[test]
    fn per_axis_operands_fold_and_outer_products_do_not() {
        let f32s = |shape: Vec<i64>, v: &[f32]| Folded {
            shape,
            dtype: DataType::Float,
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        let weights = f32s(vec![2, 3], &[1.0, 2.0, 3.0, -4.0, -5.0, -6.0]);
        let scales = f32s(vec![2, 1], &[0.5, 0.25]);
        let scaled = arithmetic("Mul", &weights, &scales).unwrap().unwrap();
        assert_eq!(scaled.shape, vec![2, 3]);
        assert_eq!(scaled.floats().unwrap(), vec![0.5, 1.0, 1.5, -1.0, -1.25, -1.5]);
        // Rank-extended on the left, as NumPy does: [3] against [2, 3].
        let row = f32s(vec![3], &[1.0, 1.0, 1.0]);
        assert_eq!(arithmetic("Sub", &weights, &row).unwrap().unwrap().floats().unwrap()[3], -5.0);
        let column = f32s(vec![2, 1], &[1.0, 2.0]);
        assert!(arithmetic("Add", &column, &f32s(vec![1, 3], &[1.0, 2.0, 3.0])).is_none());
    }
}
