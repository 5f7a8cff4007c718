//! Runs one textual pipeline made of upstream MLIR passes and Rust passes.
//!
//! The pipeline is parsed by Strata ([`Pipeline`]); each pass becomes a step. An upstream pass
//! is handed to MLIR (`mlirOpPassManagerAddPipeline` on a pass manager nested like the text);
//! a Rust pass is run by Strata on every op at its nesting. Building the steps validates the
//! whole pipeline (unknown passes, bad options) before anything runs. Around every step the
//! manager verifies the IR (MLIR's verifier and the dialects' Rust verifiers), opens a
//! `tracing` span, times it, and prints IR when asked.

use crate::context::StrataContext;
use crate::diagnostics::Diagnostic;
use crate::error::{ErrorKind, IrError, PipelineError, Result};
use crate::pass::{Pass, PassContext, PassEntry, PassOptions};
use crate::pipeline::{Element, PassSpec, Pipeline};
use crate::timing::TimingNode;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockLike, Module, RegionLike};
use melior::pass::PassManager as MlirPassManager;
use melior::StringRef;
use mlir_sys::{mlirOpPassManagerAddPipeline, mlirPassManagerCreateOnOperation, MlirStringRef};
use std::ffi::c_void;
use std::io::Write;
use std::time::Instant;

/// Instrumentation switches.
#[derive(Clone, Debug)]
pub struct PassManagerOptions {
    /// Verify the IR after every pass (MLIR's verifier plus the dialects' Rust verifiers).
    pub verify_each: bool,
    pub print_ir_before_all: bool,
    pub print_ir_after_all: bool,
    /// Print the IR after the pass that failed.
    pub print_ir_after_failure: bool,
}

impl Default for PassManagerOptions {
    fn default() -> Self {
        PassManagerOptions {
            verify_each: true,
            print_ir_before_all: false,
            print_ir_after_all: false,
            print_ir_after_failure: false,
        }
    }
}

/// One statistic of a pass: (name, help, value).
pub type Statistic = (&'static str, &'static str, u64);

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Wall time per pass, nested like the pipeline.
    pub timing: Vec<TimingNode>,
    /// Each Rust pass's statistics: (pass, anchor path, its statistics).
    pub statistics: Vec<(String, String, Vec<Statistic>)>,
    /// Warnings and remarks of passes that succeeded (a fallback taken, say), in order.
    pub warnings: Vec<Diagnostic>,
}

impl RunReport {
    /// Adds `other`'s statistics to this report's, summing counters of the same pass at the
    /// same nesting (as MLIR's list display does across a whole run).
    pub fn absorb_statistics(&mut self, other: &RunReport) {
        for (pass, path, values) in &other.statistics {
            match self.statistics.iter_mut().find(|(p, q, _)| p == pass && q == path) {
                Some((_, _, mine)) => {
                    for ((_, _, total), (_, _, value)) in mine.iter_mut().zip(values) {
                        *total += value;
                    }
                }
                None => self.statistics.push((pass.clone(), path.clone(), values.clone())),
            }
        }
    }

    /// The statistics in the layout of MLIR's `-mlir-pass-statistics` (list display).
    pub fn render_statistics(&self) -> String {
        let rule = "===-------------------------------------------------------------------------===";
        let mut out = format!("{rule}\n{:>50}\n{rule}\n", "... Pass statistics report ...");
        for (pass, path, stats) in &self.statistics {
            out.push_str(&format!("{pass} (on {path})\n"));
            for (name, help, value) in stats {
                out.push_str(&format!("  (S) {value} {name} - {help}\n"));
            }
        }
        out
    }
}

enum StepKind<'c> {
    Upstream(MlirPassManager<'c>),
    Rust { entry: PassEntry, pass: Box<dyn Pass> },
}

struct Step<'c> {
    /// Anchors below the pipeline's root, outermost first.
    path: Vec<String>,
    spec: PassSpec,
    kind: StepKind<'c>,
}

/// A validated pipeline, ready to run on modules.
pub struct PassManager<'c> {
    strata: &'c StrataContext,
    /// As written (named pipelines not expanded).
    pipeline: Pipeline,
    /// As it runs (named pipelines expanded).
    expanded: Pipeline,
    steps: Vec<Step<'c>>,
    options: PassManagerOptions,
}

impl<'c> PassManager<'c> {
    /// Parses and validates `text` against the upstream pass registry and `strata`'s Rust
    /// passes.
    pub fn parse(strata: &'c StrataContext, text: &str, options: PassManagerOptions) -> Result<Self> {
        let pipeline = Pipeline::parse(text).map_err(IrError::Pipeline)?;
        Self::new(strata, pipeline, text, options)
    }

