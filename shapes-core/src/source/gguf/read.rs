//! The binary reader: the fixed header, the metadata and the tensor infos, every count and
//! length checked before anything is read or allocated for it.

use std::io::Read;

use super::error::GgufError;
use super::file_buf::Input;
use super::ggml_type::GgmlType;
use super::value::{GgufArray, GgufType, GgufValue};
use super::{GgufHeader, GgufTensor};
use crate::shape::{INLINE_RANK, Shape};
use crate::source::header::{Indexed, read_prefix};

/// Reads a header from `reader`, positioned at the start of a GGUF file (see
/// [`GgufHeader::read`]).
pub(super) fn header(reader: impl Input, file_len: Option<u64>) -> Result<GgufHeader, GgufError> {
    let mut reader = HeaderReader {
        r: reader,
        pos: 0,
        file_len,
        u64_lengths: true,
        kept: 0,
        scratch: [0; 512],
    };
    let (magic, got) = read_prefix::<4>(&mut reader.r)?;
    if got < 4 || &magic != b"GGUF" {
        return Err(GgufError::BadMagic {
            // ok: `read_prefix` clamps `got` to `magic.len()`.
            found: magic[..got].to_vec(),
        });
    }
    reader.pos = 4;
    let version = reader.u32("the version")?;
    match version {
        1 => reader.u64_lengths = false,
        2 | 3 => {}
        v if (1..=3).contains(&v.swap_bytes()) => return Err(GgufError::BigEndian(v)),
        v => return Err(GgufError::UnsupportedVersion(v)),
    }
    let tensor_count = reader.len("the tensor count")?;
    let kv_count = reader.len("the metadata count")?;
    for (what, count, max) in [
        ("tensors", tensor_count, GgufHeader::MAX_TENSORS),
        ("metadata entries", kv_count, GgufHeader::MAX_METADATA),
    ] {
        if count > max {
            return Err(GgufError::TooMany { what, count, max });
        }
    }

    // Least on-disk size of one entry: a kv is key length + type + a 1-byte value; a tensor
    // info is name length + n_dims + type + offset.
    let len_prefix = reader.len_prefix_size();
    reader.check_count(kv_count, len_prefix + 4 + 1, "the metadata entries")?;
    let mut metadata = Vec::with_capacity(initial_capacity(kv_count));
    for _ in 0..kv_count {
        let key = reader.name("a metadata key")?;
        let at = reader.pos;
        let code = reader.u32("a metadata value type")?;
        let ty = GgufType::from_code(code).ok_or(GgufError::UnknownValueType { ty: code, at })?;
        let value = reader.value(ty, 0)?;
        metadata.push((key, value));
    }
    let metadata = Indexed::new(metadata).map_err(|(key, _)| GgufError::DuplicateKey(key))?;

    let alignment = match metadata.get("general.alignment").map(|(_, v)| v) {
        None => GgufHeader::DEFAULT_ALIGNMENT,
        Some(v) => match v.as_u64() {
            Some(a) if a.is_power_of_two() => a,
            _ => return Err(GgufError::BadAlignment(format!("{v:?}"))),
        },
    };

    reader.check_count(tensor_count, len_prefix + 4 + 4 + 8, "the tensor infos")?;
    let mut tensors = Vec::with_capacity(initial_capacity(tensor_count));
    for _ in 0..tensor_count {
        tensors.push(reader.tensor_info()?);
    }
    let tensors = Indexed::new(tensors).map_err(|t| GgufError::DuplicateName(t.name))?;

    let data_offset = reader
        .pos
        .checked_next_multiple_of(alignment)
        .ok_or_else(|| GgufError::BadAlignment(alignment.to_string()))?;
    if let Some(file_len) = file_len
        && data_offset > file_len
    {
        return Err(GgufError::DataOffsetBeyondFile {
            data_offset,
            alignment,
            file_len,
        });
    }
    // Where the next tensor's data must start, as llama.cpp lays them out; unknown once a
    // tensor of a ggml type this reader does not know (whose size it cannot tell) is passed.
    let mut next = Some(0u64);
    for t in tensors.items() {
        check_data(t, alignment, data_offset, file_len)?;
        if let Some(expected) = next
            && t.offset != expected
        {
            return Err(GgufError::NotContiguous {
                name: t.name.clone(),
                offset: t.offset,
                expected,
            });
        }
        next = next.zip(data_len(t)).and_then(|(start, len)| {
            start
                .checked_add(len)
                .and_then(|end| end.checked_next_multiple_of(alignment))
        });
    }
    Ok(GgufHeader {
        version,
        metadata,
        tensors,
        alignment,
        data_offset,
    })
}

/// A capacity to reserve up front for `count` entries that have already been checked against
/// the bytes left: small, since growth is cheap and the count may still be a lie when the file
/// length is unknown.
fn initial_capacity(count: u64) -> usize {
    count.min(4096) as usize
}

/// The bytes of a tensor's data, when its ggml type is known.
fn data_len(t: &GgufTensor) -> Option<u64> {
    let (block, block_bytes) = t.ggml_type.block()?;
    let numel = u64::try_from(t.shape.numel()?).ok()?;
    (numel / block).checked_mul(block_bytes)
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
struct HeaderReader<R> {
    r: R,
    pos: u64,
    file_len: Option<u64>,
    /// v2/v3: lengths, counts and dims are u64; v1: u32.
    u64_lengths: bool,
    /// Array elements kept so far.
    kept: u64,
    /// Where skipped bytes go (one buffer, not one zeroed per skipped string).
    scratch: [u8; 512],
}

impl<R: Input> HeaderReader<R> {
    /// Bytes in a length prefix (and in a count or a dim): 8 in v2/v3, 4 in v1.
    fn len_prefix_size(&self) -> u64 {
        if self.u64_lengths { 8 } else { 4 }
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
        if self.u64_lengths {
            self.u64(what)
        } else {
            self.u32(what).map(u64::from)
        }
    }

    fn skip(&mut self, n: u64, what: &'static str) -> Result<(), GgufError> {
        self.ensure(n, what)?;
        let at = self.pos;
        self.r
            .skip(n, &mut self.scratch)
            .map_err(|e| eof(e, what, at, n))?;
        self.pos += n;
        Ok(())
    }

    /// A string value: UTF-8 by the format, read lossily (a vocabulary may hold raw bytes).
    fn string(&mut self, what: &'static str) -> Result<String, GgufError> {
        let bytes = self.string_bytes(what)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// A tensor name or metadata key: a string that must be UTF-8 (read lossily, two distinct
    /// names could read as one).
    fn name(&mut self, what: &'static str) -> Result<String, GgufError> {
        let at = self.pos;
        String::from_utf8(self.string_bytes(what)?).map_err(|_| GgufError::NotUtf8 { what, at })
    }

    fn string_bytes(&mut self, what: &'static str) -> Result<Vec<u8>, GgufError> {
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
        Ok(bytes)
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
            GgufType::String => self.len_prefix_size(),
            GgufType::Array => 4 + self.len_prefix_size(),
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
        let name = self.name("a tensor name")?;
        if name.len() > GgufHeader::MAX_NAME_LEN {
            return Err(GgufError::NameTooLong {
                len: name.len(),
                name,
                max: GgufHeader::MAX_NAME_LEN,
            });
        }
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
            // A dim must fit i64 (ggml's `ne`), even where another dim is 0.
            let d = i64::try_from(d).ok().and_then(|d| usize::try_from(d).ok());
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
