//! Textual pass pipelines in MLIR's syntax, parsed and printed by Strata.
//!
//! MLIR's C API cannot register a Rust pass by name, so Strata owns the pipeline syntax:
//! `builtin.module(func.func(cse,sg-verify{strict=true}),canonicalize)`. A [`Pipeline`] is an
//! anchor op name and a list of [`Element`]s (passes with options, or nested pipelines).
//! `Display` prints the canonical form, and `parse(display(p)) == p` (round trip).

use crate::error::PipelineError;
use std::fmt;

/// A pipeline anchored on one operation name (`builtin.module`, `func.func`, `any`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    pub anchor: String,
    pub elements: Vec<Element>,
}

/// One entry of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    Pass(PassSpec),
    Nested(Pipeline),
}

/// A pass by name with its options, in the order written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassSpec {
    pub name: String,
    pub options: Vec<(String, String)>,
    /// Byte column of the name in the text it was parsed from (for error messages).
    pub column: usize,
}

impl Pipeline {
    /// Parses MLIR's textual pipeline syntax. The text must start with an anchor:
    /// `builtin.module(...)`.
    pub fn parse(text: &str) -> Result<Pipeline, PipelineError> {
        let mut parser = Parser { text, pos: 0 };
        parser.skip_ws();
        let column = parser.pos;
        let name = parser.name()?;
        parser.skip_ws();
        if !parser.eat('(') {
            return Err(parser.error_at(
                column,
                format!("expected an anchor such as 'builtin.module({name})'; a pipeline must name the operation it runs on"),
            ));
        }
        let pipeline = parser.nested(name, 1)?;
        parser.skip_ws();
        if parser.pos != text.len() {
            return Err(parser.error("unexpected text after the end of the pipeline"));
        }
        Ok(pipeline)
    }

    /// Every pass of this pipeline with the anchors it is nested under (outermost first,
    /// this pipeline's own anchor included), in execution order.
    pub fn flatten(&self) -> Vec<(Vec<&str>, &PassSpec)> {
        let mut out = Vec::new();
        self.flatten_into(&mut vec![], &mut out);
        out
    }

    fn flatten_into<'a>(&'a self, path: &mut Vec<&'a str>, out: &mut Vec<(Vec<&'a str>, &'a PassSpec)>) {
        path.push(&self.anchor);
        for element in &self.elements {
            match element {
                Element::Pass(pass) => out.push((path.clone(), pass)),
                Element::Nested(nested) => nested.flatten_into(path, out),
            }
        }
        path.pop();
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.anchor)?;
        for (index, element) in self.elements.iter().enumerate() {
            if index > 0 {
                f.write_str(",")?;
            }
            match element {
                Element::Pass(pass) => write!(f, "{pass}")?,
                Element::Nested(nested) => write!(f, "{nested}")?,
            }
        }
        f.write_str(")")
    }
}

impl fmt::Display for PassSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.options.is_empty() {
            f.write_str("{")?;
            for (index, (key, value)) in self.options.iter().enumerate() {
                if index > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{key}={value}")?;
            }
            f.write_str("}")?;
        }
        Ok(())
    }
}

