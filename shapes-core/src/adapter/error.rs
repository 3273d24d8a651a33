//! [`AdapterError`]: why an adapter directory cannot be checked.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::source::CheckpointError;
use crate::text::escape;

/// Why a PEFT adapter cannot be checked: its directory, its `adapter_config.json` or its
/// weights file. Its `Debug` reads like its `Display`.
///
/// ```
/// let e = shapes::adapter::Adapter::open("/nonexistent/adapter").unwrap_err();
/// assert!(e.to_string().contains("adapter_config.json"));
/// assert_eq!(format!("{e:?}"), e.to_string());
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum AdapterError {
    /// The directory holds no `adapter_config.json`.
    #[error(
        "{}: no adapter_config.json: a PEFT adapter is a directory holding adapter_config.json and adapter_model.safetensors (or adapter_model.bin)",
        escape(&.0.display().to_string())
    )]
    NotAnAdapter(PathBuf),
    /// `adapter_config.json` cannot be read, or says something this checker refuses.
    #[error("{}: {reason}", escape(&file.display().to_string()))]
    Config {
        /// The file.
        file: PathBuf,
        /// What is wrong, and what to write instead.
        reason: String,
    },
    /// The directory holds neither `adapter_model.safetensors` nor `adapter_model.bin`.
    #[error(
        "{}: no adapter_model.safetensors or adapter_model.bin beside adapter_config.json",
        escape(&.0.display().to_string())
    )]
    NoWeights(PathBuf),
    /// The weights file cannot be read.
    #[error("{0}")]
    Weights(CheckpointError),
}

impl AdapterError {
    pub(crate) fn config(file: &Path, reason: impl Into<String>) -> AdapterError {
        AdapterError::Config {
            file: file.to_path_buf(),
            reason: reason.into(),
        }
    }
}

impl fmt::Debug for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
