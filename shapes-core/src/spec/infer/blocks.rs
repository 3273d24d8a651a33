//! The repeated blocks of a checkpoint, found from its tensor names alone: `model.layers.3.…`
//! is element 3 of the list `model.layers`, and `….experts.7.…` inside it element 7 of a
//! list nested in each layer. Every tensor becomes a role (its name with the folded indices
//! blanked), whose dims and dtypes are gathered over all its instances.
//!
//! The rules:
//! - an index is a segment of ASCII digits (`0` or without a leading zero) that is neither the
//!   first nor the last segment of the name;
//! - a list is folded when every element of its parent (the whole checkpoint for an outermost
//!   list) holds it, with the indices `0..n` and no gap; a list inside a list that is not
//!   folded is not folded either, and its indices stay in the names;
//! - a list's count is known when every element of its parent holds as many elements;
//! - a list whose elements share no tensor or list is not folded (T5's `layer.0` attention,
//!   `layer.1` feed-forward);
//! - at most 8 lists nest: deeper indices stay in the names.
//!
//! One pass over the names and one over the roles, with hash maps: linear in the tensor count.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::source::CheckpointTensor;

/// The blank that marks a folded index inside a role's key: a tensor name holding it (a
/// hostile name) is never folded.
const BLANK: &str = "\u{0}";

/// A kind of tensor: one name, or one name in every element of the lists it sits in.
#[derive(Debug)]
pub(super) struct Role {
    /// The innermost folded list it sits in (an index into [`Folded::lists`]).
    pub list: Option<usize>,
    /// Its name below that list's element (`self_attn.q_proj.weight`), or in full.
    pub rel: String,
    /// Each axis's size when every instance has it, `None` when it varies; `None` as a whole
    /// when the rank varies.
    pub dims: Option<Vec<Option<usize>>>,
    /// The dtypes its instances have.
    pub dtypes: BTreeSet<String>,
    /// How many tensors it stands for.
    pub instances: usize,
}

/// A folded list of blocks.
#[derive(Debug)]
pub(super) struct List {
    pub parent: Option<usize>,
    /// Its name below its parent's element (`mlp.experts`), or in full.
    pub rel: String,
    /// How many elements it has in all (over every element of its parent).
    pub elements: usize,
    /// How many elements each element of its parent holds, when that is the same for all.
    pub count: Option<usize>,
    /// Its key while folding (its name, the indices above blanked).
    key: String,
}

/// The checkpoint's tensors as roles and lists.
#[derive(Debug, Default)]
pub(super) struct Folded {
    pub roles: Vec<Role>,
    pub lists: Vec<List>,
}

/// Whether a segment is an index: digits, canonical.
fn is_index(segment: &str) -> bool {
    !segment.is_empty()
        && segment.bytes().all(|b| b.is_ascii_digit())
        && (segment == "0" || !segment.starts_with('0'))
        && segment.parse::<usize>().is_ok()
}

/// The most lists nested in one another that are folded: deeper indices stay in the names
/// (real checkpoints nest two: experts in layers), so that a name of a million `.0`
/// segments costs no more than a short one.
const MAX_DEPTH: usize = 8;

/// The positions of a name's candidate indices, the first [`MAX_DEPTH`].
fn candidates(segments: &[&str]) -> Vec<usize> {
    let last = segments.len().saturating_sub(1);
    (1..last)
        .filter(|&i| is_index(segments[i]))
        .take(MAX_DEPTH)
        .collect()
}

/// What is seen of one candidate list: for each element of its parent (by the indices of
/// the lists above), the indices it holds.
#[derive(Default)]
struct Seen {
    parent: Option<String>,
    depth: usize,
    by_parent: HashMap<Vec<usize>, HashSet<usize>>,
}

/// The key of the candidate list ending at segment `at`: the name up to it, every earlier
/// candidate blanked.
fn list_key(segments: &[&str], cands: &[usize], at: usize) -> String {
    let mut out = String::new();
    for (i, s) in segments[..at].iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(if cands.contains(&i) { BLANK } else { s });
    }
    out
}