/// The deepest anchor nesting a pipeline may have (`builtin.module(func.func(...))` is 2).
pub const MAX_PIPELINE_NESTING: usize = 32;

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> PipelineError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, column: usize, message: impl Into<String>) -> PipelineError {
        PipelineError { pipeline: self.text.to_owned(), column, message: message.into() }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn name(&mut self) -> Result<String, PipelineError> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '$')) {
            self.pos += 1;
        }
        if start == self.pos {
            let found = self.peek().map_or("end of input".to_owned(), |c| format!("'{c}'"));
            return Err(self.error(format!("expected a pass or operation name, found {found}")));
        }
        Ok(self.text[start..self.pos].to_owned())
    }

    /// Parses the elements of `anchor(` up to and including the closing `)`, at nesting
    /// `depth` (the outermost anchor is 1). Deeper than [`MAX_PIPELINE_NESTING`] is an error,
    /// before the recursion could overflow the stack.
    fn nested(&mut self, anchor: String, depth: usize) -> Result<Pipeline, PipelineError> {
        if depth > MAX_PIPELINE_NESTING {
            return Err(self.error(format!(
                "the pipeline nests deeper than {MAX_PIPELINE_NESTING} anchors (real pipelines nest a few)"
            )));
        }
        let mut elements = Vec::new();
        self.skip_ws();
        if self.eat(')') {
            return Ok(Pipeline { anchor, elements });
        }
        loop {
            self.skip_ws();
            let column = self.pos;
            let name = self.name()?;
            self.skip_ws();
            if self.eat('(') {
                elements.push(Element::Nested(self.nested(name, depth + 1)?));
            } else {
                let options = if self.eat('{') { self.options()? } else { Vec::new() };
                elements.push(Element::Pass(PassSpec { name, options, column }));
            }
            self.skip_ws();
            if self.eat(',') {
                continue;
            }
            if self.eat(')') {
                return Ok(Pipeline { anchor, elements });
            }
            return Err(match self.peek() {
                None => self.error(format!("missing ')' to close '{anchor}('")),
                Some(c) => self.error(format!("expected ',' or ')' but found '{c}'")),
            });
        }
    }

    /// Parses `key=value key2 key3={nested value}` up to and including the closing `}`.
    fn options(&mut self) -> Result<Vec<(String, String)>, PipelineError> {
        let mut options = Vec::new();
        loop {
            self.skip_ws();
            if self.eat('}') {
                return Ok(options);
            }
            if self.peek().is_none() {
                return Err(self.error("missing '}' to close the pass options"));
            }
            let key = self.name()?;
            self.skip_ws();
            let value = if self.eat('=') {
                self.skip_ws();
                self.option_value()?
            } else {
                // A bare flag means `true`, as in MLIR.
                "true".to_owned()
            };
            options.push((key, value));
        }
    }

    /// A value runs to the next whitespace or `}` at depth zero; `{...}`, `[...]`, `(...)`
    /// and quoted strings nest.
    fn option_value(&mut self) -> Result<String, PipelineError> {
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '"' | '\'' => {
                    let quote_start = self.pos;
                    self.pos += 1;
                    while self.peek().is_some_and(|d| d != c) {
                        self.pos += self.peek().map_or(1, char::len_utf8);
                    }
                    if !self.eat(c) {
                        return Err(self.error_at(quote_start, "unterminated string in pass option"));
                    }
                    continue;
                }
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' if depth > 0 => depth -= 1,
                '}' => break,
                c if c.is_whitespace() && depth == 0 => break,
                _ => {}
            }
            self.pos += c.len_utf8();
        }
        if depth > 0 {
            return Err(self.error_at(start, "unbalanced brackets in pass option value"));
        }
        if start == self.pos {
            return Err(self.error("expected an option value after '='"));
        }
        Ok(self.text[start..self.pos].to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for text in [
            "builtin.module(cse)",
            "builtin.module(func.func(cse,sg-verify{strict=true}),canonicalize)",
            "builtin.module(one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map},canonicalize)",
            "builtin.module()",
            "builtin.module(func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=128,4}))",
        ] {
            let pipeline = Pipeline::parse(text).unwrap();
            assert_eq!(pipeline.to_string(), text);
            assert_eq!(Pipeline::parse(&pipeline.to_string()).unwrap(), pipeline);
        }
    }

    #[test]
    fn normalises_spacing_and_flags() {
        let pipeline = Pipeline::parse(" builtin.module( func.func( cse ) , x{ a  b=1 } ) ").unwrap();
        assert_eq!(pipeline.to_string(), "builtin.module(func.func(cse),x{a=true b=1})");
    }

    #[test]
    fn flattens_with_paths() {
        let pipeline = Pipeline::parse("builtin.module(a,func.func(b,c),d)").unwrap();
        let flat: Vec<_> = pipeline.flatten().into_iter().map(|(p, s)| (p.join("/"), s.name.clone())).collect();
        assert_eq!(
            flat,
            [
                ("builtin.module".into(), "a".into()),
                ("builtin.module/func.func".into(), "b".into()),
                ("builtin.module/func.func".into(), "c".into()),
                ("builtin.module".into(), "d".into())
            ]
        );
    }

    #[test]
    fn errors_point_at_the_problem() {
        let cases = [
            ("cse", 0, "expected an anchor"),
            ("builtin.module(cse", 18, "missing ')'"),
            ("builtin.module(cse;x)", 18, "expected ',' or ')'"),
            ("builtin.module(cse{a=1)", 23, "missing '}'"),
            ("builtin.module(,)", 15, "expected a pass or operation name"),
            ("builtin.module(cse))", 19, "unexpected text"),
            ("builtin.module(x{a=\"b})", 19, "unterminated string"),
            // 33 anchors: the 33rd is refused where its elements start.
            (&format!("{}cse{}", "a(".repeat(33), ")".repeat(33)), 66, "nests deeper than 32 anchors"),
        ];
        for (text, column, message) in cases {
            let error = Pipeline::parse(text).unwrap_err();
            assert_eq!(error.column, column, "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
    }
}
