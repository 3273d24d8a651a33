//! [`Checkpoint`]: one entry point for the checkpoints people download, whatever their
//! format, read from their headers alone.
//!
//! One module per job: `detect` (which format a path is), `sharded` (safetensors shards and
//! their index), `split_gguf` (GGUF files split in parts), `npy`, `npy_literal` and
//! `npy_dtype` (numpy's `.npy` and `.npz`), `pickle`, `flatten` and `pt` (PyTorch's zip
//! format), `config` (the `config.json` beside the weights and the keys a checkpoint states),
//! `error`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::header::{Indexed, Named, TensorInfo};
use super::{ConfigEntry, GgufHeader, GgufValue, ShapeSource};
use crate::shape::Shape;

mod config;
mod detect;
mod error;
mod index_json;
mod npy;
mod npy_dtype;
mod npy_literal;
mod pickle;
mod pt;
mod sharded;
mod split_gguf;

pub use self::error::CheckpointError;

/// The most tensors one checkpoint may hold (over all its files): 1 << 20. The largest
/// published models have tens of thousands.
pub const MAX_TENSORS: usize = 1 << 20;

/// The format a [`Checkpoint`] was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CheckpointFormat {
    /// One `.safetensors` file.
    Safetensors,
    /// Several `.safetensors` shards, with or without a `model.safetensors.index.json`.
    ShardedSafetensors,
    /// One GGUF file.
    Gguf,
    /// A GGUF checkpoint split in parts (`…-00001-of-00003.gguf`).
    SplitGguf,
    /// One numpy `.npy` array.
    Npy,
    /// A numpy `.npz` archive (`np.savez`, `np.savez_compressed`).
    Npz,
    /// A PyTorch zip checkpoint (`torch.save`, `.bin`/`.pt`/`.pth`).
    PyTorch,
}

impl fmt::Display for CheckpointFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CheckpointFormat::Safetensors => "safetensors",
            CheckpointFormat::ShardedSafetensors => "sharded safetensors",
            CheckpointFormat::Gguf => "GGUF",
            CheckpointFormat::SplitGguf => "split GGUF",
            CheckpointFormat::Npy => "numpy .npy",
            CheckpointFormat::Npz => "numpy .npz",
            CheckpointFormat::PyTorch => "PyTorch zip",
        })
    }
}

/// One tensor of a [`Checkpoint`]: its name, shape, element type and the file that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointTensor {
    /// The tensor's name.
    pub name: String,
    /// Its shape, row-major (outermost first), in every format (GGUF's ggml order reversed).
    pub shape: Shape,
    /// Its element type, in safetensors' spelling where the format has an equivalent (`F32`,
    /// `BF16`, `I64`, `BOOL`); GGUF's quantized types by their ggml name (`Q4_K`).
    pub dtype: String,
    /// The index in [`Checkpoint::files`] of the file that holds it.
    pub file: usize,
}

impl Named for CheckpointTensor {
    fn name(&self) -> &str {
        &self.name
    }
}

impl TensorInfo for CheckpointTensor {
    fn dims(&self) -> &[usize] {
        self.shape.dims()
    }
}

