//! safetensors checkpoints: one file, or shards with or without their index
//! (`model.safetensors.index.json`), whose `weight_map` is checked against the shards.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::config::read_limited;
use super::index_json::{self, Shard};
use super::{Checkpoint, CheckpointError, CheckpointFormat, Parts};
use crate::source::SafetensorsHeader;
use crate::text::quoted;

/// The largest index file read: 64 MiB (a 100k-tensor index is a few MB).
const MAX_INDEX_LEN: u64 = 64 << 20;

fn header(path: &Path) -> Result<SafetensorsHeader, CheckpointError> {
    SafetensorsHeader::read_path(path).map_err(|source| CheckpointError::Safetensors {
        path: path.to_path_buf(),
        source,
    })
}

fn add(parts: &mut Parts, path: &Path, h: &SafetensorsHeader) -> Result<(), CheckpointError> {
    let tensors = h.tensors().iter();
    parts.add_file(
        path,
        tensors.map(|t| (t.name.clone(), t.shape.clone(), format!("{:?}", t.dtype))),
    )
}

/// One `.safetensors` file.
pub(super) fn single(path: &Path) -> Result<Checkpoint, CheckpointError> {
    from_header(path, &header(path)?)
}

/// One `.safetensors` file whose header is read.
pub(super) fn from_header(
    path: &Path,
    h: &SafetensorsHeader,
) -> Result<Checkpoint, CheckpointError> {
    let mut parts = Parts::new();
    add(&mut parts, path, h)?;
    parts.finish(CheckpointFormat::Safetensors, h.metadata().clone(), None)
}

/// Shards without an index: every file read, a tensor in two of them an error.
pub(super) fn from_files(paths: &[&PathBuf]) -> Result<Checkpoint, CheckpointError> {
    let mut parts = Parts::new();
    let mut metadata = None;
    for path in paths {
        let h = header(path)?;
        add(&mut parts, path, &h)?;
        metadata.get_or_insert_with(|| h.metadata().clone());
    }
    parts.finish(
        CheckpointFormat::ShardedSafetensors,
        metadata.unwrap_or_default(),
        None,
    )
}

/// A shard's name as the index writes it: a plain file name in the index's directory.
fn shard_path(index: &Path, dir: &Path, shard: &str) -> Result<PathBuf, CheckpointError> {
    let plain = !shard.is_empty() && !shard.contains(['/', '\\']) && shard != "." && shard != "..";
    if !plain {
        return Err(CheckpointError::malformed(
            index,
            format!(
                "weight_map names the shard {}, which is not a file name in the index's directory",
                quoted(shard)
            ),
        ));
    }
    Ok(dir.join(shard))
}

