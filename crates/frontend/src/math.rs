//! Arithmetic and the operators of one value each: constants, identities, binary arithmetic
//! with ONNX's type rules, matrix products, casts, gathers, clipping, GELU, softmax, global
//! pools and layer normalisation.

use crate::import::{attribute, int, operand, required, tensor_type, Constant, Entry, Importer};
use crate::onnx::{tensor_proto::DataType, NodeProto};
use crate::shapes;
use melior::ir::{Block, BlockLike, Location, Value};
use strata_dialect_sg::{self as sg, Elementwise, ScalarOp};
use strata_ir::Error;

impl Importer<'_> {
    /// `Constant`: a value, value_float(s) or value_int(s) attribute.
    pub(crate) fn constant_node(&mut self, node: &NodeProto) -> Result<(), Error> {
        let constant =
            match (attribute(node, "value").and_then(|a| a.t.as_ref()), node.attribute.first()) {
                (Some(tensor), _) => self.constant(tensor)?,
                (None, Some(a)) if a.name() == "value_float" => {
                    Constant { shape: vec![], dtype: DataType::Float, bytes: a.f().to_le_bytes().to_vec(), value: None }
                }
                (None, Some(a)) if a.name() == "value_floats" => Constant {
                    shape: vec![a.floats.len() as i64],
                    dtype: DataType::Float,
                    bytes: a.floats.iter().flat_map(|f| f.to_le_bytes()).collect(),
                    value: None,
                },
                (None, Some(a)) if a.name() == "value_int" => {
                    Constant { shape: vec![], dtype: DataType::Int64, bytes: a.i().to_le_bytes().to_vec(), value: None }
                }
                (None, Some(a)) if a.name() == "value_ints" => Constant {
                    shape: vec![a.ints.len() as i64],
                    dtype: DataType::Int64,
                    bytes: a.ints.iter().flat_map(|i| i.to_le_bytes()).collect(),
                    value: None,
                },
                _ => return Err(Error::unsupported(
                    "Constant without a value, value_float(s) or value_int(s) attribute (strings and sparse tensors)",
                )),
            };
        self.values.insert(node.output[0].clone(), Entry::Constant(constant));
        Ok(())
    }

    /// `Identity` and `Dropout` (the identity at inference).
    pub(crate) fn identity(&mut self, node: &NodeProto) -> Result<(), Error> {
        // Dropout is the identity at inference, and in training mode with ratio 0 (the
        // mask keeps everything). Otherwise training mode draws a random mask.
        if let Some(mode) = node.input.get(2).filter(|m| node.op_type() == "Dropout" && !m.is_empty()) {
            let training = self.folded(mode).map(|c| c.bytes.iter().any(|&b| b != 0));
            let ratio = match operand(node, 1) {
                Some(name) => self.folded(name).map(|r| r.scalar("the dropout ratio")).transpose()?,
                None => Some(0.5),
            };
            if training != Some(false) && ratio != Some(0.0) {
                return Err(Error::unsupported("Dropout in training mode with a ratio other than a constant 0 (a random mask); training_mode = false, or ratio 0, is the identity"));
            }
        }
        // The mask keeps everything: a constant of `true`s.
        if let Some(mask) = node.output.get(1).filter(|m| node.op_type() == "Dropout" && !m.is_empty()) {
            let (shape, _) = self.shape_of(required(node, 0)?)?;
            let count = shapes::numel(&shape)? as usize;
            self.within_constant_budget(mask, count as u64)?; // before allocating it
            self.insert_computed(
                mask.clone(),
                crate::fold::Folded { shape, dtype: DataType::Bool, bytes: vec![1; count] },
            )?;
        }
        self.alias(required(node, 0)?, node.output[0].clone())?;
        Ok(())
    }

    /// The power `n` (1, 2 or 3) when `exponent` is a constant whose every value is `n` and
    /// the base, of `shape` and `dtype`, is a float of the result's shape (the exponent
    /// broadcasts into it).
    fn small_integer_power(&self, shape: &[i64], dtype: DataType, exponent: &str) -> Option<u32> {
        let float = matches!(dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16);
        let constant = self.folded(exponent).filter(|_| float)?;
        if sg::verify::broadcast(shape, &constant.shape).as_deref() != Some(shape) {
            return None;
        }
        let values = constant.floats().ok()?;
        let power = match values.first() {
            Some(&v) if v == 1.0 || v == 2.0 || v == 3.0 => v as u32,
            _ => return None,
        };
        values.iter().all(|&v| v == f64::from(power)).then_some(power)
    }

    /// Add, Sub, Mul, Div and Pow with broadcasting.
    pub(crate) fn arithmetic(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let names: Vec<&str> = node.input.iter().map(String::as_str).filter(|n| !n.is_empty()).collect();
        if names.len() != 2 {
            return Err(format!("expected 2 inputs, got {}", names.len()).into());
        }
        let kind = match node.op_type() {
            "Add" => Elementwise::Add,
            "Sub" => Elementwise::Sub,
            "Mul" => Elementwise::Mul,
            "Div" => Elementwise::Div,
            _ => Elementwise::Pow,
        };
        let (mut shape, dtype) = self.shape_of(names[0])?;
        if kind == Elementwise::Pow {
            if let Some(power) = self.small_integer_power(&shape, dtype, names[1]) {
                // x^2 and x^3 as products (x^1 is x): powf is a libm call per element,
                // which no loop vectorises (GPT-2's GELU, x + 0.044715 x^3, ran 0.5 ms for
                // 64K elements; a decomposed LayerNorm's variance squares too). A product
                // rounds once per multiply, as the reference's pow rounds once.
                let x = self.use_value(block, names[0], location)?;
                let ty = tensor_type(context, &shape, dtype)?;
                let mut acc = x;
                for _ in 1..power {
                    let op = sg::build_elementwise(
                        context,
                        location,
                        ScalarOp::new(Elementwise::Mul),
                        &[acc.get(), x.get()],
                        ty,
                    );
                    let value: Value = block.append_operation(op).result(0).expect("one result").into();
                    acc = value.into();
                }
                self.values.insert(node.output[0].clone(), Entry::Value { value: acc, shape, dtype });
                return Ok(());
            }
        }
        let mut acc = self.use_value(block, names[0], location)?;
        // Pow's exponent may have another type (ONNX: the result has the base's type):
        // a float base takes the exponent cast to it; an integer base is raised in the
        // exponent's float type and cast back (truncating, as ONNX's reference does).
        let mut result_cast = None;
        for name in &names[1..] {
            let (other, other_type) = self.shape_of(name)?;
            if other_type != dtype && node.op_type() != "Pow" {
                return Err(
                    format!("operand types differ: {} and {}", dtype.as_str_name(), other_type.as_str_name()).into()
                );
            }
            let mut rhs_raw = self.use_value(block, name, location)?;
            let mut compute = dtype;
            if other_type != dtype {
                let float = |t: DataType| {
                    matches!(t, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16)
                };
                if float(dtype) {
                    rhs_raw = self.cast_value(block, rhs_raw, &other, dtype, location)?;
                } else if float(other_type) {
                    acc = self.cast_value(block, acc, &shape, other_type, location)?;
                    compute = other_type;
                    result_cast = Some(dtype);
                } else {
                    return Err(Error::unsupported(format!(
                        "Pow with integer exponent type {} differing from the integer base type {}",
                        other_type.as_str_name(),
                        dtype.as_str_name()
                    )));
                }
            }
            shape = sg::verify::broadcast(&shape, &other)
                .ok_or_else(|| format!("shapes {shape:?} and {other:?} do not broadcast"))?;
            let lhs = acc.get();
            let rhs = rhs_raw.get();
            let dtype = compute;
            let ty = tensor_type(context, &shape, dtype)?;
            let op = sg::build_elementwise(context, location, ScalarOp::new(kind), &[lhs, rhs], ty);
            let value: Value = block.append_operation(op).result(0).expect("one result").into();
            acc = value.into();
        }
        if let Some(back) = result_cast {
            acc = self.cast_value(block, acc, &shape, back, location)?;
        }
        self.values.insert(node.output[0].clone(), Entry::Value { value: acc, shape, dtype });
        Ok(())
    }

    /// `MatMul` with NumPy semantics (1-D operands, broadcast batch dimensions).
    pub(crate) fn matmul(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let ((a, dtype), (b, _)) = (self.shape_of(required(node, 0)?)?, self.shape_of(required(node, 1)?)?);
        if a.is_empty() || b.is_empty() {
            return Err(format!("MatMul operands must have at least one dimension (shapes {a:?} and {b:?})").into());
        }
        // NumPy semantics for 1-D operands: a vector on the left is a row [1, K], on the
        // right a column [K, 1]; the added dimension is dropped from the result.
        let mut lhs_raw = self.use_value(block, required(node, 0)?, location)?;
        let mut rhs_raw = self.use_value(block, required(node, 1)?, location)?;
        let (a2, b2) = (
            if a.len() == 1 { vec![1, a[0]] } else { a.clone() },
            if b.len() == 1 { vec![b[0], 1] } else { b.clone() },
        );
        if a.len() == 1 {
            lhs_raw = self.reshape_value(block, lhs_raw, &a2, dtype, location)?;
        }
        if b.len() == 1 {
            rhs_raw = self.reshape_value(block, rhs_raw, &b2, dtype, location)?;
        }
        let (a, b) = (a2, b2);
        if a[a.len() - 1] != b[b.len() - 2] {
            return Err(format!("contraction sizes differ: {a:?} x {b:?}").into());
        }
        let mut shape = sg::verify::broadcast(&a[..a.len() - 2], &b[..b.len() - 2])
            .ok_or_else(|| format!("batch dims of {a:?} and {b:?} do not broadcast"))?;
        shape.extend([a[a.len() - 2], b[b.len() - 1]]);
        let lhs = lhs_raw.get();
        let rhs = rhs_raw.get();
        let op = block.append_operation(sg::Matmul::build(
            context,
            location,
            lhs,
            rhs,
            tensor_type(context, &shape, dtype)?,
        ));
        let (vector_lhs, vector_rhs) =
            (self.shape_of(required(node, 0)?)?.0.len() == 1, self.shape_of(required(node, 1)?)?.0.len() == 1);
        if vector_lhs || vector_rhs {
            let product: Value = op.result(0).expect("one result").into();
            let mut out = shape.clone();
            if vector_rhs {
                out.pop();
            }
            if vector_lhs {
                out.remove(out.len() - 1 - usize::from(!vector_rhs));
            }
            let value = self.reshape_value(block, product.into(), &out, dtype, location)?;
            self.values.insert(node.output[0].clone(), Entry::Value { value, shape: out, dtype });
        } else {
            self.define(node, op, shape, dtype);
        }
        Ok(())
    }

    /// `Cast` and `CastLike`.
    pub(crate) fn cast(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, from) = self.shape_of(required(node, 0)?)?;
        let to = self.cast_target(node)?;
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let float8 = matches!(
            to,
            DataType::Float8e4m3fn
                | DataType::Float8e4m3fnuz
                | DataType::Float8e5m2
                | DataType::Float8e5m2fnuz
                | DataType::Float8e8m0
        );
        // Out-of-range float8 values become infinity / NaN with saturate = 0 (absent: 1).
        let saturate = (float8 && int(node, "saturate", 1) == 0).then_some(0);
        // How a value between two powers of two rounds to float8 E8M0 (0 up, the
        // default and absent; 1 down; 2 nearest).
        let round_mode = if to == DataType::Float8e8m0 {
            match attribute(node, "round_mode").map(|a| String::from_utf8_lossy(a.s()).into_owned()).as_deref() {
                None | Some("up") => None,
                Some("down") => Some(1),
                Some("nearest") => Some(2),
                Some(other) => return Err(format!("round_mode '{other}' is not one of up, down, nearest").into()),
            }
        } else {
            None
        };
        let cast = sg::Cast::build(context, location, x, saturate, round_mode, tensor_type(context, &shape, to)?);
        let op = block.append_operation(cast);
        self.define(node, op, shape, to);
        if self.round_half && from == DataType::Float && matches!(to, DataType::Bfloat16 | DataType::Float16) {
            self.half_sources.insert(node.output[0].clone(), (required(node, 0)?.to_owned(), to));
        }
        if self.round_half && to == DataType::Float && matches!(from, DataType::Bfloat16 | DataType::Float16) {
            self.half_exact.insert(node.output[0].clone(), from);
        }
        Ok(())
    }

    /// Whether `name` holds only values of `half` (bf16 or f16): a value [`Importer::half_exact`]
    /// records, or a constant whose every value is one (NaNs excluded: rounding makes them the
    /// canonical quiet NaN).
    fn is_half_exact(&self, name: &str, half: DataType) -> bool {
        if self.half_exact.get(name) == Some(&half) {
            return true;
        }
        let Some(values) = self.folded(name).filter(|c| c.dtype == DataType::Float).and_then(|c| c.floats().ok())
        else {
            return false;
        };
        values.iter().all(|&v| {
            let v = v as f32;
            !v.is_nan()
                && match half {
                    DataType::Bfloat16 => v.to_bits() & 0xffff == 0,
                    _ => half::f16::from_f32(v).to_f32() == v,
                }
        })
    }

    /// Records the results of `node` (imported) as holding only values of a half type when
    /// they are chosen among, or negated from, inputs that all do (`Relu`, `Clip`, `Max`,
    /// `Min`, `Neg`, `Abs`: the one-step ops a half model runs in f32 between casts,
    /// `crate::half::bf16_products`), so that rounding them again is skipped: a bf16 model's
    /// Conv -> Clip rounds the convolution's sum once, not the clipped value a second time (the
    /// same bits: a value between two of the type's values clipped to bounds of the type is
    /// one of them).
    pub(crate) fn track_half_exact(&mut self, node: &NodeProto) {
        const KEEPS_HALF: &[&str] = &["Relu", "Clip", "Max", "Min", "Neg", "Abs"];
        if !self.round_half || !node.domain().is_empty() || !KEEPS_HALF.contains(&node.op_type()) {
            return;
        }
        let inputs: Vec<&String> = node.input.iter().filter(|x| !x.is_empty()).collect();
        let Some(half) = inputs.iter().find_map(|x| self.half_exact.get(x.as_str()).copied()) else { return };
        if inputs.iter().all(|x| self.is_half_exact(x, half)) {
            for output in node.output.iter().filter(|y| !y.is_empty()) {
                self.half_exact.insert(output.clone(), half);
            }
        }
    }

    /// A `Cast` to f32 of an f32 value cast to bf16 or f16 (a bf16 model computing in f32
    /// between casts, `crate::half::bf16_products`; a `Cast` to f16 kept in an f16 model
    /// computing in f32, `crate::half::widen`) as that value rounded in f32 (`sg.round_bf16`,
    /// `sg.round_f16`: the same two casts as one elementwise op), which fuses into the
    /// producer's epilogue; the half value, if nothing else reads it, is never made. Whether it
    /// applied.
    pub(crate) fn rounded_half(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<bool, Error> {
        let to = self.cast_target(node)?;
        let Some((source, half)) = self.half_sources.get(required(node, 0)?).cloned().filter(|_| to == DataType::Float)
        else {
            return Ok(false);
        };
        self.half_exact.insert(node.output[0].clone(), half);
        if self.is_half_exact(&source, half) {
            // Already a value of the type: rounding it is the identity.
            self.alias(&source, node.output[0].clone())?;
            return Ok(true);
        }
        // Each reader of a half value casts it back on its own (a residual block's output: the
        // next block's convolution and the next residual Add): one rounding serves them all,
        // so the rounded value can be made once, by its producer.
        if let Some(first) = self.roundings.get(&(source.clone(), half)).cloned() {
            self.alias(&first, node.output[0].clone())?;
            return Ok(true);
        }
        self.roundings.insert((source.clone(), half), node.output[0].clone());
        let kind = if half == DataType::Bfloat16 { Elementwise::RoundBf16 } else { Elementwise::RoundF16 };
        let (value, shape, dtype) = self.elementwise(block, ScalarOp::new(kind), &[source.as_str()], location)?;
        self.values.insert(node.output[0].clone(), Entry::Value { value, shape, dtype });
        Ok(true)
    }

    /// `BitCast` (opset 26): the same bits as another element type of one width. Between
    /// integer types (signed, unsigned, and bool to an 8-bit integer) that is the wrapping
    /// conversion Cast makes; with a float on either side (f16, bf16, f32, f64: an f32's bits
    /// as an int32 and back) an `sg.bitcast`. float8 and 4-bit types are refused (unsupported).
    pub(crate) fn bit_cast(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let x = required(node, 0)?;
        let (shape, from) = self.shape_of(x)?;
        let to = self.cast_target(node)?;
        let integer = crate::checks::is_integer;
        let width = |t: DataType| match t {
            DataType::Int4 | DataType::Uint4 | DataType::Float4e2m1 => 4,
            t => 8 * crate::fold::width(t),
        };
        if width(from) != width(to) {
            return Err(Error::invalid_input(format!(
                "BitCast from {} to {} changes the element width",
                from.as_str_name(),
                to.as_str_name()
            )));
        }
        if from == to || (integer(to) && (integer(from) || from == DataType::Bool)) {
            // The same `to` attribute as Cast's, and no float8 target to saturate.
            return self.cast(block, node, location);
        }
        let reinterpretable = |t: DataType| {
            (integer(t) && width(t) >= 8)
                || matches!(t, DataType::Float16 | DataType::Bfloat16 | DataType::Float | DataType::Double)
        };
        if !(reinterpretable(from) && reinterpretable(to)) {
            return Err(Error::unsupported(format!(
                "BitCast from {} to {} (integers of 8 bits and more, f16, bf16, f32 and f64 are reinterpreted; float8 and 4-bit types are not)",
                from.as_str_name(),
                to.as_str_name()
            )));
        }
        let context = self.strata.mlir();
        let value = self.use_value(block, x, location)?.get();
        let op =
            block.append_operation(sg::Bitcast::build(context, location, value, tensor_type(context, &shape, to)?));
        self.define(node, op, shape, to);
        Ok(())
    }

    /// `Gather` of values computed at run time (constants are folded).
    pub(crate) fn gather(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let ((data, dtype), (indices, index_type)) =
            (self.shape_of(required(node, 0)?)?, self.shape_of(required(node, 1)?)?);
        if !matches!(index_type, DataType::Int64 | DataType::Int32) {
            return Err(format!("indices must be int64 or int32, got {}", index_type.as_str_name()).into());
        }
        let a = shapes::axis(int(node, "axis", 0), data.len() as i64)?;
        let axis = a as i64;
        let mut out = data[..a].to_vec();
        out.extend(&indices);
        out.extend(&data[a + 1..]);
        let d = (self.use_value(block, required(node, 0)?, location)?).get();
        let i = (self.use_value(block, required(node, 1)?, location)?).get();
        let op = block.append_operation(sg::Gather::build(
            context,
            location,
            d,
            i,
            axis,
            tensor_type(context, &out, dtype)?,
        ));
        self.define(node, op, out, dtype);
        Ok(())
    }

    /// `LayerNormalization`, with its optional Mean and InvStdDev outputs.
    pub(crate) fn layer_norm(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let axis = shapes::axis(int(node, "axis", -1), shape.len() as i64)? as i64;
        let normalised = &shape[axis as usize..];
        for k in [1, 2] {
            if let Some(name) = operand(node, k) {
                let (s, _) = self.shape_of(name)?;
                if s != normalised {
                    return Err(Error::unsupported(format!(
                        "{} shape {s:?} other than the normalised shape {normalised:?}",
                        if k == 1 { "scale" } else { "bias" }
                    )));
                }
            }
        }
        let epsilon = attribute(node, "epsilon").map_or(1e-5, |a| a.f()) as f64;
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let scale = (self.use_value(block, required(node, 1)?, location)?).get();
        let bias = match operand(node, 2) {
            Some(name) => Some(self.use_value(block, name, location)?.get()),
            None => None,
        };
        let ty = tensor_type(context, &shape, dtype)?;
        let op = block.append_operation(sg::LayerNorm::build(context, location, x, scale, bias, axis, epsilon, ty));
        self.define(node, op, shape.clone(), dtype);
        self.layer_norm_statistics(block, node, (x, &shape, dtype), (axis as usize, epsilon as f32), location)?;
        Ok(())
    }

    /// `Clip`: float bounds known at import become `sg.clip`; integer tensors and bounds
    /// computed at run time become `max` and `min` on tensors.
    pub(crate) fn clip(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        if self.clip_needs_tensors(node)? {
            return self.clip_with_tensors(block, node, location);
        }
        let context = self.strata.mlir();
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        let float = |name: &str, default: f32| attribute(node, name).map_or(default, |a| a.f()) as f64;
        let bound = |k: usize, this: &Self| -> Result<Option<f64>, Error> {
            match operand(node, k) {
                Some(name) => Ok(Some(
                    this.folded(name)
                        .ok_or_else(|| Error::unsupported(format!("Clip bound '{name}' computed at run time")))?
                        .scalar("a Clip bound")?,
                )),
                None => Ok(None),
            }
        };
        let min = bound(1, self)?.unwrap_or_else(|| float("min", f32::NEG_INFINITY));
        let max = bound(2, self)?.unwrap_or_else(|| float("max", f32::INFINITY));
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let ty = tensor_type(context, &shape, dtype)?;
        let op = block.append_operation(sg::Clip::build(context, location, x, min, max, ty));
        self.define(node, op, shape, dtype);
        Ok(())
    }

    /// `Gelu`: exact (erf) or its tanh approximation.
    pub(crate) fn gelu(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let tanh = match attribute(node, "approximate").map(|a| String::from_utf8_lossy(a.s()).into_owned()).as_deref()
        {
            None | Some("none") => 0.0,
            Some("tanh") => 1.0,
            Some(other) => return Err(format!("approximate '{other}' is not 'none' or 'tanh'").into()),
        };
        let (value, shape, dtype) =
            self.elementwise(block, ScalarOp::with(Elementwise::Gelu, &[tanh]), &[required(node, 0)?], location)?;
        self.values.insert(node.output[0].clone(), Entry::Value { value, shape, dtype });
        Ok(())
    }

    /// `Softmax` and `LogSoftmax` along one axis (float tensors). Below opset 13 they normalise
    /// over every dimension from `axis` on (default 1): the input is viewed as 2-D there.
    pub(crate) fn softmax(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.float_input(node)?;
        let legacy = self.opset < 13;
        let axis = shapes::axis(int(node, "axis", if legacy { 1 } else { -1 }), shape.len() as i64)?;
        let mut x = self.use_value(block, required(node, 0)?, location)?;
        let (work, axis) = if legacy {
            let flat = vec![shapes::numel(&shape[..axis])?, shapes::numel(&shape[axis..])?];
            x = self.reshape_value(block, x, &flat, dtype, location)?;
            (flat, 1)
        } else {
            (shape.clone(), axis as i64)
        };
        let ty = tensor_type(context, &work, dtype)?;
        let op = if node.op_type() == "Softmax" {
            sg::Softmax::build(context, location, x.get(), axis, ty)
        } else {
            sg::LogSoftmax::build(context, location, x.get(), axis, ty)
        };
        let y: Value = block.append_operation(op).result(0).expect("one result").into();
        let y = if legacy { self.reshape_value(block, y.into(), &shape, dtype, location)? } else { y.into() };
        self.values.insert(node.output[0].clone(), Entry::Value { value: y, shape, dtype });
        Ok(())
    }

    /// `GlobalAveragePool` and `GlobalMaxPool` of an N x C x spatial float input.
    pub(crate) fn global_pool(&mut self, block: &Block, node: &NodeProto, location: Location) -> Result<(), Error> {
        let context = self.strata.mlir();
        let (shape, dtype) = self.float_input(node)?;
        if shape.len() < 3 {
            return Err(format!("expects an N x C x spatial input, got {shape:?}").into());
        }
        let mut out = shape.clone();
        out[2..].iter_mut().for_each(|d| *d = 1);
        let x = (self.use_value(block, required(node, 0)?, location)?).get();
        let ty = tensor_type(context, &out, dtype)?;
        let op = if node.op_type() == "GlobalAveragePool" {
            sg::GlobalAveragePool::build(context, location, x, ty)
        } else {
            sg::GlobalMaxPool::build(context, location, x, ty)
        };
        let op = block.append_operation(op);
        self.define(node, op, out, dtype);
        Ok(())
    }

    /// Input 0's shape and type, which must be a float type.
    fn float_input(&self, node: &NodeProto) -> Result<(Vec<i64>, DataType), Error> {
        let (shape, dtype) = self.shape_of(required(node, 0)?)?;
        if !matches!(dtype, DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16) {
            return Err(Error::unsupported(format!("{} of {} tensors", node.op_type(), dtype.as_str_name())));
        }
        Ok((shape, dtype))
    }
}