/// A checkpoint as it is shipped, read from its headers alone (no tensor data): every
/// tensor's name, shape and dtype over all its files, the file's own metadata, and the
/// `config.json` beside the weights. It is a [`ShapeSource`] whose
/// [`config`](ShapeSource::config) answers from that config and metadata, so that
/// `verify_source` binds the variables a struct or [`Plan`](crate::Plan) ties to config keys.
///
/// [`open`](Self::open) reads:
///
/// - a `.safetensors` file; a sharded checkpoint, given by its `model.safetensors.index.json`
///   or by its directory (every shard's header is read, and the index's `weight_map` is
///   checked against the shards: a tensor listed but absent, a tensor in two shards, a
///   missing shard or a tensor the index does not list is an error naming it);
/// - a GGUF file, and a GGUF checkpoint split in parts (`…-00001-of-00003.gguf`, with its
///   `split.*` keys), as one source whatever part is named;
/// - numpy `.npy` and `.npz` (stored or deflated members; the zip directory and each
///   member's array header are read, no data);
/// - PyTorch's zip format (`.bin`, `.pt`, `.pth`): names, shapes and dtypes from its
///   `data.pkl`, read by a bounded pickle reader that runs no code; tensors in nested
///   dictionaries are named with their keys joined by `.`. The legacy non-zip format is an
///   error saying so.
///
/// Every reader is bounded on hostile input: counts, ranks, lengths and nesting are checked
/// before anything is allocated for them.
///
/// ```
/// use shapes::{Checkpoint, CheckpointFormat, ShapeSource};
///
/// # let dir = std::env::temp_dir().join(format!("shapes-doc-ckpt-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// // A one-tensor safetensors file and the config beside it.
/// let json = br#"{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}"#;
/// let mut file = (json.len() as u64).to_le_bytes().to_vec();
/// file.extend_from_slice(json);
/// file.extend_from_slice(&[0u8; 24]);
/// std::fs::write(dir.join("model.safetensors"), file).unwrap();
/// std::fs::write(dir.join("config.json"), r#"{"hidden_size": 3}"#).unwrap();
///
/// let ckpt = Checkpoint::open(&dir)?;
/// assert_eq!(ckpt.format(), CheckpointFormat::Safetensors);
/// assert_eq!(ckpt.shape_of("w"), Some(&[2, 3][..]));
/// assert_eq!(ckpt.get("w").map(|t| t.dtype.as_str()), Some("F32"));
/// assert_eq!(ckpt.config("hidden_size").unwrap().to_string(), "config `hidden_size` = 3");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), shapes::CheckpointError>(())
/// ```
#[derive(Clone)]
pub struct Checkpoint {
    /// The path it was opened by (`<memory>` for bytes).
    path: PathBuf,
    format: CheckpointFormat,
    files: Vec<PathBuf>,
    tensors: Indexed<CheckpointTensor>,
    metadata: BTreeMap<String, String>,
    gguf: Option<GgufHeader>,
    config: Option<(PathBuf, serde_json::Value)>,
}

impl Checkpoint {
    /// Opens the checkpoint at `path`: a weights file (any part of it, for a split GGUF), a
    /// sharded checkpoint's index, or a directory holding one checkpoint. The format is told
    /// by the file's first bytes and, for zip archives, by its members; the `config.json` in
    /// the same directory is read when there is one.
    ///
    /// ```
    /// let e = shapes::Checkpoint::open("/nonexistent/model.safetensors").unwrap_err();
    /// assert!(e.to_string().starts_with("/nonexistent/model.safetensors: "));
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Checkpoint, CheckpointError> {
        detect::open(path.as_ref())
    }

