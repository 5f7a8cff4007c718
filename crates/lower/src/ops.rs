//! The kernel of each sg op: which builder lowers it, with which attributes.

use crate::elementwise::{self, Binary};
use crate::kernel::{Elem, Kernel, TensorTy};
use crate::reduce::Reduction;
use crate::{layout, nn, reduce};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::{DimSize, MemRefType, RankedTensorType, ShapedTypeLike};
use melior::ir::{Type, ValueLike};
use strata_ir::ods::{float, i64_array, integer, op_name};

/// The tensor type of a value, or why it cannot be lowered.
pub fn tensor_type(ty: Type<'_>) -> Result<TensorTy, String> {
    let tensor = RankedTensorType::try_from(ty).map_err(|_| format!("expected a ranked tensor, got {ty}"))?;
    Ok(TensorTy::new(static_dims(&tensor, ty)?, Elem::new(tensor.element().to_string())))
}

/// The static shape of a ranked tensor or memref type, or why it has none.
pub fn static_shape(ty: Type<'_>) -> Result<Vec<i64>, String> {
    if let Ok(tensor) = RankedTensorType::try_from(ty) {
        return static_dims(&tensor, ty);
    }
    let memref = MemRefType::try_from(ty).map_err(|_| format!("expected a ranked tensor or memref, got {ty}"))?;
    static_dims(&memref, ty)
}

fn static_dims<'c>(shaped: &impl ShapedTypeLike<'c>, ty: Type<'_>) -> Result<Vec<i64>, String> {
    (0..shaped.rank())
        .map(|i| match shaped.dim_size(i) {
            Ok(DimSize::Static(n)) => Ok(n as i64),
            _ => Err(format!("dimension {i} of {ty} is not static")),
        })
        .collect()
}

