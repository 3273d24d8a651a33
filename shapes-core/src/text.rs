//! Text built from names a file chose, bounded and inert: [`Padded`] pads a table's cell to
//! its column and [`column_width`] sizes a column, for cells of any length; [`quoted`] quotes a
//! name in an error message, cut to [`MAX_QUOTED_CHARS`]; [`escape`] writes the control
//! characters of a name as escapes, so that printing it cannot drive a terminal.
//!
//! The formatter's own padding (`{:<w$}`, `{:>w$}`) takes its width as a 16-bit argument and
//! panics ("Formatting argument out of range") when given 65,536 or more, which a tensor name
//! read from a hostile checkpoint can be. [`Padded`] has no such limit, and [`column_width`]
//! caps a column at [`MAX_COLUMN_WIDTH`] so that one long cell overflows its own row instead
//! of padding every other row to its length.
//!
//! ```
//! use shapes::text::{Padded, column_width};
//!
//! let rows = [("d_model", "768"), ("heads", "12")];
//! let name_w = column_width(rows.iter().map(|r| r.0));
//! let value_w = column_width(rows.iter().map(|r| r.1));
//! let table: Vec<String> = rows
//!     .iter()
//!     .map(|(n, v)| format!("{}  {}", Padded::left(n, name_w), Padded::right(v, value_w)))
//!     .collect();
//! assert_eq!(table, ["d_model  768", "heads     12"]);
//! ```

use core::fmt;
use std::borrow::Cow;

/// The widest a [`column_width`] gets, in chars: a cell longer than this overflows its row
/// rather than widening the column, so a 100,000-char name costs its own line and not
/// 100,000 spaces on every other line. Wide enough for any real tensor name or shape.
pub const MAX_COLUMN_WIDTH: usize = 120;

/// The width of a column holding `cells`: the most chars in one of them, at most
/// [`MAX_COLUMN_WIDTH`].
///
/// ```
/// use shapes::text::{MAX_COLUMN_WIDTH, column_width};
///
/// assert_eq!(column_width(["a", "abc", "ab"]), 3);
/// assert_eq!(column_width(std::iter::empty::<&str>()), 0);
/// let long = "x".repeat(70_000);
/// assert_eq!(column_width([long.as_str(), "y"]), MAX_COLUMN_WIDTH);
/// ```
pub fn column_width<'a>(cells: impl IntoIterator<Item = &'a str>) -> usize {
    cells
        .into_iter()
        .map(|c| c.chars().take(MAX_COLUMN_WIDTH).count())
        .max()
        .unwrap_or(0)
}

/// Which side of a [`Padded`] cell its text keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text first, spaces after (`{:<w$}`).
    Left,
    /// Spaces first, text after (`{:>w$}`).
    Right,
}

/// `text` padded with spaces to `width` chars when it is shorter, written as is otherwise:
/// what `{:<w$}` / `{:>w$}` write, for any width (see the [module docs](self)).
///
/// ```
/// use shapes::text::{Align, Padded};
///
/// assert_eq!(Padded::left("ab", 4).to_string(), "ab  ");
/// assert_eq!(Padded::right("ab", 4).to_string(), "  ab");
/// assert_eq!(Padded::new("abcdef", 4, Align::Left).to_string(), "abcdef");
/// // Widths past the formatter's 16-bit limit are fine.
/// assert_eq!(Padded::left("", 70_000).to_string().len(), 70_000);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Padded<'a> {
    text: &'a str,
    width: usize,
    align: Align,
}

impl<'a> Padded<'a> {
    /// `text` padded to `width` on the side `align` says.
    ///
    /// ```
    /// use shapes::text::{Align, Padded};
    /// assert_eq!(Padded::new("7", 3, Align::Right).to_string(), "  7");
    /// ```
    pub fn new(text: &'a str, width: usize, align: Align) -> Self {
        Padded { text, width, align }
    }

    /// `text` then spaces, `width` chars in all.
    ///
    /// ```
    /// assert_eq!(shapes::text::Padded::left("w", 3).to_string(), "w  ");
    /// ```
    pub fn left(text: &'a str, width: usize) -> Self {
        Padded::new(text, width, Align::Left)
    }

    /// Spaces then `text`, `width` chars in all.
    ///
    /// ```
    /// assert_eq!(shapes::text::Padded::right("768", 5).to_string(), "  768");
    /// ```
    pub fn right(text: &'a str, width: usize) -> Self {
        Padded::new(text, width, Align::Right)
    }
}

/// Writes `n` spaces, a chunk at a time.
fn spaces(f: &mut fmt::Formatter<'_>, mut n: usize) -> fmt::Result {
    const CHUNK: &str = "                                                                ";
    while n > 0 {
        let k = n.min(CHUNK.len());
        f.write_str(CHUNK.get(..k).unwrap_or(CHUNK))?;
        n -= k;
    }
    Ok(())
}

