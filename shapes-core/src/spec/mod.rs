//! Spec files: a model's tensors and their shape patterns in TOML, compiled to a
//! [`Plan`] (the same checker `#[derive(Shaped)]` generates code for).
//!
//! ```toml
//! name = "Llama"                                  # the root of error paths
//! given = ["heads"]                               # must come from the config or --set
//! where = ["d_model = heads * head_dim"]
//!
//! [config]                                        # variable = key, or keys tried in order
//! d_model = ["hidden_size", "{arch}.embedding_length"]
//!
//! prefixes = ["model", ""]                        # where [tensors] may sit, tried in order
//!
//! [repeat]                                        # the count of a repeated block binds
//! "layers" = "n_layers"
//!
//! [tensors]
//! "embed_tokens.weight" = "(vocab, d_model)"
//! "layers.{i}.self_attn.q_proj.weight" = "(heads * head_dim, d_model)"
//! "layers.{i}.self_attn.q_proj.bias" = { shape = "(heads * head_dim,)", optional = true }
//! "layers.{i}.mlp" = { one_of = ["mlp", "moe"], rename = { d_ff = "intermediate" } }
//! "layers.{i}" = { block = "extra", optional = true }   # all of it, or none
//!
//! [head_tensors]                                  # outside the prefix, when there is one
//! "lm_head.weight" = { shape = "(vocab, d_model)", tied = "embed_tokens.weight", tie_key = "tie_word_embeddings" }
//!
//! [blocks.mlp]                                    # a group of tensors used under prefixes
//! "up_proj.weight" = "(d_ff, d_model)"
//! [blocks.moe]
//! "experts.{e}.up_proj.weight" = "(d_ff, d_model)"
//! [blocks.extra]
//! "scale" = "(d_model,)"
//! ```
//!
//! The full reference is the README's "Spec files" section.

mod analysis;
mod build;
mod builtin;
mod check;
mod error;
mod generic;
mod guess;
mod infer;
mod places;
mod toml_in;

use std::ops::Range;
use std::path::Path;

pub use self::builtin::{Naming, UnknownArchitecture};
pub use self::check::{CheckError, CheckOptions};
pub use self::error::SpecError;
pub use self::infer::{InferSpecError, InferredSpec};
use crate::verify::Plan;

/// A spec file's text and the name it is shown by.
pub(crate) struct SpecText<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

/// A tensor of the spec, with every block expanded: its full name (with `{i}` placeholders).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub name: String,
    pub pattern: String,
    pub optional: bool,
    /// Where the pattern is written (for carets).
    pub span: Range<usize>,
    /// The byte in the file where the pattern's text starts, when it is written literally
    /// (no escapes, no rename): a parse error's offset is added to it.
    pub text_start: Option<usize>,
    /// For a tied tensor: the tensor it is tied to, and the key that states the tie.
    pub tied: Option<(String, Option<String>)>,
    /// The choices (`one_of`, optional blocks) it sits in, outermost first: the index of
    /// each in [`Parsed::choices`] and the alternative it belongs to.
    pub choices: Vec<(usize, usize)>,
    /// Whether it is listed in `[head_tensors]`: named outside the `prefixes`.
    pub head: bool,
    /// The dtypes it may have (`dtype` on it or on the block use it came from).
    pub dtype: Option<Vec<String>>,
    /// Who writes it: 0 for `[tensors]`, `k + 1` for the `k`-th block met (the analysis
    /// tells names used only by one block from names used only by another).
    pub owner: usize,
}

/// A `one_of` (or an optional block: a choice of one alternative that may be absent).
#[derive(Debug, Clone)]
pub(crate) struct ChoiceDef {
    /// Where its blocks are used: the full name, with `{i}` placeholders (empty at the top).
    pub at: String,
    /// How many alternatives.
    pub alternatives: usize,
    pub optional: bool,
    /// `first = "k"`: the first `k` elements of the enclosing list take the first block.
    pub leading: Option<String>,
    pub span: Range<usize>,
    /// Whether it is in `[head_tensors]`.
    pub head: bool,
}

