//! A depth limit on MLIR text, checked before MLIR's parser sees it.
//!
//! MLIR's parser (and the printer, the verifier and Strata's own walkers after it) recurse
//! once per nesting level of regions, attributes and types: text nested a few thousand levels
//! deep overflows the stack and kills the process. [`too_deep`] finds the first place the
//! text nests deeper than a limit, scanning brackets of every kind (`(`, `[`, `{`, `<`)
//! outside string literals and comments, in one pass and constant memory; the parser is only
//! called on text within the limit.

/// The deepest bracket nesting accepted. Real IR stays far below it (a model's deepest
/// nesting, loops in loops with attributes and types inside, is a few dozen levels), and at
/// this depth the parser uses well under a megabyte of stack.
pub const MAX_NESTING: usize = 256;

/// The 1-based (line, column) of the first bracket that opens level `limit + 1`, if any.
/// Closing brackets count whatever their kind (the parser reports mismatches); `->`, `<=`
/// and `>=` are operators, not brackets.
pub fn too_deep(text: &str, limit: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut depth, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'"' => {
                // A string literal: skip to its closing quote (escapes included).
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    } else if bytes[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'<' if bytes.get(i + 1) == Some(&b'=') => i += 1,
            b'>' if bytes.get(i + 1) == Some(&b'=') || (i > 0 && bytes[i - 1] == b'-') => {}
            b'(' | b'[' | b'{' | b'<' => {
                depth += 1;
                if depth > limit {
                    let column = text[line_start..i].chars().count() + 1;
                    return Some((line, column));
                }
            }
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::too_deep;

    #[test]
    fn counts_every_bracket_kind_outside_strings_and_comments() {
        let ir = "func.func @f(%a: vector<4xf32>) -> tensor<2xi32> attributes {x = [[1]]} {\n  return\n}\n";
        // Deepest: `{x = [[` is three levels.
        assert_eq!(too_deep(ir, 3), None);
        assert_eq!(too_deep(ir, 2), Some((1, 67)));
        // Strings, comments and operators do not nest.
        let quiet = "// ((((((\n%0 = \"t.op\"() {s = \"[[[[\\\"((\"} : () -> ()\n#set = affine_set<(d0) : (d0 - 1 >= 0, 5 <= d0)>\n";
        assert_eq!(too_deep(quiet, 2), None);
        assert_eq!(too_deep(quiet, 1), Some((3, 19)));
    }

    #[test]
    fn finds_the_first_bracket_past_the_limit_in_deep_text() {
        let deep = format!(
            "module {{\n  %0 = \"t.op\"() {{a = {}{}}} : () -> ()\n}}\n",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        // `module {` is level 1, `{a = ` level 2: the 255th `[` (column 22 + 254) opens 257.
        assert_eq!(too_deep(&deep, 256), Some((2, 22 + 254)));
    }
}
