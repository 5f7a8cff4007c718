//! Constant tensors as elements attributes: `dense_resource` blobs made from bytes (the
//! importer's weights, constants that passes rewrite at compile time), plain `dense<...>`
//! from bytes or booleans, and read back as values.

use melior::ir::{Attribute, AttributeLike, Type, TypeLike};

/// Frees a blob made by [`dense_resource`] when MLIR drops it.
unsafe extern "C" fn free_blob(user_data: *mut std::ffi::c_void, _: *const std::ffi::c_void, _: usize, _: usize) {
    drop(unsafe { Box::from_raw(user_data as *mut Vec<u64>) });
}

/// A `dense_resource` elements attribute of type `ty` holding a copy of `bytes` (8-byte
/// aligned; MLIR owns the copy and frees it with the context). `name` is the resource key's
/// stem; MLIR makes it unique in the context.
pub fn dense_resource<'c>(ty: Type<'c>, name: &str, bytes: &[u8]) -> Attribute<'c> {
    let mut blob = Box::new(vec![0u64; bytes.len().div_ceil(8)]);
    // Safety: the blob holds at least `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), blob.as_mut_ptr().cast::<u8>(), bytes.len()) };
    let data = blob.as_mut_ptr().cast::<std::ffi::c_void>();
    // Safety: `data` stays valid until MLIR calls `free_blob` with the box it came from.
    unsafe {
        Attribute::from_raw(mlir_sys::mlirUnmanagedDenseResourceElementsAttrGet(
            ty.to_raw(),
            melior::StringRef::new(name).to_raw(),
            data,
            bytes.len(),
            8,
            false,
            Some(free_blob),
            Box::into_raw(blob).cast(),
        ))
    }
}

/// A plain `dense<...>` elements attribute of type `ty` from its raw little-endian `bytes`
/// (MLIR copies them; a one-element buffer is a splat).
pub fn dense_bytes<'c>(ty: Type<'c>, bytes: &[u8]) -> Attribute<'c> {
    // Safety: MLIR copies `bytes.len()` bytes.
    unsafe {
        Attribute::from_raw(mlir_sys::mlirDenseElementsAttrRawBufferGet(
            ty.to_raw(),
            bytes.len(),
            bytes.as_ptr().cast(),
        ))
    }
}

/// A `dense<...>` boolean elements attribute of type `ty` (an `i1` tensor type).
pub fn dense_bools<'c>(ty: Type<'c>, flags: &[bool]) -> Attribute<'c> {
    let flags: Vec<i32> = flags.iter().map(|&f| i32::from(f)).collect();
    // Safety: MLIR copies `flags.len()` values.
    unsafe {
        Attribute::from_raw(mlir_sys::mlirDenseElementsAttrBoolGet(ty.to_raw(), flags.len() as isize, flags.as_ptr()))
    }
}

/// The `f32` elements of a dense or `dense_resource` elements attribute (a splat expanded),
/// or `None` for any other attribute or element type.
pub fn f32_values(attr: Attribute<'_>) -> Option<Vec<f32>> {
    use mlir_sys::*;
    let attr = attr.to_raw();
    unsafe {
        if !mlirAttributeIsAElements(attr) {
            return None;
        }
        let ty = mlirAttributeGetType(attr);
        if !mlirTypeIsAF32(mlirShapedTypeGetElementType(ty)) || !mlirShapedTypeHasStaticShape(ty) {
            return None;
        }
        let count = mlirElementsAttrGetNumElements(attr) as isize;
        if mlirAttributeIsADenseResourceElements(attr) {
            return Some((0..count).map(|i| mlirDenseFloatResourceElementsAttrGetValue(attr, i)).collect());
        }
        if mlirAttributeIsADenseFPElements(attr) {
            if mlirDenseElementsAttrIsSplat(attr) {
                return Some(vec![mlirDenseElementsAttrGetFloatSplatValue(attr); count as usize]);
            }
            return Some((0..count).map(|i| mlirDenseElementsAttrGetFloatValue(attr, i)).collect());
        }
        None
    }
}

/// Whether `attr` is a splat `dense<...>` elements attribute (one value for every element).
pub fn is_splat(attr: Attribute<'_>) -> bool {
    let attr = attr.to_raw();
    // Safety: the attribute is live; only a dense elements attribute is asked if it is a splat.
    unsafe { mlir_sys::mlirAttributeIsADenseElements(attr) && mlir_sys::mlirDenseElementsAttrIsSplat(attr) }
}
