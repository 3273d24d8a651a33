//! The header of a GGUF file (llama.cpp's checkpoint format): the fixed header, the metadata
//! key/value section and the tensor-info section. Tensor data is never read.
//!
//! # Layout (all little-endian)
//!
//! ```text
//! "GGUF"  version:u32  tensor_count:u64  metadata_kv_count:u64      (v1: both counts u32)
//! metadata_kv_count × { key:string  value_type:u32  value }
//! tensor_count      × { name:string  n_dims:u32  dims:u64[n_dims]  ggml_type:u32  offset:u64 }
//! padding to `general.alignment` (default 32), then tensor data
//! string = len:u64 + UTF-8 bytes (v1: len:u32);  array = elem_type:u32 + len:u64 + elements
//! ```
//!
//! # Why hand-rolled
//!
//! No crate reads GGUF v1 to v3 headers without the tensor data while staying bounded and
//! light. Surveyed in November 2026, in each crate's published source:
//!
//! - candle-core 0.11.1 (`quantized::gguf_file`) has been hardened: it caps dims and nesting
//!   depth, and checks declared counts against the bytes left, as this reader does. It still
//!   needs `Read + Seek`, compiles the whole tensor library, rejects ggml types it does not
//!   know, silently keeps the last of two tensors or keys with one name, and divides by a
//!   `general.alignment` of 0 read from the file (a panic).
//! - `ggus` 0.5.1 and `gguf-rs-lib` 0.3.3 read GGUF v3 only, rejecting v1 and v2 files (v2 is
//!   still common among 2023 conversions); `ggus` also reserves
//!   `IndexMap::with_capacity(count)` with a count taken from the file before checking it.
//! - `gguf` 0.1.2 parses with nom over the whole header held in memory, and nested arrays by
//!   unbounded recursion.
//! - `gguf-rs` 0.1.8 has non-optional `clap`, `comfy-table`, `simple_logger` and `anyhow`
//!   dependencies: a command-line tool's in a library build.
//!
//! The format's header is small, so this reader is too.
//!
//! # Bounds
//!
//! Every count and length read from the file is checked *before* anything is allocated for it:
//! against the bytes left in the file when its length is known, and always against
//! [`GgufHeader::MAX_HEADER_LEN`] (the header, metadata and tensor infos together). Strings
//! longer than 64 KiB are read in chunks as the bytes arrive, so a reader that lies about its
//! length cannot force a large allocation either.

use std::fmt;
use std::io::Read;
use std::path::Path;

use self::file_buf::{FileBuf, Plain};
use super::ShapeSource;
use super::header::{Indexed, Named, TensorInfo};
use crate::shape::{INLINE_RANK, Shape};

#[cfg(test)]
mod block_tests;
mod error;
mod file_buf;
mod ggml_type;
mod read;
mod value;

pub use self::error::GgufError;
pub use self::ggml_type::GgmlType;
pub use self::value::{GgufArray, GgufType, GgufValue};

/// One tensor's entry in a GGUF header.
///
/// ```
/// # fn string(out: &mut Vec<u8>, s: &str) {
/// #     out.extend((s.len() as u64).to_le_bytes());
/// #     out.extend(s.as_bytes());
/// # }
/// // A v3 file with one F16 tensor written in ggml order as [8, 3].
/// let mut f = b"GGUF\x03\0\0\0".to_vec();
/// f.extend(1u64.to_le_bytes());
/// f.extend(0u64.to_le_bytes());
/// string(&mut f, "norm.weight");
/// f.extend(2u32.to_le_bytes());
/// f.extend(8u64.to_le_bytes());
/// f.extend(3u64.to_le_bytes());
/// f.extend(1u32.to_le_bytes()); // F16
/// f.extend(0u64.to_le_bytes());
/// let h = shapes::checkpoint::GgufHeader::read(&f[..], None).unwrap();
/// let t = &h.tensors()[0];
/// assert_eq!((t.name.as_str(), t.shape.dims()), ("norm.weight", &[3, 8][..]));
/// assert_eq!(t.ggml_type.name(), Some("F16"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GgufTensor {
    /// The tensor's name.
    pub name: String,
    /// Its shape, row-major (outermost first): the file's ggml dims reversed.
    pub shape: Shape,
    /// Its ggml type.
    pub ggml_type: GgmlType,
    /// Its data offset, relative to the start of the data section
    /// ([`GgufHeader::data_offset`]).
    pub offset: u64,
}

