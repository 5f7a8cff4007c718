//! The bytes of the weights blob that `plan-weights` laid out, for every target.
//!
//! `plan-weights` leaves every constant `memref.global` it placed with its blob offset
//! (`strata.weights_offset`) and the module with the blob size (`strata.weights_bytes`).
//! [`blob`] copies those globals into a scratch module, lowers them with
//! `finalize-memref-to-llvm`, translates them to LLVM IR and writes each initializer's bytes at
//! its offset, exactly as LLVM lays the constant out in memory (its data layout decides element
//! sizes, padding and booleans), so the blob matches what compiled code would have read from
//! the globals. Translating a `dense_resource` is a copy of its bytes, not a walk over elements.
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

/// The weights blob of `module` (empty when it has none). Each placed global is lowered and
/// translated on its own, in an LLVM context of its own, and its bytes copied into the blob
/// before the next: LLVM holds one weight at a time (translating them all at once held a
/// second copy of the whole blob, 100 MB of ResNet-50's peak).
pub fn blob(strata: &StrataContext, module: &Module<'_>) -> Result<Vec<u8>, Error> {
    let Some(size) = attrs::WEIGHTS_BYTES.get(module.as_operation()) else {
        return Ok(Vec::new());
    };
    let mut bytes = vec![0u8; size as usize];
    let mut pm = PassManager::parse(strata, "builtin.module(finalize-memref-to-llvm)", PassManagerOptions::default())
        .map_err(|e| failed(e.to_string()))?;
    // Safety: the layout is created here and disposed of below, once.
    let layout = unsafe {
        let layout_text = CString::new(LAYOUT).expect("no NUL");
        LLVMCreateTargetData(layout_text.as_ptr())
    };
    let mut placed =
        Blk::of(&module.body()).ops().into_iter().filter_map(|op| Some((op, attrs::WEIGHTS_OFFSET.get(op.get())?)));
    let result = placed.try_for_each(|(global, offset)| {
        let mut scratch = strata.parse("module {}", "weights").map_err(|e| failed(e.to_string()))?;
        Blk::of(&scratch.body()).append(global.clone_detached());
        pm.run(&mut scratch, &mut std::io::sink()).map_err(|e| failed(format!("lowering the weights: {e}")))?;
        let name = global.symbol_name().unwrap_or_default();
        // Safety: `layout` lives until the end of `blob`; the context (a new one each time: an
        // LLVM context keeps every constant made in it until it goes) and the module are
        // disposed of here, once.
        unsafe {
            let context = LLVMContextCreate();
            let written = match crate::llvm::translate_module(&scratch.as_operation(), context.cast()) {
                None => Err(failed("the weights did not translate to LLVM IR")),
                Some(raw) => {
                    let llvm = raw as LLVMModuleRef;
                    let written = read_global(llvm, layout, &name, offset as usize, &mut bytes);
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
    result.map(|()| bytes)
}

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
}
