//! Choices between blocks: where the elements of a folded list hold one of several sets of
//! tensors below one name. DeepSeek-V3's first three layers hold a dense feed-forward under
//! `mlp` (`gate_proj`, `up_proj`, `down_proj`), the others a router, shared experts and 256
//! routed experts under the same `mlp`; a spec writes that as
//! `"mlp" = { one_of = ["mlp", "mlp_2"], first = "k_dense" }`, and the experts fold inside
//! the second block.
//!
//! The rule: a name below a list's element (up to [`MAX_DEPTH`] segments, a proper prefix of
//! the name of a tensor some elements lack) is a choice when every element holds a tensor
//! below it and the elements, joined whenever two hold a tensor of the same name below it,
//! fall into 2 to [`MAX_BLOCKS`] groups: each group holds one block, and no two blocks share
//! a tensor. A tensor every element holds joins them all, so a name with one common tensor
//! is never a choice; the shortest such name of a list wins.
//!
//! Once found, the names are folded again with each element's block marked in the segment
//! the choice sits at (`layers.3.mlp\u{1}1.experts.7.w`), so that the lists inside a block
//! fold over the elements that hold it (`blocks.rs`).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::blocks::{Folded, Split};
use super::names::{MARK, place, split_name};
use crate::source::CheckpointTensor;

/// The most segments below a list's element that a choice sits at (`mlp`, `model.mlp`, …).
const MAX_DEPTH: usize = 3;

/// The most blocks one choice has: more groups of elements are not one choice (each layer
/// unlike the others), and their tensors stay optional.
const MAX_BLOCKS: usize = 4;

/// What each element of a list holds below one name: the roles of its tensors, by the
/// element's indices.
type Held = HashMap<Vec<usize>, Vec<usize>>;

/// A set of elements joined into groups (union-find with path halving).
struct Groups(Vec<usize>);

impl Groups {
    fn root(&mut self, mut e: usize) -> usize {
        while self.0[e] != e {
            self.0[e] = self.0[self.0[e]];
            e = self.0[e];
        }
        e
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            self.0[a.max(b)] = a.min(b);
        }
    }
}

/// The choices of `folded` (the names folded once): linear in the tensor count.
pub(super) fn find(tensors: &[CheckpointTensor], folded: &Folded) -> Vec<Split> {
    // Where a choice may sit: a proper prefix of the name of a tensor some elements lack.
    let mut places: HashSet<(usize, String)> = HashSet::new();
    let mut role_of: HashMap<(usize, &str), usize> = HashMap::new();
    for (i, r) in folded.roles.iter().enumerate() {
        let Some(l) = r.list else {
            continue;
        };
        role_of.insert((l, r.rel.as_str()), i);
        if folded
            .lists
            .get(l)
            .is_none_or(|list| r.instances >= list.elements)
        {
            continue;
        }
        let segments: Vec<&str> = r.rel.split('.').collect();
        for d in 1..segments.len().min(MAX_DEPTH + 1) {
            places.insert((l, segments[..d].join(".")));
        }
    }
    if places.is_empty() {
        return Vec::new();
    }
    // What each element holds below each such place: the roles of its tensors.
    let keys = folded.keys();
    let mut held: HashMap<(usize, String), Held> = HashMap::new();
    for t in tensors {
        let (segments, cands) = split_name(t, &t.name);
        let (Some(l), indices, from) = place(&segments, &cands, &keys) else {
            continue;
        };
        let below = &segments[from..];
        let Some(&role) = role_of.get(&(l, below.join(".").as_str())) else {
            continue;
        };
        for d in 1..below.len().min(MAX_DEPTH + 1) {
            let key = (l, below[..d].join("."));
            if places.contains(&key) {
                held.entry(key)
                    .or_default()
                    .entry(indices.clone())
                    .or_default()
                    .push(role);
            }
        }
    }
    // Shortest names first, so that a choice inside another is not taken.
    let mut held: Vec<((usize, String), Held)> = held.into_iter().collect();
    held.sort_by(|((la, a), _), ((lb, b), _)| {
        (la, a.matches('.').count(), a).cmp(&(lb, b.matches('.').count(), b))
    });
    let mut splits: Vec<(usize, Split)> = Vec::new();
    for ((l, at), by_element) in held {
        let Some(list) = folded.lists.get(l) else {
            continue;
        };
        if by_element.len() != list.elements
            || splits
                .iter()
                .any(|(sl, s)| *sl == l && at.starts_with(&format!("{}.", s.at)))
        {
            continue;
        }
        if let Some(split) = split(list.key.clone(), list.parent.is_none(), at, by_element) {
            splits.push((l, split));
        }
    }
    splits.into_iter().map(|(_, s)| s).collect()
}

