//! The header of a safetensors file: 8 bytes of little-endian length, then JSON. Only the
//! header is read; tensor bytes are never touched.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::Path;

use ::safetensors::Dtype;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::ShapeSource;
use super::header::{Indexed, Named, TensorInfo, read_prefix};
use crate::shape::Shape;

/// Why a safetensors header could not be read. Every variant says what is wrong and, where
/// there is one, which tensor.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum SafetensorsError {
    /// Reading failed.
    #[error("cannot read the safetensors header: {0}")]
    Io(#[from] std::io::Error),
    /// Fewer than the 8 length bytes.
    #[error("not a safetensors file: {len} bytes, fewer than the 8-byte header length")]
    TooShort {
        /// Bytes available.
        len: u64,
    },
    /// The declared header length is beyond the sanity limit.
    #[error(
        "safetensors header length {len} is over the {limit}-byte limit: not a safetensors file, or a corrupt one"
    )]
    HeaderTooLarge {
        /// The declared length.
        len: u64,
        /// The limit, [`SafetensorsHeader::MAX_HEADER_LEN`].
        limit: u64,
    },
    /// The declared header length runs past the end of the file.
    #[error(
        "safetensors header claims {header_len} bytes but only {available} follow the length field: the file is truncated or not safetensors"
    )]
    HeaderBeyondFile {
        /// The declared length.
        header_len: u64,
        /// Bytes after the length field.
        available: u64,
    },
    /// The header is not the expected JSON.
    #[error("malformed safetensors header JSON: {0}")]
    Json(String),
    /// One tensor name appears twice.
    #[error("tensor {} appears twice in the safetensors header", crate::text::quoted(.0))]
    DuplicateName(String),
    /// A dim does not fit in `i64`, or the element count overflows `usize` or `i64` (the
    /// dim and element count type of PyTorch and ggml).
    #[error(
        "tensor {}: shape {shape:?} does not fit: every dim and the element count must fit in i64",
        crate::text::quoted(name)
    )]
    ShapeOverflow {
        /// The tensor.
        name: String,
        /// Its dims as written.
        shape: Vec<u64>,
    },
    /// A tensor has more dims than [`SafetensorsHeader::MAX_RANK`].
    #[error(
        "tensor {} has {rank} dims, more than the {max} this reader accepts (no published model uses more than 5)",
        crate::text::quoted(name)
    )]
    TooManyDims {
        /// The tensor.
        name: String,
        /// Its rank.
        rank: usize,
        /// The limit, [`SafetensorsHeader::MAX_RANK`].
        max: usize,
    },
    /// The header lists more than [`SafetensorsHeader::MAX_TENSORS`] tensors.
    #[error("the safetensors header lists more than {max} tensors: a corrupt or hostile file")]
    TooManyTensors {
        /// The limit, [`SafetensorsHeader::MAX_TENSORS`].
        max: usize,
    },
    /// Bytes follow the last tensor's data: the `safetensors` crate refuses such a file.
    #[error(
        "the data section has {data_len} bytes but the tensors cover {used}: the file has trailing bytes or is not the file its header describes"
    )]
    TrailingBytes {
        /// Bytes after the header.
        data_len: u64,
        /// Bytes the tensors cover.
        used: u64,
    },
    /// `data_offsets` are reversed, do not match the dtype and shape, or do not tile the data
    /// section (a gap, an overlap, or a first tensor not at 0).
    #[error(
        "tensor {}: data_offsets [{start}, {end}] {problem}",
        crate::text::quoted(name)
    )]
    BadOffsets {
        /// The tensor.
        name: String,
        /// Declared start.
        start: u64,
        /// Declared end.
        end: u64,
        /// What is wrong.
        problem: String,
    },
}

/// One tensor's entry in a safetensors header.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorEntry {
    /// The tensor's name.
    pub name: String,
    /// Its element type.
    pub dtype: Dtype,
    /// Its shape.
    pub shape: Shape,
    /// Its byte range in the data section.
    pub data_offsets: (u64, u64),
}

