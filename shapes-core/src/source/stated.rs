//! What a checkpoint states about itself under a key: `hidden_size = 768` in its
//! `config.json`, `llama.embedding_length = 4096` in a GGUF file's metadata. A
//! [`ShapeSource`](super::ShapeSource) answers [`config`](super::ShapeSource::config) with
//! one, and `verify_source` binds the variables a struct or plan ties to keys from it.

use core::fmt;

/// Where a checkpoint states a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigPlace {
    /// The `config.json` beside the weights.
    ConfigJson,
    /// The weights file's own metadata (GGUF key/value pairs, safetensors `__metadata__`).
    Metadata,
}

impl fmt::Display for ConfigPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigPlace::ConfigJson => "config",
            ConfigPlace::Metadata => "metadata",
        })
    }
}

/// A value found under a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigValue {
    /// A non-negative integer that fits in `usize`.
    Size(usize),
    /// `true` or `false`.
    Bool(bool),
    /// Anything else (a string, a float, a negative number, a list), as written.
    Other(String),
}

impl fmt::Display for ConfigValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigValue::Size(n) => write!(f, "{n}"),
            ConfigValue::Bool(b) => write!(f, "{b}"),
            ConfigValue::Other(s) => f.write_str(s),
        }
    }
}

/// A key a checkpoint states, with its value and where it was found.
///
/// ```
/// use shapes::checkpoint::{ConfigEntry, ConfigPlace, ConfigValue};
/// let e = ConfigEntry {
///     key: "hidden_size".into(),
///     value: ConfigValue::Size(768),
///     place: ConfigPlace::ConfigJson,
/// };
/// assert_eq!(e.to_string(), "config `hidden_size` = 768");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The key as found, `{arch}` already replaced (`llama.embedding_length`).
    pub key: String,
    /// Its value.
    pub value: ConfigValue,
    /// Where it was found.
    pub place: ConfigPlace,
}

impl fmt::Display for ConfigEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}` = {}", self.place, self.key, self.value)
    }
}
