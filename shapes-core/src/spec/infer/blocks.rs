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
//! - at most 8 lists nest: deeper indices stay in the names;
//! - where the elements of a list hold one of several sets of tensors below one name
//!   (DeepSeek-V3's first three layers hold a dense `mlp`, the others a router and experts
//!   under `mlp`), that name is a choice between blocks (`choices.rs`), and the lists inside
//!   each block fold over the elements that hold it.
//!
//! Two or three passes over the names and one over the roles, with hash maps: linear in the
//! tensor count.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::names::{BLANK, MARK, list_key, marked, marked_prefix, place, split_name};
use crate::source::CheckpointTensor;

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

/// A folded list of blocks, or one block of a choice.
#[derive(Debug)]
pub(super) struct List {
    pub parent: Option<usize>,
    /// Its name below its parent's element (`mlp.experts`), or in full; a choice's blocks
    /// the name the choice sits at (`mlp`).
    pub rel: String,
    /// How many elements it has in all (over every element of its parent); a choice's
    /// block how many elements of its parent hold it.
    pub elements: usize,
    /// How many elements each element of its parent holds, when that is the same for all;
    /// `None` for a choice's block.
    pub count: Option<usize>,
    /// For a block of a choice: the choice (an index into [`Folded::choices`]).
    pub choice: Option<usize>,
    /// Its key while folding (its name, the indices above blanked).
    pub(super) key: String,
}

/// A name below each element of a list where the elements hold one of several blocks.
#[derive(Debug)]
pub(super) struct Choice {
    /// Its name below the list's element (`mlp`).
    pub at: String,
    /// Its blocks (indices into [`Folded::lists`]), the one the first element holds first.
    pub blocks: Vec<usize>,
    /// With two blocks, when the first block is held by the list's first `k` elements and
    /// the second by the rest: `k` (for an outermost list only).
    pub leading: Option<usize>,
}

/// The checkpoint's tensors as roles and lists.
#[derive(Debug, Default)]
pub(super) struct Folded {
    pub roles: Vec<Role>,
    pub lists: Vec<List>,
    pub choices: Vec<Choice>,
}

/// What is seen of one candidate list: for each element of its parent (by the indices of
/// the lists above), the indices it holds.
#[derive(Default)]
struct Seen {
    parent: Option<String>,
    depth: usize,
    by_parent: HashMap<Vec<usize>, HashSet<usize>>,
}

/// Folds `tensors` into roles and lists. A list whose elements share no tensor and no list
/// (T5's `layer.0` is attention, `layer.1` the feed-forward) would make every tensor of its
/// block optional: it is not folded, and the names are folded again without it (once: the
/// lists inside it are then not folded either). Returns the lists left unfolded with it.
pub(super) fn fold_lists(tensors: &[CheckpointTensor]) -> (Folded, HashSet<String>) {
    let names: Vec<&str> = tensors.iter().map(|t| t.name.as_str()).collect();
    let first = fold_except(tensors, &names, &HashSet::new(), &[]);
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
        (first, unshared)
    } else {
        (fold_except(tensors, &names, &unshared, &[]), unshared)
    }
}

/// A choice found by `choices.rs` in a folded list: the input of folding again.
#[derive(Debug)]
pub(super) struct Split {
    /// The list's key (unchanged by marking: the marks are below its elements).
    pub list_key: String,
    /// The name below each element it sits at.
    pub at: String,
    /// Each element's block, by the element's indices.
    pub option_of: HashMap<Vec<usize>, usize>,
    /// How many elements hold each block.
    pub elements: Vec<usize>,
    /// With two blocks, when the list's first `k` elements hold the first and the others
    /// the second: `k` (an outermost list only).
    pub leading: Option<usize>,
}

