//! Constant tensors as elements attributes: `dense_resource` blobs made from bytes (the
//! importer's weights, constants that passes rewrite at compile time), plain `dense<...>`
//! from bytes or booleans, and read back as values.

use melior::ir::{Attribute, AttributeLike, Type, TypeLike};

use std::collections::BTreeMap;
use std::sync::Mutex;

/// The blobs [`dense_resource`] made that MLIR still holds, so that their bytes are read in
/// one piece ([`f32_values`], [`f32_le_bytes`]): MLIR's C API reads a `dense_resource` one
/// element per call (80 ms for ResNet-18's 11M weights, read by every pass that folds or
/// packs them, and once more for the weights blob). Keyed by the attribute (its uniqued
/// storage, which lives as long as its context) and by the blob's data, whose entries go when
/// MLIR frees the blob ([`free_blob`], when the context goes): an address reused by a later
/// context is never found stale.
struct Blobs {
    by_attribute: BTreeMap<usize, Registered>,
    by_data: BTreeMap<usize, usize>,
}

/// A blob [`dense_resource`] made: its data, its length, its attribute's context, when it was
/// made ([`serial`]) and whether [`release_unreferenced`] gave its memory back.
#[derive(Clone, Copy)]
struct Registered {
    data: usize,
    len: usize,
    context: usize,
    serial: u64,
    released: bool,
}

static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The serial number the next blob [`dense_resource`] makes will have: what a compile passes
/// to [`release_unreferenced`] to leave the blobs made before it alone.
pub fn serial() -> u64 {
    SERIAL.load(std::sync::atomic::Ordering::Relaxed)
}

static BLOBS: Mutex<Blobs> = Mutex::new(Blobs { by_attribute: BTreeMap::new(), by_data: BTreeMap::new() });

fn blobs() -> std::sync::MutexGuard<'static, Blobs> {
    // The maps stay consistent whatever panicked while they were held (each update is one
    // insert or remove per map).
    BLOBS.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Frees a blob made by [`dense_resource`] when MLIR drops it.
unsafe extern "C" fn free_blob(user_data: *mut std::ffi::c_void, data: *const std::ffi::c_void, _: usize, _: usize) {
    let mut blobs = blobs();
    if let Some(attribute) = blobs.by_data.remove(&(data as usize)) {
        blobs.by_attribute.remove(&attribute);
    }
    drop(blobs);
    drop(unsafe { Box::from_raw(user_data as *mut Vec<u64>) });
}

/// The bytes of a `dense_resource` attribute [`dense_resource`] made (`None` for any other).
///
/// # Panics
/// If the blob was released ([`release_unreferenced`]): its memory reads as zeros, and a
/// weight read as zeros would be a silently wrong model.
fn registered_bytes<'c>(attr: Attribute<'c>) -> Option<&'c [u8]> {
    let Registered { data, len, released, .. } = *blobs().by_attribute.get(&(attr.to_raw().ptr as usize))?;
    assert!(!released, "internal error: a constant was read after its blob was released (strata_ir::resource)");
    // Safety: the blob lives until MLIR frees it with the attribute's context, which outlives
    // `'c`; nothing writes it after `dense_resource` made it.
    Some(unsafe { std::slice::from_raw_parts(data as *const u8, len) })
}

/// A `dense_resource` elements attribute of type `ty` holding a copy of `bytes` (8-byte
/// aligned; MLIR owns the copy and frees it with the context). `name` is the resource key's
/// stem; MLIR makes it unique in the context.
pub fn dense_resource<'c>(ty: Type<'c>, name: &str, bytes: &[u8]) -> Attribute<'c> {
    let mut blob = vec![0u64; bytes.len().div_ceil(8)];
    // Safety: the blob holds at least `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), blob.as_mut_ptr().cast::<u8>(), bytes.len()) };
    register_blob(ty, name, blob, bytes.len())
}

/// [`dense_resource`] of f32 values, written into the blob as their little-endian bytes in one
/// pass (no byte vector first, no zeroed blob): the host schedule lays out every constant
/// filter at compile time, and ResNet-18's `strata-cpu-schedule` went 153 -> 141 ms (minima
/// of three) without those two copies of its 44 MB of filters.
pub fn dense_resource_f32<'c>(ty: Type<'c>, name: &str, values: &[f32]) -> Attribute<'c> {
    let words: Vec<u64> = values
        .chunks(2)
        .map(|pair| {
            let mut bytes = [0u8; 8];
            bytes[..4].copy_from_slice(&pair[0].to_le_bytes());
            if let Some(second) = pair.get(1) {
                bytes[4..].copy_from_slice(&second.to_le_bytes());
            }
            // The words' memory holds exactly these bytes, whatever the host's byte order.
            u64::from_ne_bytes(bytes)
        })
        .collect();
    register_blob(ty, name, words, 4 * values.len())
}

