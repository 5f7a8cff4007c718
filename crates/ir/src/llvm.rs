//! What melior has no (checked) API for at the edge to LLVM: translating a module into an
//! LLVM context that inkwell owns, MLIR's ORC execution engine with its failure reported
//! instead of a null handle, and running an upstream pipeline on an op that is not a
//! `Module` value.

use crate::handle::Op;
use crate::{Error, ErrorKind, StrataContext};
use melior::ir::operation::OperationLike;
use melior::pass::PassManager as MlirPassManager;
use melior::StringRef;
use mlir_sys as sys;
use std::ffi::c_void;

/// Translates `module` (LLVM dialect, or with translatable dialects such as NVVM) into a new
/// LLVM module in `llvm_context` (an `LLVMContextRef`, e.g. from inkwell's `Context::raw`).
/// Returns the `LLVMModuleRef`, owned by the caller, or `None` when translation fails (the
/// context's sink holds MLIR's diagnostics).
pub fn translate_module<'c: 'a, 'a>(
    module: &impl OperationLike<'c, 'a>,
    llvm_context: *mut c_void,
) -> Option<*mut c_void> {
    // Safety: `module` is live; LLVM takes ownership of nothing but the context it is given.
    let raw = unsafe { sys::mlirTranslateModuleToLLVMIR(module.to_raw(), llvm_context.cast()) };
    (!raw.is_null()).then_some(raw.cast())
}

/// A JIT-compiled module (MLIR's execution engine over LLVM ORC). Symbols stay valid while it
/// lives.
pub struct ExecutionEngine {
    raw: sys::MlirExecutionEngine,
}

impl ExecutionEngine {
    /// Compiles `module` (LLVM dialect) at `opt_level` (0 to 3). A failure's message is MLIR's
    /// diagnostics.
    pub fn new(strata: &StrataContext, module: &melior::ir::Module<'_>, opt_level: i32) -> Result<Self, Error> {
        strata.sink().take();
        // Safety: `module` is live; a null engine is checked below.
        let raw =
            unsafe { sys::mlirExecutionEngineCreate(module.to_raw(), opt_level, 0, std::ptr::null(), false, false) };
        if raw.ptr.is_null() {
            let messages: Vec<String> = strata.sink().take().iter().map(|d| d.to_string()).collect();
            return Err(Error::new(
                ErrorKind::Internal,
                if messages.is_empty() {
                    "no diagnostic (is the module fully in the LLVM dialect?)".into()
                } else {
                    messages.join("\n")
                },
            ));
        }
        Ok(ExecutionEngine { raw })
    }

    /// The address of `symbol`, or `None` when the module does not define it.
    pub fn lookup(&self, symbol: &str) -> Option<*mut ()> {
        // Safety: the engine is live.
        let address = unsafe { sys::mlirExecutionEngineLookup(self.raw, StringRef::new(symbol).to_raw()) } as *mut ();
        (!address.is_null()).then_some(address)
    }
}

impl Drop for ExecutionEngine {
    fn drop(&mut self) {
        // Safety: created non-null in `new`, destroyed once.
        unsafe { sys::mlirExecutionEngineDestroy(self.raw) };
    }
}

/// Runs the upstream pipeline `pipeline` (e.g. `builtin.module(transform-interpreter)`) on
/// `op`, which need not be a top-level `Module`. Returns whether it parsed and succeeded;
/// diagnostics go to the context's sink.
///
/// For use inside a Rust pass, which Strata's pass manager verifies after it runs: this run
/// does not verify the IR itself (a pass that runs a script per batch of kernels would verify
/// the whole module per batch, quadratic in its size).
pub fn run_pipeline_on(strata: &StrataContext, op: Op, pipeline: &str) -> bool {
    let pm = MlirPassManager::new(strata.mlir());
    // Safety: the pass manager is live.
    unsafe { sys::mlirPassManagerEnableVerifier(pm.to_raw(), false) };
    if melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline).is_err() {
        return false;
    }
    // Safety: `op` is live (handle contract) and the pass manager is anchored on its name.
    unsafe { sys::mlirPassManagerRunOnOp(pm.to_raw(), op.raw()) }.value != 0
}