/// A parsed GGUF header: version, metadata and every tensor's name, shape, type and offset.
///
/// **Dims are row-major.** GGUF stores a tensor's dims in ggml order, innermost (contiguous)
/// first: a Llama token embedding of 32000 × 4096 is written `[4096, 32000]`. This type
/// reverses them, so shapes read the way safetensors, PyTorch and numpy write them
/// (`(32000, 4096)`) and one shape pattern serves both formats.
///
/// Reading is bounded (see [`read`](Self::read)): counts and lengths from the file are checked
/// against the bytes left and [`MAX_HEADER_LEN`](Self::MAX_HEADER_LEN) before allocating; a
/// tensor with more than [`MAX_DIMS`](Self::MAX_DIMS) dims, a dim or a product of dims past
/// `i64`, duplicate names or keys, names or keys that are not UTF-8, and (with a known file
/// length) a data section or tensor data past the end of the file are errors. GGUF v1, v2 and
/// v3 are read; big-endian files are not.
///
/// What llama.cpp refuses is refused here too: tensor names over
/// [`MAX_NAME_LEN`](Self::MAX_NAME_LEN) bytes, and tensor data that are not laid out back to
/// back in file order (each padded to the alignment: no gap, no overlap). Deliberate
/// differences: up to 8 dims are accepted (ggml has 4), and the layout is checked only up to
/// the first tensor of a ggml type this reader does not know (its size is unknown), where
/// llama.cpp refuses the type itself.
///
/// The metadata a model config needs is typed ([`GgufValue`]), so variables can be bound from
/// it before checking shapes:
///
/// ```
/// use shapes::{Bindings, ShapeSource, checkpoint::GgufHeader};
///
/// # fn string(out: &mut Vec<u8>, s: &str) {
/// #     out.extend((s.len() as u64).to_le_bytes());
/// #     out.extend(s.as_bytes());
/// # }
/// // A minimal GGUF v3 file: one metadata pair, one tensor.
/// let mut f = b"GGUF".to_vec();
/// f.extend(3u32.to_le_bytes()); // version
/// f.extend(1u64.to_le_bytes()); // tensor count
/// f.extend(2u64.to_le_bytes()); // metadata count
/// string(&mut f, "general.architecture");
/// f.extend(8u32.to_le_bytes()); // string
/// string(&mut f, "llama");
/// string(&mut f, "llama.embedding_length");
/// f.extend(4u32.to_le_bytes()); // u32
/// f.extend(64u32.to_le_bytes());
/// string(&mut f, "token_embd.weight");
/// f.extend(2u32.to_le_bytes()); // n_dims
/// f.extend(64u64.to_le_bytes()); // ggml order: innermost first
/// f.extend(100u64.to_le_bytes());
/// f.extend(0u32.to_le_bytes()); // F32
/// f.extend(0u64.to_le_bytes()); // offset
/// f.resize(f.len().next_multiple_of(32) + 100 * 64 * 4, 0);
///
/// let h = GgufHeader::from_bytes(&f).unwrap();
/// assert_eq!(h.shape_of("token_embd.weight"), Some(&[100, 64][..])); // row-major
/// assert_eq!(h.architecture(), Some("llama"));
/// let d_model = h.arch_usize("embedding_length").unwrap();
/// let pre = Bindings::new().bind("d_model", d_model);
/// assert_eq!(pre.get("d_model"), Some(64));
/// ```
#[derive(Clone)]
pub struct GgufHeader {
    version: u32,
    metadata: Indexed<(String, GgufValue)>,
    tensors: Indexed<GgufTensor>,
    alignment: u64,
    data_offset: u64,
}

impl GgufHeader {
    /// The most bytes the header, metadata and tensor infos may take together: 256 MiB.
    /// Real headers are a few MB (a 150k-token vocabulary with its merges is under 10 MB).
    pub const MAX_HEADER_LEN: u64 = 256 << 20;
    /// The most dims a tensor may have: 8 (ggml's `GGML_MAX_DIMS` is 4; a few more are
    /// accepted for other writers of the format).
    pub const MAX_DIMS: usize = INLINE_RANK;
    /// The most tensors a header may list: 2^20. Published GGUF files list at most a few
    /// thousand.
    pub const MAX_TENSORS: u64 = super::header::MAX_TENSORS as u64;
    /// The most metadata entries a header may have: 2^16. Published files have about fifty
    /// (the vocabulary is one entry, an array).
    pub const MAX_METADATA: u64 = 1 << 16;
    /// The longest tensor name, in bytes: 63, as llama.cpp reads names into
    /// `GGML_MAX_NAME` (64) bytes with the terminating zero and refuses longer ones.
    pub const MAX_NAME_LEN: usize = 63;
    /// Arrays of arrays nested deeper than this are an error.
    pub const MAX_ARRAY_DEPTH: usize = 8;
    /// Arrays longer than this are skipped over, keeping only their type and length.
    pub const MAX_KEPT_ARRAY_LEN: u64 = 1024;
    /// The most array elements kept over the whole file; arrays past it are skipped.
    pub const MAX_KEPT_ELEMENTS: u64 = 1 << 16;
    /// The data alignment when `general.alignment` is absent.
    pub const DEFAULT_ALIGNMENT: u64 = 32;