/// The attribute over `blob`'s first `len` bytes, registered for [`registered_bytes`].
fn register_blob<'c>(ty: Type<'c>, name: &str, blob: Vec<u64>, len: usize) -> Attribute<'c> {
    // Boxed: `free_blob` gets the box back as MLIR's user data.
    let mut blob = Box::new(blob);
    let data = blob.as_mut_ptr().cast::<std::ffi::c_void>();
    // Safety: `data` stays valid until MLIR calls `free_blob` with the box it came from.
    let attribute = unsafe {
        Attribute::from_raw(mlir_sys::mlirUnmanagedDenseResourceElementsAttrGet(
            ty.to_raw(),
            melior::StringRef::new(name).to_raw(),
            data,
            len,
            8,
            false,
            Some(free_blob),
            Box::into_raw(blob).cast(),
        ))
    };
    // Registered after the call, not under the lock across it (`free_blob` takes the lock):
    // MLIR frees a blob only with its context, which outlives this call.
    let key = attribute.to_raw().ptr as usize;
    if key != 0 {
        // Safety: the attribute was just made.
        let context = unsafe { mlir_sys::mlirAttributeGetContext(attribute.to_raw()) }.ptr as usize;
        let serial = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut blobs = blobs();
        blobs.by_attribute.insert(key, Registered { data: data as usize, len, context, serial, released: false });
        blobs.by_data.insert(data as usize, key);
    }
    attribute
}

/// Gives back the memory of every blob [`dense_resource`] made in `module`'s context since
/// [`serial`] was `since` that no attribute of `module` uses any more (the weights once the weights blob holds them, the
/// filters the schedule replaced by packed copies); the bytes given back. MLIR keeps a blob
/// until its context goes, and the compile's context holds every constant it ever made: two or
/// three copies of the weights (ResNet-50: 100 MB each) by the time LLVM runs. The memory stays
/// mapped (MLIR still holds the pointer and frees it with the context), its pages returned to
/// the system (`madvise(MADV_DONTNEED)`: they read as zeros), and a read of a released blob
/// through this module panics rather than return zeros.
///
/// Only `module`'s own ops are searched for uses: call it where nothing else made since `since`
/// in the context (another module, an attribute kept aside) still needs a blob `module` does
/// not use.
pub fn release_unreferenced(module: &melior::ir::Module<'_>, since: u64) -> usize {
    // Safety: the module is live.
    let context = unsafe { mlir_sys::mlirOperationGetContext(module.as_operation().to_raw()) }.ptr as usize;
    let mut used = std::collections::BTreeSet::new();
    for op in crate::rewrite::collect(&module.as_operation(), |_| true) {
        let raw = op.raw();
        // Safety: `op` is a live op of `module`; its attributes live as long as its context.
        unsafe {
            for i in 0..mlir_sys::mlirOperationGetNumAttributes(raw) {
                uses(mlir_sys::mlirOperationGetAttribute(raw, i).attribute, &mut used);
            }
        }
    }
    let page = page_size();
    let mut released = 0;
    let mut blobs = blobs();
    for (attribute, blob) in blobs.by_attribute.iter_mut() {
        if blob.context != context || blob.serial < since || blob.released || used.contains(attribute) {
            continue;
        }
        blob.released = true;
        // The whole pages inside the blob (its allocation's other bytes are not ours).
        let start = blob.data.next_multiple_of(page);
        let end = (blob.data + blob.len) / page * page;
        if end > start {
            // Safety: the pages lie inside the blob's own allocation, which nothing reads
            // again (no attribute of the module uses it, and `registered_bytes` refuses it).
            #[cfg(unix)]
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
            }
            released += end - start;
        }
    }
    released
}

/// Adds to `used` the `dense_resource` attributes in `attribute` (itself, or inside arrays and
/// dictionaries).
unsafe fn uses(attribute: mlir_sys::MlirAttribute, used: &mut std::collections::BTreeSet<usize>) {
    // Safety: `attribute` is a live attribute; each accessor is called on the kind it checks.
    unsafe {
        if mlir_sys::mlirAttributeIsADenseResourceElements(attribute) {
            used.insert(attribute.ptr as usize);
        } else if mlir_sys::mlirAttributeIsAArray(attribute) {
            for i in 0..mlir_sys::mlirArrayAttrGetNumElements(attribute) {
                uses(mlir_sys::mlirArrayAttrGetElement(attribute, i), used);
            }
        } else if mlir_sys::mlirAttributeIsADictionary(attribute) {
            for i in 0..mlir_sys::mlirDictionaryAttrGetNumElements(attribute) {
                uses(mlir_sys::mlirDictionaryAttrGetElement(attribute, i).attribute, used);
            }
        }
    }
}

