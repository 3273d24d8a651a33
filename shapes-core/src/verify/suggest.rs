//! "Did you mean": the closest of some names to a name that is not among them.

/// The candidate closest to `name` by edit distance, when it is close enough to be a typo.
///
/// ```
/// assert_eq!(shapes::__private::closest("head", &["heads"]), Some("heads".into()));
/// ```
pub fn closest(name: &str, candidates: &[&str]) -> Option<String> {
    let best = candidates
        .iter()
        .map(|c| (edit_distance(name, c), *c))
        .min_by_key(|&(d, _)| d)?;
    let limit = (name.chars().count().max(best.1.chars().count()) / 3).max(1);
    (best.0 <= limit).then(|| best.1.to_owned())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        // ok: `prev` and `cur` have `b.len() + 1` entries and `j < b.len()`.
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()] // ok: `prev` always has `b.len() + 1` entries.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(closest("head", &["heads", "d_model"]), Some("heads".into()));
        assert_eq!(closest("vocab", &["heads", "d_model"]), None);
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(edit_distance("d_modle", "d_model"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("héad", "head"), 1);
    }
}
