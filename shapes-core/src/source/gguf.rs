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
//! The crates that parse GGUF were each ruled out on evidence (read in their published sources):
//! candle-core's `quantized::gguf_file` needs `Read + Seek`, compiles the whole tensor library,
//! silently keeps the last of two tensors with one name, and divides by a `general.alignment` of
//! 0 read from the file (a panic); `ggus` 0.5 and `gguf-rs-lib` 0.3 reject GGUF v2 files (still
//! common among 2023 conversions), and `ggus` reserves `IndexMap::with_capacity(count)` with a
//! count taken from the file before checking it; `gguf` 0.1 parses nested arrays by unbounded
//! recursion and needs the whole header in memory; `gguf-rs` pulls `clap` and a table printer
//! into a library build. The format's header is small, so this reader is too.
//!
//! # Bounds
//!
//! Every count and length read from the file is checked *before* anything is allocated for it:
//! against the bytes left in the file when its length is known, and always against
//! [`GgufHeader::MAX_HEADER_LEN`] (the header, metadata and tensor infos together). Strings
//! longer than 64 KiB are read in chunks as the bytes arrive, so a reader that lies about its
//! length cannot force a large allocation either.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::Path;

use super::ShapeSource;
use crate::shape::{INLINE_RANK, Shape};

/// Why a GGUF header could not be read. Every variant says what is wrong and where: a byte
/// offset into the file, and the tensor's name once it is known.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GgufError {
    /// Reading failed.
    #[error("cannot read the GGUF header: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not start with `GGUF`.
    #[error("not a GGUF file: it starts with {found:?}, not \"GGUF\"")]
    BadMagic {
        /// The first four bytes (fewer if the file is shorter).
        found: Vec<u8>,
    },
    /// A version this reader does not know.
    #[error("GGUF version {0} is not supported (versions 1, 2 and 3 are)")]
    UnsupportedVersion(u32),
    /// A big-endian GGUF file (written for s390x and the like).
    #[error("big-endian GGUF (version {0}) is not supported: convert the file to little-endian")]
    BigEndian(u32),
    /// The file ends before the header does.
    #[error(
        "GGUF file truncated: it ends inside {what} at byte {at} ({needed} bytes needed, {available} left)"
    )]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Byte offset where it starts.
        at: u64,
        /// Bytes it needs.
        needed: u64,
        /// Bytes the file still had there (0 when the file length is unknown and the reader
        /// ran dry).
        available: u64,
    },
    /// The header, metadata and tensor infos together exceed the limit.
    #[error(
        "GGUF header too large: {what} at byte {at} needs {needed} bytes, past the {limit}-byte header limit (corrupt file?)"
    )]
    HeaderTooLarge {
        /// What was being read.
        what: &'static str,
        /// Byte offset where it starts.
        at: u64,
        /// Bytes it needs (for a count: the least its entries can take).
        needed: u64,
        /// [`GgufHeader::MAX_HEADER_LEN`].
        limit: u64,
    },
    /// A metadata value type that GGUF does not define.
    #[error("unknown GGUF metadata value type {ty} at byte {at}")]
    UnknownValueType {
        /// The type code.
        ty: u32,
        /// Byte offset of the type code.
        at: u64,
    },
    /// A boolean that is neither 0 nor 1.
    #[error("GGUF boolean at byte {at} is {value}, not 0 or 1")]
    BadBool {
        /// The byte.
        value: u8,
        /// Its offset.
        at: u64,
    },
    /// Arrays nested deeper than [`GgufHeader::MAX_ARRAY_DEPTH`].
    #[error("GGUF arrays nested more than {max} deep at byte {at}")]
    ArrayTooDeep {
        /// Offset of the innermost array.
        at: u64,
        /// [`GgufHeader::MAX_ARRAY_DEPTH`].
        max: usize,
    },
    /// One metadata key appears twice.
    #[error("GGUF metadata key {0:?} appears twice")]
    DuplicateKey(String),
    /// One tensor name appears twice.
    #[error("tensor {0:?} appears twice in the GGUF header")]
    DuplicateName(String),
    /// More dims than [`GgufHeader::MAX_DIMS`].
    #[error("tensor {name:?} has {n_dims} dims; at most {max} are accepted (ggml uses 4)")]
    TooManyDims {
        /// The tensor.
        name: String,
        /// Its declared rank.
        n_dims: u32,
        /// [`GgufHeader::MAX_DIMS`].
        max: usize,
    },
    /// The dims do not fit in `usize`, or their product overflows `usize` or `i64` (ggml's
    /// element count type).
    #[error(
        "tensor {name:?}: dims {dims:?} (ggml order) overflow: the element count must fit in i64 and usize"
    )]
    ShapeOverflow {
        /// The tensor.
        name: String,
        /// Its dims as written, innermost first.
        dims: Vec<u64>,
    },
    /// `general.alignment` is not a power of two, or not an unsigned integer.
    #[error("general.alignment is {0}, not a power of two (GGUF requires one; the default is 32)")]
    BadAlignment(String),
    /// A tensor's data offset is not a multiple of the alignment.
    #[error("tensor {name:?}: data offset {offset} is not a multiple of the alignment {alignment}")]
    Misaligned {
        /// The tensor.
        name: String,
        /// Its offset, relative to the data section.
        offset: u64,
        /// The file's alignment.
        alignment: u64,
    },
    /// A quantized tensor whose innermost dim is not a whole number of blocks.
    #[error(
        "tensor {name:?}: innermost dim {dim} is not a multiple of {ggml_type}'s block size {block}"
    )]
    PartialBlock {
        /// The tensor.
        name: String,
        /// Its type.
        ggml_type: GgmlType,
        /// The innermost dim (last in row-major order).
        dim: usize,
        /// Elements per block.
        block: u64,
    },
    /// A tensor's data runs past the end of the file (a partial download, typically).
    #[error(
        "tensor {name:?}: its data ends at byte {end} but the file has {file_len} bytes (truncated download?)"
    )]
    DataBeyondFile {
        /// The tensor.
        name: String,
        /// Absolute end offset of its data.
        end: u64,
        /// The file's length.
        file_len: u64,
    },
}

