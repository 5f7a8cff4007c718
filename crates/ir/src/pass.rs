//! Rust passes: their declaration ([`PassInfo`]), options, statistics and the registry that
//! makes them available by name in textual pipelines.

use crate::context::StrataContext;
use crate::diagnostics::{Diagnostic, Severity, SourceLoc};
use indexmap::IndexMap;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::Location;
use std::fmt;

/// What kind of value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Bool,
    Int,
    String,
    /// One of the listed words.
    Enum(&'static [&'static str]),
}

/// A declared pass option.
#[derive(Clone, Copy, Debug)]
pub struct OptionInfo {
    pub name: &'static str,
    pub kind: OptionKind,
    /// The default, written as it would be on the command line.
    pub default: &'static str,
    pub help: &'static str,
}

/// A declared pass statistic (a counter the pass increments).
#[derive(Clone, Copy, Debug)]
pub struct StatisticInfo {
    pub name: &'static str,
    pub help: &'static str,
}

/// Everything a pass declares about itself.
#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// Kebab-case argument used in pipelines (`sg-verify`).
    pub name: &'static str,
    /// One line for `--list-passes`.
    pub summary: &'static str,
    /// The operation the pass runs on (`func.func`, `builtin.module`), or `any`.
    pub anchor: &'static str,
    pub options: &'static [OptionInfo],
    pub statistics: &'static [StatisticInfo],
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    String(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::String(s) => f.write_str(s),
        }
    }
}

/// The options of one pass instance, every declared option present (defaults filled in).
#[derive(Clone, Debug, Default)]
pub struct PassOptions {
    values: IndexMap<&'static str, OptionValue>,
}

impl PassOptions {
    /// Parses `given` (key, value) pairs against `info`'s declarations.
    pub fn parse(info: &PassInfo, given: &[(String, String)]) -> Result<PassOptions, String> {
        let mut values = IndexMap::new();
        for option in info.options {
            values.insert(option.name, parse_value(option, option.default)?);
        }
        for (key, value) in given {
            let Some(option) = info.options.iter().find(|o| o.name == key) else {
                let known: Vec<_> = info.options.iter().map(|o| o.name).collect();
                return Err(if known.is_empty() {
                    format!("pass '{}' takes no options, but '{key}' was given", info.name)
                } else {
                    format!("pass '{}' has no option '{key}' (options: {})", info.name, known.join(", "))
                });
            };
            values.insert(option.name, parse_value(option, value)?);
        }
        Ok(PassOptions { values })
    }

    /// A boolean option. Panics if `name` is not a declared bool option (a pass bug).
    pub fn bool(&self, name: &str) -> bool {
        match self.values.get(name) {
            Some(OptionValue::Bool(b)) => *b,
            other => panic!("option '{name}' is not a declared bool option: {other:?}"),
        }
    }

    /// An integer option. Panics if `name` is not a declared int option (a pass bug).
    pub fn int(&self, name: &str) -> i64 {
        match self.values.get(name) {
            Some(OptionValue::Int(i)) => *i,
            other => panic!("option '{name}' is not a declared int option: {other:?}"),
        }
    }

    /// A string or enum option. Panics if `name` is not declared as one (a pass bug).
    pub fn string(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(OptionValue::String(s)) => s,
            other => panic!("option '{name}' is not a declared string option: {other:?}"),
        }
    }
}

fn parse_value(option: &OptionInfo, text: &str) -> Result<OptionValue, String> {
    let bad = |what: &str| format!("option '{}' expects {what}, got '{text}'", option.name);
    match option.kind {
        OptionKind::Bool => match text {
            "true" | "1" => Ok(OptionValue::Bool(true)),
            "false" | "0" => Ok(OptionValue::Bool(false)),
            _ => Err(bad("true or false")),
        },
        OptionKind::Int => text.parse().map(OptionValue::Int).map_err(|_| bad("an integer")),
        OptionKind::String => Ok(OptionValue::String(text.trim_matches('"').to_owned())),
        OptionKind::Enum(words) => {
            if words.contains(&text) {
                Ok(OptionValue::String(text.to_owned()))
            } else {
                Err(bad(&format!("one of {}", words.join(", "))))
            }
        }
    }
}

/// What a running pass can use: the context, diagnostics and its statistics.
pub struct PassContext<'s> {
    pub(crate) strata: &'s StrataContext,
    pub(crate) info: &'static PassInfo,
    pub(crate) statistics: Vec<u64>,
    /// Warnings the pass reported (kept here: nested parses drain the context's sink).
    pub(crate) warnings: Vec<Diagnostic>,
    /// The kind of the failures reported through [`PassContext::fail`] (the most severe).
    pub(crate) failure: Option<crate::ErrorKind>,
    /// Whether the pass manager running this pass verifies the IR after every pass.
    pub(crate) verify_each: bool,
}

