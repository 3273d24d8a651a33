//! Which format a path is: a directory is searched for one checkpoint; a file is told by its
//! first bytes (and a zip archive by its members), its name only breaking ties.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Checkpoint, CheckpointError, config, npy, pt, sharded, split_gguf};
use crate::text::quoted;

/// The most directory entries looked at when searching a directory for weights: 10 million.
/// Only the entries whose names a checkpoint's files have are kept (see
/// [`MAX_DIR_CANDIDATES`]), so memory does not grow with the directory; the limit bounds the
/// time a search takes. A search that stops there says so.
const MAX_DIR_ENTRIES: usize = 10_000_000;

/// The most files of one kind (`*.safetensors`, `*.gguf`, `*.safetensors.index.json`) kept
/// while searching a directory: 100,000, more shards than any checkpoint has (and than
/// `gguf-split` can number). More is an error saying the search stopped.
const MAX_DIR_CANDIDATES: usize = 100_000;

/// How many file names an error lists before "… and N more".
const LISTED_NAMES: usize = 10;

/// PyTorch's legacy (pre-1.6, non-zip) format starts with this pickled magic number.
const LEGACY_TORCH_MAGIC: &[u8] = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";

pub(super) fn open(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let meta = std::fs::metadata(path).map_err(|e| CheckpointError::io(path, e))?;
    let (mut ckpt, dir) = if meta.is_dir() {
        (open_dir(path)?, path.to_path_buf())
    } else if !meta.is_file() {
        // Opening a FIFO blocks until something writes to it; a device never ends.
        return Err(not_regular(path, &meta.file_type()));
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

/// The error for a path that is neither a regular file nor a directory (what `metadata`
/// says, after symlinks): refused before it is opened.
fn not_regular(path: &Path, kind: &std::fs::FileType) -> CheckpointError {
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            "a FIFO (named pipe)"
        } else if kind.is_socket() {
            "a socket"
        } else if kind.is_block_device() || kind.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        }
    };
    #[cfg(not(unix))]
    let what = {
        let _ = kind;
        "not a regular file"
    };
    CheckpointError::Unrecognized {
        path: path.to_path_buf(),
        detail: format!(
            "{what}, not a regular file or a directory: a checkpoint is read from files \
             (opening it could block forever)"
        ),
    }
}

fn name_of(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// The formats a single file is told apart by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Gguf,
    /// A zip archive: `.npz`, or PyTorch's `torch.save` since 1.6.
    Zip,
    Npy,
    /// PyTorch before 1.6: not read, named.
    LegacyTorch,
    Safetensors,
}

/// The one table of what a file's first bytes say it is (and, with no telling bytes, a
/// `.safetensors` name): what [`open_file`] and [`from_bytes`] both dispatch on, so that a
/// new format is a new [`Kind`] whose unhandled arms the compiler points at.
fn kind(head: &[u8], name: &str) -> Option<Kind> {
    if head.starts_with(b"GGUF") {
        Some(Kind::Gguf)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(Kind::Zip)
    } else if head.starts_with(npy::MAGIC) {
        Some(Kind::Npy)
    } else if head.starts_with(LEGACY_TORCH_MAGIC) {
        Some(Kind::LegacyTorch)
    } else if head.get(8) == Some(&b'{') || name.ends_with(".safetensors") {
        // A safetensors file starts with its header length, then `{`.
        Some(Kind::Safetensors)
    } else {
        None
    }
}

pub(super) fn open_file(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let name = name_of(path);
    if name.ends_with(".index.json") {
        return sharded::from_index(path);
    }
    let head = sniff(path)?;
    match kind(&head, name) {
        Some(Kind::Gguf) => split_gguf::open(path),
        Some(Kind::Zip) => open_zip(path),
        Some(Kind::Npy) => npy::open_npy(path),
        Some(Kind::LegacyTorch) => Err(legacy(path)),
        Some(Kind::Safetensors) => sharded::single(path),
        None => Err(unrecognized(path, &head)),
    }
}

