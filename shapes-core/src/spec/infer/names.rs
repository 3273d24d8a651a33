//! How a tensor name is read for folding: its segments, the segments that may be indices of
//! a list, the key of each list (the name up to it, the indices above blanked), and the mark
//! a choice's block leaves in a name (`choices.rs`).

use std::collections::HashMap;

use crate::source::CheckpointTensor;

/// The blank that marks a folded index inside a role's key: a tensor name holding it (a
/// hostile name) is never folded.
pub(super) const BLANK: &str = "\u{0}";

/// Whether a tensor name is folded at all: one holding the blank or the mark (a hostile
/// name) stays as it is.
pub(super) fn foldable(name: &str) -> bool {
    !name.contains(BLANK) && !name.contains(MARK)
}

/// The mark put after the segment where an element's block of a choice sits, with the
/// block's number: never in a name that is folded (`blocks::foldable`).
pub(super) const MARK: &str = "\u{1}";

/// Whether a segment is an index: digits, canonical.
fn is_index(segment: &str) -> bool {
    !segment.is_empty()
        && segment.bytes().all(|b| b.is_ascii_digit())
        && (segment == "0" || !segment.starts_with('0'))
        && segment.parse::<usize>().is_ok()
}

/// The most lists nested in one another that are folded: deeper indices stay in the names
/// (real checkpoints nest two: experts in layers), so that a name of a million `.0`
/// segments costs no more than a short one.
const MAX_DEPTH: usize = 8;

/// The positions of a name's candidate indices, the first [`MAX_DEPTH`].
fn candidates(segments: &[&str]) -> Vec<usize> {
    let last = segments.len().saturating_sub(1);
    (1..last)
        .filter(|&i| is_index(segments[i]))
        .take(MAX_DEPTH)
        .collect()
}

/// The key of the candidate list ending at segment `at`: the name up to it, every earlier
/// candidate blanked.
pub(super) fn list_key(segments: &[&str], cands: &[usize], at: usize) -> String {
    let mut out = String::new();
    for (i, s) in segments[..at].iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(if cands.contains(&i) { BLANK } else { s });
    }
    out
}

/// Where a name sits among the folded lists (`folded`, by key): its innermost list, the
/// indices of the elements it is in (outermost first), and the segment its name below that
/// element starts at.
pub(super) fn place(
    segments: &[&str],
    cands: &[usize],
    folded: &HashMap<String, usize>,
) -> (Option<usize>, Vec<usize>, usize) {
    let mut list = None;
    let mut indices = Vec::new();
    let mut rest_from = 0;
    for &at in cands {
        match folded.get(&list_key(segments, cands, at)) {
            Some(&l) => {
                list = Some(l);
                indices.push(segments[at].parse::<usize>().unwrap_or(usize::MAX));
                rest_from = at + 1;
            }
            None => break,
        }
    }
    (list, indices, rest_from)
}

/// A name's segments and its candidate indices (none when the tensor's own name is not
/// folded: `name` may be that name with the blocks of choices marked in it).
pub(super) fn split_name<'a>(t: &CheckpointTensor, name: &'a str) -> (Vec<&'a str>, Vec<usize>) {
    let segments: Vec<&str> = name.split('.').collect();
    let cands = if foldable(&t.name) {
        candidates(&segments)
    } else {
        Vec::new()
    };
    (segments, cands)
}

/// `at` with its last segment marked as block `option`'s.
pub(super) fn marked(at: &str, option: usize) -> String {
    format!("{at}{MARK}{option}")
}

/// The end of the first marked segment in `below` (a name below a list's element): where
/// the block of a choice ends.
pub(super) fn marked_prefix(below: &str) -> Option<usize> {
    let at = below.find(MARK)?;
    Some(below[at..].find('.').map_or(below.len(), |dot| at + dot))
}