/// A ggml tensor type code (`ggml_type`), e.g. 0 = `F32`, 1 = `F16`, 12 = `Q4_K`.
///
/// Kept as the raw code so that a file with a type newer than this crate still reads: only
/// its byte-size check is skipped.
///
/// ```
/// use shapes::GgmlType;
/// assert_eq!(GgmlType(12).name(), Some("Q4_K"));
/// assert_eq!(GgmlType(12).block(), Some((256, 144)));
/// assert_eq!(GgmlType(12).to_string(), "Q4_K");
/// assert_eq!(GgmlType(999).to_string(), "ggml type 999");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GgmlType(pub u32);

/// (code, name, elements per block, bytes per block), from ggml.c's `type_traits`.
const GGML_TYPES: &[(u32, &str, u64, u64)] = &[
    (0, "F32", 1, 4),
    (1, "F16", 1, 2),
    (2, "Q4_0", 32, 18),
    (3, "Q4_1", 32, 20),
    (6, "Q5_0", 32, 22),
    (7, "Q5_1", 32, 24),
    (8, "Q8_0", 32, 34),
    (9, "Q8_1", 32, 36),
    (10, "Q2_K", 256, 84),
    (11, "Q3_K", 256, 110),
    (12, "Q4_K", 256, 144),
    (13, "Q5_K", 256, 176),
    (14, "Q6_K", 256, 210),
    (15, "Q8_K", 256, 292),
    (16, "IQ2_XXS", 256, 66),
    (17, "IQ2_XS", 256, 74),
    (18, "IQ3_XXS", 256, 98),
    (19, "IQ1_S", 256, 50),
    (20, "IQ4_NL", 32, 18),
    (21, "IQ3_S", 256, 110),
    (22, "IQ2_S", 256, 82),
    (23, "IQ4_XS", 256, 136),
    (24, "I8", 1, 1),
    (25, "I16", 1, 2),
    (26, "I32", 1, 4),
    (27, "I64", 1, 8),
    (28, "F64", 1, 8),
    (29, "IQ1_M", 256, 56),
    (30, "BF16", 1, 2),
    (34, "TQ1_0", 256, 54),
    (35, "TQ2_0", 256, 66),
    (39, "MXFP4", 32, 17),
];

impl GgmlType {
    fn traits(self) -> Option<&'static (u32, &'static str, u64, u64)> {
        GGML_TYPES.iter().find(|t| t.0 == self.0)
    }

    /// The type's name in ggml, when this crate knows the code.
    ///
    /// ```
    /// assert_eq!(shapes::GgmlType(30).name(), Some("BF16"));
    /// ```
    pub fn name(self) -> Option<&'static str> {
        self.traits().map(|t| t.1)
    }

    /// `(elements per block, bytes per block)`, when this crate knows the code.
    ///
    /// ```
    /// assert_eq!(shapes::GgmlType(0).block(), Some((1, 4)));
    /// assert_eq!(shapes::GgmlType(8).block(), Some((32, 34)));
    /// ```
    pub fn block(self) -> Option<(u64, u64)> {
        self.traits().map(|t| (t.2, t.3))
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "ggml type {}", self.0),
        }
    }
}