/// A tensor that may be absent because it shares another's storage.
#[derive(Debug, Clone)]
pub(crate) struct Tied {
    pub name: String,
    pub to: String,
}

/// A spec file as read, blocks expanded, before compiling.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parsed {
    pub name: String,
    pub given: Vec<(String, Range<usize>)>,
    pub wheres: Vec<(String, Range<usize>)>,
    pub config: Vec<(String, Vec<String>, Range<usize>)>,
    pub repeats: Vec<(String, String, Range<usize>)>,
    /// Globs of the tensors the check neither needs nor reports.
    pub ignore: Vec<(String, Range<usize>)>,
    pub entries: Vec<Entry>,
    pub tied: Vec<Tied>,
    pub choices: Vec<ChoiceDef>,
    /// `prefixes`: where the `[tensors]` may sit (`""`: at the top level), tried in order.
    pub prefixes: Vec<(String, Range<usize>)>,
    /// The top-level `dtype`: the dtypes of every tensor that does not say otherwise.
    pub dtype: Option<Vec<String>>,
}

/// A model's checks as a spec file describes them, compiled: the tensors and their patterns,
/// the variables bound from the checkpoint's config, the `given` ones and the `where` clauses.
/// [`check`](Self::check) runs it against a [`Checkpoint`](crate::Checkpoint) and returns the
/// [`Report`](crate::report::Report) the `shapes check` command prints.
///
/// ```
/// use shapes::Spec;
///
/// let spec = Spec::from_toml("tiny.toml", r#"
/// name = "Tiny"
/// [config]
/// d_model = "hidden_size"
/// [tensors]
/// "embed.weight" = "(vocab, d_model)"
/// "head.weight" = "(vocab, d_model)"
/// "#)?;
/// assert_eq!(spec.name(), "Tiny");
/// assert_eq!(spec.variables(), ["vocab", "d_model"]);
///
/// // A bad spec is an error with the file, line and column, and a caret.
/// let e = Spec::from_toml("bad.toml", "[tensors]\n\"w\" = \"(a b)\"\n").unwrap_err();
/// assert!(e.to_string().starts_with("bad.toml:2:11: in the pattern of `w`"), "{e}");
/// # Ok::<(), shapes::SpecError>(())
/// ```
#[derive(Debug)]
pub struct Spec {
    name: String,
    file: String,
    /// The plan under the first prefix the tensors may sit under (the top level when the
    /// spec has no `prefixes`), then under the others, in the order written.
    first: Layout,
    others: Vec<Layout>,
    /// variable ← keys tried in order.
    config: Vec<(String, Vec<String>)>,
    given: Vec<String>,
    /// What the report says about the checks before its outcome (the generic checks say
    /// which ran).
    notes: Vec<String>,
    /// Whether tensors it does not describe are allowed whatever the options say (the
    /// generic checks describe only the tensors they know).
    lenient: bool,
    /// The globs of the tensors it ignores (its `ignore` key).
    ignore: Vec<String>,
    /// Whether it was read from the file it is named by ([`Spec::read`]), which the places of
    /// its patterns then name: the report points at their lines.
    read: bool,
}

/// The spec's plan under one of its prefixes.
#[derive(Debug)]
pub(crate) struct Layout {
    /// The prefix (`bert`), empty for the top level.
    pub prefix: String,
    pub plan: Plan,
    /// Names every checkpoint laid out this way holds: the layout that finds most of them
    /// is the one a checkpoint is checked under.
    pub probes: Vec<String>,
    /// Each tensor's name (with `{i}` placeholders) and the dtypes it may have, for the
    /// tensors whose dtypes the spec states.
    pub dtypes: Vec<(String, Vec<String>)>,
}

/// The keys a spec file takes, at its top level and in a tensor's table: what the reference
/// (`shapes::spec_format`) documents and the test of every key covers.
///
/// ```
/// assert!(shapes::spec::TOP_KEYS.contains(&"ignore"));
/// assert!(shapes::spec::ENTRY_KEYS.contains(&"tied"));
/// ```
pub const TOP_KEYS: &[&str] = &[
    "name",
    "given",
    "where",
    "config",
    "repeat",
    "ignore",
    "prefixes",
    "dtype",
    "tensors",
    "head_tensors",
    "blocks",
];

