//! Quantized inference operators, imported as subgraphs of the importer's own operators (see
//! `crate::expand`), with ONNX's reference arithmetic:
//!
//! - `DequantizeLinear`: `(x - zero_point) * scale` in f32 (x and the zero point widened to
//!   f32), cast to the scale's type (or `output_dtype`); per tensor, per axis, or blocked.
//! - `QuantizeLinear`: `x / scale` in the input's type (or `precision`), rounded half to even,
//!   plus the zero point in i32, clamped to the target's range; float8 targets cast with
//!   `saturate`, float4 targets add the zero point and cast.
//! - `MatMulInteger`, `ConvInteger`: operands widened to i32 minus their zero points, the
//!   product accumulated in i32.
//! - `QLinearMatMul`, `QLinearConv`: the same i32 accumulation (plus the i32 bias), requantized
//!   in f64 (`acc * (a_scale * b_scale / y_scale)`, as NumPy promotes i32 times f32), rounded
//!   half to even, plus the output zero point, clamped.
//! - `DynamicQuantizeLinear`: uint8 with the scale and zero point of the input's range
//!   (including 0).

use crate::expand::{attr_i, Expansion};
use crate::fold::Folded;
use crate::import::{attribute, int, ints, operand, required, tensor_type, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use melior::ir::{Block, BlockLike, Location};
use strata_dialect_sg as sg;
use strata_ir::Error;

/// The integer range of a quantized type, or `None` for the float ones.
fn integer_range(dtype: DataType) -> Option<(i64, i64)> {
    Some(match dtype {
        DataType::Uint8 => (0, 255),
        DataType::Int8 => (-128, 127),
        DataType::Uint16 => (0, 65535),
        DataType::Int16 => (-32768, 32767),
        DataType::Uint4 => (0, 15),
        DataType::Int4 => (-8, 7),
        DataType::Uint2 => (0, 3),
        DataType::Int2 => (-2, 1),
        DataType::Int32 => (i32::MIN as i64, i32::MAX as i64),
        _ => return None,
    })
}

fn is_float8(dtype: DataType) -> bool {
    matches!(dtype, DataType::Float8e4m3fn | DataType::Float8e4m3fnuz | DataType::Float8e5m2 | DataType::Float8e5m2fnuz)
}

/// A `QuantizeLinear` to an integer type of up to 16 bits computed in f32, by its output:
/// what a `DequantizeLinear` of that output needs to compute the pair in floats
/// ([`Importer::fake_quantized`]; an i32 target's range is not exact in f32).
#[derive(Clone, Debug)]
pub(crate) struct Quantized {
    input: String,
    scale: String,
    zero: Option<String>,
    axis: i64,
    block_size: i64,
    target: DataType,
}

/// A `DequantizeLinear` of a constant 8-bit integer tensor (a QDQ model's weight), by its
/// output: what [`Importer::quantized_matmul`] packs.
#[derive(Clone, Debug)]
pub(crate) struct Dequantized {
    input: String,
    scale: String,
    zero: Option<String>,
    axis: i64,
}

/// A quantized product's constant weight, centred (i8) and laid out for its kernel (a matmul's
/// packed `[N / 16, K / 4, 16, 4]`, a 1x1 filter's `[O, C]`), and each output's sum of centred
/// values.
struct PackedWeight {
    packed: Folded,
    sums: Vec<i64>,
    /// The weight's columns (the packed ones past them are zero padding).
    columns: usize,
}

impl PackedWeight {
    /// The sums' start for an activation zero point `zero`: `-zero * sum` per column as i32
    /// little-endian bytes, `None` when one does not fit i32.
    fn offsets(&self, zero: i64) -> Option<Vec<u8>> {
        let offsets: Option<Vec<i32>> = self.sums.iter().map(|sum| i32::try_from(-zero * sum).ok()).collect();
        Some(offsets?.iter().flat_map(|o| o.to_le_bytes()).collect())
    }
}

/// Columns of one packed block of a quantized product's weight (a 16-lane i32 register).
const PACKED_COLUMNS: usize = 16;
/// The value of a byte of an 8-bit integer type (`None` for other types).
fn byte_value(dtype: DataType) -> Option<fn(u8) -> i64> {
    match dtype {
        DataType::Int8 => Some(|byte| i64::from(byte as i8)),
        DataType::Uint8 => Some(i64::from),
        _ => None,
    }
}

/// Each of the f32 `scales` (little-endian bytes) times `factor`, as little-endian bytes.
fn times(scales: &[Vec<u8>], factor: f32) -> Vec<u8> {
    scales
        .iter()
        .flat_map(|s| (factor * f32::from_le_bytes(s[..4].try_into().expect("four bytes"))).to_le_bytes())
        .collect()
}

/// Products one dot-product lane sums (four bytes of a 32-bit lane).
const PACKED_DEPTH: usize = 4;

impl Importer<'_> {
    /// Whether `a` and `b` are one value: one name, or constants of equal type, shape and bytes.
    fn same_value(&self, a: &str, b: &str) -> bool {
        a == b || self.folded(a).is_some_and(|x| self.folded(b).is_some_and(|y| x == y))
    }

    /// A `DequantizeLinear` of a `QuantizeLinear`'s output with the same scale, zero point,
    /// axis and block size (a QDQ model's activations), computed from the quantized value's
    /// input in floats: `(min(max(round(x / scale) + zero, lo), hi) - zero) * scale`, as
    /// `min(max(round(x / scale), lo - zero), hi - zero) * scale` (the zero point's add and
    /// subtract go: the same values, two operations fewer an element). For every finite input
    /// the values are the integer path's exactly (the rounded quotient plus the zero point is
    /// exact in f32 below 2^24, and anything beyond clamps to the same end; so is the clamp of
    /// the quotient against the shifted bounds, integers below 2^16),
    /// and the steps are elementwise f32 ops that fuse with the producer's epilogue, where the
    /// integer path's casts (f32 to i32, to i8, back to f32) each ran as a kernel of its own
    /// (the int8 QDQ CNN: five kernels an activation). Out of range (infinities, quotients
    /// past i32) the result saturates as ONNX specifies, where the integer cast's result was
    /// undefined; NaN stays NaN. `false` when the node is not such a pair (it is then
    /// imported as it is).
    fn fake_quantized(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<bool, Error> {
        let x = required(node, 0)?;
        let Some(q) = self.quantized.get(x).cloned() else { return Ok(false) };
        let Some((lo, hi)) = integer_range(q.target) else { return Ok(false) };
        let same_zero = match (operand(node, 2), &q.zero) {
            (None, None) => true,
            (Some(a), Some(b)) => self.same_value(a, b),
            _ => false,
        };
        let output_dtype = int(node, "output_dtype", 0);
        let same = self.same_value(required(node, 1)?, &q.scale)
            && same_zero
            && int(node, "axis", 1) == q.axis
            && int(node, "block_size", 0) == q.block_size
            && (output_dtype == 0 || output_dtype == DataType::Float as i64);
        let (_, scale_type) = self.shape_of(&q.scale)?;
        if !same || scale_type != DataType::Float {
            return Ok(false);
        }
        let (shape, _) = self.shape_of(&q.input)?;
        let mut e = Expansion::new(block, node, index);
        let input = self.cast_to(&mut e, &q.input, DataType::Float, None)?;
        let scale = self.quantization_parameter(&mut e, &q.scale, &shape, q.axis, q.block_size)?;
        let zero = match &q.zero {
            Some(zero) => {
                let zero = self.quantization_parameter(&mut e, zero, &shape, q.axis, q.block_size)?;
                Some(self.cast_to(&mut e, &zero, DataType::Float, None)?)
            }
            None => None,
        };
        let scaled = e.op(self, "Div", &[&input, &scale], vec![])?;
        let rounded = e.op(self, "Round", &[&scaled], vec![])?;
        let (lo, hi) = (e.scalar(self, DataType::Float, lo as f64)?, e.scalar(self, DataType::Float, hi as f64)?);
        let (lo, hi) = match &zero {
            Some(zero) => (e.op(self, "Sub", &[&lo, zero], vec![])?, e.op(self, "Sub", &[&hi, zero], vec![])?),
            None => (lo, hi),
        };
        let clamped = e.op(self, "Max", &[&rounded, &lo], vec![])?;
        let centred = e.op(self, "Min", &[&clamped, &hi], vec![])?;
        let y = e.op(self, "Mul", &[&centred, &scale], vec![])?;
        self.alias(&y, node.output[0].clone())?;
        self.fake_quantized.insert(node.output[0].clone(), q);
        Ok(true)
    }

    /// A QDQ model's `MatMul` of an 8-bit activation (a `DequantizeLinear` of a
    /// `QuantizeLinear`, one scale and zero point) and a constant 8-bit weight `[K, N]` (per
    /// tensor or per column), K a multiple of 4, as `sg.quantized_matmul`: the
    /// activation quantized once (`clamp(round(x / s) + z, 0, 255)` as `uint8`, an int8 one
    /// and its zero point 128 higher), the weight's
    /// zero-point-centred values packed `[N / 16, K / 4, 16, 4]` (they must fit `int8`; N padded
    /// with zero columns to a multiple of 16, the result sliced back), each
    /// column's sum starting from `-z * sum_k w[k, n]`, times `s * s_w[n]`. The products are
    /// exact integers, where the floats' each rounded; ONNX Runtime computes QDQ products
    /// this way too. `false` (imported as the float product) when the node is not such a
    /// product or the option is off.
    pub(crate) fn quantized_matmul(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        location: Location,
    ) -> Result<bool, Error> {
        if node.input.len() != 2 {
            return Ok(false);
        }
        self.quantized_product(block, node, (index, location), false)
    }

    /// A QDQ model's `Gemm` (alpha and beta 1, A not transposed) of an 8-bit activation and a
    /// constant 8-bit weight, `[K, N]` or `[N, K]` with `transB` (per tensor or per output: a
    /// classifier's last layer, `[1000, 1280]` in MobileNetV2), as [`Importer::quantized_matmul`]
    /// takes a `MatMul`, then the bias `C` added in f32. The float Gemm read the weight
    /// dequantized, 4 bytes an element, every run (0.20 ms of MobileNetV2's classifier against
    /// ONNX Runtime's 0.07). `false` (imported as the float Gemm) when it is not such a product
    /// or the option is off.
    pub(crate) fn quantized_gemm(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        location: Location,
    ) -> Result<bool, Error> {
        let one = |name: &str| attribute(node, name).is_none_or(|a| a.f() == 1.0);
        if !one("alpha") || !one("beta") || int(node, "transA", 0) != 0 || node.input.len() < 2 {
            return Ok(false);
        }
        self.quantized_product(block, node, (index, location), int(node, "transB", 0) != 0)
    }

    /// [`Importer::quantized_matmul`] of `node`'s first two inputs, the weight `[N, K]` if
    /// `transposed`, plus its third input (a Gemm's bias) if any.
    fn quantized_product(
        &mut self,
        block: &Block,
        node: &NodeProto,
        (index, location): (usize, Location),
        transposed: bool,
    ) -> Result<bool, Error> {
        if !self.integer_products {
            return Ok(false);
        }
        let (a, b) = (required(node, 0)?, required(node, 1)?);
        let (Some(q), Some(w)) = (self.fake_quantized.get(a).cloned(), self.dequantized_constants.get(b).cloned())
        else {
            return Ok(false);
        };
        let (a_shape, _) = self.shape_of(a)?;
        let Some((a_scale, a_zero)) = self.activation_quantization(&q, &a_shape)? else { return Ok(false) };
        if a_shape.len() < 2 {
            return Ok(false);
        }
        let depth = a_shape[a_shape.len() - 1];
        let Some(packed) = self.packed_weight(&w.input, w.zero.as_deref(), w.axis, depth, transposed) else {
            return Ok(false);
        };
        let (n, padded) = (packed.columns, packed.sums.len());
        let along = (2, usize::from(!transposed));
        let Some(w_scales) = self.per_output(&w.scale, DataType::Float, w.axis, along, n) else { return Ok(false) };
        let Some(offsets) = packed.offsets(a_zero) else { return Ok(false) };
        // The padding's columns: zero sums, scale 0.
        let mut scales = times(&w_scales, a_scale);
        scales.resize(padded * 4, 0);
        let mut e = Expansion::new(block, node, index);
        let lhs = self.uint8_activation(&mut e, &q.input, (a_scale, a_zero))?;
        let offsets =
            e.constant(self, Folded { shape: vec![padded as i64], dtype: DataType::Int32, bytes: offsets })?;
        let scales = e.constant(self, Folded { shape: vec![padded as i64], dtype: DataType::Float, bytes: scales })?;
        self.emit_quantized_matmul(block, node, location, &mut e, (&lhs, packed), (&offsets, Some(&scales)))?;
        let mut result = self.without_padding(&mut e, node, a_shape.len(), (n, padded))?;
        if let Some(bias) = operand(node, 2) {
            result = e.op(self, "Add", &[&result, bias], vec![])?;
        }
        if result != node.output[0] {
            self.alias(&result, node.output[0].clone())?;
        }
        Ok(true)
    }

    /// A `MatMulInteger` of a `uint8` left operand (one zero point, constant or computed, as
    /// `DynamicQuantizeLinear` gives it: how `quantize_dynamic` and Optimum write transformers'
    /// products) and a constant 8-bit `[K, N]` right one (per tensor or per column zero points),
    /// K a multiple of 4 (N padded to 16 and sliced back: a classifier's 2 labels, BERT's 30522
    /// words), as `sg.quantized_matmul` with an i32 result: the right
    /// operand centred and packed as [`Importer::quantized_matmul`] packs it, each column's sum
    /// starting from `-z_a * sum_k w[k, n]` (computed at run time when `z_a` is). The same
    /// exact sums as the generic i32 product, which ran as scalar loops (a `[128, 384] x [384,
    /// 1536]` product 48.5 ms against ONNX Runtime's 0.37). `false` when it is not such a product
    /// or the option is off.
    fn packed_integer_product(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        location: Location,
    ) -> Result<bool, Error> {
        if !self.integer_products || node.op_type() != "MatMulInteger" {
            return Ok(false);
        }
        let (a, b) = (required(node, 0)?, required(node, 1)?);
        let (a_shape, a_type) = self.shape_of(a)?;
        if a_type != DataType::Uint8 || a_shape.len() < 2 {
            return Ok(false);
        }
        let a_zero = operand(node, 2);
        if let Some(z) = a_zero {
            let (shape, dtype) = self.shape_of(z)?;
            if dtype != DataType::Uint8 || crate::shapes::numel(&shape)? != 1 {
                return Ok(false);
            }
        }
        let Some(packed) = self.packed_weight(b, operand(node, 3), 1, a_shape[a_shape.len() - 1], false) else {
            return Ok(false);
        };
        let (n, columns) = (packed.sums.len(), packed.columns);
        let mut e = Expansion::new(block, node, index);
        // The zero point when it is computed at run time; else its constant value (0 when absent).
        let runtime_zero = a_zero.filter(|z| self.folded(z).is_none());
        let constant_zero = a_zero.and_then(|z| self.folded(z)).map_or(0, |f| i64::from(f.bytes[0]));
        // A run-time zero point multiplies the negated sums (the offsets of a zero point of 1).
        let Some(bytes) = packed.offsets(if runtime_zero.is_some() { 1 } else { constant_zero }) else {
            return Ok(false);
        };
        let offsets = e.constant(self, Folded { shape: vec![n as i64], dtype: DataType::Int32, bytes })?;
        let offsets = match runtime_zero {
            None => offsets,
            Some(z) => {
                let negated = offsets;
                let scalar = e.ints(self, &[]);
                let z = e.op(self, "Reshape", &[z, &scalar], vec![])?;
                let z = self.cast_to(&mut e, &z, DataType::Int32, None)?;
                e.op(self, "Mul", &[&negated, &z], vec![])?
            }
        };
        self.emit_quantized_matmul(block, node, location, &mut e, (a, packed), (&offsets, None))?;
        let result = self.without_padding(&mut e, node, a_shape.len(), (columns, n))?;
        if result != node.output[0] {
            self.alias(&result, node.output[0].clone())?;
        }
        Ok(true)
    }

    /// The name of `node`'s product (its output, `rank` dimensions) without the padding's
    /// columns: itself when `padded` is the weight's `columns`, else a slice of the first
    /// `columns` of the last dimension (a view).
    fn without_padding(
        &mut self,
        e: &mut Expansion,
        node: &NodeProto,
        rank: usize,
        (columns, padded): (usize, usize),
    ) -> Result<String, Error> {
        let product = node.output[0].clone();
        if columns == padded {
            return Ok(product);
        }
        let (starts, ends, axes) =
            (e.ints(self, &[0]), e.ints(self, &[columns as i64]), e.ints(self, &[rank as i64 - 1]));
        e.op(self, "Slice", &[&product, &starts, &ends, &axes], vec![])
    }

    /// The scale and the `uint8` zero point of the fake-quantized activation `q` read as a value of
    /// shape `shape` by an integer product: 8-bit, one scale and zero point, quantized from
    /// f32. An int8 one (what quantize_static writes by default) is the uint8 one 128 higher:
    /// `vpdpbusd` takes one unsigned operand, so its zero point moves up by 128 with it.
    /// `None` when it is not such an activation.
    fn activation_quantization(&self, q: &Quantized, shape: &[i64]) -> Result<Option<(f32, i64)>, Error> {
        let (x_shape, x_type) = self.shape_of(&q.input)?;
        let shift = match q.target {
            DataType::Uint8 => 0,
            DataType::Int8 => 128,
            _ => return Ok(None),
        };
        let Some(scale) = self.scalar_constant(&q.scale, DataType::Float) else { return Ok(None) };
        let zero = match &q.zero {
            None => Some(shift),
            Some(z) => self.scalar_constant(z, q.target).map(|f| {
                let zero = if shift == 0 { i64::from(f.bytes[0]) } else { i64::from(f.bytes[0] as i8) };
                zero + shift
            }),
        };
        let activation = q.block_size == 0 && x_type == DataType::Float && x_shape == shape;
        let scale = f32::from_le_bytes(scale.bytes[..4].try_into().expect("four bytes"));
        Ok(zero.filter(|_| activation).map(|zero| (scale, zero)))
    }

    /// The float activation `x` quantized to `uint8` with `scale` and `zero`, in floats until
    /// the cast (one fused program).
    fn uint8_activation(&mut self, e: &mut Expansion, x: &str, (scale, zero): (f32, i64)) -> Result<String, Error> {
        let scale = e.scalar(self, DataType::Float, f64::from(scale))?;
        let zero = if zero != 0 { Some(e.scalar(self, DataType::Float, zero as f64)?) } else { None };
        let clamped = self.quantized_in_floats(e, x, &scale, zero.as_deref(), (0, 255))?;
        self.cast_to(e, &clamped, DataType::Uint8, None)
    }

    /// A QDQ model's 1x1 `Conv` (stride 1, no padding, one group, batch 1) of an 8-bit
    /// activation (as [`Importer::quantized_matmul`] takes it) with a constant 8-bit filter `[O,
    /// C, 1, 1]` (per tensor or per output channel), C a multiple of 4, as `sg.quantized_conv`
    /// plus the bias: the activation quantized once to `uint8`, the filter's zero-point-centred
    /// values (they must fit `int8`) as `[O, C]`, each output channel's sum starting from `-z *
    /// sum_c w[o, c]`, times `s * s_w[o]`. MobileNetV2's expansions and projections are such
    /// convolutions, most of its multiply-adds. `false` (imported as the float convolution)
    /// when the node is not one or the option is off.
    pub(crate) fn quantized_conv(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        location: Location,
    ) -> Result<bool, Error> {
        if !self.integer_products || node.input.len() < 2 {
            return Ok(false);
        }
        let (x, w) = (required(node, 0)?, required(node, 1)?);
        let (Some(q), Some(filter)) = (self.fake_quantized.get(x).cloned(), self.dequantized_constants.get(w).cloned())
        else {
            return Ok(false);
        };
        let ((x_shape, _), (w_shape, _)) = (self.shape_of(x)?, self.shape_of(w)?);
        let pointwise = matches!((&x_shape[..], &w_shape[..]), ([1, c, _, _], [_, k, 1, 1]) if c == k && c % 4 == 0);
        let ones = |name: &str| ints(node, name).is_none_or(|v| v.iter().all(|&s| s == 1));
        let unpadded = pointwise
            && crate::conv::window_pads(node, &x_shape[2..], &[1, 1], &[1, 1], &[1, 1])
                .is_ok_and(|p| p.iter().all(|&p| p == 0));
        if !unpadded || !ones("strides") || !ones("dilations") || int(node, "group", 1) != 1 {
            return Ok(false);
        }
        let bias = operand(node, 2);
        if let Some(b) = bias {
            if self.shape_of(b)? != (vec![w_shape[0]], DataType::Float) {
                return Ok(false);
            }
        }
        let Some((a_scale, a_zero)) = self.activation_quantization(&q, &x_shape)? else { return Ok(false) };
        let (o, c) = (w_shape[0] as usize, w_shape[1] as usize);
        let Some(centred) = self.centred_filter(&filter, o, c) else { return Ok(false) };
        let Some(w_scales) = self.per_output(&filter.scale, DataType::Float, filter.axis, (4, 0), o) else {
            return Ok(false);
        };
        let Some(offsets) = centred.offsets(a_zero) else { return Ok(false) };
        let mut e = Expansion::new(block, node, index);
        let input = self.uint8_activation(&mut e, &q.input, (a_scale, a_zero))?;
        let weight = e.constant(self, centred.packed)?;
        let offsets = e.constant(self, Folded { shape: vec![o as i64], dtype: DataType::Int32, bytes: offsets })?;
        let scales = e.constant(
            self,
            Folded { shape: vec![o as i64], dtype: DataType::Float, bytes: times(&w_scales, a_scale) },
        )?;
        let operands = [&input, &weight, &offsets, &scales].map(|v| self.use_value(block, v, location));
        let [input, weight, offsets, scales] = operands;
        let shape = vec![1, o as i64, x_shape[2], x_shape[3]];
        let context = self.strata.mlir();
        let op = block.append_operation(sg::QuantizedConv::build(
            context,
            location,
            input?.get(),
            weight?.get(),
            offsets?.get(),
            scales?.get(),
            tensor_type(context, &shape, DataType::Float)?,
        ));
        let Some(bias) = bias else {
            self.define(node, op, shape, DataType::Float);
            return Ok(true);
        };
        let product = e.fresh_name("quantized_conv");
        let value: melior::ir::Value = op.result(0).expect("one result").into();
        self.values.insert(product.clone(), Entry::Value { value: value.into(), shape, dtype: DataType::Float });
        let channels = e.ints(self, &[o as i64, 1, 1]);
        let bias = e.op(self, "Reshape", &[bias, &channels], vec![])?;
        let y = e.op(self, "Add", &[&product, &bias], vec![])?;
        self.alias(&y, node.output[0].clone()).map(|()| true)
    }

    /// The constant 8-bit filter of `filter` (`[O, C, 1, 1]`) minus its zero points (none, one,
    /// or one per output channel), as `int8 [O, C]` with each output channel's sum; `None`
    /// when a centred value does not fit `int8`.
    fn centred_filter(&self, filter: &Dequantized, o: usize, c: usize) -> Option<PackedWeight> {
        let weight = self.folded(&filter.input)?;
        let value = byte_value(weight.dtype)?;
        if weight.bytes.len() != o * c {
            return None;
        }
        let zeros = self.weight_zeros(filter.zero.as_deref(), weight.dtype, filter.axis, (4, 0), o)?;
        let centred: Option<Vec<u8>> = weight
            .bytes
            .iter()
            .enumerate()
            .map(|(i, &byte)| i8::try_from(value(byte) - zeros[i / c]).ok().map(|v| v as u8))
            .collect();
        let centred = centred?;
        let sums = centred.chunks(c).map(|row| row.iter().map(|&b| i64::from(b as i8)).sum()).collect();
        Some(PackedWeight {
            packed: Folded { shape: vec![o as i64, c as i64], dtype: DataType::Int8, bytes: centred },
            sums,
            columns: o,
        })
    }

    /// `min(max(round(x / scale) + zero, lo), hi)` in f32 (round half to even), the zero point
    /// left out when there is none: a QuantizeLinear's integer computed in floats, exact for
    /// every finite `x` (targets up to 16 bits).
    fn quantized_in_floats(
        &mut self,
        e: &mut Expansion,
        x: &str,
        scale: &str,
        zero: Option<&str>,
        (lo, hi): (i64, i64),
    ) -> Result<String, Error> {
        let scaled = e.op(self, "Div", &[x, scale], vec![])?;
        let rounded = e.op(self, "Round", &[&scaled], vec![])?;
        let shifted = match zero {
            Some(zero) => e.op(self, "Add", &[&rounded, zero], vec![])?,
            None => rounded,
        };
        let (lo, hi) = (e.scalar(self, DataType::Float, lo as f64)?, e.scalar(self, DataType::Float, hi as f64)?);
        let clamped = e.op(self, "Max", &[&shifted, &lo], vec![])?;
        e.op(self, "Min", &[&clamped, &hi], vec![])
    }

    /// The constant `value` when it holds one element of `dtype`.
    fn scalar_constant(&self, value: &str, dtype: DataType) -> Option<Folded> {
        self.folded(value).filter(|f| f.dtype == dtype && f.bytes.len() == crate::fold::width(dtype))
    }

    /// The constant `value` of `dtype` as `n` outputs' little-endian bytes: one element for
    /// every output, or one per output when its `axis` is the weight's output axis `along` (of
    /// `rank`): a matmul weight's columns (2, 1), a convolution filter's (4, 0).
    fn per_output(
        &self,
        value: &str,
        dtype: DataType,
        axis: i64,
        (rank, along): (usize, usize),
        n: usize,
    ) -> Option<Vec<Vec<u8>>> {
        let f = self.folded(value).filter(|f| f.dtype == dtype)?;
        let width = crate::fold::width(dtype);
        let count = f.bytes.len() / width;
        let per_output = crate::shapes::axis(axis, rank as i64).ok() == Some(along) && f.shape == [n as i64];
        (count == 1 || per_output).then(|| (0..n).map(|c| f.bytes[(c % count) * width..][..width].to_vec()).collect())
    }

    /// A constant 8-bit weight's zero points of `dtype` as `n` outputs' values: 0 without
    /// them, else one for all or one per output along the weight's output axis ([`Self::per_output`]).
    fn weight_zeros(
        &self,
        zero: Option<&str>,
        dtype: DataType,
        axis: i64,
        output_axis: (usize, usize),
        n: usize,
    ) -> Option<Vec<i64>> {
        let value = byte_value(dtype)?;
        match zero {
            None => Some(vec![0; n]),
            Some(z) => Some(self.per_output(z, dtype, axis, output_axis, n)?.iter().map(|z| value(z[0])).collect()),
        }
    }

    /// The constant 8-bit weight `weight` `[K, N]` (`[N, K]` if `transposed`; K = `depth`, a
    /// multiple of 4; any N, padded to a multiple of 16: the columns past it zero, their sums 0)
    /// minus its zero points `zero` (none, one, or one per column along `axis`), packed for
    /// `sg.quantized_matmul`, with each column's sum; `None` when it is not such a weight or a
    /// centred value does not fit `int8`.
    fn packed_weight(
        &self,
        weight: &str,
        zero: Option<&str>,
        axis: i64,
        depth: i64,
        transposed: bool,
    ) -> Option<PackedWeight> {
        let weight = self.folded(weight)?;
        let value = byte_value(weight.dtype)?;
        let (k, n) = match (&weight.shape[..], transposed) {
            (&[k, n], false) | (&[n, k], true) if k > 0 && n > 0 && k == depth => (k as usize, n as usize),
            _ => return None,
        };
        if k % PACKED_DEPTH != 0 {
            return None;
        }
        let zeros = self.weight_zeros(zero, weight.dtype, axis, (2, usize::from(!transposed)), n)?;
        let columns = n.next_multiple_of(PACKED_COLUMNS);
        let mut packed = vec![0u8; k * columns];
        let mut sums = vec![0i64; columns];
        for row in 0..k {
            for (col, sum) in sums.iter_mut().enumerate().take(n) {
                let at = if transposed { col * k + row } else { row * n + col };
                let centred = value(weight.bytes[at]) - zeros[col];
                let byte = i8::try_from(centred).ok()?;
                let at = (((col / PACKED_COLUMNS) * (k / PACKED_DEPTH) + row / PACKED_DEPTH) * PACKED_COLUMNS
                    + col % PACKED_COLUMNS)
                    * PACKED_DEPTH
                    + row % PACKED_DEPTH;
                packed[at] = byte as u8;
                *sum += centred;
            }
        }
        let shape = vec![
            (columns / PACKED_COLUMNS) as i64,
            (k / PACKED_DEPTH) as i64,
            PACKED_COLUMNS as i64,
            PACKED_DEPTH as i64,
        ];
        Some(PackedWeight { packed: Folded { shape, dtype: DataType::Int8, bytes: packed }, sums, columns: n })
    }

    /// `sg.quantized_matmul` of `lhs` (the `ui8` rows) and the packed weight from `offsets`,
    /// as `node`'s output: f32 times `scales`, or the i32 sums without them.
    fn emit_quantized_matmul(
        &mut self,
        block: &Block,
        node: &NodeProto,
        location: Location,
        e: &mut Expansion,
        (lhs, weight): (&str, PackedWeight),
        (offsets, scales): (&str, Option<&str>),
    ) -> Result<(), Error> {
        let n = weight.sums.len() as i64;
        let rhs = e.constant(self, weight.packed)?;
        let (lhs_shape, _) = self.shape_of(lhs)?;
        let mut shape = lhs_shape.clone();
        *shape.last_mut().expect("rank 2 at least") = n;
        let lhs = self.use_value(block, lhs, location)?;
        let rhs = self.use_value(block, &rhs, location)?;
        let offsets = self.use_value(block, offsets, location)?;
        let scales = scales.map(|s| self.use_value(block, s, location)).transpose()?;
        let dtype = if scales.is_some() { DataType::Float } else { DataType::Int32 };
        let context = self.strata.mlir();
        let op = block.append_operation(sg::QuantizedMatmul::build(
            context,
            location,
            lhs.get(),
            rhs.get(),
            offsets.get(),
            scales.map(|s| s.get()),
            tensor_type(context, &shape, dtype)?,
        ));
        self.define(node, op, shape, dtype);
        Ok(())
    }

    /// `Cast(value) to dtype` (plus `saturate` for float8 targets).
    fn cast_to(
        &mut self,
        e: &mut Expansion,
        value: &str,
        dtype: DataType,
        saturate: Option<i64>,
    ) -> Result<String, Error> {
        if self.shape_of(value)?.1 == dtype {
            return Ok(value.to_owned());
        }
        let mut attributes = vec![attr_i("to", dtype as i64)];
        if let Some(s) = saturate {
            attributes.push(attr_i("saturate", s));
        }
        e.op(self, "Cast", &[value], attributes)
    }

    /// A scale or zero point shaped to broadcast against an input of shape `shape`: a scalar
    /// or one-element tensor as a scalar, a 1-D tensor along `axis`, a blocked tensor repeated
    /// `block` times along `axis` (and cut to the input's length).
    fn quantization_parameter(
        &mut self,
        e: &mut Expansion,
        value: &str,
        shape: &[i64],
        axis: i64,
        block: i64,
    ) -> Result<String, Error> {
        let (p, _) = self.shape_of(value)?;
        let count = crate::shapes::numel(&p)?;
        if p.is_empty() {
            return Ok(value.to_owned());
        }
        if count == 1 {
            let scalar = e.ints(self, &[]);
            return e.op(self, "Reshape", &[value, &scalar], vec![]);
        }
        let axis = crate::shapes::axis(axis, shape.len() as i64)?;
        if block <= 0 {
            if p.len() != 1 || p[0] != shape[axis] {
                return Err(format!(
                    "a per-axis parameter of shape {p:?} does not match axis {axis} of the input {shape:?}"
                )
                .into());
            }
            let mut dims = vec![1; shape.len()];
            dims[axis] = p[0];
            let dims = e.ints(self, &dims);
            return e.op(self, "Reshape", &[value, &dims], vec![]);
        }
        let blocks = (shape[axis] + block - 1) / block;
        if p.len() != shape.len() || p[axis] != blocks || (0..p.len()).any(|d| d != axis && p[d] != shape[d]) {
            return Err(format!(
                "a blocked parameter of shape {p:?} does not match the input {shape:?} in blocks of {block} along axis {axis}"
            )
            .into());
        }
        // [.., blocks, ..] -> [.., blocks, 1, ..] -> [.., blocks, block, ..] -> [.., blocks * block, ..].
        let mut lifted = p.clone();
        lifted.insert(axis + 1, 1);
        let lifted_shape = e.ints(self, &lifted);
        let lifted = e.op(self, "Reshape", &[value, &lifted_shape], vec![])?;
        let mut wide = p.clone();
        wide.insert(axis + 1, block);
        let wide_shape = e.ints(self, &wide);
        let wide = e.op(self, "Expand", &[&lifted, &wide_shape], vec![])?;
        let mut flat = p.clone();
        flat[axis] = blocks * block;
        let flat_shape = e.ints(self, &flat);
        let mut repeated = e.op(self, "Reshape", &[&wide, &flat_shape], vec![])?;
        if blocks * block != shape[axis] {
            let (starts, ends, axes) = (e.ints(self, &[0]), e.ints(self, &[shape[axis]]), e.ints(self, &[axis as i64]));
            repeated = e.op(self, "Slice", &[&repeated, &starts, &ends, &axes], vec![])?;
        }
        Ok(repeated)
    }

    /// `DequantizeLinear`.
    pub(crate) fn dequantize_linear(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        if self.fake_quantized(block, node, index)? {
            return Ok(());
        }
        let x = required(node, 0)?;
        let scale = required(node, 1)?;
        let (shape, x_type) = self.shape_of(x)?;
        let (_, scale_type) = self.shape_of(scale)?;
        let out_type = match int(node, "output_dtype", 0) {
            0 => scale_type,
            t => DataType::try_from(t as i32).map_err(|_| Error::invalid_input(format!("output_dtype {t}")))?,
        };
        let axis = int(node, "axis", 1);
        let block_size = int(node, "block_size", 0);
        let constant_weight = self.folded(x).is_some() && matches!(x_type, DataType::Int8 | DataType::Uint8);
        if self.integer_products && constant_weight && block_size == 0 && out_type == DataType::Float {
            let zero = operand(node, 2).map(str::to_owned);
            let weight = Dequantized { input: x.to_owned(), scale: scale.to_owned(), zero, axis };
            self.dequantized_constants.insert(node.output[0].clone(), weight);
        }
        let mut e = Expansion::new(block, node, index);
        let wide = self.cast_to(&mut e, x, DataType::Float, None)?;
        let shifted = match operand(node, 2) {
            Some(zero) if integer_range(x_type).is_some() => {
                let zero = self.quantization_parameter(&mut e, zero, &shape, axis, block_size)?;
                let zero = self.cast_to(&mut e, &zero, DataType::Float, None)?;
                e.op(self, "Sub", &[&wide, &zero], vec![])?
            }
            _ => wide,
        };
        let scale = self.quantization_parameter(&mut e, scale, &shape, axis, block_size)?;
        let scale = self.cast_to(&mut e, &scale, DataType::Float, None)?;
        let y = e.op(self, "Mul", &[&shifted, &scale], vec![])?;
        let y = self.cast_to(&mut e, &y, out_type, None)?;
        self.alias(&y, node.output[0].clone())
    }

    /// `QuantizeLinear`.
    pub(crate) fn quantize_linear(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, x_type) = self.shape_of(x)?;
        let zero = operand(node, 2);
        let target = match (zero, int(node, "output_dtype", 0)) {
            (Some(z), _) => self.shape_of(z)?.1,
            (None, 0) => DataType::Uint8,
            (None, t) => DataType::try_from(t as i32).map_err(|_| Error::invalid_input(format!("output_dtype {t}")))?,
        };
        let axis = int(node, "axis", 1);
        let block_size = int(node, "block_size", 0);
        let mut e = Expansion::new(block, node, index);
        let compute = match int(node, "precision", 0) {
            0 => x_type,
            p => DataType::try_from(p as i32).map_err(|_| Error::invalid_input(format!("precision {p}")))?,
        };
        // Targets up to 16 bits: their range, plus or minus the zero point, is exact in f32.
        if integer_range(target).is_some_and(|(lo, hi)| hi - lo < 1 << 24) && compute == DataType::Float {
            let quantized = Quantized {
                input: x.to_owned(),
                scale: required(node, 1)?.to_owned(),
                zero: zero.map(str::to_owned),
                axis,
                block_size,
                target,
            };
            self.quantized.insert(node.output[0].clone(), quantized);
        }
        let x = self.cast_to(&mut e, x, compute, None)?;
        let scale = self.quantization_parameter(&mut e, required(node, 1)?, &shape, axis, block_size)?;
        let scale = self.cast_to(&mut e, &scale, compute, None)?;
        let scaled = e.op(self, "Div", &[&x, &scale], vec![])?;
        let y = if let Some((lo, hi)) = integer_range(target) {
            let rounded = e.op(self, "Round", &[&scaled], vec![])?;
            let mut q = self.cast_to(&mut e, &rounded, DataType::Int32, None)?;
            if let Some(zero) = zero {
                let zero = self.quantization_parameter(&mut e, zero, &shape, axis, block_size)?;
                let zero = self.cast_to(&mut e, &zero, DataType::Int32, None)?;
                q = e.op(self, "Add", &[&q, &zero], vec![])?;
            }
            let (lo, hi) = (e.scalar(self, DataType::Int32, lo as f64)?, e.scalar(self, DataType::Int32, hi as f64)?);
            let q = e.op(self, "Max", &[&q, &lo], vec![])?;
            let q = e.op(self, "Min", &[&q, &hi], vec![])?;
            self.cast_to(&mut e, &q, target, None)?
        } else if is_float8(target) {
            let saturate = attribute(node, "saturate").map_or(1, |a| a.i());
            self.cast_to(&mut e, &scaled, target, Some(saturate))?
        } else if target == DataType::Float4e2m1 {
            let shifted = match zero {
                Some(zero) => {
                    let zero = self.quantization_parameter(&mut e, zero, &shape, axis, block_size)?;
                    let zero = self.cast_to(&mut e, &zero, compute, None)?;
                    e.op(self, "Add", &[&scaled, &zero], vec![])?
                }
                None => scaled,
            };
            self.cast_to(&mut e, &shifted, target, None)?
        } else {
            return Err(Error::unsupported(format!("QuantizeLinear to {}", target.as_str_name())));
        };
        self.alias(&y, node.output[0].clone())
    }

    /// `value` widened to i32 minus its zero point `zero` (broadcast along `axis` of `shape` when
    /// it is 1-D).
    fn centred(
        &mut self,
        e: &mut Expansion,
        value: &str,
        zero: Option<&str>,
        axis: Option<i64>,
    ) -> Result<String, Error> {
        let (shape, _) = self.shape_of(value)?;
        let wide = self.cast_to(e, value, DataType::Int32, None)?;
        let Some(zero) = zero else { return Ok(wide) };
        let zero = match axis {
            Some(axis) => self.quantization_parameter(e, zero, &shape, axis, 0)?,
            None => zero.to_owned(),
        };
        let zero = self.cast_to(e, &zero, DataType::Int32, None)?;
        e.op(self, "Sub", &[&wide, &zero], vec![])
    }

    /// `MatMulInteger` and `ConvInteger`: i32 products of zero-point-centred operands. A 1-D
    /// zero point of A applies per row (MatMul) and of B per column (MatMul) or per output
    /// channel (Conv).
    pub(crate) fn integer_product(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
        location: Location,
    ) -> Result<(), Error> {
        if self.packed_integer_product(block, node, index, location)? {
            return Ok(());
        }
        let conv = node.op_type() == "ConvInteger";
        let (a, b) = (required(node, 0)?, required(node, 1)?);
        let (a_shape, b_shape) = (self.shape_of(a)?.0, self.shape_of(b)?.0);
        let mut e = Expansion::new(block, node, index);
        let per = |zero: Option<&str>, this: &Self| -> Result<bool, Error> {
            Ok(zero
                .map(|z| this.shape_of(z))
                .transpose()?
                .is_some_and(|(s, _)| crate::shapes::numel(&s).unwrap_or(1) > 1))
        };
        let (a_zero, b_zero) = (operand(node, 2), operand(node, 3));
        let a_axis = (!conv && per(a_zero, self)?).then(|| a_shape.len() as i64 - 2);
        let b_axis = per(b_zero, self)?.then(|| if conv { 0 } else { b_shape.len() as i64 - 1 });
        let a = self.centred(&mut e, a, a_zero, a_axis)?;
        let b = self.centred(&mut e, b, b_zero, b_axis)?;
        let y = if conv {
            let attributes = conv_attributes(node);
            e.op(self, "Conv", &[&a, &b], attributes)?
        } else {
            e.op(self, "MatMul", &[&a, &b], vec![])?
        };
        self.alias(&y, node.output[0].clone())
    }

    /// `QLinearMatMul` and `QLinearConv`.
    pub(crate) fn qlinear(&mut self, block: &Block, node: &NodeProto, index: usize) -> Result<(), Error> {
        let conv = node.op_type() == "QLinearConv";
        let input = |k: usize| required(node, k);
        let (a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero) = (
            input(0)?,
            input(1)?,
            operand(node, 2),
            input(3)?,
            input(4)?,
            operand(node, 5),
            input(6)?,
            operand(node, 7),
        );
        let b_shape = self.shape_of(b)?.0;
        let target = match y_zero {
            Some(z) => self.shape_of(z)?.1,
            None => self.shape_of(a)?.1,
        };
        let (lo, hi) = integer_range(target)
            .ok_or_else(|| Error::unsupported(format!("{} to {}", node.op_type(), target.as_str_name())))?;
        let mut e = Expansion::new(block, node, index);
        let per = |zero: Option<&str>, this: &Self| -> Result<bool, Error> {
            Ok(zero
                .map(|z| this.shape_of(z))
                .transpose()?
                .is_some_and(|(s, _)| crate::shapes::numel(&s).unwrap_or(1) > 1))
        };
        let b_axis = per(b_zero, self)?.then(|| if conv { 0 } else { b_shape.len() as i64 - 1 });
        let a_c = self.centred(&mut e, a, a_zero, None)?;
        let b_c = self.centred(&mut e, b, b_zero, b_axis)?;
        let accumulated = if conv {
            let attributes = conv_attributes(node);
            let mut inputs = vec![a_c.as_str(), b_c.as_str()];
            if let Some(bias) = operand(node, 8) {
                inputs.push(bias);
            }
            e.op(self, "Conv", &inputs, attributes)?
        } else {
            e.op(self, "MatMul", &[&a_c, &b_c], vec![])?
        };
        // Requantize in f64: acc * (a_scale * b_scale / y_scale), per output channel when the
        // weight scale is 1-D.
        let wide = self.cast_to(&mut e, &accumulated, DataType::Double, None)?;
        let (acc_shape, _) = self.shape_of(&accumulated)?;
        let channel_axis = if conv { 1 } else { acc_shape.len() as i64 - 1 };
        let a_scale = self.quantization_parameter(&mut e, a_scale, &acc_shape, channel_axis, 0)?;
        let b_scale = self.quantization_parameter(&mut e, b_scale, &acc_shape, channel_axis, 0)?;
        let y_scale = self.quantization_parameter(&mut e, y_scale, &acc_shape, channel_axis, 0)?;
        // NumPy multiplies the f32 scales in f32, then promotes the product to f64.
        let ab = e.op(self, "Mul", &[&a_scale, &b_scale], vec![])?;
        let ratio = e.op(self, "Div", &[&ab, &y_scale], vec![])?;
        let ratio = self.cast_to(&mut e, &ratio, DataType::Double, None)?;
        let mut scaled = e.op(self, "Mul", &[&wide, &ratio], vec![])?;
        if let Some(zero) = y_zero {
            let zero = self.quantization_parameter(&mut e, zero, &acc_shape, channel_axis, 0)?;
            let zero = self.cast_to(&mut e, &zero, DataType::Double, None)?;
            scaled = e.op(self, "Add", &[&scaled, &zero], vec![])?;
        }
        let rounded = e.op(self, "Round", &[&scaled], vec![])?;
        let (lo, hi) = (e.scalar(self, DataType::Double, lo as f64)?, e.scalar(self, DataType::Double, hi as f64)?);
        let clamped = e.op(self, "Max", &[&rounded, &lo], vec![])?;
        let clamped = e.op(self, "Min", &[&clamped, &hi], vec![])?;
        let y = self.cast_to(&mut e, &clamped, target, None)?;
        self.alias(&y, node.output[0].clone())
    }

    /// `DynamicQuantizeLinear`: uint8 `y`, `y_scale` = (max(x, 0) - min(x, 0)) / 255 and
    /// `y_zero_point` = clamp(round(-min(x, 0) / y_scale)).
    pub(crate) fn dynamic_quantize_linear(
        &mut self,
        block: &Block,
        node: &NodeProto,
        index: usize,
    ) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (_, dtype) = self.shape_of(x)?;
        if dtype != DataType::Float {
            return Err(Error::unsupported(format!("DynamicQuantizeLinear of {}", dtype.as_str_name())));
        }
        let mut e = Expansion::new(block, node, index);
        let keep = vec![attr_i("keepdims", 0)];
        let high = e.op(self, "ReduceMax", &[x], keep.clone())?;
        let low = e.op(self, "ReduceMin", &[x], keep)?;
        let zero = e.scalar(self, DataType::Float, 0.0)?;
        let high = e.op(self, "Max", &[&high, &zero], vec![])?;
        let low = e.op(self, "Min", &[&low, &zero], vec![])?;
        let range = e.op(self, "Sub", &[&high, &low], vec![])?;
        let levels = e.scalar(self, DataType::Float, 255.0)?;
        let scale = e.op(self, "Div", &[&range, &levels], vec![])?;
        let negated = e.op(self, "Sub", &[&zero, &low], vec![])?;
        let point = self.quantized_in_floats(&mut e, &negated, &scale, None, (0, 255))?;
        let point = self.cast_to(&mut e, &point, DataType::Uint8, None)?;
        let quantize = NodeProto {
            op_type: Some("QuantizeLinear".into()),
            name: Some(format!("{}::quantize", crate::import::node_name(node, index))),
            input: vec![x.to_owned(), scale.clone(), point.clone()],
            output: vec![node.output[0].clone()],
            ..Default::default()
        };
        self.node(block, &quantize, index)?;
        for (k, value) in [(1, &scale), (2, &point)] {
            if let Some(output) = node.output.get(k).filter(|o| !o.is_empty()) {
                self.alias(value, output.clone())?;
            }
        }
        Ok(())
    }
}

/// A quantized convolution's attributes, for the plain `Conv` it imports as.
fn conv_attributes(node: &NodeProto) -> Vec<crate::onnx::AttributeProto> {
    node.attribute
        .iter()
        .filter(|a| matches!(a.name(), "auto_pad" | "dilations" | "group" | "kernel_shape" | "pads" | "strides"))
        .cloned()
        .collect()
}