/// The type of a GGUF metadata value (`gguf_metadata_value_type`).
///
/// ```
/// use shapes::{GgufType, GgufValue};
/// assert_eq!(GgufValue::U32(4096).value_type(), GgufType::U32);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the variants are the type names themselves
pub enum GgufType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    Bool,
    String,
    Array,
    U64,
    I64,
    F64,
}

impl GgufType {
    fn from_code(code: u32) -> Option<Self> {
        use GgufType::*;
        Some(match code {
            0 => U8,
            1 => I8,
            2 => U16,
            3 => I16,
            4 => U32,
            5 => I32,
            6 => F32,
            7 => Bool,
            8 => String,
            9 => Array,
            10 => U64,
            11 => I64,
            12 => F64,
            _ => return None,
        })
    }

    /// On-disk size of a fixed-size value; `None` for strings and arrays.
    fn fixed_size(self) -> Option<u64> {
        use GgufType::*;
        match self {
            U8 | I8 | Bool => Some(1),
            U16 | I16 => Some(2),
            U32 | I32 | F32 => Some(4),
            U64 | I64 | F64 => Some(8),
            String | Array => None,
        }
    }
}

/// A GGUF metadata value, typed as the file stores it.
///
/// The accessors convert where that is lossless: [`as_u64`](Self::as_u64) and
/// [`as_usize`](Self::as_usize) take any integer type with a non-negative value, so a
/// `llama.embedding_length` written as `u32` by one converter and `u64` by another reads the
/// same.
///
/// ```
/// use shapes::GgufValue;
/// assert_eq!(GgufValue::U32(4096).as_usize(), Some(4096));
/// assert_eq!(GgufValue::I32(-1).as_usize(), None);
/// assert_eq!(GgufValue::String("llama".into()).as_str(), Some("llama"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)] // each variant holds the value of the type it names
pub enum GgufValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    /// A string (invalid UTF-8 is replaced with U+FFFD, as llama.cpp tolerates it).
    String(String),
    Array(GgufArray),
}

impl GgufValue {
    /// The value's GGUF type.
    ///
    /// ```
    /// use shapes::{GgufType, GgufValue};
    /// assert_eq!(GgufValue::Bool(true).value_type(), GgufType::Bool);
    /// ```
    pub fn value_type(&self) -> GgufType {
        match self {
            GgufValue::U8(_) => GgufType::U8,
            GgufValue::I8(_) => GgufType::I8,
            GgufValue::U16(_) => GgufType::U16,
            GgufValue::I16(_) => GgufType::I16,
            GgufValue::U32(_) => GgufType::U32,
            GgufValue::I32(_) => GgufType::I32,
            GgufValue::U64(_) => GgufType::U64,
            GgufValue::I64(_) => GgufType::I64,
            GgufValue::F32(_) => GgufType::F32,
            GgufValue::F64(_) => GgufType::F64,
            GgufValue::Bool(_) => GgufType::Bool,
            GgufValue::String(_) => GgufType::String,
            GgufValue::Array(_) => GgufType::Array,
        }
    }

    /// Any integer with a non-negative value, as `u64`.
    ///
    /// ```
    /// use shapes::GgufValue;
    /// assert_eq!(GgufValue::I64(32).as_u64(), Some(32));
    /// assert_eq!(GgufValue::F32(32.0).as_u64(), None);
    /// ```
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            GgufValue::U8(v) => Some(v.into()),
            GgufValue::U16(v) => Some(v.into()),
            GgufValue::U32(v) => Some(v.into()),
            GgufValue::U64(v) => Some(v),
            GgufValue::I8(v) => u64::try_from(v).ok(),
            GgufValue::I16(v) => u64::try_from(v).ok(),
            GgufValue::I32(v) => u64::try_from(v).ok(),
            GgufValue::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Any integer with a value that fits in `usize` (a dim, a layer count, …).
    ///
    /// ```
    /// assert_eq!(shapes::GgufValue::U64(22).as_usize(), Some(22));
    /// ```
    pub fn as_usize(&self) -> Option<usize> {
        self.as_u64().and_then(|v| usize::try_from(v).ok())
    }

