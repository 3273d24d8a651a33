//! `shapes spec`: a spec written from a checkpoint, its config and its tensor names. The
//! repeated blocks are folded into `[blocks]` used under `{i}` names with their `[repeat]`
//! counts (experts inside layers nested), sizes are named from the config keys that state
//! them, and the dtypes seen are recorded. The rules are in `blocks.rs` (what folds) and
//! `dims.rs` (what is named, what is unified); `write.rs` writes TOML and `rust.rs` the same
//! as `#[derive(Shaped)]` structs.
//!
//! Every spec written is read back and checked against the checkpoint it was written from
//! before it is handed out: a spec that would not load, or would not pass, is an error.

mod blocks;
mod choices;
mod dims;
mod keys;
mod names;
mod rust;
mod write;

use crate::Spec;
use crate::source::Checkpoint;

/// A dim of a written pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Dim {
    Var(String),
    Product(String, String),
    Size(usize),
    /// A size that differs between the instances of a role.
    Any,
}

/// A tensor of a block (or at the top level), named below it.
#[derive(Debug, Clone)]
pub(crate) struct TensorOut {
    pub name: String,
    /// `None` when the rank differs between its instances.
    pub dims: Option<Vec<Dim>>,
    pub optional: bool,
    /// Its dtypes when they are not the spec's `dtype` alone.
    pub dtypes: Vec<String>,
}

/// The tensors of one element of a list (or of the top level), and the lists inside it.
#[derive(Debug, Clone)]
pub(crate) struct BlockOut {
    pub name: String,
    pub tensors: Vec<TensorOut>,
    /// Indices into [`InferredSpec::lists`].
    pub lists: Vec<usize>,
}

/// A folded list.
#[derive(Debug, Clone)]
pub(crate) struct ListOut {
    /// Its name below its parent's element.
    pub rel: String,
    /// Its full name, with the placeholders of the lists above (`layers.{i}.mlp.experts`).
    pub full: String,
    /// The name of its own placeholder (`i`, `j`).
    pub placeholder: String,
    /// Its block, an index into [`InferredSpec::blocks`].
    pub block: usize,
    pub count_var: Option<String>,
    /// For a block of a choice (not a list): the choice, an index into
    /// [`InferredSpec::choices`].
    pub choice: Option<usize>,
}

/// A name inside a block where its elements hold one of several blocks.
#[derive(Debug, Clone)]
pub(crate) struct ChoiceOut {
    /// The name below the block (`mlp`).
    pub at: String,
    /// Its blocks, indices into [`InferredSpec::lists`] (each a block of the choice).
    pub options: Vec<usize>,
    /// The variable counting the elements that take the first block (`first = "k_dense"`).
    pub first: Option<String>,
}

/// A spec written from a checkpoint by [`Spec::infer`]: as a spec file
/// ([`to_toml`](Self::to_toml)) or as `#[derive(Shaped)]` structs
/// ([`to_rust`](Self::to_rust)).
///
/// ```
/// let json = br#"{"layers.0.w":{"dtype":"F16","shape":[4,4],"data_offsets":[0,32]},"layers.1.w":{"dtype":"F16","shape":[4,4],"data_offsets":[32,64]}}"#;
/// let mut file = (json.len() as u64).to_le_bytes().to_vec();
/// file.extend_from_slice(json);
/// file.extend_from_slice(&[0u8; 64]);
/// let ckpt = shapes::Checkpoint::from_bytes(&file)?;
/// let inferred = shapes::Spec::infer(&ckpt)?;
/// assert_eq!(inferred.name(), "Model");
/// assert!(inferred.to_toml().contains("[blocks.layer]\n\"w\" = \"(4, 4)\"\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct InferredSpec {
    pub(crate) name: String,
    /// The format and files it was written from.
    pub(crate) source: String,
    pub(crate) dtype: Option<String>,
    pub(crate) given: Vec<String>,
    pub(crate) wheres: Vec<String>,
    /// variable, key, value, sorted by variable.
    pub(crate) config: Vec<(String, String, usize)>,
    pub(crate) root: BlockOut,
    pub(crate) blocks: Vec<BlockOut>,
    pub(crate) lists: Vec<ListOut>,
    pub(crate) choices: Vec<ChoiceOut>,
}

