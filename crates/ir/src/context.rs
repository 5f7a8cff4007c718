//! The ready-to-use MLIR context: upstream dialects, translations and passes registered,
//! Strata's IRDL dialects loaded, diagnostics captured, Rust passes registered.

use crate::diagnostics::{Diagnostic, DiagnosticSink, SourceLoc};
use crate::error::{IrError, Result};
use crate::pass::PassRegistry;
use melior::dialect::DialectRegistry;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use melior::ir::Module;
use melior::utility::{load_irdl_dialects, register_all_dialects, register_all_llvm_translations, register_all_passes};
use melior::Context;
use melior::StringRef;
use mlir_sys::mlirModuleCreateParse;

/// Checks what IRDL cannot express for one operation; pushes one diagnostic per problem
/// (all problems, not just the first).
pub type VerifyFn = fn(op: OperationRef<'_, '_>, errors: &mut Vec<Diagnostic>);

/// A Strata dialect: its IRDL definition plus the Rust parts that IRDL cannot hold.
#[derive(Clone, Copy)]
pub struct DialectDef {
    /// The dialect namespace (`sg`).
    pub name: &'static str,
    /// Where the IRDL text lives in the repository (for messages).
    pub irdl_path: &'static str,
    /// The IRDL module text (`irdl.dialect @name { ... }`).
    pub irdl: &'static str,
    /// Extra verification for each op of this dialect, run after MLIR's own verifier.
    pub verify: Option<VerifyFn>,
    /// Registers the dialect's Rust passes.
    pub register_passes: fn(&mut PassRegistry),
}

/// An MLIR context set up for Strata. Create one per thread. MLIR's threading is on: pass
/// managers nested on functions (the outlined kernels) and the verifier use every core. Rust
/// code runs on the creating thread only, except the diagnostics handler (thread-safe).
pub struct StrataContext {
    // Declared before `context`: nothing here borrows it, but keep the sink alive as long
    // as the handler that writes to it.
    sink: DiagnosticSink,
    dialects: Vec<DialectDef>,
    passes: PassRegistry,
    context: Context,
}

impl StrataContext {
    /// Makes a context with every upstream dialect, translation and pass registered, and the
    /// given Strata dialects loaded from their IRDL definitions.
    pub fn new(dialects: &[DialectDef]) -> Result<Self> {
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        // Threading on, always: `strata-bufferize-and-plan` runs two pass managers on one
        // context at once.
        let context = Context::new_with_registry(&registry, true);
        context.load_all_available_dialects();
        register_all_llvm_translations(&context);
        register_all_passes();
        let sink = DiagnosticSink::default();
        context.attach_diagnostic_handler(sink.handler());
        let passes = PassRegistry::new();
        let mut strata = StrataContext { sink, dialects: Vec::new(), passes, context };
        for dialect in dialects {
            strata.load_dialect(*dialect)?;
        }
        Ok(strata)
    }

    /// Loads one more dialect (its IRDL and its passes).
    pub fn load_dialect(&mut self, dialect: DialectDef) -> Result<()> {
        self.load_irdl(dialect.name, dialect.irdl, dialect.irdl_path)?;
        (dialect.register_passes)(&mut self.passes);
        self.dialects.push(dialect);
        Ok(())
    }

    /// Loads the IRDL dialects defined in `text` (e.g. a user's `--irdl-file`).
    pub fn load_irdl(&self, what: &str, text: &str, path: &str) -> Result<()> {
        let module = self
            .parse_module(text, path)
            .map_err(|e| IrError::DialectLoad { dialect: what.to_owned(), diagnostics: e.diagnostics().to_vec() })?;
        if !load_irdl_dialects(&module) {
            return Err(IrError::DialectLoad { dialect: what.to_owned(), diagnostics: self.sink.take() });
        }
        Ok(())
    }

    /// The MLIR context.
    pub fn mlir(&self) -> &Context {
        &self.context
    }

    /// Where diagnostics go.
    pub fn sink(&self) -> &DiagnosticSink {
        &self.sink
    }

    /// The Rust passes of the loaded dialects.
    pub fn passes(&self) -> &PassRegistry {
        &self.passes
    }

    /// Registers Rust passes that belong to no dialect.
    pub fn passes_mut(&mut self) -> &mut PassRegistry {
        &mut self.passes
    }

    /// The loaded Strata dialects.
    pub fn dialects(&self) -> &[DialectDef] {
        &self.dialects
    }

