//! Where a spec's entries are written: byte offsets of its text as the [`Place`]s their
//! errors name (the same line and column a [`SpecError`](super::SpecError) gives).

use crate::text::floor_char_boundary;
use crate::verify::Place;

/// How many bytes of the text one count of characters covers (see [`Places::chars_before`]).
const BLOCK: usize = 256;

/// The file a spec is shown by, where each of its lines starts, and how many characters come
/// before each block of its bytes: a place is then found in time bounded by a block, however
/// long its line (a spec of 100,000 entries in one inline table is one line).
pub(crate) struct Places<'t> {
    file: &'static str,
    text: &'t str,
    /// The byte at which each line starts: 0, then one past each `\n`.
    starts: Vec<usize>,
    /// The characters before byte `k * BLOCK`, for each `k` up to the text's length.
    chars: Vec<usize>,
}

impl<'t> Places<'t> {
    /// The places of `text`, shown as `file` (leaked once per distinct name).
    pub(crate) fn new(file: &str, text: &'t str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut chars = Vec::with_capacity(text.len() / BLOCK + 1);
        let mut before = 0;
        chars.push(0);
        for block in text.as_bytes().chunks(BLOCK) {
            before += char_starts(block);
            chars.push(before);
        }
        Places {
            file: crate::verify::file_name(file),
            text,
            starts,
            chars,
        }
    }

    /// The 1-based line and column (in characters) of byte `at`.
    pub(crate) fn of(&self, at: usize) -> Place {
        let at = floor_char_boundary(self.text, at);
        let line = self.starts.partition_point(|&s| s <= at);
        let start = self.starts.get(line.wrapping_sub(1)).copied().unwrap_or(0);
        let column = self.chars_before(at) - self.chars_before(start) + 1;
        let number = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Place::at(self.file, number(line), number(column))
    }

    /// The characters before byte `at` (a character boundary): the count before its block,
    /// and those of the block up to it.
    fn chars_before(&self, at: usize) -> usize {
        let k = at / BLOCK;
        let counted = self.chars.get(k).copied().unwrap_or(0);
        counted
            + self
                .text
                .as_bytes()
                .get(k * BLOCK..at)
                .map_or(0, char_starts)
    }
}

/// The characters that start in `bytes` (UTF-8): the bytes that are not continuation bytes.
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SpecError;

    #[test]
    fn a_place_is_where_a_spec_error_would_point() {
        let text = "name = \"M\"\n[tensors]\n\"é\" = \"(a, b)\"\n\n\"w\" = \"(d,)\"";
        let places = Places::new("m.toml", text);
        for at in [0, 5, 11, 21, 22, 27, 35, 36, text.len()] {
            let e = SpecError::at("m.toml", text, at, "x");
            let p = places.of(at);
            assert_eq!(
                (p.line as usize, p.column as usize),
                (e.line(), e.column()),
                "{at}"
            );
            assert_eq!(p.file, "m.toml");
        }
        assert_eq!(places.of(usize::MAX).line, 5);
        // Past a block, and on a line of many blocks with characters of several bytes.
        let long = format!("x = 1\n{}", "é\"a\" = \"(d,)\", ".repeat(200));
        let places = Places::new("l.toml", &long);
        for at in [6, 7, 8, 300, 301, 1000, long.len()] {
            let e = SpecError::at("l.toml", &long, at, "x");
            let p = places.of(at);
            assert_eq!(
                (p.line as usize, p.column as usize),
                (e.line(), e.column()),
                "{at}"
            );
        }
    }
}
