//! Diagnostics captured from MLIR into owned Rust values.
//!
//! MLIR reports problems through its diagnostic engine. A [`DiagnosticSink`] is attached to
//! every Strata context; it takes each diagnostic (with its notes and location) and stores it
//! instead of letting MLIR print it. Callers drain the sink and decide what to show: nothing is
//! printed behind the user's back.

use melior::diagnostic::{Diagnostic as MlirDiagnostic, DiagnosticSeverity};
use melior::ir::Location;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Remark,
    Warning,
    Error,
}

impl Severity {
    /// The word used in rendered output and in `expected-<word>` directives.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Remark => "remark",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl From<DiagnosticSeverity> for Severity {
    fn from(severity: DiagnosticSeverity) -> Self {
        match severity {
            DiagnosticSeverity::Error => Severity::Error,
            DiagnosticSeverity::Warning => Severity::Warning,
            DiagnosticSeverity::Remark => Severity::Remark,
            DiagnosticSeverity::Note => Severity::Note,
        }
    }
}

/// A source location, decoded from an MLIR location attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceLoc {
    /// `file:line:col`, the location of parsed text.
    File { file: String, line: usize, col: usize },
    /// `loc("name"(child))`: a named location, as importers attach (an ONNX node name).
    Named { name: String, child: Option<Box<SourceLoc>> },
    /// No location is known.
    Unknown,
    /// Any other location form, kept in MLIR's own spelling.
    Other(String),
}

impl SourceLoc {
    /// Decodes an MLIR location. Fused and call-site locations resolve to their most
    /// specific part (the first fused location, the callee).
    pub fn from_mlir(location: Location<'_>) -> Self {
        if location.is_file_line_col_range() {
            return SourceLoc::File {
                file: location.file_line_col_range_filename().as_string_ref().as_str().unwrap_or("?").to_owned(),
                line: location.file_line_col_range_start_line(),
                col: location.file_line_col_range_start_column(),
            };
        }
        if location.is_name() {
            let child = SourceLoc::from_mlir(location.name_child_location());
            return SourceLoc::Named {
                name: location.name_value().as_string_ref().as_str().unwrap_or("?").to_owned(),
                child: (child != SourceLoc::Unknown).then(|| Box::new(child)),
            };
        }
        if location.is_call_site() {
            return SourceLoc::from_mlir(location.call_site_callee());
        }
        if location.is_fused() && location.fused_num_locations() > 0 {
            return SourceLoc::from_mlir(location.fused_location(0));
        }
        let text = location.to_string();
        if text == "loc(unknown)" {
            SourceLoc::Unknown
        } else {
            SourceLoc::Other(text)
        }
    }

    /// The innermost `file:line:col` of this location, if any.
    pub fn file_line_col(&self) -> Option<(&str, usize, usize)> {
        match self {
            SourceLoc::File { file, line, col } => Some((file, *line, *col)),
            SourceLoc::Named { child: Some(child), .. } => child.file_line_col(),
            _ => None,
        }
    }

    fn rename_file(&mut self, from: &str, to: &str) {
        match self {
            SourceLoc::File { file, .. } if file == from => *file = to.to_owned(),
            SourceLoc::Named { child: Some(child), .. } => child.rename_file(from, to),
            _ => {}
        }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceLoc::File { file, line, col } => write!(f, "{file}:{line}:{col}"),
            SourceLoc::Named { name, child: Some(child) } => write!(f, "{child} ({name})"),
            SourceLoc::Named { name, child: None } => write!(f, "\"{name}\""),
            SourceLoc::Unknown => f.write_str("<unknown>"),
            SourceLoc::Other(text) => f.write_str(text),
        }
    }
}

/// One diagnostic with its attached notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub location: SourceLoc,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// A new diagnostic without notes.
    pub fn new(severity: Severity, location: SourceLoc, message: impl Into<String>) -> Self {
        Diagnostic { severity, location, message: message.into(), notes: Vec::new() }
    }

    /// An error without notes.
    pub fn error(location: SourceLoc, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, location, message)
    }

    fn from_mlir(diagnostic: &MlirDiagnostic<'_>) -> Self {
        let notes = (0..diagnostic.note_count())
            .filter_map(|index| diagnostic.note(index).ok())
            .map(|note| Diagnostic::from_mlir(&note))
            .collect();
        Diagnostic {
            severity: diagnostic.severity().into(),
            location: SourceLoc::from_mlir(diagnostic.location()),
            message: diagnostic.to_string(),
            notes,
        }
    }

    /// Replaces the file name `from` by `to` in this diagnostic and its notes.
    pub fn rename_file(&mut self, from: &str, to: &str) {
        self.location.rename_file(from, to);
        for note in &mut self.notes {
            note.rename_file(from, to);
        }
    }

    /// Renders the diagnostic like MLIR's source manager does: `loc: severity: message`,
    /// then the source line with a caret when `sources` knows the file, then each note.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        self.render_into(sources, &mut out);
        out
    }

    fn render_into(&self, sources: &SourceMap, out: &mut String) {
        use fmt::Write;
        let _ = writeln!(out, "{}: {}: {}", self.location, self.severity.as_str(), self.message);
        if let Some((file, line, col)) = self.location.file_line_col() {
            if let Some(text) = sources.line(file, line) {
                let _ = writeln!(out, "{text}");
                let _ = writeln!(out, "{}^", " ".repeat(col.saturating_sub(1)));
            }
        }
        for note in &self.notes {
            note.render_into(sources, out);
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render(&SourceMap::default()).trim_end())
    }
}

