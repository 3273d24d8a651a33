//! Which format a path is: a directory is searched for one checkpoint; a file is told by its
//! first bytes (and a zip archive by its members), its name only breaking ties.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Checkpoint, CheckpointError, config, npy, pt, sharded, split_gguf};

/// The most directory entries looked at when searching a directory for weights.
const MAX_DIR_ENTRIES: usize = 100_000;

/// PyTorch's legacy (pre-1.6, non-zip) format starts with this pickled magic number.
const LEGACY_TORCH_MAGIC: &[u8] = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";

pub(super) fn open(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let meta = std::fs::metadata(path).map_err(|e| CheckpointError::io(path, e))?;
    let (mut ckpt, dir) = if meta.is_dir() {
        (open_dir(path)?, path.to_path_buf())
    } else {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (open_file(path)?, dir)
    };
    ckpt.config = config::beside(&dir)?;
    ckpt.path = path.to_path_buf();
    Ok(ckpt)
}

/// The first bytes of a file, fewer if it is shorter.
fn sniff(path: &Path) -> Result<Vec<u8>, CheckpointError> {
    let file = std::fs::File::open(path).map_err(|e| CheckpointError::io(path, e))?;
    let mut head = Vec::with_capacity(16);
    file.take(16)
        .read_to_end(&mut head)
        .map_err(|e| CheckpointError::io(path, e))?;
    Ok(head)
}

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

pub(super) fn open_file(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let name = name_of(path);
    if name.ends_with(".index.json") {
        return sharded::from_index(path);
    }
    let head = sniff(path)?;
    if head.starts_with(b"GGUF") {
        return split_gguf::open(path);
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return open_zip(path);
    }
    if head.starts_with(npy::MAGIC) {
        return npy::open_npy(path);
    }
    if head.starts_with(LEGACY_TORCH_MAGIC) {
        return Err(legacy(path));
    }
    // A safetensors file starts with its header length, then `{`.
    if head.get(8) == Some(&b'{') || name.ends_with(".safetensors") {
        return sharded::single(path);
    }
    Err(unrecognized(path, &head))
}

/// What [`Checkpoint::from_bytes`] reads: a single-file checkpoint held in memory, told by its
/// first bytes; errors name the file `<memory>`.
pub(super) fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
    let path = Path::new(MEMORY);
    let head = bytes.get(..16).unwrap_or(bytes);
    if head.starts_with(b"GGUF") {
        let h = crate::source::GgufHeader::from_bytes(bytes).map_err(|source| {
            CheckpointError::Gguf {
                path: path.to_path_buf(),
                source,
            }
        })?;
        return split_gguf::single(path, h);
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
            .map_err(|e| CheckpointError::malformed(path, format!("bad zip archive: {e}")))?;
        return zip_checkpoint(path, archive);
    }
    if head.starts_with(npy::MAGIC) {
        let h = npy::read_header(bytes).map_err(|e| CheckpointError::malformed(path, e))?;
        return npy::single(path, "array", h);
    }
    if head.starts_with(LEGACY_TORCH_MAGIC) {
        return Err(legacy(path));
    }
    if head.get(8) == Some(&b'{') {
        let h = crate::source::SafetensorsHeader::from_bytes(bytes).map_err(|source| {
            CheckpointError::Safetensors {
                path: path.to_path_buf(),
                source,
            }
        })?;
        return sharded::from_header(path, &h);
    }
    Err(unrecognized(path, head))
}

/// The name errors give a checkpoint read from memory.
const MEMORY: &str = "<memory>";

fn legacy(path: &Path) -> CheckpointError {
    CheckpointError::Unsupported {
        path: path.to_path_buf(),
        detail: "PyTorch's legacy (pre-1.6, non-zip) format is not read: re-save it with \
                 torch.save in a current PyTorch, or convert it to safetensors"
            .into(),
    }
}

fn unrecognized(path: &Path, head: &[u8]) -> CheckpointError {
    CheckpointError::Unrecognized {
        path: path.to_path_buf(),
        detail: format!(
            "not a checkpoint this reader knows: it starts with {:?}, not a safetensors header, \
             \"GGUF\", a zip archive (.npz, PyTorch) or a numpy header",
            String::from_utf8_lossy(head.get(..8).unwrap_or(head))
        ),
    }
}

fn zip_checkpoint<R: std::io::Read + std::io::Seek>(
    path: &Path,
    archive: zip::ZipArchive<R>,
) -> Result<Checkpoint, CheckpointError> {
    let is_torch = archive
        .file_names()
        .any(|n| n.is_ok_and(|n| n == "data.pkl" || n.ends_with("/data.pkl")));
    if is_torch {
        pt::open(path, archive)
    } else {
        npy::open_npz(path, archive)
    }
}

/// A zip archive: PyTorch's when it has a `data.pkl`, numpy's otherwise.
fn open_zip(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let file = std::fs::File::open(path).map_err(|e| CheckpointError::io(path, e))?;
    let archive = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| CheckpointError::malformed(path, format!("bad zip archive: {e}")))?;
    zip_checkpoint(path, archive)
}

fn open_dir(dir: &Path) -> Result<Checkpoint, CheckpointError> {
    let mut files: Vec<PathBuf> = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| CheckpointError::io(dir, e))?;
    for entry in entries.take(MAX_DIR_ENTRIES) {
        let entry = entry.map_err(|e| CheckpointError::io(dir, e))?;
        let path = entry.path();
        if path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    let with = |suffix: &str| -> Vec<&PathBuf> {
        files
            .iter()
            .filter(|p| name_of(p).ends_with(suffix))
            .collect()
    };
    let index = dir.join("model.safetensors.index.json");
    if index.is_file() {
        return sharded::from_index(&index);
    }
    let indexes = with(".safetensors.index.json");
    if let [one] = indexes.as_slice() {
        return sharded::from_index(one);
    }
    let st = with(".safetensors");
    match st.as_slice() {
        [] => {}
        [one] => return sharded::single(one),
        many => return sharded::from_files(many),
    }
    let gguf = with(".gguf");
    if !gguf.is_empty() {
        let firsts: Vec<&&PathBuf> = gguf
            .iter()
            .filter(|p| split_gguf::part_of(name_of(p)).is_none_or(|(_, no, _)| no == 1))
            .collect();
        return match firsts.as_slice() {
            [one] => split_gguf::open(one),
            _ => Err(ambiguous(dir, "GGUF checkpoints", &gguf)),
        };
    }
    for suffix in [".bin", ".pt", ".pth", ".npz", ".npy"] {
        let found = with(suffix);
        match found.as_slice() {
            [] => {}
            [one] => return open_file(one),
            many => return Err(ambiguous(dir, suffix, many)),
        }
    }
    Err(CheckpointError::Unrecognized {
        path: dir.to_path_buf(),
        detail: "no weights found: looked for model.safetensors.index.json, *.safetensors, \
                 *.gguf, *.bin, *.pt, *.pth, *.npz and *.npy"
            .into(),
    })
}

fn ambiguous(dir: &Path, what: &str, files: &[&PathBuf]) -> CheckpointError {
    let names: Vec<&str> = files.iter().map(|p| name_of(p)).collect();
    CheckpointError::Unrecognized {
        path: dir.to_path_buf(),
        detail: format!(
            "holds {} {what} files ({}): open the one meant",
            files.len(),
            names.join(", ")
        ),
    }
}
