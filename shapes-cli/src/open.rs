//! Opening a checkpoint: the one place that knows the file formats. Everything else sees a
//! [`Opened`]: a `ShapeSource`, each tensor's dtype, the metadata and the config beside it.

use std::path::{Path, PathBuf};

use serde_json::Value;
use shapes::{GgufHeader, GgufValue, SafetensorsHeader, ShapeSource};

/// The tensors of a checkpoint, read from its header.
pub enum Header {
    /// A safetensors file.
    Safetensors(SafetensorsHeader),
    /// A GGUF file.
    Gguf(GgufHeader),
}

impl ShapeSource for Header {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        match self {
            Header::Safetensors(h) => h.shape_of(name),
            Header::Gguf(h) => h.shape_of(name),
        }
    }
    fn tensor_names(&self) -> Vec<&str> {
        match self {
            Header::Safetensors(h) => h.tensor_names(),
            Header::Gguf(h) => h.tensor_names(),
        }
    }
}

/// One tensor as `inspect` lists it.
pub struct TensorInfo<'a> {
    pub name: &'a str,
    pub dtype: String,
    pub shape: &'a [usize],
}

/// An opened checkpoint.
pub struct Opened {
    pub path: PathBuf,
    pub header: Header,
    /// `config.json` beside the weights (or the one given with `--config`).
    pub config: Option<(PathBuf, Value)>,
}

impl Opened {
    /// The format's name, as `inspect` prints it.
    pub fn format(&self) -> String {
        match &self.header {
            Header::Safetensors(_) => "safetensors".into(),
            Header::Gguf(h) => format!("GGUF v{}", h.version()),
        }
    }

    /// Whether tensor names follow GGUF's scheme (`blk.0.attn_q.weight`).
    pub fn is_gguf(&self) -> bool {
        matches!(self.header, Header::Gguf(_))
    }

    /// Every tensor, in the file's order.
    pub fn tensors(&self) -> Vec<TensorInfo<'_>> {
        match &self.header {
            Header::Safetensors(h) => h
                .tensors()
                .iter()
                .map(|t| TensorInfo {
                    name: &t.name,
                    dtype: format!("{:?}", t.dtype),
                    shape: t.shape.dims(),
                })
                .collect(),
            Header::Gguf(h) => h
                .tensors()
                .iter()
                .map(|t| TensorInfo {
                    name: &t.name,
                    dtype: t
                        .ggml_type
                        .name()
                        .map_or_else(|| format!("type {}", t.ggml_type.0), str::to_owned),
                    shape: t.shape.dims(),
                })
                .collect(),
        }
    }

    /// The metadata worth showing: safetensors' `__metadata__`, GGUF's `general.*` and
    /// architecture keys (arrays by their length: a vocabulary is 50k strings).
    pub fn metadata(&self) -> Vec<(String, String)> {
        match &self.header {
            Header::Safetensors(h) => h
                .metadata()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            Header::Gguf(h) => {
                let arch = h.architecture().map(|a| format!("{a}."));
                h.metadata()
                    .iter()
                    .filter(|(k, _)| {
                        k.starts_with("general.")
                            || arch.as_deref().is_some_and(|a| k.starts_with(a))
                            || k.starts_with("tokenizer.ggml.tokens")
                    })
                    .map(|(k, v)| (k.clone(), gguf_text(v)))
                    .collect()
            }
        }
    }

    /// The architecture the file or its config names: GGUF `general.architecture`, else
    /// config.json's `model_type`, else its first `architectures` entry.
    pub fn architecture(&self) -> Option<String> {
        if let Header::Gguf(h) = &self.header
            && let Some(a) = h.architecture()
        {
            return Some(a.to_owned());
        }
        let (_, config) = self.config.as_ref()?;
        if let Some(t) = config.get("model_type").and_then(Value::as_str) {
            return Some(t.to_owned());
        }
        config
            .get("architectures")
            .and_then(|a| a.get(0))
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// The value a key states, for binding a variable: a config.json key (a dotted path into
    /// nested objects), else GGUF metadata (`{arch}` replaced by `general.architecture`), else
    /// safetensors `__metadata__`. A list or an array states its length.
    pub fn lookup(&self, key: &str) -> Option<Lookup> {
        if let Some((path, config)) = &self.config {
            let mut v = Some(config);
            for part in key.split('.') {
                v = v.and_then(|v| v.get(part));
            }
            if let Some(v) = v {
                let file = path
                    .file_name()
                    .map_or_else(|| path.display().to_string(), |f| f.display().to_string());
                return json_value(v).map(|value| Lookup {
                    value,
                    source: format!("{file} `{key}`"),
                });
            }
        }
        match &self.header {
            Header::Gguf(h) => {
                let key = match h.architecture() {
                    Some(a) => key.replace("{arch}", a),
                    None => key.to_owned(),
                };
                let v = h.meta(&key)?;
                let value = match v.as_array() {
                    Some(a) => Stated::Size(usize::try_from(a.len()).ok()?),
                    None => match v.as_bool() {
                        Some(b) => Stated::Bool(b),
                        None => Stated::Size(v.as_usize()?),
                    },
                };
                Some(Lookup {
                    value,
                    source: format!("GGUF `{key}`"),
                })
            }
            Header::Safetensors(h) => {
                let v = h.metadata().get(key)?;
                let value = match v.as_str() {
                    "true" => Stated::Bool(true),
                    "false" => Stated::Bool(false),
                    s => Stated::Size(s.parse().ok()?),
                };
                Some(Lookup {
                    value,
                    source: format!("__metadata__ `{key}`"),
                })
            }
        }
    }
}

