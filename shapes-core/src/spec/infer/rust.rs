//! An [`InferredSpec`] as `#[derive(Shaped)]` structs: one struct for the top level and one
//! for each repeated block, a list of blocks a `Vec` field with its `prefix` and `count`, an
//! optional tensor an `Option`, a tensor whose name is not a Rust identifier renamed with
//! `name = "…"`. The derive has no `one_of`: each block of a choice is a field of its own
//! over the same prefix, every tensor and list in it an `Option` (a list then without its
//! `count`), so a layer is checked against whichever block it holds, less strictly than by
//! a spec file: a block held in part passes. The derive checks no dtype: they are listed in a comment.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::dims::identifier;
use super::write::pattern;
use super::{BlockOut, Dim, InferredSpec, camel};

/// Rust's keywords, strict and reserved, that an identifier made of lowercase letters,
/// digits and `_` may spell.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Type names a generated struct must not take: the generic parameter and the types its
/// fields name.
const TAKEN_TYPES: &[&str] = &["T", "Option", "Vec", "Box", "String", "Shape", "Self"];

/// `text` as a field name, not a keyword, not in `taken` (which it joins).
fn field_name(text: &str, taken: &mut BTreeSet<String>) -> String {
    let mut base = identifier(text);
    if KEYWORDS.contains(&base.as_str()) {
        base.push('_');
    }
    let mut name = base.clone();
    let mut n = 2usize;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n = n.saturating_add(1);
    }
    taken.insert(name.clone());
    name
}

/// A string literal of Rust: `{:?}` escapes as Rust reads it back.
fn lit(text: &str) -> String {
    format!("{text:?}")
}

/// The variables a block's own patterns use alone and inside products.
fn uses(block: &BlockOut) -> (BTreeSet<&str>, BTreeSet<&str>) {
    let (mut alone, mut products) = (BTreeSet::new(), BTreeSet::new());
    for t in &block.tensors {
        for d in t.dims.iter().flatten() {
            match d {
                Dim::Var(v) => {
                    alone.insert(v.as_str());
                }
                Dim::Product(a, b) => {
                    products.insert(a.as_str());
                    products.insert(b.as_str());
                }
                Dim::Size(_) | Dim::Any => {}
            }
        }
    }
    (alone, products)
}

impl InferredSpec {
    /// The type names: the top level's, then each block's.
    fn type_names(&self) -> Vec<String> {
        let mut taken: BTreeSet<String> = TAKEN_TYPES.iter().map(|s| (*s).to_owned()).collect();
        let mut fresh = |base: String| {
            let mut name = base.clone();
            if taken.contains(&name) {
                name = format!("{base}Block");
            }
            let mut n = 2usize;
            while taken.contains(&name) {
                name = format!("{base}Block{n}");
                n = n.saturating_add(1);
            }
            taken.insert(name.clone());
            name
        };
        // The name is CamelCase already (an identifier's words, or `Model`).
        let mut out = vec![fresh(self.name.clone())];
        out.extend(self.blocks.iter().map(|b| fresh(camel(&b.name))));
        out
    }

