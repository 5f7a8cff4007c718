//! The kernel of each sg op: which builder lowers it, with which attributes. One exhaustive
//! `match` on [`SgOp`]: a new op does not compile until it has a lowering (or says why not).

use crate::kernel::{Elem, Kernel, TensorTy};
use crate::reduce::Reduction;
use crate::{elementwise, fused, indexing, layout, nn, recurrent, reduce};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::{DimSize, ShapedTypeLike};
use melior::ir::{Type, ValueLike};
use strata_dialect_sg::{Elementwise, SgOp};
use strata_ir::Error;

/// The tensor type of a value, or why it cannot be lowered.
pub fn tensor_type(ty: Type<'_>) -> Result<TensorTy, Error> {
    let tensor = strata_ir::types::ranked_tensor(ty).ok_or_else(|| format!("expected a ranked tensor, got {ty}"))?;
    Ok(TensorTy::new(static_dims(&tensor, ty)?, Elem::new(strata_ir::types::type_name(tensor.element()))))
}

/// The static shape of a ranked tensor or memref type, or why it has none.
pub fn static_shape(ty: Type<'_>) -> Result<Vec<i64>, Error> {
    if let Some(tensor) = strata_ir::types::ranked_tensor(ty) {
        return static_dims(&tensor, ty);
    }
    let memref = strata_ir::types::memref(ty).ok_or_else(|| format!("expected a ranked tensor or memref, got {ty}"))?;
    static_dims(&memref, ty)
}

fn static_dims<'c>(shaped: &impl ShapedTypeLike<'c>, ty: Type<'_>) -> Result<Vec<i64>, Error> {
    (0..shaped.rank())
        .map(|i| match shaped.dim_size(i) {
            Ok(DimSize::Static(n)) => Ok(n as i64),
            _ => Err(Error::invalid_input(format!("dimension {i} of {ty} is not static"))),
        })
        .collect()
}

/// An op's kernel, and what its arguments are bound to.
pub struct Lowered {
    pub kernel: Kernel,
    pub reads: Reads,
}

/// What a lowered kernel's arguments are bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// The op's own operands.
    Operands,
    /// [`crate::fused::operands`]: its view operands' bases.
    ViewBases,
    /// [`widened_sources`]: a matmul reads the f32 values its f64 operands widen.
    WidenedSources,
    /// [`cast_producer`]: a cast of a boolean reads the operands of the elementwise op that
    /// computes it.
    ProducerSources,
}

/// A matmul's operands, each replaced by the f32 value it widens where
/// [`strata_dialect_sg::widened_source`] finds one (the op's own operands for any other op):
/// the widened copy is then never computed. A short-time Fourier transform accumulates in f64
/// this way: its frames' f64 copy was the speech model's largest buffer (313 KB).
pub fn widened_sources<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<melior::ir::Value<'c, 'a>> {
    op.operands().enumerate().map(|(i, value)| strata_dialect_sg::widened_source(op, i).unwrap_or(value)).collect()
}

/// The elementwise op (a comparison, a logical op) that computes the `i1` operand of `sg.cast`
/// `op` for it alone: the cast's kernel computes that op's body and the conversion in one
/// loop, reading the op's operands, so no boolean buffer is written and read back (a boolean
/// buffer also keeps a kernel from vectorising: a vector of `i1` is bit-packed, the buffer is
/// not). The op, read by nothing then, is dropped by canonicalization. Magika's one-hot
/// encoding (`Equal` of the bytes with 0..256, `Cast` to f32: 526K elements) took 0.63 ms in two
/// loops of scalar code (ONNX Runtime: 0.08 for the cast).
pub fn cast_producer<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    if !matches!(SgOp::of(op), Some(SgOp::Cast(_))) {
        return None;
    }
    let input = op.operand(0).ok()?;
    if tensor_type(input.r#type()).ok()?.elem.name != "i1" {
        return None;
    }
    let producer = strata_ir::rewrite::defining_op(input)?;
    let single_use = strata_ir::Val::of(input).uses().len() == 1;
    (single_use && matches!(SgOp::of(producer), Some(SgOp::Elementwise(_)))).then_some(producer)
}

