//! numpy's `.npy` (one array) and `.npz` (a zip archive of `.npy` members, stored by
//! `np.savez` or deflated by `np.savez_compressed`): only each array's header is read.
//!
//! Hand-written: the header is a magic string, a version, a length and a Python dict literal
//! with three keys (`descr`, `fortran_order`, `shape`). The npy crates read the header as
//! part of reading the data (`npyz` wants its own reader over the whole array), and the
//! literal takes a small bounded parser.
//!
//! ```text
//! "\x93NUMPY" major:u8 minor:u8 header_len:(u16 in v1, u32 in v2/v3) header
//! header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" + padding
//! ```

use std::io::{Read, Seek};
use std::path::Path;

use super::{Checkpoint, CheckpointError, CheckpointFormat, MAX_TENSORS, Parts};
use crate::shape::Shape;

/// The first bytes of every `.npy` file.
pub(super) const MAGIC: &[u8] = b"\x93NUMPY";

/// The longest header read: 1 MiB (numpy itself refuses headers over 10,000 bytes by
/// default; structured dtypes with many fields are longer).
const MAX_HEADER_LEN: usize = 1 << 20;

/// The most dims an array may have: numpy's own limit, 64.
const MAX_DIMS: usize = 64;

/// How deep lists and tuples may nest in a header (structured dtypes nest a little).
const MAX_DEPTH: usize = 32;

/// An array's header: its dtype in safetensors' spelling and its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NpyHeader {
    pub(crate) dtype: String,
    pub(crate) shape: Shape,
}

/// Reads an array header from the start of `reader` (the file, or a zip member).
pub(crate) fn read_header(mut reader: impl Read) -> Result<NpyHeader, String> {
    let mut fixed = [0u8; 10];
    reader
        .read_exact(&mut fixed)
        .map_err(|e| format!("cannot read the npy header: {e}"))?;
    if !fixed.starts_with(MAGIC) {
        return Err("not a numpy array: it does not start with \"\\x93NUMPY\"".into());
    }
    let (major, minor) = (fixed[6], fixed[7]);
    let len = match major {
        1 => usize::from(u16::from_le_bytes([fixed[8], fixed[9]])),
        2 | 3 => {
            let mut more = [0u8; 2];
            reader
                .read_exact(&mut more)
                .map_err(|e| format!("cannot read the npy header length: {e}"))?;
            u32::from_le_bytes([fixed[8], fixed[9], more[0], more[1]]) as usize
        }
        _ => {
            return Err(format!(
                "npy format version {major}.{minor} is not supported (1.0 to 3.0 are)"
            ));
        }
    };
    if len > MAX_HEADER_LEN {
        return Err(format!(
            "npy header length {len} is over the {MAX_HEADER_LEN}-byte limit"
        ));
    }
    let mut text = Vec::with_capacity(len.min(1 << 16));
    reader
        .take(len as u64)
        .read_to_end(&mut text)
        .map_err(|e| format!("cannot read the npy header: {e}"))?;
    if text.len() < len {
        return Err(format!(
            "npy header claims {len} bytes but the array ends after {}",
            text.len()
        ));
    }
    let text = std::str::from_utf8(&text).map_err(|_| "npy header is not text".to_owned())?;
    parse_dict(text)
}

/// A value of the header's Python literal.
#[derive(Debug)]
enum Lit {
    Str(String),
    Int(u128),
    Bool,
    Seq(Vec<Lit>),
    None,
}

struct Lexer<'a> {
    s: &'a [u8],
    at: usize,
}