/// A parsed safetensors header: every tensor's name, dtype, shape and byte range, and the
/// `__metadata__` strings.
///
/// Reading is bounded: a header length over [`MAX_HEADER_LEN`](Self::MAX_HEADER_LEN) or past
/// the end of the file is an error before anything is allocated for it; every shape and offset
/// is checked with overflow-checked arithmetic; duplicate names are an error.
///
/// ```
/// use shapes::{ShapeSource, checkpoint::SafetensorsHeader};
///
/// let json = br#"{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}"#;
/// let mut file = (json.len() as u64).to_le_bytes().to_vec();
/// file.extend_from_slice(json);
/// file.extend_from_slice(&[0u8; 24]);
/// let header = SafetensorsHeader::from_bytes(&file).unwrap();
/// assert_eq!(header.shape_of("w"), Some(&[2, 3][..]));
/// ```
#[derive(Clone)]
pub struct SafetensorsHeader {
    tensors: Indexed<TensorEntry>,
    metadata: BTreeMap<String, String>,
    header_len: u64,
}

impl SafetensorsHeader {
    /// The largest header accepted, as in the `safetensors` crate: 100 MB.
    pub const MAX_HEADER_LEN: u64 = 100_000_000;
    /// The most dims a tensor may have: 8, as [`GgufHeader::MAX_DIMS`](crate::checkpoint::GgufHeader).
    /// Published checkpoints use at most 5 (a 3-d convolution's weight); a larger rank in a
    /// header is far more likely a corrupt or hostile file than a model.
    pub const MAX_RANK: usize = crate::shape::INLINE_RANK;
    /// The most tensors a header may list: 2^20, as [`GgufHeader::MAX_TENSORS`](crate::checkpoint::GgufHeader).
    /// Published checkpoints list at most a few thousand per file.
    pub const MAX_TENSORS: usize = super::header::MAX_TENSORS;

    /// Reads the header of the file at `path`: 8 + header-length bytes, whatever the file's
    /// size.
    ///
    /// ```no_run
    /// let h = shapes::checkpoint::SafetensorsHeader::read_path("model.safetensors")?;
    /// # Ok::<(), shapes::checkpoint::SafetensorsError>(())
    /// ```
    pub fn read_path(path: impl AsRef<Path>) -> Result<Self, SafetensorsError> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        Self::read(std::io::BufReader::new(file), Some(len))
    }

    /// Reads a header from `reader`, positioned at the start of a safetensors file. With
    /// `file_len`, a header length past the end of the file is an error before any read; data
    /// offsets past the end of the file are errors too.
    ///
    /// ```
    /// let json = br#"{"b":{"dtype":"I8","shape":[4],"data_offsets":[0,4]}}"#;
    /// let mut file = (json.len() as u64).to_le_bytes().to_vec();
    /// file.extend_from_slice(json);
    /// let h = shapes::checkpoint::SafetensorsHeader::read(&file[..], None).unwrap();
    /// assert_eq!(h.tensors()[0].name, "b");
    /// ```
    pub fn read(mut reader: impl Read, file_len: Option<u64>) -> Result<Self, SafetensorsError> {
        let (len_bytes, got) = read_prefix::<8>(&mut reader)?;
        if got < 8 {
            return Err(SafetensorsError::TooShort { len: got as u64 });
        }
        let header_len = u64::from_le_bytes(len_bytes);
        if header_len > Self::MAX_HEADER_LEN {
            return Err(SafetensorsError::HeaderTooLarge {
                len: header_len,
                limit: Self::MAX_HEADER_LEN,
            });
        }
        if let Some(file_len) = file_len {
            let available = file_len.saturating_sub(8);
            if header_len > available {
                return Err(SafetensorsError::HeaderBeyondFile {
                    header_len,
                    available,
                });
            }
        }
        // Grows with what actually arrives: a lying length cannot make this allocate more
        // than the bytes the reader really has.
        let mut json = Vec::with_capacity(header_len.min(1 << 20) as usize);
        reader.by_ref().take(header_len).read_to_end(&mut json)?;
        if (json.len() as u64) < header_len {
            return Err(SafetensorsError::HeaderBeyondFile {
                header_len,
                available: json.len() as u64,
            });
        }
        let data_len = file_len.map(|f| f.saturating_sub(8 + header_len));
        Self::parse(&json, header_len, data_len)
    }

    /// Reads the header from a file's bytes (all of it, or at least the header).
    ///
    /// ```
    /// assert!(shapes::checkpoint::SafetensorsHeader::from_bytes(&[1, 2, 3]).is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SafetensorsError> {
        Self::read(bytes, Some(bytes.len() as u64))
    }

    fn parse(
        json: &[u8],
        header_len: u64,
        data_len: Option<u64>,
    ) -> Result<Self, SafetensorsError> {
        let mut failure = None;
        let mut de = serde_json::Deserializer::from_slice(json);
        let raw = de
            .deserialize_map(HeaderVisitor {
                failure: &mut failure,
                data_len,
            })
            .and_then(|raw| de.end().map(|()| raw))
            .map_err(|e| match failure.take() {
                Some(failure) => failure,
                None => SafetensorsError::Json(e.to_string()),
            })?;
        let tensors =
            Indexed::new(raw.tensors).map_err(|t| SafetensorsError::DuplicateName(t.name))?;
        let used = check_layout(tensors.items())?;
        if let Some(data_len) = data_len
            && used != data_len
        {
            return Err(SafetensorsError::TrailingBytes { data_len, used });
        }
        Ok(SafetensorsHeader {
            tensors,
            metadata: raw.metadata,
            header_len,
        })
    }

    /// Every tensor, in the header's order.
    pub fn tensors(&self) -> &[TensorEntry] {
        self.tensors.items()
    }

    /// The tensor called `name`.
    ///
    /// ```
    /// # let json = br#"{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}"#;
    /// # let mut file = (json.len() as u64).to_le_bytes().to_vec();
    /// # file.extend_from_slice(json);
    /// let h = shapes::checkpoint::SafetensorsHeader::read(&file[..], None).unwrap();
    /// assert_eq!(h.get("w").map(|t| t.shape.rank()), Some(1));
    /// ```
    pub fn get(&self, name: &str) -> Option<&TensorEntry> {
        self.tensors.get(name)
    }

    /// The `__metadata__` strings.
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// The header's length in bytes (after the 8-byte length field).
    pub fn header_len(&self) -> u64 {
        self.header_len
    }
}

