//! The `config.json` beside the weights, and the keys a checkpoint states: looked up in that
//! config first (a dotted key reaches into nested objects), then in the weights file's own
//! metadata, with `{arch}` standing for the architecture.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Checkpoint, CheckpointError};
use crate::source::{ConfigEntry, ConfigPlace, ConfigValue, GgufValue};

/// The largest `config.json` read: 16 MiB (real ones are a few KB).
pub(super) const MAX_CONFIG_LEN: u64 = 16 << 20;

/// Reads a JSON file of at most `limit` bytes.
pub(super) fn read_json(path: &Path, limit: u64) -> Result<serde_json::Value, CheckpointError> {
    let file = std::fs::File::open(path).map_err(|e| CheckpointError::io(path, e))?;
    let len = file
        .metadata()
        .map_err(|e| CheckpointError::io(path, e))?
        .len();
    if len > limit {
        return Err(CheckpointError::malformed(
            path,
            format!("{len} bytes, over the {limit}-byte limit for a JSON file of a checkpoint"),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| CheckpointError::io(path, e))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| CheckpointError::malformed(path, format!("malformed JSON: {e}")))
}

/// The `config.json` in `dir`, when there is one.
pub(super) fn beside(dir: &Path) -> Result<Option<(PathBuf, serde_json::Value)>, CheckpointError> {
    let path = dir.join("config.json");
    if !path.is_file() {
        return Ok(None);
    }
    let value = read_json(&path, MAX_CONFIG_LEN)?;
    if !value.is_object() {
        return Err(CheckpointError::malformed(
            &path,
            "a config must be a JSON object",
        ));
    }
    Ok(Some((path, value)))
}

/// What `ckpt` states under `key`: see [`ShapeSource::config`](crate::ShapeSource::config).
pub(super) fn lookup(ckpt: &Checkpoint, key: &str) -> Option<ConfigEntry> {
    let key = if key.contains("{arch}") {
        key.replace("{arch}", ckpt.architecture()?)
    } else {
        key.to_owned()
    };
    if let Some(value) = ckpt.config_json().and_then(|c| json_at(c, &key)) {
        return Some(ConfigEntry {
            key,
            value: from_json(value),
            place: ConfigPlace::ConfigJson,
        });
    }
    let value = match ckpt.gguf.as_ref().and_then(|h| h.meta(&key)) {
        Some(v) => from_gguf(v),
        None => from_text(ckpt.metadata.get(&key)?),
    };
    Some(ConfigEntry {
        key,
        value,
        place: ConfigPlace::Metadata,
    })
}

/// `key` in `config`: a top-level key as is, else a dotted path through nested objects.
fn json_at<'a>(config: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    if let Some(v) = config.get(key) {
        return Some(v);
    }
    key.split('.').try_fold(config, |v, part| v.get(part))
}

fn from_json(v: &serde_json::Value) -> ConfigValue {
    match v {
        serde_json::Value::Bool(b) => ConfigValue::Bool(*b),
        serde_json::Value::Number(n) => match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) => ConfigValue::Size(n),
            None => ConfigValue::Other(n.to_string()),
        },
        other => ConfigValue::Other(other.to_string()),
    }
}

fn from_gguf(v: &GgufValue) -> ConfigValue {
    if let Some(b) = v.as_bool() {
        return ConfigValue::Bool(b);
    }
    match v.as_usize() {
        Some(n) => ConfigValue::Size(n),
        None => ConfigValue::Other(match v.as_str() {
            Some(s) => format!("{s:?}"),
            None => format!("{v:?}"),
        }),
    }
}

fn from_text(s: &str) -> ConfigValue {
    match s {
        "true" | "True" => ConfigValue::Bool(true),
        "false" | "False" => ConfigValue::Bool(false),
        _ => match s.parse::<usize>() {
            Ok(n) => ConfigValue::Size(n),
            Err(_) => ConfigValue::Other(format!("{s:?}")),
        },
    }
}