impl<'s> PassContext<'s> {
    /// The Strata context (MLIR context, loaded dialects).
    pub fn strata(&self) -> &'s StrataContext {
        self.strata
    }

    /// Whether the pass manager running this pass verifies the IR after every pass: the
    /// option for the pass managers a pass runs itself (a release build verifies each stage's
    /// output only, and a nested pipeline verified after each of its passes cost a 10k-node
    /// graph a second).
    pub fn verify_each(&self) -> bool {
        self.verify_each
    }

    /// Reports an error at an IR location. The pass should then return `Err(PassFailed)`.
    pub fn emit_error(&self, location: Location<'_>, message: impl Into<String>) {
        self.strata.sink().push(Diagnostic::error(SourceLoc::from_mlir(location), message));
    }

    /// Reports `error` at `op` (its kind classifies the pass's failure: an unsupported input,
    /// an invalid one, a Strata bug); returns the marker the pass then returns.
    pub fn fail(&mut self, op: OperationRef<'_, '_>, error: &crate::Error) -> PassFailed {
        self.emit_op_error(op, error.labelled());
        self.failure = Some(self.failure.map_or(error.kind, |kind| kind.max(error.kind)));
        PassFailed
    }

    /// Reports an error at `op`'s location.
    pub fn emit_op_error(&self, op: OperationRef<'_, '_>, message: impl fmt::Display) {
        let name = op.name().as_string_ref().as_str().unwrap_or("?").to_owned();
        self.emit_error(op.location(), format!("'{name}' op {message}"));
    }

    /// Reports a warning at `op`'s location: the pass succeeded but could not do all it meant
    /// to (a fallback). The pass manager hands warnings to the caller in its `RunReport`.
    pub fn emit_op_warning(&mut self, op: OperationRef<'_, '_>, message: impl fmt::Display) {
        let name = op.name().as_string_ref().as_str().unwrap_or("?").to_owned();
        let location = SourceLoc::from_mlir(op.location());
        self.warnings.push(Diagnostic::new(Severity::Warning, location, format!("'{name}' op {message}")));
    }

    /// Reports warnings collected elsewhere (a nested pass manager's).
    pub fn extend_warnings(&mut self, warnings: Vec<Diagnostic>) {
        self.warnings.extend(warnings);
    }

    /// Adds `amount` to the declared statistic `name`. Panics on an undeclared name (a pass bug).
    pub fn bump(&mut self, name: &str, amount: u64) {
        let index = self
            .info
            .statistics
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("pass '{}' has no statistic '{name}'", self.info.name));
        self.statistics[index] += amount;
    }
}

/// Returned by a pass that failed; the details are in the diagnostics it emitted.
#[derive(Debug, Clone, Copy)]
pub struct PassFailed;

/// A pass written in Rust.
pub trait Pass {
    /// Runs on one operation of the pass's anchor kind.
    fn run(&mut self, op: OperationRef<'_, '_>, cx: &mut PassContext<'_>) -> Result<(), PassFailed>;
}

/// Makes a pass instance from its parsed options.
pub type PassFactory = fn(&PassOptions) -> Box<dyn Pass>;

/// A registered Rust pass.
#[derive(Clone, Copy)]
pub struct PassEntry {
    pub info: &'static PassInfo,
    pub factory: PassFactory,
}

/// Rust passes by name, in registration order.
#[derive(Clone, Default)]
pub struct PassRegistry {
    passes: IndexMap<&'static str, PassEntry>,
    pipelines: IndexMap<&'static str, crate::pipelines::NamedPipeline>,
}

impl PassRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a pass. Panics if the name is taken (two passes with one name is a bug).
    pub fn register(&mut self, info: &'static PassInfo, factory: PassFactory) {
        let taken = self.pipelines.contains_key(info.name)
            || self.passes.insert(info.name, PassEntry { info, factory }).is_some();
        assert!(!taken, "name '{}' registered twice", info.name);
    }

    /// Registers a named pipeline. Panics if the name is taken.
    pub fn register_pipeline(&mut self, pipeline: crate::pipelines::NamedPipeline) {
        let taken = self.passes.contains_key(pipeline.name) || self.pipelines.insert(pipeline.name, pipeline).is_some();
        assert!(!taken, "name '{}' registered twice", pipeline.name);
    }

    /// The named pipeline `name`, if registered.
    pub fn pipeline(&self, name: &str) -> Option<&crate::pipelines::NamedPipeline> {
        self.pipelines.get(name)
    }

    /// Every named pipeline, in registration order.
    pub fn pipelines(&self) -> impl Iterator<Item = &crate::pipelines::NamedPipeline> {
        self.pipelines.values()
    }

    /// The pass named `name`, if registered.
    pub fn get(&self, name: &str) -> Option<&PassEntry> {
        self.passes.get(name)
    }

    /// Every registered pass, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &PassEntry> {
        self.passes.values()
    }

    /// `--list-passes` text for the Rust passes and named pipelines.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for pipeline in self.pipelines() {
            out.push_str(&format!("  --{:<30} - {} [pipeline]\n", pipeline.name, pipeline.summary));
        }
        for entry in self.iter() {
            let info = entry.info;
            out.push_str(&format!("  --{:<30} - {} [on {}]\n", info.name, info.summary, info.anchor));
            for option in info.options {
                let kind = match option.kind {
                    OptionKind::Bool => "bool".to_owned(),
                    OptionKind::Int => "int".to_owned(),
                    OptionKind::String => "string".to_owned(),
                    OptionKind::Enum(words) => words.join("|"),
                };
                out.push_str(&format!(
                    "      {:<28} - {} (<{kind}>, default {})\n",
                    format!("--{}", option.name),
                    option.help,
                    option.default
                ));
            }
        }
        out
    }
}

unsafe extern "C" {
    /// `mlir::printRegisteredPasses()`: MLIR's C API has no way to enumerate registered
    /// passes, so `--list-passes` calls the C++ function.
    #[link_name = "_ZN4mlir21printRegisteredPassesEv"]
    fn mlir_print_registered_passes();
}

/// Prints every upstream MLIR pass registered in this process (with its options) to LLVM's
/// standard output.
pub fn print_upstream_passes() {
    // Safety: takes no arguments and only reads MLIR's global pass registry.
    unsafe { mlir_print_registered_passes() };
}
