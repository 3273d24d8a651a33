//! What the header reader reads from ([`Input`]): a read buffer for
//! [`GgufHeader::read_path`](super::GgufHeader::read_path) whose small reads are inlined into
//! the reader and whose skips move a cursor, a byte slice for `from_bytes`, and any
//! `std::io::Read` for `read`.
//!
//! A header is millions of 4- and 8-byte fields (a 32k-token vocabulary alone is 64k of them).
//! Through `std::io::BufReader`, each is a call to its `read_exact`, a generic function that
//! rustc instantiates once per crate and that LLVM inlines or not depending on which codegen
//! unit it lands in: splitting the GGUF module into files moved it, and the same header took
//! 40% more instructions (79 M vs 111 M for 20 reads of a TinyLlama-shaped header, counted by
//! callgrind). Here `read_exact`'s buffered path is `#[inline]` and tiny, so it is inlined
//! into every field read wherever the reader is compiled; the refill is out of line. A skipped
//! string (most of a vocabulary is skipped) moves the cursor instead of copying.

use std::io::{self, Read};

/// A source of header bytes that can also skip bytes.
pub(super) trait Input: Read {
    /// Skips `n` bytes; `scratch` is a buffer the caller lends for readers that must copy.
    fn skip(&mut self, n: u64, scratch: &mut [u8]) -> io::Result<()> {
        let mut left = n;
        while left > 0 {
            // ok: `k <= scratch.len()`, so `scratch[..k]` is in bounds.
            let k = left.min(scratch.len() as u64) as usize;
            self.read_exact(&mut scratch[..k])?;
            left -= k as u64;
        }
        Ok(())
    }
}

/// Any reader, read as it is: consumes exactly what the header reader asks for.
pub(super) struct Plain<R>(pub(super) R);

impl<R: Read> Read for Plain<R> {
    #[inline]
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.0.read(out)
    }

    #[inline]
    fn read_exact(&mut self, out: &mut [u8]) -> io::Result<()> {
        self.0.read_exact(out)
    }
}

impl<R: Read> Input for Plain<R> {}

