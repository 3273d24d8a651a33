//! Where a spec's entries are written: byte offsets of its text as the [`Place`]s their
//! errors name (the same line and column a [`SpecError`](super::SpecError) gives).

use crate::verify::Place;

/// The file a spec is shown by and where each of its lines starts.
pub(crate) struct Places<'t> {
    file: &'static str,
    text: &'t str,
    /// The byte at which each line starts: 0, then one past each `\n`.
    starts: Vec<usize>,
}

impl<'t> Places<'t> {
    /// The places of `text`, shown as `file` (leaked once per distinct name).
    pub(crate) fn new(file: &str, text: &'t str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Places {
            file: crate::verify::file_name(file),
            text,
            starts,
        }
    }

    /// The 1-based line and column (in characters) of byte `at`.
    pub(crate) fn of(&self, at: usize) -> Place {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= at);
        let start = self.starts.get(line.wrapping_sub(1)).copied().unwrap_or(0);
        let column = self.text.get(start..at).map_or(0, |s| s.chars().count()) + 1;
        let number = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Place::at(self.file, number(line), number(column))
    }
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
    }
}