/// The lowered kernel of `op` as function text named `name`, or `None` when `op` is not an
/// sg op. `Err` says why an sg op cannot be lowered.
pub fn kernel(op: OperationRef<'_, '_>) -> Result<Option<Kernel>, String> {
    let name = op_name(op);
    if !name.starts_with("sg.") {
        return Ok(None);
    }
    let args = (0..op.operand_count())
        .map(|i| tensor_type(op.operand(i).expect("counted").r#type()))
        .collect::<Result<Vec<_>, _>>()?;
    let out = tensor_type(op.result(0).map_err(|_| format!("'{name}' has no result"))?.r#type())?;
    let ints = |attr: &str| i64_array(op, attr).ok_or_else(|| format!("'{name}' lacks its '{attr}' attribute"));
    let int = |attr: &str| integer(op, attr).ok_or_else(|| format!("'{name}' lacks its '{attr}' attribute"));
    let real = |attr: &str| float(op, attr).unwrap_or(0.0);
    let elem = args.first().map(|t| t.elem.clone()).unwrap_or_else(|| out.elem.clone());
    let mut k = Kernel::new(args);
    let result = match name.as_str() {
        "sg.add" | "sg.sub" | "sg.mul" | "sg.div" | "sg.pow" | "sg.max" | "sg.min" | "sg.equal" | "sg.less"
        | "sg.greater" => {
            let op = match name.as_str() {
                "sg.add" => Binary::Add,
                "sg.sub" => Binary::Sub,
                "sg.mul" => Binary::Mul,
                "sg.div" => Binary::Div,
                "sg.pow" => Binary::Pow,
                "sg.max" => Binary::Max,
                "sg.min" => Binary::Min,
                "sg.equal" => Binary::Equal,
                "sg.less" => Binary::Less,
                _ => Binary::Greater,
            };
            elementwise::map(&mut k, 2, &out, |b, a| elementwise::binary(b, op, &a[0], &a[1], &elem))?
        }
        "sg.where" => elementwise::map(&mut k, 3, &out, |b, a| {
            Ok(b.emit(format_args!("arith.select {}, {}, {} : {}", a[0], a[1], a[2], out.elem)))
        })?,
        "sg.cast" => {
            // `saturate = 0` (a discardable attribute; ONNX's default is 1): float8 values out of
            // range become infinity or NaN instead of the largest finite value.
            let saturate = integer(op, "saturate").unwrap_or(1) != 0;
            // `round_mode` (discardable; float8 E8M0 targets): 0 up (absent), 1 down, 2 nearest.
            let code = integer(op, "round_mode").unwrap_or(0);
            let rounding = crate::minifloat::E8M0Rounding::from_code(code)
                .ok_or_else(|| format!("'sg.cast' round_mode {code} is not 0 (up), 1 (down) or 2 (nearest)"))?;
            elementwise::map(&mut k, 1, &out, |b, a| {
                elementwise::cast_saturating(b, &a[0], &elem, &out.elem, saturate, rounding)
            })?
        }
        "sg.neg" | "sg.abs" | "sg.ceil" | "sg.floor" | "sg.relu" | "sg.reciprocal" | "sg.exp" | "sg.sqrt"
        | "sg.log" | "sg.erf" | "sg.tanh" | "sg.sigmoid" | "sg.not" | "sg.clip" | "sg.leaky_relu"
        | "sg.hard_sigmoid" | "sg.hard_swish" | "sg.gelu" => {
            let attr = |a: &str| if a == "approximate" { integer(op, a).unwrap_or(0) as f64 } else { real(a) };
            elementwise::map(&mut k, 1, &out, |b, a| elementwise::unary(b, &name, &a[0], &elem, &attr))?
        }
        "sg.conv2d" => nn::conv2d(
            &mut k,
            &ints("strides")?,
            &ints("pads")?,
            &ints("dilations")?,
            int("group")?,
            op.operand_count() > 2,
            &out,
        )?,
        "sg.matmul" => nn::matmul(&mut k, &out)?,
        "sg.max_pool" | "sg.max_pool_indices" | "sg.average_pool" => {
            let (kernel, strides, pads, dilations) =
                (ints("kernel")?, ints("strides")?, ints("pads")?, ints("dilations")?);
            let window = nn::Window { kernel: &kernel, strides: &strides, pads: &pads, dilations: &dilations };
            match name.as_str() {
                "sg.max_pool" => nn::max_pool(&mut k, window, &out)?,
                "sg.max_pool_indices" => nn::max_pool_indices(&mut k, window, int("storage_order")? != 0, &out)?,
                _ => nn::average_pool(&mut k, window, int("count_include_pad")? != 0, &out)?,
            }
        }
        "sg.global_average_pool" => reduce::global_pool(&mut k, Reduction::Mean, &out)?,
        "sg.global_max_pool" => reduce::global_pool(&mut k, Reduction::Max, &out)?,
        "sg.reduce_sum" | "sg.reduce_mean" | "sg.reduce_max" | "sg.reduce_min" | "sg.reduce_prod" | "sg.reduce_l2" => {
            let how = match name.as_str() {
                "sg.reduce_sum" => Reduction::Sum,
                "sg.reduce_mean" => Reduction::Mean,
                "sg.reduce_max" => Reduction::Max,
                "sg.reduce_min" => Reduction::Min,
                "sg.reduce_prod" => Reduction::Prod,
                _ => Reduction::L2,
            };
            reduce::reduce_op(&mut k, &ints("axes")?, how, &out)?
        }
        "sg.softmax" | "sg.log_softmax" => reduce::softmax(&mut k, int("axis")? as usize, name == "sg.log_softmax")?,
        "sg.layer_norm" => {
            let axis = int("axis")? as usize;
            let rank = out.rank();
            let reduced: Vec<bool> = (0..rank).map(|d| d >= axis).collect();
            let bias = (op.operand_count() > 2).then_some(2);
            reduce::normalize(&mut k, &reduced, real("epsilon"), 1, bias, crate::kernel::Map::dims(axis..rank))?
        }
        "sg.instance_norm" => {
            let reduced: Vec<bool> = (0..out.rank()).map(|d| d >= 2).collect();
            reduce::normalize(&mut k, &reduced, real("epsilon"), 1, Some(2), crate::kernel::Map::dims([1]))?
        }
        "sg.gather" => layout::gather(&mut k, int("axis")? as usize, &out),
        "sg.concat" => layout::concat(&mut k, int("axis")? as usize, &out),
        "sg.expand" => layout::expand(&mut k, &out),
        "sg.tile" => layout::tile(&mut k, &out),
        "sg.pad" => layout::pad(&mut k, &ints("pads")?, int("mode")?, real("value"), &out),
        "sg.slice" => layout::slice(&mut k, &ints("starts")?, &ints("steps")?, &out),
        "sg.transpose" => layout::transpose(&mut k, &ints("perm")?, &out),
        "sg.reshape" => {
            let (input, ty) = (k.arg(0), k.arg_type(0).clone());
            let reshaped = layout::reshape(&mut k, &input, &ty, &out);
            if reshaped == input {
                // A reshape to its own shape: the kernel returns its argument.
                k.emit(format_args!("tensor.cast {input} : {ty} to {out}"))
            } else {
                reshaped
            }
        }
        "sg.view" => layout::view(&mut k, integer(op, "offset").unwrap_or(0), &ints("strides")?, &out),
        _ => return Err(format!("unsupported: '{name}' has no lowering to linalg yet")),
    };
    k.set_result(result, out);
    Ok(Some(k))
}