impl Input for &[u8] {
    fn skip(&mut self, n: u64, _scratch: &mut [u8]) -> io::Result<()> {
        match usize::try_from(n).ok().and_then(|n| self.get(n..)) {
            Some(rest) => {
                *self = rest;
                Ok(())
            }
            None => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

/// `R` read through a fixed buffer, like `std::io::BufReader`.
pub(super) struct FileBuf<R> {
    inner: R,
    buf: Box<[u8]>,
    /// `buf[pos..filled]` is read from `inner` and not yet handed out.
    pos: usize,
    filled: usize,
}

impl<R: Read> FileBuf<R> {
    pub(super) fn with_capacity(capacity: usize, inner: R) -> Self {
        FileBuf {
            inner,
            buf: vec![0; capacity.max(1)].into_boxed_slice(),
            pos: 0,
            filled: 0,
        }
    }

    /// The slow path: hands out what is buffered, then reads big requests straight into `out`
    /// and small ones through a refilled buffer.
    #[cold]
    #[inline(never)]
    fn read_exact_slow(&mut self, mut out: &mut [u8]) -> io::Result<()> {
        while !out.is_empty() {
            // ok: `pos <= filled <= buf.len()` always holds.
            let buffered = &self.buf[self.pos..self.filled];
            if !buffered.is_empty() {
                let n = buffered.len().min(out.len());
                let (head, tail) = out.split_at_mut(n);
                head.copy_from_slice(&buffered[..n]);
                self.pos += n;
                out = tail;
            } else if out.len() >= self.buf.len() {
                return self.inner.read_exact(out);
            } else {
                self.refill()?;
            }
        }
        Ok(())
    }

    fn refill(&mut self) -> io::Result<()> {
        let n = loop {
            match self.inner.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        // Clamped: a reader that over-reports what it read cannot break `pos <= filled`.
        self.pos = 0;
        self.filled = n.min(self.buf.len());
        Ok(())
    }
}

impl<R: Read> Read for FileBuf<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.filled {
            if out.len() >= self.buf.len() {
                return self.inner.read(out);
            }
            match self.refill() {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                Err(e) => return Err(e),
            }
        }
        // ok: `pos <= filled <= buf.len()` always holds.
        let buffered = &self.buf[self.pos..self.filled];
        let n = buffered.len().min(out.len());
        out[..n].copy_from_slice(&buffered[..n]);
        self.pos += n;
        Ok(n)
    }

    #[inline]
    fn read_exact(&mut self, out: &mut [u8]) -> io::Result<()> {
        if let Some(buffered) = self.buf.get(self.pos..self.filled)
            && let Some(src) = buffered.get(..out.len())
        {
            out.copy_from_slice(src);
            self.pos += out.len();
            return Ok(());
        }
        self.read_exact_slow(out)
    }
}

impl<R: Read> Input for FileBuf<R> {
    #[inline]
    fn skip(&mut self, n: u64, scratch: &mut [u8]) -> io::Result<()> {
        let buffered = (self.filled - self.pos) as u64;
        if n <= buffered {
            // ok: `n <= filled - pos`, so it fits a usize and `pos + n <= filled`.
            self.pos += n as usize;
            return Ok(());
        }
        self.pos = self.filled;
        let mut left = n - buffered;
        while left > 0 {
            // ok: `k <= scratch.len()`, so `scratch[..k]` is in bounds.
            let k = left.min(scratch.len() as u64) as usize;
            self.read_exact(&mut scratch[..k])?;
            left -= k as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most 3 bytes per call.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(out.len()).min(3);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn reads_every_byte_in_order_whatever_the_request_sizes() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        for cap in [1, 7, 64, 4096] {
            let mut r = FileBuf::with_capacity(cap, Trickle(&data));
            let mut got = Vec::new();
            for (i, size) in [1usize, 8, 4, 100, 3, 0, 500].iter().cycle().enumerate() {
                let size = (*size).min(data.len() - got.len());
                let mut out = vec![0; size];
                if i % 2 == 0 {
                    r.read_exact(&mut out).unwrap();
                } else {
                    let n = r.read(&mut out).unwrap();
                    out.truncate(n);
                }
                got.extend(out);
                if got.len() == data.len() {
                    break;
                }
            }
            assert_eq!(got, data, "capacity {cap}");
            assert_eq!(
                r.read(&mut [0; 4]).unwrap(),
                0,
                "at the end, capacity {cap}"
            );
        }
    }

    #[test]
    fn skips_land_where_reads_would() {
        let data: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        let mut scratch = [0; 5];
        for cap in [1, 7, 64, 4096] {
            let mut r = FileBuf::with_capacity(cap, Trickle(&data));
            let mut slice = &data[..];
            let mut plain = Plain(Trickle(&data));
            let mut at = 0;
            for n in [0u64, 1, 6, 7, 100, 1000, 3] {
                for input in [&mut r as &mut dyn Input, &mut slice, &mut plain] {
                    input.skip(n, &mut scratch).unwrap();
                    let mut b = [0; 1];
                    input.read_exact(&mut b).unwrap();
                    assert_eq!(b[0], data[at + n as usize], "capacity {cap}, skip {n}");
                }
                at += n as usize + 1;
            }
            let left = (data.len() - at) as u64;
            for input in [&mut r as &mut dyn Input, &mut slice, &mut plain] {
                assert_eq!(
                    input.skip(left + 1, &mut scratch).unwrap_err().kind(),
                    io::ErrorKind::UnexpectedEof
                );
            }
        }
    }

    #[test]
    fn a_short_file_is_unexpected_eof() {
        let mut r = FileBuf::with_capacity(4, Trickle(b"abcde"));
        let mut out = [0; 8];
        assert_eq!(
            r.read_exact(&mut out).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }
}
