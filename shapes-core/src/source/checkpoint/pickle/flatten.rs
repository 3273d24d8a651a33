//! The names of a pickled state dict's tensors: the top-level dict's keys, and the keys of the
//! dicts nested in it joined by `.` (`{'model': {'w': t}}` names `t` `model.w`).
//!
//! The pickle reader builds containers shared through the memo once, so a few hundred bytes
//! can hold a dict that reaches the level below it twice, 40 times over: 2^40 names. The
//! names are therefore counted first, over the shared structure (each distinct dict once):
//! how many tensors, how many bytes of names, and how many entries a walk visits. A pickle
//! past any limit is refused before a name is built, so time and memory stay linear in the
//! pickle. A dict that names no tensor is never walked, however often it is shared.

use std::collections::HashMap;
use std::rc::Rc;

use super::super::MAX_TENSORS;
use super::{PickledTensor, Seq, V};

/// The most bytes the names of one pickle's tensors add up to: 64 MiB. A published
/// checkpoint's names take a few megabytes (100,000 tensors of 60-byte names is 6 MB); only
/// dicts shared through the memo (or absurdly long keys) come near it.
pub(super) const MAX_NAME_BYTES: u64 = 64 << 20;

/// The most dict entries the walk that names the tensors visits: 1 << 24 (a dict shared
/// through the memo counts each time it is reached). A state dict's walk visits each entry
/// once.
pub(super) const MAX_FLATTEN_STEPS: u64 = 1 << 24;

/// What walking a dict would produce, counted without walking: saturating, so that counts
/// past `u64` stay past every limit.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    /// Tensors named.
    names: u64,
    /// Bytes of those names, below the dict (its own key not included).
    bytes: u64,
    /// Entries visited.
    steps: u64,
}

/// A dict's entries with a string key, in order, a key given twice keeping its last value at
/// its first place (what `d[k] = v` does in Python): for each, the index of the key's first
/// pair and of its last one. Other keys name nothing.
fn entries(dict: &Seq) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(dict.items.len() / 2);
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, pair) in dict.items.chunks_exact(2).enumerate() {
        let V::Str(key) = &pair[0] else {
            continue;
        };
        match at.get(&**key) {
            Some(&k) => {
                if let Some(slot) = out.get_mut(k) {
                    slot.1 = i;
                }
            }
            None => {
                at.insert(key, out.len());
                out.push((i, i));
            }
        }
    }
    out
}

/// The key and value of `dict`'s entry `(first, last)` (see [`entries`]).
fn entry(dict: &Seq, (first, last): (usize, usize)) -> Option<(&str, &V)> {
    let key = match dict.items.get(2 * first) {
        Some(V::Str(key)) => &**key,
        _ => return None,
    };
    Some((key, dict.items.get(2 * last + 1)?))
}

/// The key of a dict in [`Counts`]: its items' allocation, shared by every reference to it.
fn id(dict: &Seq) -> *const Vec<V> {
    Rc::as_ptr(&dict.items)
}

/// Every distinct dict reached: its totals and its entries, computed once each.
type Counts = HashMap<*const Vec<V>, (Totals, Rc<[(usize, usize)]>)>;

/// The totals of `dict`, memoised in `counts` with its entries (nesting is capped by the
/// pickle reader, so the recursion is too).
fn totals(dict: &Seq, counts: &mut Counts) -> Totals {
    if let Some((t, _)) = counts.get(&id(dict)) {
        return *t;
    }
    let list = entries(dict);
    let mut t = Totals {
        steps: u64::try_from(list.len()).unwrap_or(u64::MAX),
        ..Totals::default()
    };
    for &e in &list {
        let Some((key, value)) = entry(dict, e) else {
            continue;
        };
        let key_len = u64::try_from(key.len()).unwrap_or(u64::MAX);
        match value {
            V::Tensor(_) => {
                t.names = t.names.saturating_add(1);
                t.bytes = t.bytes.saturating_add(key_len);
            }
            V::Dict(inner) => {
                let c = totals(inner, counts);
                if c.names > 0 {
                    t.names = t.names.saturating_add(c.names);
                    let prefixes = c.names.saturating_mul(key_len.saturating_add(1));
                    t.bytes = t.bytes.saturating_add(prefixes).saturating_add(c.bytes);
                    t.steps = t.steps.saturating_add(c.steps);
                }
            }
            _ => {}
        }
    }
    counts.insert(id(dict), (t, Rc::from(list)));
    t
}

/// The tensors the top-level dict `top` names, in the pickle's order, or why there would be
/// too many of them to build.
pub(super) fn names(top: &Seq) -> Result<Vec<PickledTensor>, String> {
    let mut counts = Counts::new();
    let t = totals(top, &mut counts);
    let shared = "(a dict shared through the memo counts each time it is reached)";
    let limit = MAX_TENSORS as u64;
    if t.names > limit {
        return Err(format!(
            "its dicts name {} tensors {shared}, more than the {MAX_TENSORS} (MAX_TENSORS) a \
             checkpoint may hold",
            t.names
        ));
    }
    if t.steps > MAX_FLATTEN_STEPS {
        return Err(format!(
            "walking its dicts to name their tensors visits {} entries {shared}, more than \
             the {MAX_FLATTEN_STEPS} (MAX_FLATTEN_STEPS) read",
            t.steps
        ));
    }
    if t.bytes > MAX_NAME_BYTES {
        return Err(format!(
            "the names of its tensors add up to {} bytes {shared}, more than the \
             {MAX_NAME_BYTES} (MAX_NAME_BYTES) read",
            t.bytes
        ));
    }
    let mut out = Vec::with_capacity(usize::try_from(t.names).unwrap_or(0));
    walk(top, "", &counts, &mut out);
    Ok(out)
}

/// Appends the tensors `dict` names under `prefix`, skipping the dicts that name none.
fn walk(dict: &Seq, prefix: &str, counts: &Counts, out: &mut Vec<PickledTensor>) {
    let Some((_, list)) = counts.get(&id(dict)) else {
        return;
    };
    for &e in list.iter() {
        let Some((key, value)) = entry(dict, e) else {
            continue;
        };
        let name = || {
            if prefix.is_empty() {
                key.to_owned()
            } else {
                format!("{prefix}.{key}")
            }
        };
        match value {
            V::Tensor(t) => out.push(PickledTensor {
                name: name(),
                tensor: Rc::clone(t),
            }),
            V::Dict(inner) if counts.get(&id(inner)).is_some_and(|(c, _)| c.names > 0) => {
                walk(inner, &name(), counts, out)
            }
            _ => {}
        }
    }
}