/// Whether `op` is the only reader of its first operand, a buffer of its own: the value of an
/// op that computes into a new tensor (a product, a convolution, an elementwise kernel), so a
/// kernel may write its result over it. Bufferization would copy an operand read later, or
/// one sharing storage with another value (a view's base, a function argument): correct, but
/// a pass over the tensor for nothing, so those are left out.
pub fn dies_at(op: OperationRef<'_, '_>) -> bool {
    let Ok(input) = op.operand(0) else { return false };
    let computed = strata_ir::rewrite::defining_op(input).is_some_and(|producer| {
        matches!(
            SgOp::of(producer),
            Some(
                SgOp::Matmul(_)
                    | SgOp::Fused(_)
                    | SgOp::Elementwise(_)
                    | SgOp::Einsum(_)
                    | SgOp::Conv2d(_)
                    | SgOp::QuantizedMatmul(_)
            )
        )
    });
    computed && strata_ir::Val::of(input).uses().len() == 1
}

/// What the kernels run on, for the ops whose best form depends on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// A host compiled for several threads: a bidirectional recurrence runs its directions
    /// side by side ([`recurrent::lower`]), a tree walk's rows are an `scf.forall`.
    pub sections: bool,
    /// A GPU: a tree walk is one walk per output element (one thread each), not interleaved
    /// walks in loops ([`indexing::tree_walk_per_element`]).
    pub gpu: bool,
}