    /// Reads a single-file checkpoint held in memory (safetensors, GGUF, `.npy`, `.npz`,
    /// PyTorch zip), told by its first bytes; errors name it `<memory>`. There is no
    /// `config.json`, and a part of a split GGUF or a sharded checkpoint needs
    /// [`open`](Self::open).
    ///
    /// ```
    /// use shapes::{Checkpoint, ShapeSource};
    /// let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    /// npy.extend((dict.len() as u16).to_le_bytes());
    /// npy.extend(dict.as_bytes());
    /// npy.extend([0u8; 24]);
    /// let c = Checkpoint::from_bytes(&npy)?;
    /// assert_eq!(c.shape_of("array"), Some(&[2, 3][..]));
    /// let e = Checkpoint::from_bytes(b"hello, world").unwrap_err();
    /// assert!(e.to_string().starts_with("<memory>: not a checkpoint this reader knows"));
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        detect::from_bytes(bytes)
    }

    /// The path it was opened by, as given to [`open`](Self::open) (`<memory>` for
    /// [`from_bytes`](Self::from_bytes)).
    ///
    /// ```
    /// # let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// # let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    /// # npy.extend((dict.len() as u16).to_le_bytes());
    /// # npy.extend(dict.as_bytes());
    /// # npy.extend([0u8; 8]);
    /// let c = shapes::Checkpoint::from_bytes(&npy)?;
    /// assert_eq!(c.path().to_str(), Some("<memory>"));
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The format it was read from.
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.gguf")?;
    /// assert_eq!(c.format(), shapes::CheckpointFormat::Gguf);
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn format(&self) -> CheckpointFormat {
        self.format
    }

    /// The format, with the number of files when there are several (`sharded safetensors, 4
    /// files`): how the report and `shapes inspect` name what was read.
    ///
    /// ```
    /// # let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// # let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    /// # npy.extend((dict.len() as u16).to_le_bytes());
    /// # npy.extend(dict.as_bytes());
    /// # npy.extend([0u8; 8]);
    /// let c = shapes::Checkpoint::from_bytes(&npy)?;
    /// assert_eq!(c.format_and_files(), "numpy .npy");
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn format_and_files(&self) -> String {
        match self.files.len() {
            0 | 1 => self.format.to_string(),
            n => format!("{}, {n} files", self.format),
        }
    }

    /// The weights files read, in order (the shards, the parts of a split GGUF).
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.safetensors.index.json")?;
    /// println!("{} shards", c.files().len());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Every tensor, file by file, each file's in its own order.
    ///
    /// ```no_run
    /// for t in shapes::Checkpoint::open("model.safetensors")?.tensors() {
    ///     println!("{} {} {}", t.name, t.dtype, t.shape);
    /// }
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn tensors(&self) -> &[CheckpointTensor] {
        self.tensors.items()
    }

    /// The tensor called `name`.
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.safetensors")?;
    /// assert!(c.get("lm_head.weight").is_some());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn get(&self, name: &str) -> Option<&CheckpointTensor> {
        self.tensors.get(name)
    }

    /// The weights file's string metadata: safetensors' `__metadata__` (of the first shard).
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.safetensors")?;
    /// println!("{:?}", c.metadata().get("format"));
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// A GGUF checkpoint's metadata pairs (of its first part), typed.
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.gguf")?;
    /// println!("{} metadata keys", c.gguf_metadata().len());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn gguf_metadata(&self) -> &[(String, GgufValue)] {
        self.gguf.as_ref().map_or(&[], GgufHeader::metadata)
    }

    /// The `config.json` beside the weights, parsed, when there is one.
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.safetensors")?;
    /// let hidden = c.config_json().and_then(|v| v.get("hidden_size"));
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn config_json(&self) -> Option<&serde_json::Value> {
        self.config.as_ref().map(|(_, v)| v)
    }

    /// The path of the `config.json` read, when there is one.
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.safetensors")?;
    /// println!("{:?}", c.config_path());
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn config_path(&self) -> Option<&Path> {
        self.config.as_ref().map(|(p, _)| p.as_path())
    }

    /// The architecture: GGUF's `general.architecture`, else `model_type` in `config.json`,
    /// else its first `architectures` entry (`BertForMaskedLM`); what `{arch}` in a key stands
    /// for.
    ///
    /// ```no_run
    /// let c = shapes::Checkpoint::open("model.gguf")?;
    /// assert_eq!(c.architecture(), Some("llama"));
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn architecture(&self) -> Option<&str> {
        if let Some(arch) = self.gguf.as_ref().and_then(GgufHeader::architecture) {
            return Some(arch);
        }
        let config = self.config_json()?;
        if let Some(t) = config.get("model_type").and_then(serde_json::Value::as_str) {
            return Some(t);
        }
        config.get("architectures")?.get(0)?.as_str()
    }

    /// The same checkpoint with the config read from `path` instead of the `config.json`
    /// beside the weights (the command's `--config`): a JSON object of at most 16 MiB.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("shapes-doc-with-config-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let cfg = dir.join("my_config.json");
    /// std::fs::write(&cfg, r#"{"hidden_size": 8, "vocab": [1, 2, 3]}"#).unwrap();
    /// let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    /// let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    /// npy.extend((dict.len() as u16).to_le_bytes());
    /// npy.extend(dict.as_bytes());
    /// npy.extend([0u8; 24]);
    /// let c = shapes::Checkpoint::from_bytes(&npy)?.with_config(&cfg)?;
    /// use shapes::ShapeSource;
    /// assert_eq!(c.config("hidden_size").unwrap().to_string(), "config `hidden_size` = 8");
    /// // A list states its length.
    /// assert_eq!(c.config("vocab").unwrap().value, shapes::checkpoint::ConfigValue::Size(3));
    /// // A config that is not a JSON object is refused.
    /// std::fs::write(&cfg, "[1, 2]").unwrap();
    /// let e = shapes::Checkpoint::from_bytes(&npy)?.with_config(&cfg).unwrap_err();
    /// assert!(e.to_string().ends_with("a config must be a JSON object"));
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), shapes::CheckpointError>(())
    /// ```
    pub fn with_config(mut self, path: impl AsRef<Path>) -> Result<Checkpoint, CheckpointError> {
        self.config = Some(config::read_config(path.as_ref())?);
        Ok(self)
    }
}

