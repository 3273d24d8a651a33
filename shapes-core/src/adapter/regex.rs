//! PEFT's module patterns (a string `target_modules`, the keys of `rank_pattern`) read as
//! Python's `re` reads them, through `fancy-regex`: the `regex` crate's syntax plus what PEFT
//! configs use beyond it, look-around above all (`^(?!.*vision).*q_proj`, the usual way to
//! leave a vision tower out). A pattern is matched whole (`re.fullmatch`).
//!
//! Look-around backtracks; the number of steps is capped, and a pattern that reaches the cap
//! on a name is "not known" for that name, never a guess.

/// A pattern that cannot be read: why, in a few words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unsupported(pub(crate) String);

/// A compiled pattern, matched against a whole name.
#[derive(Debug, Clone)]
pub(crate) struct Regex(fancy_regex::Regex);

/// The most bytes a pattern may have: a config file's pattern is a few dozen.
const MAX_PATTERN: usize = 4096;

/// The most backtracking steps one match may take (look-around and backreferences only;
/// the rest runs on the regex crate's automata, in linear time).
const MAX_BACKTRACK: usize = 100_000;

impl Regex {
    /// Compiles `pattern`, or says why it cannot be read.
    pub(crate) fn new(pattern: &str) -> Result<Regex, Unsupported> {
        if pattern.len() > MAX_PATTERN {
            return Err(Unsupported(format!(
                "a pattern longer than {MAX_PATTERN} bytes"
            )));
        }
        // The pattern must stand on its own before it is wrapped: `a)|(b` is no pattern, but
        // `^(?:a)|(b)$` would be one.
        let build = |p: &str| {
            fancy_regex::RegexBuilder::new(p)
                .backtrack_limit(MAX_BACKTRACK)
                .build()
        };
        build(pattern).map_err(|e| Unsupported(describe(&e)))?;
        let whole = build(&format!("^(?:{pattern})$")).map_err(|e| Unsupported(describe(&e)))?;
        Ok(Regex(whole))
    }

    /// Whether the whole of `text` matches; `None` when the match took more than
    /// [`MAX_BACKTRACK`] steps.
    pub(crate) fn full_match(&self, text: &str) -> Option<bool> {
        self.0.is_match(text).ok()
    }
}

/// The first line of a compile error: what in the pattern is wrong.
fn describe(e: &fancy_regex::Error) -> String {
    let text = e.to_string();
    let line = text.lines().next().unwrap_or("an error").trim();
    format!("syntax it cannot compile ({line})")
}

#[cfg(test)]
mod tests {
    use super::Regex;

    fn m(pattern: &str, text: &str) -> bool {
        Regex::new(pattern)
            .expect(pattern)
            .full_match(text)
            .expect("within the step cap")
    }

    #[test]
    fn peft_patterns_match_as_python_does() {
        let name = "model.layers.0.self_attn.q_proj";
        assert!(m(r".*\.(q_proj|v_proj)", name));
        assert!(m(r"^.*(q_proj|v_proj)$", name));
        assert!(m(r"model\.layers\.\d+\.self_attn\.(q|k|v)_proj", name));
        assert!(m(r"model.layers.[0-9]+.self_attn.[qkv]_proj", name));
        assert!(m(r"(?:.*\.)?(q_proj)", name));
        assert!(!m(r".*\.(k_proj|v_proj)", name));
        assert!(!m("q_proj", name));
        assert!(m("q_proj", "q_proj"));
        assert!(m(r"[^.]+", "embed_tokens"));
        assert!(!m(r"[^.]+", "model.embed_tokens"));
        assert!(m("a?b*c+", "c"));
        assert!(!m("a?b*c+", "ab"));
        assert!(m("(ab)*", ""));
        assert!(m("(a|)x", "x"));
        assert!(m(r"layers\.\d{1,2}\.mlp", "layers.12.mlp"));
        assert!(!m(r"layers\.\d{1,2}\.mlp", "layers.123.mlp"));
        // Look-ahead: every q_proj but the vision tower's.
        let p = r"^(?!.*vision).*(q_proj|v_proj)";
        assert!(m(p, name));
        assert!(!m(p, "vision_tower.layers.0.self_attn.q_proj"));
        // An alternation is of the whole pattern, as in fullmatch.
        assert!(m("q_proj|v_proj", "v_proj"));
        assert!(!m("q_proj|v_proj", "x.v_proj"));
    }

    #[test]
    fn what_python_refuses_is_refused() {
        for p in ["(a", "a)", "a)|(b", "*a", "[a"] {
            let e = Regex::new(p).unwrap_err();
            assert!(e.0.starts_with("syntax it cannot compile ("), "{p}: {e:?}");
        }
        assert!(Regex::new(&"a".repeat(5000)).is_err());
    }

    #[test]
    fn a_catastrophic_pattern_is_linear_or_not_known_never_a_hang() {
        let text = "a".repeat(10_000);
        // Without look-around: the regex crate's automata, linear.
        assert_eq!(Regex::new("(a*)*b").unwrap().full_match(&text), Some(false));
        // With it: backtracking, capped.
        let re = Regex::new(r"(?=a)(a*)*b").unwrap();
        assert_ne!(re.full_match(&text), Some(true));
    }
}
