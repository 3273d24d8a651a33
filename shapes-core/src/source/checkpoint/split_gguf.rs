//! GGUF checkpoints: one file, or a checkpoint split in parts by llama.cpp's `gguf-split`
//! (`name-00001-of-00003.gguf`, each part with `split.no` and `split.count`, the first with
//! `split.tensors.count`), read as one source whichever part is named.

use std::path::{Path, PathBuf};

use super::{Checkpoint, CheckpointError, CheckpointFormat, Parts};
use crate::source::GgufHeader;

/// The most parts a split checkpoint may have (`gguf-split` numbers them with five digits).
const MAX_PARTS: usize = 99_999;

/// `(stem, part, count)` when `name` is `stem-0000N-of-0000M.gguf`.
pub(super) fn part_of(name: &str) -> Option<(&str, usize, usize)> {
    let rest = name.strip_suffix(".gguf")?;
    let (rest, count) = rest.rsplit_once("-of-")?;
    let (stem, no) = rest.rsplit_once('-')?;
    let digits = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(no) || !digits(count) {
        return None;
    }
    Some((stem, no.parse().ok()?, count.parse().ok()?))
}

fn header(path: &Path) -> Result<GgufHeader, CheckpointError> {
    GgufHeader::read_path(path).map_err(|source| CheckpointError::Gguf {
        path: path.to_path_buf(),
        source,
    })
}

fn split_error(path: &Path, detail: String) -> CheckpointError {
    CheckpointError::Split {
        path: path.to_path_buf(),
        detail,
    }
}

fn add(parts: &mut Parts, path: &Path, h: &GgufHeader) -> Result<(), CheckpointError> {
    let tensors = h.tensors().iter();
    parts.add_file(
        path,
        tensors.map(|t| (t.name.clone(), t.shape.clone(), t.ggml_type.to_string())),
    )
}

/// `split.count` of a header, when it has one.
fn split_count(h: &GgufHeader) -> Option<usize> {
    h.meta("split.count").and_then(|v| v.as_usize())
}

/// A whole GGUF checkpoint in one file (a part of a split one is an error: its other parts
/// are needed).
pub(super) fn single(path: &Path, h: GgufHeader) -> Result<Checkpoint, CheckpointError> {
    if let Some(n) = split_count(&h).filter(|&n| n > 1) {
        return Err(split_error(
            path,
            format!(
                "split.count = {n}, but the name is not NAME-0000N-of-0000M.gguf, so its other parts cannot be found: keep the names gguf-split gave them"
            ),
        ));
    }
    let mut parts = Parts::new();
    add(&mut parts, path, &h)?;
    parts.finish(CheckpointFormat::Gguf, Default::default(), Some(h))
}

/// A GGUF file: one part of a split checkpoint (then every part is read), or a whole one.
pub(super) fn open(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let given = header(path)?;
    let Some((stem, no, count)) = part_of(name) else {
        return single(path, given);
    };
    if count == 0 || no == 0 || no > count || count > MAX_PARTS {
        return Err(split_error(
            path,
            format!("part {no} of {count} is not a valid part number"),
        ));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut parts = Parts::new();
    let mut first = None;
    for i in 1..=count {
        let part = dir.join(format!("{stem}-{i:05}-of-{count:05}.gguf"));
        let h = if i == no {
            given.clone()
        } else if part.is_file() {
            header(&part)?
        } else {
            return Err(split_error(
                &part,
                format!("part {i} of {count} of {stem} is missing"),
            ));
        };
        let stated_no = h.meta("split.no").and_then(|v| v.as_usize());
        let stated_count = split_count(&h);
        if stated_count != Some(count) || stated_no != Some(i - 1) {
            let show = |v: Option<usize>| v.map_or_else(|| "absent".to_owned(), |v| v.to_string());
            return Err(split_error(
                &part,
                format!(
                    "the name says part {i} of {count}, but split.no = {} and split.count = {} (split.no counts from 0)",
                    show(stated_no),
                    show(stated_count)
                ),
            ));
        }
        add(&mut parts, &part, &h)?;
        if i == 1 {
            first = Some(h);
        }
    }
    let first = first.unwrap_or(given);
    let total = parts.tensors.len();
    if let Some(stated) = first.meta("split.tensors.count").and_then(|v| v.as_usize())
        && stated != total
    {
        return Err(split_error(
            parts.files.first().map_or(path, PathBuf::as_path),
            format!("split.tensors.count = {stated}, but the {count} parts hold {total} tensors"),
        ));
    }
    parts.finish(CheckpointFormat::SplitGguf, Default::default(), Some(first))
}
