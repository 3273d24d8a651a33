//! [`CheckpointError`]: why a checkpoint could not be opened, naming the file and what is
//! wrong with it.

use std::fmt;
use std::path::PathBuf;

use crate::source::{GgufError, SafetensorsError};
use crate::text::quoted;

/// Why [`Checkpoint::open`](super::Checkpoint::open) failed. Every variant names the file
/// and, where there is one, the tensor or shard.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A safetensors file's header is bad.
    #[error("{}: {source}", path.display())]
    Safetensors {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: SafetensorsError,
    },
    /// A GGUF file's header is bad.
    #[error("{}: {source}", path.display())]
    Gguf {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: GgufError,
    },
    /// Neither the file's name nor its first bytes say which format it is, or a directory
    /// holds no weights.
    #[error("{}: {detail}", path.display())]
    Unrecognized {
        /// The file or directory.
        path: PathBuf,
        /// What was looked for.
        detail: String,
    },
    /// A format that is recognized but not read (PyTorch's legacy non-zip format).
    #[error("{}: {detail}", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What the format is and what to do instead.
        detail: String,
    },
    /// A file is malformed: a sharded checkpoint's index, a `config.json`, a zip archive, a
    /// numpy header, a PyTorch pickle.
    #[error("{}: {detail}", path.display())]
    Malformed {
        /// The file (for a member of a zip archive: the archive).
        path: PathBuf,
        /// What is wrong, naming the member, the key or the byte offset.
        detail: String,
    },
    /// A sharded checkpoint's index names a shard that is not there.
    #[error(
        "{}: shard {} is missing ({count} tensor(s) listed in it, e.g. {})",
        index.display(),
        quoted(shard),
        quoted(tensor)
    )]
    MissingShard {
        /// The index file.
        index: PathBuf,
        /// The shard's file name.
        shard: String,
        /// A tensor the index places in it.
        tensor: String,
        /// How many tensors the index places in it.
        count: usize,
    },
    /// The index places a tensor in a shard that does not hold it.
    #[error("{}: tensor {} is listed in shard {}, but that shard does not hold it{}", index.display(), quoted(tensor), quoted(shard), found_in(found))]
    ListedButAbsent {
        /// The index file.
        index: PathBuf,
        /// The tensor.
        tensor: String,
        /// The shard the index names.
        shard: String,
        /// The shard that does hold it, if any.
        found: Option<String>,
    },
    /// A shard holds a tensor the index does not list.
    #[error("{}: tensor {} in shard {} is not listed in the index", index.display(), quoted(tensor), quoted(shard))]
    NotListed {
        /// The index file.
        index: PathBuf,
        /// The tensor.
        tensor: String,
        /// The shard that holds it.
        shard: String,
    },
    /// Two files of one checkpoint hold a tensor of the same name.
    #[error("tensor {} is in two files: {} and {}", quoted(tensor), first.display(), second.display())]
    InTwoFiles {
        /// The tensor.
        tensor: String,
        /// The first file that holds it.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// A file of a split GGUF checkpoint (`…-00002-of-00003.gguf`) is missing or does not
    /// belong to the others.
    #[error("{}: {detail}", path.display())]
    Split {
        /// The split file concerned (the missing one's expected path).
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

fn found_in(found: &Option<String>) -> String {
    match found {
        Some(s) => format!(" (it is in {})", quoted(s)),
        None => " (no shard does)".to_owned(),
    }
}

/// Reads like the message: `fn main() -> Result<(), Box<dyn Error>>` prints this.
impl fmt::Debug for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl CheckpointError {
    pub(super) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CheckpointError::Io {
            path: path.into(),
            source,
        }
    }

    pub(super) fn malformed(path: impl Into<PathBuf>, detail: impl Into<String>) -> Self {
        CheckpointError::Malformed {
            path: path.into(),
            detail: detail.into(),
        }
    }
}
