//! Folding texts that differ only in a list index: `layer.0.q`, `layer.1.q`, …, `layer.5.q`
//! become `layer.{0..5}.q`, so a report about a 12-layer model has one line per kind of
//! problem rather than one per layer, and a list of a million names stays readable.
//!
//! An index is a run of digits between `.` or `[` and `.`, `]`, `"` or the end: the numbering
//! of checkpoint names (`layers.3.`) and of field paths (`layers[3]`). Texts fold together when
//! they are equal once their indices are blanked and their indices vary together: every index
//! that differs between them has the same value within each text (`layers[3]` and `layer.3`),
//! the others are the same in all of them.

use std::collections::HashMap;
use std::fmt::Write;
use std::hash::Hash;

/// How many distinct shapes of text are folded; the texts past them are only counted.
pub const MAX_GROUPS: usize = 10_000;

/// A text with its indices blanked, and the indices.
fn skeleton(text: &str) -> (String, Vec<usize>) {
    // The blank is a NUL: a text that holds one itself (a hostile tensor name) is kept whole.
    if text.contains('\u{0}') {
        return (text.to_owned(), Vec::new());
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut numbers = Vec::new();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit() // ok: `i < bytes.len()`.
            && i > 0
            && matches!(bytes[i - 1], b'.' | b'['); // ok: `i > 0`.
        if !starts {
            i += 1;
            continue;
        }
        let end = bytes[i..] // ok: `i < bytes.len()`.
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |n| i + n);
        let closes = bytes
            .get(end)
            .is_none_or(|b| matches!(b, b'.' | b']' | b'"'));
        // ok: digits are ASCII, so `i` and `end` are char boundaries.
        let digits = &text[i..end];
        let canonical = digits == "0" || !digits.starts_with('0');
        if let (true, Ok(n)) = (closes && canonical, digits.parse::<usize>()) {
            out.push_str(&text[copied..i]); // ok: char boundaries, `copied <= i`.
            out.push('\u{0}');
            numbers.push(n);
            copied = end;
        }
        i = end;
    }
    out.push_str(&text[copied..]); // ok: `copied` is 0 or the end of a digit run.
    (out, numbers)
}

/// The most runs a set of indices shows: the first ones, `…`, and the last.
const MAX_RUNS: usize = 8;

/// `{0..5}`, `{0..3,7,9..11}`: sorted indices as inclusive runs; past [`MAX_RUNS`] runs, the
/// first ones, `…` and the last (`{0,2,4,6,8,10,12,14,…,99998}`).
fn ranges(values: &mut Vec<usize>) -> String {
    values.sort_unstable();
    values.dedup();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &v in values.iter() {
        match runs.last_mut() {
            Some((_, end)) if end.checked_add(1) == Some(v) => *end = v,
            _ => runs.push((v, v)),
        }
    }
    let write_run = |out: &mut String, &(start, end): &(usize, usize)| {
        let _ = match end - start {
            0 => write!(out, "{start}"),
            _ => write!(out, "{start}..{end}"),
        };
    };
    let mut out = String::from("{");
    let cut = runs.len() > MAX_RUNS + 1;
    let shown = if cut { MAX_RUNS } else { runs.len() };
    for (i, run) in runs.iter().take(shown).enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_run(&mut out, run);
    }
    if let (true, Some(last)) = (cut, runs.last()) {
        out.push_str(",…,");
        write_run(&mut out, last);
    }
    out.push('}');
    out
}

/// One folded line: its text, how many texts it stands for, and the position of the first of
/// them in the input (to look up what they share: a dtype, a shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    /// The text, with the indices that vary written as sets (`layers.{0..11}.q`).
    pub text: String,
    /// How many texts it stands for.
    pub count: usize,
    /// The position in the input of the first text it stands for.
    pub first: usize,
}

struct Group {
    skeleton: String,
    first: usize,
    members: Vec<Vec<usize>>,
}

/// Folds `texts`, in order of first appearance; past [`MAX_GROUPS`] shapes of text, the rest
/// is returned as a count.
pub(crate) fn fold<T: AsRef<str>>(texts: impl IntoIterator<Item = T>) -> (Vec<Folded>, usize) {
    fold_by(texts.into_iter().map(|t| (t, ())), MAX_GROUPS)
}