/// One tensor's entry, checked: its rank, dims and element count within limits, and
/// `data_offsets` spanning exactly its bytes inside the data section (when its length is
/// known).
fn check_entry(
    name: String,
    entry: RawEntry,
    data_len: Option<u64>,
) -> Result<TensorEntry, SafetensorsError> {
    if entry.shape.rank > SafetensorsHeader::MAX_RANK {
        return Err(SafetensorsError::TooManyDims {
            name,
            rank: entry.shape.rank,
            max: SafetensorsHeader::MAX_RANK,
        });
    }
    let dims = &entry.shape.dims;
    // Every dim and the element count fit `i64`, as PyTorch and ggml require (a dim of
    // 2^64 - 1 next to a 0 has 0 elements but is no shape a framework can hold).
    let shape: Option<Shape> = dims
        .iter()
        .map(|&d| i64::try_from(d).ok().and_then(|_| usize::try_from(d).ok()))
        .collect();
    let numel = shape
        .as_ref()
        .and_then(|s| s.numel())
        .filter(|&n| i64::try_from(n).is_ok());
    let (Some(shape), Some(numel)) = (shape, numel) else {
        return Err(SafetensorsError::ShapeOverflow {
            name,
            shape: dims.to_vec(),
        });
    };
    let [start, end] = entry.data_offsets;
    let bad = |problem: String| SafetensorsError::BadOffsets {
        name: name.clone(),
        start,
        end,
        problem,
    };
    if end < start {
        return Err(bad("end before start".into()));
    }
    let bits = (numel as u128) * (entry.dtype.bitsize() as u128);
    if !bits.is_multiple_of(8) {
        return Err(bad(format!(
            "cannot hold {:?} {shape}: {bits} bits is not a whole number of bytes",
            entry.dtype
        )));
    }
    let bytes = bits / 8;
    if u128::from(end - start) != bytes {
        return Err(bad(format!(
            "span {} bytes but {:?} {} needs {bytes}",
            end - start,
            entry.dtype,
            shape
        )));
    }
    if let Some(data_len) = data_len
        && end > data_len
    {
        return Err(bad(format!(
            "run past the end of the data section ({data_len} bytes)"
        )));
    }
    Ok(TensorEntry {
        name,
        dtype: entry.dtype,
        shape,
        data_offsets: (start, end),
    })
}