/// Folds `tensors` into roles and lists. A list whose elements share no tensor and no list
/// (T5's `layer.0` is attention, `layer.1` the feed-forward) would make every tensor of its
/// block optional: it is not folded, and the names are folded again without it (once: the
/// lists inside it are then not folded either).
pub(super) fn fold(tensors: &[CheckpointTensor]) -> Folded {
    let first = fold_except(tensors, &HashSet::new());
    let mut shared: HashSet<usize> = HashSet::new();
    for r in &first.roles {
        if let Some(l) = r.list
            && first
                .lists
                .get(l)
                .is_some_and(|l| l.elements == r.instances)
        {
            shared.insert(l);
        }
    }
    for l in &first.lists {
        if let Some(p) = l.parent {
            shared.insert(p);
        }
    }
    let unshared: HashSet<String> = first
        .lists
        .iter()
        .enumerate()
        .filter(|(i, _)| !shared.contains(i))
        .map(|(_, l)| l.key.clone())
        .collect();
    if unshared.is_empty() {
        first
    } else {
        fold_except(tensors, &unshared)
    }
}

/// Folds `tensors`, leaving the lists keyed in `except` unfolded.
fn fold_except(tensors: &[CheckpointTensor], except: &HashSet<String>) -> Folded {
    // Pass 1: every candidate list and the indices each parent element holds.
    let mut seen: HashMap<String, Seen> = HashMap::new();
    for t in tensors {
        if t.name.contains(BLANK) {
            continue;
        }
        let segments: Vec<&str> = t.name.split('.').collect();
        let cands = candidates(&segments);
        let mut parent: Option<String> = None;
        let mut indices: Vec<usize> = Vec::new();
        for (depth, &at) in cands.iter().enumerate() {
            let key = list_key(&segments, &cands, at);
            let Ok(index) = segments[at].parse::<usize>() else {
                break;
            };
            if !seen.contains_key(&key) {
                let fresh = Seen {
                    parent: parent.clone(),
                    depth,
                    ..Seen::default()
                };
                seen.insert(key.clone(), fresh);
            }
            if let Some(entry) = seen.get_mut(&key) {
                match entry.by_parent.get_mut(&indices) {
                    Some(set) => {
                        set.insert(index);
                    }
                    None => {
                        entry
                            .by_parent
                            .insert(indices.clone(), HashSet::from([index]));
                    }
                }
            }
            indices.push(index);
            parent = Some(key);
        }
    }
    // Which lists fold, outermost first.
    let mut keys: Vec<&String> = seen.keys().collect();
    keys.sort_by_key(|k| (seen[*k].depth, (*k).clone()));
    let mut folded: HashMap<String, usize> = HashMap::new();
    let mut lists: Vec<List> = Vec::new();
    for key in keys {
        let s = &seen[key];
        if except.contains(key) {
            continue;
        }
        let parent = match &s.parent {
            None => None,
            Some(p) => match folded.get(p) {
                Some(&i) => Some(i),
                None => continue,
            },
        };
        // Every element of the parent holds this list.
        let parent_elements = parent.map_or(1, |p| lists[p].elements);
        if s.by_parent.len() != parent_elements {
            continue;
        }
        let contiguous = s
            .by_parent
            .values()
            .all(|set| set.iter().all(|&i| i < set.len()));
        if !contiguous {
            continue;
        }
        let mut counts = s.by_parent.values().map(HashSet::len);
        let first = counts.next().unwrap_or(0);
        let count = counts.all(|n| n == first).then_some(first);
        let elements = s.by_parent.values().map(HashSet::len).sum();
        let rel = match &s.parent {
            // The segments after the parent's blank: none for an index right after another
            // (`x.0.1.w`), which is not folded (a list needs a name).
            Some(p) => match key.get(p.len() + 1 + BLANK.len() + 1..) {
                Some(rel) if !rel.is_empty() => rel.to_owned(),
                _ => continue,
            },
            None => key.clone(),
        };
        folded.insert(key.clone(), lists.len());
        lists.push(List {
            parent,
            rel,
            elements,
            count,
            key: key.clone(),
        });
    }
    // Pass 2: each tensor's role.
    let mut roles: Vec<Role> = Vec::new();
    let mut by_key: HashMap<Option<usize>, HashMap<String, usize>> = HashMap::new();
    for t in tensors {
        let segments: Vec<&str> = t.name.split('.').collect();
        let cands = if t.name.contains(BLANK) {
            Vec::new()
        } else {
            candidates(&segments)
        };
        let mut list = None;
        let mut rest_from = 0;
        for &at in &cands {
            match folded.get(&list_key(&segments, &cands, at)) {
                Some(&l) => {
                    list = Some(l);
                    rest_from = at + 1;
                }
                None => break,
            }
        }
        let rel = if list.is_some() {
            segments[rest_from..].join(".")
        } else {
            t.name.clone()
        };
        let dims = t.shape.dims();
        let here = by_key.entry(list).or_default();
        let at = match here.get(&rel) {
            Some(&at) => at,
            None => {
                here.insert(rel.clone(), roles.len());
                roles.push(Role {
                    list,
                    rel,
                    dims: Some(dims.iter().map(|d| Some(*d)).collect()),
                    dtypes: BTreeSet::new(),
                    instances: 0,
                });
                roles.len() - 1
            }
        };
        let Some(role) = roles.get_mut(at) else {
            continue;
        };
        role.instances += 1;
        if !role.dtypes.contains(&t.dtype) {
            role.dtypes.insert(t.dtype.clone());
        }
        if let Some(have) = &mut role.dims {
            if have.len() == dims.len() {
                for (h, d) in have.iter_mut().zip(dims) {
                    if *h != Some(*d) {
                        *h = None;
                    }
                }
            } else {
                role.dims = None;
            }
        }
    }
    roles.sort_by(|a, b| (a.list, &a.rel).cmp(&(b.list, &b.rel)));
    Folded { roles, lists }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;

    fn t(name: &str, dims: &[usize]) -> CheckpointTensor {
        CheckpointTensor {
            name: name.into(),
            shape: Shape::new(dims),
            dtype: "F16".into(),
            file: 0,
        }
    }

    #[test]
    fn layers_and_experts_in_them_fold() {
        let mut ts = vec![t("embed.weight", &[10, 4])];
        for l in 0..3 {
            ts.push(t(&format!("layers.{l}.norm.weight"), &[4]));
            for e in 0..2 {
                ts.push(t(&format!("layers.{l}.moe.experts.{e}.w"), &[8, 4]));
            }
        }
        let f = fold(&ts);
        assert_eq!(f.lists.len(), 2);
        // T5's sub-layers: attention in `layer.0`, the feed-forward in `layer.1`.
        let ts = vec![
            t("block.0.layer.0.q.weight", &[4, 4]),
            t("block.0.layer.1.wi.weight", &[8, 4]),
            t("block.1.layer.0.q.weight", &[4, 4]),
            t("block.1.layer.1.wi.weight", &[8, 4]),
        ];
        let t5 = fold(&ts);
        let lists: Vec<&str> = t5.lists.iter().map(|l| l.rel.as_str()).collect();
        assert_eq!(lists, ["block"]);
        let rels: Vec<&str> = t5.roles.iter().map(|r| r.rel.as_str()).collect();
        assert_eq!(rels, ["layer.0.q.weight", "layer.1.wi.weight"]);
        assert_eq!(
            (f.lists[0].rel.as_str(), f.lists[0].count),
            ("layers", Some(3))
        );
        assert_eq!(
            (f.lists[1].rel.as_str(), f.lists[1].count, f.lists[1].parent),
            ("moe.experts", Some(2), Some(0))
        );
        let rels: Vec<(Option<usize>, &str, usize)> = f
            .roles
            .iter()
            .map(|r| (r.list, r.rel.as_str(), r.instances))
            .collect();
        assert_eq!(
            rels,
            [
                (None, "embed.weight", 1),
                (Some(0), "norm.weight", 3),
                (Some(1), "w", 6)
            ]
        );
    }

    #[test]
    fn a_gap_or_a_list_some_parents_lack_stays_literal() {
        let ts = vec![
            t("a.0.w", &[2]),
            t("a.2.w", &[2]),
            t("b.0.x.0.w", &[2]),
            t("b.1.y", &[2]),
            t("c.01.w", &[2]),
            t("d.0.1.w", &[2]),
        ];
        let f = fold(&ts);
        let lists: Vec<&str> = f.lists.iter().map(|l| l.rel.as_str()).collect();
        // `b.0` and `b.1` share nothing either.
        assert_eq!(lists, ["d"]);
        let rels: Vec<&str> = f.roles.iter().map(|r| r.rel.as_str()).collect();
        assert_eq!(
            rels,
            ["a.0.w", "a.2.w", "b.0.x.0.w", "b.1.y", "c.01.w", "1.w"]
        );
    }

    #[test]
    fn a_size_that_varies_over_the_layers_is_unknown() {
        let ts = vec![
            t("l.0.w", &[2, 3]),
            t("l.1.w", &[5, 3]),
            t("l.2.w", &[5, 3, 1]),
        ];
        let f = fold(&ts);
        assert_eq!(f.roles[0].dims, None);
        let ts = vec![t("l.0.w", &[2, 3]), t("l.1.w", &[5, 3])];
        assert_eq!(fold(&ts).roles[0].dims, Some(vec![None, Some(3)]));
    }
}