impl Lexer<'_> {
    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("malformed npy header at byte {}: {what}", self.at))
    }

    fn value(&mut self, depth: usize) -> Result<Lit, String> {
        if depth > MAX_DEPTH {
            return self.fail("nested too deep");
        }
        match self.peek() {
            Some(q @ (b'\'' | b'"')) => {
                self.at += 1;
                let start = self.at;
                while self.s.get(self.at).is_some_and(|&b| b != q) {
                    self.at += 1;
                }
                let Some(body) = self.s.get(start..self.at) else {
                    return self.fail("unterminated string");
                };
                if self.s.get(self.at).is_none() {
                    return self.fail("unterminated string");
                }
                self.at += 1;
                Ok(Lit::Str(String::from_utf8_lossy(body).into_owned()))
            }
            Some(open @ (b'(' | b'[')) => {
                self.at += 1;
                let close = if open == b'(' { b')' } else { b']' };
                let mut items = Vec::new();
                loop {
                    if self.eat(close) {
                        return Ok(Lit::Seq(items));
                    }
                    items.push(self.value(depth + 1)?);
                    if !self.eat(b',') && self.peek() != Some(close) {
                        return self.fail("expected ',' or a closing bracket");
                    }
                }
            }
            Some(b) if b.is_ascii_digit() => {
                let start = self.at;
                while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
                    self.at += 1;
                }
                // Python 2 wrote long dims as `3L`.
                if self.s.get(self.at) == Some(&b'L') {
                    self.at += 1;
                }
                let digits = self.s.get(start..self.at).unwrap_or_default();
                let digits = std::str::from_utf8(digits)
                    .unwrap_or("")
                    .trim_end_matches('L');
                match digits.parse::<u128>() {
                    Ok(n) => Ok(Lit::Int(n)),
                    Err(_) => self.fail("integer too large"),
                }
            }
            Some(_) => {
                for (word, lit) in [("True", 1), ("False", 0), ("None", 2)] {
                    if self
                        .s
                        .get(self.at..)
                        .is_some_and(|r| r.starts_with(word.as_bytes()))
                    {
                        self.at += word.len();
                        return Ok(if lit == 2 { Lit::None } else { Lit::Bool });
                    }
                }
                self.fail("unexpected character")
            }
            None => self.fail("unexpected end"),
        }
    }
}

fn parse_dict(text: &str) -> Result<NpyHeader, String> {
    let mut lx = Lexer {
        s: text.as_bytes(),
        at: 0,
    };
    if !lx.eat(b'{') {
        return lx.fail("expected '{'");
    }
    let (mut descr, mut shape, mut fortran) = (None, None, None);
    loop {
        if lx.eat(b'}') {
            break;
        }
        let Lit::Str(key) = lx.value(0)? else {
            return lx.fail("expected a string key");
        };
        if !lx.eat(b':') {
            return lx.fail("expected ':'");
        }
        let value = lx.value(0)?;
        match key.as_str() {
            "descr" => descr = Some(value),
            "shape" => shape = Some(value),
            "fortran_order" => fortran = Some(value),
            other => return Err(format!("npy header has an unknown key {other:?}")),
        }
        if !lx.eat(b',') && lx.peek() != Some(b'}') {
            return lx.fail("expected ',' or '}'");
        }
    }
    let (Some(descr), Some(shape), Some(Lit::Bool)) = (descr, shape, fortran) else {
        return Err("npy header lacks descr, shape or fortran_order".into());
    };
    let dtype = match descr {
        Lit::Str(d) => dtype_name(&d),
        _ => "structured".to_owned(),
    };
    let Lit::Seq(dims) = shape else {
        return Err("npy header's shape is not a tuple".into());
    };
    if dims.len() > MAX_DIMS {
        return Err(format!(
            "npy header's shape has {} dims, over numpy's {MAX_DIMS}",
            dims.len()
        ));
    }
    let shape = super::sized_shape(dims.iter().map(|d| match d {
        Lit::Int(n) => usize::try_from(*n).ok(),
        _ => None,
    }));
    let Some(shape) = shape else {
        return Err("npy header's shape is not a tuple of sizes whose product fits".into());
    };
    Ok(NpyHeader { dtype, shape })
}

/// numpy's type string (`<f4`) in safetensors' spelling (`F32`); others kept as written.
fn dtype_name(descr: &str) -> String {
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    let name = match code {
        "f2" => "F16",
        "f4" => "F32",
        "f8" => "F64",
        "i1" => "I8",
        "i2" => "I16",
        "i4" => "I32",
        "i8" => "I64",
        "u1" => "U8",
        "u2" => "U16",
        "u4" => "U32",
        "u8" => "U64",
        "b1" => "BOOL",
        "c8" => "C64",
        "c16" => "C128",
        _ => return descr.to_owned(),
    };
    name.to_owned()
}