    /// Any integer that fits in `i64`.
    ///
    /// ```
    /// assert_eq!(shapes::GgufValue::I8(-3).as_i64(), Some(-3));
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            GgufValue::I8(v) => Some(v.into()),
            GgufValue::I16(v) => Some(v.into()),
            GgufValue::I32(v) => Some(v.into()),
            GgufValue::I64(v) => Some(v),
            _ => self.as_u64().and_then(|v| i64::try_from(v).ok()),
        }
    }

    /// A float, or an integer converted to `f64` (`rope.freq_base`, `rms_norm_eps`, …).
    ///
    /// ```
    /// assert_eq!(shapes::GgufValue::F32(1e-5).as_f64(), Some(1e-5f32 as f64));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            GgufValue::F32(v) => Some(v.into()),
            GgufValue::F64(v) => Some(v),
            _ => self
                .as_i64()
                .map(|v| v as f64)
                .or_else(|| self.as_u64().map(|v| v as f64)),
        }
    }

    /// A string value.
    ///
    /// ```
    /// assert_eq!(shapes::GgufValue::Bool(true).as_str(), None);
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            GgufValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// A boolean value.
    ///
    /// ```
    /// assert_eq!(shapes::GgufValue::Bool(true).as_bool(), Some(true));
    /// ```
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            GgufValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// An array value.
    ///
    /// ```
    /// assert!(shapes::GgufValue::U8(1).as_array().is_none());
    /// ```
    pub fn as_array(&self) -> Option<&GgufArray> {
        match self {
            GgufValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// A GGUF metadata array: its element type and length always, its elements when the array is
/// small.
///
/// Elements are kept for arrays of scalars or strings with at most
/// [`GgufHeader::MAX_KEPT_ARRAY_LEN`] elements, while the file's kept elements stay within
/// [`GgufHeader::MAX_KEPT_ELEMENTS`]; per-layer settings (head counts and the like) fit. Large
/// arrays, the tokenizer's vocabulary and merges above all, are skipped over without being
/// stored: a shape check does not need them, and `len()` still gives the vocabulary size.
///
/// ```
/// use shapes::{GgufArray, GgufType, GgufValue};
/// # fn vocab(a: &GgufArray) -> u64 { a.len() }
/// let a = GgufArray::new(GgufType::U32, vec![GgufValue::U32(32), GgufValue::U32(8)]);
/// assert_eq!(a.len(), 2);
/// assert_eq!(a.values().map(|v| v.len()), Some(2));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GgufArray {
    elem_type: GgufType,
    len: u64,
    values: Option<Vec<GgufValue>>,
}

impl GgufArray {
    /// An array holding `values`, whose elements are all of type `elem_type`.
    ///
    /// ```
    /// let a = shapes::GgufArray::new(shapes::GgufType::Bool, vec![]);
    /// assert!(a.is_empty());
    /// ```
    pub fn new(elem_type: GgufType, values: Vec<GgufValue>) -> Self {
        GgufArray {
            elem_type,
            len: values.len() as u64,
            values: Some(values),
        }
    }

    /// The elements' type.
    ///
    /// ```
    /// let a = shapes::GgufArray::new(shapes::GgufType::I32, vec![]);
    /// assert_eq!(a.elem_type(), shapes::GgufType::I32);
    /// ```
    pub fn elem_type(&self) -> GgufType {
        self.elem_type
    }

    /// The number of elements in the file (whether or not they were kept).
    ///
    /// ```
    /// let a = shapes::GgufArray::new(shapes::GgufType::U8, vec![shapes::GgufValue::U8(1)]);
    /// assert_eq!(a.len(), 1);
    /// ```
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array has no elements.
    ///
    /// ```
    /// assert!(shapes::GgufArray::new(shapes::GgufType::U8, vec![]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements, or `None` when the array was too large to keep (see the type's docs).
    ///
    /// ```
    /// let a = shapes::GgufArray::new(shapes::GgufType::U8, vec![shapes::GgufValue::U8(7)]);
    /// assert_eq!(a.values(), Some(&[shapes::GgufValue::U8(7)][..]));
    /// ```
    pub fn values(&self) -> Option<&[GgufValue]> {
        self.values.as_deref()
    }
}

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
/// let h = shapes::GgufHeader::read(&f[..], None).unwrap();
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
/// tensor with more than [`MAX_DIMS`](Self::MAX_DIMS) dims, dims whose product overflows
/// `i64` or `usize`, duplicate names or keys, and (with a known file length) tensor data past
/// the end of the file are errors. GGUF v1, v2 and v3 are read; big-endian files are not.
///
/// The metadata a model config needs is typed ([`GgufValue`]), so variables can be bound from
/// it before checking shapes:
///
/// ```
/// use shapes::{Bindings, GgufHeader, ShapeSource};
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
#[derive(Debug, Clone)]
pub struct GgufHeader {
    version: u32,
    metadata: Vec<(String, GgufValue)>,
    meta_index: HashMap<String, usize>,
    tensors: Vec<GgufTensor>,
    index: HashMap<String, usize>,
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
    /// let h = shapes::GgufHeader::read_path("tinyllama-1.1b-chat.Q4_K_M.gguf")?;
    /// println!("{} tensors", h.tensors().len());
    /// # Ok::<(), shapes::GgufError>(())
    /// ```
    pub fn read_path(path: impl AsRef<Path>) -> Result<Self, GgufError> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        // 64 KiB buffers: a header is many small fields, and with a vocabulary it runs to
        // megabytes, so the default 8 KiB would mean hundreds of read calls.
        Self::read(std::io::BufReader::with_capacity(1 << 16, file), Some(len))
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
    /// let e = shapes::GgufHeader::read(&b"GGUF\x04\0\0\0"[..], None).unwrap_err();
    /// assert_eq!(e.to_string(), "GGUF version 4 is not supported (versions 1, 2 and 3 are)");
    /// ```
    pub fn read(reader: impl Read, file_len: Option<u64>) -> Result<Self, GgufError> {
        let mut src = Src {
            r: reader,
            pos: 0,
            file_len,
            wide: true,
            kept: 0,
            scratch: [0; 512],
        };
        let mut magic = [0u8; 4];
        let mut got = 0;
        // A short read is legal for `Read`: finish it before judging the magic.
        while got < 4 {
            // ok: `got < 4 == magic.len()` (the loop condition).
            match src.r.read(&mut magic[got..])? {
                0 => break,
                k => got += k,
            }
        }
        if got < 4 || &magic != b"GGUF" {
            return Err(GgufError::BadMagic {
                // ok: clamped, so a reader that over-reports what it read cannot make it panic.
                found: magic[..got.min(magic.len())].to_vec(),
            });
        }
        src.pos = 4;
        let version = src.u32("the version")?;
        match version {
            1 => src.wide = false,
            2 | 3 => {}
            v if (1..=3).contains(&v.swap_bytes()) => return Err(GgufError::BigEndian(v)),
            v => return Err(GgufError::UnsupportedVersion(v)),
        }
        let tensor_count = src.len("the tensor count")?;
        let kv_count = src.len("the metadata count")?;

        // Least on-disk size of one entry: a kv is key length + type + a 1-byte value; a tensor
        // info is name length + n_dims + type + offset.
        let prefix = src.prefix();
        src.check_count(kv_count, prefix + 4 + 1, "the metadata entries")?;
        let mut metadata = Vec::with_capacity(small(kv_count));
        let mut meta_index = HashMap::with_capacity(small(kv_count));
        for _ in 0..kv_count {
            let key = src.string("a metadata key")?;
            let at = src.pos;
            let code = src.u32("a metadata value type")?;
            let ty =
                GgufType::from_code(code).ok_or(GgufError::UnknownValueType { ty: code, at })?;
            let value = src.value(ty, 0)?;
            if meta_index.insert(key.clone(), metadata.len()).is_some() {
                return Err(GgufError::DuplicateKey(key));
            }
            metadata.push((key, value));
        }

        let alignment = match metadata
            .iter()
            .find(|(k, _)| k == "general.alignment")
            .map(|(_, v)| v)
        {
            None => Self::DEFAULT_ALIGNMENT,
            Some(v) => match v.as_u64() {
                Some(a) if a.is_power_of_two() => a,
                _ => return Err(GgufError::BadAlignment(format!("{v:?}"))),
            },
        };

        src.check_count(tensor_count, prefix + 4 + 4 + 8, "the tensor infos")?;
        let mut tensors = Vec::with_capacity(small(tensor_count));
        let mut index = HashMap::with_capacity(small(tensor_count));
        for _ in 0..tensor_count {
            let tensor = src.tensor_info()?;
            if index.insert(tensor.name.clone(), tensors.len()).is_some() {
                return Err(GgufError::DuplicateName(tensor.name));
            }
            tensors.push(tensor);
        }

        let data_offset = src
            .pos
            .checked_next_multiple_of(alignment)
            .ok_or_else(|| GgufError::BadAlignment(alignment.to_string()))?;
        for t in &tensors {
            check_data(t, alignment, data_offset, file_len)?;
        }
        Ok(GgufHeader {
            version,
            metadata,
            meta_index,
            tensors,
            index,
            alignment,
            data_offset,
        })
    }

    /// Reads the header from a file's bytes (all of it, so that tensor extents are checked).
    ///
    /// ```
    /// assert!(shapes::GgufHeader::from_bytes(b"GGML").is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, GgufError> {
        Self::read(bytes, Some(bytes.len() as u64))
    }

    /// The format version: 1, 2 or 3.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// assert_eq!(shapes::GgufHeader::from_bytes(&f).unwrap().version(), 3);
    /// ```
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Every tensor, in the file's order.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// assert!(shapes::GgufHeader::from_bytes(&f).unwrap().tensors().is_empty());
    /// ```
    pub fn tensors(&self) -> &[GgufTensor] {
        &self.tensors
    }

    /// The tensor called `name`.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// let h = shapes::GgufHeader::from_bytes(&f).unwrap();
    /// assert!(h.get("output.weight").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&GgufTensor> {
        self.index.get(name).and_then(|&i| self.tensors.get(i))
    }

    /// Every metadata pair, in the file's order.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// assert!(shapes::GgufHeader::from_bytes(&f).unwrap().metadata().is_empty());
    /// ```
    pub fn metadata(&self) -> &[(String, GgufValue)] {
        &self.metadata
    }

    /// The metadata value under `key`.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// let h = shapes::GgufHeader::from_bytes(&f).unwrap();
    /// assert!(h.meta("general.name").is_none());
    /// ```
    pub fn meta(&self, key: &str) -> Option<&GgufValue> {
        self.meta_index
            .get(key)
            .and_then(|&i| self.metadata.get(i))
            .map(|(_, v)| v)
    }

    /// `general.architecture` (`"llama"`, `"qwen2"`, `"bert"`, …).
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// assert_eq!(shapes::GgufHeader::from_bytes(&f).unwrap().architecture(), None);
    /// ```
    pub fn architecture(&self) -> Option<&str> {
        self.meta("general.architecture")?.as_str()
    }

    /// The metadata value `"{architecture}.{suffix}"`: `arch_value("block_count")` is
    /// `llama.block_count` in a Llama file.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// let h = shapes::GgufHeader::from_bytes(&f).unwrap();
    /// assert!(h.arch_value("context_length").is_none());
    /// ```
    pub fn arch_value(&self, suffix: &str) -> Option<&GgufValue> {
        self.meta(&format!("{}.{suffix}", self.architecture()?))
    }

    /// [`arch_value`](Self::arch_value) as a `usize`: `embedding_length`, `block_count`,
    /// `attention.head_count`, `attention.head_count_kv`, `feed_forward_length`, ….
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// let h = shapes::GgufHeader::from_bytes(&f).unwrap();
    /// assert_eq!(h.arch_usize("block_count"), None);
    /// ```
    pub fn arch_usize(&self, suffix: &str) -> Option<usize> {
        self.arch_value(suffix)?.as_usize()
    }

    /// The data alignment (`general.alignment`, 32 by default).
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// assert_eq!(shapes::GgufHeader::from_bytes(&f).unwrap().alignment(), 32);
    /// ```
    pub fn alignment(&self) -> u64 {
        self.alignment
    }

    /// Where the tensor data starts in the file: the end of the tensor infos, aligned.
    ///
    /// ```
    /// # let mut f = b"GGUF\x03\0\0\0".to_vec(); f.extend([0u8; 16]);
    /// assert_eq!(shapes::GgufHeader::from_bytes(&f).unwrap().data_offset(), 32);
    /// ```
    pub fn data_offset(&self) -> u64 {
        self.data_offset
    }
}

