//! [`ParseError`]: where a shape expression stopped making sense, and why.

use std::fmt;

use crate::text::floor_char_boundary;

/// A shape expression or pattern that does not parse.
///
/// It knows the byte offset of the problem, what the parser found there and what it expected,
/// and keeps a copy of the input so that its [`Display`](fmt::Display) can point at the spot.
/// The display is bounded whatever the input's size: it quotes at most 60 characters of the
/// input on each side of the caret, and of the token found, marking each cut with `…`.
///
/// ```
/// let err = shapes::expr::parse("(a b)").unwrap_err();
/// assert_eq!(err.offset(), 3);
/// assert_eq!(err.found(), "'b'");
/// assert_eq!(err.expected(), "',' or ')'");
/// assert_eq!(err.message(), "expected ',' or ')', found 'b' at byte 3");
/// assert_eq!(err.to_string(), "expected ',' or ')', found 'b' at byte 3\n  (a b)\n     ^");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ParseError {
    input: String,
    offset: usize,
    found: String,
    expected: String,
}

impl ParseError {
    pub(crate) fn new(input: &str, offset: usize, found: String, expected: String) -> Self {
        ParseError {
            input: input.to_owned(),
            offset,
            found: shorten(found),
            expected: shorten(expected),
        }
    }

    /// The byte offset in the input where parsing failed (the input's length at its end).
    ///
    /// ```
    /// assert_eq!(shapes::expr::parse("(a,,b)").unwrap_err().offset(), 3);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What the parser found at [`offset`](Self::offset): a quoted token such as `'b'`, or
    /// `end of input`.
    ///
    /// ```
    /// assert_eq!(shapes::expr::parse("(a, b").unwrap_err().found(), "end of input");
    /// ```
    pub fn found(&self) -> &str {
        &self.found
    }

    /// What the parser expected there, in words: `',' or ')'`, `a size`, `end of input`, ….
    ///
    /// ```
    /// assert_eq!(shapes::expr::parse("(a, b) x").unwrap_err().expected(), "end of input");
    /// ```
    pub fn expected(&self) -> &str {
        &self.expected
    }

    /// The input that failed to parse.
    ///
    /// ```
    /// assert_eq!(shapes::expr::parse("(a @ b)").unwrap_err().input(), "(a @ b)");
    /// ```
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The one-line message, without the input and the caret:
    /// `expected ',' or ')', found 'b' at byte 3`.
    ///
    /// ```
    /// let err = shapes::expr::parse("(a / 0)").unwrap_err();
    /// assert_eq!(err.message(), "expected a non-zero divisor, found '0' at byte 5");
    /// ```
    pub fn message(&self) -> String {
        format!(
            "expected {}, found {} at byte {}",
            self.expected, self.found, self.offset
        )
    }
}

impl fmt::Display for ParseError {
    /// The message, then the line of the input holding the error with a caret under the spot.
    /// The caret's column counts characters, not bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        f.write_str(&caret(&self.input, self.offset))
    }
}

/// At most this many characters of the input are quoted on each side of a caret (a longer
/// line is cut, and the cut marked with `…`), and of a token in a message: an error about a
/// 30 MB string prints a line, not the string.
pub(crate) const MAX_QUOTED_CHARS: usize = 60;

/// `s`, cut to [`MAX_QUOTED_CHARS`] characters (and `…`) if longer.
fn shorten(s: String) -> String {
    match s.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((end, _)) => format!("{}…", s.get(..end).unwrap_or("")),
        None => s,
    }
}

/// The line of `input` that holds byte `offset`, on a line of its own after a newline, with a
/// caret under the spot (the column counts characters, not bytes): how every message about a
/// spot in a shape string shows it. Inputs are usually one line; a multi-line input shows only
/// the offending line, and of a long line at most [`MAX_QUOTED_CHARS`] characters on each
/// side of the spot.
///
/// ```
/// assert_eq!(shapes::__testing::caret("heads >= 12", 7), "\n  heads >= 12\n         ^");
/// let long = format!("({})", "a, ".repeat(1000));
/// assert!(shapes::__testing::caret(&long, 1500).len() < 300);
/// ```
#[doc(hidden)]
pub fn caret(input: &str, offset: usize) -> String {
    let offset = floor_char_boundary(input, offset);
    let before = input.get(..offset).unwrap_or("");
    let after = input.get(offset..).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_end = after.find('\n').map_or(input.len(), |i| offset + i);
    let head = before.get(line_start..).unwrap_or("");
    let tail = input.get(offset..line_end).unwrap_or("");
    let tail = tail.strip_suffix('\r').unwrap_or(tail);
    // The last `MAX_QUOTED_CHARS` characters before the spot, the first after it.
    let (cut_head, head) = match head.char_indices().rev().nth(MAX_QUOTED_CHARS - 1) {
        Some((i, _)) if i > 0 => ("…", head.get(i..).unwrap_or("")),
        _ => ("", head),
    };
    let (tail, cut_tail) = match tail.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((i, _)) => (tail.get(..i).unwrap_or(""), "…"),
        None => (tail, ""),
    };
    let column = cut_head.chars().count() + head.chars().count();
    format!(
        "\n  {cut_head}{head}{tail}{cut_tail}\n  {}^",
        " ".repeat(column)
    )
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for ParseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_caret_under_the_offset() {
        let e = ParseError::new("(a b)", 3, "'b'".into(), "',' or ')'".into());
        assert_eq!(
            e.to_string(),
            "expected ',' or ')', found 'b' at byte 3\n  (a b)\n     ^"
        );
    }

    #[test]
    fn caret_counts_chars_not_bytes() {
        // 'α' is two bytes; '@' is at byte 4 but column 3.
        let e = ParseError::new("(α @)", 4, "'@'".into(), "x".into());
        assert_eq!(
            e.to_string(),
            "expected x, found '@' at byte 4\n  (α @)\n     ^"
        );
    }

    #[test]
    fn caret_at_end_of_input() {
        let e = ParseError::new("(a", 2, "end of input".into(), "')'".into());
        assert_eq!(
            e.to_string(),
            "expected ')', found end of input at byte 2\n  (a\n    ^"
        );
    }

    #[test]
    fn multi_line_input_shows_the_offending_line() {
        let e = ParseError::new("(a,\n b c)", 7, "'c'".into(), "',' or ')'".into());
        assert_eq!(
            e.to_string(),
            "expected ',' or ')', found 'c' at byte 7\n   b c)\n     ^"
        );
    }

    #[test]
    fn offsets_off_a_boundary_do_not_panic() {
        let e = ParseError::new("α", 1, "x".into(), "y".into());
        assert!(e.to_string().ends_with("\n  α\n  ^"));
        let e = ParseError::new("a", 99, "x".into(), "y".into());
        assert!(e.to_string().ends_with("\n  a\n   ^"));
    }
}