/// What [`Checkpoint::from_bytes`] reads: a single-file checkpoint held in memory, told by its
/// first bytes; errors name the file `<memory>`.
pub(super) fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
    let path = Path::new(MEMORY);
    let head = bytes.get(..16).unwrap_or(bytes);
    match kind(head, "") {
        Some(Kind::Gguf) => {
            let h = crate::source::GgufHeader::from_bytes(bytes).map_err(|source| {
                CheckpointError::Gguf {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
            split_gguf::single(path, h)
        }
        Some(Kind::Zip) => {
            let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
                .map_err(|e| CheckpointError::malformed(path, format!("bad zip archive: {e}")))?;
            zip_checkpoint(path, archive)
        }
        Some(Kind::Npy) => {
            let h = npy::read_header(bytes).map_err(|e| CheckpointError::malformed(path, e))?;
            npy::single(path, "array", h, bytes.len() as u64)
        }
        Some(Kind::LegacyTorch) => Err(legacy(path)),
        Some(Kind::Safetensors) => {
            let h = crate::source::SafetensorsHeader::from_bytes(bytes).map_err(|source| {
                CheckpointError::Safetensors {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
            sharded::from_header(path, &h)
        }
        None => Err(unrecognized(path, head)),
    }
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

/// The weights files of a directory, by kind, bounded: every `*.safetensors`, `*.gguf` and
/// `*.safetensors.index.json` (up to [`MAX_DIR_CANDIDATES`] each), and for the single-file
/// formats the first [`LISTED_NAMES`] names in name order and how many there are.
#[derive(Default)]
struct Candidates {
    indexes: Vec<PathBuf>,
    safetensors: Vec<PathBuf>,
    gguf: Vec<PathBuf>,
    /// `.bin`, `.pt`, `.pth`, `.npz`, `.npy`, in that order of preference.
    single: [Few; 5],
}

/// The first [`LISTED_NAMES`] paths of a kind, in name order, and how many there are.
#[derive(Default)]
struct Few {
    first: Vec<PathBuf>,
    count: usize,
}

impl Few {
    fn add(&mut self, path: PathBuf) {
        self.count += 1;
        let at = self.first.partition_point(|p| p <= &path);
        if at < LISTED_NAMES {
            self.first.insert(at, path);
            self.first.truncate(LISTED_NAMES);
        }
    }
}

const SINGLE: [&str; 5] = [".bin", ".pt", ".pth", ".npz", ".npy"];

fn open_dir(dir: &Path) -> Result<Checkpoint, CheckpointError> {
    open_dir_within(dir, MAX_DIR_ENTRIES)
}

/// [`open_dir`], looking at `max_entries` entries at most (the tests' smaller limit).
fn open_dir_within(dir: &Path, max_entries: usize) -> Result<Checkpoint, CheckpointError> {
    let mut found = Candidates::default();
    let entries = std::fs::read_dir(dir).map_err(|e| CheckpointError::io(dir, e))?;
    for (n, entry) in entries.enumerate() {
        if n >= max_entries {
            return Err(stopped(
                dir,
                format!("after {max_entries} entries (MAX_DIR_ENTRIES)"),
            ));
        }
        let entry = entry.map_err(|e| CheckpointError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let kind = if name.ends_with(".safetensors.index.json") {
            Some(&mut found.indexes)
        } else if name.ends_with(".safetensors") {
            Some(&mut found.safetensors)
        } else if name.ends_with(".gguf") {
            Some(&mut found.gguf)
        } else {
            None
        };
        let single = SINGLE.iter().position(|s| name.ends_with(s));
        if kind.is_none() && single.is_none() {
            continue;
        }
        // Only a regular file (after symlinks) is a weights file.
        let path = entry.path();
        let regular = match entry.file_type() {
            Ok(t) if t.is_symlink() => path.is_file(),
            Ok(t) => t.is_file(),
            Err(_) => false,
        };
        if !regular {
            continue;
        }
        match (kind, single) {
            (Some(list), _) => {
                if list.len() >= MAX_DIR_CANDIDATES {
                    return Err(stopped(
                        dir,
                        format!(
                            "at more than {MAX_DIR_CANDIDATES} files like {} (MAX_DIR_CANDIDATES)",
                            quoted(name)
                        ),
                    ));
                }
                list.push(path);
            }
            (None, Some(i)) => {
                if let Some(few) = found.single.get_mut(i) {
                    few.add(path);
                }
            }
            (None, None) => {}
        }
    }
    found.indexes.sort();
    found.safetensors.sort();
    found.gguf.sort();
    let index = dir.join("model.safetensors.index.json");
    if index.is_file() {
        return sharded::from_index(&index);
    }
    if let [one] = found.indexes.as_slice() {
        return sharded::from_index(one);
    }
    let st: Vec<&PathBuf> = found.safetensors.iter().collect();
    match st.as_slice() {
        [] => {}
        [one] => return sharded::single(one),
        many => return sharded::from_files(many),
    }
    if !found.gguf.is_empty() {
        let firsts: Vec<&PathBuf> = found
            .gguf
            .iter()
            .filter(|p| split_gguf::part_of(name_of(p)).is_none_or(|(_, no, _)| no == 1))
            .collect();
        return match firsts.as_slice() {
            [one] => split_gguf::open(one),
            _ => Err(ambiguous(
                dir,
                "GGUF checkpoints",
                found.gguf.iter(),
                found.gguf.len(),
            )),
        };
    }
    for (suffix, few) in SINGLE.iter().zip(&found.single) {
        match (few.first.as_slice(), few.count) {
            (_, 0) => {}
            ([one], 1) => return open_file(one),
            (first, count) => return Err(ambiguous(dir, suffix, first.iter(), count)),
        }
    }
    Err(CheckpointError::Unrecognized {
        path: dir.to_path_buf(),
        detail: "no weights found: looked for model.safetensors.index.json, *.safetensors, \
                 *.gguf, *.bin, *.pt, *.pth, *.npz and *.npy"
            .into(),
    })
}

/// The error of a directory search that stopped at a limit (`at` says which).
fn stopped(dir: &Path, at: String) -> CheckpointError {
    CheckpointError::Unrecognized {
        path: dir.to_path_buf(),
        detail: format!("the search for weights stopped {at}: open the weights file itself"),
    }
}

/// `count` files of one kind in `dir`, the first of them `files`: name the first
/// [`LISTED_NAMES`] and count the rest.
fn ambiguous<'a>(
    dir: &Path,
    what: &str,
    files: impl Iterator<Item = &'a PathBuf>,
    count: usize,
) -> CheckpointError {
    let names: Vec<String> = files
        .take(LISTED_NAMES)
        .map(|p| name_of(p).to_owned())
        .collect();
    let mut list = names.join(", ");
    if count > names.len() {
        list.push_str(&format!(" … and {} more", count - names.len()));
    }
    CheckpointError::Unrecognized {
        path: dir.to_path_buf(),
        detail: format!("holds {count} {what} files ({list}): open the one meant"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the temp dir, removed when dropped.
    struct Dir(PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A directory of `n` text files, and a one-array `.npy` among them when `weights`.
    fn dir_of(tag: &str, n: usize, weights: bool) -> Dir {
        let dir = std::env::temp_dir().join(format!("shapes-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..n {
            std::fs::File::create(dir.join(format!("note{i:05}.txt"))).unwrap();
        }
        if weights {
            let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
            let mut npy = npy::MAGIC.to_vec();
            npy.extend([1, 0]);
            npy.extend((dict.len() as u16).to_le_bytes());
            npy.extend(dict.as_bytes());
            npy.extend([0; 8]);
            std::fs::write(dir.join("w.npy"), npy).unwrap();
        }
        Dir(dir)
    }

    #[test]
    fn a_search_reads_every_entry_or_says_where_it_stopped() {
        // Past the old limit of entries looked at, whatever the order they are listed in.
        let d = dir_of("dir-all", 1_200, true);
        let c = open_dir_within(&d.0, 1_201).unwrap();
        assert_eq!(c.tensors()[0].name, "w");
        // At the limit: an error that says the search stopped, not "no weights found".
        for weights in [true, false] {
            let d = dir_of(&format!("dir-stop-{weights}"), 1_200, weights);
            let e = open_dir_within(&d.0, 1_000).unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "{}: the search for weights stopped after 1000 entries (MAX_DIR_ENTRIES): \
                     open the weights file itself",
                    d.0.display()
                )
            );
        }
    }
}