/// The lowered kernel of `op`, or `None` when `op` is not an sg op. `Err` says why an sg op
/// cannot be lowered (an `unsupported:` message for element types without a lowering).
/// `placement` picks the forms that depend on what runs the kernel.
pub fn kernel(op: OperationRef<'_, '_>, placement: Placement) -> Result<Option<Lowered>, Error> {
    let sections = placement.sections;
    let Some(sg) = SgOp::of(op) else { return Ok(None) };
    let producer = cast_producer(op);
    let sources = match producer {
        Some(producer) => producer.operands().collect(),
        None => widened_sources(op),
    };
    let widened = sources.iter().zip(op.operands()).any(|(source, operand)| *source != operand);
    let args = sources.iter().map(|v| tensor_type(v.r#type())).collect::<Result<Vec<_>, _>>()?;
    let out = tensor_type(op.result(0).map_err(|_| format!("'{}' has no result", sg.kind().full_name()))?.r#type())?;
    let elem = args.first().map(|t| t.elem.clone()).unwrap_or_else(|| out.elem.clone());
    let mut k = Kernel::new(args);
    let result = match sg {
        SgOp::Elementwise(e) => {
            let scalar = e.scalar();
            // `where` computes in its branches' type, the others in their operands'.
            let elem = if e.kind() == Elementwise::Where { out.elem.clone() } else { elem };
            elementwise::map(&mut k, e.kind().arity(), &out, |b, a| elementwise::scalar(b, scalar, a, &elem))?
        }
        SgOp::Cast(cast) => {
            // ONNX's defaults: saturate (float8 targets), round up (float8 E8M0 targets).
            let saturate = cast.saturate().unwrap_or(1) != 0;
            let code = cast.round_mode().unwrap_or(0);
            let rounding = crate::minifloat::E8M0Rounding::from_code(code)
                .ok_or_else(|| format!("'sg.cast' round_mode {code} is not 0 (up), 1 (down) or 2 (nearest)"))?;
            match producer.and_then(SgOp::of) {
                Some(SgOp::Elementwise(e)) => {
                    let boolean = Elem::new("i1");
                    // As the producer's own kernel computes (`where` in its branches' type).
                    let inner = if e.kind() == Elementwise::Where { boolean.clone() } else { elem };
                    let scalar = e.scalar();
                    elementwise::map(&mut k, e.kind().arity(), &out, |b, a| {
                        let x = elementwise::scalar(b, scalar, a, &inner)?;
                        elementwise::cast_saturating(b, &x, &boolean, &out.elem, saturate, rounding)
                    })?
                }
                _ => elementwise::map(&mut k, 1, &out, |b, a| {
                    elementwise::cast_saturating(b, &a[0], &elem, &out.elem, saturate, rounding)
                })?,
            }
        }
        SgOp::Bitcast(_) => {
            let to = out.elem.clone();
            if elem.is_small_float() || to.is_small_float() || elem.is_bool() || to.is_bool() {
                return Err(Error::unsupported(format!(
                    "'sg.bitcast' from {} to {} (integers and f16, bf16, f32, f64 are reinterpreted)",
                    elem.storage(),
                    to.storage()
                )));
            }
            elementwise::map(&mut k, 1, &out, |b, a| {
                Ok(b.emit(format_args!("arith.bitcast {} : {elem} to {to}", a[0])))
            })?
        }
        SgOp::Conv2d(c) => {
            nn::conv2d(&mut k, &c.strides(), &c.pads(), &c.dilations(), c.group(), c.bias().is_some(), &out)?
        }
        SgOp::Matmul(_) => nn::matmul(&mut k, &out)?,
        SgOp::QuantizedMatmul(_) => nn::quantized_matmul(&mut k, &out)?,
        SgOp::QuantizedConv(_) => nn::quantized_conv(&mut k, &out)?,
        SgOp::MaxPool(p) => {
            let (kernel, strides, pads, dilations) = (p.kernel(), p.strides(), p.pads(), p.dilations());
            let window = nn::Window { kernel: &kernel, strides: &strides, pads: &pads, dilations: &dilations };
            nn::max_pool(&mut k, window, &out)?
        }
        SgOp::MaxPoolIndices(p) => {
            let (kernel, strides, pads, dilations) = (p.kernel(), p.strides(), p.pads(), p.dilations());
            let window = nn::Window { kernel: &kernel, strides: &strides, pads: &pads, dilations: &dilations };
            nn::max_pool_indices(&mut k, window, p.storage_order() != 0, &out)?
        }
        SgOp::AveragePool(p) => {
            let (kernel, strides, pads, dilations) = (p.kernel(), p.strides(), p.pads(), p.dilations());
            let window = nn::Window { kernel: &kernel, strides: &strides, pads: &pads, dilations: &dilations };
            nn::average_pool(&mut k, window, p.count_include_pad() != 0, &out)?
        }
        SgOp::GlobalAveragePool(_) => reduce::global_pool(&mut k, Reduction::Mean, &out)?,
        SgOp::GlobalMaxPool(_) => reduce::global_pool(&mut k, Reduction::Max, &out)?,
        SgOp::Reduction(r) => reduce::reduce_op(&mut k, &r.axes(), r.kind(), &out)?,
        SgOp::Softmax(s) => reduce::softmax(&mut k, s.axis() as usize, false, !placement.gpu, (sections, dies_at(op)))?,
        SgOp::LogSoftmax(s) => {
            reduce::softmax(&mut k, s.axis() as usize, true, !placement.gpu, (sections, dies_at(op)))?
        }
        SgOp::LayerNorm(norm) => {
            let axis = norm.axis() as usize;
            let rank = out.rank();
            let reduced: Vec<bool> = (0..rank).map(|d| d >= axis).collect();
            let params = reduce::NormParams { scale: 1, bias: norm.bias().map(|_| 2), dims: (axis..rank).collect() };
            reduce::normalize(&mut k, &reduced, norm.epsilon(), &params, !placement.gpu, (sections, dies_at(op)))?
        }
        SgOp::InstanceNorm(norm) => {
            let reduced: Vec<bool> = (0..out.rank()).map(|d| d >= 2).collect();
            let params = reduce::NormParams { scale: 1, bias: Some(2), dims: vec![1] };
            reduce::normalize(&mut k, &reduced, norm.epsilon(), &params, !placement.gpu, (sections, dies_at(op)))?
        }
        SgOp::Gather(g) => layout::gather(&mut k, g.axis() as usize, &out),
        SgOp::Concat(c) => layout::concat(&mut k, c.axis() as usize, &out),
        SgOp::Expand(_) => layout::expand(&mut k, &out),
        SgOp::Tile(_) => layout::tile(&mut k, &out),
        SgOp::Pad(p) => layout::pad(&mut k, &p.pads(), p.mode(), p.value(), &out, !placement.gpu),
        SgOp::Slice(s) => layout::slice(&mut k, &s.starts(), &s.steps(), &out),
        SgOp::Transpose(t) => layout::transpose(&mut k, &t.perm(), &out),
        SgOp::Reshape(_) => {
            let (input, ty) = (k.arg(0), k.arg_type(0).clone());
            let reshaped = layout::reshape(&mut k, &input, &ty, &out);
            if reshaped == input {
                // A reshape to its own shape: the kernel returns its argument.
                k.emit(format_args!("tensor.cast {input} : {ty} to {out}"))
            } else {
                reshaped
            }
        }
        SgOp::View(v) => layout::view(&mut k, v.offset(), &v.strides(), &out),
        // It reads its view operands through their bases: a kernel of its own.
        SgOp::Fused(f) => return fused::kernel(f).map(Some),
        SgOp::GatherElements(g) => indexing::gather_elements(&mut k, g.axis() as usize, &out),
        SgOp::GatherNd(g) => indexing::gather_nd(&mut k, g.batch_dims() as usize, &out),
        SgOp::TreeWalk(w) => {
            let aggregate = match (w.leaves(), w.aggregate()) {
                (Some(_), Some(code)) => Some(indexing::Aggregate::of(code)?),
                (None, None) => None,
                _ => return Err("tree_walk: 'aggregate' is given with leaves and only then".into()),
            };
            if placement.gpu {
                indexing::tree_walk_per_element(&mut k, w.depth(), w.modes(), aggregate, &out)
            } else {
                indexing::tree_walk(&mut k, w.depth(), w.modes(), aggregate, &out, sections)
            }
        }
        SgOp::ScatterElements(s) => indexing::scatter_elements(&mut k, s.axis() as usize, s.reduction())?,
        SgOp::ScatterNd(s) => indexing::scatter_nd(&mut k, s.reduction())?,
        SgOp::ArgExtreme(a) => {
            indexing::arg_extreme(&mut k, a.axis() as usize, a.largest() != 0, a.select_last_index() != 0, &out)?
        }
        SgOp::TopK(t) => {
            crate::top_k::top_k(&mut k, t.axis() as usize, (t.k(), t.largest() != 0), !placement.gpu, &out)?
        }
        SgOp::Cumulative(c) => indexing::cumulative(
            &mut k,
            c.axis() as usize,
            c.exclusive() != 0,
            c.reverse() != 0,
            c.product() != 0,
            &out,
        )?,
        SgOp::Einsum(e) => {
            let (operands, output) = strata_dialect_sg::verify::einsum_subscripts(&e.equation())?;
            indexing::einsum(&mut k, &operands, &output, &out)?
        }
        SgOp::Lstm(l) => {
            let spec = recurrent::Recurrent {
                cell: recurrent::Cell::Lstm { input_forget: l.input_forget() != 0 },
                hidden: l.hidden_size(),
                direction: l.direction(),
                activations: recurrent::activations(&l.activations())?,
                clip: l.clip(),
            };
            return recurrent_kernel(k, op, &spec, sections);
        }
        SgOp::Gru(g) => {
            let spec = recurrent::Recurrent {
                cell: recurrent::Cell::Gru { linear_before_reset: g.linear_before_reset() != 0 },
                hidden: g.hidden_size(),
                direction: g.direction(),
                activations: recurrent::activations(&g.activations())?,
                clip: g.clip(),
            };
            return recurrent_kernel(k, op, &spec, sections);
        }
        SgOp::Rnn(r) => {
            let spec = recurrent::Recurrent {
                cell: recurrent::Cell::Rnn,
                hidden: r.hidden_size(),
                direction: r.direction(),
                activations: recurrent::activations(&r.activations())?,
                clip: r.clip(),
            };
            return recurrent_kernel(k, op, &spec, sections);
        }
    };
    k.set_result(result, out);
    let reads = match (producer, widened) {
        (Some(_), _) => Reads::ProducerSources,
        (None, true) => Reads::WidenedSources,
        (None, false) => Reads::Operands,
    };
    Ok(Some(Lowered { kernel: k, reads }))
}

/// The kernel of a recurrent op: every result's type, then the loop.
fn recurrent_kernel(
    mut k: Kernel,
    op: OperationRef<'_, '_>,
    spec: &recurrent::Recurrent,
    sections: bool,
) -> Result<Option<Lowered>, Error> {
    let outs = op.results().map(|r| tensor_type(r.r#type())).collect::<Result<Vec<_>, _>>()?;
    let values = recurrent::lower(&mut k, spec, &outs, sections)?;
    k.set_results(values.into_iter().zip(outs).collect());
    Ok(Some(Lowered { kernel: k, reads: Reads::Operands }))
}