    /// Parses `text` as a module. `file` names the source in diagnostics and locations'
    /// messages. Top-level ops other than one `builtin.module` are wrapped in a module, as
    /// `mlir-opt` does. The module is verified, Strata's dialect verifiers included: MLIR's
    /// parser runs MLIR's verifier on what it parsed, so only Strata's run after it (verifying
    /// twice was 15% of the parsing of the schedules' kernel texts: 14 ms of MobileNetV2's 90).
    pub fn parse(&self, text: &str, file: &str) -> Result<Module<'_>> {
        let module = self.parse_module(text, file)?;
        self.verify_dialects(module.as_operation()).map_err(|diagnostics| IrError::Parse { diagnostics })?;
        Ok(module)
    }

    /// Like [`parse`](Self::parse) but without the dialects' Rust verifiers (MLIR's own
    /// verifier still runs). Only for testing verifiers and passes on invalid input.
    pub fn parse_without_dialect_verifiers(&self, text: &str, file: &str) -> Result<Module<'_>> {
        self.parse_module(text, file)
    }

    fn parse_module(&self, text: &str, file: &str) -> Result<Module<'_>> {
        if let Some((line, col)) = crate::nesting::too_deep(text, crate::nesting::MAX_NESTING) {
            let message = format!(
                "the IR nests deeper than {} levels of brackets (regions, attributes, types): refused before \
                 parsing, which recurses once per level; flatten the IR",
                crate::nesting::MAX_NESTING
            );
            let location = SourceLoc::File { file: file.to_owned(), line, col };
            return Err(IrError::Parse { diagnostics: vec![Diagnostic::error(location, message)] });
        }
        self.sink.take();
        let raw = unsafe { mlirModuleCreateParse(self.context.to_raw(), StringRef::new(text).to_raw()) };
        let mut diagnostics = self.sink.take();
        // MLIR names a parsed string buffer "-"; report the real file instead.
        for diagnostic in &mut diagnostics {
            diagnostic.rename_file("-", file);
            diagnostic.rename_file("", file);
        }
        if raw.ptr.is_null() {
            if diagnostics.is_empty() {
                diagnostics.push(Diagnostic::error(SourceLoc::Unknown, format!("cannot parse {file}")));
            }
            return Err(IrError::Parse { diagnostics });
        }
        let module = unsafe { Module::from_raw(raw) };
        relocate(module.as_operation(), file);
        Ok(module)
    }

    /// Verifies `op` and everything nested in it: MLIR's verifier (IRDL constraints, upstream
    /// op verifiers) first, then each loaded dialect's Rust verifier on its ops. Returns every
    /// problem found.
    pub fn verify(&self, op: OperationRef<'_, '_>) -> std::result::Result<(), Vec<Diagnostic>> {
        self.sink.take();
        if !op.verify() {
            let mut diagnostics = self.sink.take();
            if diagnostics.is_empty() {
                diagnostics.push(Diagnostic::error(SourceLoc::from_mlir(op.location()), "verification failed"));
            }
            return Err(diagnostics);
        }
        self.verify_dialects(op)
    }

    /// The loaded dialects' Rust verifiers and Strata's attribute checks on `op` and everything
    /// nested in it (the part of [`verify`](Self::verify) after MLIR's verifier).
    fn verify_dialects(&self, op: OperationRef<'_, '_>) -> std::result::Result<(), Vec<Diagnostic>> {
        let mut errors = Vec::new();
        let verifiers: Vec<(&str, VerifyFn)> =
            self.dialects.iter().filter_map(|d| d.verify.map(|v| (d.name, v))).collect();
        op.walk(WalkOrder::PreOrder, |nested| {
            let name = nested.name();
            let name = name.as_string_ref().as_str().unwrap_or("");
            let namespace = name.split('.').next().unwrap_or("");
            for (dialect, verify) in &verifiers {
                if *dialect == namespace {
                    verify(nested, &mut errors);
                }
            }
            let mut problems = Vec::new();
            crate::attrs::verify(nested, &mut problems);
            for problem in problems {
                errors
                    .push(Diagnostic::error(SourceLoc::from_mlir(nested.location()), format!("'{name}' op {problem}")));
            }
            WalkResult::Advance
        });
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// MLIR names a parsed string buffer "-": give every op and block argument located there
/// the real file name instead.
fn relocate(root: OperationRef<'_, '_>, file: &str) {
    use melior::ir::{BlockLike, Location, RegionLike, ValueLike};
    let context = root.context();
    let fix = |location: Location<'_>| -> Option<mlir_sys::MlirLocation> {
        let is_anonymous = location.is_file_line_col_range()
            && matches!(location.file_line_col_range_filename().as_string_ref().as_str(), Ok("-" | ""));
        is_anonymous.then(|| {
            let (line, col) = (location.file_line_col_range_start_line(), location.file_line_col_range_start_column());
            Location::new(unsafe { context.to_ref() }, file, line, col).to_raw()
        })
    };
    root.walk(WalkOrder::PreOrder, |op| {
        if let Some(location) = fix(op.location()) {
            unsafe { mlir_sys::mlirOperationSetLocation(op.to_raw(), location) };
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(b) = block {
                for index in 0..b.argument_count() {
                    let argument = b.argument(index).expect("counted");
                    if let Some(location) = fix(argument.location()) {
                        unsafe { mlir_sys::mlirBlockArgumentSetLocation(argument.to_raw(), location) };
                    }
                }
                block = b.next_in_region();
            }
        }
        WalkResult::Advance
    });
}
