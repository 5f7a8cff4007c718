//! The bytes of the weights blob that `plan-weights` laid out, for every target.
//!
//! `plan-weights` leaves every constant `memref.global` it placed with its blob offset
//! (`strata.weights_offset`) and the module with the blob size (`strata.weights_bytes`).
//! [`blob`] writes each f32 global's values at its offset as little-endian bytes (what LLVM
//! lays out for them), and copies the others into a scratch module, lowers them with
//! `finalize-memref-to-llvm`, translates them to LLVM IR and writes each initializer's bytes at
//! its offset, exactly as LLVM lays the constant out in memory (its data layout decides element
//! sizes, padding and booleans), so the blob matches what compiled code would have read from
//! the globals.
//! [`erase_placed`] then drops the placed globals, so the code's own translation and
//! optimisation never see the weights.

use crate::{attrs, Blk, Error, ErrorKind, Op, PassManager, PassManagerOptions, StrataContext};
use llvm_sys::core::*;
use llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
use llvm_sys::target::{LLVMABISizeOfType, LLVMCreateTargetData, LLVMDisposeTargetData, LLVMTargetDataRef};
use llvm_sys::LLVMTypeKind;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Module};
use std::ffi::CString;

unsafe extern "C" {
    // llvm-sys 221 declares the length as a value instead of an out-pointer.
    fn LLVMGetRawDataValues(c: LLVMValueRef, size_in_bytes: *mut usize) -> *const std::ffi::c_char;
}

/// The data layout the blob follows: element sizes and alignments of the scalar and vector
/// types constants have, the same on x86-64 and NVPTX.
const LAYOUT: &str = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";

fn failed(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Internal, message.into())
}

/// The weights blob of `module` (empty when it has none). The placed globals are lowered and
/// translated in batches of at most [`BATCH_BYTES`] (or one larger global), each in an LLVM
/// context of its own, and their bytes copied into the blob before the next batch: LLVM holds
/// a few megabytes of weights at a time (translating them all at once held a second copy of
/// the whole blob, 100 MB of ResNet-50's peak), and a model of many small weights pays the
/// per-translation cost once per batch, not once per weight (3333 8x8 matrices: 330 -> 100 ms).
pub fn blob(strata: &StrataContext, module: &Module<'_>) -> Result<Vec<u8>, Error> {
    let mut bytes = vec![0u8; size(module)];
    blob_in_batches(strata, module, BATCH_BYTES, &mut bytes)?;
    Ok(bytes)
}

/// The bytes of the weights blob of `module` (0 when it has none).
pub fn size(module: &Module<'_>) -> usize {
    attrs::WEIGHTS_BYTES.get(module.as_operation()).map_or(0, |size| size.max(0) as usize)
}

/// [`blob`] written into `bytes` (zeroed, [`size`] long: a buffer the caller allocated with
/// the alignment the code needs, which then takes it without a copy).
pub fn blob_into(strata: &StrataContext, module: &Module<'_>, bytes: &mut [u8]) -> Result<(), Error> {
    if bytes.len() != size(module) {
        return Err(failed(format!("weights: a buffer of {} bytes for a blob of {}", bytes.len(), size(module))));
    }
    blob_in_batches(strata, module, BATCH_BYTES, bytes)
}

