//! Type names without MLIR's printer.
//!
//! `mlirTypePrint` builds a fresh `AsmState` for every call, which collects and sorts the
//! context's loaded dialects by name: a few microseconds per type, and 16% of a 10k-node
//! model's compile went there, mostly to read an element type's name (`f32`) or to learn that
//! a type is not a tensor (melior's `TryFrom` prints the type into its error). The builtin
//! scalar types are named here from their kind; other types still print.

use melior::ir::r#type::{MemRefType, RankedTensorType, TypeLike};
use melior::ir::{ShapedTypeLike, Type};

/// The printed form of `ty`, as `ty.to_string()` gives it, without the printer for the builtin
/// float, integer and index types.
pub fn type_name(ty: Type<'_>) -> String {
    match scalar_name(ty) {
        Some(name) => name,
        None => ty.to_string(),
    }
}

/// The name of a builtin scalar type (`f32`, `bf16`, `i8`, `ui8`, `si32`, `index`, ...), or
/// `None` for any other type.
fn scalar_name(ty: Type<'_>) -> Option<String> {
    let name = if ty.is_f32() {
        "f32"
    } else if ty.is_f16() {
        "f16"
    } else if ty.is_bf16() {
        "bf16"
    } else if ty.is_f64() {
        "f64"
    } else if ty.is_index() {
        "index"
    } else if ty.is_integer() {
        let raw = ty.to_raw();
        // SAFETY: `raw` is an integer type (checked above).
        let (width, signed, unsigned) = unsafe {
            (
                mlir_sys::mlirIntegerTypeGetWidth(raw),
                mlir_sys::mlirIntegerTypeIsSigned(raw),
                mlir_sys::mlirIntegerTypeIsUnsigned(raw),
            )
        };
        let prefix = if signed {
            "si"
        } else if unsigned {
            "ui"
        } else {
            "i"
        };
        return Some(format!("{prefix}{width}"));
    } else {
        return None;
    };
    Some(name.to_owned())
}

/// The dimensions and element type of a fixed-size vector type (`vector<8x32xf32>`: `[8, 32]`
/// and `f32`), read without printing it; `None` for any other type (a scalable vector too).
pub fn vector_shape<'c>(ty: Type<'c>) -> Option<(Vec<i64>, Type<'c>)> {
    let raw = ty.to_raw();
    // Safety: `raw` is a live type; the vector queries run only on a vector type, a shaped
    // type of the rank it reports.
    unsafe {
        if !ty.is_vector() || mlir_sys::mlirVectorTypeIsScalable(raw) {
            return None;
        }
        let rank = mlir_sys::mlirShapedTypeGetRank(raw);
        let dims = (0..rank).map(|d| mlir_sys::mlirShapedTypeGetDimSize(raw, d as isize)).collect();
        Some((dims, Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw))))
    }
}

/// The strides, in elements, of a row-major (identity layout) array of `shape`: the product
/// of the extents after each axis.
pub fn row_major_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// A memref type's static layout: its shape, strides and offset in elements (MLIR's
/// `getStridesAndOffset`), or `None` when any of them is dynamic or the type is no memref with
/// a strided layout.
pub fn memref_layout(ty: Type<'_>) -> Option<(Vec<i64>, Vec<i64>, i64)> {
    let (shape, strides, offset) = memref_strides(ty)?;
    Some((shape, strides, offset?))
}

/// A memref's static shape and strides and its offset (`None` where it is dynamic: a view
/// at a run-time position), or `None` when its shape or strides are not static.
pub fn memref_strides(ty: Type<'_>) -> Option<(Vec<i64>, Vec<i64>, Option<i64>)> {
    let memref = memref(ty)?;
    let rank = memref.rank();
    let shape: Vec<i64> = (0..rank)
        .map(|d| match memref.dim_size(d) {
            Ok(melior::ir::r#type::DimSize::Static(n)) => Some(n as i64),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let mut strides = vec![0i64; rank];
    let mut offset = 0i64;
    // Safety: `strides` has room for the type's rank.
    let done = unsafe { mlir_sys::mlirMemRefTypeGetStridesAndOffset(ty.to_raw(), strides.as_mut_ptr(), &mut offset) };
    let dynamic = unsafe { mlir_sys::mlirShapedTypeGetDynamicStrideOrOffset() };
    (done.value != 0 && !strides.contains(&dynamic)).then_some((shape, strides, (offset != dynamic).then_some(offset)))
}

/// The element type of a ranked tensor, or `None` for any other type (without printing it).
pub fn tensor_element(ty: Type<'_>) -> Option<Type<'_>> {
    ranked_tensor(ty).map(|tensor| tensor.element())
}

/// The name of a ranked tensor's element type ([`type_name`]), or `None` for any other type.
pub fn tensor_element_name(ty: Type<'_>) -> Option<String> {
    tensor_element(ty).map(type_name)
}

/// `ty` as a ranked tensor type, or `None` (without printing it, as melior's `TryFrom` does on
/// failure).
pub fn ranked_tensor(ty: Type<'_>) -> Option<RankedTensorType<'_>> {
    ty.is_ranked_tensor().then(|| RankedTensorType::try_from(ty).expect("checked: a ranked tensor"))
}

/// `ty` as a memref type, or `None` (without printing it).
pub fn memref(ty: Type<'_>) -> Option<MemRefType<'_>> {
    ty.is_mem_ref().then(|| MemRefType::try_from(ty).expect("checked: a memref"))
}

/// The name of a memref's element type ([`type_name`]), or `None` for any other type.
pub fn memref_element_name(ty: Type<'_>) -> Option<String> {
    memref(ty).map(|m| type_name(m.element()))
}