impl ShapeSource for GgufHeader {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.get(name).map(|t| t.shape.dims())
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.tensors.iter().map(|t| t.name.as_str()).collect()
    }
}

/// A capacity to reserve up front for `count` entries that have already been checked against
/// the bytes left: small, since growth is cheap and the count may still be a lie when the file
/// length is unknown.
fn small(count: u64) -> usize {
    count.min(4096) as usize
}

fn check_data(
    t: &GgufTensor,
    alignment: u64,
    data_offset: u64,
    file_len: Option<u64>,
) -> Result<(), GgufError> {
    if !t.offset.is_multiple_of(alignment) {
        return Err(GgufError::Misaligned {
            name: t.name.clone(),
            offset: t.offset,
            alignment,
        });
    }
    let Some((block, block_bytes)) = t.ggml_type.block() else {
        return Ok(());
    };
    let inner = t.shape.dims().last().copied().unwrap_or(1);
    if !(inner as u64).is_multiple_of(block) {
        return Err(GgufError::PartialBlock {
            name: t.name.clone(),
            ggml_type: t.ggml_type,
            dim: inner,
            block,
        });
    }
    let Some(file_len) = file_len else {
        return Ok(());
    };
    // numel fits in i64 (checked when read), so the byte count fits in u128.
    let numel = t.shape.numel().unwrap_or(usize::MAX) as u128;
    let end = u128::from(data_offset)
        + u128::from(t.offset)
        + numel / u128::from(block) * u128::from(block_bytes);
    if end > u128::from(file_len) {
        return Err(GgufError::DataBeyondFile {
            name: t.name.clone(),
            end: u64::try_from(end).unwrap_or(u64::MAX),
            file_len,
        });
    }
    Ok(())
}