/// Why [`Spec::infer`] wrote no spec.
///
/// ```
/// let json = br#"{}"#;
/// let mut file = (json.len() as u64).to_le_bytes().to_vec();
/// file.extend_from_slice(json);
/// let ckpt = shapes::Checkpoint::from_bytes(&file)?;
/// let e = shapes::Spec::infer(&ckpt).unwrap_err();
/// assert_eq!(e, shapes::spec::InferSpecError::Empty);
/// assert!(e.to_string().contains("nothing to write a spec for"));
/// # Ok::<(), shapes::CheckpointError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InferSpecError {
    /// The checkpoint holds no tensor.
    #[error("the checkpoint holds no tensor: there is nothing to write a spec for")]
    Empty,
    /// The spec written does not load, or does not pass on its own checkpoint: a bug of the
    /// writer, or tensor names the spec format cannot spell (a segment such as `{x}`, which
    /// a spec reads as a placeholder).
    #[error(
        "the spec written for this checkpoint {0}; its tensor names may hold what a spec file cannot spell (a `{{x}}` segment is read as a placeholder): write the spec by hand, or report the names"
    )]
    NotSelfConsistent(String),
}

impl InferredSpec {
    /// The root of its error paths: the checkpoint's architecture in CamelCase, or `Model`.
    ///
    /// ```
    /// let json = br#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    /// let mut file = (json.len() as u64).to_le_bytes().to_vec();
    /// file.extend_from_slice(json);
    /// file.extend_from_slice(&[0u8; 8]);
    /// let ckpt = shapes::Checkpoint::from_bytes(&file)?;
    /// assert_eq!(shapes::Spec::infer(&ckpt)?.name(), "Model");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The variables bound from the checkpoint's config, each with its key and the value
    /// the checkpoint states, sorted by variable.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("shapes-doc-infer-config-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let json = br#"{"embed.weight":{"dtype":"F32","shape":[10,4],"data_offsets":[0,160]}}"#;
    /// let mut file = (json.len() as u64).to_le_bytes().to_vec();
    /// file.extend_from_slice(json);
    /// file.extend_from_slice(&[0u8; 160]);
    /// std::fs::write(dir.join("model.safetensors"), file).unwrap();
    /// std::fs::write(dir.join("config.json"), r#"{"hidden_size": 4, "vocab_size": 10}"#).unwrap();
    /// let ckpt = shapes::Checkpoint::open(dir.join("model.safetensors"))?;
    /// let inferred = shapes::Spec::infer(&ckpt)?;
    /// let config: Vec<(&str, &str, usize)> = inferred.config().collect();
    /// assert_eq!(config, [("d_model", "hidden_size", 4), ("vocab", "vocab_size", 10)]);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn config(&self) -> impl Iterator<Item = (&str, &str, usize)> {
        self.config
            .iter()
            .map(|(v, k, n)| (v.as_str(), k.as_str(), *n))
    }
}

/// The tensors folded: the lists (`blocks.rs`), then, where layers hold one of several
/// blocks under one name, those choices, with the names folded again so that the lists
/// inside each block fold over the layers that hold it (`choices.rs`).
fn fold(tensors: &[crate::source::CheckpointTensor]) -> blocks::Folded {
    let (folded, unshared) = blocks::fold_lists(tensors);
    let splits = choices::find(tensors, &folded);
    if splits.is_empty() {
        return folded;
    }
    let marked = choices::mark(tensors, &folded, &splits);
    let marked: Vec<&str> = marked.iter().map(|n| n.as_ref()).collect();
    blocks::fold_except(tensors, &marked, &unshared, &splits)
}

/// `llama` → `Llama`, `qwen3_moe` → `Qwen3Moe`, `LlamaForCausalLM` as it is: ASCII letters
/// and digits, each word capitalised, starting with a letter (`M` before a digit).
pub(crate) fn camel(text: &str) -> String {
    let mut out = String::new();
    for part in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    match out.chars().next() {
        None => "Model".into(),
        Some(c) if c.is_ascii_digit() => format!("M{out}"),
        Some(_) => out,
    }
}