impl ShapeSource for Checkpoint {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.tensors.shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.tensors.tensor_names()
    }
    /// The value under `key` in `config.json` (a dotted key reaches into nested objects),
    /// then in the weights file's metadata; `{arch}` stands for [`architecture`](Checkpoint::architecture).
    fn config(&self, key: &str) -> Option<ConfigEntry> {
        config::lookup(self, key)
    }
    /// The dtype the header states (see [`CheckpointTensor::dtype`]).
    fn dtype_of(&self, name: &str) -> Option<&str> {
        self.get(name).map(|t| t.dtype.as_str())
    }
    fn config_near(&self, key: &str) -> Option<ConfigEntry> {
        config::near(self, key)
    }
}

impl fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checkpoint")
            .field("format", &self.format)
            .field("files", &self.files)
            .field("tensors", &self.tensors.items().len())
            .field("metadata", &self.metadata)
            .field("gguf_metadata", &self.gguf_metadata().len())
            .field("config", &self.config_path())
            .finish()
    }
}

/// A checkpoint being assembled from its files: tensors over all files, a name in two files
/// refused.
pub(super) struct Parts {
    files: Vec<PathBuf>,
    tensors: Vec<CheckpointTensor>,
}

impl Parts {
    fn new() -> Self {
        Parts {
            files: Vec::new(),
            tensors: Vec::new(),
        }
    }

    /// Adds a file; returns its index.
    fn file(&mut self, path: PathBuf) -> usize {
        self.files.push(path);
        self.files.len() - 1
    }

    /// Adds the file `path` and its `tensors` (name, shape, dtype), in order.
    fn add_file(
        &mut self,
        path: &Path,
        tensors: impl IntoIterator<Item = (String, Shape, String)>,
    ) -> Result<(), CheckpointError> {
        let file = self.file(path.to_path_buf());
        for (name, shape, dtype) in tensors {
            self.tensor(file, name, shape, dtype)?;
        }
        Ok(())
    }

    /// Adds a tensor of file `file`.
    fn tensor(
        &mut self,
        file: usize,
        name: String,
        shape: Shape,
        dtype: String,
    ) -> Result<(), CheckpointError> {
        let path = |i: usize| self.files.get(i).cloned().unwrap_or_default();
        if self.tensors.len() >= MAX_TENSORS {
            return Err(CheckpointError::malformed(
                path(file),
                format!("more than {MAX_TENSORS} tensors"),
            ));
        }
        let t = CheckpointTensor {
            name,
            shape,
            dtype,
            file,
        };
        self.tensors.push(t);
        Ok(())
    }

