//! Opening a checkpoint as the command's flags say (`--config`), and the metadata `inspect`
//! shows. Everything else about a checkpoint (its formats, its config lookup) is the
//! library's.

use std::path::Path;

use shapes::{Checkpoint, checkpoint::GgufValue, spec::Naming};

/// Opens `path` (anything `Checkpoint::open` takes), with `config` instead of the config.json
/// beside the weights when given.
pub fn open(path: &Path, config: Option<&Path>) -> Result<Checkpoint, String> {
    let ckpt = Checkpoint::open(path).map_err(|e| e.to_string())?;
    match config {
        Some(c) => ckpt.with_config(c).map_err(|e| format!("--config: {e}")),
        None => Ok(ckpt),
    }
}

/// The metadata worth showing: safetensors' `__metadata__`, GGUF's `general.*` and
/// architecture keys (arrays by their length: a vocabulary is 50k strings).
pub fn metadata(ckpt: &Checkpoint) -> Vec<(String, String)> {
    if Naming::of(ckpt) == Naming::Gguf {
        let arch = ckpt.architecture().map(|a| format!("{a}."));
        return ckpt
            .gguf_metadata()
            .iter()
            .filter(|(k, _)| {
                k.starts_with("general.")
                    || arch.as_deref().is_some_and(|a| k.starts_with(a))
                    || k == "tokenizer.ggml.tokens"
            })
            .map(|(k, v)| (k.clone(), gguf_text(v)))
            .collect();
    }
    ckpt.metadata()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn gguf_text(v: &GgufValue) -> String {
    if let Some(a) = v.as_array() {
        return format!("[{} × {:?}]", a.len(), a.elem_type());
    }
    if let Some(s) = v.as_str() {
        return s.to_owned();
    }
    if let Some(b) = v.as_bool() {
        return b.to_string();
    }
    if let Some(n) = v.as_i64() {
        return n.to_string();
    }
    if let Some(x) = v.as_f64() {
        return x.to_string();
    }
    format!("{v:?}")
}
