//! [`GgufError`]: why a GGUF header could not be read.

use super::ggml_type::GgmlType;

/// Why a GGUF header could not be read. Every variant says what is wrong and where: a byte
/// offset into the file, and the tensor's name once it is known.
#[derive(thiserror::Error)]
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
        /// [`GgufHeader::MAX_HEADER_LEN`](super::GgufHeader::MAX_HEADER_LEN).
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
    /// Arrays nested deeper than [`GgufHeader::MAX_ARRAY_DEPTH`](super::GgufHeader::MAX_ARRAY_DEPTH).
    #[error("GGUF arrays nested more than {max} deep at byte {at}")]
    ArrayTooDeep {
        /// Offset of the innermost array.
        at: u64,
        /// [`GgufHeader::MAX_ARRAY_DEPTH`](super::GgufHeader::MAX_ARRAY_DEPTH).
        max: usize,
    },
    /// One metadata key appears twice.
    #[error("GGUF metadata key {} appears twice", crate::text::quoted(.0))]
    DuplicateKey(String),
    /// One tensor name appears twice.
    #[error("tensor {} appears twice in the GGUF header", crate::text::quoted(.0))]
    DuplicateName(String),
    /// More dims than [`GgufHeader::MAX_DIMS`](super::GgufHeader::MAX_DIMS).
    #[error(
        "tensor {} has {n_dims} dims; at most {max} are accepted (ggml uses 4)",
        crate::text::quoted(name)
    )]
    TooManyDims {
        /// The tensor.
        name: String,
        /// Its declared rank.
        n_dims: u32,
        /// [`GgufHeader::MAX_DIMS`](super::GgufHeader::MAX_DIMS).
        max: usize,
    },
    /// A dim does not fit in `i64`, or their product overflows `usize` or `i64` (ggml's dim
    /// and element count type).
    #[error(
        "tensor {}: dims {dims:?} (ggml order) overflow: every dim and the element count must fit in i64",
        crate::text::quoted(name)
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
    #[error(
        "tensor {}: data offset {offset} is not a multiple of the alignment {alignment}",
        crate::text::quoted(name)
    )]
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
        "tensor {}: innermost dim {dim} is not a multiple of {ggml_type}'s block size {block}",
        crate::text::quoted(name)
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
        "tensor {}: its data ends at byte {end} but the file has {file_len} bytes (truncated download?)",
        crate::text::quoted(name)
    )]
    DataBeyondFile {
        /// The tensor.
        name: String,
        /// Absolute end offset of its data.
        end: u64,
        /// The file's length.
        file_len: u64,
    },
    /// A tensor name or metadata key that is not UTF-8: it could not be looked up, and read
    /// lossily two distinct names could read as one.
    #[error("GGUF {what} at byte {at} is not UTF-8")]
    NotUtf8 {
        /// What it is (`a tensor name`, `a metadata key`).
        what: &'static str,
        /// Byte offset of its length field.
        at: u64,
    },
    /// A tensor name longer than [`GgufHeader::MAX_NAME_LEN`](super::GgufHeader::MAX_NAME_LEN)
    /// bytes, which llama.cpp refuses to load.
    #[error(
        "tensor name {} is {len} bytes long; GGUF allows at most {max} (llama.cpp refuses the file)",
        crate::text::quoted(name)
    )]
    NameTooLong {
        /// The name.
        name: String,
        /// Its length in bytes.
        len: usize,
        /// [`GgufHeader::MAX_NAME_LEN`](super::GgufHeader::MAX_NAME_LEN).
        max: usize,
    },
    /// The tensors' data are not laid out back to back in file order, each padded to the
    /// alignment, as llama.cpp requires.
    #[error(
        "tensor {}: data offset {offset} but the tensors before it end at {expected} (padded to the alignment): llama.cpp refuses a gap, an overlap or another order",
        crate::text::quoted(name)
    )]
    NotContiguous {
        /// The tensor.
        name: String,
        /// Its offset, relative to the data section.
        offset: u64,
        /// Where it should start.
        expected: u64,
    },
    /// The data section starts past the end of the file (a huge `general.alignment`).
    #[error(
        "the data section starts at byte {data_offset} (alignment {alignment}) but the file has {file_len} bytes"
    )]
    DataOffsetBeyondFile {
        /// Where the data section starts.
        data_offset: u64,
        /// The alignment that put it there.
        alignment: u64,
        /// The file's length.
        file_len: u64,
    },
    /// More tensors than [`GgufHeader::MAX_TENSORS`](super::GgufHeader::MAX_TENSORS) or
    /// metadata entries than [`GgufHeader::MAX_METADATA`](super::GgufHeader::MAX_METADATA).
    #[error(
        "the GGUF header claims {count} {what}, more than the {max} accepted: a corrupt or hostile file"
    )]
    TooMany {
        /// `tensors` or `metadata entries`.
        what: &'static str,
        /// The count in the file.
        count: u64,
        /// The limit.
        max: u64,
    },
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for GgufError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}
