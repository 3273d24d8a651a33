//! A bad spec: the file, line and column, the message, and the line with a caret under the
//! spot, as the compile-time errors of the derive show them.

use std::fmt;
use std::ops::Range;

use crate::text::floor_char_boundary;

/// How many characters of the line are quoted on each side of the caret: a spec written on
/// one very long line still gets a short excerpt (the pattern parser's carets quote as many).
const EXCERPT_SIDE: usize = 60;

/// An error in a spec file: where it is (file, line, column), what is wrong, and the line
/// with a caret under the spot.
///
/// ```
/// let e = shapes::Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(a b)\"\n").unwrap_err();
/// assert_eq!((e.line(), e.column()), (2, 11));
/// assert!(e.to_string().starts_with("s.toml:2:11: in the pattern of `w`: "), "{e}");
/// assert!(e.to_string().ends_with("\n   2 | \"w\" = \"(a b)\"\n     |           ^"), "{e}");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The file's name as given (or `<built-in llama, GGUF names>`).
    file: String,
    /// 1-based line and column (in characters); 0 and 0 when the file could not be read.
    line: usize,
    column: usize,
    message: String,
    /// The line's text and the caret under the spot (empty when the file could not be read).
    excerpt: String,
}

impl SpecError {
    /// An error at byte `at` of `text`.
    pub(crate) fn at(file: &str, text: &str, at: usize, message: impl Into<String>) -> Self {
        let at = floor_char_boundary(text, at);
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = text[..start].matches('\n').count() + 1;
        let before: Vec<char> = text[start..at].chars().collect();
        let column = before.len() + 1;
        let after = text[at..end].trim_end_matches('\r');
        let cut_before = before.len().saturating_sub(EXCERPT_SIDE);
        let shown_before: String = before.iter().skip(cut_before).collect();
        let mut shown_after: String = after.chars().take(EXCERPT_SIDE).collect();
        if after.chars().nth(EXCERPT_SIDE).is_some() {
            shown_after.push('…');
        }
        let (lead, pad) = if cut_before > 0 { ("…", 1) } else { ("", 0) };
        let excerpt = format!(
            "{line:>4} | {lead}{shown_before}{shown_after}\n     | {}^",
            " ".repeat(pad + shown_before.chars().count())
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
    pub(crate) fn span(
        file: &str,
        text: &str,
        span: &Range<usize>,
        message: impl Into<String>,
    ) -> Self {
        SpecError::at(file, text, span.start, message)
    }

    /// The file could not be read.
    pub(crate) fn io(file: &str, e: &std::io::Error) -> Self {
        SpecError {
            file: file.to_owned(),
            line: 0,
            column: 0,
            message: e.to_string(),
            excerpt: String::new(),
        }
    }

    /// The file's name as given.
    ///
    /// ```
    /// let e = shapes::Spec::from_toml("s.toml", "x = 1").unwrap_err();
    /// assert_eq!(e.file(), "s.toml");
    /// ```
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The 1-based line (0 when the file could not be read).
    ///
    /// ```
    /// let e = shapes::Spec::from_toml("s.toml", "\n\nx = 1").unwrap_err();
    /// assert_eq!(e.line(), 3);
    /// ```
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column, in characters (0 when the file could not be read).
    ///
    /// ```
    /// let e = shapes::Spec::from_toml("s.toml", "x = 1").unwrap_err();
    /// assert_eq!(e.column(), 1);
    /// ```
    pub fn column(&self) -> usize {
        self.column
    }

    /// What is wrong, without the place.
    ///
    /// ```
    /// let e = shapes::Spec::from_toml("s.toml", "x = 1").unwrap_err();
    /// assert!(e.message().starts_with("unknown key `x`"));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: {}", self.file, self.message);
        }
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

impl std::error::Error for SpecError {}

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

    #[test]
    fn a_long_line_is_quoted_around_the_caret_only() {
        let text = format!("{}X{}", "a".repeat(100_000), "b".repeat(100_000));
        let e = SpecError::at("s.toml", &text, 100_000, "here");
        let shown = e.to_string();
        assert!(shown.len() < 400, "{} bytes", shown.len());
        assert!(shown.starts_with("s.toml:1:100001: here\n"), "{shown}");
        let lines: Vec<&str> = shown.lines().collect();
        let caret = lines[2].chars().position(|c| c == '^').unwrap();
        assert_eq!(lines[1].chars().nth(caret), Some('X'), "{shown}");
        assert!(lines[1].ends_with('…'));
    }
}