/// What a key states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stated {
    /// A size (or a list's length).
    Size(usize),
    /// A flag (`tie_word_embeddings`).
    Bool(bool),
}

/// A value found for a key, and where (`config.json `hidden_size``).
#[derive(Debug, Clone)]
pub struct Lookup {
    pub value: Stated,
    pub source: String,
}

fn json_value(v: &Value) -> Option<Stated> {
    match v {
        Value::Bool(b) => Some(Stated::Bool(*b)),
        Value::Array(a) => Some(Stated::Size(a.len())),
        Value::Number(n) => n
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Stated::Size),
        _ => None,
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

/// Opens `path`: detects the format from the first bytes (GGUF's magic, else a safetensors
/// header), and reads `config` or a `config.json` beside the file.
pub fn open(path: &Path, config: Option<&Path>) -> Result<Opened, String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!(
            "{shown}: a directory; give the checkpoint file (.safetensors or .gguf)"
        ));
    }
    let mut magic = [0u8; 4];
    {
        use std::io::Read;
        let mut f = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
        let n = f.read(&mut magic).map_err(|e| format!("{shown}: {e}"))?;
        if n < 4 {
            return Err(format!(
                "{shown}: not a checkpoint ({n} bytes; expected a safetensors or GGUF file)"
            ));
        }
    }
    let header = if &magic == b"GGUF" {
        Header::Gguf(GgufHeader::read_path(path).map_err(|e| format!("{shown}: GGUF: {e}"))?)
    } else {
        Header::Safetensors(SafetensorsHeader::read_path(path).map_err(|e| {
            format!("{shown}: not a checkpoint this tool reads (not GGUF, and as safetensors: {e})")
        })?)
    };
    let config = match config {
        Some(c) => Some(read_config(c)?),
        None => {
            let beside = path
                .parent()
                .map_or_else(|| PathBuf::from("config.json"), |p| p.join("config.json"));
            if beside.is_file() {
                Some(read_config(&beside)?)
            } else {
                None
            }
        }
    };
    Ok(Opened {
        path: path.to_owned(),
        header,
        config,
    })
}

fn read_config(path: &Path) -> Result<(PathBuf, Value), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((path.to_owned(), value))
}
