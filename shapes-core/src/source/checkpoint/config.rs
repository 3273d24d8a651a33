//! The `config.json` beside the weights, and the keys a checkpoint states: THE config lookup,
//! used by derived structs' `config(...)`, spec files and the `shapes` command alike.
//!
//! The rules, decided once:
//! - the `config.json` first, then the weights file's own metadata (GGUF key/value pairs,
//!   safetensors `__metadata__`);
//! - in the config, a top-level key as written is tried before a dotted path through nested
//!   objects (`text_config.hidden_size`);
//! - `{arch}` stands for the architecture: GGUF `general.architecture`, else the config's
//!   `model_type`, else its first `architectures` entry; with none, a key holding `{arch}` is
//!   not found;
//! - a list states its length (a vocabulary's tokens, a forecaster's quantiles), in JSON and in
//!   GGUF alike; JSON `null` states nothing; a string is shown quoted, as it is written.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Checkpoint, CheckpointError};
use crate::source::{ConfigEntry, ConfigPlace, ConfigValue, GgufValue};

/// The largest `config.json` read: 16 MiB (real ones are a few KB).
pub(super) const MAX_CONFIG_LEN: u64 = 16 << 20;

/// Reads a JSON file of at most `limit` bytes.
pub(super) fn read_json(path: &Path, limit: u64) -> Result<serde_json::Value, CheckpointError> {
    let bytes = read_limited(path, limit)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| CheckpointError::malformed(path, format!("malformed JSON: {e}")))
}

/// The bytes of a file of at most `limit` bytes (a JSON file of a checkpoint).
pub(super) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, CheckpointError> {
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
    Ok(bytes)
}

/// The `config.json` in `dir`, when there is one.
pub(super) fn beside(dir: &Path) -> Result<Option<(PathBuf, serde_json::Value)>, CheckpointError> {
    let path = dir.join("config.json");
    if !path.is_file() {
        return Ok(None);
    }
    read_config(&path).map(Some)
}

/// A config file: JSON, at most [`MAX_CONFIG_LEN`] bytes, an object.
pub(super) fn read_config(path: &Path) -> Result<(PathBuf, serde_json::Value), CheckpointError> {
    if !std::fs::metadata(path)
        .map_err(|e| CheckpointError::io(path, e))?
        .is_file()
    {
        return Err(CheckpointError::malformed(
            path,
            "not a regular file: a config is a JSON file",
        ));
    }
    let value = read_json(path, MAX_CONFIG_LEN)?;
    if !value.is_object() {
        return Err(CheckpointError::malformed(
            path,
            "a config must be a JSON object",
        ));
    }
    Ok((path.to_owned(), value))
}

/// What `ckpt` states under `key`: see [`ShapeSource::config`](crate::ShapeSource::config).
pub(super) fn lookup(ckpt: &Checkpoint, key: &str) -> Option<ConfigEntry> {
    let key = if key.contains("{arch}") {
        key.replace("{arch}", ckpt.architecture()?)
    } else {
        key.to_owned()
    };
    if let Some(value) = ckpt
        .config_json()
        .and_then(|c| json_at(c, &key))
        .and_then(from_json)
    {
        return Some(ConfigEntry {
            key,
            value,
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

/// The most edits between a key and the key it is taken for a misspelling of: two, and no
/// more than a quarter of the key's characters (at least one), so that `n_head` and
/// `n_embd` stay two keys.
fn near_limit(key: &str) -> usize {
    (key.chars().count() / 4).clamp(1, 2)
}

/// For a `key` `ckpt` does not state, the key it states closest to it, within
/// [`near_limit`] edits, with its value: see
/// [`ShapeSource::config_near`](crate::ShapeSource::config_near). The candidates are the
/// config's keys (top-level, and one level down as `outer.inner`), then the metadata's.
pub(super) fn near(ckpt: &Checkpoint, key: &str) -> Option<ConfigEntry> {
    if lookup(ckpt, key).is_some() {
        return None;
    }
    let key = if key.contains("{arch}") {
        key.replace("{arch}", ckpt.architecture()?)
    } else {
        key.to_owned()
    };
    let mut candidates: Vec<String> = Vec::new();
    if let Some(serde_json::Value::Object(top)) = ckpt.config_json() {
        for (k, v) in top {
            candidates.push(k.clone());
            if let serde_json::Value::Object(inner) = v {
                candidates.extend(inner.keys().map(|i| format!("{k}.{i}")));
            }
        }
    }
    if let Some(h) = ckpt.gguf.as_ref() {
        candidates.extend(h.metadata().iter().map(|(k, _)| k.clone()));
    }
    candidates.extend(ckpt.metadata.keys().cloned());
    let limit = near_limit(&key);
    let best = candidates
        .iter()
        .map(|c| (crate::text::const_distance(&key, c), c))
        .filter(|(d, _)| *d >= 1 && *d <= limit)
        .min_by_key(|(d, _)| *d)?
        .1;
    lookup(ckpt, best)
}

/// `key` in `config`: a top-level key as is, else a dotted path through nested objects.
fn json_at<'a>(config: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    if let Some(v) = config.get(key) {
        return Some(v);
    }
    key.split('.').try_fold(config, |v, part| v.get(part))
}

/// What a JSON value states: `None` for `null`.
fn from_json(v: &serde_json::Value) -> Option<ConfigValue> {
    use serde_json::Value;
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => ConfigValue::Bool(*b),
        Value::Number(n) => match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) => ConfigValue::Size(n),
            None => ConfigValue::Other(n.to_string()),
        },
        Value::Array(a) => ConfigValue::Size(a.len()),
        Value::String(s) => ConfigValue::Other(format!("{s:?}")),
        Value::Object(_) => ConfigValue::Other("{…}".into()),
    })
}

fn from_gguf(v: &GgufValue) -> ConfigValue {
    if let Some(n) = v.as_array().and_then(|a| usize::try_from(a.len()).ok()) {
        return ConfigValue::Size(n);
    }
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
