//! Opening a checkpoint: the one place that knows about files. `Checkpoint::open` reads every
//! format (safetensors, sharded by index or directory, GGUF and split GGUF, `.npz`, PyTorch
//! zip); this module adds `--config` and answers the keys a spec binds variables from.

use std::path::{Path, PathBuf};

use serde_json::Value;
use shapes::{
    Checkpoint, CheckpointFormat, ConfigEntry, ConfigPlace, ConfigValue, GgufValue, ShapeSource,
};

/// One tensor as `inspect` lists it.
pub struct TensorInfo<'a> {
    pub name: &'a str,
    pub dtype: &'a str,
    pub shape: &'a [usize],
}

/// An opened checkpoint, and the `config.json` given with `--config`, if any.
pub struct Opened {
    pub path: PathBuf,
    pub ckpt: Checkpoint,
    config: Option<(PathBuf, Value)>,
}

impl ShapeSource for Opened {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.ckpt.shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.ckpt.tensor_names()
    }
    fn config(&self, key: &str) -> Option<ConfigEntry> {
        self.lookup(key)
    }
}

/// A source that hides some keys: the check without one stated value.
pub struct Without<'a> {
    pub opened: &'a Opened,
    pub keys: &'a [String],
}

impl ShapeSource for Without<'_> {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.opened.shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.opened.tensor_names()
    }
    fn config(&self, key: &str) -> Option<ConfigEntry> {
        if self.keys.iter().any(|k| k == key) {
            return None;
        }
        self.opened.lookup(key)
    }
}

impl Opened {
    /// The format's name, and the number of files when there are several.
    pub fn format(&self) -> String {
        match self.ckpt.files().len() {
            0 | 1 => self.ckpt.format().to_string(),
            n => format!("{}, {n} files", self.ckpt.format()),
        }
    }

    /// Whether tensor names follow GGUF's scheme (`blk.0.attn_q.weight`).
    pub fn is_gguf(&self) -> bool {
        matches!(
            self.ckpt.format(),
            CheckpointFormat::Gguf | CheckpointFormat::SplitGguf
        )
    }

    /// Every tensor, in the files' order.
    pub fn tensors(&self) -> Vec<TensorInfo<'_>> {
        self.ckpt
            .tensors()
            .iter()
            .map(|t| TensorInfo {
                name: &t.name,
                dtype: &t.dtype,
                shape: t.shape.dims(),
            })
            .collect()
    }

    /// The config.json read: the one given with `--config`, else the one beside the weights.
    pub fn config_json(&self) -> Option<(&Path, &Value)> {
        match &self.config {
            Some((p, v)) => Some((p, v)),
            None => Some((self.ckpt.config_path()?, self.ckpt.config_json()?)),
        }
    }

    /// The metadata worth showing: safetensors' `__metadata__`, GGUF's `general.*` and
    /// architecture keys (arrays by their length: a vocabulary is 50k strings).
    pub fn metadata(&self) -> Vec<(String, String)> {
        if self.is_gguf() {
            let arch = self.ckpt.architecture().map(|a| format!("{a}."));
            return self
                .ckpt
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
        self.ckpt
            .metadata()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The architecture the file or its config names: GGUF `general.architecture`, else
    /// config.json's `model_type`, else its first `architectures` entry.
    pub fn architecture(&self) -> Option<String> {
        if self.is_gguf()
            && let Some(a) = self.ckpt.architecture()
        {
            return Some(a.to_owned());
        }
        let (_, config) = self.config_json()?;
        if let Some(t) = config.get("model_type").and_then(Value::as_str) {
            return Some(t.to_owned());
        }
        config
            .get("architectures")
            .and_then(|a| a.get(0))
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// What the checkpoint states under `key`: the config.json (a dotted key reaches into
    /// nested objects), else the GGUF metadata (`{arch}` is `general.architecture`), else
    /// safetensors `__metadata__`. A list states its length (a vocabulary's tokens, the
    /// quantiles of a forecaster); `null` states nothing.
    pub fn lookup(&self, key: &str) -> Option<ConfigEntry> {
        let arch = self.architecture();
        let key = match &arch {
            Some(a) => key.replace("{arch}", a),
            None => key.to_owned(),
        };
        if let Some((_, config)) = self.config_json() {
            let mut v = Some(config);
            for part in key.split('.') {
                v = v.and_then(|v| v.get(part));
            }
            if let Some(value) = v.and_then(json_value) {
                return Some(ConfigEntry {
                    key,
                    value,
                    place: ConfigPlace::ConfigJson,
                });
            }
        }
        let value = if self.is_gguf() {
            let (_, v) = self.ckpt.gguf_metadata().iter().find(|(k, _)| *k == key)?;
            match v.as_array() {
                Some(a) => ConfigValue::Size(usize::try_from(a.len()).ok()?),
                None => match (v.as_bool(), v.as_usize()) {
                    (Some(b), _) => ConfigValue::Bool(b),
                    (None, Some(n)) => ConfigValue::Size(n),
                    (None, None) => ConfigValue::Other(gguf_text(v)),
                },
            }
        } else {
            match self.ckpt.metadata().get(&key)?.as_str() {
                "true" => ConfigValue::Bool(true),
                "false" => ConfigValue::Bool(false),
                s => match s.parse() {
                    Ok(n) => ConfigValue::Size(n),
                    Err(_) => ConfigValue::Other(s.to_owned()),
                },
            }
        };
        Some(ConfigEntry {
            key,
            value,
            place: ConfigPlace::Metadata,
        })
    }

    /// The size stated under the first of `keys` that has one.
    pub fn stated_size(&self, keys: &[String]) -> Option<(usize, ConfigEntry)> {
        keys.iter().find_map(|k| {
            let e = self.lookup(k)?;
            match e.value {
                ConfigValue::Size(n) => Some((n, e)),
                _ => None,
            }
        })
    }
}

fn json_value(v: &Value) -> Option<ConfigValue> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(ConfigValue::Bool(*b)),
        Value::Array(a) => Some(ConfigValue::Size(a.len())),
        Value::Number(n) => Some(
            n.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map_or_else(|| ConfigValue::Other(n.to_string()), ConfigValue::Size),
        ),
        Value::String(s) => Some(ConfigValue::Other(s.clone())),
        Value::Object(_) => Some(ConfigValue::Other("{…}".into())),
    }
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

/// Opens `path` (anything `Checkpoint::open` takes), with `config` instead of the config.json
/// beside the weights when given.
pub fn open(path: &Path, config: Option<&Path>) -> Result<Opened, String> {
    let ckpt = Checkpoint::open(path).map_err(|e| e.to_string())?;
    let config = match config {
        Some(c) => {
            let text = std::fs::read_to_string(c).map_err(|e| format!("{}: {e}", c.display()))?;
            let value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", c.display()))?;
            Some((c.to_owned(), value))
        }
        None => None,
    };
    Ok(Opened {
        path: path.to_owned(),
        ckpt,
        config,
    })
}
