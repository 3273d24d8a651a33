//! `shapes check ADAPTER_DIR --base BASE`: a PEFT LoRA adapter against the checkpoint it was
//! trained on. The checks and the report are the library's (`shapes::adapter`); this finds
//! the base (`--base`, else the config's `base_model_name_or_path` when it is a local path).

use std::path::Path;

use shapes::adapter::Adapter;
use shapes::report::Report;
use shapes::text::escape;

use crate::{Fail, open};

/// Checks the adapter in `dir` against `base` (or the local base its config names), the base
/// opened with `config` instead of the config.json beside it when given.
pub fn check(dir: &Path, base: Option<&Path>, config: Option<&Path>) -> Result<Report, Fail> {
    if !Adapter::is_adapter_dir(dir) {
        return Err(Fail(format!(
            "{}: --base checks a PEFT adapter directory, one holding adapter_config.json and adapter_model.safetensors; this is not one",
            escape(&dir.display().to_string())
        )));
    }
    let adapter = Adapter::open(dir).map_err(|e| Fail(e.to_string()))?;
    let found;
    let base = match base {
        Some(b) => b,
        None => match adapter.local_base() {
            Some(b) => {
                found = b;
                &found
            }
            None => {
                let named = match adapter.base_name() {
                    Some(n) => format!(
                        "its adapter_config.json names the base model `{}`, which is not a local path",
                        escape(n)
                    ),
                    None => "its adapter_config.json names no base model".into(),
                };
                return Err(Fail(format!(
                    "{}: {named}: give --base PATH, the checkpoint the adapter was trained on",
                    escape(&dir.display().to_string())
                )));
            }
        },
    };
    let base = open::open(base, config).map_err(|e| Fail(format!("--base: {e}")))?;
    Ok(adapter.check(&base))
}