    /// Replaces each reference to a named pipeline by its passes.
    fn expand(strata: &StrataContext, pipeline: Pipeline, text: &str) -> Result<Pipeline> {
        let mut elements = Vec::new();
        for element in pipeline.elements {
            match element {
                Element::Pass(spec) => match strata.passes().pipeline(&spec.name) {
                    Some(named) => {
                        let error = |message: String| {
                            IrError::Pipeline(PipelineError { pipeline: text.to_owned(), column: spec.column, message })
                        };
                        if pipeline.anchor != "builtin.module" {
                            return Err(error(format!(
                                "named pipeline '{}' runs on 'builtin.module' but is nested under '{}'",
                                named.name, pipeline.anchor
                            )));
                        }
                        if !spec.options.is_empty() {
                            return Err(error(format!("named pipeline '{}' takes no options", named.name)));
                        }
                        let inner = Pipeline::parse(&format!("builtin.module({})", named.passes)).map_err(|e| {
                            error(format!("named pipeline '{}' is malformed: {}", named.name, e.message))
                        })?;
                        // Named pipelines may use other named pipelines.
                        elements.extend(Self::expand(strata, inner, text)?.elements);
                    }
                    None => elements.push(Element::Pass(spec)),
                },
                Element::Nested(nested) => elements.push(Element::Nested(Self::expand(strata, nested, text)?)),
            }
        }
        Ok(Pipeline { anchor: pipeline.anchor, elements })
    }

    /// Builds the steps of an already parsed pipeline. `text` is used in error messages.
    pub fn new(strata: &'c StrataContext, pipeline: Pipeline, text: &str, options: PassManagerOptions) -> Result<Self> {
        let error = |column: usize, message: String| {
            IrError::Pipeline(PipelineError { pipeline: text.to_owned(), column, message })
        };
        if !matches!(pipeline.anchor.as_str(), "builtin.module" | "any") {
            return Err(error(
                0,
                format!(
                    "the pipeline is anchored on '{}', but it runs on a module: write 'builtin.module({})'",
                    pipeline.anchor, pipeline
                ),
            ));
        }
        let expanded = Self::expand(strata, pipeline.clone(), text)?;
        let mut steps = Vec::new();
        for (path, spec) in expanded.flatten() {
            let path: Vec<String> = path[1..].iter().map(|s| s.to_string()).collect();
            let innermost = path.last().map_or(expanded.anchor.as_str(), String::as_str);
            let kind = if let Some(entry) = strata.passes().get(&spec.name) {
                let info = entry.info;
                if info.anchor != "any" && info.anchor != innermost {
                    return Err(error(
                        spec.column,
                        format!(
                            "pass '{}' runs on '{}' ops but is nested under '{innermost}': write '{}({})'",
                            info.name, info.anchor, info.anchor, spec
                        ),
                    ));
                }
                let parsed = PassOptions::parse(info, &spec.options).map_err(|m| error(spec.column, m))?;
                StepKind::Rust { entry: *entry, pass: (entry.factory)(&parsed) }
            } else {
                StepKind::Upstream(
                    upstream_step(strata, &expanded.anchor, &path, spec).map_err(|m| error(spec.column, m))?,
                )
            };
            steps.push(Step { path, spec: spec.clone(), kind });
        }
        Ok(PassManager { strata, pipeline, expanded, steps, options })
    }

    /// The pipeline as written (named pipelines not expanded).
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The pipeline that runs (named pipelines expanded).
    pub fn expanded(&self) -> &Pipeline {
        &self.expanded
    }

    /// Runs every step on `module`. IR dumps go to `dump` (the driver passes stderr).
    pub fn run(&mut self, module: &mut Module<'c>, dump: &mut dyn Write) -> Result<RunReport> {
        let mut report = RunReport::default();
        for step in &mut self.steps {
            let display = step.spec.to_string();
            let anchors = std::iter::once(self.expanded.anchor.as_str())
                .chain(step.path.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" > ");
            let _span = tracing::info_span!("pass", name = %step.spec.name, anchor = %anchors).entered();
            if self.options.print_ir_before_all {
                print_ir(dump, &format!("IR Dump Before {display}"), module);
            }
            self.strata.sink().take();
            let start = Instant::now();
            // A failure's kind: what a Rust pass reported through `fail`, else verification.
            let outcome = match &mut step.kind {
                StepKind::Upstream(pm) => pm.run(module).map_err(|_| ErrorKind::Verification),
                StepKind::Rust { entry, pass } => {
                    let mut cx = PassContext {
                        strata: self.strata,
                        info: entry.info,
                        statistics: vec![0; entry.info.statistics.len()],
                        warnings: Vec::new(),
                        failure: None,
                        verify_each: self.options.verify_each,
                    };
                    let targets = collect_targets(module.as_operation(), &step.path);
                    let mut failed = false;
                    for target in targets {
                        let op = unsafe { OperationRef::from_raw(target) };
                        failed |= pass.run(op, &mut cx).is_err();
                    }
                    if !entry.info.statistics.is_empty() {
                        let stats = entry
                            .info
                            .statistics
                            .iter()
                            .zip(&cx.statistics)
                            .map(|(s, v)| (s.name, s.help, *v))
                            .collect();
                        report.statistics.push((step.spec.name.clone(), anchors.clone(), stats));
                    }
                    report.warnings.append(&mut cx.warnings);
                    if failed {
                        Err(cx.failure.unwrap_or(ErrorKind::Verification))
                    } else {
                        Ok(())
                    }
                }
            };
            let elapsed = start.elapsed();
            let path: Vec<&str> = step.path.iter().map(String::as_str).collect();
            TimingNode::record(&mut report.timing, &path, &step.spec.name, elapsed);
            tracing::debug!(elapsed_us = elapsed.as_micros() as u64, ok = outcome.is_ok(), "pass finished");
            let diagnostics = self.strata.sink().take();
            if outcome.is_err() || diagnostics.iter().any(|d| d.severity == crate::diagnostics::Severity::Error) {
                if self.options.print_ir_after_failure || self.options.print_ir_after_all {
                    print_ir(dump, &format!("IR Dump After {display} Failed"), module);
                }
                return Err(IrError::PassFailed {
                    pass: display,
                    kind: outcome.err().unwrap_or(ErrorKind::Verification),
                    diagnostics: with_fallback(diagnostics, &step.spec.name),
                });
            }
            report.warnings.extend(diagnostics);
            if self.options.print_ir_after_all {
                print_ir(dump, &format!("IR Dump After {display}"), module);
            }
            if self.options.verify_each {
                if let Err(diagnostics) = self.strata.verify(module.as_operation()) {
                    if self.options.print_ir_after_failure {
                        print_ir(dump, &format!("IR Dump After {display} Failed Verification"), module);
                    }
                    return Err(IrError::Verification { after: display, diagnostics });
                }
            }
        }
        Ok(report)
    }
}