impl fmt::Display for Padded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Counting stops at the width: a long text costs no more than the column.
        let len = self.text.chars().take(self.width).count();
        let pad = self.width - len;
        if self.align == Align::Right {
            spaces(f, pad)?;
        }
        f.write_str(self.text)?;
        if self.align == Align::Left {
            spaces(f, pad)?;
        }
        Ok(())
    }
}

/// The most chars of a name that [`quoted`] shows: longer names are cut, so that an error
/// about a 50 MB tensor name read from a hostile file is one line, not 50 MB. Longer than
/// any real tensor or file name.
pub const MAX_QUOTED_CHARS: usize = 200;

/// `name` quoted as `{:?}` quotes it, cut after [`MAX_QUOTED_CHARS`] chars with `…` and the
/// name's length in bytes: how an error message shows a name read from a file.
///
/// ```
/// use shapes::text::{MAX_QUOTED_CHARS, quoted};
///
/// assert_eq!(quoted("model.w").to_string(), "\"model.w\"");
/// let long = "w".repeat(1 << 20);
/// let shown = quoted(&long).to_string();
/// assert!(shown.ends_with("\"… (1048576 bytes)"));
/// assert_eq!(shown.len(), MAX_QUOTED_CHARS + "\"\"… (1048576 bytes)".len());
/// ```
pub fn quoted(name: &str) -> Quoted<'_> {
    Quoted(name)
}

/// A name as an error message quotes it: see [`quoted`].
///
/// ```
/// let q: shapes::text::Quoted<'_> = shapes::text::quoted("a\"b");
/// assert_eq!(q.to_string(), r#""a\"b""#);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(MAX_QUOTED_CHARS) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => {
                let shown = self.0.get(..cut).unwrap_or_default();
                write!(f, "{shown:?}… ({} bytes)", self.0.len())
            }
        }
    }
}

/// `text` with every control character written as a Rust escape (`\u{1b}`, `\n`, `\t`), so
/// that a name read from a file prints as one line of inert text; text without one is
/// returned as it is, without copying.
///
/// ```
/// use shapes::text::escape;
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

/// The longest name the `const` distance compares; a longer one is never a typo of another.
const MAX_LEN: usize = 48;

/// The optimal string alignment distance between `a` and `b` by bytes, in `const` context;
/// `usize::MAX` when either is longer than [`MAX_LEN`] bytes.
pub(crate) const fn const_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > MAX_LEN || b.len() > MAX_LEN {
        return usize::MAX;
    }
    let mut before = [0usize; MAX_LEN + 1];
    let mut prev = [0usize; MAX_LEN + 1];
    let mut j = 0;
    while j <= b.len() {
        prev[j] = j; // ok: `j <= b.len() <= MAX_LEN`.
        j += 1;
    }
    let mut i = 0;
    while i < a.len() {
        let mut cur = [0usize; MAX_LEN + 1];
        cur[0] = i + 1;
        let mut j = 0;
        while j < b.len() {
            // ok: `i < a.len()`, `j < b.len()`, both at most MAX_LEN, the rows MAX_LEN + 1.
            let sub = prev[j] + if a[i] == b[j] { 0 } else { 1 };
            let mut best = sub;
            if prev[j + 1] + 1 < best {
                best = prev[j + 1] + 1;
            }
            if cur[j] + 1 < best {
                best = cur[j] + 1;
            }
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] && before[j - 1] + 1 < best {
                best = before[j - 1] + 1;
            }
            cur[j + 1] = best;
            j += 1;
        }
        before = prev;
        prev = cur;
        i += 1;
    }
    prev[b.len()] // ok: `b.len() <= MAX_LEN`.
}

/// The last character boundary of `text` at or before byte `at` (at most its length): where
/// an offset from a parser or a span may cut `text` without splitting a character.
pub(crate) fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_like_the_formatter_below_its_limit() {
        for text in ["", "a", "héllo", "αβγδεζ"] {
            for width in [0, 1, 3, 6, 64, 65, 200] {
                assert_eq!(
                    Padded::left(text, width).to_string(),
                    format!("{text:<width$}")
                );
                assert_eq!(
                    Padded::right(text, width).to_string(),
                    format!("{text:>width$}")
                );
            }
        }
    }

    #[test]
    fn pads_past_the_formatters_limit() {
        let width = usize::from(u16::MAX) + 10;
        let s = Padded::right("x", width).to_string();
        assert_eq!((s.len(), s.ends_with(" x")), (width, true));
    }

    #[test]
    fn c1_controls_and_del_are_escaped_too() {
        assert_eq!(escape("a\u{9b}31mb\u{7f}"), "a\\u{9b}31mb\\u{7f}");
        assert!(matches!(escape("plain ünïcode"), Cow::Borrowed(_)));
    }
}