/// Folds texts that differ only in list indices and have equal keys (a listing folds the
/// tensors of a dtype and shape), in order of first appearance, in time linear in the texts'
/// length: texts fold when their indices vary together (`layers[3]` and `layers.3` in one
/// text) or make a full grid (`experts.{0..7}` in `layers.{0..3}`). Past `max_groups` shapes of
/// text, the rest is returned as a count. A text is read once and not kept, so texts made on
/// the fly (`errors.map(|e| (e.to_string(), ()))`) cost the memory of one at a time, beside
/// the indices each group keeps.
///
/// ```
/// use shapes::report::fold_by;
/// let names = ["emb", "l.0.w", "l.1.w", "l.2.w", "l.3.w", "e.0.x.0", "e.0.x.1", "e.1.x.0", "e.1.x.1"];
/// let shapes = [1, 2, 2, 2, 3, 4, 4, 4, 4];
/// let (folded, rest) = fold_by(names.iter().copied().zip(shapes), usize::MAX);
/// let lines: Vec<(&str, usize)> = folded.iter().map(|f| (f.text.as_str(), f.count)).collect();
/// assert_eq!(lines, [("emb", 1), ("l.{0..2}.w", 3), ("l.3.w", 1), ("e.{0..1}.x.{0..1}", 4)]);
/// assert_eq!(rest, 0);
/// ```
pub fn fold_by<T: AsRef<str>, K: Eq + Hash>(
    texts: impl IntoIterator<Item = (T, K)>,
    max_groups: usize,
) -> (Vec<Folded>, usize) {
    let mut groups: Vec<Group> = Vec::new();
    let mut by_skeleton: HashMap<(String, K), usize> = HashMap::new();
    let mut rest = 0;
    for (i, (text, key)) in texts.into_iter().enumerate() {
        let (skel, numbers) = skeleton(text.as_ref());
        let id = (skel, key);
        match by_skeleton.get(&id) {
            Some(&g) => groups[g].members.push(numbers), // ok: ids index `groups`.
            None if groups.len() < max_groups => {
                groups.push(Group {
                    skeleton: id.0.clone(),
                    first: i,
                    members: vec![numbers],
                });
                by_skeleton.insert(id, groups.len() - 1);
            }
            None => rest += 1,
        }
    }
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        out.extend(render(&g));
    }
    (out, rest)
}

/// A group as one line when its indices vary together or make a full grid, else one line per
/// text.
fn render(g: &Group) -> Vec<Folded> {
    let fill = |numbers: &[usize], varying: &dyn Fn(usize) -> Option<String>| {
        let mut out = String::with_capacity(g.skeleton.len());
        for (k, part) in g.skeleton.split('\u{0}').enumerate() {
            if k > 0 {
                match (numbers.get(k - 1), varying(k - 1)) {
                    (Some(_), Some(set)) => out.push_str(&set),
                    (Some(n), None) => {
                        let _ = write!(out, "{n}");
                    }
                    // A NUL of the text itself (see `skeleton`).
                    (None, _) => out.push('\u{0}'),
                }
            }
            out.push_str(part);
        }
        out
    };
    let Some(first) = g.members.first() else {
        return Vec::new();
    };
    let line = |text: String, count: usize| Folded {
        text,
        count,
        first: g.first,
    };
    let varies: Vec<bool> = (0..first.len())
        .map(|p| g.members.iter().any(|m| m.get(p) != first.get(p)))
        .collect();
    let Some(p) = varies.iter().position(|v| *v) else {
        // Identical texts.
        return vec![line(fill(first, &|_| None), g.members.len())];
    };
    let together = g.members.len() > 1
        && g.members.iter().all(|m| {
            let mut value = None;
            m.iter()
                .zip(&varies)
                .filter(|(_, v)| **v)
                .all(|(n, _)| *value.get_or_insert(*n) == *n)
        });
    if together {
        let mut values: Vec<usize> = g.members.iter().filter_map(|m| m.get(p).copied()).collect();
        let set = ranges(&mut values);
        return vec![line(
            fill(first, &|k| {
                varies.get(k).is_some_and(|v| *v).then(|| set.clone())
            }),
            g.members.len(),
        )];
    }
    if let Some(sets) = grid(&g.members, &varies) {
        return vec![line(
            fill(first, &|k| sets.get(k).cloned().flatten()),
            g.members.len(),
        )];
    }
    g.members
        .iter()
        .map(|m| line(fill(m, &|_| None), 1))
        .collect()
}