/// The reader with its position: every read is bounds-checked first.
struct Src<R> {
    r: R,
    pos: u64,
    file_len: Option<u64>,
    /// v2/v3: lengths, counts and dims are u64; v1: u32.
    wide: bool,
    /// Array elements kept so far.
    kept: u64,
    /// Where skipped bytes go (one buffer, not one zeroed per skipped string).
    scratch: [u8; 512],
}

impl<R: Read> Src<R> {
    fn prefix(&self) -> u64 {
        if self.wide { 8 } else { 4 }
    }

    /// Checks that `needed` more bytes may be read at the current position.
    fn ensure(&self, needed: u64, what: &'static str) -> Result<(), GgufError> {
        let end = self.pos.saturating_add(needed);
        if let Some(file_len) = self.file_len
            && end > file_len
        {
            return Err(GgufError::Truncated {
                what,
                at: self.pos,
                needed,
                available: file_len.saturating_sub(self.pos),
            });
        }
        if end > GgufHeader::MAX_HEADER_LEN {
            return Err(GgufError::HeaderTooLarge {
                what,
                at: self.pos,
                needed,
                limit: GgufHeader::MAX_HEADER_LEN,
            });
        }
        Ok(())
    }

    /// Checks that `count` entries of at least `min_size` bytes each can fit.
    fn check_count(&self, count: u64, min_size: u64, what: &'static str) -> Result<(), GgufError> {
        self.ensure(count.saturating_mul(min_size), what)
    }

