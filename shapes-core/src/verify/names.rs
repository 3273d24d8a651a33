//! Lists of names in a report: folded across list indices, grouped by their first part when
//! there are many, and cut after [`MAX_LINES`] entries with a count of the rest, so that a
//! million unexpected tensors make one short line.

use core::fmt;

use super::fold::{Folded, fold};

/// The most lines a list of errors, or of names, shows before counting the rest.
pub(crate) const MAX_LINES: usize = 50;

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Names, folded across list indices, comma-separated; when they fold to more than
/// [`MAX_LINES`] entries, grouped by their first part (`vision_tower.* (2,931 tensors)`); at
/// most [`MAX_LINES`] entries, then `… and 999,950 more`.
pub(crate) fn write_names<'a>(
    f: &mut fmt::Formatter<'_>,
    names: impl IntoIterator<Item = &'a str>,
) -> fmt::Result {
    let (folded, rest) = fold(names);
    let total = folded.iter().map(|g| g.count).sum::<usize>() + rest;
    let entries: Vec<(String, usize)> = if folded.len() <= MAX_LINES {
        folded.into_iter().map(|g| (g.text, g.count)).collect()
    } else {
        by_first_part(folded)
    };
    let mut shown = 0;
    for (i, (text, count)) in entries.iter().take(MAX_LINES).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        f.write_str(text)?;
        shown += count;
    }
    if shown < total {
        write!(f, ", … and {} more", thousands(total - shown))?;
    }
    Ok(())
}

/// Folded names grouped by the part before their first `.`, in order of first appearance: a
/// part with one entry keeps it, a part with more becomes `part.* (N tensors)`.
fn by_first_part(folded: Vec<Folded>) -> Vec<(String, usize)> {
    let mut groups: Vec<(String, Vec<Folded>)> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    for g in folded {
        let part = g.text.split('.').next().unwrap_or("").to_owned();
        match index.get(&part) {
            Some(&k) => {
                if let Some((_, members)) = groups.get_mut(k) {
                    members.push(g);
                }
            }
            None => {
                index.insert(part.clone(), groups.len());
                groups.push((part, vec![g]));
            }
        }
    }
    groups
        .into_iter()
        .map(|(part, mut members)| match members.len() {
            1 => {
                let g = members.remove(0);
                (g.text, g.count)
            }
            _ => {
                let n: usize = members.iter().map(|g| g.count).sum();
                (format!("{part}.* ({} tensors)", thousands(n)), n)
            }
        })
        .collect()
}