/// When `members` are every combination of the values each varying position takes (each
/// once), those values as sets, one per position (`None` for a fixed one).
fn grid(members: &[Vec<usize>], varies: &[bool]) -> Option<Vec<Option<String>>> {
    let mut values: Vec<Vec<usize>> = vec![Vec::new(); varies.len()];
    for m in members {
        for (k, n) in m.iter().enumerate() {
            if let Some(v) = values.get_mut(k) {
                v.push(*n);
            }
        }
    }
    let mut product = 1usize;
    let mut sets = Vec::with_capacity(varies.len());
    for (v, varying) in values.iter_mut().zip(varies) {
        v.sort_unstable();
        v.dedup();
        if *varying {
            product = product.checked_mul(v.len())?;
            sets.push(Some(ranges(v)));
        } else {
            sets.push(None);
        }
    }
    let distinct: std::collections::HashSet<&Vec<usize>> = members.iter().collect();
    (product == members.len() && distinct.len() == members.len()).then_some(sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: &[Folded]) -> Vec<(&str, usize)> {
        v.iter().map(|f| (f.text.as_str(), f.count)).collect()
    }

    #[test]
    fn layers_fold_into_one_range() {
        let names: Vec<String> = (0..6)
            .map(|i| format!("encoder.layer.{i}.attention.self.query.weight"))
            .collect();
        let (folded, rest) = fold(names.iter().map(String::as_str));
        assert_eq!(
            texts(&folded),
            [("encoder.layer.{0..5}.attention.self.query.weight", 6)]
        );
        assert_eq!(rest, 0);
    }

    #[test]
    fn a_path_and_a_name_with_the_same_index_fold_together() {
        let t: Vec<String> = [0, 1, 2, 5]
            .iter()
            .map(|i| {
                format!("M.layers[{i}].q (tensor \"layers.{i}.q\"): bound by M.layers[0].k axis 1")
            })
            .collect();
        let (folded, _) = fold(t.iter().map(String::as_str));
        assert_eq!(
            texts(&folded),
            [(
                "M.layers[{0..2,5}].q (tensor \"layers.{0..2,5}.q\"): bound by M.layers[0].k axis 1",
                4
            )]
        );
    }

    #[test]
    fn indices_that_vary_apart_do_not_fold() {
        let (folded, _) = fold(["a.0.b.1", "a.1.b.0"]);
        assert_eq!(texts(&folded), [("a.0.b.1", 1), ("a.1.b.0", 1)]);
    }

    #[test]
    fn numbers_that_are_not_indices_stay() {
        let (folded, _) = fold(["axis 0 expected 16, found 12", "x.07.y", "v1.2"]);
        assert_eq!(folded.len(), 3);
        assert_eq!(folded[1].text, "x.07.y");
        assert_eq!(skeleton("axis 0 expected 16").1, Vec::<usize>::new());
        assert_eq!(skeleton("v1.2").1, vec![2]);
    }

    #[test]
    fn a_text_with_a_nul_is_kept_whole() {
        let (folded, _) = fold(["a.1\u{0}b", "a.2\u{0}b", "a.1\u{0}b"]);
        assert_eq!(texts(&folded), [("a.1\u{0}b", 2), ("a.2\u{0}b", 1)]);
    }

    #[test]
    fn ranges_are_inclusive_runs() {
        assert_eq!(
            ranges(&mut vec![5, 0, 1, 2, 3, 7, 9, 10, 11]),
            "{0..3,5,7,9..11}"
        );
        assert_eq!(
            ranges(&mut vec![usize::MAX, usize::MAX - 1]),
            format!("{{{}..{}}}", usize::MAX - 1, usize::MAX)
        );
        let mut evens: Vec<usize> = (0..100).map(|i| 2 * i).collect();
        assert_eq!(ranges(&mut evens), "{0,2,4,6,8,10,12,14,…,198}");
        let mut nine: Vec<usize> = (0..9).map(|i| 2 * i).collect();
        assert_eq!(ranges(&mut nine), "{0,2,4,6,8,10,12,14,16}");
    }

    #[test]
    fn distinct_shapes_past_the_limit_are_counted() {
        let t: Vec<String> = (0..MAX_GROUPS + 5).map(|i| format!("name_{i}")).collect();
        let (folded, rest) = fold(t.iter().map(String::as_str));
        assert_eq!((folded.len(), rest), (MAX_GROUPS, 5));
    }
}
