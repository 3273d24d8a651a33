//! Where each variable of a body's shapes comes from (a parameter's pattern, a field of
//! `self`, a `#[shape]` on a `let`), so that an error says it beside the shapes it prints:
//! `` b, s, d_model from the pattern of `x`; heads from `self.num_heads` ``.

use shapes_core::expr::Pattern;

use crate::analysis::pattern_vars;

/// Each variable's first source, in the order they were met.
#[derive(Default, Clone)]
pub struct Origins(Vec<(String, String)>);

impl Origins {
    /// Records that `var` comes from `from`, unless it already has a source.
    pub fn note(&mut self, var: &str, from: &str) {
        if !self.0.iter().any(|(v, _)| v == var) {
            self.0.push((var.to_owned(), from.to_owned()));
        }
    }

    /// Adds the sources of `other`'s variables this does not have yet.
    pub fn extend(&mut self, other: &Origins) {
        for (var, from) in &other.0 {
            self.note(var, from);
        }
    }

    /// Records every variable of `pattern` as coming from `from`.
    pub fn note_pattern(&mut self, pattern: &Pattern, from: &str) {
        let mut vars = Vec::new();
        pattern_vars(pattern, &mut vars);
        for v in vars {
            self.note(&v, from);
        }
    }

    /// The variables `message` names, grouped by source, as a line to append to it (empty when
    /// it names none).
    pub fn explain(&self, message: &str) -> String {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for word in message.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if seen.contains(&word) {
                continue;
            }
            seen.push(word);
            let Some((var, from)) = self.0.iter().find(|(v, _)| v == word) else {
                continue;
            };
            match groups.iter_mut().find(|(f, _)| *f == from.as_str()) {
                Some((_, vars)) => vars.push(var),
                None => groups.push((from, vec![var])),
            }
        }
        if groups.is_empty() {
            return String::new();
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(from, vars)| format!("{} from {from}", vars.join(", ")))
            .collect();
        format!("\n  dims: {}", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variables_a_message_names_are_grouped_by_source() {
        let mut o = Origins::default();
        let p = shapes_core::expr::parse_pattern("(b, s, d_model)").expect("a pattern");
        o.note_pattern(&p, "the pattern of `x`");
        o.note("heads", "`self.num_heads`");
        o.note("b", "elsewhere");
        let line = o.explain("`q` is (b, heads, s, d_model), `k` is (b, s)");
        assert_eq!(
            line,
            "\n  dims: b, s, d_model from the pattern of `x`; heads from `self.num_heads`"
        );
        assert_eq!(o.explain("nothing known here"), "");
    }
}
