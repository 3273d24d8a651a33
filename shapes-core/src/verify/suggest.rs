//! "Did you mean": the closest of some names to a name that is not among them, and when two
//! names are close enough that one is likely a typo of the other.
//!
//! Distances count an insertion, a deletion, a substitution and a swap of two neighbouring
//! characters as one edit each (the optimal string alignment distance), so `d_modle` is one
//! edit from `d_model`. The typo predicates are `const fn`s: `#[derive(Shaped)]` evaluates
//! them over a struct's whole scope, nested structs included, in a `const` (see
//! [`VarTable::likely_typo`](super::VarTable::likely_typo)), and the static analysis of one
//! scope calls the same functions.

/// The candidate closest to `name` by edit distance, when it is close enough to be a typo.
///
/// ```
/// assert_eq!(shapes::__testing::closest("head", &["heads"]), Some("heads".into()));
/// assert_eq!(shapes::__testing::closest("d_modle", &["d_model", "n"]), Some("d_model".into()));
/// ```
pub fn closest(name: &str, candidates: &[&str]) -> Option<String> {
    let a: Vec<char> = name.chars().collect();
    let longest = candidates.iter().map(|c| c.chars().count()).max()?;
    // No candidate further than this can be close enough, whichever is closest.
    let cap = (a.len().max(longest) / 3).max(1);
    let mut rows = Rows::default();
    let mut b: Vec<char> = Vec::new();
    // The first candidate at the least distance: each later one is measured only as far as
    // it could still be closer.
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let cutoff = match best {
            Some((0, _)) => break,
            Some((d, _)) => d - 1,
            None => cap,
        };
        b.clear();
        b.extend(c.chars());
        if let Some(d) = distance_within(&a, &b, cutoff, &mut rows) {
            best = Some((d, c));
        }
    }
    let (d, c) = best?;
    let limit = (a.len().max(c.chars().count()) / 3).max(1);
    (d <= limit).then(|| c.to_owned())
}

/// The optimal string alignment distance between `a` and `b`, by characters.
#[cfg(test)]
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    distance_within(&a, &b, usize::MAX, &mut Rows::default()).unwrap_or(usize::MAX)
}

/// The three rows of [`distance_within`]'s table, kept between calls.
#[derive(Default)]
struct Rows {
    before: Vec<usize>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

/// The optimal string alignment distance between `a` and `b` when it is at most `cutoff`.
///
/// A common prefix and suffix cost nothing and are skipped (an alignment may match them
/// outright: a swap across their edge would swap two equal characters); names of one
/// module share most of their length, so little is left to compare. The table stops once two
/// rows in a row exceed `cutoff`: no later row can then come back under it.
fn distance_within(a: &[char], b: &[char], cutoff: usize, rows: &mut Rows) -> Option<usize> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (a.get(prefix..)?, b.get(prefix..)?);
    let suffix = (a.iter().rev())
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (a.get(..a.len() - suffix)?, b.get(..b.len() - suffix)?);
    if a.len().abs_diff(b.len()) > cutoff {
        return None;
    }
    let Rows { before, prev, cur } = rows;
    before.clear();
    before.resize(b.len() + 1, usize::MAX);
    prev.clear();
    prev.extend(0..=b.len());
    let mut min_prev = 0;
    for i in 0..a.len() {
        cur.clear();
        cur.resize(b.len() + 1, i + 1);
        let mut min_cur = i + 1;
        for j in 0..b.len() {
            // ok: `i < a.len()`, `j < b.len()`, and the rows have `b.len() + 1` entries.
            let sub = prev[j] + usize::from(a[i] != b[j]);
            let mut best = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                best = best.min(before[j - 1] + 1);
            }
            cur[j + 1] = best;
            min_cur = min_cur.min(best);
        }
        std::mem::swap(before, prev);
        std::mem::swap(prev, cur);
        let min_before = std::mem::replace(&mut min_prev, min_cur);
        // Each cell is at least a cell of the previous row or one more than a cell of the
        // row before it (or one more than its left neighbour, itself so bound).
        if min_prev > cutoff && min_before.saturating_add(1) > cutoff {
            return None;
        }
    }
    let d = *prev.get(b.len())?;
    (d <= cutoff).then_some(d)
}

