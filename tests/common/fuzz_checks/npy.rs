//! The `npy` target, differential against numpy's verdicts (`tests/data/npy_verdicts.jsonl`,
//! written by numpy 2.x itself): a row of the table, changed in ways that keep numpy's
//! verdict (the format version between 1.0 and 2.0, spaces before the dict, a comment and
//! spaces after it, more data after an array numpy reads), must get the reader's verdict on
//! the row, which is numpy's except on the rows marked `differs`. Then random bytes of the
//! file are changed: never a panic, and what is accepted has data for its shape.

use std::sync::OnceLock;

use super::Bytes;

/// A row of the table: the file, numpy's verdict, and whether the reader differs there.
struct Row {
    file: Vec<u8>,
    npz: bool,
    numpy_reads: bool,
    differs: bool,
}

/// The value of `"key": ` in a JSON row: the text up to the next `,` or `}` outside quotes
/// (the rows are flat enough for this, and the fuzz crate has no JSON parser).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\": "))? + key.len() + 4;
    let rest = line.get(start..)?;
    if let Some(body) = rest.strip_prefix('"') {
        return body.find('"').and_then(|end| body.get(..end));
    }
    rest.find([',', '}']).and_then(|end| rest.get(..end))
}

fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| {
        include_str!("../../data/npy_verdicts.jsonl")
            .lines()
            .map(|line| {
                let hex = field(line, "file").expect("a file");
                let file = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                    .collect();
                Row {
                    file,
                    npz: field(line, "ext") == Some("npz"),
                    numpy_reads: field(line, "ok") == Some("true"),
                    differs: line.contains("\"differs\": "),
                }
            })
            .collect()
    })
}

/// A `.npy` file's parts: its version, header text and data.
type Parts<'a> = ((u8, u8), &'a [u8], &'a [u8]);

/// A `.npy` file split into its parts (`None` for a file too short to have them).
fn split(file: &[u8]) -> Option<Parts<'_>> {
    let version = (*file.get(6)?, *file.get(7)?);
    let (len, start): (usize, usize) = match version.0 {
        1 => (
            usize::from(u16::from_le_bytes([*file.get(8)?, *file.get(9)?])),
            10,
        ),
        _ => {
            let b = file.get(8..12)?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
        }
    };
    let header = file.get(start..start.checked_add(len)?)?;
    Some((version, header, file.get(start + len..)?))
}

fn join(version: (u8, u8), header: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend([version.0, version.1]);
    if version.0 == 1 {
        out.extend((header.len() as u16).to_le_bytes());
    } else {
        out.extend((header.len() as u32).to_le_bytes());
    }
    out.extend(header);
    out.extend(data);
    out
}

/// Whether the reader accepts `file`, and when it does, that the data holds its shape.
fn reads(file: &[u8]) -> bool {
    match shapes::Checkpoint::from_bytes(file) {
        Ok(c) => {
            for t in c.tensors() {
                assert!(t.shape.numel().is_some_and(|n| i64::try_from(n).is_ok()));
            }
            true
        }
        Err(e) => {
            let text = e.to_string();
            assert!(text.starts_with("<memory>: "), "{text}");
            false
        }
    }
}

pub fn check_npy(data: &[u8]) {
    let mut b = Bytes::new(data);
    let rows = rows();
    let row = &rows[usize::from(b.byte()) % rows.len()];
    let expected = row.numpy_reads != row.differs;
    assert_eq!(reads(&row.file), expected, "the table's own file");
    let mut file = row.file.clone();
    if !row.npz
        && let Some((version, header, body)) = split(&row.file)
        && version.1 == 0
        && matches!(version.0, 1 | 2)
    {
        // Changes that keep numpy's verdict.
        let mut version = version;
        let mut header = header.to_vec();
        let mut body = body.to_vec();
        let changes = b.byte();
        if changes & 1 != 0 {
            version.0 = 3 - version.0;
        }
        if changes & 2 != 0 {
            let n = usize::from(b.byte() % 4);
            header.splice(0..0, std::iter::repeat_n(b' ', n));
        }
        if changes & 4 != 0 {
            header.extend(b"\n# ");
            for _ in 0..b.byte() % 8 {
                header.push(b"abc xyz0.,(){}:"[usize::from(b.byte()) % 15]);
            }
            header.push(b'\n');
        }
        if changes & 8 != 0 {
            let n = usize::from(b.byte() % 64);
            header.extend(std::iter::repeat_n(b' ', n));
        }
        if changes & 16 != 0 && row.numpy_reads {
            body.extend(std::iter::repeat_n(0, usize::from(b.byte() % 16)));
        }
        if header.len() <= 10_000 && (version.0 != 1 || header.len() <= usize::from(u16::MAX)) {
            file = join(version, &header, &body);
            assert_eq!(
                reads(&file),
                expected,
                "a change that keeps numpy's verdict changed the reader's: {:?}",
                String::from_utf8_lossy(&header)
            );
        }
    }
    // Random changes: never a panic; what is accepted is sane.
    while !file.is_empty() {
        let at = b.u64() as usize % file.len();
        let byte = b.byte();
        if byte == 0 {
            break;
        }
        file[at] = byte;
        reads(&file);
    }
}
