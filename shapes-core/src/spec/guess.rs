//! Which built-in architecture a checkpoint that names none is, from its tensor names: what
//! `shapes inspect` says of a bare safetensors file without its `config.json`.

use super::{Naming, Spec};
use crate::source::{Checkpoint, SortedNames};
use crate::verify::Fit;

impl Spec {
    /// The built-in architecture whose tensors `ckpt` has, when it names none itself (no
    /// GGUF `general.architecture`, no `config.json`): every tensor the built-in spec needs
    /// is there and no list of layers is empty; of several, the one that leaves the fewest
    /// tensors undescribed. Sizes are not compared: without a config some may be unknown.
    /// `None` when no built-in fits.
    ///
    /// ```
    /// use shapes::{Checkpoint, Spec};
    /// # let dir = std::env::temp_dir().join(format!("shapes-doc-guess-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let path = dir.join("model.safetensors");
    /// // The tensors of a 1-layer BERT, without its config.json.
    /// let mut names = vec![
    ///     "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
    ///     "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
    ///     "embeddings.LayerNorm.bias",
    /// ];
    /// let layer = [
    ///     "attention.self.query.weight", "attention.self.query.bias", "attention.self.key.weight",
    ///     "attention.self.key.bias", "attention.self.value.weight", "attention.self.value.bias",
    ///     "attention.output.dense.weight", "attention.output.dense.bias",
    ///     "attention.output.LayerNorm.weight", "attention.output.LayerNorm.bias",
    ///     "intermediate.dense.weight", "intermediate.dense.bias", "output.dense.weight",
    ///     "output.dense.bias", "output.LayerNorm.weight", "output.LayerNorm.bias",
    /// ];
    /// let layer: Vec<String> = layer.iter().map(|n| format!("encoder.layer.0.{n}")).collect();
    /// names.extend(layer.iter().map(String::as_str));
    /// let entries: Vec<String> = names.iter().enumerate().map(|(i, n)| {
    ///     format!(r#""{n}":{{"dtype":"F32","shape":[2],"data_offsets":[{},{}]}}"#, 8 * i, 8 * i + 8)
    /// }).collect();
    /// let header = format!("{{{}}}", entries.join(","));
    /// let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    /// bytes.extend(header.as_bytes());
    /// bytes.extend(vec![0u8; 8 * names.len()]);
    /// # std::fs::write(&path, bytes).unwrap();
    /// let ckpt = Checkpoint::open(&path)?;
    /// assert_eq!(ckpt.architecture(), None);
    /// assert_eq!(Spec::guess(&ckpt), Some("bert"));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn guess(ckpt: &Checkpoint) -> Option<&'static str> {
        let naming = Naming::of(ckpt);
        // The names sorted once for every spec tried (each check would sort them again).
        let src = SortedNames::new(ckpt);
        let mut best: Option<(&'static str, usize)> = None;
        // Aliases share a spec (`mistral` is `llama`'s): each spec is tried once.
        let mut tried: Vec<String> = Vec::new();
        for name in Self::builtin_names() {
            let Some(spec) = Spec::builtin(name, naming) else {
                continue;
            };
            if tried.iter().any(|f| f == spec.file()) {
                continue;
            }
            tried.push(spec.file().to_owned());
            // A strict check's verdict without its report (no did-you-mean, no list of
            // the undescribed tensors): the guess only counts them.
            match spec.plan_for(&src).fit(&src) {
                Fit::Passes => return Some(name),
                Fit::Absent => {}
                Fit::Partly(undescribed) => {
                    if best.is_none_or(|(_, u)| undescribed < u) {
                        best = Some((name, undescribed));
                    }
                }
            }
        }
        best.map(|(name, _)| name)
    }
}