/// The data section's layout, as the `safetensors` crate requires it: the tensors, in order
/// of their offsets, tile the section from byte 0 with no gap and no overlap. Returns the
/// bytes they cover.
fn check_layout(tensors: &[TensorEntry]) -> Result<u64, SafetensorsError> {
    let mut order: Vec<&TensorEntry> = tensors.iter().collect();
    order.sort_by_key(|t| t.data_offsets);
    let mut next = 0u64;
    for t in order {
        let (start, end) = t.data_offsets;
        if start != next {
            let problem = match (next, start < next) {
                (0, _) => {
                    "do not start the data section: the first tensor's data starts at 0".to_string()
                }
                (_, true) => format!("overlap the tensor before, which ends at {next}"),
                (_, false) => format!(
                    "leave a gap after the tensor before, which ends at {next}: tensors must be contiguous"
                ),
            };
            return Err(SafetensorsError::BadOffsets {
                name: t.name.clone(),
                start,
                end,
                problem,
            });
        }
        next = end;
    }
    Ok(next)
}

impl ShapeSource for SafetensorsHeader {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        self.tensors.shape_of(name)
    }
    fn tensor_names(&self) -> Vec<&str> {
        self.tensors.tensor_names()
    }
}

// Field for field what `#[derive(Debug)]` printed before the entries and their index were
// kept together in `Indexed`.
impl fmt::Debug for SafetensorsHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SafetensorsHeader")
            .field("tensors", &self.tensors.items())
            .field("metadata", &self.metadata)
            .field("header_len", &self.header_len)
            .finish()
    }
}

impl Named for TensorEntry {
    fn name(&self) -> &str {
        &self.name
    }
}

impl TensorInfo for TensorEntry {
    fn dims(&self) -> &[usize] {
        self.shape.dims()
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    dtype: Dtype,
    shape: RawDims,
    data_offsets: [u64; 2],
}

/// A shape as written: its first [`SafetensorsHeader::MAX_RANK`] dims and its rank. Dims past
/// the limit are counted, not stored, so a rank of 50 million costs no memory.
struct RawDims {
    dims: smallvec::SmallVec<[u64; crate::shape::INLINE_RANK]>,
    rank: usize,
}

impl<'de> serde::Deserialize<'de> for RawDims {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DimsVisitor;
        impl<'de> Visitor<'de> for DimsVisitor {
            type Value = RawDims;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of dims")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawDims, A::Error> {
                let mut out = RawDims {
                    dims: smallvec::SmallVec::new(),
                    rank: 0,
                };
                while out.rank < SafetensorsHeader::MAX_RANK {
                    match seq.next_element::<u64>()? {
                        Some(d) => out.dims.push(d),
                        None => return Ok(out),
                    }
                    out.rank += 1;
                }
                while seq.next_element::<u64>()?.is_some() {
                    out.rank = out.rank.saturating_add(1);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(DimsVisitor)
    }
}

struct RawHeader {
    tensors: Vec<TensorEntry>,
    metadata: BTreeMap<String, String>,
}

/// Streams the header's map, checking each tensor entry as it arrives and refusing a second
/// `__metadata__` (a second tensor of one name is refused as it is indexed). serde's errors
/// carry only a message, so what is wrong comes back through `failure`.
struct HeaderVisitor<'a> {
    failure: &'a mut Option<SafetensorsError>,
    data_len: Option<u64>,
}

impl<'de> Visitor<'de> for HeaderVisitor<'_> {
    type Value = RawHeader;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object mapping tensor names to {dtype, shape, data_offsets}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawHeader, A::Error> {
        let mut tensors: Vec<TensorEntry> = Vec::new();
        let mut metadata = None;
        // Tensor names are checked for duplicates as they are indexed; the metadata here.
        while let Some(key) = map.next_key::<String>()? {
            if key == "__metadata__" {
                if metadata.is_some() {
                    *self.failure = Some(SafetensorsError::DuplicateName(key));
                    return Err(de::Error::custom("duplicate tensor name"));
                }
                // `null` is no metadata, as for the `safetensors` crate.
                metadata = Some(map.next_value::<Option<BTreeMap<String, String>>>()?);
            } else {
                // Checked and converted as it arrives, so that the raw entries and the
                // checked ones are never all in memory at once.
                if tensors.len() >= SafetensorsHeader::MAX_TENSORS {
                    *self.failure = Some(SafetensorsError::TooManyTensors {
                        max: SafetensorsHeader::MAX_TENSORS,
                    });
                    return Err(de::Error::custom("too many tensors"));
                }
                let entry: RawEntry = map.next_value()?;
                match check_entry(key, entry, self.data_len) {
                    Ok(t) => tensors.push(t),
                    Err(e) => {
                        *self.failure = Some(e);
                        return Err(de::Error::custom("bad tensor entry"));
                    }
                }
            }
        }
        Ok(RawHeader {
            tensors,
            metadata: metadata.flatten().unwrap_or_default(),
        })
    }
}

