//! PyTorch's zip checkpoints (`torch.save` since 1.6: `.bin`, `.pt`, `.pth`): the archive's
//! `ARCHIVE/data.pkl` is read with the bounded pickle reader; the storages
//! (`ARCHIVE/data/0`, …) are never read.

use std::io::{Read, Seek};
use std::path::Path;

use super::{Checkpoint, CheckpointError, CheckpointFormat, Parts, pickle};

/// The largest `data.pkl` read: 256 MiB (a state dict's pickle is ~100 bytes a tensor).
const MAX_PICKLE_LEN: u64 = 256 << 20;

pub(super) fn open<R: Read + Seek>(
    path: &Path,
    mut archive: zip::ZipArchive<R>,
) -> Result<Checkpoint, CheckpointError> {
    let member = archive
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| n == "data.pkl" || n.ends_with("/data.pkl"))
        .min_by_key(|n| n.len())
        .map(|n| n.into_owned())
        .ok_or_else(|| CheckpointError::malformed(path, "no data.pkl in the archive"))?;
    let file = archive
        .by_name(&member)
        .map_err(|e| CheckpointError::malformed(path, format!("member {member:?}: {e}")))?;
    if file.size() > MAX_PICKLE_LEN {
        return Err(CheckpointError::malformed(
            path,
            format!(
                "member {member:?} is {} bytes, over the {MAX_PICKLE_LEN}-byte limit",
                file.size()
            ),
        ));
    }
    let mut data = Vec::with_capacity(file.size().min(1 << 20) as usize);
    file.take(MAX_PICKLE_LEN)
        .read_to_end(&mut data)
        .map_err(|e| CheckpointError::malformed(path, format!("member {member:?}: {e}")))?;
    let tensors = pickle::tensors(&data)
        .map_err(|e| CheckpointError::malformed(path, format!("{member}: {e}")))?;
    let mut parts = Parts::new();
    parts.add_file(
        path,
        tensors.into_iter().map(|t| (t.name, t.shape, t.dtype)),
    )?;
    parts.finish(CheckpointFormat::PyTorch, Default::default(), None)
}
