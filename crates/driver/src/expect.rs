//! `--verify-diagnostics`: checks the diagnostics of a run against `expected-*` comments in
//! the source, as `mlir-opt` does.
//!
//! Supported: `// expected-error {{text}}` (same line), `@+N`, `@-N`, `@above`, `@below`,
//! for `error`, `warning`, `remark` and `note`. A diagnostic matches an expectation of the same
//! severity on the same line whose text is a substring of the message. Every diagnostic
//! must be expected and every expectation must be produced.

use strata_ir::{Diagnostic, Severity};

/// One `expected-*` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub severity: Severity,
    /// The line the diagnostic must be reported on (1-based).
    pub line: usize,
    pub text: String,
    /// Where the directive itself is written (1-based line).
    pub written_at: usize,
}

/// Reads every `expected-*` directive of `source`. Malformed directives are returned as
/// errors (line, message) so a typo cannot silently disable a check.
pub fn parse_expectations(source: &str) -> Result<Vec<Expectation>, Vec<(usize, String)>> {
    let mut expectations = Vec::new();
    let mut errors = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let number = index + 1;
        let mut rest = line;
        while let Some(start) = rest.find("expected-") {
            rest = &rest[start + "expected-".len()..];
            let Some((severity, after)) = [
                ("error", Severity::Error),
                ("warning", Severity::Warning),
                ("remark", Severity::Remark),
                ("note", Severity::Note),
            ]
            .iter()
            .find_map(|(word, severity)| rest.strip_prefix(word).map(|after| (*severity, after))) else {
                continue;
            };
            let (target, after) = match after.strip_prefix('@') {
                Some(spec) => {
                    let end = spec.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(spec.len());
                    let target = match &spec[..end] {
                        "above" => number.checked_sub(1),
                        "below" => Some(number + 1),
                        offset => offset.parse::<i64>().ok().and_then(|o| usize::try_from(number as i64 + o).ok()),
                    };
                    match target {
                        Some(t) if t >= 1 => (t, &spec[end..]),
                        _ => {
                            errors.push((number, format!("bad line offset '@{}'", &spec[..end])));
                            break;
                        }
                    }
                }
                None => (number, after),
            };
            let after = after.trim_start();
            let Some(body) = after.strip_prefix("{{") else {
                errors.push((number, "expected '{{' after the expected-* directive".into()));
                break;
            };
            let Some(end) = body.find("}}") else {
                errors.push((number, "missing '}}' to close the expected text".into()));
                break;
            };
            expectations.push(Expectation { severity, line: target, text: body[..end].to_owned(), written_at: number });
            rest = &body[end + 2..];
        }
    }
    if errors.is_empty() {
        Ok(expectations)
    } else {
        Err(errors)
    }
}

/// Matches `diagnostics` (notes flattened) against `expectations` for `file`. Returns the
/// failures as rendered lines; empty means the check passed.
pub fn check(file: &str, expectations: &[Expectation], diagnostics: &[Diagnostic]) -> Vec<String> {
    let mut flat = Vec::new();
    for diagnostic in diagnostics {
        flat.push(diagnostic);
        // MLIR attaches the printed op to verifier errors; mlir-opt turns that off when
        // verifying diagnostics, so it is not something a test can expect.
        flat.extend(diagnostic.notes.iter().filter(|n| !n.message.starts_with("see current operation")));
    }
    let mut matched = vec![false; expectations.len()];
    let mut failures = Vec::new();
    for diagnostic in flat {
        let line = match diagnostic.location.file_line_col() {
            Some((f, line, _)) if f == file => Some(line),
            _ => None,
        };
        let found = expectations.iter().enumerate().position(|(i, e)| {
            !matched[i]
                && Some(e.line) == line
                && e.severity == diagnostic.severity
                && diagnostic.message.contains(&e.text)
        });
        match found {
            Some(i) => matched[i] = true,
            None => failures.push(format!(
                "{}: error: unexpected {}: {}",
                diagnostic.location,
                diagnostic.severity.as_str(),
                diagnostic.message
            )),
        }
    }
    for (expectation, _) in expectations.iter().zip(&matched).filter(|(_, m)| !**m) {
        failures.push(format!(
            "{file}:{}: error: expected {} \"{}\" was not produced (directive on line {})",
            expectation.line,
            expectation.severity.as_str(),
            expectation.text,
            expectation.written_at
        ));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ir::SourceLoc;

    fn at(line: usize, severity: Severity, message: &str) -> Diagnostic {
        Diagnostic::new(severity, SourceLoc::File { file: "t.mlir".into(), line, col: 3 }, message)
    }

    #[test]
    fn parses_offsets() {
        let source = "a\n// expected-error@+1 {{boom}}\nb // expected-warning {{w}} expected-note@-2 {{n}}\n// expected-remark@above {{r}}";
        let got = parse_expectations(source).unwrap();
        let lines: Vec<_> = got.iter().map(|e| (e.severity, e.line, e.text.as_str())).collect();
        assert_eq!(
            lines,
            [
                (Severity::Error, 3, "boom"),
                (Severity::Warning, 3, "w"),
                (Severity::Note, 1, "n"),
                (Severity::Remark, 3, "r")
            ]
        );
    }

    #[test]
    fn rejects_malformed_directives() {
        assert!(parse_expectations("// expected-error@+x {{a}}").is_err());
        assert!(parse_expectations("// expected-error boom").is_err());
        assert!(parse_expectations("// expected-error {{boom").is_err());
    }

    #[test]
    fn reports_both_directions() {
        let expectations =
            parse_expectations("x // expected-error {{bad thing}}\ny // expected-error {{never}}").unwrap();
        let failures = check(
            "t.mlir",
            &expectations,
            &[at(1, Severity::Error, "a bad thing happened"), at(2, Severity::Warning, "w")],
        );
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(failures[0].contains("unexpected warning: w"));
        assert!(failures[1].contains("expected error \"never\" was not produced"));
    }
}