/// The keys of a tensor's (or a block use's) table in a spec file.
pub const ENTRY_KEYS: &[&str] = &[
    "shape", "optional", "dtype", "tied", "tie_key", "block", "one_of", "first", "rename",
];

impl Spec {
    /// Reads a spec from its TOML `text`; `file` is the name its errors show.
    ///
    /// ```
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(n,)\"\n")?;
    /// assert_eq!(spec.file(), "s.toml");
    /// # Ok::<(), shapes::SpecError>(())
    /// ```
    pub fn from_toml(file: &str, text: &str) -> Result<Spec, SpecError> {
        let src = SpecText { file, text };
        let parsed = toml_in::parse(&src)?;
        build::compile(&src, parsed)
    }

    /// Reads the spec file at `path`.
    ///
    /// ```
    /// let e = shapes::Spec::read("/nonexistent/spec.toml").unwrap_err();
    /// assert!(e.to_string().starts_with("/nonexistent/spec.toml: "), "{e}");
    /// ```
    pub fn read(path: impl AsRef<Path>) -> Result<Spec, SpecError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SpecError::io(&shown, &e))?;
        let mut spec = Spec::from_toml(&shown, &text)?;
        spec.read = true;
        Ok(spec)
    }

    /// The root of its error paths (`Llama`).
    ///
    /// ```
    /// let spec = shapes::Spec::builtin("llama", shapes::spec::Naming::HuggingFace).unwrap();
    /// assert_eq!(spec.name(), "Llama");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name it was read under: a file's path, or `<built-in llama, GGUF names>`.
    ///
    /// ```
    /// let spec = shapes::Spec::builtin("gpt2", shapes::spec::Naming::Gguf).unwrap();
    /// assert_eq!(spec.file(), "<built-in gpt2, GGUF names>");
    /// ```
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The compiled checks, which [`Plan::verify_source_options`] runs against any
    /// [`ShapeSource`](crate::ShapeSource).
    ///
    /// ```
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(n,)\"\n")?;
    /// let mut src = std::collections::BTreeMap::new();
    /// src.insert("w".to_string(), shapes::Shape::from([3]));
    /// assert_eq!(spec.plan().verify_source(&src).unwrap().get("n"), Some(3));
    /// # Ok::<(), shapes::SpecError>(())
    /// ```
    pub fn plan(&self) -> &Plan {
        &self.layout(None).plan
    }

    /// The compiled checks for `src`: those of the prefix (see [`prefixes`](Self::prefixes))
    /// under which `src` holds the most of the spec's tensors, the first on a tie.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use shapes::{Shape, Spec};
    /// let spec = Spec::from_toml("s.toml", "prefixes = [\"bert\", \"\"]\n[tensors]\n\"w\" = \"(n,)\"\n")?;
    /// let base = BTreeMap::from([("w".to_string(), Shape::from([3]))]);
    /// let task = BTreeMap::from([("bert.w".to_string(), Shape::from([3]))]);
    /// assert!(spec.plan_for(&base).verify_source(&base).is_ok());
    /// assert!(spec.plan_for(&task).verify_source(&task).is_ok());
    /// assert_eq!(spec.prefix_for(&task), "bert");
    /// # Ok::<(), shapes::SpecError>(())
    /// ```
    pub fn plan_for<S: crate::ShapeSource + ?Sized>(&self, src: &S) -> &Plan {
        &self.layout(Some(&src)).plan
    }

    /// The prefix [`plan_for`](Self::plan_for) picks for `src` (empty: the top level).
    ///
    /// ```
    /// let spec = shapes::Spec::builtin("bert", shapes::spec::Naming::HuggingFace).unwrap();
    /// let empty: std::collections::BTreeMap<String, shapes::Shape> = Default::default();
    /// assert_eq!(spec.prefix_for(&empty), "bert");
    /// ```
    pub fn prefix_for<S: crate::ShapeSource + ?Sized>(&self, src: &S) -> &str {
        &self.layout(Some(&src)).prefix
    }

    /// The prefixes the spec's tensors may sit under, in the order tried (`[""]` for a spec
    /// without `prefixes`).
    ///
    /// ```
    /// let spec = shapes::Spec::builtin("gpt2", shapes::spec::Naming::HuggingFace).unwrap();
    /// assert_eq!(spec.prefixes(), ["", "transformer"]);
    /// ```
    pub fn prefixes(&self) -> Vec<&str> {
        self.layouts().map(|l| l.prefix.as_str()).collect()
    }

    fn layouts(&self) -> impl Iterator<Item = &Layout> {
        std::iter::once(&self.first).chain(&self.others)
    }

    /// The layout for `src` (the first without one).
    fn layout(&self, src: Option<&dyn crate::ShapeSource>) -> &Layout {
        let Some(src) = src else {
            return &self.first;
        };
        let score = |l: &Layout| {
            l.probes
                .iter()
                .filter(|p| src.shape_of(p).is_some())
                .count()
        };
        let mut best = (&self.first, score(&self.first));
        for l in &self.others {
            let s = score(l);
            if s > best.1 {
                best = (l, s);
            }
        }
        best.0
    }

    /// Every variable, in order of first use.
    ///
    /// ```
    /// let spec = shapes::Spec::from_toml("s.toml", "[tensors]\n\"w\" = \"(a, b)\"\n")?;
    /// assert_eq!(spec.variables(), ["a", "b"]);
    /// # Ok::<(), shapes::SpecError>(())
    /// ```
    pub fn variables(&self) -> &[&'static str] {
        self.plan().variables()
    }

    /// The variables that must be stated by the checkpoint or given before checking.
    ///
    /// ```
    /// let spec = shapes::Spec::builtin("llama", shapes::spec::Naming::HuggingFace).unwrap();
    /// assert_eq!(spec.given(), ["heads"]);
    /// ```
    pub fn given(&self) -> &[String] {
        &self.given
    }

    /// The globs of the tensors the spec ignores (its `ignore` key): neither needed nor
    /// reported when nothing describes them.
    ///
    /// ```
    /// let spec = shapes::Spec::from_toml("s.toml", "ignore = [\"pooler.*\"]\n[tensors]\n\"w\" = \"(n,)\"\n")?;
    /// assert_eq!(spec.ignored(), ["pooler.*"]);
    /// # Ok::<(), shapes::SpecError>(())
    /// ```
    pub fn ignored(&self) -> &[String] {
        &self.ignore
    }

    /// Each variable bound from the checkpoint's config, with the keys tried in order.
    ///
    /// ```
    /// let spec = shapes::Spec::builtin("llama", shapes::spec::Naming::HuggingFace).unwrap();
    /// let (var, keys) = &spec.config_keys()[0];
    /// assert_eq!((var.as_str(), keys[0].as_str()), ("d_model", "hidden_size"));
    /// ```
    pub fn config_keys(&self) -> &[(String, Vec<String>)] {
        &self.config
    }

    /// What the report says about the checks before their outcome: for the generic checks
    /// of an architecture no spec describes, which checks ran.
    ///
    /// ```
    /// let spec = shapes::Spec::builtin("llama", shapes::spec::Naming::HuggingFace).unwrap();
    /// assert!(spec.notes().is_empty());
    /// ```
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

#[cfg(test)]
mod tests {
    /// The reference (`shapes::spec_format`) has a section, with an example, for every key
    /// the reader takes.
    #[test]
    fn the_reference_documents_every_key() {
        let reference = include_str!("../../SPEC.md");
        for key in super::TOP_KEYS.iter().chain(super::ENTRY_KEYS) {
            let heading = format!("### `{key}`\n");
            let at = reference
                .find(&heading)
                .unwrap_or_else(|| panic!("SPEC.md has no section for `{key}`"));
            let section = &reference[at + heading.len()..];
            let end = section.find("\n### ").unwrap_or(section.len());
            assert!(
                section[..end].contains("```rust"),
                "the section of `{key}` has no example"
            );
        }
    }
}