fn with_fallback(mut diagnostics: Vec<Diagnostic>, pass: &str) -> Vec<Diagnostic> {
    if diagnostics.is_empty() {
        diagnostics.push(Diagnostic::error(
            crate::diagnostics::SourceLoc::Unknown,
            format!("pass '{pass}' signalled failure without a diagnostic"),
        ));
    }
    diagnostics
}

fn print_ir(dump: &mut dyn Write, title: &str, module: &Module<'_>) {
    let _ = writeln!(dump, "// -----// {title} //----- //\n{}", module.as_operation());
}

/// A single-pass MLIR pass manager nested under `path`.
fn upstream_step<'c>(
    strata: &'c StrataContext,
    root: &str,
    path: &[String],
    spec: &PassSpec,
) -> std::result::Result<MlirPassManager<'c>, String> {
    let context = strata.mlir().to_raw();
    let pm =
        unsafe { MlirPassManager::from_raw(mlirPassManagerCreateOnOperation(context, StringRef::new(root).to_raw())) };
    // Strata verifies after each pass itself (with the dialects' Rust verifiers too).
    pm.enable_verifier(false);
    let mut opm = pm.as_operation_pass_manager();
    for anchor in path {
        opm = opm.nested_under(anchor);
    }
    let text = spec.to_string();
    let mut message = String::new();
    // MLIR's option parser reports bad values on LLVM's stderr; capture it for the error.
    let captured = gag::BufferRedirect::stderr().ok();
    let ok = unsafe {
        mlirOpPassManagerAddPipeline(
            opm.to_raw(),
            StringRef::new(&text).to_raw(),
            Some(append_message),
            (&mut message as *mut String).cast(),
        )
    };
    let mut printed = String::new();
    if let Some(mut captured) = captured {
        use std::io::Read;
        let _ = captured.read_to_string(&mut printed);
    }
    strata.sink().take();
    if ok.value == 0 {
        let mut message = message.trim().trim_start_matches("MLIR Textual PassPipeline Parser:1:1: error: ").to_owned();
        let printed = printed.trim().trim_start_matches(':').trim();
        if !printed.is_empty() {
            message = format!("{printed} ({message})");
        }
        return Err(if message.contains("does not refer to a registered pass") {
            format!(
                "unknown pass '{}': it is neither a Strata pass nor an upstream MLIR pass (see --list-passes)",
                spec.name
            )
        } else if message.is_empty() {
            format!("invalid options for pass '{}'", spec.name)
        } else {
            format!("pass '{}': {message}", spec.name)
        });
    }
    Ok(pm)
}

unsafe extern "C" fn append_message(text: MlirStringRef, data: *mut c_void) {
    let message = unsafe { &mut *(data as *mut String) };
    let bytes = unsafe { std::slice::from_raw_parts(text.data.cast::<u8>(), text.length) };
    message.push_str(&String::from_utf8_lossy(bytes));
}

/// The ops a pass nested under `path` runs on: for each anchor, the matching ops directly
/// inside the regions of the previous level (MLIR's nesting rule).
fn collect_targets(root: OperationRef<'_, '_>, path: &[String]) -> Vec<mlir_sys::MlirOperation> {
    let mut level = vec![root.to_raw()];
    for anchor in path {
        let mut next = Vec::new();
        for raw in level {
            let op = unsafe { OperationRef::from_raw(raw) };
            for region in op.regions() {
                let mut block = region.first_block();
                while let Some(b) = block {
                    let mut child = b.first_operation();
                    while let Some(c) = child {
                        if anchor == "any" || c.name().as_string_ref().as_str() == Ok(anchor.as_str()) {
                            next.push(c.to_raw());
                        }
                        child = c.next_in_block();
                    }
                    block = b.next_in_region();
                }
            }
        }
        level = next;
    }
    level
}