/// The choice at `at` from what each element of a list holds below it, if its elements
/// fall into 2 to [`MAX_BLOCKS`] groups.
fn split(list_key: String, outermost: bool, at: String, by_element: Held) -> Option<Split> {
    let mut elements: Vec<(Vec<usize>, Vec<usize>)> = by_element.into_iter().collect();
    elements.sort();
    let mut groups = Groups((0..elements.len()).collect());
    let mut holder: HashMap<usize, usize> = HashMap::new();
    for (e, (_, roles)) in elements.iter().enumerate() {
        for &role in roles {
            match holder.get(&role) {
                Some(&other) => groups.join(other, e),
                None => {
                    holder.insert(role, e);
                }
            }
        }
    }
    // Each group's block, numbered in the order of its first element.
    let mut block_of_root: HashMap<usize, usize> = HashMap::new();
    let mut option_of = HashMap::with_capacity(elements.len());
    let mut counts: Vec<usize> = Vec::new();
    for (e, (indices, _)) in elements.iter().enumerate() {
        let root = groups.root(e);
        let next = block_of_root.len();
        let block = *block_of_root.entry(root).or_insert(next);
        if block == counts.len() {
            counts.push(0);
        }
        counts[block] += 1;
        option_of.insert(indices.clone(), block);
    }
    if !(2..=MAX_BLOCKS).contains(&counts.len()) {
        return None;
    }
    let leading = (outermost && counts.len() == 2)
        .then(|| counts[0])
        .filter(|&k| (0..k).all(|i| option_of.get(&vec![i]) == Some(&0)));
    Some(Split {
        list_key,
        at,
        option_of,
        elements: counts,
        leading,
    })
}

/// Each tensor's name with the block of its element marked where a choice sits (the
/// others as they are).
pub(super) fn mark<'a>(
    tensors: &'a [CheckpointTensor],
    folded: &Folded,
    splits: &[Split],
) -> Vec<Cow<'a, str>> {
    let keys = folded.keys();
    let mut by_list: HashMap<usize, Vec<&Split>> = HashMap::new();
    for split in splits {
        if let Some(&l) = keys.get(&split.list_key) {
            by_list.entry(l).or_default().push(split);
        }
    }
    tensors
        .iter()
        .map(|t| {
            let (segments, cands) = split_name(t, &t.name);
            let (Some(l), indices, from) = place(&segments, &cands, &keys) else {
                return Cow::Borrowed(t.name.as_str());
            };
            for split in by_list.get(&l).into_iter().flatten() {
                let depth = split.at.matches('.').count() + 1;
                let Some(below) = segments.get(from..from + depth) else {
                    continue;
                };
                if segments.len() > from + depth
                    && below.join(".") == split.at
                    && let Some(&option) = split.option_of.get(&indices)
                {
                    let mut out: Vec<Cow<'_, str>> =
                        segments.iter().map(|seg| Cow::Borrowed(*seg)).collect();
                    out[from + depth - 1] =
                        Cow::Owned(format!("{}{MARK}{option}", segments[from + depth - 1]));
                    return Cow::Owned(out.join("."));
                }
            }
            Cow::Borrowed(t.name.as_str())
        })
        .collect()
}
