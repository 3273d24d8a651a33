//! Text from a file, made safe to print: control characters (escape sequences that would set
//! a terminal's title, clear its screen or recolour it) written as escapes.

use std::borrow::Cow;

/// `text` with every control character written as a Rust escape (`\u{1b}`, `\n`, `\t`), so
/// that a name read from a file prints as one line of inert text; text without one is
/// returned as it is, without copying.
///
/// ```
/// use shapes::report::escape;
/// assert_eq!(escape("model.layers.0.weight"), "model.layers.0.weight");
/// assert_eq!(escape("evil\u{1b}]0;pwned\u{7}"), "evil\\u{1b}]0;pwned\\u{7}");
/// assert_eq!(escape("two\nlines"), "two\\nlines");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c1_controls_and_del_are_escaped_too() {
        assert_eq!(escape("a\u{9b}31mb\u{7f}"), "a\\u{9b}31mb\\u{7f}");
        assert!(matches!(escape("plain ünïcode"), Cow::Borrowed(_)));
    }
}