/// Renders a list of diagnostics, one after the other.
pub fn render_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    diagnostics.iter().map(|d| d.render(sources)).collect()
}

/// Source texts by file name, so rendered diagnostics can quote the offending line.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: BTreeMap<String, String>,
}

impl SourceMap {
    /// Registers `text` as the contents of `name`.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) {
        self.files.insert(name.into(), text.into());
    }

    /// Line `line` (1-based) of `file`, if known.
    pub fn line(&self, file: &str, line: usize) -> Option<&str> {
        self.files.get(file)?.lines().nth(line.checked_sub(1)?)
    }
}

/// Collects every diagnostic MLIR emits on a context. Cheap to clone (shared storage).
/// Thread-safe: with MLIR's threading on, a pass running on a worker thread may emit (MLIR
/// serialises its handlers, and the sink does not rely on that; MLIR's parallel pass adaptor
/// re-emits its workers' diagnostics on the thread that runs the pass manager).
///
/// Each diagnostic is kept with the capture scope of the thread that emitted it (the default
/// scope unless the thread runs inside [`DiagnosticSink::isolated`]), and `take`, `push` and
/// `has_errors` see the calling thread's scope only: two pass managers may then run on one
/// context at once, on two threads, without taking each other's diagnostics.
#[derive(Clone, Debug, Default)]
pub struct DiagnosticSink {
    captured: Arc<Mutex<Vec<(u64, Diagnostic)>>>,
}

thread_local! {
    /// The calling thread's capture scope (0: the default one).
    static SCOPE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The next capture scope to hand out.
static NEXT_SCOPE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl DiagnosticSink {
    /// The handler to attach to a context: stores the diagnostic and marks it handled.
    pub(crate) fn handler(&self) -> impl FnMut(MlirDiagnostic<'_>) -> bool + 'static {
        let captured = self.captured.clone();
        move |diagnostic| {
            let diagnostic = Diagnostic::from_mlir(&diagnostic);
            lock(&captured).push((SCOPE.get(), diagnostic));
            true
        }
    }

    /// Takes every diagnostic captured so far in the calling thread's scope.
    pub fn take(&self) -> Vec<Diagnostic> {
        let scope = SCOPE.get();
        let mut captured = lock(&self.captured);
        let (taken, kept) = std::mem::take(&mut *captured).into_iter().partition(|(s, _)| *s == scope);
        *captured = kept;
        taken.into_iter().map(|(_, d)| d).collect()
    }

    /// Whether an error was captured in the calling thread's scope and not yet taken.
    pub fn has_errors(&self) -> bool {
        let scope = SCOPE.get();
        lock(&self.captured).iter().any(|(s, d)| *s == scope && d.severity == Severity::Error)
    }

    /// Adds a diagnostic produced on the Rust side.
    pub fn push(&self, diagnostic: Diagnostic) {
        lock(&self.captured).push((SCOPE.get(), diagnostic));
    }

    /// The calling thread's capture scope, for [`DiagnosticSink::isolated`] on another thread.
    pub fn scope() -> u64 {
        SCOPE.get()
    }

    /// Runs `run` on the calling thread in a capture scope of its own; what it leaves untaken
    /// then belongs to `parent` (the scope of the thread that started this one).
    pub fn isolated<R>(&self, parent: u64, run: impl FnOnce() -> R) -> R {
        let scope = NEXT_SCOPE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let outer = SCOPE.replace(scope);
        let result = run();
        SCOPE.set(outer);
        for (s, _) in lock(&self.captured).iter_mut().filter(|(s, _)| *s == scope) {
            *s = parent;
        }
        result
    }
}

/// The captured list, even after a thread panicked holding it (a list of diagnostics has no
/// invariant a panic could break).
fn lock(captured: &Mutex<Vec<(u64, Diagnostic)>>) -> std::sync::MutexGuard<'_, Vec<(u64, Diagnostic)>> {
    captured.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
