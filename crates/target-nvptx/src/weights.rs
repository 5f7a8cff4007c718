//! The bytes of the weights blob that `plan-weights` laid out.
//!
//! `plan-weights` leaves every constant `memref.global` in the module with its blob offset
//! (`strata.weights_offset`) and the module with the blob size (`strata.weights_bytes`).
//! This module copies those globals into a scratch module, lowers them with
//! `finalize-memref-to-llvm`, translates them to LLVM IR and writes each initializer's bytes
//! at its offset, exactly as LLVM lays the constant out in memory (its data layout decides
//! element sizes, padding and booleans), so the blob matches what compiled code would have
//! read from the globals.

use crate::CodegenError;
use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMTargetDataRef};
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::targets::TargetData;
use inkwell::values::AsValueRef;
use melior::ir::attribute::StringAttribute;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Module};
use std::collections::BTreeMap;
use strata_ir::StrataContext;

unsafe extern "C" {
    // llvm-sys 221 declares the length as a value instead of an out-pointer.
    fn LLVMGetRawDataValues(c: LLVMValueRef, size_in_bytes: *mut usize) -> *const std::ffi::c_char;
}

/// The weights blob of `module` (empty when it has none).
pub fn blob(strata: &StrataContext, module: &Module<'_>) -> Result<Vec<u8>, CodegenError> {
    let Some(size) = strata_ir::attrs::WEIGHTS_BYTES.get(module.as_operation()) else {
        return Ok(Vec::new());
    };
    let scratch = strata.parse("module {}", "weights").map_err(|e| CodegenError::Translate(e.to_string()))?;
    let mut offsets = BTreeMap::new();
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if let Some(offset) = strata_ir::attrs::WEIGHTS_OFFSET.get(current) {
            let name = current
                .attribute("sym_name")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())
                .map(|s| s.value().to_owned())
                .unwrap_or_default();
            offsets.insert(name, offset);
            strata_ir::Blk::of(&scratch.body()).append(strata_ir::Op::of(&current).clone_detached());
        }
        op = current.next_in_block();
    }
    let mut scratch = scratch;
    let mut pm = strata_ir::PassManager::parse(
        strata,
        "builtin.module(finalize-memref-to-llvm)",
        strata_ir::PassManagerOptions::default(),
    )
    .map_err(|e| CodegenError::Translate(e.to_string()))?;
    pm.run(&mut scratch, &mut std::io::sink())
        .map_err(|e| CodegenError::Translate(format!("lowering the weights: {e}")))?;
    let context = Context::create();
    let raw = strata_ir::llvm::translate_module(&scratch.as_operation(), context.raw().cast())
        .ok_or_else(|| CodegenError::Translate("the weights did not translate to LLVM IR".into()))?;
    // Safety: the translated module is new, owned by us and lives in `context`.
    let llvm = unsafe { inkwell::module::Module::new(raw as *mut _) };
    let layout = TargetData::create("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
    let mut bytes = vec![0u8; size as usize];
    for (name, offset) in offsets {
        let global = llvm
            .get_global(&name)
            .ok_or_else(|| CodegenError::Translate(format!("weights: @{name} vanished in translation")))?;
        let init = unsafe { LLVMGetInitializer(global.as_value_ref()) };
        if init.is_null() {
            return Err(CodegenError::Translate(format!("weights: @{name} has no value")));
        }
        unsafe { write_constant(init, layout.as_mut_ptr(), &mut bytes, offset as usize) }
            .map_err(|e| CodegenError::Translate(format!("weights: @{name}: {e}")))?;
    }
    Ok(bytes)
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
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMFloatTypeKind => slot.copy_from_slice(&(number as f32).to_le_bytes()),
                LLVMTypeKind::LLVMDoubleTypeKind => slot.copy_from_slice(&number.to_le_bytes()),
                other => return Err(format!("scalar floating-point constant of kind {other:?} is not supported")),
            }
        } else {
            return Err("constant of an unsupported kind".into());
        }
        Ok(())
    }
}