/// The optimal string alignment distance between `a` and `b` by bytes, in `const` context;
/// `usize::MAX` when either is longer than 48 bytes (see [`crate::text`]).
pub const fn const_distance(a: &str, b: &str) -> usize {
    crate::text::const_distance(a, b)
}

const fn char_count(s: &str) -> usize {
    let b = s.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        // ok: `i < b.len()`. A UTF-8 continuation byte is 0b10xx_xxxx.
        if b[i] & 0xC0 != 0x80 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Whether `a` may be a typo of `b` when `b` is used more: distinct, both of three
/// characters or more (`n`, `h`, `w` are distinct variables, not typos of each other), within
/// a third of the longer's length in edits (at least one). What "did you mean" suggests.
///
/// ```
/// use shapes::__testing::close_names;
/// assert!(close_names("d_modle", "d_model"));
/// assert!(!close_names("h_wins", "d_model"));
/// assert!(!close_names("n", "m"));
/// ```
pub const fn close_names(a: &str, b: &str) -> bool {
    let (na, nb) = (char_count(a), char_count(b));
    if na < 3 || nb < 3 {
        return false;
    }
    let d = const_distance(a, b);
    let longer = if na > nb { na } else { nb };
    let limit = if longer / 3 > 1 { longer / 3 } else { 1 };
    d > 0 && d <= limit
}

const fn starts_with(s: &[u8], prefix: &[u8]) -> bool {
    if prefix.len() > s.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        // ok: `i < prefix.len() <= s.len()`.
        if s[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `a` and `b` are one edit apart (a swap, a dropped, added or changed character),
/// both of three characters or more, and neither starts with the other (`head` and
/// `heads`): how close a name used once must be to a name used more for the likely-typo
/// check of a whole derived scope, nested structs included, which sees names written far
/// apart and so asks for more than [`close_names`] does.
///
/// ```
/// use shapes::__testing::one_slip;
/// assert!(one_slip("intermediate_sise", "intermediate_size"));
/// assert!(!one_slip("head_fc_layers", "head_layers"));
/// assert!(!one_slip("n_layer", "n_layers"));
/// ```
pub const fn one_slip(a: &str, b: &str) -> bool {
    if char_count(a) < 3 || char_count(b) < 3 || const_distance(a, b) != 1 {
        return false;
    }
    let (x, y) = (a.as_bytes(), b.as_bytes());
    !(starts_with(x, y) || starts_with(y, x))
}

/// Whether `a` and `b` differ the way a slip of the fingers makes names differ: two
/// neighbouring characters swapped (`sqe`, `seq`), or one character dropped or added inside
/// the name (`d_mdel`, `d_model`), both of three characters or more. A substitution is not
/// one (`seq_q` and `seq_k` are two variables), nor a longer name that starts with the
/// shorter (`head` and `heads`, `n_layer` and `n_layers`). Two names that each check nothing
/// (each used once), or that never meet (each in its own nested struct), are a likely typo
/// when they differ so.
///
/// ```
/// use shapes::__testing::typo_shaped;
/// assert!(typo_shaped("sqe", "seq"));
/// assert!(typo_shaped("d_mdel", "d_model"));
/// assert!(!typo_shaped("seq_q", "seq_k"));
/// assert!(!typo_shaped("head", "heads"));
/// ```
pub const fn typo_shaped(a: &str, b: &str) -> bool {
    if char_count(a) < 3 || char_count(b) < 3 || const_distance(a, b) != 1 {
        return false;
    }
    let (x, y) = (a.as_bytes(), b.as_bytes());
    if x.len() == y.len() {
        // One edit between names of one length: a substitution or a swap; count the bytes
        // that differ (a swap differs in two).
        let mut differ = 0;
        let mut i = 0;
        while i < x.len() {
            // ok: `i < x.len() == y.len()`.
            if x[i] != y[i] {
                differ += 1;
            }
            i += 1;
        }
        return differ == 2;
    }
    !(starts_with(x, y) || starts_with(y, x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(closest("head", &["heads", "d_model"]), Some("heads".into()));
        assert_eq!(closest("vocab", &["heads", "d_model"]), None);
    }

    /// The distance as it was first written: the whole table, no cutoff, no skipped ends.
    fn full_table(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut before = vec![0; b.len() + 1];
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 0..a.len() {
            let mut cur = vec![i + 1; b.len() + 1];
            for j in 0..b.len() {
                let sub = prev[j] + usize::from(a[i] != b[j]);
                let mut best = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
                if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                    best = best.min(before[j - 1] + 1);
                }
                cur[j + 1] = best;
            }
            before = std::mem::replace(&mut prev, cur);
        }
        prev[b.len()]
    }

    /// Every string of up to `n` letters of "abc".
    fn words(n: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..n {
            last = (last.iter())
                .flat_map(|w| ["a", "b", "c"].map(|c| format!("{w}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn the_bounded_distance_agrees_with_the_full_table() {
        let words = words(5);
        let mut rows = Rows::default();
        for a in &words {
            for b in &words {
                let want = full_table(a, b);
                let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                for cutoff in 0..4 {
                    let got = distance_within(&x, &y, cutoff, &mut rows);
                    assert_eq!(got, (want <= cutoff).then_some(want), "{a} {b} {cutoff}");
                }
                assert_eq!(edit_distance(a, b), want, "{a} {b}");
            }
        }
    }

    #[test]
    fn the_closest_is_the_first_at_the_least_distance() {
        let words = words(4);
        let names: Vec<&str> = words.iter().map(String::as_str).collect();
        for name in ["abcab", "cc", "abca", "bbbbbbb"] {
            for window in names.windows(9).step_by(7) {
                let best = (window.iter())
                    .map(|c| (full_table(name, c), *c))
                    .min_by_key(|&(d, _)| d)
                    .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
                    .map(|(_, c)| c.to_owned());
                assert_eq!(closest(name, window), best, "{name} {window:?}");
            }
        }
    }

    #[test]
    fn distance_counts_edits_and_swaps() {
        assert_eq!(edit_distance("d_modle", "d_model"), 1);
        assert_eq!(edit_distance("sqe", "seq"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("héad", "head"), 1);
        assert_eq!(edit_distance("intermediate_sise", "intermediate_size"), 1);
    }

    #[test]
    fn the_const_distance_agrees_with_the_other_on_ascii() {
        for (a, b) in [
            ("d_modle", "d_model"),
            ("sqe", "seq"),
            ("", "abc"),
            ("kitten", "sitting"),
            ("heads", "head_dim"),
            ("ca", "abc"),
        ] {
            assert_eq!(const_distance(a, b), edit_distance(a, b), "{a} {b}");
        }
        assert_eq!(const_distance(&"a".repeat(49), "a"), usize::MAX);
    }

    #[test]
    fn typo_shapes_are_swaps_and_inner_drops() {
        assert!(typo_shaped("d_modle", "d_model"));
        assert!(typo_shaped("d_model", "d_mode_l"));
        assert!(!typo_shaped("n_layer", "n_layers"));
        assert!(!typo_shaped("heads", "head"));
        assert!(!typo_shaped("seq_k", "seq_q"));
        assert!(!typo_shaped("ab", "ba"));
        assert!(!typo_shaped("d_model", "d_model"));
        assert!(!typo_shaped("head_dim", "hidden_dim"));
    }
}
