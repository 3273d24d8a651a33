//! safetensors checkpoints: one file, or shards with or without their index
//! (`model.safetensors.index.json`), whose `weight_map` is checked against the shards.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::config::read_json;
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
pub(super) fn from_index(index: &Path) -> Result<Checkpoint, CheckpointError> {
    let json = read_json(index, MAX_INDEX_LEN)?;
    let Some(map) = json.get("weight_map").and_then(|m| m.as_object()) else {
        return Err(CheckpointError::malformed(
            index,
            "no \"weight_map\" object: not a sharded checkpoint's index",
        ));
    };
    let dir = match index.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Tensor → shard, and each shard's tensors, the shards in name order.
    let mut listed: HashMap<&str, &str> = HashMap::with_capacity(map.len());
    let mut shards: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (tensor, shard) in map {
        let Some(shard) = shard.as_str() else {
            return Err(CheckpointError::malformed(
                index,
                format!(
                    "weight_map[{}] is {}, not a shard's file name",
                    quoted(tensor),
                    quoted(&shard.to_string())
                ),
            ));
        };
        listed.insert(tensor, shard);
        shards.entry(shard).or_default().push(tensor);
    }
    let mut parts = Parts::new();
    let mut metadata = None;
    for (shard, tensors) in &shards {
        let path = shard_path(index, &dir, shard)?;
        if !path.is_file() {
            return Err(CheckpointError::MissingShard {
                index: index.to_path_buf(),
                shard: (*shard).to_owned(),
                tensor: tensors
                    .first()
                    .map_or_else(String::new, |t| (*t).to_owned()),
                count: tensors.len(),
            });
        }
        let h = header(&path)?;
        add(&mut parts, &path, &h)?;
        metadata.get_or_insert_with(|| h.metadata().clone());
    }
    let parts = parts.into_indexed()?;
    let shard_name = |file: usize| -> String {
        parts
            .files
            .get(file)
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    for (tensor, shard) in map {
        let shard = shard.as_str().unwrap_or("");
        let held = parts.tensors.get(tensor).map(|t| shard_name(t.file));
        if held.as_deref() != Some(shard) {
            return Err(CheckpointError::ListedButAbsent {
                index: index.to_path_buf(),
                tensor: tensor.clone(),
                shard: shard.to_owned(),
                found: held,
            });
        }
    }
    if let Some(t) = parts
        .tensors
        .items()
        .iter()
        .find(|t| !listed.contains_key(t.name.as_str()))
    {
        return Err(CheckpointError::NotListed {
            index: index.to_path_buf(),
            tensor: t.name.clone(),
            shard: shard_name(t.file),
        });
    }
    Ok(parts.finish(
        CheckpointFormat::ShardedSafetensors,
        metadata.unwrap_or_default(),
        None,
    ))
}
