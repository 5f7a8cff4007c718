//! Running a compiled model in-process: MLIR's execution engine (LLVM ORC) translates the
//! LLVM-dialect module, optimises it at O3 for the detected host CPU, and compiles it.

use crate::CodegenError;
use melior::ir::Module;
use melior::StringRef;
use mlir_sys::{mlirExecutionEngineCreate, mlirExecutionEngineDestroy, mlirExecutionEngineLookup, MlirExecutionEngine};
use strata_ir::StrataContext;

/// A JIT-compiled module. Symbols stay valid while it lives.
pub struct Jit {
    raw: MlirExecutionEngine,
}

impl Jit {
    /// Compiles `module` (LLVM dialect) at `opt_level` (0 to 3).
    pub fn new(strata: &StrataContext, module: &Module<'_>, opt_level: i32) -> Result<Self, CodegenError> {
        strata.sink().take();
        let raw = unsafe { mlirExecutionEngineCreate(module.to_raw(), opt_level, 0, std::ptr::null(), false, false) };
        if raw.ptr.is_null() {
            let messages: Vec<String> = strata.sink().take().iter().map(|d| d.to_string()).collect();
            return Err(CodegenError::Jit(if messages.is_empty() {
                "no diagnostic (is the module fully in the LLVM dialect?)".into()
            } else {
                messages.join("\n")
            }));
        }
        Ok(Jit { raw })
    }

    /// The address of `symbol`.
    pub fn lookup(&self, symbol: &str) -> Result<*mut (), CodegenError> {
        let address = unsafe { mlirExecutionEngineLookup(self.raw, StringRef::new(symbol).to_raw()) } as *mut ();
        if address.is_null() {
            Err(CodegenError::Symbol(symbol.to_owned()))
        } else {
            Ok(address)
        }
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        unsafe { mlirExecutionEngineDestroy(self.raw) };
    }
}
