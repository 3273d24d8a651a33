//! Spec files: a model's tensors and their shape patterns in TOML, compiled to a
//! [`shapes::Plan`] (the same checker `#[derive(Shaped)]` generates code for).
//!
//! ```toml
//! name = "Llama"                                  # the root of error paths
//! given = ["heads"]                               # must come from the config or --set
//! where = ["d_model = heads * head_dim"]
//!
//! [config]                                        # variable = key, or keys tried in order
//! d_model = ["hidden_size", "{arch}.embedding_length"]
//!
//! [repeat]                                        # the count of a repeated block binds
//! "model.layers" = "n_layers"
//!
//! [tensors]
//! "model.embed_tokens.weight" = "(vocab, d_model)"
//! "model.layers.{i}.self_attn.q_proj.weight" = "(heads * head_dim, d_model)"
//! "model.layers.{i}.self_attn.q_proj.bias" = { shape = "(heads * head_dim,)", optional = true }
//! "lm_head.weight" = { shape = "(vocab, d_model)", tied = "model.embed_tokens.weight", tie_key = "tie_word_embeddings" }
//! "model.layers.{i}.mlp" = { block = "mlp", rename = { d_ff = "intermediate" } }
//!
//! [blocks.mlp]                                    # a group of tensors used under prefixes
//! "up_proj.weight" = "(d_ff, d_model)"
//! ```

mod analysis;
mod build;
mod error;
mod toml_in;

use std::ops::Range;

pub use self::build::Compiled;
pub use self::error::SpecError;

/// A spec file's text and the name it is shown by.
pub struct SpecText<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

/// A tensor of the spec, with every block expanded: its full name (with `{i}` placeholders).
#[derive(Debug, Clone)]
pub struct Entry {
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
}

/// A tensor that may be absent because it shares another's storage.
#[derive(Debug, Clone)]
pub struct Tied {
    pub name: String,
    pub to: String,
}

/// A parsed spec (blocks expanded), before compiling.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    pub name: String,
    pub given: Vec<(String, Range<usize>)>,
    pub wheres: Vec<(String, Range<usize>)>,
    pub config: Vec<(String, Vec<String>, Range<usize>)>,
    pub repeats: Vec<(String, String, Range<usize>)>,
    pub entries: Vec<Entry>,
    pub tied: Vec<Tied>,
}

/// Parses and compiles a spec.
pub fn compile(src: &SpecText<'_>) -> Result<Compiled, SpecError> {
    let spec = toml_in::parse(src)?;
    build::compile(src, spec)
}