fn page_size() -> usize {
    #[cfg(unix)]
    {
        // Safety: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            return page as usize;
        }
    }
    4096
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
            if let Some(bytes) = registered_bytes(Attribute::from_raw(attr)).filter(|b| b.len() >= 4 * count as usize) {
                return Some(from_le_bytes(bytes, count as usize));
            }
            return Some((0..count).map(|i| mlirDenseFloatResourceElementsAttrGetValue(attr, i)).collect());
        }
        if mlirAttributeIsADenseFPElements(attr) {
            if mlirDenseElementsAttrIsSplat(attr) {
                return Some(vec![mlirDenseElementsAttrGetFloatSplatValue(attr); count as usize]);
            }
            // A non-splat dense f32 attribute stores its elements packed, little-endian.
            let data = mlirDenseElementsAttrGetRawData(attr).cast::<u8>();
            let bytes = std::slice::from_raw_parts(data, 4 * count as usize);
            return Some(from_le_bytes(bytes, count as usize));
        }
        None
    }
}

/// The `f32` elements of `attr` as [`f32_values`] reads them, as their little-endian bytes:
/// borrowed from a blob [`dense_resource`] made (no copy), otherwise converted.
pub fn f32_le_bytes(attr: Attribute<'_>) -> Option<std::borrow::Cow<'_, [u8]>> {
    let raw = attr.to_raw();
    // Safety: the attribute is live; its type is read only when it is an elements attribute.
    let resource = unsafe {
        mlir_sys::mlirAttributeIsADenseResourceElements(raw)
            && mlir_sys::mlirTypeIsAF32(mlir_sys::mlirShapedTypeGetElementType(mlir_sys::mlirAttributeGetType(raw)))
    };
    if resource {
        let count = unsafe { mlir_sys::mlirElementsAttrGetNumElements(raw) } as usize;
        if let Some(bytes) = registered_bytes(attr).filter(|b| b.len() >= 4 * count) {
            return Some(std::borrow::Cow::Borrowed(&bytes[..4 * count]));
        }
    }
    let values = f32_values(attr)?;
    Some(std::borrow::Cow::Owned(values.iter().flat_map(|v| v.to_le_bytes()).collect()))
}

/// The elements of `attr` as little-endian bytes, element after element, for a
/// [`dense_resource`] Strata made whose elements are whole bytes in memory (integers of 8, 16,
/// 32 or 64 bits, `f16`, `bf16`, `f32`, `f64`): its blob, borrowed (no copy). These are the
/// bytes LLVM lays out for such a constant array. `None` for anything else (booleans, sub-byte
/// and float8 types, a resource parsed from text), which the caller converts otherwise.
pub fn packed_le_bytes(attr: Attribute<'_>) -> Option<&[u8]> {
    let raw = attr.to_raw();
    // Safety: the attribute is live; its type is read only when it is an elements attribute.
    if !unsafe { mlir_sys::mlirAttributeIsADenseResourceElements(raw) } {
        return None;
    }
    // Safety: a dense resource elements attribute has a shaped type.
    let (width, count) = unsafe {
        let element = mlir_sys::mlirShapedTypeGetElementType(mlir_sys::mlirAttributeGetType(raw));
        let width = if mlir_sys::mlirTypeIsAInteger(element) {
            mlir_sys::mlirIntegerTypeGetWidth(element) as usize
        } else if mlir_sys::mlirTypeIsAF16(element) || mlir_sys::mlirTypeIsABF16(element) {
            16
        } else if mlir_sys::mlirTypeIsAF32(element) {
            32
        } else if mlir_sys::mlirTypeIsAF64(element) {
            64
        } else {
            0
        };
        (width, mlir_sys::mlirElementsAttrGetNumElements(raw) as usize)
    };
    if !matches!(width, 8 | 16 | 32 | 64) {
        return None;
    }
    let bytes = width / 8 * count;
    registered_bytes(attr).filter(|b| b.len() >= bytes).map(|b| &b[..bytes])
}

/// The first `count` little-endian `f32`s of `bytes`.
fn from_le_bytes(bytes: &[u8], count: usize) -> Vec<f32> {
    bytes.chunks_exact(4).take(count).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Whether `attr` is a splat `dense<...>` elements attribute (one value for every element).
pub fn is_splat(attr: Attribute<'_>) -> bool {
    let attr = attr.to_raw();
    // Safety: the attribute is live; only a dense elements attribute is asked if it is a splat.
    unsafe { mlir_sys::mlirAttributeIsADenseElements(attr) && mlir_sys::mlirDenseElementsAttrIsSplat(attr) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StrataContext;
    use melior::ir::operation::OperationLike;

    /// A blob made here is read in one piece (borrowed, no copy); one parsed from text, which
    /// the registry does not know, element by element; both give the same values, and a
    /// context's blobs leave the registry with it.
    #[test]
    fn resources_read_whole_or_by_element_alike() {
        let values = [1.5f32, -2.0, 0.25, 3.0e-3, f32::MAX];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let entry = {
            let strata = StrataContext::new(&[]).expect("a context");
            let ty = Type::parse(strata.mlir(), "tensor<5xf32>").expect("a type");
            let made = dense_resource(ty, "weights", &bytes);
            assert!(registered_bytes(made).is_some());
            assert_eq!(f32_values(made).expect("f32 values"), values);
            // From the values directly: the same bytes (an odd count: the last word half used).
            let direct = dense_resource_f32(ty, "weights", &values);
            assert_eq!(registered_bytes(direct), Some(bytes.as_slice()));
            let borrowed = f32_le_bytes(made).expect("its bytes");
            assert!(matches!(borrowed, std::borrow::Cow::Borrowed(_)));
            assert_eq!(&*borrowed, bytes.as_slice());

            let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
            let text = format!(
                "module {{\n  func.func @f() -> tensor<5xf32> {{\n    %0 = arith.constant dense_resource<parsed> : tensor<5xf32>\n    return %0 : tensor<5xf32>\n  }}\n}}\n{{-#\n  dialect_resources: {{\n    builtin: {{\n      parsed: \"0x04000000{hex}\"\n    }}\n  }}\n#-}}\n"
            );
            let module = strata.parse(&text, "parsed").expect("the module parses");
            let constant = crate::rewrite::collect(&module.as_operation(), |op| op.is("arith.constant"));
            let parsed = constant[0].get().attribute("value").expect("a value");
            assert!(registered_bytes(parsed).is_none());
            assert_eq!(f32_values(parsed).expect("f32 values"), values);
            assert_eq!(&*f32_le_bytes(parsed).expect("its bytes"), bytes.as_slice());

            let dense = dense_bytes(ty, &bytes);
            assert_eq!(f32_values(dense).expect("f32 values"), values);
            (borrowed.as_ptr() as usize, made.to_raw().ptr as usize)
        };
        // The context is gone, and its blob's entry with it (other tests' contexts may hold
        // entries of their own meanwhile: only this one's is looked for).
        let (data, attribute) = entry;
        let blobs = blobs();
        assert_ne!(blobs.by_data.get(&data), Some(&attribute));
        assert!(blobs.by_attribute.get(&attribute).is_none_or(|r| r.data != data));
    }

    /// The blobs a module no longer uses go back to the system and refuse reads; those it uses,
    /// and those made before the given serial, stay.
    #[test]
    fn unreferenced_blobs_are_released() {
        use melior::ir::operation::OperationBuilder;
        use melior::ir::{BlockLike, Identifier};
        let strata = StrataContext::new(&[]).expect("a context");
        // 16 KiB each: whole pages inside.
        let ty = Type::parse(strata.mlir(), "tensor<4096xf32>").expect("a type");
        let values = vec![0.5f32; 4096];
        let before = dense_resource_f32(ty, "before", &values);
        let since = serial();
        let used = dense_resource_f32(ty, "used", &values);
        let unused = dense_resource_f32(ty, "unused", &values);
        let module = strata.parse("module {}", "m").expect("a module");
        let constant = OperationBuilder::new("arith.constant", melior::ir::Location::unknown(strata.mlir()))
            .add_attributes(&[(Identifier::new(strata.mlir(), "value"), used)])
            .add_results(&[ty])
            .build()
            .expect("a constant");
        module.body().append_operation(constant);
        assert!(release_unreferenced(&module, since) >= 8192);
        assert_eq!(f32_values(used).expect("kept"), values);
        assert_eq!(f32_values(before).expect("made before"), values);
        let read = std::panic::catch_unwind(|| f32_values(unused));
        assert!(read.is_err(), "a released blob is not read");
        // Released once: a second call finds nothing more.
        assert_eq!(release_unreferenced(&module, since), 0);
        let _ = module.as_operation();
    }
}
