//! An [`InferredSpec`] as a spec file: TOML in the format of SPEC.md, sorted, every name
//! quoted and escaped.

use std::fmt::Write;

use super::{BlockOut, Dim, InferredSpec, TensorOut};

/// `text` as a TOML basic string.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A dim as the shape language writes it.
pub(crate) fn dim(d: &Dim) -> String {
    match d {
        Dim::Var(v) => v.clone(),
        Dim::Product(a, b) => format!("{a} * {b}"),
        Dim::Size(n) => n.to_string(),
        Dim::Any => "_".into(),
    }
}

/// A tensor's pattern: `(a, b)`, `(a,)`, `()`, or `(...)` when its rank varies.
pub(crate) fn pattern(dims: Option<&[Dim]>) -> String {
    match dims {
        None => "(...)".into(),
        Some([one]) => format!("({},)", dim(one)),
        Some(dims) => {
            let dims: Vec<String> = dims.iter().map(dim).collect();
            format!("({})", dims.join(", "))
        }
    }
}

/// A list of strings, or one string alone.
fn strings(list: &[String]) -> String {
    match list {
        [one] => quoted(one),
        _ => {
            let list: Vec<String> = list.iter().map(|s| quoted(s)).collect();
            format!("[{}]", list.join(", "))
        }
    }
}

fn entry(t: &TensorOut) -> String {
    let shape = quoted(&pattern(t.dims.as_deref()));
    if !t.optional && t.dtypes.is_empty() {
        return shape;
    }
    let mut keys = vec![format!("shape = {shape}")];
    if t.optional {
        keys.push("optional = true".into());
    }
    if !t.dtypes.is_empty() {
        keys.push(format!("dtype = {}", strings(&t.dtypes)));
    }
    format!("{{ {} }}", keys.join(", "))
}

impl InferredSpec {
    /// The lines of a block's table: its tensors and the uses of the lists inside it, sorted
    /// by name.
    fn block_lines(&self, block: &BlockOut) -> Vec<(String, String)> {
        let mut lines: Vec<(String, String)> = block
            .tensors
            .iter()
            .map(|t| (t.name.clone(), entry(t)))
            .collect();
        for &l in &block.lists {
            let Some(list) = self.lists.get(l) else {
                continue;
            };
            if let Some(c) = list.choice {
                // A choice: one line, written at its first block.
                if let Some(line) = self.choice_line(c, l) {
                    lines.push(line);
                }
                continue;
            }
            let Some(b) = self.blocks.get(list.block) else {
                continue;
            };
            lines.push((
                format!("{}.{{{}}}", list.rel, list.placeholder),
                format!("{{ block = {} }}", quoted(&b.name)),
            ));
        }
        lines.sort();
        lines
    }

    /// A choice's line, `"mlp" = { one_of = ["mlp", "mlp_2"], first = "k_dense" }`, when
    /// `at` is its first block.
    fn choice_line(&self, c: usize, at: usize) -> Option<(String, String)> {
        let choice = self.choices.get(c)?;
        if choice.options.first() != Some(&at) {
            return None;
        }
        let names: Vec<String> = choice
            .options
            .iter()
            .filter_map(|&o| Some(self.blocks.get(self.lists.get(o)?.block)?.name.clone()))
            .collect();
        let first = choice
            .first
            .as_ref()
            .map(|v| format!(", first = {}", quoted(v)))
            .unwrap_or_default();
        Some((
            choice.at.clone(),
            format!("{{ one_of = {}{first} }}", format_list(&names)),
        ))
    }

    /// The spec as a spec file (TOML): `name`, `dtype`, `given`, `[config]` (each key's
    /// value in a comment), `[repeat]`, `[tensors]` and a `[blocks.…]` table for each
    /// repeated block, every table sorted.
    ///
    /// ```
    /// let json = br#"{"b":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"a":{"dtype":"I64","shape":[],"data_offsets":[12,20]}}"#;
    /// let mut file = (json.len() as u64).to_le_bytes().to_vec();
    /// file.extend_from_slice(json);
    /// file.extend_from_slice(&[0u8; 20]);
    /// let ckpt = shapes::Checkpoint::from_bytes(&file)?;
    /// let toml = shapes::Spec::infer(&ckpt)?.to_toml();
    /// assert!(toml.contains("[tensors]\n\"a\" = { shape = \"()\", dtype = \"I64\" }\n\"b\" = \"(3,)\"\n"), "{toml}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Written by `shapes spec` from a checkpoint ({}): every tensor's shape,\n# repeated blocks folded, sizes named from the config keys that state them.",
            self.source.replace('\n', " ")
        );
        let _ = writeln!(out, "name = {}", quoted(&self.name));
        if let Some(d) = &self.dtype {
            let _ = writeln!(out, "dtype = {}", quoted(d));
        }
        if !self.given.is_empty() {
            let _ = writeln!(
                out,
                "# Used only in products: the config must state them.\ngiven = {}",
                format_list(&self.given)
            );
        }
        if !self.wheres.is_empty() {
            let _ = writeln!(
                out,
                "# Counts no config key states, as found.\nwhere = {}",
                format_list(&self.wheres)
            );
        }
        if !self.config.is_empty() {
            out.push_str("\n[config]\n");
            for (var, key, value) in &self.config {
                let _ = writeln!(out, "{var} = {} # {value}", quoted(key));
            }
        }
        let counted: Vec<_> = self
            .lists
            .iter()
            .filter_map(|l| Some((l, l.count_var.as_ref()?)))
            .collect();
        if !counted.is_empty() {
            out.push_str("\n[repeat]\n");
            let mut lines: Vec<String> = counted
                .iter()
                .map(|(l, var)| format!("{} = {}", quoted(&l.full), quoted(var)))
                .collect();
            lines.sort();
            for l in lines {
                let _ = writeln!(out, "{l}");
            }
        }
        out.push_str("\n[tensors]\n");
        for (name, value) in self.block_lines(&self.root) {
            let _ = writeln!(out, "{} = {value}", quoted(&name));
        }
        for b in &self.blocks {
            let _ = writeln!(out, "\n[blocks.{}]", b.name);
            for (name, value) in self.block_lines(b) {
                let _ = writeln!(out, "{} = {value}", quoted(&name));
            }
        }
        out
    }
}

fn format_list(list: &[String]) -> String {
    let items: Vec<String> = list.iter().map(|s| quoted(s)).collect();
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_and_patterns_spelt() {
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000A\"");
        assert_eq!(pattern(Some(&[])), "()");
        assert_eq!(pattern(Some(&[Dim::Any])), "(_,)");
        assert_eq!(
            pattern(Some(&[
                Dim::Product("heads".into(), "head_dim".into()),
                Dim::Size(3)
            ])),
            "(heads * head_dim, 3)"
        );
        assert_eq!(pattern(None), "(...)");
    }
}