fn blob_in_batches(
    strata: &StrataContext,
    module: &Module<'_>,
    batch_bytes: usize,
    bytes: &mut [u8],
) -> Result<(), Error> {
    let Some(size) = attrs::WEIGHTS_BYTES.get(module.as_operation()) else {
        return Ok(());
    };
    let mut placed: Vec<(Op, usize)> = Blk::of(&module.body())
        .ops()
        .into_iter()
        .filter_map(|op| Some((op, attrs::WEIGHTS_OFFSET.get(op.get())? as usize)))
        .collect();
    placed.sort_by_key(|&(_, offset)| offset);
    // A global's room: up to the next placed one's offset (its bytes and the alignment gap).
    let room = |i: usize| placed.get(i + 1).map_or(size as usize, |next| next.1);
    // f32 values (almost every weight) are their own little-endian bytes: written directly,
    // and so are the blobs Strata made of whole-byte elements (a QDQ model's packed int8
    // weights and i32 offsets: 7 MB of smart-turn's took 1 s through LLVM). Through LLVM a
    // tensor of many short rows is an array constant per row (a filter packed as
    // `F/8 x C x 3 x 3 x 8`: 147k arrays for one of ResNet-18's, 1.2 s of its compile).
    // The others, with their room, go through LLVM below.
    let mut through_llvm: Vec<(Op, usize)> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    for (i, &(global, offset)) in placed.iter().enumerate() {
        let initial = global.get().attribute("initial_value").ok();
        let packed = initial.and_then(crate::resource::packed_le_bytes).map(std::borrow::Cow::Borrowed);
        let Some(values) = packed.or_else(|| initial.and_then(crate::resource::f32_le_bytes)) else {
            through_llvm.push((global, offset));
            ends.push(room(i));
            continue;
        };
        let end = offset + values.len();
        if end > room(i) {
            return Err(failed(format!("weights: @{} overruns its room", global.symbol_name().unwrap_or_default())));
        }
        bytes[offset..end].copy_from_slice(&values);
    }
    let placed = through_llvm;
    let mut pm = PassManager::parse(strata, "builtin.module(finalize-memref-to-llvm)", PassManagerOptions::default())
        .map_err(|e| failed(e.to_string()))?;
    // Safety: the layout is created here and disposed of below, once.
    let layout = unsafe {
        let layout_text = CString::new(LAYOUT).expect("no NUL");
        LLVMCreateTargetData(layout_text.as_ptr())
    };
    // A batch closes before the global that would take it past `batch_bytes`.
    let mut batches: Vec<&[(Op, usize)]> = Vec::new();
    let mut start = 0;
    for i in 0..placed.len() {
        if i > start && ends[i] - placed[start].1 > batch_bytes {
            batches.push(&placed[start..i]);
            start = i;
        }
    }
    if start < placed.len() {
        batches.push(&placed[start..]);
    }
    let result = batches.into_iter().try_for_each(|batch| {
        let mut scratch = strata.parse("module {}", "weights").map_err(|e| failed(e.to_string()))?;
        for (global, _) in batch {
            Blk::of(&scratch.body()).append(global.clone_detached());
        }
        pm.run(&mut scratch, &mut std::io::sink()).map_err(|e| failed(format!("lowering the weights: {e}")))?;
        // Safety: `layout` lives until the end of `blob`; the context (a new one each time: an
        // LLVM context keeps every constant made in it until it goes) and the module are
        // disposed of here, once.
        unsafe {
            let context = LLVMContextCreate();
            let written = match crate::llvm::translate_module(&scratch.as_operation(), context.cast()) {
                None => Err(failed("the weights did not translate to LLVM IR")),
                Some(raw) => {
                    let llvm = raw as LLVMModuleRef;
                    let written = batch.iter().try_for_each(|&(global, offset)| {
                        read_global(llvm, layout, &global.symbol_name().unwrap_or_default(), offset, bytes)
                    });
                    LLVMDisposeModule(llvm);
                    written
                }
            };
            LLVMContextDispose(context);
            written
        }
    });
    // Safety: created above, disposed of once.
    unsafe { LLVMDisposeTargetData(layout) };
    result
}

/// The most bytes of weights [`blob`] translates at once (a larger global goes alone).
const BATCH_BYTES: usize = 4 << 20;

/// Erases the globals of `module` that `plan-weights` placed in the blob (nothing reads them
/// any more: every read is a view of the blob argument). Returns how many.
pub fn erase_placed(module: &Module<'_>) -> usize {
    let mut erased = 0;
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        if attrs::WEIGHTS_OFFSET.get(current).is_some() {
            // Safety: `plan-weights` replaced every read of a placed global; the op is not
            // used again (the walk already holds the next one).
            unsafe { Op::of(&current).erase() };
            erased += 1;
        }
    }
    erased
}