/// One `.npy` file: a checkpoint of one tensor named by the file's stem.
pub(super) fn open_npy(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let file = std::fs::File::open(path).map_err(|e| CheckpointError::io(path, e))?;
    let h = read_header(std::io::BufReader::new(file))
        .map_err(|e| CheckpointError::malformed(path, e))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    single(path, &name, h)
}

/// A checkpoint of the one array `h`, called `name`.
pub(super) fn single(path: &Path, name: &str, h: NpyHeader) -> Result<Checkpoint, CheckpointError> {
    let mut parts = Parts::new();
    parts.add_file(path, [(name.to_owned(), h.shape, h.dtype)])?;
    parts.finish(CheckpointFormat::Npy, Default::default(), None)
}

/// A `.npz` archive: each `NAME.npy` member is the tensor `NAME`.
pub(super) fn open_npz<R: Read + Seek>(
    path: &Path,
    mut archive: zip::ZipArchive<R>,
) -> Result<Checkpoint, CheckpointError> {
    if archive.len() > MAX_TENSORS {
        return Err(CheckpointError::malformed(
            path,
            format!("{} members, over the {MAX_TENSORS} limit", archive.len()),
        ));
    }
    let mut parts = Parts::new();
    let file = parts.file(path.to_path_buf());
    for i in 0..archive.len() {
        let member = archive
            .by_index(i)
            .map_err(|e| CheckpointError::malformed(path, format!("zip member {i}: {e}")))?;
        if member.is_dir() {
            continue;
        }
        let member_name = member
            .name()
            .map_err(|e| CheckpointError::malformed(path, format!("zip member {i}: {e}")))?
            .into_owned();
        let Some(name) = member_name.strip_suffix(".npy") else {
            return Err(CheckpointError::malformed(
                path,
                format!("member {member_name:?} is not a .npy array: not a numpy .npz archive"),
            ));
        };
        let name = name.to_owned();
        let h = read_header(member).map_err(|e| {
            CheckpointError::malformed(path, format!("member {member_name:?}: {e}"))
        })?;
        parts.tensor(file, name, h.shape, h.dtype)?;
    }
    parts.finish(CheckpointFormat::Npz, Default::default(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(dict: &str) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.extend([1, 0]);
        v.extend((dict.len() as u16).to_le_bytes());
        v.extend(dict.as_bytes());
        v
    }

    #[test]
    fn reads_the_header_numpy_writes() {
        let h = read_header(
            &npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }   \n")[..],
        )
        .unwrap();
        assert_eq!((h.dtype.as_str(), h.shape.dims()), ("F32", &[3, 4][..]));
        let h = read_header(&npy("{'descr': '|b1', 'fortran_order': True, 'shape': (), }")[..])
            .unwrap();
        assert_eq!((h.dtype.as_str(), h.shape.rank()), ("BOOL", 0));
        let h = read_header(
            &npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2L,)}")[..],
        )
        .unwrap();
        assert_eq!((h.dtype.as_str(), h.shape.dims()), ("structured", &[2][..]));
    }

    #[test]
    fn bad_headers_are_errors() {
        let cases = [
            ("{'descr': '<f4', 'shape': (3,)}", "lacks"),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,",
                "malformed",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 99999999999)}",
                "fits",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}",
                "unknown key",
            ),
            (
                &format!("{{'descr': {}1{}}}", "[".repeat(40), "]".repeat(40)),
                "too deep",
            ),
        ];
        for (dict, expected) in cases {
            let e = read_header(&npy(dict)[..]).unwrap_err();
            assert!(e.contains(expected), "{e:?} should contain {expected:?}");
        }
        let mut long = npy("{}");
        long[8..10].copy_from_slice(&500u16.to_le_bytes());
        assert!(
            read_header(&long[..])
                .unwrap_err()
                .contains("claims 500 bytes")
        );
    }
}