    /// Reads the header of the file at `path`; the tensor data is never read.
    ///
    /// ```no_run
    /// let h = shapes::checkpoint::GgufHeader::read_path("tinyllama-1.1b-chat.Q4_K_M.gguf")?;
    /// println!("{} tensors", h.tensors().len());
    /// # Ok::<(), shapes::checkpoint::GgufError>(())
    /// ```
    pub fn read_path(path: impl AsRef<Path>) -> Result<Self, GgufError> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        // 64 KiB buffers: a header is many small fields, and with a vocabulary it runs to
        // megabytes, so the default 8 KiB would mean hundreds of read calls.
        read::header(FileBuf::with_capacity(1 << 16, file), Some(len))
    }

    /// Reads a header from `reader`, positioned at the start of a GGUF file, consuming exactly
    /// the header, metadata and tensor-info bytes (not the padding after them). Pass a buffered
    /// reader: the format is many small fields.
    ///
    /// With `file_len`, every count and length is checked against the bytes the file has left
    /// before anything is read or allocated for it, and each tensor of a known ggml type must
    /// end within the file (a partial download is an error). Without it, the checks are
    /// against [`MAX_HEADER_LEN`](Self::MAX_HEADER_LEN), and long strings are read in chunks.
    ///
    /// ```
    /// let e = shapes::checkpoint::GgufHeader::read(&b"GGUF\x04\0\0\0"[..], None).unwrap_err();
    /// assert_eq!(e.to_string(), "GGUF version 4 is not supported (versions 1, 2 and 3 are)");
    /// ```
    pub fn read(reader: impl Read, file_len: Option<u64>) -> Result<Self, GgufError> {
        read::header(Plain(reader), file_len)
    }

    /// Reads the header from a file's bytes (all of it, so that tensor extents are checked).
    ///
    /// ```
    /// assert!(shapes::checkpoint::GgufHeader::from_bytes(b"GGML").is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, GgufError> {
        read::header(bytes, Some(bytes.len() as u64))
    }

    /// The format version: 1, 2 or 3.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// assert_eq!(shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap().version(), 3);
    /// ```
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Every tensor, in the file's order.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// assert!(shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap().tensors().is_empty());
    /// ```
    pub fn tensors(&self) -> &[GgufTensor] {
        self.tensors.items()
    }

    /// The tensor called `name`.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// let h = shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap();
    /// assert!(h.get("output.weight").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&GgufTensor> {
        self.tensors.get(name)
    }

    /// Every metadata pair, in the file's order.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// assert!(shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap().metadata().is_empty());
    /// ```
    pub fn metadata(&self) -> &[(String, GgufValue)] {
        self.metadata.items()
    }

    /// The metadata value under `key`.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// let h = shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap();
    /// assert!(h.meta("general.name").is_none());
    /// ```
    pub fn meta(&self, key: &str) -> Option<&GgufValue> {
        self.metadata.get(key).map(|(_, v)| v)
    }

    /// `general.architecture` (`"llama"`, `"qwen2"`, `"bert"`, …).
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// assert_eq!(shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap().architecture(), None);
    /// ```
    pub fn architecture(&self) -> Option<&str> {
        self.meta("general.architecture")?.as_str()
    }

    /// The metadata value `"{architecture}.{suffix}"`: `arch_value("block_count")` is
    /// `llama.block_count` in a Llama file.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// let h = shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap();
    /// assert!(h.arch_value("context_length").is_none());
    /// ```
    pub fn arch_value(&self, suffix: &str) -> Option<&GgufValue> {
        self.meta(&format!("{}.{suffix}", self.architecture()?))
    }

    /// [`arch_value`](Self::arch_value) as a `usize`: `embedding_length`, `block_count`,
    /// `attention.head_count`, `attention.head_count_kv`, `feed_forward_length`, ….
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// let h = shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap();
    /// assert_eq!(h.arch_usize("block_count"), None);
    /// ```
    pub fn arch_usize(&self, suffix: &str) -> Option<usize> {
        self.arch_value(suffix)?.as_usize()
    }

    /// The data alignment (`general.alignment`, 32 by default).
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// assert_eq!(shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap().alignment(), 32);
    /// ```
    pub fn alignment(&self) -> u64 {
        self.alignment
    }

    /// Where the tensor data starts in the file: the end of the tensor infos, aligned.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 24]);
    /// assert_eq!(shapes::checkpoint::GgufHeader::from_bytes(&f).unwrap().data_offset(), 32);
    /// ```
    pub fn data_offset(&self) -> u64 {
        self.data_offset
    }
}

impl ShapeSource for GgufHeader {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.tensors.shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.tensors.tensor_names()
    }
}

// The entries in file order (the index by name is how they are found, not what they are).
impl fmt::Debug for GgufHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GgufHeader")
            .field("version", &self.version)
            .field("metadata", &self.metadata.items())
            .field("tensors", &self.tensors.items())
            .field("alignment", &self.alignment)
            .field("data_offset", &self.data_offset)
            .finish()
    }
}

impl Named for GgufTensor {
    fn name(&self) -> &str {
        &self.name
    }
}

impl TensorInfo for GgufTensor {
    fn dims(&self) -> &[usize] {
        self.shape.dims()
    }
}