/// A sharded checkpoint given by its index: every shard the `weight_map` names is read, and
/// the map is checked against what the shards hold.
///
/// Errors name the same entry whatever the map's order in the file: of several tensors in
/// fault, the first by name (the way the map was once read, into a sorted map); a tensor
/// listed twice counts with its last shard.
pub(super) fn from_index(index: &Path) -> Result<Checkpoint, CheckpointError> {
    let bytes = read_limited(index, MAX_INDEX_LEN)?;
    let entries = index_json::weight_map(&bytes)
        .map_err(|e| CheckpointError::malformed(index, format!("malformed JSON: {e}")))?;
    let Some(entries) = entries else {
        return Err(CheckpointError::malformed(
            index,
            "no \"weight_map\" object: not a sharded checkpoint's index",
        ));
    };
    let dir = match index.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Tensor → its entry, the last entry of a name counting.
    let mut listed: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for (i, (tensor, _)) in entries.iter().enumerate() {
        listed.insert(tensor, i);
    }
    let mut live = vec![false; entries.len()];
    for &i in listed.values() {
        if let Some(l) = live.get_mut(i) {
            *l = true;
        }
    }
    let live = |i: &usize| live.get(*i).copied().unwrap_or(false);
    let not_a_name = entries
        .iter()
        .enumerate()
        .filter(|(i, _)| live(i))
        .filter_map(|(_, (tensor, shard))| match shard {
            Shard::Other(v) => Some((tensor, v)),
            Shard::Name(_) => None,
        })
        .min_by_key(|(tensor, _)| *tensor);
    if let Some((tensor, shard)) = not_a_name {
        return Err(CheckpointError::malformed(
            index,
            format!(
                "weight_map[{}] is {}, not a shard's file name",
                quoted(tensor),
                quoted(&shard.to_string())
            ),
        ));
    }
    // The live entries: tensor, shard.
    let listed: Vec<(&str, &str)> = entries
        .iter()
        .enumerate()
        .filter(|(i, _)| live(i))
        .filter_map(|(_, (tensor, shard))| match shard {
            Shard::Name(name) => Some((tensor.as_str(), name.as_str())),
            Shard::Other(_) => None,
        })
        .collect();
    // The shards in name order; an index names each a few hundred times in a row.
    let mut shards: Vec<&str> = Vec::new();
    let mut known: HashSet<&str> = HashSet::new();
    let mut last = None;
    for &(_, shard) in &listed {
        if last != Some(shard) && known.insert(shard) {
            shards.push(shard);
        }
        last = Some(shard);
    }
    shards.sort_unstable();
    let mut parts = Parts::new();
    let mut metadata = None;
    for shard in &shards {
        let path = shard_path(index, &dir, shard)?;
        if !path.is_file() {
            let theirs = listed.iter().filter(|(_, s)| s == shard);
            return Err(CheckpointError::MissingShard {
                index: index.to_path_buf(),
                shard: (*shard).to_owned(),
                tensor: theirs
                    .clone()
                    .map(|(t, _)| *t)
                    .min()
                    .unwrap_or_default()
                    .to_owned(),
                count: theirs.count(),
            });
        }
        let h = header(&path)?;
        add(&mut parts, &path, &h)?;
        metadata.get_or_insert_with(|| h.metadata().clone());
    }
    let parts = parts.into_indexed()?;
    // ok: `parts.files` are the shards' paths, in `shards`' order.
    let shard_name = |file: usize| shards.get(file).copied();
    // Which of the shards' tensors the map lists, by position; and the tensors it misplaces.
    let mut seen = vec![false; parts.tensors.items().len()];
    let mut misplaced: Option<(&str, &str)> = None;
    let mut last: Option<(&str, usize)> = None;
    for &(tensor, shard) in &listed {
        let held = parts.tensors.get_position(tensor);
        let file = held
            .and_then(|p| parts.tensors.items().get(p))
            .map(|t| t.file);
        // The file of `shard`, looked up once for each run of entries naming it.
        let want = match last {
            Some((s, f)) if s == shard => Some(f),
            _ => shards.binary_search(&shard).ok(),
        };
        if let Some(f) = want {
            last = Some((shard, f));
        }
        match (held, file) {
            (Some(p), Some(f)) if Some(f) == want => {
                if let Some(s) = seen.get_mut(p) {
                    *s = true;
                }
            }
            _ => {
                if misplaced.is_none_or(|(t, _)| tensor < t) {
                    misplaced = Some((tensor, shard));
                }
            }
        }
    }
    if let Some((tensor, shard)) = misplaced {
        let held = parts.tensors.get(tensor).map(|t| {
            parts
                .files
                .get(t.file)
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        return Err(CheckpointError::ListedButAbsent {
            index: index.to_path_buf(),
            tensor: tensor.to_owned(),
            shard: shard.to_owned(),
            found: held,
        });
    }
    let unlisted = (parts.tensors.items().iter())
        .zip(&seen)
        .find(|(_, seen)| !**seen);
    if let Some((t, _)) = unlisted {
        return Err(CheckpointError::NotListed {
            index: index.to_path_buf(),
            tensor: t.name.clone(),
            shard: shard_name(t.file).unwrap_or_default().to_owned(),
        });
    }
    Ok(parts.finish(
        CheckpointFormat::ShardedSafetensors,
        metadata.unwrap_or_default(),
        None,
    ))
}
