//! How many errors, or many names, are written: the mismatches that share one cause under it,
//! texts that differ only in a list index folded into one line, and at most [`MAX_LINES`]
//! lines, then a count of the rest. A checkpoint with 100,000 bad layers or a million
//! unexpected tensors gets a report of a few kilobytes.

use core::fmt;

use super::error::{ShapeError, ShapeErrorKind, ShapeErrors};
use super::fold::fold;
use super::names::{MAX_LINES, thousands};
use super::path::Origin;

/// What several mismatches have in common when one binding explains them all: the variable,
/// its value and where it was bound, and the size found instead.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Cause {
    pub name: String,
    pub value: String,
    pub origin: Origin,
    pub found: usize,
}

/// The cause of a mismatch, borrowed from it: the variable, its value, where it was bound,
/// and the size found.
type CauseKey<'a> = (&'a str, &'a str, &'a Origin, usize);

fn cause_of(e: &ShapeError) -> Option<CauseKey<'_>> {
    let ShapeErrorKind::Dim { expected, .. } = &e.kind else {
        return None;
    };
    let [p] = e.provenance.as_slice() else {
        return None;
    };
    // Only a plain variable (`d_ff = 4096`), not an expression of one (`2 * d = 8`).
    let value = expected
        .strip_prefix(p.name.as_str())?
        .strip_prefix(" = ")?;
    if value != p.value {
        return None;
    }
    Some((&p.name, &p.value, &p.origin, e.found()?))
}

/// The causes among `all`, in order of first appearance, each with the indices of the
/// mismatches it explains: one binding (from a tensor, the config, the metadata or the
/// caller) that two mismatches or more differ from by the same size. At most
/// [`MAX_LINES`] causes are gathered. A cause is copied out of the first mismatch it
/// explains; the others are compared in place.
pub(crate) fn causes<E: core::borrow::Borrow<ShapeError>>(all: &[E]) -> Vec<(Cause, Vec<usize>)> {
    let mut causes: Vec<(Cause, Vec<usize>)> = Vec::new();
    for (i, e) in all.iter().enumerate() {
        let Some((name, value, origin, found)) = cause_of(e.borrow()) else {
            continue;
        };
        let same = |c: &Cause| {
            c.found == found && c.name == name && c.value == value && c.origin == *origin
        };
        match causes.iter().position(|(c, _)| same(c)) {
            Some(k) => causes[k].1.push(i), // ok: `position` found `k` in `causes`.
            // Past the line budget a new cause could not be shown anyway.
            None if causes.len() < MAX_LINES => causes.push((
                Cause {
                    name: name.to_owned(),
                    value: value.to_owned(),
                    origin: origin.clone(),
                    found,
                },
                vec![i],
            )),
            None => {}
        }
    }
    causes.retain(|(_, members)| members.len() > 1);
    causes
}

/// Where a mismatch is, without what: `M.layers[3].up (tensor "layers.3.up") axis 0`.
fn place(e: &ShapeError) -> String {
    let mut out = e.path.to_string();
    if let Some(t) = &e.tensor {
        out.push_str(&format!(" (tensor {t:?})"));
    }
    if let Some(a) = e.axis {
        out.push_str(&format!(" axis {a}"));
    }
    out
}

fn write_bulleted(f: &mut fmt::Formatter<'_>, head: &str, text: &str) -> fmt::Result {
    for (i, line) in text.lines().enumerate() {
        match i {
            0 => write!(f, "\n- {head}{line}")?,
            _ => write!(f, "\n  {line}")?,
        }
    }
    Ok(())
}

/// `12 shape errors:`, then the causes, then the other errors folded, bounded.
pub(crate) fn write_errors(f: &mut fmt::Formatter<'_>, all: &[ShapeError]) -> fmt::Result {
    write!(f, "{} shape errors:", thousands(all.len()))?;
    // The causes, in order of first appearance, with their members; a cause counts when it
    // explains two mismatches or more.
    let causes = causes(all);
    let mut grouped = vec![false; all.len()];
    let mut lines = 0;
    let mut shown = 0;
    for (c, members) in &causes {
        if lines >= MAX_LINES {
            break;
        }
        for &i in members {
            if let Some(g) = grouped.get_mut(i) {
                *g = true;
            }
        }
        write!(
            f,
            "\n- {} mismatches, one cause: {} is {}, bound by {}, but {} in:",
            thousands(members.len()),
            c.name,
            c.value,
            c.origin,
            c.found
        )?;
        lines += 1;
        let places: Vec<String> = members
            .iter()
            .filter_map(|&i| all.get(i))
            .map(place)
            .collect();
        let (folded, _) = fold(places.iter().map(String::as_str));
        for g in &folded {
            if lines >= MAX_LINES {
                break;
            }
            write!(f, "\n    {}", g.text)?;
            lines += 1;
            shown += g.count;
        }
    }
    // Each text is made, folded and dropped: the fold keeps only the indices that vary. Under
    // `{:#}` each names where its pattern is declared, as one error's `{:#}` does.
    let alternate = f.alternate();
    let texts = all
        .iter()
        .zip(&grouped)
        .filter(|(_, g)| !**g)
        .map(|(e, _)| {
            if alternate {
                format!("{e:#}")
            } else {
                e.to_string()
            }
        });
    let (folded, _) = fold(texts);
    for g in &folded {
        if lines >= MAX_LINES {
            break;
        }
        let head = match g.count {
            1 => String::new(),
            n => format!("({} errors) ", thousands(n)),
        };
        write_bulleted(f, &head, &g.text)?;
        lines += 1;
        shown += g.count;
    }
    if shown < all.len() {
        write!(f, "\n… and {} more errors", thousands(all.len() - shown))?;
    }
    Ok(())
}

impl fmt::Display for ShapeErrors {
    /// One error as itself; several as a count, then the mismatches that share one cause
    /// under it, then the others with the texts that differ only in a list index folded into
    /// one line (`layers[{0..11}]`), at most [`ShapeErrors::MAX_LINES`] lines and the count of
    /// the rest. `{:#}` writes each error as its own `{:#}` does, with where it is declared.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.errors() {
            [one] => fmt::Display::fmt(one, f),
            all => write_errors(f, all),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(999_990), "999,990");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