    /// The spec as `#[derive(Shaped)]` structs, generic over the tensor type: the top level
    /// first (with the config keys and the `given` variables), then a struct for each
    /// repeated block. `Model::<shapes::Shape>::verify_source(&checkpoint)` checks a
    /// checkpoint against them.
    ///
    /// ```
    /// let json = br#"{"layers.0.mlp.weight":{"dtype":"F32","shape":[3,2],"data_offsets":[0,24]},"layers.1.mlp.weight":{"dtype":"F32","shape":[3,2],"data_offsets":[24,48]}}"#;
    /// let mut file = (json.len() as u64).to_le_bytes().to_vec();
    /// file.extend_from_slice(json);
    /// file.extend_from_slice(&[0u8; 48]);
    /// let ckpt = shapes::Checkpoint::from_bytes(&file)?;
    /// let rust = shapes::Spec::infer(&ckpt)?.to_rust();
    /// assert!(rust.contains("    #[shape(nested, prefix = \"layers\", count = \"n_layer\")]\n    pub layers: Vec<Layer<T>>,\n"), "{rust}");
    /// assert!(rust.contains("    #[shape(\"(3, 2)\", name = \"mlp.weight\")]\n    pub mlp_weight: T,\n"), "{rust}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_rust(&self) -> String {
        let types = self.type_names();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "// Written by `shapes spec --rust` from a checkpoint ({}).",
            self.source.replace('\n', " ")
        );
        let mut dtypes: BTreeSet<&str> = self.dtype.iter().map(String::as_str).collect();
        for b in std::iter::once(&self.root).chain(&self.blocks) {
            for t in &b.tensors {
                dtypes.extend(t.dtypes.iter().map(String::as_str));
            }
        }
        if !dtypes.is_empty() {
            let list: Vec<&str> = dtypes.into_iter().collect();
            let _ = writeln!(
                out,
                "// The derive checks no dtype; the checkpoint's are {}.",
                list.join(", ")
            );
        }
        let blocks = std::iter::once(&self.root).chain(&self.blocks);
        for (i, (block, ty)) in blocks.zip(&types).enumerate() {
            out.push('\n');
            // A block of a choice: the derive has no `one_of`, so each block of a choice is
            // a field over the same prefix, all its tensors and lists optional.
            let loose = i > 0 && self.lists.get(i - 1).is_some_and(|l| l.choice.is_some());
            self.write_struct(&mut out, block, ty, &types, i == 0, loose);
        }
        out
    }

    fn write_struct(
        &self,
        out: &mut String,
        block: &BlockOut,
        ty: &str,
        types: &[String],
        top: bool,
        loose: bool,
    ) {
        out.push_str("#[derive(shapes::Shaped)]\n");
        // A choice's `first` has no spelling in the derive (each block of a choice is an
        // `Option`): a key bound for it alone is left out.
        let only_first = |var: &str| {
            self.choices.iter().any(|c| c.first.as_deref() == Some(var))
                && !self
                    .lists
                    .iter()
                    .any(|l| l.count_var.as_deref() == Some(var))
                && !std::iter::once(&self.root).chain(&self.blocks).any(|b| {
                    let (alone, products) = uses(b);
                    alone.contains(var) || products.contains(var)
                })
        };
        let keys: Vec<String> = self
            .config
            .iter()
            .filter(|(var, _, _)| !only_first(var))
            .map(|(var, key, _)| format!("{var} = {}", lit(key)))
            .collect();
        if top && !keys.is_empty() {
            let _ = writeln!(out, "#[shapes(config({}))]", keys.join(", "));
        }
        if top && !self.wheres.is_empty() {
            let _ = writeln!(out, "#[shapes(where = {})]", lit(&self.wheres.join(", ")));
        }
        // A product's variable no dim of this struct binds must be given (the config of the
        // top level binds it when the struct is nested).
        let (alone, products) = uses(block);
        let given: Vec<&str> = products.difference(&alone).copied().collect();
        if !given.is_empty() {
            let _ = writeln!(out, "#[shapes(given = {})]", lit(&given.join(", ")));
        }
        let _ = writeln!(out, "pub struct {ty}<T> {{");
        let mut taken = BTreeSet::new();
        let mut fields: Vec<(String, String)> = Vec::new();
        for t in &block.tensors {
            let field = field_name(&t.name, &mut taken);
            let rename = if field == t.name {
                String::new()
            } else {
                format!(", name = {}", lit(&t.name))
            };
            let ty = if t.optional || loose {
                "Option<T>"
            } else {
                "T"
            };
            fields.push((
                t.name.clone(),
                format!(
                    "    #[shape({}{rename})]\n    pub {field}: {ty},\n",
                    lit(&pattern(t.dims.as_deref()))
                ),
            ));
        }
        for &l in &block.lists {
            let Some(list) = self.lists.get(l) else {
                continue;
            };
            let Some(inner) = types.get(list.block + 1) else {
                continue;
            };
            let field = field_name(&list.rel, &mut taken);
            if list.choice.is_some() {
                // A block of a choice: each element holds one of them.
                fields.push((
                    list.rel.clone(),
                    format!(
                        "    /// One of the blocks an element holds at `{}` (`one_of` in a spec file).\n    #[shape(nested, prefix = {})]\n    pub {field}: {inner}<T>,\n",
                        list.rel,
                        lit(&list.rel)
                    ),
                ));
                continue;
            }
            // An `Option<Vec<_>>` takes no `count`.
            let count = list
                .count_var
                .as_ref()
                .filter(|_| !loose)
                .map(|c| format!(", count = {}", lit(c)))
                .unwrap_or_default();
            fields.push((
                list.rel.clone(),
                format!(
                    "    #[shape(nested, prefix = {}{count})]\n    pub {field}: {},\n",
                    lit(&list.rel),
                    if loose {
                        format!("Option<Vec<{inner}<T>>>")
                    } else {
                        format!("Vec<{inner}<T>>")
                    }
                ),
            ));
        }
        fields.sort();
        for (_, f) in fields {
            out.push_str(&f);
        }
        out.push_str("}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_identifiers_once_each() {
        let mut taken = BTreeSet::new();
        assert_eq!(field_name("type", &mut taken), "type_");
        assert_eq!(field_name("a.b", &mut taken), "a_b");
        assert_eq!(field_name("a_b", &mut taken), "a_b_2");
        assert_eq!(field_name("0", &mut taken), "d_0");
    }
}