/// Folds `tensors` under `names` (their own, or with the blocks of `splits` marked), leaving
/// the lists keyed in `except` unfolded.
pub(super) fn fold_except(
    tensors: &[CheckpointTensor],
    names: &[&str],
    except: &HashSet<String>,
    splits: &[Split],
) -> Folded {
    // Pass 1: every candidate list and the indices each parent element holds.
    let mut seen: HashMap<String, Seen> = HashMap::new();
    for (t, name) in tensors.iter().zip(names) {
        let (segments, cands) = split_name(t, name);
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
    let mut chosen: Vec<Choice> = Vec::new();
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
        // The segments after the parent's blank: none for an index right after another
        // (`x.0.1.w`), which is not folded (a list needs a name).
        let below = match &s.parent {
            Some(p) => match key.get(p.len() + 1 + BLANK.len() + 1..) {
                Some(rel) if !rel.is_empty() => rel,
                _ => continue,
            },
            None => key.as_str(),
        };
        // Inside a block of a choice: that block is the parent.
        let (parent, rel) = match (parent, marked_prefix(below)) {
            (Some(p), Some(end)) => {
                let block = format!("{}.{BLANK}.{}", lists[p].key, &below[..end]);
                match (folded.get(&block), below.get(end + 1..)) {
                    (Some(&b), Some(rel)) if !rel.is_empty() => (Some(b), rel),
                    _ => continue,
                }
            }
            (_, Some(_)) => continue,
            (parent, None) => (parent, below),
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
        let at = lists.len();
        folded.insert(key.clone(), at);
        lists.push(List {
            parent,
            rel: rel.to_owned(),
            elements,
            count,
            choice: None,
            key: key.clone(),
        });
        // The blocks of the choices inside its elements, right after it.
        for split in splits.iter().filter(|sp| sp.list_key == *key) {
            let mut blocks = Vec::with_capacity(split.elements.len());
            for (option, &n) in split.elements.iter().enumerate() {
                let block_key = format!("{key}.{BLANK}.{}", marked(&split.at, option));
                folded.insert(block_key.clone(), lists.len());
                blocks.push(lists.len());
                lists.push(List {
                    parent: Some(at),
                    rel: split.at.clone(),
                    elements: n,
                    count: None,
                    choice: Some(chosen.len()),
                    key: block_key,
                });
            }
            chosen.push(Choice {
                at: split.at.clone(),
                blocks,
                leading: split.leading,
            });
        }
    }
    // Pass 2: each tensor's role.
    let mut roles: Vec<Role> = Vec::new();
    let mut by_key: HashMap<Option<usize>, HashMap<String, usize>> = HashMap::new();
    for (t, name) in tensors.iter().zip(names) {
        let (segments, cands) = split_name(t, name);
        let (mut list, _, mut rest_from) = place(&segments, &cands, &folded);
        // Inside a block of a choice: that block.
        if let Some(l) = list
            && let Some(j) = segments[rest_from..].iter().position(|s| s.contains(MARK))
        {
            let block_key = format!(
                "{}.{BLANK}.{}",
                lists[l].key,
                segments[rest_from..=rest_from + j].join(".")
            );
            if let Some(&b) = folded.get(&block_key) {
                list = Some(b);
                rest_from += j + 1;
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
    Folded {
        roles,
        lists,
        choices: chosen,
    }
}

impl Folded {
    /// Its lists by their keys.
    pub(super) fn keys(&self) -> HashMap<String, usize> {
        self.lists
            .iter()
            .enumerate()
            .map(|(i, l)| (l.key.clone(), i))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;
    use crate::spec::infer::fold;

    fn t(name: &str, dims: &[usize]) -> CheckpointTensor {
        CheckpointTensor {
            name: name.into(),
            shape: Shape::new(dims),
            dtype: "F16".into(),
            file: 0,
        }
    }

    /// Each role's list, name and instances.
    fn roles(f: &Folded) -> Vec<(Option<usize>, &str, usize)> {
        f.roles
            .iter()
            .map(|r| (r.list, r.rel.as_str(), r.instances))
            .collect()
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
        assert_eq!(
            roles(&f),
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
    fn dense_layers_then_experts_are_a_choice_and_the_experts_fold() {
        let mut ts = Vec::new();
        for l in 0..5 {
            ts.push(t(&format!("layers.{l}.norm.weight"), &[4]));
            if l < 2 {
                ts.push(t(&format!("layers.{l}.mlp.up.weight"), &[8, 4]));
            } else {
                ts.push(t(&format!("layers.{l}.mlp.gate.weight"), &[3, 4]));
                for e in 0..3 {
                    ts.push(t(&format!("layers.{l}.mlp.experts.{e}.up.weight"), &[6, 4]));
                }
            }
        }
        let f = fold(&ts);
        let lists: Vec<(&str, usize, Option<usize>, Option<usize>)> = f
            .lists
            .iter()
            .map(|l| (l.rel.as_str(), l.elements, l.count, l.choice))
            .collect();
        assert_eq!(
            lists,
            [
                ("layers", 5, Some(5), None),
                ("mlp", 2, None, Some(0)),
                ("mlp", 3, None, Some(0)),
                ("experts", 9, Some(3), None)
            ]
        );
        assert_eq!(f.lists[3].parent, Some(2));
        assert_eq!(f.choices.len(), 1);
        assert_eq!(
            (
                f.choices[0].at.as_str(),
                &f.choices[0].blocks,
                f.choices[0].leading
            ),
            ("mlp", &vec![1, 2], Some(2))
        );
        assert_eq!(
            roles(&f),
            [
                (Some(0), "norm.weight", 5),
                (Some(1), "up.weight", 2),
                (Some(2), "gate.weight", 3),
                (Some(3), "up.weight", 9)
            ]
        );
    }

    #[test]
    fn a_tensor_every_layer_holds_is_no_choice() {
        // Every `mlp` holds `w`: one block, `b` optional in it.
        let ts = vec![
            t("l.0.mlp.w", &[2]),
            t("l.0.mlp.b", &[2]),
            t("l.1.mlp.w", &[2]),
            t("l.2.mlp.w", &[2]),
            t("l.2.mlp.b", &[2]),
        ];
        let f = fold(&ts);
        assert!(f.choices.is_empty());
        // Five kinds of layer are not one choice either.
        let ts: Vec<CheckpointTensor> = (0..5)
            .map(|l| t(&format!("l.{l}.mlp.w{l}"), &[2]))
            .collect();
        assert!(fold(&ts).choices.is_empty());
        // Interleaved kinds: a choice the config cannot count.
        let ts: Vec<CheckpointTensor> = (0..4)
            .flat_map(|l| {
                [
                    t(&format!("l.{l}.norm"), &[2]),
                    t(&format!("l.{l}.mix.{}", ["a", "b"][l % 2]), &[2]),
                ]
            })
            .collect();
        let f = fold(&ts);
        assert_eq!(f.choices.len(), 1);
        assert_eq!(f.choices[0].leading, None);
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