    fn fill(&mut self, buf: &mut [u8], what: &'static str) -> Result<(), GgufError> {
        let needed = buf.len() as u64;
        self.ensure(needed, what)?;
        let at = self.pos;
        self.r
            .read_exact(buf)
            .map_err(|e| eof(e, what, at, needed))?;
        self.pos += needed;
        Ok(())
    }

    fn bytes<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], GgufError> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        Ok(b)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, GgufError> {
        self.bytes(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, GgufError> {
        self.bytes(what).map(u64::from_le_bytes)
    }

    /// A length, count or dim: u64 in v2/v3, u32 in v1.
    fn len(&mut self, what: &'static str) -> Result<u64, GgufError> {
        if self.wide {
            self.u64(what)
        } else {
            self.u32(what).map(u64::from)
        }
    }

    fn skip(&mut self, n: u64, what: &'static str) -> Result<(), GgufError> {
        self.ensure(n, what)?;
        let at = self.pos;
        let mut left = n;
        while left > 0 {
            // ok: `k <= self.scratch.len()`, so `scratch[..k]` is in bounds.
            let k = left.min(self.scratch.len() as u64) as usize;
            self.r
                .read_exact(&mut self.scratch[..k])
                .map_err(|e| eof(e, what, at, n))?;
            left -= k as u64;
        }
        self.pos += n;
        Ok(())
    }

    fn string(&mut self, what: &'static str) -> Result<String, GgufError> {
        let n = self.len(what)?;
        self.ensure(n, what)?;
        let at = self.pos;
        let bytes = if n <= 1 << 16 {
            let mut v = vec![0u8; n as usize];
            self.r.read_exact(&mut v).map_err(|e| eof(e, what, at, n))?;
            v
        } else {
            // Grows with what actually arrives (the length may be a lie when the file length
            // is unknown); `ensure` has bounded `n` by MAX_HEADER_LEN.
            let mut v = Vec::with_capacity(1 << 16);
            (&mut self.r).take(n).read_to_end(&mut v)?;
            if (v.len() as u64) < n {
                return Err(GgufError::Truncated {
                    what,
                    at,
                    needed: n,
                    available: v.len() as u64,
                });
            }
            v
        };
        self.pos += n;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    fn skip_string(&mut self, what: &'static str) -> Result<(), GgufError> {
        let n = self.len(what)?;
        self.skip(n, what)
    }

    fn value(&mut self, ty: GgufType, depth: usize) -> Result<GgufValue, GgufError> {
        const W: &str = "a metadata value";
        Ok(match ty {
            GgufType::U8 => GgufValue::U8(u8::from_le_bytes(self.bytes(W)?)),
            GgufType::I8 => GgufValue::I8(i8::from_le_bytes(self.bytes(W)?)),
            GgufType::U16 => GgufValue::U16(u16::from_le_bytes(self.bytes(W)?)),
            GgufType::I16 => GgufValue::I16(i16::from_le_bytes(self.bytes(W)?)),
            GgufType::U32 => GgufValue::U32(u32::from_le_bytes(self.bytes(W)?)),
            GgufType::I32 => GgufValue::I32(i32::from_le_bytes(self.bytes(W)?)),
            GgufType::U64 => GgufValue::U64(u64::from_le_bytes(self.bytes(W)?)),
            GgufType::I64 => GgufValue::I64(i64::from_le_bytes(self.bytes(W)?)),
            GgufType::F32 => GgufValue::F32(f32::from_le_bytes(self.bytes(W)?)),
            GgufType::F64 => GgufValue::F64(f64::from_le_bytes(self.bytes(W)?)),
            GgufType::Bool => {
                let at = self.pos;
                match self.bytes::<1>(W)?[0] {
                    0 => GgufValue::Bool(false),
                    1 => GgufValue::Bool(true),
                    value => return Err(GgufError::BadBool { value, at }),
                }
            }
            GgufType::String => GgufValue::String(self.string("a metadata string")?),
            GgufType::Array => GgufValue::Array(self.array(depth, true)?),
        })
    }

    /// An array (after its value-type code); with `keep` false, or when it is too large, its
    /// elements are skipped over.
    fn array(&mut self, depth: usize, keep: bool) -> Result<GgufArray, GgufError> {
        let at = self.pos;
        if depth >= GgufHeader::MAX_ARRAY_DEPTH {
            return Err(GgufError::ArrayTooDeep {
                at,
                max: GgufHeader::MAX_ARRAY_DEPTH,
            });
        }
        let code = self.u32("an array's element type")?;
        let elem_type =
            GgufType::from_code(code).ok_or(GgufError::UnknownValueType { ty: code, at })?;
        let len = self.len("an array's length")?;
        let min_size = match elem_type {
            GgufType::String => self.prefix(),
            GgufType::Array => 4 + self.prefix(),
            t => t.fixed_size().unwrap_or(1),
        };
        self.check_count(len, min_size, "an array's elements")?;
        let keep = keep
            && elem_type != GgufType::Array
            && len <= GgufHeader::MAX_KEPT_ARRAY_LEN
            && self.kept + len <= GgufHeader::MAX_KEPT_ELEMENTS;
        let values = if keep {
            self.kept += len;
            let mut values = Vec::with_capacity(len as usize);
            for _ in 0..len {
                values.push(self.value(elem_type, depth + 1)?);
            }
            Some(values)
        } else {
            match elem_type {
                GgufType::String => {
                    for _ in 0..len {
                        self.skip_string("a string in an array")?;
                    }
                }
                GgufType::Array => {
                    for _ in 0..len {
                        self.array(depth + 1, false)?;
                    }
                }
                GgufType::Bool => {
                    for _ in 0..len {
                        self.value(GgufType::Bool, depth + 1)?;
                    }
                }
                // Fixed-size elements: `check_count` bounded `len * min_size`.
                _ => self.skip(len * min_size, "an array's elements")?,
            }
            None
        };
        Ok(GgufArray {
            elem_type,
            len,
            values,
        })
    }

    fn tensor_info(&mut self) -> Result<GgufTensor, GgufError> {
        let name = self.string("a tensor name")?;
        let n_dims = self.u32("a tensor's dim count")?;
        if n_dims as usize > GgufHeader::MAX_DIMS {
            return Err(GgufError::TooManyDims {
                name,
                n_dims,
                max: GgufHeader::MAX_DIMS,
            });
        }
        let rank = n_dims as usize;
        let mut raw = [0u64; INLINE_RANK];
        for d in raw.iter_mut().take(rank) {
            *d = self.len("a tensor's dims")?;
        }
        let mut dims = [0usize; INLINE_RANK];
        let mut numel: Option<usize> = Some(1);
        // ok (here and below): `rank <= MAX_DIMS == INLINE_RANK` is checked above, and
        // `i < rank`, so `raw[..rank]` and `dims[rank - 1 - i]` are in bounds.
        for (i, &d) in raw[..rank].iter().enumerate() {
            let d = usize::try_from(d).ok();
            dims[rank - 1 - i] = d.unwrap_or(0);
            numel = numel.zip(d).and_then(|(n, d)| n.checked_mul(d));
        }
        if numel.is_none_or(|n| i64::try_from(n).is_err()) {
            return Err(GgufError::ShapeOverflow {
                name,
                dims: raw[..rank].to_vec(),
            });
        }
        let ggml_type = GgmlType(self.u32("a tensor's type")?);
        let offset = self.u64("a tensor's offset")?;
        Ok(GgufTensor {
            name,
            shape: Shape::from_inline(dims, rank),
            ggml_type,
            offset,
        })
    }
}

fn eof(e: std::io::Error, what: &'static str, at: u64, needed: u64) -> GgufError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        GgufError::Truncated {
            what,
            at,
            needed,
            available: 0,
        }
    } else {
        GgufError::Io(e)
    }
}
