//! Running a compiled model in-process: MLIR's execution engine (LLVM ORC) translates the
//! LLVM-dialect module, optimises it at O3 for the detected host CPU, and compiles it.

use crate::CodegenError;
use melior::ir::Module;
use strata_ir::llvm::ExecutionEngine;
use strata_ir::StrataContext;

/// A JIT-compiled module. Symbols stay valid while it lives.
pub struct Jit {
    engine: ExecutionEngine,
}

impl Jit {
    /// Compiles `module` (LLVM dialect) at `opt_level` (0 to 3).
    pub fn new(strata: &StrataContext, module: &Module<'_>, opt_level: i32) -> Result<Self, CodegenError> {
        // Parallel kernels (OpenMP worksharing loops) call LLVM's OpenMP runtime: loaded into
        // the process's global symbols, where the JIT resolves them.
        if uses_openmp(module) {
            strata_runtime::load_openmp().map_err(|e| CodegenError::Jit(e.to_string()))?;
        }
        let engine = ExecutionEngine::new(strata, module, opt_level).map_err(|e| CodegenError::Jit(e.message))?;
        Ok(Jit { engine })
    }

    /// The address of `symbol`.
    pub fn lookup(&self, symbol: &str) -> Result<*mut (), CodegenError> {
        self.engine.lookup(symbol).ok_or_else(|| CodegenError::Symbol(symbol.to_owned()))
    }
}

/// Whether `module` has OpenMP regions, whose code calls the OpenMP runtime: in the LLVM
/// dialect `omp.parallel`, on buffers (a module whose parts are lowered apart) the loops that
/// become them.
pub fn uses_openmp(module: &Module<'_>) -> bool {
    let parallel = |op: strata_ir::Op| op.is("omp.parallel") || op.is("scf.forall") || op.is("scf.parallel");
    !strata_ir::rewrite::collect(&module.as_operation(), parallel).is_empty()
}