    /// Indexes the tensors by name: a name in two files is an error naming both.
    fn into_indexed(self) -> Result<IndexedParts, CheckpointError> {
        match Indexed::new_or_repeat(self.tensors) {
            Ok(tensors) => Ok(IndexedParts {
                files: self.files,
                tensors,
            }),
            Err((tensors, i)) => {
                let path = |i: usize| self.files.get(i).cloned().unwrap_or_default();
                let second = tensors.get(i);
                let name = second.map_or("", |t| t.name.as_str());
                let first = tensors
                    .iter()
                    .find(|t| t.name == name)
                    .map_or(0, |t| t.file);
                let second_file = second.map_or(0, |t| t.file);
                if first == second_file {
                    // Twice in one file (two members of one archive, say): not "two files".
                    return Err(CheckpointError::malformed(
                        path(first),
                        format!("tensor {} appears twice", crate::text::quoted(name)),
                    ));
                }
                Err(CheckpointError::InTwoFiles {
                    tensor: name.to_owned(),
                    first: path(first),
                    second: path(second_file),
                })
            }
        }
    }

    fn finish(
        self,
        format: CheckpointFormat,
        metadata: BTreeMap<String, String>,
        gguf: Option<GgufHeader>,
    ) -> Result<Checkpoint, CheckpointError> {
        Ok(self.into_indexed()?.finish(format, metadata, gguf))
    }
}

/// A checkpoint's files and tensors, indexed by name, before its metadata is attached.
pub(super) struct IndexedParts {
    files: Vec<PathBuf>,
    tensors: Indexed<CheckpointTensor>,
}

impl IndexedParts {
    fn finish(
        self,
        format: CheckpointFormat,
        metadata: BTreeMap<String, String>,
        gguf: Option<GgufHeader>,
    ) -> Checkpoint {
        Checkpoint {
            path: PathBuf::from("<memory>"),
            format,
            files: self.files,
            tensors: self.tensors,
            metadata,
            gguf,
            config: None,
        }
    }
}

/// The hand-written readers on bytes, for the fuzz targets (through `__private`).
#[doc(hidden)]
pub mod fuzz {
    use crate::shape::Shape;

    /// The tensors (name, shape, dtype) of a pickled PyTorch state dict.
    pub fn pickle_tensors(data: &[u8]) -> Result<Vec<(String, Shape, String)>, String> {
        super::pickle::tensors(data).map(|ts| {
            ts.into_iter()
                .map(|t| (t.name, t.tensor.shape.clone(), t.tensor.dtype.clone()))
                .collect()
        })
    }

    /// The dtype and shape of a `.npy` array's header.
    pub fn npy_header(data: &[u8]) -> Result<(String, Shape), String> {
        super::npy::read_header(data).map(|h| (h.dtype, h.shape))
    }

    /// The dtype, shape, element size and data offset of a `.npy` array's header.
    pub fn npy_header_layout(data: &[u8]) -> Result<(String, Shape, usize, u64), String> {
        super::npy::read_header(data).map(|h| (h.dtype, h.shape, h.itemsize, h.data_start))
    }
}

/// The shape of a tensor whose dims a header lists, `None` for a dim that is not a size
/// (negative, too large, not a number): a shape only when every dim is one and the element
/// count fits `i64`, as numpy and PyTorch require.
pub(super) fn sized_shape(dims: impl IntoIterator<Item = Option<usize>>) -> Option<Shape> {
    let dims: Option<Vec<usize>> = dims.into_iter().collect();
    dims.map(|d| Shape::new(&d))
        .filter(|s| s.numel().is_some_and(|n| i64::try_from(n).is_ok()))
}
