//! The globs of ignore lists (`SourceOptions::ignore`, `#[shapes(ignore = "…")]`, a spec's
//! `ignore`): the role of Hugging Face's `_keys_to_ignore_on_load_unexpected`, over a
//! checkpoint's full tensor names. `*` matches any run of characters, dots included
//! (`pooler.*` matches `pooler.dense.weight`), `?` matches one character, and every other
//! character matches itself.

/// Whether `name` matches the glob `pattern` as a whole.
///
/// ```
/// use shapes::__testing::glob_match;
/// assert!(glob_match("pooler.*", "pooler.dense.weight"));
/// assert!(glob_match("*.position_ids", "embeddings.position_ids"));
/// assert!(glob_match("layers.?.bias", "layers.3.bias"));
/// assert!(!glob_match("layers.?.bias", "layers.12.bias"));
/// assert!(!glob_match("pooler", "pooler.dense.weight"));
/// ```
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // The classic two-pointer match: on a mismatch, go back to the last `*` and let it take
    // one more character. Linear in practice, at most |p| × |n| steps.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        match p.get(i) {
            Some('*') => {
                star = Some((i, j));
                i += 1;
            }
            Some(&c) if c == '?' || c == n[j] => {
                // ok: `j < n.len()` (the loop condition).
                i += 1;
                j += 1;
            }
            _ => match star {
                Some((si, sj)) => {
                    i = si + 1;
                    j = sj + 1;
                    star = Some((si, sj + 1));
                }
                None => return false,
            },
        }
    }
    p[i.min(p.len())..].iter().all(|&c| c == '*')
}

/// Whether any of `globs` matches `name`.
///
/// ```
/// assert!(shapes::__testing::ignored(&["a.*", "b"], "b"));
/// ```
pub fn ignored<S: AsRef<str>>(globs: &[S], name: &str) -> bool {
    globs.iter().any(|g| glob_match(g.as_ref(), name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_match_any_run_dots_included() {
        assert!(glob_match("*", ""));
        assert!(glob_match("*", "a.b.c"));
        assert!(glob_match("a*c", "abbbc"));
        assert!(glob_match("a*c", "ac"));
        assert!(!glob_match("a*c", "acb"));
        assert!(glob_match("*.bias", "encoder.layer.0.bias"));
        assert!(glob_match("**", "x"));
        assert!(glob_match("a*b*c", "a.x.b.y.c"));
        assert!(!glob_match("a*b*c", "a.x.c.y.b"));
    }

    #[test]
    fn question_marks_match_one_character() {
        assert!(glob_match("?", "é"));
        assert!(!glob_match("?", ""));
        assert!(!glob_match("?", "ab"));
        assert!(glob_match("w?ight", "weight"));
    }

    #[test]
    fn other_characters_match_themselves_only() {
        assert!(glob_match(
            "embeddings.position_ids",
            "embeddings.position_ids"
        ));
        assert!(!glob_match(
            "embeddings.position_ids",
            "embeddings.position_ids2"
        ));
        assert!(!glob_match("", "a"));
        assert!(glob_match("", ""));
    }

    #[test]
    fn a_hostile_pattern_stays_bounded() {
        let name = "a".repeat(2_000);
        let pattern = format!("{}b", "*a".repeat(50));
        assert!(!glob_match(&pattern, &name));
    }
}