/// Reads like `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the message.
impl core::fmt::Debug for SafetensorsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(json: &str, data: usize) -> Vec<u8> {
        let mut f = (json.len() as u64).to_le_bytes().to_vec();
        f.extend_from_slice(json.as_bytes());
        f.extend(std::iter::repeat_n(0u8, data));
        f
    }

    #[test]
    fn reads_the_shipped_checkpoint_header_only() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/fracast/fracast_model.safetensors"
        );
        let h = SafetensorsHeader::read_path(path).unwrap();
        assert_eq!(h.tensors().len(), 47);
        assert_eq!(h.shape_of("core.block.dw_weight"), Some(&[64, 1, 3][..]));
        assert_eq!(
            h.metadata().get("model_name").map(String::as_str),
            Some("fracast-0")
        );
    }

    #[test]
    fn every_bad_file_is_a_clear_error() {
        let ok = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
        assert!(SafetensorsHeader::from_bytes(&file(ok, 8)).is_ok());
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (vec![1, 2, 3], "fewer than the 8-byte"),
            (
                u64::MAX.to_le_bytes().to_vec(),
                "over the 100000000-byte limit",
            ),
            (
                {
                    let mut f = file(ok, 8);
                    f[0] = 200;
                    f
                },
                "claims 200 bytes but only",
            ),
            (file(ok, 8)[..20].to_vec(), "claims"),
            (file("{\"w\": [1, 2", 0), "malformed"),
            (file("[1]", 0), "malformed"),
            (file(&format!("{ok} trailing"), 8), "malformed"),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#,
                    16,
                ),
                "appears twice",
            ),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[18446744073709551615,2],"data_offsets":[0,8]}}"#,
                    8,
                ),
                "does not fit",
            ),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,8]}}"#,
                    8,
                ),
                "malformed",
            ),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}"#,
                    8,
                ),
                "end before start",
            ),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
                    8,
                ),
                "needs 12",
            ),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
                    4,
                ),
                "past the end of the data",
            ),
            (
                file(
                    r#"{"w":{"dtype":"Q9","shape":[2],"data_offsets":[0,8]}}"#,
                    8,
                ),
                "malformed",
            ),
            (
                file(
                    r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}}"#,
                    8,
                ),
                "malformed",
            ),
        ];
        for (bytes, expected) in cases {
            let e = SafetensorsHeader::from_bytes(&bytes)
                .unwrap_err()
                .to_string();
            assert!(e.contains(expected), "{e:?} should contain {expected:?}");
        }
    }

    #[test]
    fn a_lying_reader_cannot_force_a_large_allocation() {
        // Claims 99 MB, delivers 10 bytes, no file length known.
        let mut f = 99_000_000u64.to_le_bytes().to_vec();
        f.extend_from_slice(b"{\"a\":1}   ");
        let e = SafetensorsHeader::read(&f[..], None).unwrap_err();
        assert!(
            matches!(e, SafetensorsError::HeaderBeyondFile { available: 10, .. }),
            "{e}"
        );
    }
}
