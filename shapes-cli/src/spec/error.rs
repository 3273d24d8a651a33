//! A bad spec: the file, line and column, the message, and the line with a caret under the
//! spot, as the compile-time errors of the derive show them.

use std::fmt;
use std::ops::Range;

/// An error in a spec file.
pub struct SpecError {
    /// The file's name as given (or `<built-in llama>`).
    pub file: String,
    /// 1-based line and column (in characters).
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The line's text and the caret under the spot.
    pub excerpt: String,
}

impl SpecError {
    /// An error at byte `at` of `text`.
    pub fn at(file: &str, text: &str, at: usize, message: impl Into<String>) -> Self {
        let at = floor_char_boundary(text, at.min(text.len()));
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = text[..start].matches('\n').count() + 1;
        let column = text[start..at].chars().count() + 1;
        let src = text[start..end].trim_end_matches('\r');
        let excerpt = format!(
            "{line:>4} | {src}\n     | {}^",
            " ".repeat(text[start..at].chars().count())
        );
        SpecError {
            file: file.to_owned(),
            line,
            column,
            message: message.into(),
            excerpt,
        }
    }

    /// An error over `span` (the caret goes under its start).
    pub fn span(file: &str, text: &str, span: &Range<usize>, message: impl Into<String>) -> Self {
        SpecError::at(file, text, span.start, message)
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}\n{}",
            self.file, self.line, self.column, self.message, self.excerpt
        )
    }
}

impl fmt::Debug for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_line_and_column() {
        let text = "a = 1\nb = \"(x y)\"\n";
        let e = SpecError::at("s.toml", text, 13, "expected ','");
        assert_eq!(
            e.to_string(),
            "s.toml:2:8: expected ','\n   2 | b = \"(x y)\"\n     |        ^"
        );
    }
}
