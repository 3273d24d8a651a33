//! PyTorch's zip checkpoints (`torch.save` since 1.6: `.bin`, `.pt`, `.pth`): the archive's
//! `ARCHIVE/data.pkl` is read with the bounded pickle reader, and each tensor is checked
//! against its storage, and each storage against its data member `ARCHIVE/data/KEY` (its size
//! in the zip directory; the data itself is never read), as `torch.load` refuses a tensor
//! whose view reaches past its storage and a storage whose data is missing or short.

use std::collections::HashMap;
use std::io::{Read, Seek};
use std::path::Path;
use std::rc::Rc;

use super::pickle::{PickledTensor, Rebuilt};
use super::{Checkpoint, CheckpointError, CheckpointFormat, Parts, pickle};
use crate::shape::DisplayDims;
use crate::text::quoted;

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
    let file = archive.by_name(&member).map_err(|e| {
        CheckpointError::malformed(path, format!("member {}: {e}", quoted(&member)))
    })?;
    if file.size() > MAX_PICKLE_LEN {
        return Err(CheckpointError::malformed(
            path,
            format!(
                "member {} is {} bytes, over the {MAX_PICKLE_LEN}-byte limit",
                quoted(&member),
                file.size()
            ),
        ));
    }
    let mut data = Vec::with_capacity(file.size().min(1 << 20) as usize);
    file.take(MAX_PICKLE_LEN)
        .read_to_end(&mut data)
        .map_err(|e| {
            CheckpointError::malformed(path, format!("member {}: {e}", quoted(&member)))
        })?;
    let tensors = pickle::tensors(&data)
        .map_err(|e| CheckpointError::malformed(path, format!("{member}: {e}")))?;
    let prefix = member.strip_suffix("data.pkl").unwrap_or_default();
    check_data(path, &mut archive, prefix, &tensors)?;
    let mut parts = Parts::new();
    parts.add_file(
        path,
        tensors.into_iter().map(|t| {
            let r = &t.tensor;
            (t.name, r.shape.clone(), r.dtype.clone())
        }),
    )?;
    parts.finish(CheckpointFormat::PyTorch, Default::default(), None)
}

/// Each tensor against its storage, and each storage against the bytes of its data member
/// `{prefix}data/{key}`: an error naming the tensor for a storage with no member, a member
/// shorter than its storage, or a view that reaches past its storage.
fn check_data<R: Read + Seek>(
    path: &Path,
    archive: &mut zip::ZipArchive<R>,
    prefix: &str,
    tensors: &[PickledTensor],
) -> Result<(), CheckpointError> {
    // The bytes each storage's member holds, looked up once per storage.
    let mut held: HashMap<Rc<str>, u64> = HashMap::new();
    for t in tensors {
        let r = &t.tensor;
        let fail = |detail: String| {
            CheckpointError::malformed(path, format!("tensor {}: {detail}", quoted(&t.name)))
        };
        let Some(element_size) = r.element_size else {
            return Err(fail(format!(
                "its storage type {} is not one torch has, so its data cannot be checked",
                quoted(&r.dtype)
            )));
        };
        let member = || format!("{prefix}data/{}", r.key);
        let bytes = match held.get(&r.key) {
            Some(&n) => n,
            None => {
                let Some(i) = archive.index_for_name(&member()) else {
                    return Err(fail(format!(
                        "its storage {} has no data member {}",
                        quoted(&r.key),
                        quoted(&member())
                    )));
                };
                let n = archive.by_index_raw(i).map(|f| f.size()).map_err(|e| {
                    CheckpointError::malformed(path, format!("member {}: {e}", quoted(&member())))
                })?;
                held.insert(Rc::clone(&r.key), n);
                n
            }
        };
        let needs = r
            .storage_numel
            .checked_mul(element_size)
            .and_then(|n| u64::try_from(n).ok());
        if needs.is_none_or(|n| n > bytes) {
            let needs = needs.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string());
            return Err(fail(format!(
                "storage {} of {} {} elements needs {needs} bytes, but {} holds {bytes}",
                quoted(&r.key),
                r.storage_numel,
                r.dtype,
                quoted(&member())
            )));
        }
        check_view(r).map_err(fail)?;
    }
    Ok(())
}

/// Whether the view `r` (size, strides, offset) stays inside its storage's elements: the
/// element it reaches last is `offset + Σ (size - 1) × stride`, computed without overflow.
/// An empty view reaches none.
fn check_view(r: &Rebuilt) -> Result<(), String> {
    let dims = r.shape.dims();
    if r.strides.len() != dims.len() {
        return Err(format!(
            "{} dims but {} strides",
            dims.len(),
            r.strides.len()
        ));
    }
    if dims.contains(&0) {
        return Ok(());
    }
    let last = dims
        .iter()
        .zip(&r.strides)
        .try_fold(r.offset, |acc, (&d, &s)| {
            (d - 1)
                .checked_mul(s)
                .and_then(|step| acc.checked_add(step))
        });
    match last {
        Some(last) if last < r.storage_numel => Ok(()),
        last => Err(format!(
            "size {} with strides {} from offset {} reaches element {} of its storage {}, \
             which has {}",
            r.shape,
            DisplayDims(&r.strides),
            r.offset,
            last.map_or_else(|| "past 2^64".to_owned(), |l| l.to_string()),
            quoted(&r.key),
            r.storage_numel
        )),
    }
}