/// Writes the initializer of global `@name` of `llvm` at `offset` in `bytes`.
unsafe fn read_global(
    llvm: LLVMModuleRef,
    layout: LLVMTargetDataRef,
    name: &str,
    offset: usize,
    bytes: &mut [u8],
) -> Result<(), Error> {
    let c_name = CString::new(name).map_err(|_| failed(format!("weights: @{name} has a NUL")))?;
    // Safety (whole block): `llvm` is a live module; values come from it.
    unsafe {
        let global = LLVMGetNamedGlobal(llvm, c_name.as_ptr());
        if global.is_null() {
            return Err(failed(format!("weights: @{name} vanished in translation")));
        }
        let init = LLVMGetInitializer(global);
        if init.is_null() {
            return Err(failed(format!("weights: @{name} has no value")));
        }
        write_constant(init, layout, bytes, offset).map_err(|e| failed(format!("weights: @{name}: {e}")))
    }
}

/// Writes the in-memory bytes of the constant `value` at `at`.
unsafe fn write_constant(
    value: LLVMValueRef,
    layout: LLVMTargetDataRef,
    out: &mut [u8],
    at: usize,
) -> Result<(), String> {
    unsafe {
        let ty = LLVMTypeOf(value);
        let size = LLVMABISizeOfType(layout, ty) as usize;
        let slot = out.get_mut(at..at + size).ok_or("the constant does not fit its place in the blob")?;
        if !LLVMIsAConstantDataSequential(value).is_null() {
            let mut length = 0usize;
            let data = LLVMGetRawDataValues(value, &mut length);
            let raw = std::slice::from_raw_parts(data.cast::<u8>(), length);
            slot[..length.min(size)].copy_from_slice(&raw[..length.min(size)]);
        } else if !LLVMIsAConstantAggregateZero(value).is_null()
            || !LLVMIsAUndefValue(value).is_null()
            || !LLVMIsAPoisonValue(value).is_null()
        {
            slot.fill(0);
        } else if !LLVMIsAConstantArray(value).is_null() {
            let element = LLVMABISizeOfType(layout, LLVMGetElementType(ty)) as usize;
            for i in 0..LLVMGetNumOperands(value) {
                write_constant(LLVMGetOperand(value, i as u32), layout, out, at + i as usize * element)?;
            }
        } else if !LLVMIsAConstantInt(value).is_null() {
            let bits = LLVMConstIntGetZExtValue(value).to_le_bytes();
            slot.copy_from_slice(&bits[..size.min(8)]);
        } else if !LLVMIsAConstantFP(value).is_null() {
            let mut lost = 0;
            let number = LLVMConstRealGetDouble(value, &mut lost);
            // The value is one of the type's own, so every conversion here is exact.
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMFloatTypeKind => slot.copy_from_slice(&(number as f32).to_le_bytes()),
                LLVMTypeKind::LLVMDoubleTypeKind => slot.copy_from_slice(&number.to_le_bytes()),
                LLVMTypeKind::LLVMHalfTypeKind => {
                    slot.copy_from_slice(&half::f16::from_f64(number).to_bits().to_le_bytes())
                }
                LLVMTypeKind::LLVMBFloatTypeKind => {
                    slot.copy_from_slice(&half::bf16::from_f64(number).to_bits().to_le_bytes())
                }
                other => return Err(format!("scalar floating-point constant of kind {other:?} is not supported")),
            }
        } else {
            return Err("constant of an unsupported kind".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half-precision scalars (an f16 Attention scale, a bf16 Celu alpha) are written as
    /// their own bits; they were refused before.
    #[test]
    fn half_precision_scalars_are_written_as_their_bits() {
        // Safety: a private context and data layout, disposed at the end.
        unsafe {
            let context = LLVMContextCreate();
            let layout = CString::new(LAYOUT).unwrap();
            let layout = LLVMCreateTargetData(layout.as_ptr());
            let cases = [
                (LLVMHalfTypeInContext(context), 1.5, 0x3e00u16),
                (LLVMHalfTypeInContext(context), -0.125, 0xb000),
                (LLVMBFloatTypeInContext(context), 1.5, 0x3fc0),
                (LLVMBFloatTypeInContext(context), -2.0, 0xc000),
            ];
            for (ty, value, bits) in cases {
                let mut out = [0u8; 2];
                write_constant(LLVMConstReal(ty, value), layout, &mut out, 0).unwrap();
                assert_eq!(u16::from_le_bytes(out), bits, "{value}");
            }
            LLVMDisposeTargetData(layout);
            LLVMContextDispose(context);
        }
    }

    /// Globals of several element types, placed out of order: the blob is the same whatever
    /// the batches, and each global's bytes are at its offset.
    #[test]
    fn blob_is_the_same_in_any_batches() {
        let strata = StrataContext::new(&[]).expect("a context");
        let text = r#"module attributes {strata.weights_bytes = 48 : i64} {
  memref.global "private" constant @b : memref<3xi8> = dense<[1, 2, 3]> {strata.weights_offset = 32 : i64}
  memref.global "private" constant @a : memref<2xf32> = dense<[1.0, -2.0]> {strata.weights_offset = 0 : i64}
  memref.global "private" constant @c : memref<2xf16> = dense<[1.0, 0.5]> {strata.weights_offset = 16 : i64}
  memref.global "private" constant @kept : memref<1xf32> = dense<[7.0]>
}"#;
        let module = strata.parse(text, "weights").expect("the module parses");
        let in_batches = |batch_bytes| {
            let mut bytes = vec![0u8; size(&module)];
            blob_in_batches(&strata, &module, batch_bytes, &mut bytes).map(|()| bytes)
        };
        let whole = in_batches(1 << 20).expect("one batch");
        let single = in_batches(1).expect("a batch per global");
        assert_eq!(whole, single);
        // Two globals in the first batch (32 bytes of room), the third alone.
        assert_eq!(in_batches(32).expect("two batches"), whole);
        let mut expected = vec![0u8; 48];
        expected[0..4].copy_from_slice(&1.0f32.to_le_bytes());
        expected[4..8].copy_from_slice(&(-2.0f32).to_le_bytes());
        expected[16..20].copy_from_slice(&[0x00, 0x3c, 0x00, 0x38]);
        expected[32..35].copy_from_slice(&[1, 2, 3]);
        assert_eq!(whole, expected);
        assert_eq!(erase_placed(&module), 3);
    }

    /// Blobs Strata made of whole-byte elements are copied as they are, and give the bytes the
    /// LLVM path gives for the same values; booleans still go through LLVM.
    #[test]
    fn made_blobs_are_copied_as_llvm_lays_them_out() {
        let strata = StrataContext::new(&[]).expect("a context");
        let text = r#"module attributes {strata.weights_bytes = 64 : i64} {
  memref.global "private" constant @i8 : memref<3xi8> = dense<[1, -2, 3]> {strata.weights_offset = 0 : i64}
  memref.global "private" constant @i32 : memref<2xi32> = dense<[70000, -5]> {strata.weights_offset = 16 : i64}
  memref.global "private" constant @bf16 : memref<2xbf16> = dense<[1.5, -2.0]> {strata.weights_offset = 32 : i64}
  memref.global "private" constant @i1 : memref<2xi1> = dense<[true, false]> {strata.weights_offset = 48 : i64}
}"#;
        let through_llvm = strata.parse(text, "weights").expect("the module parses");
        let made = strata.parse(text, "weights").expect("the module parses");
        // The booleans keep their `dense` value (the LLVM path).
        let raw: [(&str, &[u8]); 3] = [
            ("tensor<3xi8>", &[1, 0xfe, 3]),
            ("tensor<2xi32>", &[0x70, 0x11, 0x01, 0x00, 0xfb, 0xff, 0xff, 0xff]),
            ("tensor<2xbf16>", &[0xc0, 0x3f, 0x00, 0xc0]),
        ];
        for (op, (ty, bytes)) in Blk::of(&made.body()).ops().into_iter().zip(raw) {
            let ty = melior::ir::Type::parse(strata.mlir(), ty).expect("a type");
            let attribute = crate::resource::dense_resource(ty, "w", bytes);
            assert!(crate::resource::packed_le_bytes(attribute).is_some());
            op.set_attribute("initial_value", attribute);
        }
        let bools = melior::ir::Type::parse(strata.mlir(), "tensor<2xi1>").expect("a type");
        assert!(crate::resource::packed_le_bytes(crate::resource::dense_resource(bools, "b", &[1, 0])).is_none());
        assert_eq!(blob(&strata, &made).expect("a blob"), blob(&strata, &through_llvm).expect("a blob"));
    }
}