impl Spec {
    /// Writes a spec for `ckpt` from its tensors and its config (`config.json`, GGUF
    /// metadata): repeated blocks folded into `[blocks]` with `[repeat]` counts (lists
    /// inside lists nested), each size named from the one config key that states it (or the
    /// one product of two keys), the dtypes seen recorded. The spec is read back and checked
    /// against `ckpt` before it is returned. Linear in the number of tensors.
    ///
    /// ```
    /// let json = br#"{"h.0.w":{"dtype":"F32","shape":[3,2],"data_offsets":[0,24]},"h.0.b":{"dtype":"F32","shape":[3],"data_offsets":[24,36]},"h.1.w":{"dtype":"F32","shape":[3,2],"data_offsets":[36,60]},"h.1.b":{"dtype":"F32","shape":[3],"data_offsets":[60,72]}}"#;
    /// let mut file = (json.len() as u64).to_le_bytes().to_vec();
    /// file.extend_from_slice(json);
    /// file.extend_from_slice(&[0u8; 72]);
    /// let ckpt = shapes::Checkpoint::from_bytes(&file)?;
    /// let toml = shapes::Spec::infer(&ckpt)?.to_toml();
    /// assert!(toml.contains("\"h.{i}\" = { block = \"h\" }"), "{toml}");
    /// let spec = shapes::Spec::from_toml("written.toml", &toml)?;
    /// assert!(spec.check(&ckpt).ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn infer(ckpt: &Checkpoint) -> Result<InferredSpec, InferSpecError> {
        if ckpt.tensors().is_empty() {
            return Err(InferSpecError::Empty);
        }
        let folded = fold(ckpt.tensors());
        // The names rule 5 makes from module names could, in a rare checkpoint, look like a
        // typo of one another to the spec reader: then they are written as numbers.
        let written = |folded: &blocks::Folded| match Self::infer_with(ckpt, folded, true) {
            Err(InferSpecError::NotSelfConsistent(_)) => Self::infer_with(ckpt, folded, false),
            done => done,
        };
        match written(&folded) {
            // A spec with choices that does not pass: the one without them, whose blocks'
            // tensors are optional instead.
            Err(InferSpecError::NotSelfConsistent(_)) if !folded.choices.is_empty() => {
                written(&blocks::fold_lists(ckpt.tensors()).0)
            }
            done => done,
        }
    }

    /// [`infer`](Self::infer) from the folded tensors, the written spec read back and checked.
    fn infer_with(
        ckpt: &Checkpoint,
        folded: &blocks::Folded,
        share_biases: bool,
    ) -> Result<InferredSpec, InferSpecError> {
        let decided = dims::decide(folded, keys::Keys::of(ckpt), share_biases);
        let inferred = InferredSpec {
            name: ckpt
                .architecture()
                .map_or_else(|| "Model".to_owned(), camel),
            source: ckpt.format_and_files(),
            dtype: decided.dtype,
            given: decided.given,
            wheres: decided.wheres,
            config: decided.config,
            root: decided.root,
            blocks: decided.blocks,
            lists: decided.lists,
            choices: decided.choices,
        };
        let text = inferred.to_toml();
        let spec = Spec::from_toml("<written spec>", &text)
            .map_err(|e| InferSpecError::NotSelfConsistent(format!("does not load: {e}")))?;
        let report = spec.check(ckpt);
        if !report.ok() {
            let first = report.to_string();
            let first: String = first.lines().take(6).collect::<Vec<_>>().join("; ");
            return Err(InferSpecError::NotSelfConsistent(format!(
                "does not pass on it: {first}"
            )));
        }
        Ok(inferred)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A safetensors file of `tensors` (name, dtype, dims) in memory.
    fn ckpt(tensors: &[(&str, &str, &[usize])]) -> Checkpoint {
        let mut entries = Vec::new();
        let mut offset = 0usize;
        for (name, dtype, dims) in tensors {
            let size = match *dtype {
                "F16" => 2,
                "I64" => 8,
                _ => 4,
            };
            let bytes = dims.iter().product::<usize>() * size;
            let d: Vec<String> = dims.iter().map(ToString::to_string).collect();
            entries.push(format!(
                r#"{}:{{"dtype":"{dtype}","shape":[{}],"data_offsets":[{offset},{}]}}"#,
                serde_json::Value::from(*name),
                d.join(","),
                offset + bytes
            ));
            offset += bytes;
        }
        let json = format!("{{{}}}", entries.join(","));
        let mut file = (json.len() as u64).to_le_bytes().to_vec();
        file.extend_from_slice(json.as_bytes());
        file.resize(file.len() + offset, 0);
        Checkpoint::from_bytes(&file).expect("a checkpoint")
    }

    #[test]
    fn names_in_camel_case() {
        assert_eq!(camel("qwen3_moe"), "Qwen3Moe");
        assert_eq!(camel("LlamaForCausalLM"), "LlamaForCausalLM");
        assert_eq!(camel("3d-unet"), "M3dUnet");
        assert_eq!(camel("--"), "Model");
    }

    #[test]
    fn an_empty_checkpoint_is_an_error() {
        assert_eq!(Spec::infer(&ckpt(&[])).unwrap_err(), InferSpecError::Empty);
    }

    #[test]
    fn ranks_and_sizes_that_vary_and_odd_names_still_pass() {
        let c = ckpt(&[
            ("l.0.w", "F16", &[2, 3]),
            ("l.1.w", "F32", &[5, 3]),
            ("l.0.v", "F16", &[2]),
            ("l.1.v", "F16", &[2, 2]),
            ("l.1.only", "F16", &[7]),
            ("scalar", "I64", &[]),
            ("we\"ird\\name\n", "F16", &[1]),
            ("type", "F16", &[3]),
            ("0.x", "F16", &[3]),
        ]);
        let inferred = Spec::infer(&c).expect("a spec");
        let toml = inferred.to_toml();
        for line in [
            "\"w\" = { shape = \"(_, 3)\", dtype = [\"F16\", \"F32\"] }",
            "\"v\" = \"(...)\"",
            "\"only\" = { shape = \"(7,)\", optional = true }",
            "\"scalar\" = { shape = \"()\", dtype = \"I64\" }",
            "\"we\\\"ird\\\\name\\u000A\" = \"(1,)\"",
        ] {
            assert!(toml.lines().any(|l| l == line), "no {line:?} in\n{toml}");
        }
        let rust = inferred.to_rust();
        assert!(rust.contains("    pub type_: T,\n"), "{rust}");
        assert!(rust.contains("name = \"we\\\"ird\\\\name\\n\""), "{rust}");
        assert!(rust.contains("    pub only: Option<T>,\n"), "{rust}");
    }

    #[test]
    fn a_name_a_spec_reads_as_a_placeholder_is_an_error_not_a_wrong_spec() {
        let c = ckpt(&[("a.{x}.w", "F16", &[2]), ("b", "F16", &[2])]);
        let e = Spec::infer(&c).unwrap_err();
        assert!(matches!(e, InferSpecError::NotSelfConsistent(_)), "{e}");
        assert!(e.to_string().contains("placeholder"), "{e}");
    }

    #[test]
    fn module_names_the_reader_takes_for_typos_are_written_as_numbers() {
        // `proj` and `porj` differ by a swap and never meet: the spec reader would take one
        // for a typo of the other.
        let c = ckpt(&[
            ("proj.weight", "F16", &[5, 3]),
            ("proj.bias", "F16", &[5]),
            ("l.0.porj.weight", "F16", &[7, 3]),
            ("l.0.porj.bias", "F16", &[7]),
            ("l.1.porj.weight", "F16", &[7, 3]),
            ("l.1.porj.bias", "F16", &[7]),
        ]);
        let toml = Spec::infer(&c).expect("a spec").to_toml();
        assert!(toml.contains("\"porj.bias\" = \"(7,)\""), "{toml}");
        assert!(toml.contains("\"proj.bias\" = \"(5,)\""), "{toml}");
        // Apart, each keeps its variable.
        let c = ckpt(&[("proj.weight", "F16", &[5, 3]), ("proj.bias", "F16", &[5])]);
        let toml = Spec::infer(&c).expect("a spec").to_toml();
        assert!(toml.contains("\"proj.bias\" = \"(proj,)\""), "{toml}");
    }

    #[test]
    fn deep_indices_are_bounded() {
        let deep = format!("a{}.w", ".0.b".repeat(10_000));
        let c = ckpt(&[(deep.as_str(), "F16", &[2])]);
        let toml = Spec::infer(&c).expect("a spec").to_toml();
        assert_eq!(toml.matches("[blocks.").count(), 8, "{toml}");
    }
}
